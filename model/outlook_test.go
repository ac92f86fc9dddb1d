package model

import (
	"strings"
	"testing"
)

// outlookState builds a running loop with n unresolved atoms.
func outlookState(unresolved, resolved int, c Control) *State {
	s := &State{Control: c, Objective: Objective{Constraints: Constraints{
		MaxIterations: 10, MaxParallelAgents: 3, MaxStallCount: 3,
		Lines: Lines{"max_iterations": 1, "max_parallel_agents": 1, "max_stall_count": 1}}}}
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
		{"stalled once", 5, 0, run(Control{Iteration: 2, PrevPendingCount: 5}), DecisionContinue, "continues, stalled: unresolved 5, was 5 (stall 1/3)", true, 1},
		{"one more stalls", 5, 0, run(Control{Iteration: 2, PrevPendingCount: 5, StallCount: 1}), DecisionContinue, "one more stalled iteration stops the loop (stall 2/3)", true, 2},
		{"expanding counts as stall", 6, 0, run(Control{Iteration: 2, PrevPendingCount: 5, StallCount: 2}), DecisionStop, "stops: no progress, stall 3/3", true, 3},
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
