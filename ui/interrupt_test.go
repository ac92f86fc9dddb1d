package ui

import (
	"bytes"
	"testing"
)

// A correction that touches an in-progress atom (rich.md's A4) names it
// in the preview, and applying it asks a confirm that names it, which
// only i answers: any apply key (enter, y) goes back to the preview, so
// two presses of one write nothing. i writes the correction, whose entry
// says the worker was interrupted.
func TestInterruptNeedsItsOwnConfirm(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	f.jump("A4")
	f.keys("d")
	f.waitFor("Delete an atom", "┃ Delete A4?")
	f.keys("y")
	f.waitFor("┃ Note")
	f.keys("enter")
	f.waitFor("preview:", "⚠ A4 is in progress (a worker is on it", "deletes it;", "'Atom A4 not found'", "enter apply")

	f.keys("enter") // apply: the question, not the write
	f.waitFor("A4 is in progress: interrupt its worker? (i: yes)", "i interrupt and apply · esc back to the preview")
	f.keys("enter", "y", "a", "enter") // the apply keys again, by reflex: the question stays, nothing is written
	f.settle()
	f.waitFor("interrupt its worker? (i: yes)")
	f.keys("esc") // back to the preview
	f.waitFor("preview:", "enter apply")
	f.settle()
	if got := f.file(); !bytes.Equal(bytes.Replace(got, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1), before) {
		t.Fatalf("the file changed before the confirm:\n%s", lineDiffForTest(before, got))
	}

	f.keys("enter")
	f.waitFor("interrupt its worker? (i: yes)")
	f.keys("i")
	got := f.waitFile("got the correction", func(b []byte) bool { return !bytes.Contains(b, []byte("- id: A4\n")) })
	if !bytes.Contains(got, []byte(`(was in_progress) (interrupted the worker on A4)"`)) {
		t.Fatalf("the corrections[] entry does not say the worker was interrupted:\n%s", got)
	}
}

// The write policy holds in the TUI as on the command line (one check, in
// statefile): on a file with a cycle a correction is refused with the first
// error and its line, and a stop is written.
func TestTUIRefusesCorrectionsOnAnInvalidFile(t *testing.T) {
	f := startRedirectFlow(t)
	f.rewrite("    depends_on: [A7]\n    owner", "    depends_on: [A8]\n    owner", false) // A8 depends on itself
	f.waitFor("Define the billing schema")
	before := f.file()
	f.constraintsTo30()
	f.waitFor("✗ refused:", "fails validation", "circular dependency: A8 -> A8", "aot-tui validate -f")
	f.keys("esc")
	f.waitFor("cancelled")
	f.settle()
	if got := f.file(); !bytes.Equal(got, before) {
		t.Fatalf("the refused correction changed the file:\n%s", lineDiffForTest(before, got))
	}
	f.keys("S")
	f.waitFor("Stop the loop", "┃ Reason")
	f.typeText("broken")
	f.keys("enter")
	f.waitFor("┃ Stop the loop?")
	f.keys("y")
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFile("got the stop", func(b []byte) bool { return bytes.Contains(b, []byte("stop_requested: true")) })
}
