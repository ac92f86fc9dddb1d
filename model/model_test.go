package model

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// state builds a running loop with the given atoms (id:status, deps after
// '<', comma-separated) and control values.
func state(prev, stall, iter int, atoms ...string) *State {
	s := &State{
		Objective: Objective{Constraints: Constraints{MaxIterations: 10, MaxParallelAgents: 2, MaxStallCount: 3,
			Lines: LinesOf(map[string]int{"max_iterations": 1, "max_parallel_agents": 1, "max_stall_count": 1})}},
		Control: Control{Status: LoopRunning, PrevPendingCount: prev, StallCount: stall, Iteration: iter},
	}
	for _, a := range atoms {
		idst, deps, _ := strings.Cut(a, "<")
		id, st, _ := strings.Cut(idst, ":")
		at := Atom{ID: id, Status: AtomStatus(st), DependsOn: []string{}}
		if deps != "" {
			at.DependsOn = strings.Split(deps, ",")
		}
		s.Atoms = append(s.Atoms, at)
	}
	return s
}

func TestProgressClasses(t *testing.T) {
	atoms := []string{"A1:resolved", "A2:pending<A1", "A3:in_progress<A1"} // unresolved 2
	for prev, want := range map[int]Progress{-1: ProgressFirst, 3: ProgressShrinking, 2: ProgressStalled, 1: ProgressExpanding, 0: ProgressExpanding} {
		if got := Derive(state(prev, 0, 1, atoms...)).Progress; got != want {
			t.Errorf("prev_pending_count %d: %s, want %s", prev, got, want)
		}
	}
}

func TestNextBatchHonoursMaxParallelAgents(t *testing.T) {
	s := state(-1, 0, 0, "A1:pending", "A2:pending", "A3:pending")
	f := Derive(s)
	if !reflect.DeepEqual(f.Executable, []string{"A1", "A2", "A3"}) || !reflect.DeepEqual(f.NextBatch, []string{"A1", "A2"}) {
		t.Errorf("Executable %v, NextBatch %v", f.Executable, f.NextBatch)
	}
	s.Objective.Constraints = Constraints{} // absent: the default of 3
	if f := Derive(s); len(f.NextBatch) != DefaultMaxParallelAgents {
		t.Errorf("NextBatch with no constraint = %v", f.NextBatch)
	}
}

func TestLongestChainSkipsResolvedAndCycles(t *testing.T) {
	s := state(-1, 0, 0, "A1:resolved", "A2:pending<A1", "A3:pending<A2", "A4:in_progress<A3,A1", "C1:pending<C2", "C2:pending<C1", "C3:pending<C1")
	if got := Derive(s).LongestChain; !reflect.DeepEqual(got, []string{"A2", "A3", "A4"}) {
		t.Errorf("LongestChain = %v", got)
	}
	if got := Derive(state(-1, 0, 0, "A1:resolved")).LongestChain; got != nil {
		t.Errorf("nothing unresolved: %v", got)
	}
}

func TestPredictOutlook(t *testing.T) {
	tests := []struct {
		name    string
		s       *State
		edit    func(*State)
		want    Decision
		text    string
		warning bool
		next    int
	}{
		{"completed", state(1, 0, 5, "A1:resolved"), func(s *State) { s.Control.Status = LoopCompleted }, DecisionDone, "completed", false, 0},
		{"stopped with a reason", state(1, 0, 5), func(s *State) { s.Control.Status = LoopStopped; s.Control.StopReason = "user" }, DecisionIdle, "stopped: user", false, 0},
		{"stopped without one", state(1, 0, 5), func(s *State) { s.Control.Status = LoopStopped }, DecisionIdle, "no reason recorded", false, 0},
		{"pending", state(-1, 0, 0, "A1:pending"), func(s *State) { s.Control.Status = LoopPending }, DecisionIdle, "not started", false, 0},
		{"unknown status", state(1, 0, 5), func(s *State) { s.Control.Status = "paused" }, DecisionIdle, `status "paused"`, true, 0},
		{"redirect", state(1, 0, 5, "A1:pending"), func(s *State) { s.Control.RedirectRequested = true }, DecisionPause, "paused for redirect", false, 0},
		{"stop requested", state(1, 0, 5, "A1:pending"), func(s *State) { s.Control.StopRequested = true }, DecisionStop, "manual stop", true, 0},
		{"iteration limit", state(1, 0, 10, "A1:pending"), nil, DecisionStop, "max iterations reached (10/10)", true, 0},
		{"first iteration", state(-1, 0, 0, "A1:pending"), nil, DecisionContinue, "first iteration, unresolved 1", false, 0},
		{"shrinking", state(3, 2, 4, "A1:pending", "A2:resolved"), nil, DecisionContinue, "unresolved 3 → 1", false, 0},
		{"stalled once", state(1, 0, 4, "A1:pending"), nil, DecisionContinue, "continues, stall 1/3 after this iteration (unresolved 1, was 1)", true, 1},
		{"one more stall stops", state(1, 1, 4, "A1:pending"), nil, DecisionContinue, "stall 2/3 after this iteration; at 3/3 the loop stops", true, 2},
		{"stall limit", state(1, 2, 4, "A1:pending"), nil, DecisionStop, "no progress, stall 3/3 after this iteration", true, 3},
		{"expanding counts as a stall", state(0, 2, 4, "A1:pending"), nil, DecisionStop, "stall 3/3 after this iteration (unresolved 1, was 0)", true, 3},
		{"empty graph", state(-1, 0, 0), nil, DecisionStop, "no atoms", true, 0},
		{"last iteration next", state(3, 0, 9, "A1:pending"), nil, DecisionContinue, "the next iteration is the last (10/10)", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit != nil {
				tt.edit(tt.s)
			}
			o := PredictOutlook(tt.s, Derive(tt.s))
			if o.Decision != tt.want || !strings.Contains(o.Text, tt.text) || o.Warning != tt.warning || o.NextStall != tt.next {
				t.Errorf("got %+v; want %s, text containing %q, warning %v, next stall %d", o, tt.want, tt.text, tt.warning, tt.next)
			}
		})
	}
}

func gateState() *State {
	s := state(-1, 0, 0, "A1:pending")
	s.Control.Status = LoopPending
	s.Control.Lines = LinesOf(map[string]int{"status": 3})
	s.Objective.Goal, s.Objective.BackgroundIntent, s.Objective.Deliverables, s.Objective.DefinitionOfDone = "g", "b", "d", "done"
	s.Objective.BaseCase = BaseCase{Legacy: &Check{Type: CheckCommand, Value: "make"}}
	s.Objective.Lines = LinesOf(map[string]int{"goal": 1, "base_case": 1, "background_intent": 1, "deliverables": 1, "definition_of_done": 1})
	return s
}

// TestGate checks each precondition of check_gate.py and ours, alone.
func TestGate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*State)
		miss []string
	}{
		{"ready", func(*State) {}, nil},
		{"stopped is ready too", func(s *State) { s.Control.Status = LoopStopped }, nil},
		{"goal missing", func(s *State) { s.Objective.Lines = s.Objective.Lines.Without("goal") }, []string{"objective.goal"}},
		{"goal blank", func(s *State) { s.Objective.Goal = "  " }, []string{"objective.goal (empty)"}},
		{"base_case missing", func(s *State) { s.Objective.Lines = s.Objective.Lines.Without("base_case") }, []string{"objective.base_case"}},
		{"base_case empty", func(s *State) { s.Objective.BaseCase = BaseCase{IsChecklist: true} }, []string{"objective.base_case (empty)"}},
		{"background_intent empty", func(s *State) { s.Objective.BackgroundIntent = "" }, []string{"objective.background_intent (empty)"}},
		{"deliverables missing", func(s *State) { s.Objective.Lines = s.Objective.Lines.Without("deliverables") }, []string{"objective.deliverables"}},
		{"definition_of_done empty", func(s *State) { s.Objective.DefinitionOfDone = "" }, []string{"objective.definition_of_done (empty)"}},
		{"no atoms", func(s *State) { s.Atoms = nil }, []string{"atoms (must have at least 1)"}},
		{"running", func(s *State) { s.Control.Status = LoopRunning }, []string{"control.status must be 'pending' or 'stopped', got 'running'"}},
		{"status missing", func(s *State) { s.Control.Lines = Lines{} }, []string{"control.status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := gateState()
			tt.edit(s)
			// Validation errors are part of the gate; the synthetic state
			// has none of the kinds that matter here, so use an empty report.
			g := GateWith(s, Report{})
			if !slices.Equal(g.Missing, tt.miss) && !(len(g.Missing) == 0 && tt.miss == nil) {
				t.Errorf("missing = %q, want %q", g.Missing, tt.miss)
			}
			if g.Ready != (len(tt.miss) == 0) {
				t.Errorf("ready = %v", g.Ready)
			}
		})
	}
	g := GateWith(gateState(), Report{Errors: []string{"line 9: circular dependency: A1 -> A1"}})
	if g.Ready || !slices.Equal(g.Missing, []string{"invalid: line 9: circular dependency: A1 -> A1"}) {
		t.Errorf("a validation error must block the gate: %+v", g)
	}
}

func TestReportInvariants(t *testing.T) {
	r := Validate(&State{})
	if r.Valid || r.Errors == nil || r.Warnings == nil || r.Problems == nil {
		t.Errorf("an empty state: %+v (errors, warnings and problems are never null in JSON)", r)
	}
	pl := ValidatePhaseLoop(&PhaseLoop{})
	if pl.Valid || len(pl.Errors) != 4 {
		t.Errorf("an empty phase loop: %+v", pl)
	}
}
