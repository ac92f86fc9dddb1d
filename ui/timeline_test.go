package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// onModel runs f on the program's goroutine (no data race with Update).
type onModel struct{ f func(*Model) }

// tlProbe is probe plus onModel.
type tlProbe struct{ probe }

func (p tlProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r, ok := msg.(onModel); ok {
		r.f(p.Model)
		return p, nil
	}
	_, cmd := p.probe.Update(msg)
	return p, cmd
}

// startTimelineFlow runs the TUI on the state file at path with its
// journal on.
func startTimelineFlow(t *testing.T, path string, w, h int, opts Options) *flow {
	t.Helper()
	opts.Target = statefile.Target{Path: path, Kind: statefile.KindAoT}
	opts.NoColor = true
	opts.Watch = statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}
	m := New(opts)
	tm := teatest.NewTestModel(t, tlProbe{probe{m}}, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	return &flow{t: t, tm: tm, path: path}
}

// inDir keeps the journals in dir, as the TUI's --journal-dir does.
func inDir(dir string) func(string) (string, error) {
	return func(path string) (string, error) { return history.JournalIn(dir, path), nil }
}

// on runs f on the program's goroutine and waits for it.
func (f *flow) on(fn func(*Model)) {
	f.t.Helper()
	done := make(chan struct{})
	f.tm.Send(onModel{func(m *Model) { fn(m); close(done) }})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		f.t.Fatal("the program did not answer")
	}
}

// A simulated run is recorded as the TUI sees it; the journal holds
// exactly the timeline's versions (replay equals the live run), each one
// the simulator wrote; and stepping back shows each version's own state.
func TestTimelineRecordsASimulatedRunAndStepsBackThroughIt(t *testing.T) {
	path, err := sim.Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	initial, _ := os.ReadFile(path)
	journals := t.TempDir()
	f := startTimelineFlow(t, path, 90, 30, Options{Journal: inDir(journals)})
	f.waitFor("pending")

	var mu sync.Mutex
	written := map[string]bool{string(initial): true}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := sim.Run(ctx, sim.Config{Path: path, Seed: 1, Speed: 60, Demo: true, OnWrite: func(_ string, data []byte) {
		mu.Lock()
		written[string(data)] = true
		mu.Unlock()
	}})
	if err != nil || res.Status != model.LoopCompleted {
		t.Fatalf("the run: %v %v", res.Status, err)
	}
	f.waitFor("completed")

	var versions [][]byte
	f.on(func(m *Model) {
		h := m.hist(m.cur)
		h.rec.Flush()
		for i := 0; i < h.tl.Len(); i++ {
			v, err := h.tl.Data(i)
			if err != nil {
				t.Error(err)
			}
			versions = append(versions, v)
		}
	})
	if len(versions) < 10 {
		t.Fatalf("only %d versions seen", len(versions))
	}
	recorded, notes, err := history.ReadJournal(history.JournalIn(journals, path))
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	if len(recorded) != len(versions) {
		t.Fatalf("the journal holds %d versions, the timeline %d", len(recorded), len(versions))
	}
	for i, v := range recorded {
		if !bytes.Equal(v.Data, versions[i]) {
			t.Fatalf("journal version %d differs from the timeline's", i+1)
		}
		if !written[string(v.Data)] {
			t.Fatalf("journal version %d is not a version the simulator wrote", i+1)
		}
	}

	// Back through every version to the first, and forward again.
	n := len(recorded)
	for k := n - 1; k >= 1; k-- {
		f.keys(",")
		f.checkShown(k, n, recorded[k-1].Data)
	}
	f.keys(",")
	f.waitFor("this is the oldest version")
	for k := 2; k < n; k++ {
		f.keys(".")
		f.checkShown(k, n, recorded[k-1].Data)
	}
	f.keys(".")
	s := f.waitFor("completed")
	if strings.Contains(s, "◷ version") {
		t.Fatalf("past the newest version the TUI should be live:\n%s", s)
	}
}

// checkShown waits for version k of n on screen and checks that what the
// views draw from is that version's bytes.
func (f *flow) checkShown(k, n int, want []byte) {
	f.t.Helper()
	doc, err := statefile.Parse(want)
	if err != nil {
		f.t.Fatal(err)
	}
	c := doc.State.Control
	f.waitFor(fmt.Sprintf("◷ version %d of %d", k, n), fmt.Sprintf("iteration %d/", c.Iteration))
	f.on(func(m *Model) {
		if !bytes.Equal(m.cur.doc.Data, want) {
			f.t.Errorf("version %d: the state on screen is not the recorded one", k)
		}
	})
}

// The past is read-only, says what changed in words, and esc goes back
// to live; a change that arrives meanwhile waits.
func TestTimelinePastIsReadOnlyAndEscReturnsToLive(t *testing.T) {
	f := startFlow(t, "rich.md", 110, 34, Options{})
	f.waitFor("iteration 7/20")
	f.rewrite("iteration: 7", "iteration: 8", false)
	f.waitFor("iteration 8/20")
	f.rewrite("status: in_progress", "status: resolved", true)
	f.waitFor("○5 ◐0 ●3")
	f.rewrite("iteration: 8", "iteration: 9", true)
	f.waitFor("iteration 9/20")

	f.keys(",")
	f.waitFor("◷ version 3 of 4", "iteration 8/20", "○5 ◐0 ●3")
	before := f.file()
	f.keys("a")
	f.waitFor("read-only: esc returns to live")
	f.keys("S")
	time.Sleep(50 * time.Millisecond)
	if !bytes.Equal(f.file(), before) {
		t.Fatal("a write key changed the file while the past was on screen")
	}

	// What changed: version 3 against version 2.
	f.keys("w")
	s := f.waitFor("what changed — version 3 of 4", "against version 2")
	if !strings.Contains(s, "→ resolved") || strings.Contains(s, "iteration 8 → 9") {
		t.Fatalf("what changed in version 3:\n%s", s)
	}
	f.keys(",")
	f.waitFor("what changed — version 2 of 4", "iteration 7 → 8")
	f.keys("esc")
	f.waitFor("◷ version 2 of 4")

	// { and } stop at changes of status, not at a counter moving.
	f.keys("}")
	f.waitFor("◷ version 3 of 4")
	f.keys("{")
	f.waitFor("◷ version 1 of 4", "iteration 7/20")

	// A live change waits while the past is on screen.
	f.rewrite("iteration: 9", "iteration: 10", true)
	f.waitFor("◷ version 1 of 5")
	f.keys("esc")
	s = f.waitFor("iteration 10/20")
	if strings.Contains(s, "◷ version") {
		t.Fatalf("esc should return to live:\n%s", s)
	}
	// Live again: write keys work.
	f.keys("a")
	f.waitFor("Add an atom")
	f.keys("esc")
	f.settle()
}

// Play steps forward on its own and ends live; + and - change the speed.
func TestTimelinePlay(t *testing.T) {
	f := startFlow(t, "rich.md", 110, 34, Options{})
	f.waitFor("iteration 7/20")
	for i := 8; i <= 10; i++ {
		f.rewrite(fmt.Sprintf("iteration: %d", i-1), fmt.Sprintf("iteration: %d", i), true)
		f.waitFor(fmt.Sprintf("iteration %d/20", i))
	}
	f.keys("+", "+")
	f.waitFor("play speed 4×")
	f.keys("p")
	f.waitFor("◷ version 1 of 4")
	s := f.waitFor("iteration 10/20")
	if strings.Contains(s, "◷ version") {
		t.Fatalf("play should end live:\n%s", s)
	}
}

// The message log keeps the footer's messages in full, and the
// corrections that come in.
func TestMessageLogKeepsLongMessagesAndCorrections(t *testing.T) {
	f := startFlow(t, "rich.md", 60, 24, Options{})
	f.waitFor("it 7/20")
	f.rewrite("iteration: 7", "iteration: 8", true)
	f.waitFor("it 8/20")
	f.keys(",")
	f.waitFor("◷ version 1 of 2")
	f.keys("a") // a long message, cut in a 60-column footer
	s := f.waitFor("version 1 of 2 is the past")
	if strings.Contains(s, "where corrections apply") {
		t.Fatalf("the footer should cut this message at 60 columns:\n%s", s)
	}
	f.keys("esc")
	f.rewrite("corrections:", "corrections:\n  - timestamp: \"2026-03-04T05:06:07Z\"\n    type: constraint_change\n    description: \"max_iterations 20 → 30\"\n    trail_cleared: false", true)
	f.waitFor("it 8/20")
	time.Sleep(50 * time.Millisecond)
	f.keys("M")
	s = f.waitFor("message log —", "where corrections apply", "correction added: constraint_change")
	if !strings.Contains(s, "live") {
		t.Fatalf("the log should keep every message:\n%s", s)
	}
	f.keys("M")
	f.waitFor("it 8/20")
}

// The timeline's keys are inert before there is a state, and say so.
func TestTimelineKeysBeforeAnyState(t *testing.T) {
	f := startFlow(t, "", 80, 24, Options{})
	f.waitFor("waiting for")
	f.keys(",")
	f.waitFor("no versions yet")
	f.keys("M")
	f.waitFor("message log —", "no versions yet")
}

// A replay starts at the first version, read-only, and esc shows the last.
func TestReplayStartsAtTheFirstVersion(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	var versions []history.Version
	t0 := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	cur := string(base)
	for i := 7; i <= 9; i++ {
		cur = strings.Replace(cur, fmt.Sprintf("iteration: %d", i), fmt.Sprintf("iteration: %d", i+1), 1)
		versions = append(versions, history.Version{At: t0.Add(time.Duration(i) * time.Second), Data: []byte(cur)})
	}
	tl := history.Build(versions, history.TimelineOptions{})
	m := New(Options{Target: statefile.Target{Path: "/nonexistent/.claude/aot-loop-state.md", Kind: statefile.KindAoT},
		ReadOnly: true, NoColor: true, SyncLayout: true, Replay: &Replay{Timeline: tl, Source: "test.jsonl", Notes: []string{"line 9: skipped"}}})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 30})
	runCmd(m, m.Init())
	s := screen(m)
	if !strings.Contains(s, "◷ version 1 of 3") || !strings.Contains(s, "replay of test.jsonl") || !strings.Contains(s, "iteration 8/20") {
		t.Fatalf("replay start:\n%s", s)
	}
	press(m, "a")
	if !strings.Contains(screen(m), "a replay is read-only") {
		t.Fatalf("write key in a replay:\n%s", screen(m))
	}
	press(m, "esc")
	if s := screen(m); !strings.Contains(s, "version 3 of 3") || !strings.Contains(s, "iteration 10/20") {
		t.Fatalf("esc in a replay shows the last version:\n%s", s)
	}
	press(m, "M")
	if !strings.Contains(screen(m), "line 9: skipped") {
		t.Fatalf("the replay's notes belong in the message log:\n%s", screen(m))
	}
}

// runCmd runs a command and the commands its messages lead to, except
// timers (ticks and play), feeding each message to m.
func runCmd(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(50 * time.Millisecond):
		return // a timer
	}
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			runCmd(m, c)
		}
		return
	}
	if msg != nil {
		_, next := m.Update(msg)
		runCmd(m, next)
	}
}

// A version read is drawn first and recorded after the frame: Update
// queues it and answers with the command that records it; the timeline
// keys, and anything else that reads the timeline, record what is queued
// first, so they always see every version in order.
func TestVersionRecordedAfterTheFrame(t *testing.T) {
	event := richEdits(t)
	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, NoColor: true, ReadOnly: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 34})
	l := m.cur

	_, cmd := m.Update(m.loops[0].envelope(stateMsg{ev: event("", "")}))
	if !strings.Contains(screen(m), "iteration 7/20") {
		t.Fatal("the state is not on screen")
	}
	if n := l.hist.tl.Len(); n != 0 || len(l.hist.queue) != 1 {
		t.Fatalf("before the frame: %d versions recorded, %d queued; want 0, 1", n, len(l.hist.queue))
	}
	if cmd == nil {
		t.Fatal("no command to record the version")
	}
	m.Update(l.envelope(recordMsg{}))
	if n := l.hist.tl.Len(); n != 1 || len(l.hist.queue) != 0 {
		t.Fatalf("after recordMsg: %d versions recorded, %d queued; want 1, 0", n, len(l.hist.queue))
	}

	// Two more versions, then a timeline key before their recordMsg.
	m.Update(m.loops[0].envelope(stateMsg{ev: event("iteration: 7", "iteration: 8")}))
	m.Update(m.loops[0].envelope(stateMsg{ev: event("iteration: 8", "iteration: 9")}))
	m.Update(keyMsg(","))
	if !strings.Contains(screen(m), "◷ version 2 of 3") || !strings.Contains(screen(m), "iteration 8/20") {
		t.Fatalf("the key did not see every version:\n%s", screen(m))
	}
	m.Update(l.envelope(recordMsg{}))
	if n := l.hist.tl.Len(); n != 3 {
		t.Fatalf("%d versions recorded, want 3", n)
	}
}

// The parsed versions the past needs (some 30 MB each at 10,000 atoms)
// are let go once live again: on esc, and when a new version arrives
// while live after "what changed" parsed two.
func TestTimelineLetsGoOfParsedVersionsWhenLive(t *testing.T) {
	event := richEdits(t)
	m := New(Options{Target: statefile.Target{Path: "loop.md", Kind: statefile.KindAoT}, NoColor: true, ReadOnly: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 34})
	l := m.cur
	m.Update(m.loops[0].envelope(stateMsg{ev: event("", "")}))
	m.Update(m.loops[0].envelope(stateMsg{ev: event("iteration: 7", "iteration: 8")}))
	m.Update(m.loops[0].envelope(stateMsg{ev: event("iteration: 8", "iteration: 9")}))

	m.Update(keyMsg(","))
	m.Update(keyMsg(","))
	if !strings.Contains(screen(m), "◷ version 1 of 3") || len(l.hist.parsed) == 0 {
		t.Fatalf("not in the past, or nothing parsed (%d):\n%s", len(l.hist.parsed), screen(m))
	}
	m.Update(keyMsg("esc"))
	if l.hist.inPast() || len(l.hist.parsed) != 0 || len(l.hist.order) != 0 {
		t.Fatalf("live again with %d parsed versions kept", len(l.hist.parsed))
	}
	if !strings.Contains(screen(m), "iteration 9/20") {
		t.Fatalf("not the live state:\n%s", screen(m))
	}

	m.Update(keyMsg("w"))
	if !strings.Contains(screen(m), "iteration 8 → 9") || len(l.hist.parsed) != 2 {
		t.Fatalf("what changed (%d parsed):\n%s", len(l.hist.parsed), screen(m))
	}
	m.Update(keyMsg("w"))
	m.Update(m.loops[0].envelope(stateMsg{ev: event("iteration: 9", "iteration: 10")}))
	m.Update(l.envelope(recordMsg{}))
	if l.hist.tl.Len() != 4 || len(l.hist.parsed) != 0 {
		t.Fatalf("%d versions, %d parsed kept after a new live version", l.hist.tl.Len(), len(l.hist.parsed))
	}
	// Stepping back parses again.
	m.Update(keyMsg(","))
	if !strings.Contains(screen(m), "◷ version 3 of 4") || !strings.Contains(screen(m), "iteration 9/20") {
		t.Fatalf("stepping back after letting go:\n%s", screen(m))
	}
}

// richEdits returns successive versions of testdata/rich.md as watch
// events: each call replaces old with new in the version before.
func richEdits(t *testing.T) func(old, new string) statefile.Event {
	t.Helper()
	data, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	return func(old, new string) statefile.Event {
		data = bytes.Replace(data, []byte(old), []byte(new), 1)
		doc, err := statefile.Parse(bytes.Clone(data))
		if err != nil {
			t.Fatal(err)
		}
		return statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: model.Derive(doc.State), Data: doc.Data, At: fixedNow}
	}
}
