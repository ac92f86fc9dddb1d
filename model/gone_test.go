package model_test

import (
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
