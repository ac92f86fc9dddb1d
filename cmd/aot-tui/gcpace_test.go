package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

const mb = 1 << 20

// TestGCPacer: a cycle runs when the heap has grown by a quarter of the
// live heap (at least minGarbage) since the last, or when the runtime has
// collected on its own since the pacer's last cycle; the limit it sets
// covers what the runtime holds besides the heap, the live heap and room
// for the writes to come.
func TestGCPacer(t *testing.T) {
	cases := []struct {
		name      string
		before    heapStats // what read returns before the cycle
		after     heapStats // and after it
		wantGC    bool
		wantLimit uint64
	}{
		{"small heap, little garbage", heapStats{objects: 8 * mb, live: 5 * mb}, heapStats{}, false, 0},
		{"small heap, minGarbage of garbage", heapStats{objects: 9 * mb, live: 5 * mb}, heapStats{objects: 5 * mb, live: 5 * mb, other: 8 * mb}, true, limitFloor},
		{"10k atoms: 8 MB on 35 MB live", heapStats{objects: 43 * mb, live: 35 * mb}, heapStats{}, false, 0},
		{"10k atoms: two writes", heapStats{objects: 55 * mb, live: 35 * mb}, heapStats{objects: 36 * mb, live: 36 * mb, other: 10 * mb}, true, 10*mb + 36*mb + 40*mb},
		{"the runtime collected on its own: the limit may be behind", heapStats{objects: 70 * mb, live: 68 * mb, cycles: 3}, heapStats{objects: 60 * mb, live: 60 * mb, other: 10 * mb, cycles: 4}, true, 10*mb + 60*mb + 30*mb},
		{"a large file: the limit follows the live heap", heapStats{objects: 300 * mb, live: 200 * mb}, heapStats{objects: 210 * mb, live: 210 * mb, other: 20 * mb}, true, 20*mb + 210*mb + 200*mb},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var (
				gcs   int
				limit int64
				done  sync.WaitGroup
			)
			cur := c.before
			p := &gcPacer{
				gc:    func() { gcs++; cur = c.after },
				read:  func() heapStats { return cur },
				limit: func(l int64) int64 { limit = l; return 0 },
				done:  done.Done,
			}
			if c.wantGC {
				done.Add(1)
			}
			p.after()
			done.Wait()
			if (gcs == 1) != c.wantGC || gcs > 1 || uint64(limit) != c.wantLimit {
				t.Fatalf("%d cycles, limit %d MB; want a cycle: %v, limit %d MB", gcs, limit/mb, c.wantGC, c.wantLimit/mb)
			}
			if limit != 0 && uint64(limit) < c.after.live+c.after.other+limitSlack {
				t.Fatalf("limit %d MB leaves less than %d MB over the live heap %d MB", limit/mb, limitSlack/mb, c.after.live/mb)
			}
			if c.wantGC && p.cycles.Load() != c.after.cycles {
				t.Fatal("the pacer did not note the cycles after its own")
			}
		})
	}
}

// TestGCPacerOneCycleAtATime: a version recorded while the pacer's cycle
// runs does not start another.
func TestGCPacerOneCycleAtATime(t *testing.T) {
	release := make(chan struct{})
	var (
		gcs  int
		done sync.WaitGroup
	)
	done.Add(1)
	p := &gcPacer{
		gc:    func() { gcs++; <-release },
		read:  func() heapStats { return heapStats{objects: 100 * mb, live: 10 * mb} },
		limit: func(int64) int64 { return 0 },
		done:  done.Done,
	}
	p.after()
	p.after()
	p.after()
	close(release)
	done.Wait()
	if gcs != 1 {
		t.Fatalf("%d cycles started while one ran, want 1", gcs)
	}
}

// TestGCPacerFollowsAGrowingHeap runs the pacer on the real runtime, on
// one processor as the TUI: writes that allocate 10 MB each, while what
// stays live grows from 30 to 130 MB, as a state file that grows. The
// limit must follow, so that the collector does not run again and again
// during a write (a limit stuck under the live heap made it run 5-7 times
// a write).
func TestGCPacerFollowsAGrowingHeap(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var done sync.WaitGroup
	p := &gcPacer{gc: runtime.GC, read: readHeap, limit: debug.SetMemoryLimit}
	p.done = done.Done
	runtime.GC()
	p.cycles.Store(readHeap().cycles)
	var kept [][]byte
	keep := func(n int) {
		for ; n > 0; n-- {
			kept = append(kept, make([]byte, 1<<20))
		}
	}
	var sink []byte
	write := func() {
		for i := 0; i < 160; i++ { // 10 MB of garbage in 64 KB pieces
			sink = make([]byte, 64<<10)
		}
	}
	keep(30)
	var during []uint64
	for w := 0; w < 40; w++ {
		if w >= 10 && w < 30 {
			keep(5) // the file grows
		}
		before := readHeap().cycles
		write()
		during = append(during, readHeap().cycles-before)
		done.Add(1)
		if !p.start() {
			done.Done()
		}
		done.Wait()
	}
	runtime.KeepAlive(sink)
	var last uint64
	for _, n := range during[30:] {
		last += n
	}
	h := readHeap()
	limit := uint64(debug.SetMemoryLimit(-1))
	if last > 5 || limit < h.live+limitSlack {
		t.Fatalf("over the last 10 writes on %d MB live the collector ran %d times during them (cycles a write: %v); limit %d MB", h.live/mb, last, during, limit/mb)
	}
	runtime.KeepAlive(kept)
}

// TestGCPacerLeavesTheEnvironmentInCharge: GOGC or GOMEMLIMIT turn the
// pacer off.
func TestGCPacerLeavesTheEnvironmentInCharge(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			if newGCPacer() == nil {
				t.Fatal("no pacer with neither set")
			}
			t.Setenv(env, "200")
			if newGCPacer() != nil {
				t.Fatalf("a pacer with %s set", env)
			}
		})
	}
}
