package ui

import (
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
