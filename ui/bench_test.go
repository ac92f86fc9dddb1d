package ui

import (
	"bytes"
	"math"
	"runtime"
	"slices"
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
// 10,000 atoms, everything but the terminal, part by part: what the
// watcher does (read: Reparse and Derive of the new bytes, an atom's
// status and the iteration changed), the checks made with the event off
// the UI goroutine (checks: validate, outlook, resume line, eventMsg),
// Update and View on the UI goroutine, and the version kept in the
// timeline after the frame (record). Each is reported as its median per
// write (read-ms, checks-ms, update-ms, view-ms, record-ms); frame-ms and
// frame-p95-ms are the median and 95th percentile of the in-process work
// before the frame, read+checks+update+view, in wall time; frame-cpu-ms
// the median of the CPU time the process spent on it (on a busy machine
// the wall time includes waiting for a processor; not reported where
// getrusage is missing). The TUI runs on one processor: -cpu 1 measures
// it so (the reader decodes in two halves at once on more). The timeline
// grows by one version per write, as it does in a run.
func BenchmarkLoopWrite10k(b *testing.B) { benchLoopWrite(b, 10000, false) }

// BenchmarkLoopWrite1k is BenchmarkLoopWrite10k at 1,000 atoms.
func BenchmarkLoopWrite1k(b *testing.B) { benchLoopWrite(b, 1000, false) }

// BenchmarkLoopWrite10kResolve is BenchmarkLoopWrite10k with every other
// write also resolving an atom (without its binding: a warning comes and
// goes): the set of unresolved atoms changes, so the longest chain is
// worked out again, and the findings and the flags change.
func BenchmarkLoopWrite10kResolve(b *testing.B) { benchLoopWrite(b, 10000, true) }

func benchLoopWrite(b *testing.B, atoms int, resolve bool) {
	writes := gen.LoopWrites(gen.Generate(gen.Options{Atoms: atoms, Seed: 11, Resolved: 0.3, ORGroups: atoms / 25, Decompositions: atoms / 40}))
	n := 0
	next := func() []byte {
		data := writes()
		if n++; resolve && n%2 == 0 {
			data = bytes.Replace(data, []byte("    status: in_progress\n"), []byte("    status: resolved\n"), 1)
		}
		return data
	}
	var d model.Deriver
	read := func(prev *statefile.Document, data []byte) statefile.Event {
		doc, err := statefile.Reparse(prev, data)
		if err != nil {
			b.Fatal(err)
		}
		return statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: d.Derive(doc.State), Data: data, At: fixedNow}
	}
	ev := read(nil, next())
	m := benchModel(b, ev, 160, 50)
	vr := &model.Validator{}
	parts := [...]string{"read", "checks", "update", "view", "record"}
	var took [len(parts)][]time.Duration
	var frame, frameCPU []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		b.StopTimer()
		data := next()
		b.StartTimer()
		c0, cpu := processCPU()
		t0 := time.Now()
		ev = read(ev.Doc, data)
		t1 := time.Now()
		msg := eventMsg(vr, ev)
		t2 := time.Now()
		m.Update(m.loops[0].envelope(msg))
		t3 := time.Now()
		_ = m.View()
		t4 := time.Now()
		if c4, ok := processCPU(); cpu && ok {
			frameCPU = append(frameCPU, c4-c0)
		}
		m.Update(m.loops[0].envelope(recordMsg{})) // the version recorded after the frame
		t5 := time.Now()
		for k, d := range []time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4)} {
			took[k] = append(took[k], d)
		}
		frame = append(frame, t4.Sub(t0))
	}
	b.StopTimer()
	for k, name := range parts {
		b.ReportMetric(quantileMs(took[k], 0.5), name+"-ms")
	}
	b.ReportMetric(quantileMs(frame, 0.5), "frame-ms")
	b.ReportMetric(quantileMs(frame, 0.95), "frame-p95-ms")
	if len(frameCPU) > 0 {
		b.ReportMetric(quantileMs(frameCPU, 0.5), "frame-cpu-ms")
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MB-live")
	runtime.KeepAlive(m)
}

// quantileMs is the q-quantile of ds in milliseconds (nearest rank).
func quantileMs(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)
	return float64(s[max(k, 0)]) / float64(time.Millisecond)
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
