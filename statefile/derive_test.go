package statefile

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

// The reference below derives every fact the slow, obvious way: linear
// scans instead of indexes, a fixpoint instead of a topological order.
// It follows docs/ARCHITECTURE.md §3.4 sentence by sentence.

// refFirsts remembers, per state, where each id first stands: the one
// lookup that made the reference quadratic (97 s at 10,000 atoms under
// -race) is a linear scan done once.
var refFirsts sync.Map // *model.State → map[string]int

func refFirst(s *model.State, id string) (model.Atom, int, bool) {
	m, ok := refFirsts.Load(s)
	if !ok {
		first := map[string]int{}
		for i, a := range s.Atoms {
			if _, seen := first[a.ID]; !seen {
				first[a.ID] = i
			}
		}
		m, _ = refFirsts.LoadOrStore(s, first)
	}
	if i, ok := m.(map[string]int)[id]; ok {
		return s.Atoms[i], i, true
	}
	return model.Atom{}, -1, false
}

func refGroup(s *model.State, id string) (model.ORGroup, bool) {
	// An atom's own or_group names its group when that group exists;
	// otherwise the first group whose choices list it.
	if a, _, ok := refFirst(s, id); ok && a.ORGroup != "" {
		for _, g := range s.ORGroups {
			if g.Name == a.ORGroup {
				return g, true
			}
		}
	}
	for _, g := range s.ORGroups {
		if slices.Contains(g.Choices, id) {
			return g, true
		}
	}
	return model.ORGroup{}, false
}

func refResolved(s *model.State, id string) bool {
	a, _, ok := refFirst(s, id)
	return ok && a.Status == model.StatusResolved
}

type refFacts struct {
	counts     model.Counts
	executable []string
	nextBatch  []string
	progress   model.Progress
	dependents map[string][]string
	orGroupOf  map[string]string
	parentOf   map[string]string
	childrenOf map[string][]string
	chainLen   int
}

func reference(s *model.State) refFacts {
	var r refFacts
	for _, a := range s.Atoms {
		r.counts.Total++
		switch a.Status {
		case model.StatusPending:
			r.counts.Pending++
		case model.StatusInProgress:
			r.counts.InProgress++
		case model.StatusResolved:
			r.counts.Resolved++
		default:
			r.counts.Other++
		}
	}
	// Executable: pending, every depends_on resolved, not a decomposition
	// parent with unresolved children, and in an OR group only the
	// selected choice.
	for i, a := range s.Atoms {
		if _, first, _ := refFirst(s, a.ID); first != i || a.Status != model.StatusPending {
			continue
		}
		ok := true
		for _, d := range a.DependsOn {
			ok = ok && refResolved(s, d)
		}
		for _, d := range s.Decompositions {
			if d.Parent != a.ID {
				continue
			}
			for _, c := range d.Children {
				if _, _, exists := refFirst(s, c); exists && !refResolved(s, c) {
					ok = false
				}
			}
		}
		if g, in := refGroup(s, a.ID); in && g.Selected != a.ID {
			ok = false
		}
		if ok {
			r.executable = append(r.executable, a.ID)
		}
	}
	n := s.Objective.Constraints.EffectiveMaxParallelAgents()
	r.nextBatch = r.executable[:min(n, len(r.executable))]

	unresolved := r.counts.Pending + r.counts.InProgress
	switch prev := s.Control.PrevPendingCount; {
	case prev == -1:
		r.progress = model.ProgressFirst
	case unresolved < prev:
		r.progress = model.ProgressShrinking
	case unresolved == prev:
		r.progress = model.ProgressStalled
	default:
		r.progress = model.ProgressExpanding
	}

	r.dependents = map[string][]string{}
	var targets []string
	for _, a := range s.Atoms {
		for _, d := range a.DependsOn {
			if !slices.Contains(targets, d) {
				targets = append(targets, d)
			}
		}
	}
	for _, x := range targets {
		for _, a := range s.Atoms {
			if slices.Contains(a.DependsOn, x) {
				r.dependents[x] = append(r.dependents[x], a.ID)
			}
		}
	}

	r.orGroupOf = map[string]string{}
	var members []string
	for _, a := range s.Atoms {
		members = append(members, a.ID)
	}
	for _, g := range s.ORGroups {
		members = append(members, g.Choices...)
	}
	for _, id := range members {
		if g, ok := refGroup(s, id); ok {
			r.orGroupOf[id] = g.Name
		}
	}

	r.parentOf, r.childrenOf = map[string]string{}, map[string][]string{}
	for _, d := range s.Decompositions {
		r.childrenOf[d.Parent] = append(r.childrenOf[d.Parent], d.Children...)
		for _, c := range d.Children {
			r.parentOf[c] = d.Parent
		}
	}

	// Longest chain of unresolved atoms along depends_on. Atoms on a
	// cycle, or depending on one, have no finite chain and are left out:
	// first find the atoms whose unresolved dependencies all have one
	// (a fixpoint from nothing), then relax lengths over those.
	unres := map[string]model.Atom{}
	for i, a := range s.Atoms {
		if _, first, _ := refFirst(s, a.ID); first == i && a.Status.Unresolved() {
			unres[a.ID] = a
		}
	}
	finite := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for id, a := range unres {
			ok := !finite[id]
			for _, d := range a.DependsOn {
				if _, u := unres[d]; u && !finite[d] {
					ok = false
				}
			}
			if ok {
				finite[id], changed = true, true
			}
		}
	}
	length := map[string]int{}
	for changed := true; changed; {
		changed = false
		for id := range finite {
			l := 1
			for _, d := range unres[id].DependsOn {
				if finite[d] {
					l = max(l, length[d]+1)
				}
			}
			if l != length[id] {
				length[id], changed = l, true
			}
		}
	}
	for _, l := range length {
		r.chainLen = max(r.chainLen, l)
	}
	return r
}

// checkAgainstReference compares Derive with the reference.
func checkAgainstReference(t *testing.T, s *model.State) {
	t.Helper()
	f := model.Derive(s)
	r := reference(s)
	eq := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s differs from the reference:\n got %v\nwant %v", what, got, want)
		}
	}
	eq("Counts", f.Counts, r.counts)
	eq("Executable", f.Executable, r.executable)
	eq("NextBatch", f.NextBatch, r.nextBatch)
	eq("Progress", f.Progress, r.progress)
	eq("Dependents", f.Dependents(), r.dependents)
	eq("ORGroupOf", f.ORGroupOf, r.orGroupOf)
	eq("ParentOf", f.ParentOf, r.parentOf)
	eq("ChildrenOf", f.ChildrenOf, r.childrenOf)
	if len(f.LongestChain) != r.chainLen {
		t.Errorf("LongestChain has %d atoms, the longest unresolved chain has %d", len(f.LongestChain), r.chainLen)
	}
	for k, id := range f.LongestChain {
		a, _, ok := refFirst(s, id)
		if !ok || !a.Status.Unresolved() {
			t.Errorf("LongestChain[%d] = %s is not an unresolved atom", k, id)
		}
		if k > 0 && !slices.Contains(a.DependsOn, f.LongestChain[k-1]) {
			t.Errorf("LongestChain: %s does not depend on %s", id, f.LongestChain[k-1])
		}
	}
	for id, i := range f.Index {
		if _, first, _ := refFirst(s, id); first != i {
			t.Errorf("Index[%s] = %d, want %d", id, i, first)
		}
	}
}

// checkSpec asserts the parser read back exactly what the generator wrote.
func checkSpec(t *testing.T, s *model.State, sp *gen.Spec) {
	t.Helper()
	if len(s.Atoms) != len(sp.Atoms) {
		t.Fatalf("%d atoms, generated %d", len(s.Atoms), len(sp.Atoms))
	}
	for i, w := range sp.Atoms {
		a := s.Atoms[i]
		if a.ID != w.ID || string(a.Status) != w.Status || a.ORGroup != w.ORGroup || !slices.Equal(a.DependsOn, w.DependsOn) {
			t.Fatalf("atoms[%d] = %s %s %v %q, generated %+v", i, a.ID, a.Status, a.DependsOn, a.ORGroup, w)
		}
	}
	if len(s.ORGroups) != len(sp.Groups) || len(s.Decompositions) != len(sp.Decompositions) {
		t.Fatalf("%d groups, %d decompositions; generated %d, %d", len(s.ORGroups), len(s.Decompositions), len(sp.Groups), len(sp.Decompositions))
	}
	for i, w := range sp.Groups {
		g := s.ORGroups[i]
		if g.Name != w.Name || g.Selected != w.Selected || !slices.Equal(g.Choices, w.Choices) || !slices.Equal(g.Failed, w.Failed) {
			t.Fatalf("or_groups[%d] = %+v, generated %+v", i, g, w)
		}
	}
	for i, w := range sp.Decompositions {
		d := s.Decompositions[i]
		if d.Parent != w.Parent || !slices.Equal(d.Children, w.Children) {
			t.Fatalf("decompositions[%d] = %+v, generated %+v", i, d, w)
		}
	}
	if s.Control.PrevPendingCount != sp.PrevPendingCount || s.Objective.Constraints.MaxParallelAgents != sp.MaxParallel {
		t.Fatalf("control = %+v", s.Control)
	}
}

// TestGeneratedAgainstReference parses a generated 10,000-atom file in the
// template layout and checks every derived fact against the reference.
func TestGeneratedAgainstReference(t *testing.T) {
	sizes := []struct {
		n     int
		seeds int
	}{{10000, 1}, {300, 25}}
	if testing.Short() {
		sizes[0].n = 2000
	}
	for _, size := range sizes {
		for seed := range size.seeds {
			t.Run(fmt.Sprintf("%d atoms, seed %d", size.n, seed), func(t *testing.T) {
				data, sp := gen.GenerateSpec(size.n, uint64(seed))
				doc, err := Parse(data)
				if err != nil {
					t.Fatal(err)
				}
				s := doc.State
				checkSpec(t, s, sp)
				checkAgainstReference(t, s)

				f := model.Derive(s)
				if len(f.Executable) == 0 || len(f.LongestChain) < 2 || len(s.ORGroups) == 0 || len(s.Decompositions) == 0 {
					t.Errorf("the generated file is too plain to test much: %d executable, chain %d, %d groups, %d decompositions",
						len(f.Executable), len(f.LongestChain), len(s.ORGroups), len(s.Decompositions))
				}
				r := model.ValidateWith(s, f)
				if !r.Valid {
					t.Errorf("generated file is invalid: %v", r.Errors[:min(5, len(r.Errors))])
				}
				for _, w := range r.Warnings {
					if !regexpOK(w) {
						t.Errorf("unexpected warning: %s", w)
					}
				}
			})
		}
	}
}

// regexpOK accepts the warnings the generator provokes: an OR choice that
// is not an atom, as in the seed's own example (on purpose), and pending
// atoms that wait on an unselected or failed choice (its dependencies are
// any earlier atoms, OR choices included), which can never run.
func regexpOK(w string) bool {
	for _, f := range []string{
		"line %d: OR group %s lists choice %s, which is not an atom (yet)",
		"line %d: atom %s depends on %s, which OR group %s does not select (it selects %s): %s can never run",
		"line %d: atom %s depends on %s, which failed in OR group %s (it selects %s): %s can never run",
	} {
		if formatPattern(f)(w) {
			return true
		}
	}
	return false
}

// TestDeriveEdgeCases runs the reference over small states that stress the
// rules: duplicates, unknown statuses, OR membership from both sides,
// cycles, missing children.
func TestDeriveEdgeCases(t *testing.T) {
	cases := map[string]string{
		"duplicate ids": `
atoms:
  - {id: A1, status: resolved, depends_on: []}
  - {id: A1, status: pending, depends_on: []}
  - {id: A2, status: pending, depends_on: [A1]}`,
		"unknown status and missing dependency": `
atoms:
  - {id: A1, status: done, depends_on: []}
  - {id: A2, status: pending, depends_on: [A1]}
  - {id: A3, status: pending, depends_on: [A9]}
  - {id: A4, status: pending, depends_on: [A3, A3]}`,
		"OR membership from the atom and from the group": `
atoms:
  - {id: A1, status: pending, depends_on: [], or_group: g2}
  - {id: A2, status: pending, depends_on: []}
  - {id: A3, status: pending, depends_on: [], or_group: nope}
or_groups:
  g1: {choices: [A1, A2, A3], selected: A2, failed: []}
  g2: {choices: [A9], selected: A9, failed: []}`,
		"OR group without a selection": `
atoms:
  - {id: A1, status: pending, depends_on: []}
  - {id: A2, status: pending, depends_on: []}
or_groups:
  g: {choices: [A1, A2], failed: []}`,
		"decompositions": `
atoms:
  - {id: P, status: pending, depends_on: []}
  - {id: C1, status: resolved, depends_on: []}
  - {id: C2, status: resolved, depends_on: []}
  - {id: Q, status: pending, depends_on: []}
  - {id: D1, status: in_progress, depends_on: []}
  - {id: R, status: pending, depends_on: []}
decompositions:
  - {parent: P, children: [C1, C2]}
  - {parent: Q, children: [C1]}
  - {parent: Q, children: [D1]}
  - {parent: R, children: [ghost]}`,
		"cycle with a tail": `
control: {prev_pending_count: 4}
atoms:
  - {id: A1, status: pending, depends_on: [A3]}
  - {id: A2, status: pending, depends_on: [A1]}
  - {id: A3, status: pending, depends_on: [A2]}
  - {id: A4, status: pending, depends_on: [A3]}
  - {id: A5, status: pending, depends_on: []}
  - {id: A6, status: in_progress, depends_on: [A5]}`,
		"no atoms": `
control: {prev_pending_count: 0}
atoms: []`,
		"max_parallel_agents 1": `
objective: {constraints: {max_parallel_agents: 1}}
control: {prev_pending_count: 5}
atoms:
  - {id: A1, status: pending, depends_on: []}
  - {id: A2, status: pending, depends_on: []}`,
	}
	for name, yml := range cases {
		t.Run(name, func(t *testing.T) {
			checkAgainstReference(t, mustParse(t, "---"+yml+"\n---\n").State)
		})
	}
}
