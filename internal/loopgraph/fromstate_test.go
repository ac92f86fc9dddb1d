package loopgraph

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// fromStateRef is FromState as it was first written: maps for the ids
// seen and for each atom's dependencies.
func fromStateRef(s *model.State, f *model.Facts) dagdraw.Graph {
	exec := make(map[string]bool, len(f.Executable))
	for _, id := range f.Executable {
		exec[id] = true
	}
	var g dagdraw.Graph
	seen := make(map[string]bool, len(s.Atoms))
	for _, a := range s.Atoms {
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		g.Nodes = append(g.Nodes, dagdraw.Node{ID: a.ID, Label: termtext.Line(a.Description), Status: StatusOf(a.Status), Executable: exec[a.ID]})
	}
	done := make(map[string]bool, len(s.Atoms))
	for _, a := range s.Atoms {
		if done[a.ID] {
			continue
		}
		done[a.ID] = true
		deps := make(map[string]bool, len(a.DependsOn))
		for _, d := range a.DependsOn {
			if deps[d] {
				continue
			}
			deps[d] = true
			g.Edges = append(g.Edges, dagdraw.Edge{From: d, To: a.ID})
		}
	}
	for _, o := range s.ORGroups {
		g.ORGroups = append(g.ORGroups, dagdraw.ORGroup{Name: o.Name, Choices: append([]string(nil), o.Choices...), Selected: o.Selected, Failed: append([]string(nil), o.Failed...)})
	}
	for _, d := range s.Decompositions {
		g.Decomps = append(g.Decomps, dagdraw.Decomp{Parent: d.Parent, Children: append([]string(nil), d.Children...)})
	}
	return g
}

// TestFromStateMatchesReference compares FromState with fromStateRef on
// generated loops, and on their states with ids given twice, empty ids,
// and dependencies repeated, few and many.
func TestFromStateMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 10, 200} {
		for seed := uint64(1); seed <= 5; seed++ {
			doc, err := statefile.Parse(gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.3, ORGroups: n / 10, Decompositions: n / 12}))
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 6; k++ {
				s := *doc.State
				s.Atoms = append([]model.Atom(nil), s.Atoms...)
				if k > 0 {
					for i := range s.Atoms {
						a := &s.Atoms[i]
						switch r.IntN(8) {
						case 0:
							a.ID = s.Atoms[r.IntN(len(s.Atoms))].ID
						case 1:
							a.ID = ""
						case 2:
							for range r.IntN(40) {
								a.DependsOn = append(a.DependsOn, fmt.Sprintf("A%d", 1+r.IntN(n)))
							}
						case 3:
							if len(a.DependsOn) > 0 {
								a.DependsOn = append(a.DependsOn, a.DependsOn[0])
							}
						}
					}
				}
				f := model.Derive(&s)
				if got, want := FromState(&s, f), fromStateRef(&s, f); !reflect.DeepEqual(got, want) {
					t.Fatalf("atoms=%d seed=%d variant=%d: FromState differs from the reference", n, seed, k)
				}
			}
		}
	}
}

// TestFlagsMarkTheAtomsOfFindings: the atoms an error names get !, those
// only warnings name ⚠, the others nothing.
func TestFlagsMarkTheAtomsOfFindings(t *testing.T) {
	s := &model.State{Atoms: []model.Atom{{ID: "A1"}, {ID: "A2"}, {ID: "A3"}, {ID: "A4"}}}
	r := &model.Report{Problems: []model.ReportProblem{
		{Severity: "warning", Atoms: []string{"A1", "A2"}},
		{Severity: "error", Atoms: []string{"A2", "A3"}},
		{Severity: "error", Path: "objective"},
	}}
	g := FromState(s, nil)
	Flags(&g, r)
	got := map[string]dagdraw.Flag{}
	for _, n := range g.Nodes {
		got[n.ID] = n.Flag
	}
	want := map[string]dagdraw.Flag{"A1": dagdraw.FlagWarning, "A2": dagdraw.FlagError, "A3": dagdraw.FlagError, "A4": dagdraw.FlagNone}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("flags %v, want %v", got, want)
	}
}
