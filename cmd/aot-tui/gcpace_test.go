package main

import (
	"sync"
	"testing"
)

// TestGCPacer: a cycle runs only when the heap has grown by a quarter of
// the live heap (at least minGarbage) since the last; one at a time; and
// the limit it sets follows the live heap, never under it.
func TestGCPacer(t *testing.T) {
	const mb = 1 << 20
	type state struct{ heap, live uint64 }
	cases := []struct {
		name      string
		before    state // what read returns before the cycle
		after     state // and after it
		wantGC    bool
		wantLimit int64
	}{
		{"small heap, little garbage", state{8 * mb, 5 * mb}, state{}, false, 0},
		{"small heap, minGarbage of garbage", state{9 * mb, 5 * mb}, state{5 * mb, 5 * mb}, true, limitFloor},
		{"10k atoms: 8 MB on 35 MB live", state{35*mb + 8*mb, 35 * mb}, state{}, false, 0},
		{"10k atoms: two writes", state{35*mb + 20*mb, 35 * mb}, state{36 * mb, 36 * mb}, true, limitFloor},
		{"a large file: the limit follows the live heap", state{300 * mb, 200 * mb}, state{210 * mb, 210 * mb}, true, 315 * mb},
		{"a middling one: slack over the live heap", state{60 * mb, 44 * mb}, state{44 * mb, 44 * mb}, true, 68 * mb},
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
				read:  func() (uint64, uint64) { return cur.heap, cur.live },
				limit: func(l int64) int64 { limit = l; return 0 },
				done:  done.Done,
			}
			if c.wantGC {
				done.Add(1)
			}
			p.after()
			done.Wait()
			if (gcs == 1) != c.wantGC || gcs > 1 || limit != c.wantLimit {
				t.Fatalf("%d cycles, limit %d MB; want a cycle: %v, limit %d MB", gcs, limit/mb, c.wantGC, c.wantLimit/mb)
			}
			if limit != 0 && uint64(limit) < c.after.live {
				t.Fatalf("limit %d MB under the live heap %d MB", limit/mb, c.after.live/mb)
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
		read:  func() (uint64, uint64) { return 100 << 20, 10 << 20 },
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
