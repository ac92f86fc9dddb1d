package statefile

import (
	"os"
	"path/filepath"
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
