package correction

import (
	"os"
	"testing"
	"time"
)

// Risky counts the corrections written less than RiskyTime ago (a loop
// write over them after quitting would go unseen), says when that time
// ends, and counts nothing once the guard has ended or the session is
// closed.
func TestRiskyCountsCorrectionsInTheLoopWindow(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	if r := s.Risky(time.Now()); r.N != 0 {
		t.Fatalf("%+v before any correction", r)
	}
	stale, _ := os.ReadFile(path)
	before := time.Now()
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	after := time.Now()
	r := s.Risky(after)
	if r.N != 1 || r.Written.Before(before) || r.Written.After(after) || !r.Until.Equal(r.Written.Add(s.RiskyTime)) {
		t.Fatalf("%+v just after the write (written between %v and %v, risky for %v)", r, before, after, s.RiskyTime)
	}
	if s.RiskyTime < loopWindow || s.RiskyTime < s.Grace {
		t.Fatalf("RiskyTime %v is shorter than the loop window or the grace", s.RiskyTime)
	}
	if late := s.Risky(r.Until); late.N != 0 {
		t.Fatalf("%+v once the risky time is over", late)
	}

	// A guard whose re-apply or merge is under way counts as written now.
	s.mu.Lock()
	s.guarded[0].busy++
	s.mu.Unlock()
	if busy := s.Risky(r.Until.Add(time.Hour)); busy.N != 1 {
		t.Fatalf("%+v while a re-apply is under way", busy)
	}
	s.mu.Lock()
	s.guarded[0].busy--
	s.mu.Unlock()

	// Written again after a stale loop write: risky again from then.
	staleWrite(t, path, stale, "W9")
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want a re-apply", len(jobs))
	}
	if g := run(t, jobs[0]).(GuardResult); !g.Reapplied {
		t.Fatalf("%+v", g)
	}
	if again := s.Risky(r.Until); again.N != 1 || !again.Written.After(r.Written) {
		t.Fatalf("%+v after the re-apply (first written %v)", again, r.Written)
	}

	// The guard ends with the loop stopping: nothing is risky.
	cur, _ := os.ReadFile(path)
	loopWrite(t, path, []byte(hookStop(string(cur))))
	s.Check(load(t, path))
	if r := s.Risky(time.Now()); r.N != 0 {
		t.Fatalf("%+v after the guard ended", r)
	}

	// A closed session checks nothing more, and says so.
	s2 := newSession(fixture(t, false))
	pr = run(t, s2.Preview(addRunbook, "")).(PreviewResult)
	run(t, s2.Apply(pr.Preview))
	s2.Close()
	if r := s2.Risky(time.Now()); r.N != 0 {
		t.Fatalf("%+v after Close", r)
	}
}
