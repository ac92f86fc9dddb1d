package correction

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

// add-atom --required-by A2: A2 (pending) now depends on the new A9.
var requiredByA2 = model.AddAtom{Description: "Payment sandbox", RequiredBy: []string{"A2"}}

const a2Defeated = "A2 came back resolved while A9, which it depends on, is pending"

// A loop write on our version (the entry is carried) that resolves an atom
// the correction made depend on new work undoes what the correction
// meant: the guard reports it like a lost correction, once.
func TestGuardReportsADefeatedIntent(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(requiredByA2, "")).(PreviewResult)
	if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
		t.Fatal(ar.Err)
	}
	// The coordinator read A2 as executable before the correction and
	// runs update_atom.py A2 resolved now, on our version.
	cur, _ := os.ReadFile(path)
	theirs, r := loopSetsAtom(t, s, path, cur, "A2", "resolved")
	var lost *LostError
	if !errors.As(r.Err, &lost) || !lost.Defeated || !errors.Is(r.Err, ErrLost) || !strings.Contains(r.Err.Error(), a2Defeated) {
		t.Fatalf("%+v: want it reported lost, naming A2 and why", r)
	}
	if !strings.HasPrefix(r.Err.Error(), "lost: added A9 — the loop's next write undid it: ") {
		t.Fatalf("%q", r.Err)
	}
	if now, _ := os.ReadFile(path); string(now) != theirs {
		t.Fatal("the guard wrote")
	}
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("reported more than once")
	}
}

func TestRunReportsADefeatedIntent(t *testing.T) {
	path := fixture(t, false)
	go func() {
		for {
			cur := must(os.ReadFile(path))
			if bytes.Contains(cur, []byte("Payment sandbox")) {
				theirs, _ := updateAtom(string(cur), "A2", "resolved")
				loopWrite(t, path, []byte(theirs))
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := Run(path, requiredByA2, RunOptions{Options: Options{Now: func() time.Time { return testNow }}, Guard: 500 * time.Millisecond})
	var lost *LostError
	if !errors.As(err, &lost) || !lost.Defeated || !strings.Contains(err.Error(), a2Defeated) {
		t.Fatalf("err %v; want the defeated correction reported lost", err)
	}
}

// staleWrite is a loop script that read the file before the correction
// and writes after it (with a change of its own).
func staleWrite(t *testing.T, path string, stale []byte, binding string) {
	t.Helper()
	loopWrite(t, path, withBinding(stale, binding))
}

// A guard in the TUI does not live for ever: it ends once the loop's
// iteration has moved on past every agent that could have read the file
// before the write, once the loop stops or completes, or after GuardLife.
// A loop write from before the correction after that is not undone again.
func TestGuardLifeIsBounded(t *testing.T) {
	cases := []struct {
		name string
		// age runs the loop on; the file carries the correction.
		age func(t *testing.T, s *Session, path string)
	}{
		{"iterations", func(t *testing.T, s *Session, path string) {
			// rich.md: iteration 7, max_parallel_agents 2: the guard ends
			// at iteration 7 + 2 + 2.
			for range 4 {
				cur, _ := os.ReadFile(path)
				loopWrite(t, path, []byte(hookContinue(string(cur))))
				if jobs := s.Check(load(t, path)); len(jobs) != 0 {
					t.Fatal("the guard acts on a file that carries the correction")
				}
			}
		}},
		{"loop stopped", func(t *testing.T, s *Session, path string) {
			cur, _ := os.ReadFile(path)
			loopWrite(t, path, []byte(hookStop(string(cur))))
			s.Check(load(t, path))
		}},
		{"time", func(t *testing.T, s *Session, path string) {
			time.Sleep(s.GuardLife + 10*time.Millisecond)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, false)
			s := newSession(path)
			s.GuardLife = 50 * time.Millisecond
			if c.name != "time" {
				s.GuardLife = time.Hour
			}
			stale, _ := os.ReadFile(path)
			pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
			run(t, s.Apply(pr.Preview))
			c.age(t, s, path)
			staleWrite(t, path, stale, "W9")
			if jobs := s.Check(load(t, path)); len(jobs) != 0 {
				t.Fatalf("%d jobs: the guard outlived its life", len(jobs))
			}
		})
	}
	// Within its life it still re-applies: three iterations on.
	path := fixture(t, false)
	s := newSession(path)
	stale, _ := os.ReadFile(path)
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	for range 3 {
		cur, _ := os.ReadFile(path)
		loopWrite(t, path, []byte(hookContinue(string(cur))))
		s.Check(load(t, path))
	}
	staleWrite(t, path, []byte(hookContinue(hookContinue(hookContinue(string(stale))))), "W9")
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want a re-apply within the guard's life", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
		t.Fatalf("%+v", r)
	}
}
