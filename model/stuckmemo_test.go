package model_test

import (
	"slices"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// TestStuckMemoFollowsWhatItReads takes one small loop through the writes
// that keep the work graph's shape but change what the Validator's memo
// of the stuck atoms rests on: an OR group that selects another choice,
// a status the loop does not know, and back. Each outlook must be
// PredictOutlook's, and the memo must hold where it may.
func TestStuckMemoFollowsWhatItReads(t *testing.T) {
	s := &model.State{
		Control:   model.Control{Status: model.LoopRunning, Iteration: 1, PrevPendingCount: -1},
		Objective: model.Objective{Constraints: model.Constraints{MaxIterations: 100, MaxStallCount: 3}},
		Atoms: []model.Atom{
			{ID: "A", Status: model.StatusPending, ORGroup: "g"},
			{ID: "B", Status: model.StatusPending, ORGroup: "g"},
			{ID: "C", Status: model.StatusPending, DependsOn: []string{"A"}},
			{ID: "D", Status: model.StatusInProgress},
		},
		ORGroups: []model.ORGroup{{Name: "g", Choices: []string{"A", "B"}, Selected: "A"}},
	}
	type step struct {
		what   string
		change func(*model.State)
		stuck  bool // whether some atom is stuck after it
		clear  bool // whether the memo holds that none can be while every status is known
	}
	steps := []step{
		{"the first version", func(*model.State) {}, false, true},
		{"A under way", func(s *model.State) { s.Atoms[0].Status = model.StatusInProgress }, false, true},
		// C waits on A, now a choice not selected: it can finish only
		// while A is under way or resolved.
		{"the group selects B", func(s *model.State) { s.ORGroups[0].Selected = "B" }, false, false},
		{"A pending again", func(s *model.State) { s.Atoms[0].Status = model.StatusPending }, true, false},
		{"the group selects A again", func(s *model.State) { s.ORGroups[0].Selected = "A" }, false, true},
		{"A's status unknown to the loop", func(s *model.State) { s.Atoms[0].Status = "blocked" }, true, true},
		{"A resolved", func(s *model.State) { s.Atoms[0].Status = model.StatusResolved }, false, true},
	}
	var d model.Deriver
	var vr model.Validator
	for _, st := range steps {
		c := *s
		c.Atoms, c.ORGroups = slices.Clone(s.Atoms), slices.Clone(s.ORGroups)
		st.change(&c)
		s = &c
		f := d.Derive(s)
		got, want := vr.PredictOutlook(s, f), model.PredictOutlook(s, f)
		if got != want {
			t.Fatalf("%s: Validator's outlook\n%+v\nwant\n%+v", st.what, got, want)
		}
		if stuck := model.StuckAtoms(s, f); (len(stuck.IDs) > 0) != st.stuck {
			t.Fatalf("%s: stuck %+v", st.what, stuck)
		}
		if vr.StuckClear() != st.clear {
			t.Fatalf("%s: the memo holds that no atom can be stuck: %v", st.what, vr.StuckClear())
		}
	}
}
