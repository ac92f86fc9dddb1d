package model_test

import (
	"fmt"
	"reflect"
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
