package ui

import (
	"os"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

// Every way a redirect can fail ends in a closed dialog or in a form to
// edit, and a flag this session set is cleared when it closes: the loop is
// never left paused behind a box that ignores esc and q.

// loopEdits rewrites the flow's file with edits, as the loop would.
func (f *flow) loopEdits(edits ...model.Edit) {
	f.t.Helper()
	doc, err := statefile.Parse(f.file())
	if err != nil {
		f.t.Fatal(err)
	}
	out, err := statefile.ApplyEdits(doc, edits)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.path, out, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func TestApplyAfterTheLastORGroupIsGoneClosesAndResumesTheLoop(t *testing.T) {
	f := startRedirectFlow(t)
	formScripts[2].run(f) // force-or
	f.waitFor("preview:", "enter apply")
	f.waitFile("paused the loop", flagIs("true"))
	// The loop drops its only OR group meanwhile (its atoms leave it too).
	doc, _ := statefile.Parse(f.file())
	var edits []model.Edit
	for i, a := range doc.State.Atoms {
		if a.Lines.Has("or_group") {
			edits = append(edits, model.Remove(model.P("atoms", i, "or_group")))
		}
	}
	f.loopEdits(append(edits, model.Remove(model.P("or_groups", "audit_store")))...)
	f.waitFor("the loop wrote the file")
	f.keys("enter")
	s := f.waitFor("no OR groups")
	if strings.Contains(s, "preview:") || strings.Contains(s, "Force an OR choice") || strings.Contains(s, "working") {
		t.Fatalf("a dialog is still open:\n%s", s)
	}
	f.waitFile("resumed the loop", flagIs("false"))
	f.keys("j") // the view takes keys again
	f.waitFor("Define the billing schema")
}

func TestApplyAfterTheAtomIsGoneClosesAndResumesTheLoop(t *testing.T) {
	f := startRedirectFlow(t)
	formScripts[1].run(f) // delete A8
	f.waitFor("preview:", "enter apply")
	f.waitFile("paused the loop", flagIs("true"))
	doc, _ := statefile.Parse(f.file())
	f.loopEdits(model.Remove(model.P("atoms", model.Derive(doc.State).Index["A8"])))
	f.waitFor("the loop wrote the file")
	f.keys("enter")
	s := f.waitFor("A8")
	if strings.Contains(s, "preview:") || strings.Contains(s, "working") {
		t.Fatalf("a dialog is still open:\n%s", s)
	}
	f.waitFile("resumed the loop", flagIs("false"))
}

func TestApplyRefusedGoesBackToAnEditableForm(t *testing.T) {
	// The loop sets the same constraint meanwhile: the re-planned
	// correction changes nothing, and the form comes back with the reason,
	// editable; esc then closes it and resumes the loop.
	f := startRedirectFlow(t)
	f.constraintsTo30()
	f.waitFor("preview:", "enter apply")
	f.rewrite("max_iterations: 20", "max_iterations: 30", true)
	f.waitFor("the loop wrote the file")
	f.keys("enter")
	f.waitFor("no longer possible", "Change constraints", "┃ max_iterations")
	if !flagIs("true")(f.file()) {
		t.Fatal("the form is open again but the loop is not paused")
	}
	f.keys("esc")
	f.waitFor("cancelled")
	f.waitFile("resumed the loop", flagIs("false"))
}

// The TUI guards its corrections (for as long as a guard lives): a loop script
// that read the file before the write and writes after it undoes the
// correction; it is applied again, and the person is told.
func TestGuardReappliesAndSaysSo(t *testing.T) {
	f := startRedirectFlow(t)
	stale := f.file()
	formScripts[0].run(f) // add-atom "Write the runbook"
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	// The loop's script writes back what it read before the correction,
	// with its own change.
	theirs := strings.Replace(string(stale), "iteration: 7", "iteration: 8", 1)
	theirs = strings.Replace(theirs, "redirect_requested: true", "redirect_requested: false", 1)
	if err := os.WriteFile(f.path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("re-applied after the loop overwrote it")
	got := string(f.waitFile("has the correction again", func(b []byte) bool {
		return strings.Contains(string(b), "Write the runbook") && strings.Contains(string(b), "iteration: 8")
	}))
	if strings.Count(got, "description: \"Write the runbook\"") != 1 {
		t.Fatal("the correction is in the file twice")
	}
	f.keys("4") // corrections view: the account of it
	f.waitFor(`added A9 "Write the runbook"`)
	f.keys("G", "enter")
	f.waitFor("re-applied 1× after the loop overwrote it")
}

// withA8Resolved is stale with A8 resolved: the loop's script writing
// back what it read before a delete of A8.
func withA8Resolved(stale []byte) string {
	return strings.Replace(string(stale), "  - id: A8\n    description: \"文档：计费服务的运行手册 and docs\"\n    status: pending",
		"  - id: A8\n    description: \"文档：计费服务的运行手册 and docs\"\n    status: resolved", 1)
}

func TestGuardReportsALostCorrection(t *testing.T) {
	f := startRedirectFlow(t)
	stale := f.file()
	formScripts[1].run(f) // delete A8
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	// The loop's script writes back A8, now resolved: the delete cannot
	// be applied again.
	theirs := strings.Replace(withA8Resolved(stale), "redirect_requested: true", "redirect_requested: false", 1)
	if err := os.WriteFile(f.path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("lost: deleted A8", "esc dismisses")
	f.keys("esc")
	f.waitGone("lost: deleted A8", "esc did not dismiss the banner")
}

// The busy box answers esc at once; what was under way finishes, and its
// result, arriving for a closed box, changes nothing on screen.
func TestBusyBoxLeavesOnEsc(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 32)
	l := m.cur
	n := 31
	a := redirect.Plan(m.flowLoop(l), redirect.Constraints, model.ChangeConstraints{MaxIterations: &n}, "")
	plan := a.Job
	a.Job = nil
	m.openFlow(l, a)
	if !strings.Contains(screen(m), "planning the correction…") {
		t.Fatal("the busy box is not shown")
	}
	press(m, "esc")
	if l.topDialog() != nil || m.focus != focusView {
		t.Fatalf("esc left the busy box open (%T)", l.topDialog())
	}
	m.Update(m.flowJob(l, plan)()) // the plan, finished after the box closed
	if l.topDialog() != nil || strings.Contains(screen(m), "preview:") {
		t.Fatal("a result for a closed box reopened the redirect")
	}
}
