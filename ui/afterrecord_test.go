package ui

import (
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestAfterRecordCalledPastTheFrame: Options.AfterRecord (where the TUI
// collects garbage) is called once the queued versions are recorded, not
// when a version reaches Update, which the frame showing it follows.
func TestAfterRecordCalledPastTheFrame(t *testing.T) {
	event := richEdits(t)
	calls := 0
	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, NoColor: true, ReadOnly: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, AfterRecord: func() { calls++ }})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 34})
	m.Update(m.loops[0].envelope(stateMsg{ev: event("", "")}))
	if calls != 0 {
		t.Fatalf("AfterRecord called %d times before the version was recorded", calls)
	}
	m.Update(m.cur.envelope(recordMsg{}))
	if calls != 1 || m.cur.hist.tl.Len() != 1 {
		t.Fatalf("after recordMsg: AfterRecord called %d times, %d versions recorded; want 1, 1", calls, m.cur.hist.tl.Len())
	}
}

// TestBesideLoopAroundALayout: a graph laid out in the background is laid
// out inside Options.BesideLoop (where the TUI gives the event loop and
// the watcher processors of their own), and its end is told once the
// layout is done; the drawing is installed. (That a layout keeps to the
// workers it is given is dagdraw's TestLaidOutAheadOrNot.)
func TestBesideLoopAroundALayout(t *testing.T) {
	event := richEdits(t)
	var mu sync.Mutex
	began, ended := 0, 0
	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, NoColor: true, ReadOnly: true,
		Now: func() time.Time { return fixedNow }, BesideLoop: func() (int, func()) {
			mu.Lock()
			defer mu.Unlock()
			began++
			return 1, func() {
				mu.Lock()
				defer mu.Unlock()
				ended++
			}
		}})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	_, cmd := m.Update(m.loops[0].envelope(stateMsg{ev: event("", "")}))
	runCmd(m, cmd)
	mu.Lock()
	defer mu.Unlock()
	if began == 0 || ended != began {
		t.Fatalf("BesideLoop began %d times, ended %d: want each layout inside one", began, ended)
	}
	if g := &m.cur.graph; g.lay.gv == nil || g.lay.gv.Layout() == nil {
		t.Fatal("the layout made inside BesideLoop was not installed")
	}
}
