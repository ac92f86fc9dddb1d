package model

import (
	"strings"
	"testing"
)

// Adding work to a loop that has ended warns that nothing will run it.
func TestAddingToAnEndedLoopWarns(t *testing.T) {
	for _, st := range []LoopStatus{LoopStopped, LoopCompleted, LoopRunning} {
		s := &State{Atoms: []Atom{{ID: "A1", Description: "x", Status: StatusPending}}}
		s.Control.Status = st
		p, err := PlanCorrection(s, AddAtom{Description: "more"}, PlanContext{})
		if err != nil {
			t.Fatal(err)
		}
		warned := len(p.Warnings) == 1 && strings.Contains(p.Warnings[0], "it will not run A2 until /enter-recursion starts it again")
		if warned != (st != LoopRunning) {
			t.Errorf("%s: warnings %q", st, p.Warnings)
		}
	}
}
