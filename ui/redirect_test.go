package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

var correctionNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// typeText sends each rune as a key press.
// constraintsTo30 opens the constraints form, sets max_iterations to 30
// and submits it: the preview (or a refusal) follows.
func (f *flow) constraintsTo30() {
	f.keys("c")
	f.waitFor("Change constraints", "┃ max_iterations")
	f.ctrl('u')
	f.typeText("30")
	f.keys("enter", "enter", "enter")
	f.waitFor("Note")
	f.keys("enter")
}

func (f *flow) typeText(s string) {
	for _, r := range s {
		f.tm.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (f *flow) ctrl(r rune) { f.tm.Send(tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl}) }

func (f *flow) file() []byte {
	f.t.Helper()
	data, err := os.ReadFile(f.path)
	if err != nil {
		f.t.Fatal(err)
	}
	return data
}

// waitFile polls the file until cond holds (a liveness bound).
func (f *flow) waitFile(what string, cond func([]byte) bool) []byte {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var data []byte
	for time.Now().Before(deadline) {
		data = f.file()
		if cond(data) {
			return data
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("the file never %s; it holds:\n%s", what, data)
	return nil
}

func flagIs(v string) func([]byte) bool {
	return func(b []byte) bool { return bytes.Contains(b, []byte("redirect_requested: "+v)) }
}

func correctionGolden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "corrections", name+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The keys a person types for each correction; the result must be the same
// bytes the CLI writes for the same correction (cmd/aot-tui redirect_test).
var formScripts = []struct {
	name string
	run  func(f *flow)
}{
	{"add-atom", func(f *flow) {
		f.jump("A2")
		f.keys("a") // A2 selected: the new atom is prefilled to depend on it
		f.waitFor("Add an atom", "┃ Description")
		f.typeText("Write the runbook")
		f.keys("enter", "enter") // description, id (next free)
		f.waitFor("Depends on")
		f.keys("enter") // A2 is preselected
		f.waitFor("Required by")
		f.keys("enter")
		f.waitFor("OR group")
		f.keys("enter")
		f.waitFor("Note")
		f.keys("enter")
	}},
	{"delete-atom", func(f *flow) {
		f.jump("A8")
		f.keys("d")
		f.waitFor("Delete an atom", "┃ Delete A8?")
		f.keys("y") // confirm (the default is No)
		f.waitFor("┃ Note")
		f.keys("enter") // the note about it
	}},
	{"force-or", func(f *flow) {
		f.jump("A5")
		f.keys("o") // A5 is in audit_store
		f.waitFor("Force an OR choice", "┃ Select which choice")
		f.keys("enter") // audit_store → A6, the first choice not selected
		f.waitFor("┃ Reason")
		f.typeText("S3 has object lock now")
		f.keys("enter", "enter")
	}},
	{"constraints", func(f *flow) {
		f.constraintsTo30()
	}},
	{"objective", func(f *flow) {
		f.keys("e")
		f.waitFor("Change the objective", "┃ Goal")
		f.ctrl('u')
		f.typeText("Ship billing with retries")
		f.keys("enter", "enter") // goal, background
		f.waitFor("Deliverables")
		f.keys("enter", "enter")
		f.waitFor("base_case")
		f.keys("enter") // keep as is
		f.waitFor("clears the trail")
		f.keys("enter", "enter")
	}},
	{"objective-check", func(f *flow) {
		f.keys("e")
		f.waitFor("Change the objective", "┃ Goal")
		f.keys("enter", "enter") // goal, background as they are
		f.waitFor("Deliverables")
		f.keys("enter", "enter")
		f.waitFor("base_case")
		f.keys("down", "enter") // set a check
		// The checks to pick from, as the objective view shows them.
		f.waitFor("┃ Set which check", "1.1  Unit tests pass · command: go test ./...", "1.2  No race")
		f.keys("down", "enter") // 1.2
		f.waitFor("Item name")
		f.keys("enter", "enter") // the name and the type as they are
		f.waitFor("┃ Value")
		f.typeText("go test -race -count=1 ./billing/...")
		f.keys("enter")
		f.waitFor("clears the trail")
		f.keys("enter", "enter")
	}},
	{"override-binding", func(f *flow) {
		f.jump("A3")
		f.keys("b") // A3 is resolved
		f.waitFor("Override a binding", "┃ How")
		f.keys("enter") // amend
		f.waitFor("┃ Summary")
		f.ctrl('u')
		f.typeText("Backoff 50ms doubling to 10s")
		f.keys("enter", "enter") // summary, artifacts unchanged
		f.waitFor("Note")
		f.keys("enter")
	}},
	{"stop", func(f *flow) {
		f.keys("S")
		f.waitFor("Stop the loop", "┃ Reason")
		f.typeText("enough for today")
		f.keys("enter")
		f.waitFor("┃ Stop the loop?")
		f.keys("y")
	}},
}

func startRedirectFlow(t *testing.T) *flow {
	t.Helper()
	f := startFlow(t, "rich.md", 100, 32, Options{Now: func() time.Time { return correctionNow }})
	f.waitFor("Define the billing schema")
	return f
}

func TestFormsWriteTheCLIBytes(t *testing.T) {
	for _, sc := range formScripts {
		t.Run(sc.name, func(t *testing.T) {
			f := startRedirectFlow(t)
			before := f.file()
			sc.run(f)
			f.waitFor("preview:", "enter apply")
			// While the form and its preview are open the loop is paused.
			f.waitFile("set redirect_requested", flagIs("true"))
			f.keys("enter")

			got := f.waitFile("got the correction", func(b []byte) bool { return !bytes.Equal(b, before) && !flagIs("true")(b) })
			if want := correctionGolden(t, sc.name); !bytes.Equal(got, want) {
				t.Fatalf("the form wrote different bytes than the CLI golden %s.golden:\n%s", sc.name, lineDiffForTest(want, got))
			}
		})
	}
}

func TestFormCancelClearsFlag(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	f.keys("a")
	f.waitFor("Add an atom")
	f.waitFile("set redirect_requested", flagIs("true"))
	f.keys("esc")
	f.waitFor("cancelled")
	got := f.waitFile("cleared redirect_requested", flagIs("false"))
	if !bytes.Equal(got, before) {
		t.Fatalf("cancel should leave the file as it was:\n%s", lineDiffForTest(before, got))
	}
}

// The redirect menu (r) starts on its first entry, its letters open their
// forms at once, and closing it leaves the file as it was.
func TestRedirectMenu(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	f.keys("r")
	f.waitFor("Redirect the loop", "> a  add an atom")
	f.keys("o")
	f.waitFor("Force an OR choice")
	f.keys("esc")
	f.waitFor("cancelled")
	f.waitFile("cleared redirect_requested", flagIs("false"))
	f.keys("r")
	f.waitFor("> a  add an atom")
	f.keys("down", "enter") // the second entry
	f.waitFor("Delete an atom")
	f.keys("esc")
	f.waitFor("cancelled")
	f.keys("r")
	f.waitFor("> a  add an atom")
	f.keys("down", "down", "down", "down", "down", "down", "down")
	f.waitFor(">    cancel")
	f.keys("enter")
	f.waitGone("Redirect the loop", "cancel did not close the menu")
	got := f.waitFile("cleared redirect_requested", flagIs("false"))
	if !bytes.Equal(got, before) {
		t.Fatalf("the menu should leave the file as it was:\n%s", lineDiffForTest(before, got))
	}
}

// A form opened and cancelled at once sends two handshake writes (true,
// then false) from two goroutines; the file must end with the flag
// cleared, never paused by a true that landed last.
func TestFormOpenedAndCancelledAtOnceClearsFlag(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	for i := range 10 {
		f.keys("c", "esc")
		f.waitFor("correction cancelled")
		f.settle()
		if got := f.file(); !bytes.Equal(got, before) {
			t.Fatalf("round %d: the file changed after the cancel:\n%s", i, lineDiffForTest(before, got))
		}
		f.keys("1") // a key that clears the status line for the next round
	}
}

func TestQuitWithFormOpenClearsFlag(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	f.keys("c")
	f.waitFor("Change constraints")
	f.waitFile("set redirect_requested", flagIs("true"))
	f.ctrl('c')
	f.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if got := f.file(); !bytes.Equal(got, before) {
		t.Fatalf("quitting with a form open should clear the flag:\n%s", lineDiffForTest(before, got))
	}
}

func TestStaleFlagOffered(t *testing.T) {
	f := startRedirectFlow(t)
	// A flag left behind by someone else.
	f.rewrite("redirect_requested: false", "redirect_requested: true", false)
	// Only offered on the first load; restart on the flagged file.
	g := startFlow(t, "", 100, 30, Options{})
	_ = g
	data := f.file()
	if err := os.MkdirAll(filepath.Dir(g.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	g.waitFor("redirect_requested is set", "y clear it")
	g.keys("y")
	g.waitFile("cleared the stale flag", flagIs("false"))
}

// A redirect_requested someone else set (the person answered "leave it")
// stays set through a cancelled form, an applied correction and its undo.
func TestForeignFlagIsLeftAlone(t *testing.T) {
	f := startRedirectFlow(t)
	f.rewrite("redirect_requested: false", "redirect_requested: true", false)
	f.waitFor("redirect_requested is set", "n leave it")
	f.keys("n")
	f.waitFor("left as it is")
	flagged := f.file()

	f.keys("a")
	f.waitFor("Add an atom")
	f.keys("esc")
	f.waitFor("correction cancelled")
	f.settle()
	if got := f.file(); !bytes.Equal(got, flagged) {
		t.Fatalf("cancel changed the file:\n%s", lineDiffForTest(flagged, got))
	}

	for _, sc := range formScripts {
		if sc.name == "constraints" {
			sc.run(f) // max_iterations 30
		}
	}
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	got := f.waitFile("got the correction", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 30")) })
	if !flagIs("true")(got) {
		t.Fatalf("apply cleared a flag that was not ours:\n%s", lineDiffForTest(flagged, got))
	}
	f.waitFor("recorded in corrections")
	f.keys("u")
	f.waitFor("preview: Undo a correction", "max_iterations 30 → 20")
	f.keys("enter")
	// The undo is a correction of its own: max_iterations back, its own
	// entry, and the flag someone else set still set.
	got = f.waitFile("max_iterations back", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 20")) })
	if !flagIs("true")(got) || !bytes.Contains(got, []byte("undo of the constraint_change")) {
		t.Fatalf("the undo cleared a flag that was not ours, or recorded no entry:\n%s", lineDiffForTest(flagged, got))
	}
}

func TestConflictAtomResolvedUnderOpenForm(t *testing.T) {
	f := startRedirectFlow(t)
	f.jump("A8")
	f.keys("d")
	f.waitFor("┃ Delete A8?")
	f.keys("y")
	f.waitFor("┃ Note")
	f.keys("enter")
	f.waitFor("preview:", "enter apply")
	// The loop resolves A8 while the preview is open.
	theirs := withA8Resolved(f.file())
	if err := os.WriteFile(f.path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the loop wrote the file")
	f.keys("enter")
	f.waitFor("no longer possible", "A8 is resolved")
	if got := string(f.file()); got != theirs {
		t.Fatal("a refused apply must write nothing")
	}
	f.keys("esc")
	f.waitFile("cleared the flag", flagIs("false"))
}

func TestConflictUnrelatedChangeIsKept(t *testing.T) {
	f := startRedirectFlow(t)
	f.keys("S")
	f.waitFor("┃ Reason")
	f.typeText("enough")
	f.keys("enter")
	f.waitFor("┃ Stop the loop?")
	f.keys("y")
	f.waitFor("preview:", "enter apply")
	f.rewrite("iteration: 7", "iteration: 8", false) // the hook moves on
	f.keys("enter")
	// The first apply sees the new bytes and shows the re-planned preview.
	f.waitFor("re-planned")
	f.keys("enter")

	got := string(f.waitFile("got the stop", func(b []byte) bool { return bytes.Contains(b, []byte("stop_requested: true")) }))
	if !strings.Contains(got, "iteration: 8") {
		t.Fatal("the other writer's change was lost")
	}
}

func TestUndo(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	formScripts[0].run(f)
	f.waitFor("preview:")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	f.waitFile("got the atom", func(b []byte) bool { return bytes.Contains(b, []byte("id: A9")) })
	f.keys("u")
	// The undo is a correction of its own: previewed, then written.
	f.waitFor("preview: Undo a correction", "A9 removed", "enter apply · esc cancel")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	// The file is as before but for the correction's entry and the
	// undo's own.
	got := f.waitFile("was undone", func(b []byte) bool { return !bytes.Contains(b, []byte("id: A9")) })
	at := bytes.Index(got, []byte("  - timestamp: \"2026-01-01T12:00:00Z\""))
	if at < 0 || !bytes.HasPrefix(before, got[:at]) || !bytes.Contains(got[at:], []byte("undo of the dag_adjustment")) {
		t.Fatalf("undo should leave the file as it was, with the two entries:\n%s", lineDiffForTest(before, got))
	}
}

// On a running loop the loop writes the file right after a correction;
// undo still works, as a correction of its own on what the loop wrote
// (it used to say "cannot undo: the file changed since aot-tui wrote it").
func TestUndoAfterALoopWrite(t *testing.T) {
	f := startRedirectFlow(t)
	formScripts[3].run(f) // constraints
	f.waitFor("preview:")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	f.waitFile("got the constraint", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 30")) })
	f.rewrite("iteration: 7", "iteration: 8", true)
	f.waitFor("iteration 8/30")
	f.keys("u")
	f.waitFor("preview: Undo a correction", "max_iterations 30 → 20")
	f.keys("enter")
	got := string(f.waitFile("max_iterations back", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 20")) }))
	if !strings.Contains(got, "iteration: 8") || !strings.Contains(got, "undo of the constraint_change") {
		t.Fatalf("the loop's write or the undo's entry is missing:\n%s", got)
	}
}

// The message log offers undo for any earlier correction of this
// session, not just the last.
func TestUndoAnEarlierCorrectionFromTheLog(t *testing.T) {
	f := startRedirectFlow(t)
	formScripts[3].run(f) // constraints: max_iterations 30
	f.waitFor("preview:")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	f.waitFile("got the constraint", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 30")) })
	formScripts[0].run(f) // add A9
	f.waitFor("preview:")
	f.keys("enter")
	f.waitFile("got the atom", func(b []byte) bool { return bytes.Contains(b, []byte("id: A9")) })
	f.keys("M", "u")
	f.waitFor("Undo a correction of this session", "#2 undo: added A9", "#1 undo: max_iterations 20 → 30")
	f.keys("down", "enter") // the earlier one
	f.waitFor("preview: Undo a correction", "max_iterations 30 → 20")
	f.keys("enter")
	got := string(f.waitFile("max_iterations back", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 20")) }))
	if !strings.Contains(got, "id: A9") {
		t.Fatalf("undoing the earlier correction took the later one too:\n%s", got)
	}
}

// lineDiffForTest shows the differing lines of two files.
func lineDiffForTest(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + a + "\n  got  " + c + "\n")
		}
	}
	return b.String()
}

// jump selects an atom with the ':' prompt (works in the list and the
// drawing alike) and waits until the details show it.
func (f *flow) jump(id string) {
	f.t.Helper()
	f.keys(":")
	f.waitFor("atom id")
	f.typeText(id)
	f.keys("enter")
	f.waitFor(id + "  ")
}

// In a short pane the dialog takes the rows the header had, and the form
// scrolls to the focused field: it is never typed into blind.
func TestDialogInAShortPaneShowsTheFocusedField(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{30, 8}, {40, 12}} {
		f := startFlow(t, "rich.md", sz.w, sz.h, Options{})
		f.waitFor("Idempotency keys") // the state is loaded
		f.keys("e")
		f.waitFor("Goal")
		f.keys("enter") // to the second field
		f.waitFor("Background intent", "audit trail")
		f.keys("esc")
		f.waitFor("1 Graph")
	}
}

// A form reopened right after a cancel, before the watcher reports the
// cleared flag, must still pause the loop (found by review: it read our
// own true, still on screen, as the flag already set, and sent nothing).
func TestFormReopenedAfterCancelPausesTheLoop(t *testing.T) {
	f := startRedirectFlow(t)
	f.keys("c")
	f.waitFor("Change constraints")
	f.waitFile("set redirect_requested", flagIs("true"))
	time.Sleep(300 * time.Millisecond) // the watcher has reported our true
	f.keys("esc", "c")
	f.waitFor("Change constraints")
	f.settle() // both writes have landed
	if !flagIs("true")(f.file()) {
		t.Fatal("a form is open but redirect_requested is false: the loop is not paused")
	}
	f.keys("esc")
	f.waitFile("cleared redirect_requested", flagIs("false"))
}

// I raises max_iterations by a step: the preview at once, then the write,
// the loop resumed.
func TestMoreIterationsKey(t *testing.T) {
	f := startRedirectFlow(t)
	f.keys("I")
	f.waitFor("preview: Change constraints", "max_iterations 20 → 30", "enter apply")
	f.waitFile("set redirect_requested", flagIs("true"))
	f.keys("enter")
	got := f.waitFile("got the correction", func(b []byte) bool { return bytes.Contains(b, []byte("max_iterations: 30")) && flagIs("false")(b) })
	if !bytes.Contains(got, []byte(`description: "max_iterations 20 → 30"`)) {
		t.Fatalf("no corrections[] entry for the change:\n%s", got)
	}
}

// A stopped loop's outlook says how it resumes, and whether the gate lets
// it.
func TestStoppedLoopSaysHowItResumes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, bytes.Replace(data, []byte("status: running"), []byte("status: stopped"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	m := modelOn(t, path, 120, 30, false)
	if out := screen(m); !strings.Contains(out, "» stopped: no reason recorded — /enter-recursion resumes it (the gate passes)") {
		t.Fatalf("the stopped loop does not say how it resumes:\n%s", out)
	}
}

// The stop's preview does not say the loop resumes: clearing the flag
// lets the stop hook end it.
func TestStopPreviewSaysTheLoopEnds(t *testing.T) {
	f := startRedirectFlow(t)
	f.keys("S")
	f.waitFor("Stop the loop", "┃ Reason")
	f.typeText("enough for today")
	f.keys("enter")
	f.waitFor("┃ Stop the loop?")
	f.keys("y")
	out := f.waitFor("preview:", "the stop hook then ends the loop")
	if strings.Contains(out, "the loop resumes") {
		t.Fatalf("the stop preview says the loop resumes:\n%s", out)
	}
}
