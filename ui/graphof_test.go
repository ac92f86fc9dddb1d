package ui

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopgraph"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestGraphOfMatchesFromState follows chains of versions as a loop writes
// them — statuses (one the loop does not know among them), descriptions
// (with terminal escapes), OR selections and failed choices, and now and
// then a change of the structure — and checks that the drawing's graph,
// built from the last one when the structure stays, is always the one
// loopgraph.FromState and loopgraph.Flags build afresh, flags of the
// version's own findings included.
func TestGraphOfMatchesFromState(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 6))
	for chain := 0; chain < 40; chain++ {
		data := gen.Generate(gen.Options{Atoms: 20 + r.IntN(60), Seed: uint64(chain), Resolved: 0.4, ORGroups: 4, Decompositions: 3})
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		s := doc.State
		var l layered
		var d model.Deriver
		reused, recycled := 0, 0
		// lent are graphs given to layout jobs, with a copy of their
		// nodes: later graphs must not be written into them.
		type lentGraph struct{ g, was []dagdraw.Node }
		var lent []lentGraph
		var before []dagdraw.Node // the nodes of the graph before the last
		for step := 0; step < 60; step++ {
			f := d.Derive(s)
			rep := model.ValidateWith(s, f)
			same := l.gkey == structureKey(s) && len(l.g.Nodes) > 0
			l.noteShape(s, f) // as graphView.setState does
			if k := l.structure(s); k != structureKey(s) {
				t.Fatalf("chain %d step %d: structure key %d, want %d", chain, step, k, structureKey(s))
			}
			got := l.graphOf(s, f, &rep)
			want := loopgraph.FromState(s, f)
			loopgraph.Flags(&want, &rep)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("chain %d step %d: graph\n%+v\nwant\n%+v", chain, step, got, want)
			}
			if same {
				reused++
			}
			if len(before) > 0 && len(got.Nodes) > 0 && &before[0] == &got.Nodes[0] {
				recycled++
			}
			before = l.g.Nodes
			l.g = got
			if step%7 == 3 {
				g := l.jobGraph()
				lent = append(lent, lentGraph{g.Nodes, slices.Clone(g.Nodes)})
			}
			for _, lg := range lent {
				if !reflect.DeepEqual(lg.g, lg.was) {
					t.Fatalf("chain %d step %d: the nodes of a graph given to a layout job were written", chain, step)
				}
			}
			s = graphMutate(r, s)
		}
		if reused < 30 || recycled < 15 {
			t.Fatalf("chain %d: only %d of 60 versions reused the last graph, %d the nodes of the one before", chain, reused, recycled)
		}
	}
}

// graphMutate returns a copy of s with one change a loop or a person
// makes; one in eight changes the structure.
func graphMutate(r *rand.Rand, s *model.State) *model.State {
	c := *s
	c.Atoms = slices.Clone(s.Atoms)
	c.ORGroups = slices.Clone(s.ORGroups)
	a := &c.Atoms[r.IntN(len(c.Atoms))]
	switch k := r.IntN(8); k {
	case 0, 1, 2:
		a.Status = []model.AtomStatus{model.StatusPending, model.StatusInProgress, model.StatusResolved, "odd"}[r.IntN(4)]
	case 3:
		a.Description = fmt.Sprintf("step %d \x1b[31mred\x1b[0m", r.IntN(100))
	case 4:
		if len(c.ORGroups) > 0 {
			g := &c.ORGroups[r.IntN(len(c.ORGroups))]
			if len(g.Choices) > 0 {
				g.Selected = g.Choices[r.IntN(len(g.Choices))]
				g.Failed = append(slices.Clone(g.Failed), g.Choices[r.IntN(len(g.Choices))])
			}
		}
	case 5:
		c.Control.Iteration++
	case 6:
		// Resolved on top of unresolved work: an error that flags it.
		a.Status = model.StatusResolved
		for _, b := range c.Atoms {
			if b.ID != a.ID && b.Status == model.StatusPending {
				a.DependsOn = append(slices.Clone(a.DependsOn), b.ID)
				break
			}
		}
	default:
		// The structure changes: a dependency on nothing, or a new atom.
		if r.IntN(2) == 0 {
			a.DependsOn = append(slices.Clone(a.DependsOn), "X404")
		} else {
			c.Atoms = append(c.Atoms, model.Atom{ID: fmt.Sprintf("N%d", len(c.Atoms)), Status: model.StatusPending, Description: "new"})
		}
	}
	return &c
}
