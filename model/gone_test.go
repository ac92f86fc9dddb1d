package model_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

func TestGoneInProgress(t *testing.T) {
	prev := parse(t, baseState).State // A2 in progress
	without := func(id string, iteration string) *model.State {
		t.Helper()
		start := strings.Index(baseState, "  - id: "+id+"\n")
		end := start + strings.Index(baseState[start:], "\n\n") + 2
		text := baseState[:start] + baseState[end:]
		text = strings.Replace(text, "iteration: 6", "iteration: "+iteration, 1)
		return parse(t, text).State
	}
	cur := without("A2", "6")
	want := []model.Gone{{ID: "A2", Description: "Client", Iteration: 6}}
	if got := model.GoneInProgress(prev, cur); !reflect.DeepEqual(got, want) {
		t.Fatalf("gone %+v, want %+v", got, want)
	}
	// Gone pending or resolved atoms are not a worker's: not reported.
	if got := model.GoneInProgress(prev, without("A4", "6")); len(got) != 0 {
		t.Fatalf("a pending atom deleted: %+v", got)
	}
	if got := model.GoneInProgress(nil, cur); got != nil {
		t.Fatalf("no version before: %+v", got)
	}

	// KeepGone: the note stays through the iteration's later writes,
	// goes when the atom is back or the iteration moves on.
	gone := model.KeepGone(nil, prev, cur)
	later := without("A2", "6")
	later.Control.StallCount = 1
	if got := model.KeepGone(gone, cur, later); !reflect.DeepEqual(got, want) {
		t.Fatalf("a later write of the iteration: %+v", got)
	}
	if got := model.KeepGone(gone, cur, prev); len(got) != 0 {
		t.Fatalf("A2 is back: %+v", got)
	}
	if got := model.KeepGone(gone, cur, without("A2", "7")); len(got) != 0 {
		t.Fatalf("the next iteration: %+v", got)
	}
	// Noted once, however often the pair is seen.
	if got := model.KeepGone(gone, prev, cur); len(got) != 1 {
		t.Fatalf("noted twice: %+v", got)
	}
}

func TestWithGone(t *testing.T) {
	o := model.Outlook{Decision: model.DecisionContinue, Text: "continues: unresolved 6 → 5"}
	if got := model.WithGone(o, nil); got != o {
		t.Fatalf("no gone atoms changed the outlook: %+v", got)
	}
	got := model.WithGone(o, []model.Gone{{ID: "A9"}})
	want := "A9 was in progress and is gone: the worker's update_atom.py A9 … will fail 'Atom A9 not found'; continues: unresolved 6 → 5"
	if got.Text != want || !got.Warning || got.Decision != model.DecisionContinue {
		t.Fatalf("outlook %+v, want text %q, a warning, the same decision", got, want)
	}
	if got := model.GoneText([]model.Gone{{ID: "A9"}, {ID: "A10"}}); got != "A9, A10 were in progress and are gone: their workers' update_atom.py calls will fail 'Atom … not found'" {
		t.Fatalf("two: %q", got)
	}
}

// A plan that touches no in-progress atom lists none (an empty list, for
// --json), and its entry says nothing of workers.
func TestPlanWithoutInterrupts(t *testing.T) {
	doc := parse(t, baseState)
	p := planOK(t, doc, model.AddAtom{Description: "x", DependsOn: []string{"A2"}}, ctx)
	if p.Interrupts == nil || len(p.Interrupts) != 0 || strings.Contains(p.Correction.Description, "interrupt") {
		t.Fatalf("interrupts %#v, description %q", p.Interrupts, p.Correction.Description)
	}
}

// TestGoneMatchesReference checks GoneInProgress and KeepGone, which look
// the few ids in question up in one pass over the atoms, against the
// versions that put every id of the later state in a set, on random pairs
// of states: ids repeated, several atoms in progress, atoms deleted, the
// iteration moved on or not, the loop running or not.
func TestGoneMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 3000; k++ {
		prev := randomState(r)
		for i := range prev.Atoms {
			if r.IntN(3) == 0 {
				prev.Atoms[i].Status = model.StatusInProgress
			}
		}
		cur := *prev
		cur.Atoms = nil
		for _, a := range prev.Atoms {
			if r.IntN(4) != 0 {
				cur.Atoms = append(cur.Atoms, a)
			}
		}
		cur.Control.Status = []model.LoopStatus{model.LoopRunning, model.LoopRunning, model.LoopStopped}[r.IntN(3)]
		if r.IntN(4) == 0 {
			cur.Control.Iteration++
		}
		if got, want := model.GoneInProgress(prev, &cur), goneInProgressRef(prev, &cur); !reflect.DeepEqual(got, want) {
			t.Fatalf("pair %d: GoneInProgress %+v, want %+v", k, got, want)
		}
		gone := goneInProgressRef(prev, &cur)
		if r.IntN(2) == 0 {
			gone = append(gone, model.Gone{ID: "A1", Iteration: cur.Control.Iteration}, model.Gone{ID: "Z9", Iteration: cur.Control.Iteration - 1})
		}
		if len(cur.Atoms) > 0 && r.IntN(2) == 0 {
			// An id noted twice, which cur has (back again).
			id := cur.Atoms[r.IntN(len(cur.Atoms))].ID
			gone = append(gone, model.Gone{ID: id, Iteration: cur.Control.Iteration}, model.Gone{ID: id, Iteration: cur.Control.Iteration})
		}
		if got, want := model.KeepGone(gone, prev, &cur), keepGoneRef(gone, prev, &cur); !reflect.DeepEqual(got, want) {
			t.Fatalf("pair %d: KeepGone %+v, want %+v", k, got, want)
		}
	}
}

// goneInProgressRef and keepGoneRef are GoneInProgress and KeepGone as
// they were, with a set of the later state's ids.
func goneInProgressRef(prev, cur *model.State) []model.Gone {
	var out []model.Gone
	have := map[string]bool{}
	for _, c := range cur.Atoms {
		have[c.ID] = true
	}
	seen := map[string]bool{}
	for _, a := range prev.Atoms {
		if a.Status != model.StatusInProgress || seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if !have[a.ID] {
			out = append(out, model.Gone{ID: a.ID, Description: a.Description, Iteration: cur.Control.Iteration})
		}
	}
	return out
}

func keepGoneRef(gone []model.Gone, prev, cur *model.State) []model.Gone {
	if cur.Control.Status != model.LoopRunning {
		return nil
	}
	have := map[string]bool{}
	for _, a := range cur.Atoms {
		have[a.ID] = true
	}
	var out []model.Gone
	for _, g := range gone {
		if g.Iteration == cur.Control.Iteration && !have[g.ID] {
			out = append(out, g)
		}
	}
	if prev.Control.Iteration != cur.Control.Iteration {
		return out
	}
	for _, g := range goneInProgressRef(prev, cur) {
		dup := false
		for _, o := range out {
			dup = dup || o.ID == g.ID
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}
