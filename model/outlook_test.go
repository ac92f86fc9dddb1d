package model

import (
	"strings"
	"testing"
)

// outlookState builds a running loop with n unresolved atoms.
func outlookState(unresolved, resolved int, c Control) *State {
	s := &State{Control: c, Objective: Objective{Constraints: Constraints{
		MaxIterations: 10, MaxParallelAgents: 3, MaxStallCount: 3,
		Lines: LinesOf(map[string]int{"max_iterations": 1, "max_parallel_agents": 1, "max_stall_count": 1})}}}
	for i := 0; i < unresolved; i++ {
		s.Atoms = append(s.Atoms, Atom{ID: "U" + itoaTest(i), Status: StatusPending})
	}
	for i := 0; i < resolved; i++ {
		s.Atoms = append(s.Atoms, Atom{ID: "R" + itoaTest(i), Status: StatusResolved})
	}
	return s
}

func itoaTest(i int) string { return string(rune('a' + i)) }

// TestOutlookFollowsTheStopHook walks the hook's rules in their order.
func TestOutlookFollowsTheStopHook(t *testing.T) {
	run := func(c Control) Control { c.Status = LoopRunning; return c }
	cases := []struct {
		name       string
		unres, res int
		c          Control
		decision   Decision
		text       string
		warn       bool
		stall      int
	}{
		{"completed", 0, 3, Control{Status: LoopCompleted}, DecisionDone, "completed: base_case satisfied", false, 0},
		{"stopped", 2, 1, Control{Status: LoopStopped, StopReason: "Max stall count reached"}, DecisionIdle, "stopped: Max stall count reached", false, 0},
		{"pending", 2, 0, Control{Status: LoopPending}, DecisionIdle, "not started", false, 0},
		{"redirect first", 2, 0, run(Control{RedirectRequested: true, StopRequested: true}), DecisionPause, "paused for redirect", false, 0},
		{"stop requested", 2, 0, run(Control{StopRequested: true}), DecisionStop, "stops: manual stop requested", true, 0},
		{"iteration limit", 2, 0, run(Control{Iteration: 10, PrevPendingCount: 5}), DecisionStop, "stops: max iterations reached (10/10)", true, 0},
		{"first iteration", 5, 0, run(Control{PrevPendingCount: -1}), DecisionContinue, "continues: first iteration, unresolved 5", false, 0},
		{"shrinking", 3, 2, run(Control{Iteration: 2, PrevPendingCount: 5, StallCount: 2}), DecisionContinue, "continues: unresolved 5 → 3", false, 0},
		{"stalled once", 5, 0, run(Control{Iteration: 2, PrevPendingCount: 5}), DecisionContinue, "continues, stall 1/3 after this iteration (unresolved 5, was 5)", true, 1},
		{"one more stalls", 5, 0, run(Control{Iteration: 2, PrevPendingCount: 5, StallCount: 1}), DecisionContinue, "stall 2/3 after this iteration; at 3/3 the loop stops", true, 2},
		{"expanding counts as stall", 6, 0, run(Control{Iteration: 2, PrevPendingCount: 5, StallCount: 2}), DecisionStop, "stops: no progress, stall 3/3 after this iteration", true, 3},
		{"empty graph", 0, 0, run(Control{Iteration: 2, PrevPendingCount: -1}), DecisionStop, "stops: no atoms in the work graph", true, 0},
		{"last iteration next", 3, 2, run(Control{Iteration: 9, PrevPendingCount: 5}), DecisionContinue, "the next iteration is the last (10/10)", true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := outlookState(c.unres, c.res, c.c)
			if !c.c.Lines.Has("prev_pending_count") && c.c.PrevPendingCount == 0 {
				s.Control.PrevPendingCount = -1
			}
			o := PredictOutlook(s, Derive(s))
			if o.Decision != c.decision || !strings.Contains(o.Text, c.text) || o.Warning != c.warn || o.NextStall != c.stall {
				t.Fatalf("got %+v, want %s %q warn=%v stall=%d", o, c.decision, c.text, c.warn, c.stall)
			}
		})
	}
}

func TestOutlookDefaultsWhenConstraintsAbsent(t *testing.T) {
	s := outlookState(2, 0, Control{Status: LoopRunning, Iteration: 20, PrevPendingCount: 2})
	s.Objective.Constraints = Constraints{}
	if o := PredictOutlook(s, Derive(s)); !strings.Contains(o.Text, "max iterations reached (20/20)") {
		t.Fatalf("the hook's default limit is 20: %+v", o)
	}
}

// deadlockState is the demo loop after session_strategy was forced from A4
// to A5 without moving A6 onto A5: A1–A3 and A5 resolved, A6 waiting on the
// unselected A4, A7 on A6. Nothing can run and nothing is in progress.
func deadlockState(c Control) *State {
	c.Status = LoopRunning
	s := &State{Control: c, Objective: Objective{Constraints: Constraints{
		MaxIterations: 12, MaxParallelAgents: 2, MaxStallCount: 3,
		Lines: LinesOf(map[string]int{"max_iterations": 1, "max_parallel_agents": 1, "max_stall_count": 1})}}}
	s.Atoms = []Atom{
		{ID: "A1", Status: StatusResolved},
		{ID: "A2", Status: StatusResolved, DependsOn: []string{"A1"}},
		{ID: "A3", Status: StatusResolved, DependsOn: []string{"A1"}},
		{ID: "A4", Status: StatusPending, DependsOn: []string{"A2"}, ORGroup: "session_strategy"},
		{ID: "A5", Status: StatusResolved, DependsOn: []string{"A2"}, ORGroup: "session_strategy"},
		{ID: "A6", Status: StatusPending, DependsOn: []string{"A3", "A4"}},
		{ID: "A7", Status: StatusPending, DependsOn: []string{"A6"}},
	}
	s.ORGroups = []ORGroup{{Name: "session_strategy", Choices: []string{"A4", "A5"}, Selected: "A5"}}
	return s
}

// TestOutlookDeadlock: when work is left but nothing can run and nothing
// is in progress, the hook still continues (and counts stalls as usual),
// but the outlook must not say the loop continues as if it would progress.
func TestOutlookDeadlock(t *testing.T) {
	cases := []struct {
		name  string
		c     Control
		edit  func(s *State)
		text  string
		stall int
	}{
		{"progress this iteration", Control{Iteration: 5, PrevPendingCount: 4}, nil,
			"stalls: nothing can run — A6 waits on A4, which OR group session_strategy does not select; unless corrected, the loop stops after 3 more iterations (stall 0/3 after this iteration)", 0},
		{"already stalled", Control{Iteration: 6, PrevPendingCount: 3, StallCount: 1}, nil,
			"stalls: nothing can run — A6 waits on A4, which OR group session_strategy does not select; unless corrected, the loop stops after one more iteration (stall 2/3 after this iteration)", 2},
		{"first iteration", Control{PrevPendingCount: -1}, nil,
			"unless corrected, the loop stops after 3 more iterations (stall 0/3 after this iteration)", 0},
		{"the iteration limit comes first", Control{Iteration: 11, PrevPendingCount: 4}, nil,
			"the loop stops after one more iteration (stall 0/3 after this iteration); the next iteration is the last (12/12)", 0},
		{"a failed choice", Control{Iteration: 5, PrevPendingCount: 4}, func(s *State) { s.ORGroups[0].Failed = []string{"A4"} },
			"A6 waits on A4, which OR group session_strategy does not select", 0},
		{"a group without selection", Control{Iteration: 5, PrevPendingCount: 5}, func(s *State) {
			s.ORGroups[0].Selected = ""
			s.Atoms[4].Status = StatusPending
			s.Atoms[3].DependsOn = []string{"A7"} // A4 is not expected to run: not followed
		}, "A6 waits on A4, which OR group session_strategy does not select", 0},
		{"found down the chain", Control{Iteration: 5, PrevPendingCount: 5}, func(s *State) {
			// A1 is the first pending atom: A1 → A7 → A6 → A4.
			s.Atoms[0].Status = StatusPending
			s.Atoms[0].DependsOn = []string{"A7"}
		}, "A6 waits on A4, which OR group session_strategy does not select", 0},
		{"a dependency cycle", Control{Iteration: 5, PrevPendingCount: 4}, func(s *State) { s.Atoms[5].DependsOn = []string{"A3", "A7"} },
			"A7 waits on A6, on a dependency cycle", 0},
		{"a missing atom", Control{Iteration: 5, PrevPendingCount: 4}, func(s *State) { s.Atoms[5].DependsOn = []string{"A3", "A9"} },
			"A6 waits on A9, which does not exist", 0},
		{"an unknown status", Control{Iteration: 5, PrevPendingCount: 4}, func(s *State) { s.Atoms[2].Status = "blocked" },
			`A6 waits on A3, whose status "blocked" the loop does not know`, 0},
		{"a decomposed parent", Control{Iteration: 5, PrevPendingCount: 4}, func(s *State) {
			s.Atoms[5].DependsOn = []string{"A3"}
			s.Decompositions = []Decomposition{{Parent: "A6", Children: []string{"A4", "A5"}}}
		}, "A6 waits on its child A4, which OR group session_strategy does not select", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := deadlockState(c.c)
			if c.edit != nil {
				c.edit(s)
			}
			f := Derive(s)
			if len(f.Executable) != 0 || f.Counts.InProgress != 0 {
				t.Fatalf("fixture: executable %v, %d in progress", f.Executable, f.Counts.InProgress)
			}
			o := PredictOutlook(s, f)
			if o.Decision != DecisionContinue || !o.Warning || o.NextStall != c.stall || !strings.Contains(o.Text, c.text) {
				t.Fatalf("got %+v, want continue, a warning, stall %d and a text containing %q", o, c.stall, c.text)
			}
			if strings.Contains(o.Text, "continues") {
				t.Fatalf("%q says the loop continues", o.Text)
			}
		})
	}
	// Not deadlocked: something is in progress, something can start, or
	// only unselected alternatives are left (the verifier completes it).
	for name, edit := range map[string]func(s *State){
		"in progress": func(s *State) { s.Atoms[5].Status = StatusInProgress },
		"executable":  func(s *State) { s.Atoms[5].DependsOn = []string{"A3", "A5"} },
		"only an alternative left": func(s *State) {
			s.Atoms[5].Status, s.Atoms[6].Status = StatusResolved, StatusResolved
		},
	} {
		s := deadlockState(Control{Iteration: 5, PrevPendingCount: 4})
		edit(s)
		if o := PredictOutlook(s, Derive(s)); strings.Contains(o.Text, "nothing can run") {
			t.Errorf("%s: %+v", name, o)
		}
	}
}
