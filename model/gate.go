package model

import (
	"fmt"
	"strings"
)

// GateReport is the /enter-recursion precondition check. Its JSON keys are
// those of the seed's check_gate.py; Problems adds validation detail.
type GateReport struct {
	Ready   bool     `json:"ready"`
	Missing []string `json:"missing"`
	Status  *string  `json:"status"`
	// Validation is the full validation report the gate includes.
	Validation Report `json:"validation"`
}

// Gate checks what /enter-recursion needs: goal, base_case,
// background_intent, deliverables and definition_of_done present and not
// empty, at least one atom, control.status pending or stopped, and no
// validation errors.
func Gate(s *State) GateReport {
	return GateWith(s, Validate(s))
}

// GateWith is Gate with the validation report already computed.
func GateWith(s *State, v Report) GateReport {
	g := GateReport{Missing: []string{}, Validation: v}
	o := s.Objective
	for _, f := range []struct {
		key, val string
	}{
		{"goal", o.Goal},
		{"base_case", ""},
		{"background_intent", o.BackgroundIntent},
		{"deliverables", o.Deliverables},
		{"definition_of_done", o.DefinitionOfDone},
	} {
		switch {
		case !o.Lines.Has(f.key):
			g.Missing = append(g.Missing, "objective."+f.key)
		case f.key == "base_case":
			if o.BaseCase.Empty() {
				g.Missing = append(g.Missing, "objective.base_case (empty)")
			}
		case strings.TrimSpace(f.val) == "":
			g.Missing = append(g.Missing, "objective."+f.key+" (empty)")
		}
	}
	if len(s.Atoms) == 0 {
		g.Missing = append(g.Missing, "atoms (must have at least 1)")
	}
	if s.Control.Lines.Has("status") {
		st := string(s.Control.Status)
		g.Status = &st
		if s.Control.Status != LoopPending && s.Control.Status != LoopStopped {
			g.Missing = append(g.Missing, fmt.Sprintf("control.status must be 'pending' or 'stopped', got '%s'", st))
		}
	} else {
		g.Missing = append(g.Missing, "control.status")
	}
	for _, e := range v.Errors {
		g.Missing = append(g.Missing, "invalid: "+e)
	}
	g.Ready = len(g.Missing) == 0
	return g
}
