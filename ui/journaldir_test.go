package ui

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Without a directory for the journal (no $HOME, no $XDG_STATE_HOME) the
// TUI watches on and says in its footer why nothing is recorded; the
// project gets no journal instead.
func TestNoJournalDirectoryTurnsTheJournalOffAndSaysWhy(t *testing.T) {
	f := startFlow(t, "rich.md", 160, 40, Options{Journal: func(string) (string, error) {
		return "", errors.New("no directory for the journals: neither $XDG_STATE_HOME nor $HOME is set (--journal-dir DIR chooses one)")
	}})
	f.waitFor("iteration 7/20")
	f.rewrite("iteration: 7", "iteration: 8", false)
	f.waitFor("iteration 8/20")
	f.rewrite("iteration: 8", "iteration: 9", false)
	f.waitFor("iteration 9/20", "journal off: no directory for the journals")
	entries, _ := os.ReadDir(filepath.Dir(f.path))
	if len(entries) != 1 {
		t.Fatalf("the project's .claude holds %d files", len(entries))
	}
}
