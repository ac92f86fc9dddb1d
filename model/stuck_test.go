package model

import (
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestOutlookCannotFinish: a running loop with work that can never run
// (a cycle, a missing dependency) while other work still can: the hook
// continues, but the outlook says the loop cannot finish and why, never
// that it continues.
func TestOutlookCannotFinish(t *testing.T) {
	cases := []struct {
		name  string
		atoms []string
		says  string
		stuck []string
	}{
		{"a cycle", []string{"A1:resolved", "A2:pending<A1", "A3:pending<A1,A4", "A4:pending<A3", "A5:pending<A3"},
			"cannot finish: A4 waits on A3, on a dependency cycle (3 atoms can never run)", []string{"A3", "A4", "A5"}},
		{"an atom on itself", []string{"A1:resolved", "A2:pending<A1", "A3:pending<A3"},
			"cannot finish: A3 waits on A3, on a dependency cycle (1 atom can never run)", []string{"A3"}},
		{"a missing dependency", []string{"A1:resolved", "A2:pending<A1", "A6:pending<A1,A42", "A7:pending<A6"},
			"cannot finish: A6 waits on A42, which does not exist (2 atoms can never run)", []string{"A6", "A7"}},
		{"found down the chain", []string{"A1:pending<A2", "A2:in_progress", "A3:pending<A4", "A4:pending<A9"},
			"cannot finish: A4 waits on A9, which does not exist", []string{"A3", "A4"}},
		{"an unknown status", []string{"A1:resolved", "A2:pending<A1", "A3:blocked", "A4:pending<A3"},
			`cannot finish: A4 waits on A3, whose status "blocked" the loop does not know (1 atom can never run)`, []string{"A4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := state(6, 0, 3, c.atoms...)
			f := Derive(s)
			if len(f.Executable)+f.Counts.InProgress == 0 {
				t.Fatal("fixture: nothing can run (that is the deadlock case)")
			}
			o := PredictOutlook(s, f)
			if o.Decision != DecisionContinue || !o.Warning || !strings.HasPrefix(o.Text, c.says) {
				t.Fatalf("outlook %+v\nwant continue, a warning, and a text starting %q", o, c.says)
			}
			if strings.Contains(o.Text, "continues") {
				t.Fatalf("%q says the loop continues", o.Text)
			}
			if got := StuckAtoms(s, f).IDs; !reflect.DeepEqual(got, c.stuck) {
				t.Fatalf("stuck %v, want %v", got, c.stuck)
			}
		})
	}

	// Where the stop hook reads the file otherwise and still continues
	// (its own cause follows), the outlook does not say so either.
	s := state(4, 1, 4, "A1:pending", "A2:resolved", "A3:pending<A4", "A4:pending<A3")
	readAsHook(s)
	s.LoopRead.Hook.Values[HookPrevPendingCount].Text = "2  # previous"
	o := PredictOutlook(s, Derive(s))
	want := "cannot finish: A4 waits on A3, on a dependency cycle (2 atoms can never run); the rest runs, then the loop stalls — correct the graph; the stop hook goes on, stall 2/3 after this iteration — the stop hook reads control.prev_pending_count as '2  # …'"
	if o.Decision != DecisionContinue || !o.Warning || !strings.HasPrefix(o.Text, want) {
		t.Fatalf("outlook %+v\nwant a text starting %q", o, want)
	}
}

// TestOutlookCanFinish: what only looks like a dead end is not one: an
// atom in progress on a cycle (its worker resolves it), a resolved atom
// that names a missing one, alternatives an OR group does not select.
func TestOutlookCanFinish(t *testing.T) {
	for name, atoms := range map[string][]string{
		"in progress breaks a cycle": {"A1:in_progress<A2", "A2:pending<A1"},
		"resolved on a missing atom": {"A1:resolved<A9", "A2:pending<A1"},
		"shrinking":                  {"A1:resolved", "A2:pending<A1"},
	} {
		s := state(6, 0, 3, atoms...)
		f := Derive(s)
		if st := StuckAtoms(s, f); len(st.IDs) != 0 {
			t.Errorf("%s: stuck %+v", name, st)
		}
		if o := PredictOutlook(s, f); strings.Contains(o.Text, "cannot finish") {
			t.Errorf("%s: %+v", name, o)
		}
	}
	s := state(6, 0, 3, "A1:resolved", "A2:pending<A1", "A3:pending<A1,A4")
	s.Atoms[1].ORGroup, s.Atoms[2].ORGroup = "g", "g"
	s.ORGroups = []ORGroup{{Name: "g", Choices: []string{"A2", "A3"}, Selected: "A2"}}
	if st := StuckAtoms(s, Derive(s)); len(st.IDs) != 0 {
		t.Errorf("an unselected alternative is not stuck work: %+v", st)
	}
	s.Atoms = append(s.Atoms, Atom{ID: "A5", Status: StatusPending, DependsOn: []string{"A3"}})
	if st := StuckAtoms(s, Derive(s)); !reflect.DeepEqual(st.IDs, []string{"A5"}) || st.Cause != "A5 waits on A3, which OR group g does not select" {
		t.Errorf("what waits on an unselected alternative is stuck: %+v", st)
	}
}

// TestStuckAtomsAreWhatNeverRuns compares StuckAtoms with running the
// loop: on random graphs (cycles, missing ids, unknown statuses, OR
// groups, decompositions), every worker finishes and every executable
// atom is run and resolved, until nothing more can run; the outstanding
// atoms left are exactly the stuck ones.
func TestStuckAtomsAreWhatNeverRuns(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	statuses := []AtomStatus{StatusPending, StatusPending, StatusPending, StatusInProgress, StatusResolved, "blocked"}
	for round := 0; round < 2000; round++ {
		n := 1 + r.Intn(9)
		s := state(-1, 0, 1)
		id := func(k int) string { return "A" + strconv.Itoa(k) }
		for i := 0; i < n; i++ {
			a := Atom{ID: id(i), Status: statuses[r.Intn(len(statuses))], DependsOn: []string{}}
			if r.Intn(12) == 0 {
				a.ID = id(r.Intn(n)) // a duplicate id, now and then
			}
			for k := r.Intn(3); k > 0; k-- {
				a.DependsOn = append(a.DependsOn, id(r.Intn(n+1))) // A<n> does not exist
			}
			s.Atoms = append(s.Atoms, a)
		}
		if r.Intn(2) == 0 {
			g := ORGroup{Name: "g", Choices: []string{id(r.Intn(n)), id(r.Intn(n))}}
			if r.Intn(4) > 0 {
				g.Selected = g.Choices[r.Intn(2)]
			}
			s.ORGroups = []ORGroup{g}
		}
		if r.Intn(2) == 0 {
			s.Decompositions = []Decomposition{{Parent: id(r.Intn(n)), Children: []string{id(r.Intn(n + 1)), id(r.Intn(n))}}}
		}
		f := Derive(s)
		got := StuckAtoms(s, f)

		run := cloneAtoms(s)
		for i := range run.Atoms {
			if run.Atoms[i].Status == StatusInProgress {
				run.Atoms[i].Status = StatusResolved
			}
		}
		for {
			rf := Derive(run)
			if len(rf.Executable) == 0 {
				break
			}
			for _, x := range rf.Executable {
				run.Atoms[rf.Index[x]].Status = StatusResolved
			}
		}
		var want []string
		for i, a := range s.Atoms {
			if f.Index[a.ID] != i || !a.Status.Unresolved() || run.Atoms[i].Status == StatusResolved {
				continue
			}
			if g, ok := f.ORGroupOf[a.ID]; ok && s.ORGroups[0].Name == g && s.ORGroups[0].Selected != a.ID {
				continue // an alternative not selected: not expected to run
			}
			want = append(want, a.ID)
		}
		if !reflect.DeepEqual(got.IDs, want) {
			t.Fatalf("round %d: stuck %v, running the loop leaves %v\natoms %+v\nor %+v\ndecompositions %+v", round, got.IDs, want, s.Atoms, s.ORGroups, s.Decompositions)
		}
		if (len(want) > 0) != (got.Cause != "") {
			t.Fatalf("round %d: cause %q for %v", round, got.Cause, want)
		}
	}
}

// cloneAtoms is s with its own copy of the atoms.
func cloneAtoms(s *State) *State {
	c := *s
	c.Atoms = append([]Atom(nil), s.Atoms...)
	return &c
}

// BenchmarkStuckAtoms10k finds the stuck atoms of 10,000 atoms, a third
// resolved, each depending on up to three recent ones, one of them on an
// atom that does not exist: what the outlook adds to each loop write.
func BenchmarkStuckAtoms10k(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	s := state(-1, 0, 1)
	for i := 0; i < 10000; i++ {
		a := Atom{ID: "A" + strconv.Itoa(i), Status: StatusPending}
		if i < 3333 {
			a.Status = StatusResolved
		}
		for k := r.Intn(4); k > 0 && i > 0; k-- {
			a.DependsOn = append(a.DependsOn, "A"+strconv.Itoa(max(0, i-1-r.Intn(16))))
		}
		s.Atoms = append(s.Atoms, a)
	}
	s.Atoms[5000].DependsOn = append(s.Atoms[5000].DependsOn, "A99999")
	f := Derive(s)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st := StuckAtoms(s, f); len(st.IDs) == 0 {
			b.Fatal("nothing stuck")
		}
	}
}
