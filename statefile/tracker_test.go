package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Tracker reads only when told to, and then reports as Watch does:
// Waiting, Loaded once per content, nothing for identical bytes, Removed.
func TestTrackerReportsLikeWatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	var got []EventKind
	var last Event
	tr := NewTracker(Target{Path: path, Kind: KindAoT}, WatchOptions{}, func(ev Event) { got = append(got, ev.Kind); last = ev })
	tr.Check()
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Poll()  // the stat changed: read
	tr.Poll()  // unchanged: no read, no event
	tr.Check() // same bytes: no event
	if last.Doc == nil || last.Doc.State.Control.Iteration != 1 {
		t.Fatalf("last event %+v", last)
	}
	if err := os.WriteFile(path, docWithIter("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Check()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	tr.Poll()
	want := []EventKind{EventWaiting, EventLoaded, EventLoaded, EventRemoved}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if last.Kind != EventRemoved || tr.Target().Path != path {
		t.Fatalf("last %v", last.Kind)
	}
}

// After the path held something else (a directory here), the state file
// that comes back is read and reported again, even with the very bytes
// read before it went: the screen is showing the error until then.
func TestTrackerReportsTheFileBackAfterAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	var got []Event
	tr := NewTracker(Target{Path: path, Kind: KindAoT}, WatchOptions{}, func(ev Event) { got = append(got, ev) })
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Check()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	tr.Check()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Check()
	var kinds []EventKind
	for _, ev := range got {
		kinds = append(kinds, ev.Kind)
	}
	if len(got) != 3 || got[0].Kind != EventLoaded || got[1].Kind != EventError || got[2].Kind != EventLoaded {
		t.Fatalf("events %v, want [loaded error loaded]", kinds)
	}
	if !errors.Is(got[1].Err, ErrNotRegular) || !strings.HasPrefix(got[1].Err.Error(), path+" is a directory, not a regular file") {
		t.Fatalf("the directory: %v", got[1].Err)
	}
}

// A writer that truncates the file and stalls is read as an empty file
// (invalid) until the file holds still; if its write then lands after the
// last of those reads, the poll must still see the file move and read
// it: the row stayed "invalid" until the loop's next write when the stat
// was taken after the reads (the fleet's fifty-loop test met it under
// load).
func TestTrackerPollSeesAWriteThatEndsAfterTheSettleReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	var last Event
	tr := NewTracker(Target{Path: path, Kind: KindAoT}, WatchOptions{}, func(ev Event) { last = ev })
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.Check()
	if err := os.WriteFile(path, nil, 0o644); err != nil { // truncated, the writer stalls
		t.Fatal(err)
	}
	watchTestHook = func(step string) {
		if step == "settled" {
			// The writer finishes just after the last look.
			if err := os.WriteFile(path, docWithIter("2"), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { watchTestHook = nil }()
	tr.Check()
	watchTestHook = nil
	if last.Kind != EventInvalid {
		t.Fatalf("the stalled write read as %v, want invalid", last.Kind)
	}
	tr.Poll()
	if last.Kind != EventLoaded || last.Doc.State.Control.Iteration != 2 {
		t.Fatalf("after the poll: %v (iteration %v), want the finished write loaded", last.Kind, last.Doc)
	}
}
