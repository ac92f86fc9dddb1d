package verifyview

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// The component alone: no root model, real runs of real commands through
// /bin/sh in a temporary directory.

func testContext() kit.Context {
	return kit.Context{
		Styles: kit.NewStyles(true, true),
		Keys: kit.Keys{
			"apply":  key.NewBinding(key.WithKeys("enter", "y", "a")),
			"cancel": key.NewBinding(key.WithKeys("esc", "n", "c", "q")),
			"verify": key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "verify")),
		},
		Now: time.Now,
	}
}

var (
	enter = tea.KeyPressMsg{Code: tea.KeyEnter}
	esc   = tea.KeyPressMsg{Code: tea.KeyEscape}
)

func cmd(item, value string) model.ChecklistItem {
	return model.ChecklistItem{Item: item, Check: &model.Check{Type: model.CheckCommand, Value: value}}
}

func checklist(items ...model.ChecklistItem) model.BaseCase {
	return model.BaseCase{IsChecklist: true, Checklist: items}
}

// opened is a Verifier of a loop in a fresh directory with bc's
// confirmation open.
func opened(t *testing.T, bc model.BaseCase) (*Verifier, *Confirm) {
	t.Helper()
	st := &model.State{}
	st.Objective.BaseCase = bc
	v := New(Config{Dir: t.TempDir(), Timeout: 10 * time.Second, State: func() *model.State { return st }})
	a := v.Open(bc)
	d, ok := a.Dialog.(*Confirm)
	if a.Kind != kit.Replace || !ok {
		t.Fatalf("Open: %+v, want a Replace with the confirmation", a)
	}
	d.Resize(testContext(), 100, 30)
	return v, d
}

// started presses enter in d and returns the progress box and the
// command that brings the run's first event (the run itself is started).
func started(t *testing.T, v *Verifier, d *Confirm) (*Running, tea.Cmd) {
	t.Helper()
	a := d.Update(testContext(), enter)
	r, ok := a.Dialog.(*Running)
	if a.Kind != kit.Replace || !ok {
		t.Fatalf("enter in the confirmation: %+v, want a Replace with the progress box", a)
	}
	if !v.Shows(r) || v.Last() == nil {
		t.Fatal("the run started is not the loop's run")
	}
	batch, ok := a.Cmd().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("enter's command: %T, want the run and its listener", a.Cmd())
	}
	go batch[0]()
	return r, batch[1]
}

// finish feeds the run's events to v until the report closes the box;
// it returns the closing Action and the progress statuses on the way.
func finish(t *testing.T, v *Verifier, next tea.Cmd) (kit.Action, []string) {
	t.Helper()
	var said []string
	for range 100 {
		msg, ok := next().(Msg)
		if !ok {
			t.Fatal("the listener brought no verify Msg")
		}
		a := v.Update(testContext(), msg)
		if a.Kind == kit.Close {
			return a, said
		}
		if a.Kind == kit.ShowStatus {
			said = append(said, a.Status.Text)
		}
		if next = a.Cmd; next == nil {
			t.Fatalf("a progress event gave no listener: %+v", a)
		}
	}
	t.Fatal("no report after 100 events")
	return kit.Action{}, nil
}

func TestConfirmEscClosesAndNothingRuns(t *testing.T) {
	v, d := opened(t, checklist(cmd("Would write", "touch marker")))
	out := strings.Join(d.Draw(testContext(), 86, 20), "\n")
	if !strings.Contains(out, "touch marker") || !strings.Contains(out, "enter/y run them · esc/n cancel") {
		t.Errorf("the confirmation does not list the command and its keys:\n%s", out)
	}
	a := d.Update(testContext(), esc)
	if a.Kind != kit.Close || a.Status.Text != "verify cancelled: nothing ran" || a.Status.Level != kit.Info {
		t.Errorf("esc: %+v, want Close with an info status", a)
	}
	if v.Last() != nil {
		t.Error("esc started a run")
	}
	if a := d.Update(testContext(), tea.KeyPressMsg{Code: 'x', Text: "x"}); a.Kind != kit.None || a.Cmd != nil {
		t.Errorf("x in the confirmation: %+v, want nothing", a)
	}
}

func TestRunPassShowsProgressAndSucceeds(t *testing.T) {
	v, d := opened(t, checklist(cmd("One", "true"), cmd("Two", "echo hi")))
	r, next := started(t, v, d)
	// The first event: the progress box shows the check under way or done.
	msg := next().(Msg)
	a := v.Update(testContext(), msg)
	if a.Kind != kit.ShowStatus || !strings.Contains(a.Status.Text, "of 2 checks done") || a.Cmd == nil {
		t.Fatalf("a progress event: %+v", a)
	}
	box := ansi.Strip(strings.Join(r.Draw(testContext(), 86, 20), "\n"))
	if !strings.Contains(box, "running…") && !strings.Contains(box, "exit 0") {
		t.Errorf("the progress box does not show the first check's progress:\n%s", box)
	}
	end, said := finish(t, v, a.Cmd)
	if len(said) == 0 {
		t.Error("no progress status on the way")
	}
	if end.Status.Level != kit.Success || !strings.HasPrefix(end.Status.Text, "base_case verified: PASS — 2 pass") {
		t.Errorf("the end: %+v, want a success", end.Status)
	}
	box = ansi.Strip(strings.Join(r.Draw(testContext(), 86, 20), "\n"))
	if strings.Count(box, "✓") != 2 || !strings.Contains(box, "2 of 2 checks done") {
		t.Errorf("the progress box after the run:\n%s", box)
	}
	res := v.Results(v.cfg.State())
	if h := ansi.Strip(strings.Join(res.Header(80, testContext().Styles), "\n")); !strings.Contains(h, "✓ PASS") {
		t.Errorf("the objective view's header: %q", h)
	}
}

func TestRunFailIsAnErrorWithItsOutput(t *testing.T) {
	v, d := opened(t, checklist(cmd("Good", "true"), cmd("Bad", "echo boom >&2; exit 3")))
	_, next := started(t, v, d)
	end, _ := finish(t, v, next)
	if end.Status.Level != kit.Error || !strings.Contains(end.Status.Text, "FAIL — 1 pass · 1 fail") ||
		!strings.HasSuffix(end.Status.Text, "enter shows what failed") {
		t.Errorf("the end: %+v, want an error that points to the output", end.Status)
	}
	out := ansi.Strip(strings.Join(v.Results(v.cfg.State()).OutputSection(80, testContext().Styles), "\n"))
	if !strings.Contains(out, "▸ output of 2 Bad — exit 3") || !strings.Contains(out, "boom") {
		t.Errorf("the output section:\n%s", out)
	}
	lines := append(make([]string, 40), strings.Split(out, "\n")...)
	top, a := v.Details(testContext(), lines, 0, 10)
	if a.Kind != kit.None || !strings.HasPrefix(lines[top], outputHeading) {
		t.Errorf("enter: top %d (%q), action %+v, want the output's heading", top, lines[top], a)
	}
}

func TestRunThatChecksNothingWarns(t *testing.T) {
	judged := model.ChecklistItem{Item: "Reads well", Check: &model.Check{Type: model.CheckQuality, Value: "a person reads it"}}
	v, d := opened(t, checklist(judged))
	_, next := started(t, v, d)
	end, _ := finish(t, v, next)
	if end.Status.Level != kit.Warn || !strings.HasPrefix(end.Status.Text, "base_case: nothing here could be checked") {
		t.Errorf("the end: %+v, want a warning", end.Status)
	}
}

func TestRunningEscStopsOnce(t *testing.T) {
	v, d := opened(t, checklist(cmd("Hangs", "sleep 30")))
	r, next := started(t, v, d)
	a := r.Update(testContext(), esc)
	if a.Kind != kit.ShowStatus || a.Status.Text != "stopping the verification…" || !r.Stopping() {
		t.Fatalf("esc in the progress box: %+v (stopping %v)", a, r.Stopping())
	}
	if a := r.Update(testContext(), esc); a.Kind != kit.None {
		t.Errorf("esc again: %+v, want nothing", a)
	}
	end, said := finish(t, v, next)
	if len(said) != 0 {
		t.Errorf("progress statuses after the stop: %q", said)
	}
	if end.Status.Level != kit.Warn || !strings.HasPrefix(end.Status.Text, "verify stopped") {
		t.Errorf("the end: %+v, want a warning that the run stopped", end.Status)
	}
}

func TestEventOfAReplacedRunIsIgnored(t *testing.T) {
	v, d := opened(t, checklist(cmd("One", "true")))
	_, next := started(t, v, d)
	old := next().(Msg)
	_, _ = started(t, v, d) // V again, confirmed: a new run
	if a := v.Update(testContext(), old); a.Kind != kit.None || a.Cmd != nil {
		t.Errorf("an event of the replaced run: %+v, want nothing", a)
	}
}

func TestWhy(t *testing.T) {
	st := &model.State{}
	for _, c := range []struct {
		phase bool
		st    *model.State
		want  string
	}{
		{true, st, "does not apply to a phase loop"},
		{false, nil, "no state yet"},
		{false, st, "no base_case to verify"},
	} {
		if got := Why(c.phase, c.st); !strings.Contains(got, c.want) {
			t.Errorf("Why(%v, %v) = %q, want %q", c.phase, c.st != nil, got, c.want)
		}
	}
	st.Objective.BaseCase = checklist(cmd("One", "true"))
	if got := Why(false, st); got != "" {
		t.Errorf("Why with a base_case = %q", got)
	}
}
