package ui

import (
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// benchStates returns two versions of a generated loop that differ by one
// atom's status, as the watcher would deliver them.
func benchStates(b *testing.B, atoms int) [2]statefile.Event {
	b.Helper()
	data := gen.Generate(gen.Options{Atoms: atoms, Seed: 3, Resolved: 0.4, ORGroups: atoms / 25, Decompositions: atoms / 40})
	var evs [2]statefile.Event
	for k := range evs {
		doc, err := statefile.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if k == 1 {
			a := &doc.State.Atoms[atoms/2]
			if a.Status == model.StatusPending {
				a.Status = model.StatusInProgress
			} else {
				a.Status = model.StatusPending
			}
		}
		evs[k] = statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: model.Derive(doc.State), At: fixedNow}
	}
	return evs
}

func benchModel(b *testing.B, ev statefile.Event, w, h int) *Model {
	m := New(Options{Target: statefile.Target{Path: "bench.md", Kind: statefile.KindAoT}, Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	return m
}

// BenchmarkViewAfterStatusChange… time View() right after a state with
// one changed status arrived (goal ≤ 2 ms, independent of graph size): at
// 160×50 the pane shows the layered drawing, at 80×40 the list (and 10,000
// atoms always show the list).
func BenchmarkViewAfterStatusChange1kDrawing(b *testing.B) { benchViewAfterChange(b, 1000, 160, 50) }
func BenchmarkViewAfterStatusChange1kList(b *testing.B)    { benchViewAfterChange(b, 1000, 80, 40) }
func BenchmarkViewAfterStatusChange10kList(b *testing.B)   { benchViewAfterChange(b, 10000, 160, 50) }

func benchViewAfterChange(b *testing.B, n, w, h int) {
	evs := benchStates(b, n)
	m := benchModel(b, evs[0], w, h)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m.Update(m.loops[0].envelope(stateMsg{ev: evs[i%2]}))
		b.StartTimer()
		_ = m.View()
	}
}

// BenchmarkStateUpdate1k times applying a new state in Update (the layout
// is kept: only statuses changed).
func BenchmarkStateUpdate1k(b *testing.B) {
	evs := benchStates(b, 1000)
	m := benchModel(b, evs[0], 160, 50)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(m.loops[0].envelope(stateMsg{ev: evs[i%2]}))
	}
}

// BenchmarkStateUpdate10k times a loop write as the TUI takes it at
// 10,000 atoms: the new state applied in Update, then View().
func BenchmarkStateUpdate10k(b *testing.B) {
	evs := benchStates(b, 10000)
	m := benchModel(b, evs[0], 160, 50)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(m.loops[0].envelope(stateMsg{ev: evs[i%2]}))
		_ = m.View()
	}
}

// BenchmarkViewAfterScroll1k… time a key press that moves the selection
// (scrolling when it nears the edge) plus View().
func BenchmarkViewAfterScroll1kDrawing(b *testing.B) { benchViewAfterScroll(b, 160, 50) }
func BenchmarkViewAfterScroll1kList(b *testing.B)    { benchViewAfterScroll(b, 80, 40) }

func benchViewAfterScroll(b *testing.B, w, h int) {
	evs := benchStates(b, 1000)
	m := benchModel(b, evs[0], w, h)
	down, up := keyMsg("j"), keyMsg("k")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if (i/500)%2 == 0 {
			m.Update(down)
		} else {
			m.Update(up)
		}
		_ = m.View()
	}
}

// BenchmarkLoopWrite10k is one write of the loop as the TUI takes it at
// 10,000 atoms, everything but the terminal: the watcher's Reparse and
// Derive of the new bytes (an atom's status and the iteration changed),
// Update and View, the version kept in the timeline. The timeline grows
// by one version per write, as it does in a run.
func BenchmarkLoopWrite10k(b *testing.B) {
	next := gen.LoopWrites(gen.Generate(gen.Options{Atoms: 10000, Seed: 11, Resolved: 0.3, ORGroups: 400, Decompositions: 250}))
	version := func(int) []byte { return next() } // called in order
	var d model.Deriver
	read := func(prev *statefile.Document, data []byte) statefile.Event {
		doc, err := statefile.Reparse(prev, data)
		if err != nil {
			b.Fatal(err)
		}
		return statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: d.Derive(doc.State), Data: data, At: fixedNow}
	}
	ev := read(nil, version(0))
	m := benchModel(b, ev, 160, 50)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		b.StopTimer()
		data := version(i)
		b.StartTimer()
		ev = read(ev.Doc, data)
		m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
		_ = m.View()
		m.Update(m.loops[0].envelope(recordMsg{})) // the version recorded after the frame
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MB-live")
	runtime.KeepAlive(m)
}

// BenchmarkIdleTick1k… time what the clock costs while the file is quiet,
// at 1,000 atoms in a 160×50 pane: the tick's Update and View(). In the
// first minute after a change the header's "changed 12s ago" moves on at
// every tick (Second); later a tick finds nothing to change (Minute).
func BenchmarkIdleTick1kSecond(b *testing.B) { benchIdleTick(b, 0) }
func BenchmarkIdleTick1kMinute(b *testing.B) { benchIdleTick(b, 5*time.Minute) }

func benchIdleTick(b *testing.B, since time.Duration) {
	evs := benchStates(b, 1000)
	now := fixedNow
	m := New(Options{Target: statefile.Target{Path: "bench.md", Kind: statefile.KindAoT}, Now: func() time.Time { return now }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	ev := evs[0]
	ev.At = fixedNow.Add(-since)
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	_ = m.View()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now = now.Add(time.Second)
		if since == 0 {
			m.cur.changed = now.Add(-time.Duration(1+i%50) * time.Second) // within the first minute
		}
		m.Update(clockMsg(now))
		_ = m.View()
	}
}
