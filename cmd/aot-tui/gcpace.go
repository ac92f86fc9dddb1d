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
// the live heap (at least minGarbage) since the last cycle, a cycle runs
// at once on a goroutine of its own, in the idle time before the next
// write; then the memory limit is set to the live heap plus half of it
// (at least limitSlack more), never under limitFloor. The limit makes the
// runtime return freed memory to the system; it sits above what a write
// allocates, so it does not make the collector run during one. It follows
// the live heap up and down, so a large file never has a limit under its
// live heap (which would have the collector run without end). GOGC or
// GOMEMLIMIT in the environment turn the pacer off: the user decides.
type gcPacer struct {
	busy atomic.Bool
	// gc, read and limit are runtime.GC, the heap in use and live, and
	// debug.SetMemoryLimit (tests replace them).
	gc    func()
	read  func() (heap, live uint64)
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
	return p.after
}

// after starts a cycle when enough garbage has piled up since the last,
// unless one it started is still running.
func (p *gcPacer) after() {
	heap, live := p.read()
	if heap < live+max(minGarbage, live/4) || !p.busy.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer p.busy.Store(false)
		p.gc()
		_, live := p.read()
		p.limit(int64(max(limitFloor, live+max(live/2, limitSlack))))
		if p.done != nil {
			p.done()
		}
	}()
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/gc/heap/live:bytes"}

// readHeap returns the bytes of heap objects (live, and dead not yet
// swept) and the live heap as the last cycle marked it.
func readHeap() (heap, live uint64) {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
