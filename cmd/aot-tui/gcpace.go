package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcPacer collects garbage in the quiet moment after the TUI has shown a
// write of the loop and recorded it (ui.Options.AfterRecord), so that
// the collector seldom runs while the next write is read and drawn, and
// holds memory to a limit that follows what is live.
//
// Why: on its one processor (oneProc) the TUI shares its time with the
// collector's marking while it runs. At 10,000 atoms a write allocates
// about 10 MB on a live heap of about 35 MB, so Go's default pacing
// started a cycle every second or third write, in the middle of one: those
// writes took 20-60 ms longer to reach the screen, the p95 of
// scripts/perf. And the default heap goal (twice the live heap) with what
// the runtime keeps mapped beyond it held 90-105 MB of RSS.
//
// What: after a recorded version, when the heap has grown by a quarter of
// the live heap (at least minGarbage) since the last cycle, or when the
// runtime has collected on its own since the pacer's last cycle (a write
// met the heap goal or the limit: the limit may be behind a heap that
// grew), a cycle runs at once on a goroutine of its own, in the idle time
// before the next write. Then the memory limit is set to what the runtime
// needs besides the heap, plus the live heap, plus room for what writes
// allocate between cycles: half the live heap, twice the garbage the last
// cycle found, and at least limitSlack; never under limitFloor. The limit
// makes the runtime return freed memory to the system; it sits above what
// a write allocates, so the collector does not run during one. It follows
// the live heap up and down: a file that grows makes the runtime collect
// on its own, which brings the pacer round to raise the limit. GOGC or
// GOMEMLIMIT in the environment turn the pacer off: the user decides.
type gcPacer struct {
	busy atomic.Bool
	// cycles is the runtime's count of cycles when the pacer's last
	// cycle ended.
	cycles atomic.Uint64
	// gc, read and limit are runtime.GC, readHeap and
	// debug.SetMemoryLimit (tests replace them).
	gc    func()
	read  func() heapStats
	limit func(int64) int64
	// done, when set, is called when a cycle started by after has ended
	// (tests).
	done func()
}

const (
	minGarbage = 4 << 20
	limitSlack = 24 << 20
	limitFloor = 64 << 20
)

// newGCPacer returns the pacer's AfterRecord function, nil when GOGC or
// GOMEMLIMIT is set.
func newGCPacer() func() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	p := &gcPacer{gc: runtime.GC, read: readHeap, limit: debug.SetMemoryLimit}
	p.cycles.Store(p.read().cycles)
	return p.after
}

// after is ui.Options.AfterRecord: start.
func (p *gcPacer) after() { p.start() }

// start starts a cycle when enough garbage has piled up since the last,
// or the runtime has collected on its own, unless one it started is
// still running; it reports whether it did.
func (p *gcPacer) start() bool {
	h := p.read()
	if h.cycles == p.cycles.Load() && h.objects < h.live+max(minGarbage, h.live/4) {
		return false
	}
	if !p.busy.CompareAndSwap(false, true) {
		return false
	}
	garbage := h.objects - min(h.objects, h.live)
	go func() {
		defer p.busy.Store(false)
		p.gc()
		h := p.read()
		p.cycles.Store(h.cycles)
		p.limit(int64(gcLimit(h, garbage)))
		if p.done != nil {
			p.done()
		}
	}()
	return true
}

// gcLimit is the memory limit for the heap h right after a cycle, the
// cycle before it having found garbage bytes of garbage: what the runtime
// holds besides the heap, the live heap, and room for the writes to come.
func gcLimit(h heapStats, garbage uint64) uint64 {
	return max(limitFloor, h.other+h.live+max(h.live/2, 2*garbage, limitSlack))
}

// heapStats is what the pacer reads of the runtime.
type heapStats struct {
	// objects are the bytes of heap objects (live, and dead not yet
	// swept); live the live heap as the last cycle marked it.
	objects, live uint64
	// other is the memory the runtime holds that the memory limit counts
	// and that is neither heap objects nor free heap: stacks, metadata,
	// fragmentation.
	other uint64
	// cycles counts the cycles completed.
	cycles uint64
}

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/gc/cycles/total:gc-cycles",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
}

// readHeap reads heapStats from runtime/metrics.
func readHeap() heapStats {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) uint64 { return s[i].Value.Uint64() }
	h := heapStats{objects: v(0), live: v(1), cycles: v(2)}
	// The limit counts total minus released; free heap is returned to the
	// system when the limit asks, and heap objects are counted apart.
	held := v(3) - min(v(3), v(4))
	h.other = held - min(held, v(5)+h.objects)
	return h
}
