package model_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// TestValidateEdgesOfItsPass checks Validate, which reads the atoms in
// one pass that resolves each dependency against the atoms before it and
// looks the others up after the pass, against the reference validator on
// the states where that pass could go wrong: no atoms, an atom that
// depends on itself, on an id no atom has, on an atom further down, on a
// repeated id, an OR group whose choices are not atoms, groups of one
// name, an atom without an id, long dependency lists with repeats. Each
// state must also give the finding it was made for.
func TestValidateEdgesOfItsPass(t *testing.T) {
	lines := func(line int) model.Lines {
		return model.LinesOf(map[string]int{"id": line, "description": line + 1, "status": line + 2, "depends_on": line + 3, "or_group": line + 4})
	}
	atom := func(k int, id string, status model.AtomStatus, deps ...string) model.Atom {
		line := 20 + 6*k
		return model.Atom{ID: id, Status: status, DependsOn: deps, Line: line, Lines: lines(line)}
	}
	state := func(atoms []model.Atom, groups ...model.ORGroup) *model.State {
		for k := range groups {
			g := &groups[k]
			g.Line = 900 + 5*k
			g.Lines = model.LinesOf(map[string]int{"choices": g.Line + 1, "selected": g.Line + 2, "failed": g.Line + 3})
		}
		return &model.State{
			Lines:    model.LinesOf(map[string]int{"objective": 2, "control": 4, "atoms": 19, "bindings": 800}),
			Atoms:    atoms,
			ORGroups: groups,
		}
	}
	P, R, I := model.StatusPending, model.StatusResolved, model.StatusInProgress
	long := []string{}
	for k := range 20 {
		long = append(long, fmt.Sprintf("A%d", k%7))
	}
	cases := []struct {
		name  string
		s     *model.State
		wants []string
	}{
		{"no atoms", state(nil), []string{"no atoms defined"}},
		{"itself", state([]model.Atom{atom(0, "A1", P, "A1")}), []string{"circular dependency: A1 -> A1"}},
		{"itself, resolved", state([]model.Atom{atom(0, "A1", R, "A1"), atom(1, "A2", P, "A1")}), []string{"circular dependency: A1 -> A1"}},
		{"a missing id", state([]model.Atom{atom(0, "A1", P, "A9", "A1x")}), []string{"depends on A9, which does not exist", "depends on A1x, which does not exist"}},
		{"further down", state([]model.Atom{atom(0, "A1", R, "A3"), atom(1, "A2", P), atom(2, "A3", P, "A2")}),
			[]string{"atom A1 is resolved but depends on A3, which is pending"}},
		{"a repeated id", state([]model.Atom{atom(0, "A1", R), atom(1, "A2", R, "A3"), atom(2, "A3", P), atom(3, "A1", P, "A3"), atom(4, "A3", I, "A1")}),
			[]string{"duplicate atom id A1 (first defined on line 20)", "duplicate atom id A3 (first defined on line 32)", "atom A2 is resolved but depends on A3"}},
		{"an OR group of missing atoms", state([]model.Atom{atom(0, "A1", P, "B1")}, model.ORGroup{Name: "g", Choices: []string{"B1", "B2"}, Selected: "B1"}),
			[]string{"OR group g lists choice B1, which is not an atom", "OR group g lists choice B2, which is not an atom", "depends on B1, which does not exist"}},
		{"groups of one name", func() *model.State {
			atoms := []model.Atom{atom(0, "B1", P), atom(1, "B2", P), atom(2, "B3", P), atom(3, "A1", P, "B1", "B2", "B3"), atom(4, "B2", P)}
			atoms[0].ORGroup, atoms[1].ORGroup, atoms[2].ORGroup, atoms[4].ORGroup = "g", "g", "g", "h"
			return state(atoms,
				model.ORGroup{Name: "g", Choices: []string{"B1"}, Selected: "B1"},
				model.ORGroup{Name: "g", Choices: []string{"B2"}, Selected: "B2", Failed: []string{"B2"}},
				model.ORGroup{Name: "x", Choices: []string{"B3"}, Selected: "B9"})
		}(), []string{"atom A1 depends on B2, which OR group g does not select (it selects B1)", "names OR group h, which is not defined", "names OR group g, whose choices do not list it"}},
		{"no id", state([]model.Atom{atom(0, "", P), atom(1, "A1", P, ""), atom(2, "", R, "A1")}),
			[]string{"atoms[0] has no id", "atoms[2] has no id"}},
		{"long lists", state([]model.Atom{atom(0, "A0", R), atom(1, "A1", R, "A0"), atom(2, "A2", P, long...), atom(3, "A3", P, append(long, "A2", "A9")...)}),
			[]string{"atom A2 lists dependency A0 twice", "atom A3 depends on A9, which does not exist", "circular dependency: A2 -> A2"}},
	}
	for _, c := range cases {
		got, want := model.Validate(c.s), model.ValidateRef(c.s, model.Derive(c.s))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Validate\n%+v\nwant\n%+v", c.name, got, want)
		}
		if with := model.ValidateWith(c.s, model.Derive(c.s)); !reflect.DeepEqual(with, want) {
			t.Fatalf("%s: ValidateWith\n%+v\nwant\n%+v", c.name, with, want)
		}
		all := strings.Join(append(got.Errors, got.Warnings...), "\n")
		for _, w := range c.wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no finding %q in\n%s", c.name, w, all)
			}
		}
	}
}

// TestValidateWhatItTriesBeforeALookup checks Validate against the
// reference validator on states where the atoms it tries before a lookup
// are right, wrong or not there: bindings in the order of the resolved
// atoms (with resolved atoms that have none, stale bindings and bindings
// for no atom between them), reversed and shuffled; decompositions whose
// children are atoms one after another, a run broken in its middle, or
// scattered; OR groups whose choices are the atoms naming them in their
// order, in another order, or other atoms, selecting a choice or not; a
// trail in the groups' order and shuffled; ids given to two atoms, the
// first of them where the guess is the second.
func TestValidateWhatItTriesBeforeALookup(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 26))
		n := 50 + r.IntN(400)
		id := func(i int) string { return fmt.Sprintf("A%d", i) }
		s := &model.State{Lines: model.LinesOf(map[string]int{"objective": 2, "control": 4, "atoms": 9})}
		statuses := []model.AtomStatus{model.StatusPending, model.StatusResolved, model.StatusResolved, model.StatusInProgress}
		for i := range n {
			a := model.Atom{ID: id(i), Status: statuses[r.IntN(len(statuses))], Line: 10 + 5*i}
			if r.IntN(20) == 0 && i > 0 {
				a.ID = id(r.IntN(i)) // an id again
			}
			if i > 0 && r.IntN(2) == 0 {
				a.DependsOn = []string{id(max(0, i-1-r.IntN(5)))}
			}
			a.Lines = model.LinesOf(map[string]int{"id": a.Line, "description": a.Line + 1, "status": a.Line + 2, "depends_on": a.Line + 3})
			s.Atoms = append(s.Atoms, a)
		}
		line := 10 + 5*n
		next := func() int { line += 3; return line }
		// Bindings.
		var bound []string
		for i := range n {
			if s.Atoms[i].Status == model.StatusResolved && r.IntN(8) != 0 {
				bound = append(bound, s.Atoms[i].ID)
			}
			if r.IntN(30) == 0 {
				bound = append(bound, id(r.IntN(n))) // stale, or for an unresolved atom
			}
			if r.IntN(40) == 0 {
				bound = append(bound, "B"+id(i)) // for no atom
			}
		}
		switch seed % 3 {
		case 1:
			slices.Reverse(bound)
		case 2:
			r.Shuffle(len(bound), func(a, b int) { bound[a], bound[b] = bound[b], bound[a] })
		}
		for _, b := range bound {
			s.Bindings = append(s.Bindings, model.Binding{AtomID: b, Summary: "done", Line: next()})
		}
		// Decompositions.
		for range r.IntN(12) {
			p, c := r.IntN(n), 1+r.IntN(6)
			d := model.Decomposition{Parent: id(p), Reason: "split", Line: next()}
			start := r.IntN(n)
			for k := range c {
				switch r.IntN(6) {
				case 0:
					d.Children = append(d.Children, id(r.IntN(n))) // anywhere
				case 1:
					d.Children = append(d.Children, "C"+id(k)) // no atom
				default:
					d.Children = append(d.Children, s.Atoms[min(n-1, start+k)].ID) // the next atom
				}
			}
			s.Decompositions = append(s.Decompositions, d)
		}
		// OR groups, their choices the atoms naming them or not.
		at := 0
		for k := range r.IntN(16) {
			name := fmt.Sprintf("g%d", k%5) // some names twice
			g := model.ORGroup{Name: name, Line: next()}
			size := 1 + r.IntN(4)
			for c := range size {
				if at+c >= n {
					break
				}
				s.Atoms[at+c].ORGroup = name
				g.Choices = append(g.Choices, s.Atoms[at+c].ID)
			}
			switch r.IntN(4) {
			case 0:
				slices.Reverse(g.Choices)
			case 1:
				g.Choices = append(g.Choices, id(r.IntN(n)), "X"+name)
			}
			switch r.IntN(3) {
			case 0:
				if len(g.Choices) > 0 {
					g.Selected = g.Choices[r.IntN(len(g.Choices))]
				}
			case 1:
				g.Selected = id(r.IntN(n))
			}
			g.Lines = model.LinesOf(map[string]int{"choices": g.Line + 1, "selected": g.Line + 2})
			s.ORGroups = append(s.ORGroups, g)
			at += size + r.IntN(20)
		}
		for k := range s.ORGroups {
			s.Trail = append(s.Trail, model.TrailEntry{ORGroup: s.ORGroups[k].Name, Selected: s.ORGroups[k].Selected, Reason: "r", Timestamp: "t", Line: next()})
		}
		if r.IntN(2) == 0 {
			s.Trail = append(s.Trail, model.TrailEntry{ORGroup: "nosuch", Selected: "A1", Reason: "r", Timestamp: "t", Line: next()})
			r.Shuffle(len(s.Trail), func(a, b int) { s.Trail[a], s.Trail[b] = s.Trail[b], s.Trail[a] })
		}
		got, want := model.Validate(s), model.ValidateRef(s, model.Derive(s))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: Validate\n%v\n%v\nwant\n%v\n%v", seed, got.Errors, got.Warnings, want.Errors, want.Warnings)
		}
	}
}
