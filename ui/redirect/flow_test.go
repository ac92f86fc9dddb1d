package redirect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// ctx is a context with the default keys of the names the flow reads.
func testCtx() kit.Context {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	keys := kit.Keys{}
	for name, ks := range map[string][]string{
		"back": {"esc"}, "quit": {"q"}, "apply": {"enter", "y", "a"}, "edit": {"e"}, "cancel": {"n", "esc"},
		"interrupt": {"i"}, "yes": {"y"}, "no": {"n", "esc"},
		"add_atom": {"a"}, "delete_atom": {"d"}, "force_or": {"o"}, "constraints": {"c"}, "objective": {"e"},
		"override_binding": {"b"}, "stop": {"S"}, "undo": {"u"},
	} {
		keys[name] = key.NewBinding(key.WithKeys(ks...), key.WithHelp(ks[0], name))
	}
	return kit.Context{Styles: kit.NewStyles(true, true), Keys: keys, Now: func() time.Time { return now }, NoColor: true}
}

// loopOf is the snapshot of the fixture's loop, everything offered, in a
// 100×30 pane.
func loopOf(t *testing.T, fixture string) Loop {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	return loopOfBytes(t, data)
}

func loopOfBytes(t *testing.T, data []byte) Loop {
	t.Helper()
	doc, err := statefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return Loop{State: doc.State, Facts: model.Derive(doc.State), Offered: Kinds(), PaneW: 100, BodyH: 24}
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// waitingFor is a busy box of kind, as a form's submit leaves it.
func waitingFor(t *testing.T, lp Loop, kind string) *busy {
	t.Helper()
	return &busy{kind: kind, values: newFormValues(kind, lp.State, lp.Facts, lp.Selected), what: "planning the correction…"}
}

// preview is a preview of a change of constraints, with the interrupts
// given.
func previewOf(ins ...model.Interrupt) *correction.Preview {
	return &correction.Preview{Plan: &model.Plan{Kind: "constraints", Summary: "max_iterations 20 → 30", Interrupts: ins,
		Correction: &model.Correction{Type: "constraint_change", Description: "max_iterations 20 → 30"}},
		Diff: "--- a\n+++ b\n@@ -1 +1 @@\n-max_iterations: 20\n+max_iterations: 30\n"}
}

// want is what an Action must be: its kind, its box's place, its footer
// line (a part of it, "" for none), its job's type (nil for none), the
// refusal the next form shows.
type want struct {
	kind    kit.ActionKind
	place   Place
	status  string
	level   kit.Level
	job     Job
	pause   bool
	refusal string
}

func check(t *testing.T, name string, a Action, w want) {
	t.Helper()
	if a.Kind != w.kind {
		t.Errorf("%s: kind %v, want %v", name, a.Kind, w.kind)
	}
	switch {
	case w.place == 0 && a.Next != nil:
		t.Errorf("%s: opened %T", name, a.Next)
	case w.place != 0 && (a.Next == nil || a.Next.Place() != w.place):
		t.Errorf("%s: next %T, want place %d", name, a.Next, w.place)
	}
	switch {
	case w.status == "" && a.Status.Text != "":
		t.Errorf("%s: footer %q, want none", name, a.Status.Text)
	case w.status != "" && !strings.Contains(a.Status.Text, w.status):
		t.Errorf("%s: footer %q, want %q", name, a.Status.Text, w.status)
	case w.status != "" && a.Status.Level != w.level:
		t.Errorf("%s: footer level %v, want %v", name, a.Status.Level, w.level)
	}
	if fmt.Sprintf("%T", a.Job) != fmt.Sprintf("%T", w.job) {
		t.Errorf("%s: job %T, want %T", name, a.Job, w.job)
	}
	if (a.Pause != "") != w.pause {
		t.Errorf("%s: pause %q, want %v", name, a.Pause, w.pause)
	}
	if w.refusal != "" {
		f, ok := a.Next.(*form)
		if !ok || !strings.Contains(f.refusal, w.refusal) {
			t.Errorf("%s: the form's refusal is %v, want %q", name, a.Next, w.refusal)
		}
	}
}

// Every result of a job a busy box waits for, in and out: the table the
// flow tests of the whole TUI walk one by one with real files.
func TestResultsLeadOutOfTheBusyBox(t *testing.T) {
	ctx := testCtx()
	rich := loopOf(t, "rich.md")
	noOR := rich
	noOR.State = func() *model.State { s := *rich.State; s.ORGroups = nil; return &s }()
	broken := rich
	broken.Blocked = "the file is not readable right now; corrections wait until it is"
	held := rich
	held.Held = "the loop stays paused: 1 other aot-tui form open (pid 42)"
	refused := &model.Refusal{Rule: model.RuleNoChange, Reason: "nothing to change"}
	fileRefused := &model.Refusal{Rule: model.RuleFileProblems, Reason: "the file has problems: line 3"}
	written := &model.Plan{Summary: "max_iterations 20 → 30", Correction: &model.Correction{Type: "constraint_change"}}
	follow := correction.Job(func() correction.Result { return nil })

	for _, tt := range []struct {
		name    string
		lp      Loop
		kind    string
		gone    bool // the box is no longer on top (esc, or the loop closed it)
		deleted string
		res     correction.Result
		want    want
	}{
		{name: "preview planned", lp: rich, kind: Constraints, res: correction.PreviewResult{Preview: previewOf()},
			want: want{kind: kit.Replace, place: InPreview}},
		{name: "preview refused: back to the form", lp: rich, kind: Constraints, res: correction.PreviewResult{Err: refused},
			want: want{kind: kit.Replace, place: InForm, pause: true, refusal: "no longer possible: nothing to change"}},
		{name: "preview refused by the file", lp: rich, kind: Constraints, res: correction.PreviewResult{Err: fileRefused},
			want: want{kind: kit.Replace, place: InForm, pause: true, refusal: "refused: the file has problems"}},
		{name: "preview after the person left", lp: rich, kind: Constraints, gone: true, res: correction.PreviewResult{Err: refused},
			want: want{}},
		{name: "preview refused, the last OR group gone", lp: noOR, kind: ForceOR, res: correction.PreviewResult{Err: refused},
			want: want{kind: kit.Close, status: "nothing to change — this loop has no OR groups", level: kit.Error, job: EndJob{}}},
		{name: "preview refused, the atom gone", lp: rich, kind: DeleteAtom, deleted: "A99", res: correction.PreviewResult{Err: refused},
			want: want{kind: kit.Close, status: "atom A99 is gone", level: kit.Error, job: EndJob{}}},
		{name: "preview refused, the file unreadable now", lp: broken, kind: Constraints, res: correction.PreviewResult{Err: refused},
			want: want{kind: kit.Close, status: "not readable right now", level: kit.Error, job: EndJob{}}},
		{name: "written", lp: rich, kind: Constraints, res: correction.ApplyResult{Plan: written, Follow: follow},
			want: want{kind: kit.Close, status: "constraint_change: max_iterations 20 → 30 — recorded in corrections", level: kit.Success, job: FollowJob{}}},
		{name: "written, a loop write kept", lp: rich, kind: Constraints, res: correction.ApplyResult{Plan: written, Merged: 1},
			want: want{kind: kit.Close, status: "(a loop write that landed at the same moment was kept)", level: kit.Success}},
		{name: "written, another form holds the pause", lp: held, kind: Constraints, res: correction.ApplyResult{Plan: written},
			want: want{kind: kit.Close, status: "— the loop stays paused: 1 other aot-tui form open (pid 42)", level: kit.Success}},
		{name: "written after the person left", lp: rich, kind: Constraints, gone: true, res: correction.ApplyResult{Plan: written, Follow: follow},
			want: want{status: "recorded in corrections", level: kit.Success, job: FollowJob{}}},
		{name: "the loop wrote meanwhile: the new preview", lp: rich, kind: Constraints,
			res:  correction.ApplyResult{Replanned: func() *correction.Preview { p := previewOf(); p.Replanned = true; return p }()},
			want: want{kind: kit.Replace, place: InPreview}},
		{name: "the loop wrote meanwhile, the person left", lp: rich, kind: Constraints, gone: true, res: correction.ApplyResult{Replanned: previewOf()},
			want: want{status: "not written: the loop wrote the file meanwhile", level: kit.Error}},
		{name: "apply refused: back to the form", lp: rich, kind: Constraints, res: correction.ApplyResult{Err: refused},
			want: want{kind: kit.Replace, place: InForm, pause: true, refusal: "not written: no longer possible: nothing to change"}},
		{name: "apply in a loop that keeps writing", lp: rich, kind: Constraints, res: correction.ApplyResult{Err: fmt.Errorf("write: %w", statefile.ErrConflict)},
			want: want{kind: kit.Replace, place: InForm, pause: true, refusal: "not written: the loop kept writing the file; try again"}},
		{name: "apply failed on the disk", lp: rich, kind: Constraints, res: correction.ApplyResult{Err: errors.New("disk full")},
			want: want{kind: kit.Replace, place: InForm, pause: true, refusal: "not written: disk full"}},
		{name: "apply refused after the person left", lp: rich, kind: Constraints, gone: true, res: correction.ApplyResult{Err: refused},
			want: want{status: "not written: no longer possible: nothing to change", level: kit.Error}},
		{name: "apply refused, the last OR group gone", lp: noOR, kind: ForceOR, res: correction.ApplyResult{Err: refused},
			want: want{kind: kit.Close, status: "this loop has no OR groups", level: kit.Error, job: EndJob{}}},
		{name: "a result the flow does not take", lp: rich, kind: Constraints, res: correction.UndoResult{Summary: "x"},
			want: want{}},
	} {
		b := waitingFor(t, rich, tt.kind)
		if tt.deleted != "" {
			b.values.ID = tt.deleted
		}
		var top Box = b
		if tt.gone {
			top = nil
		}
		check(t, tt.name, Result(ctx, tt.lp, top, b, tt.res), tt.want)
	}
}

// The keys of every box, from the state each is in.
func TestKeysMoveThroughTheBoxes(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	lp.Selected = "A4" // in progress
	inProgress := model.Interrupt{Atom: "A4", How: "deletes it", Deleted: true}

	for _, tt := range []struct {
		name string
		box  func() Box
		keys []string
		want want
	}{
		{"esc in the menu closes it (nothing was paused)", func() Box { return newMenu(ctx, lp) }, []string{"esc"},
			want{kind: kit.Close}},
		{"a form's letter in the menu opens the form", func() Box { return newMenu(ctx, lp) }, []string{"c"},
			want{kind: kit.Replace, place: InForm, pause: true}},
		{"esc in a form cancels the redirect", func() Box { b, _ := newForm(ctx, lp, Constraints, nil, ""); return b }, []string{"esc"},
			want{kind: kit.Close, status: "correction cancelled; nothing was written", level: kit.Info, job: EndJob{}}},
		{"esc in the busy box leaves it; the redirect ends", func() Box { return waitingFor(t, lp, Constraints) }, []string{"esc"},
			want{kind: kit.Close, status: "correction cancelled", level: kit.Info, job: EndJob{}}},
		{"other keys in the busy box do nothing", func() Box { return waitingFor(t, lp, Constraints) }, []string{"enter"},
			want{}},
		{"apply writes", func() Box { return newPreview(ctx, lp, Constraints, nil, previewOf()) }, []string{"enter"},
			want{kind: kit.Replace, place: InBusy, job: ApplyJob{}}},
		{"apply over a worker asks first", func() Box { return newPreview(ctx, lp, DeleteAtom, nil, previewOf(inProgress)) }, []string{"enter"},
			want{}},
		{"apply twice by reflex does not interrupt", func() Box { return newPreview(ctx, lp, DeleteAtom, nil, previewOf(inProgress)) }, []string{"enter", "y"},
			want{}},
		{"i after the question interrupts and writes", func() Box { return newPreview(ctx, lp, DeleteAtom, nil, previewOf(inProgress)) }, []string{"enter", "i"},
			want{kind: kit.Replace, place: InBusy, job: ApplyJob{}}},
		{"edit goes back to the form", func() Box {
			return newPreview(ctx, lp, Constraints, newFormValues(Constraints, lp.State, lp.Facts, ""), previewOf())
		}, []string{"e"},
			want{kind: kit.Replace, place: InForm, pause: true}},
		{"cancel in the preview ends the redirect", func() Box { return newPreview(ctx, lp, Constraints, nil, previewOf()) }, []string{"n"},
			want{kind: kit.Close, status: "correction cancelled", level: kit.Info, job: EndJob{}}},
		{"y clears a stale flag", func() Box { return AskStaleFlag(lp) }, []string{"y"},
			want{kind: kit.Close, status: "clearing redirect_requested", level: kit.Info, job: ClearFlagJob{}}},
		{"n leaves a stale flag", func() Box { return AskStaleFlag(lp) }, []string{"n"},
			want{kind: kit.Close, status: "left as it is", level: kit.Info}},
		{"q quits from the stale-flag question", func() Box { return AskStaleFlag(lp) }, []string{"q"},
			want{kind: kit.Quit}},
		{"other keys in the stale-flag question do nothing", func() Box { return AskStaleFlag(lp) }, []string{"j"},
			want{}},
	} {
		b := tt.box()
		var a Action
		for _, k := range tt.keys {
			a = b.Update(ctx, lp, press(k))
		}
		check(t, tt.name, a, tt.want)
		if j, ok := a.Job.(ApplyJob); ok && j.For != a.Next {
			t.Errorf("%s: the write's result would go to %T, not the busy box shown", tt.name, j.For)
		}
	}
}

// The question over a worker is its own place: only i applies from it,
// any other key goes back to the preview.
func TestTheInterruptQuestion(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	d := newPreview(ctx, lp, DeleteAtom, nil, previewOf(model.Interrupt{Atom: "A4", How: "deletes it", Deleted: true}))
	d.Update(ctx, lp, press("enter"))
	if d.Place() != InAsk {
		t.Fatalf("apply did not ask: place %d", d.Place())
	}
	if text := strings.Join(d.Draw(ctx, 80, 20), "\n"); !strings.Contains(text, "A4 is in progress: interrupt its worker? (i: yes)") {
		t.Fatalf("the question is not asked:\n%s", text)
	}
	d.Update(ctx, lp, press("n"))
	if d.Place() != InPreview {
		t.Fatalf("a key other than i did not go back to the preview: place %d", d.Place())
	}
}

// Opening from a view: what can open where, and why not.
func TestOpening(t *testing.T) {
	ctx := testCtx()
	rich := loopOf(t, "rich.md")
	blocked := rich
	blocked.Blocked = "read-only (--read-only): corrections are disabled"
	sel := func(id string) Loop { lp := rich; lp.Selected = id; return lp }
	stopped := loopOfBytes(t, []byte(strings.Replace(string(mustRead(t, "rich.md")), "status: running", "status: stopped", 1)))

	for _, tt := range []struct {
		name string
		a    Action
		want want
	}{
		{"the menu", Open(ctx, rich), want{kind: kit.Replace, place: InMenu}},
		{"the menu, read-only", Open(ctx, blocked), want{status: "read-only", level: kit.Info}},
		{"a form, read-only", OpenForm(ctx, blocked, Constraints), want{status: "read-only", level: kit.Info}},
		{"a form pauses the loop", OpenForm(ctx, rich, Constraints), want{kind: kit.Replace, place: InForm, pause: true}},
		{"delete with nothing selected", OpenForm(ctx, rich, DeleteAtom), want{status: "select an atom first", level: kit.Info}},
		{"delete an in-progress atom", OpenForm(ctx, sel("A4"), DeleteAtom), want{kind: kit.Replace, place: InForm, pause: true}},
		{"delete a resolved atom", OpenForm(ctx, sel("A1"), DeleteAtom), want{status: "A1 is resolved: resolved work is not deleted", level: kit.Info}},
		{"override a pending atom's binding", OpenForm(ctx, sel("A5"), Binding), want{status: "A5 is pending: only a resolved atom's binding", level: kit.Info}},
		{"stop a stopped loop", OpenForm(ctx, stopped, Stop), want{status: "the loop has already ended (stopped)", level: kit.Info}},
		{"a planned request (the loop pauses for it)", Plan(rich, Constraints, model.ChangeConstraints{}, ""), want{kind: kit.Replace, place: InBusy, job: PreviewJob{}, pause: true}},
		{"a planned request, read-only", Plan(blocked, Constraints, model.ChangeConstraints{}, ""), want{status: "read-only", level: kit.Info}},
	} {
		check(t, tt.name, tt.a, tt.want)
	}
}

// The add-atom form starts from the selection on screen, and from
// nothing when none is.
func TestTheAddFormStartsFromTheSelection(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	d, _ := newForm(ctx, lp, AddAtom, nil, "")
	if len(d.values.DependsOn) != 0 {
		t.Fatalf("with nothing selected the form depends on %v", d.values.DependsOn)
	}
	lp.Selected = "A3"
	d, _ = newForm(ctx, lp, AddAtom, nil, "")
	if !slices.Equal(d.values.DependsOn, []string{"A3"}) {
		t.Fatalf("the form does not start from the selected A3: %v", d.values.DependsOn)
	}
}

// The menu lists what the holder offers, with the keys in effect.
func TestTheMenuListsWhatIsOffered(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	lp.Offered = []string{AddAtom, Stop}
	text := ansi.Strip(strings.Join(Open(ctx, lp).Next.Draw(ctx, 44, 20), "\n"))
	for _, w := range []string{"a  add an atom", "S  stop the loop", "cancel"} {
		if !strings.Contains(text, w) {
			t.Errorf("the menu lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "delete an atom") {
		t.Errorf("the menu offers what the holder does not:\n%s", text)
	}
}

// A write of the loop under an open form or preview is said in the box; a
// form checks its fields on the new state from then.
func TestMovedIsSaid(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	f, _ := newForm(ctx, lp, Constraints, nil, "")
	p := newPreview(ctx, lp, Constraints, nil, previewOf())
	next := loopOf(t, "seed-complete.md")
	for _, b := range []Box{f, p} {
		Moved(b, next.State)
		if text := strings.Join(strings.Fields(ansi.Strip(strings.Join(b.Draw(ctx, 80, 24), "\n"))), " "); !strings.Contains(text, "the loop wrote the file") {
			t.Errorf("%T does not say the loop wrote the file:\n%s", b, text)
		}
	}
	if f.st != next.State {
		t.Error("the form still checks its fields on the state it opened on")
	}
	Moved(AskStaleFlag(lp), nil) // no form: nothing to note, nothing breaks
}

// A value the form lets through but the request cannot use is refused in
// words.
func TestARequestThatCannotBeMadeSaysWhy(t *testing.T) {
	lp := loopOf(t, "rich.md")
	v := newFormValues(Constraints, lp.State, lp.Facts, "")
	v.MaxIter = "thirty"
	if _, err := v.request(Constraints); err == nil || !strings.Contains(err.Error(), `"thirty" is not a number`) {
		t.Fatalf("err %v", err)
	}
}

func mustRead(t *testing.T, fixture string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The objective form refuses a base_case position on its own page.
func TestCheckPosition(t *testing.T) {
	lp := loopOf(t, "rich.md")
	for _, tt := range []struct {
		op, pos string
		ok      bool
	}{
		{"none", "9.9", true}, {"set", "1.1", true}, {"set", "1", false}, {"set", "", false},
		{"add", "2", true}, {"add", "", true}, {"add", "3", false},
		{"remove", "2.1", true}, {"remove", "9.9", false}, {"remove", "x", false},
	} {
		err := checkPosition(lp.State, tt.op, tt.pos)
		if (err == nil) != tt.ok {
			t.Errorf("%s %q: %v", tt.op, tt.pos, err)
		}
		if err != nil && strings.Contains(err.Error(), "rule:") {
			t.Errorf("%s %q: the message should read as a sentence: %v", tt.op, tt.pos, err)
		}
	}
}

// The preview wraps long diff lines rather than cutting what gets written.
func TestPreviewWrapsLongDiffLines(t *testing.T) {
	long := `+    reason: "added A9 \"Add rate limiting to the payment client so that retries do not hammer the provider\""`
	out := colorDiff("--- a\n+++ b\n@@ -1 +1 @@\n"+long+"\n-x\n", 40, testCtx().Styles)
	var joined strings.Builder
	for i, l := range out {
		l = ansi.Strip(l)
		if ansi.StringWidth(l) > 40 {
			t.Fatalf("line %d is %d wide: %q", i, ansi.StringWidth(l), l)
		}
		if i > 3 && i < len(out)-1 && !strings.HasPrefix(l, "+↪") {
			t.Fatalf("continuation %d lacks its mark: %q", i, l)
		}
		if i >= 3 && i < len(out)-1 {
			joined.WriteString(strings.TrimPrefix(l, "+↪"))
		}
	}
	if joined.String() != long {
		t.Fatalf("wrapped text differs:\n%s\n%s", joined.String(), long)
	}
}

// The base_case's places to pick from, for each edit: the checks to set,
// the groups to add under, the items to remove.
func TestPositionOptions(t *testing.T) {
	lp := loopOf(t, "rich.md")
	values := func(op string) []string {
		var out []string
		for _, o := range positionOptions(lp.State, op, 80) {
			out = append(out, o.Value)
		}
		return out
	}
	for op, want := range map[string][]string{
		"set":    {"1.1", "1.2", "2.1", "2.2", "3", "4"},
		"add":    {"", "1", "2"},
		"remove": {"1", "1.1", "1.2", "2", "2.1", "2.2", "3", "4"},
	} {
		if got := values(op); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", op, got, want)
		}
	}
	labels := positionOptions(lp.State, "set", 80)
	if labels[0].Key != "  1.1  Unit tests pass · command: go test ./..." { // indented under its group
		t.Errorf("a check reads %q", labels[0].Key)
	}
}

// I raises max_iterations by a step, previewed at once; edit opens the
// constraints form with the raised value.
func TestMoreIterations(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md") // max_iterations: 20
	a := MoreIterations(lp, 10)
	check(t, "more iterations", a, want{kind: kit.Replace, place: InBusy, job: PreviewJob{}, pause: true})
	j := a.Job.(PreviewJob)
	if r, ok := j.Request.(model.ChangeConstraints); !ok || r.MaxIterations == nil || *r.MaxIterations != 30 ||
		r.MaxParallelAgents != nil || r.MaxStallCount != nil {
		t.Fatalf("the request is %#v, want max_iterations 30 alone", j.Request)
	}
	p := Result(ctx, lp, a.Next, a.Next, correction.PreviewResult{Preview: previewOf()}).Next
	f, ok := p.Update(ctx, lp, press("e")).Next.(*form)
	if !ok || f.values.MaxIter != "30" {
		t.Fatalf("edit from the preview opened %#v", f)
	}
	blocked := lp
	blocked.Blocked = "read-only (--read-only): corrections are disabled"
	check(t, "more iterations, read-only", MoreIterations(blocked, 10), want{status: "read-only", level: kit.Info})
}

// Adding work to a loop that has ended says it will not run; the pickers
// that do not show every atom say how many there are and that they scroll.
func TestAddingToAnEndedLoopSaysSo(t *testing.T) {
	ctx := testCtx()
	stopped := loopOfBytes(t, []byte(strings.Replace(string(mustRead(t, "rich.md")), "status: running", "status: stopped", 1)))
	d := OpenForm(ctx, stopped, AddAtom).Next
	text := strings.Join(strings.Fields(ansi.Strip(strings.Join(d.Draw(ctx, 86, 24), "\n"))), " ")
	if !strings.Contains(text, "the loop has stopped: it will not run the new atom until it is resumed") {
		t.Fatalf("the add form does not say the loop will not run it:\n%s", text)
	}
	running := OpenForm(ctx, loopOf(t, "rich.md"), AddAtom).Next
	if text := ansi.Strip(strings.Join(running.Draw(ctx, 86, 24), "\n")); strings.Contains(text, "will not run") {
		t.Fatalf("a running loop's add form warns:\n%s", text)
	}
	b := &formBuilder{listH: 6}
	if b.scrolls(4) != "" || b.scrolls(7) != " · 7 atoms, ↑↓ scroll" {
		t.Fatalf("scrolls: %q %q", b.scrolls(4), b.scrolls(7))
	}
}

// The preview shows the plan's warnings as warnings, and says what
// clearing the flag means for the loop (a stop does not resume it).
func TestPreviewWarnsAndSaysWhatTheFlagMeans(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	p := previewOf()
	p.Plan.Warnings = []string{"iteration is already 7: the stop hook will end the loop"}
	text := strings.Join(strings.Fields(ansi.Strip(strings.Join(newPreview(ctx, lp, Constraints, nil, p).Draw(ctx, 86, 24), "\n"))), " ")
	if !strings.Contains(text, "⚠ iteration is already 7: the stop hook will end the loop") {
		t.Fatalf("the warning is not shown as one:\n%s", text)
	}
}

// Undo: the last correction, or one picked, planned and previewed; a
// refusal closes with its reason (an undo has no form to go back to).
func TestUndoFlow(t *testing.T) {
	ctx := testCtx()
	lp := loopOf(t, "rich.md")
	check(t, "nothing to undo", Undo(lp, 0), want{status: "nothing to undo", level: kit.Info})
	check(t, "nothing to pick", PickUndo(ctx, lp), want{status: "nothing to undo", level: kit.Info})
	lp.Undoable = []Undoable{{ID: 3, Summary: "added A9"}, {ID: 1, Summary: "undid max_iterations", Redo: true}}
	lp.LastUndo = 3
	a := Undo(lp, 0)
	check(t, "u", a, want{kind: kit.Replace, place: InBusy, job: UndoPreviewJob{}, pause: true})
	if j := a.Job.(UndoPreviewJob); j.ID != 3 || j.For != a.Next {
		t.Fatalf("u plans %#v", j)
	}
	refused := &model.Refusal{Rule: model.RuleUndo, Reason: "A9 is in progress now: the loop started it"}
	check(t, "undo refused", Result(ctx, lp, a.Next, a.Next, correction.PreviewResult{Err: refused}),
		want{kind: kit.Close, status: "cannot undo: A9 is in progress now", level: kit.Error, job: EndJob{}})
	check(t, "undo refused at the write", Result(ctx, lp, a.Next, a.Next, correction.ApplyResult{Err: refused}),
		want{kind: kit.Close, status: "not written: cannot undo: A9 is in progress", level: kit.Error, job: EndJob{}})
	p := Result(ctx, lp, a.Next, a.Next, correction.PreviewResult{Preview: previewOf()}).Next
	check(t, "edit in an undo's preview", p.Update(ctx, lp, press("e")), want{})
	if text := strings.Join(p.Draw(ctx, 86, 24), "\n"); strings.Contains(text, "e edit") {
		t.Errorf("an undo's preview offers edit:\n%s", text)
	}
	pick := PickUndo(ctx, lp)
	check(t, "pick", pick, want{kind: kit.Replace, place: InMenu})
	text := ansi.Strip(strings.Join(pick.Next.Draw(ctx, 86, 24), "\n"))
	for _, w := range []string{"#3 undo: added A9", "#1 redo: undid max_iterations"} {
		if !strings.Contains(text, w) {
			t.Errorf("the picker lacks %q:\n%s", w, text)
		}
	}
	menu := Open(ctx, lp).Next
	if text := ansi.Strip(strings.Join(menu.Draw(ctx, 44, 24), "\n")); !strings.Contains(text, "u  undo a correction…") {
		t.Errorf("the menu does not offer undo:\n%s", text)
	}
	check(t, "u in the menu", menu.Update(ctx, lp, press("u")), want{kind: kit.Replace, place: InMenu})
}
