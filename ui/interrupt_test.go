package ui

import (
	"bytes"
	"testing"
)

// A correction that touches an in-progress atom (rich.md's A4) names it
// in the preview, and applying it asks a confirm that names it, which
// only y answers: enter, the apply key, goes back to the preview, so two
// presses of it write nothing. y writes the correction, whose entry says
// the worker was interrupted.
func TestInterruptNeedsItsOwnConfirm(t *testing.T) {
	f := startRedirectFlow(t)
	before := f.file()
	f.jump("A4")
	f.keys("d")
	f.waitFor("Delete an atom", "┃ Note")
	f.keys("enter")
	f.waitFor("┃ Delete A4?")
	f.keys("y")
	f.waitFor("preview:", "⚠ A4 is in progress (a worker is on it", "deletes it;", "'Atom A4 not found'", "enter apply")

	f.keys("enter") // apply: the question, not the write
	f.waitFor("A4 is in progress: interrupt its worker? y/n", "y interrupt and apply")
	f.keys("enter") // no (the default): back to the preview
	f.waitFor("preview:", "enter apply")
	f.keys("enter", "enter")
	f.waitFor("preview:", "enter apply")
	f.settle()
	if got := f.file(); !bytes.Equal(bytes.Replace(got, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1), before) {
		t.Fatalf("the file changed before the confirm:\n%s", lineDiffForTest(before, got))
	}

	f.keys("enter")
	f.waitFor("interrupt its worker? y/n")
	f.keys("y")
	got := f.waitFile("got the correction", func(b []byte) bool { return !bytes.Contains(b, []byte("- id: A4\n")) })
	if !bytes.Contains(got, []byte(`(was in_progress) (interrupted the worker on A4)"`)) {
		t.Fatalf("the corrections[] entry does not say the worker was interrupted:\n%s", got)
	}
}
