package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeAged writes data to path with its modification time set to at, in
// one step (a rename, as the loop's hook writes): the watcher never sees
// the bytes with another time.
func writeAged(t *testing.T, path string, data []byte, at time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".aged"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, at, at); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func richData(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1))
}

// A loop whose file last changed three hours before the TUI started reads
// "changed 3h ago" from the first frame: the header counts from the file's
// modification time, not from when aot-tui read it (it said "0s ago", and
// a dead loop looked alive).
func TestHeaderChangedIsTheFilesModificationTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "aot-loop-state.md")
	writeAged(t, path, richData(t), time.Now().Add(-3*time.Hour-5*time.Minute))
	f := startTimelineFlow(t, path, 160, 40, Options{})
	s := f.waitFor("iteration 7/20", "changed 3h ago")
	if strings.Contains(s, "changed 0s ago") {
		t.Fatalf("the header counts from the start of aot-tui:\n%s", s)
	}
}

// In a past version the header says when that version was written, not
// when the live file was; a loop write whose time is older than the one
// before (a clock behind, touch -d) is shown as it is, and one ahead of
// the clock reads "0s ago", never a negative age.
func TestHeaderChangedInThePastIsThatVersionsTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "aot-loop-state.md")
	data := richData(t)
	now := time.Now()
	writeAged(t, path, data, now.Add(-time.Hour-5*time.Minute))
	f := startTimelineFlow(t, path, 160, 40, Options{})
	f.waitFor("iteration 7/20", "changed 1h ago")

	// The loop writes with a clock three hours behind.
	v2 := []byte(strings.Replace(string(data), "iteration: 7", "iteration: 8", 1))
	writeAged(t, path, v2, now.Add(-3*time.Hour-5*time.Minute))
	f.waitFor("iteration 8/20", "changed 3h ago")

	// Back to the first version: its own time.
	f.keys(",")
	s := f.waitFor("◷ version 1 of 2", "iteration 7/20", "changed 1h ago")
	if strings.Contains(s, "changed 3h ago") {
		t.Fatalf("the past version shows the live file's time:\n%s", s)
	}
	f.keys("esc")
	f.waitFor("iteration 8/20", "changed 3h ago")

	// A write from a clock an hour ahead.
	v3 := []byte(strings.Replace(string(v2), "iteration: 8", "iteration: 9", 1))
	writeAged(t, path, v3, now.Add(time.Hour))
	s = f.waitFor("iteration 9/20", "changed 0s ago")
	if strings.Contains(s, "changed -") {
		t.Fatalf("a negative age:\n%s", s)
	}
	f.keys(",")
	f.waitFor("◷ version 2 of 3", "iteration 8/20", "changed 3h ago")
}
