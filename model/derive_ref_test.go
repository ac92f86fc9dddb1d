package model_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestDeriveMatchesReference checks Derive against deriveRef, the
// implementation it replaced, on generated loops and on random states full
// of what real ones lack: repeated ids, dependencies on missing atoms and
// repeated ones, cycles, long lists, unknown statuses, OR groups and
// decompositions naming anything.
func TestDeriveMatchesReference(t *testing.T) {
	var states []*model.State
	for _, n := range []int{1, 7, 60, 400} {
		for seed := uint64(1); seed <= 3; seed++ {
			data, _ := gen.GenerateSpec(n, seed)
			data2 := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 10, Decompositions: n / 12})
			for _, d := range [][]byte{data, data2} {
				doc, err := statefile.Parse(d)
				if err != nil {
					t.Fatal(err)
				}
				states = append(states, doc.State)
			}
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 3000; k++ {
		states = append(states, randomState(r))
	}
	for k, s := range states {
		f := model.Derive(s)
		want, wantDeps := deriveRef(s)
		if got := model.WithoutShape(f); !reflect.DeepEqual(got, want) {
			t.Fatalf("state %d: Derive\n%+v\nwant\n%+v\natoms %+v", k, got, want, s.Atoms)
		}
		if got := f.Dependents(); !reflect.DeepEqual(got, wantDeps) {
			t.Fatalf("state %d: Dependents\n%+v\nwant\n%+v\natoms %+v", k, got, wantDeps, s.Atoms)
		}
	}
}

// TestDependentsOnceForAShape asks for the dependents of facts of one
// shape from many goroutines at once (the TUI's and status's goroutines
// share facts): each gets the map of the reference, and the facts of one
// shape one map, made once (go test -race checks the making).
func TestDependentsOnceForAShape(t *testing.T) {
	data, _ := gen.GenerateSpec(400, 3)
	doc, err := statefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s := doc.State
	var d model.Deriver
	f := d.Derive(s)
	// A state of the same shape: another status.
	s2 := *s
	s2.Atoms = slices.Clone(s.Atoms)
	for i := range s2.Atoms {
		if s2.Atoms[i].Status == model.StatusPending {
			s2.Atoms[i].Status = model.StatusInProgress
			break
		}
	}
	f2 := d.Derive(&s2)
	if !f.SameShape(f2) {
		t.Fatal("a status change made a new shape")
	}
	_, want := deriveRef(s)
	got := make([]map[string][]string, 16)
	done := make(chan int)
	for k := range got {
		go func() {
			if k%2 == 0 {
				got[k] = f.Dependents()
			} else {
				got[k] = f2.Dependents()
			}
			done <- k
		}()
	}
	for range got {
		<-done
	}
	for k, m := range got {
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("goroutine %d: Dependents\n%v\nwant\n%v", k, m, want)
		}
		if reflect.ValueOf(m).Pointer() != reflect.ValueOf(got[0]).Pointer() {
			t.Fatalf("goroutine %d got a map of its own: the shape's is made once", k)
		}
	}
}

// TestDeriverMatchesDerive runs a Deriver over chains of states in which
// most steps change statuses, the control block or OR selections (the
// shape stays, and its maps are reused) and some change the shape: its
// facts must always be those Derive returns.
func TestDeriverMatchesDerive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for chain := 0; chain < 300; chain++ {
		var d model.Deriver
		s := randomState(r)
		for step := 0; step < 20; step++ {
			f := d.Derive(s)
			want, wantDeps := deriveRef(s)
			if got := model.WithoutShape(f); !reflect.DeepEqual(got, want) {
				t.Fatalf("chain %d step %d: Deriver\n%+v\nwant\n%+v", chain, step, got, want)
			}
			// Asked for at some steps only: a shape's map is made
			// when first asked for, from the state it was made of.
			if step%3 == chain%3 {
				if got := f.Dependents(); !reflect.DeepEqual(got, wantDeps) {
					t.Fatalf("chain %d step %d: Dependents\n%+v\nwant\n%+v", chain, step, got, wantDeps)
				}
			}
			s = mutate(r, s)
		}
	}
}

// mutate returns a copy of s with a random change, of its shape or not.
func mutate(r *rand.Rand, s *model.State) *model.State {
	c := *s
	c.Atoms = slices.Clone(s.Atoms)
	c.ORGroups = slices.Clone(s.ORGroups)
	c.Decompositions = slices.Clone(s.Decompositions)
	statuses := []model.AtomStatus{model.StatusPending, model.StatusInProgress, model.StatusResolved, "odd"}
	switch k := r.IntN(12); {
	case k < 5 && len(c.Atoms) > 0:
		c.Atoms[r.IntN(len(c.Atoms))].Status = statuses[r.IntN(len(statuses))]
	case k == 5:
		c.Control.PrevPendingCount = r.IntN(10) - 1
	case k == 6 && len(c.ORGroups) > 0 && len(c.Atoms) > 0:
		c.ORGroups[r.IntN(len(c.ORGroups))].Selected = c.Atoms[r.IntN(len(c.Atoms))].ID
	case k == 7 && len(c.Atoms) > 0:
		i := r.IntN(len(c.Atoms))
		c.Atoms[i].DependsOn = append(slices.Clone(c.Atoms[i].DependsOn), c.Atoms[r.IntN(len(c.Atoms))].ID)
	case k == 8 && len(c.Atoms) > 0:
		c.Atoms = append(c.Atoms, model.Atom{ID: fmt.Sprintf("N%d", r.IntN(5)), Status: model.StatusPending, DependsOn: []string{c.Atoms[0].ID}})
	case k == 9 && len(c.ORGroups) > 0 && len(c.Atoms) > 0:
		g := &c.ORGroups[r.IntN(len(c.ORGroups))]
		g.Choices = append(slices.Clone(g.Choices), c.Atoms[r.IntN(len(c.Atoms))].ID)
	case k == 10 && len(c.Decompositions) > 0 && len(c.Atoms) > 0:
		dc := &c.Decompositions[r.IntN(len(c.Decompositions))]
		dc.Children = append(slices.Clone(dc.Children), c.Atoms[r.IntN(len(c.Atoms))].ID)
	default:
		return randomState(r)
	}
	return &c
}

func randomState(r *rand.Rand) *model.State {
	n := r.IntN(30)
	pool := r.IntN(n+3) + 1
	id := func() string { return fmt.Sprintf("A%d", r.IntN(pool)) }
	statuses := []model.AtomStatus{model.StatusPending, model.StatusPending, model.StatusInProgress, model.StatusResolved, model.StatusResolved, "odd", ""}
	s := &model.State{}
	for i := 0; i < n; i++ {
		a := model.Atom{ID: id(), Status: statuses[r.IntN(len(statuses))]}
		deps := r.IntN(4)
		if r.IntN(20) == 0 {
			deps = 17 + r.IntN(10) // long enough for Derive's set
		}
		for d := 0; d < deps; d++ {
			a.DependsOn = append(a.DependsOn, id())
		}
		if r.IntN(5) == 0 {
			a.ORGroup = fmt.Sprintf("g%d", r.IntN(3))
		}
		s.Atoms = append(s.Atoms, a)
	}
	for g := 0; g < r.IntN(4); g++ {
		grp := model.ORGroup{Name: fmt.Sprintf("g%d", r.IntN(3)), Selected: id()}
		for c := 0; c < r.IntN(4); c++ {
			grp.Choices = append(grp.Choices, id())
		}
		s.ORGroups = append(s.ORGroups, grp)
	}
	for d := 0; d < r.IntN(3); d++ {
		dc := model.Decomposition{Parent: id()}
		for c := 0; c < r.IntN(4); c++ {
			dc.Children = append(dc.Children, id())
		}
		s.Decompositions = append(s.Decompositions, dc)
	}
	s.Control.PrevPendingCount = r.IntN(n+2) - 1
	if r.IntN(2) == 0 {
		s.Objective.Constraints.MaxParallelAgents = r.IntN(5)
		s.Objective.Constraints.Lines = model.LinesOf(map[string]int{"max_parallel_agents": 1})
	}
	return s
}

// deriveRef is Derive as it was before it was made faster, kept to check
// the faster one against, and the map Facts.Dependents returns.
func deriveRef(s *model.State) (*model.Facts, map[string][]string) {
	dependents := make(map[string][]string)
	f := &model.Facts{
		Index:      make(map[string]int, len(s.Atoms)),
		ORGroupOf:  make(map[string]string),
		ParentOf:   make(map[string]string),
		ChildrenOf: make(map[string][]string),
	}
	for i, a := range s.Atoms {
		if _, dup := f.Index[a.ID]; !dup {
			f.Index[a.ID] = i
		}
		f.Counts.Total++
		switch a.Status {
		case model.StatusPending:
			f.Counts.Pending++
		case model.StatusInProgress:
			f.Counts.InProgress++
		case model.StatusResolved:
			f.Counts.Resolved++
		default:
			f.Counts.Other++
		}
	}
	for _, a := range s.Atoms {
		seen := map[string]bool{}
		for _, dep := range a.DependsOn {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			dependents[dep] = append(dependents[dep], a.ID)
		}
	}
	groups := make(map[string]*model.ORGroup, len(s.ORGroups))
	for i := range s.ORGroups {
		g := &s.ORGroups[i]
		groups[g.Name] = g
		for _, c := range g.Choices {
			if _, ok := f.ORGroupOf[c]; !ok {
				f.ORGroupOf[c] = g.Name
			}
		}
	}
	for _, a := range s.Atoms {
		if a.ORGroup != "" && groups[a.ORGroup] != nil {
			f.ORGroupOf[a.ID] = a.ORGroup
		}
	}
	for _, d := range s.Decompositions {
		for _, c := range d.Children {
			f.ParentOf[c] = d.Parent
			f.ChildrenOf[d.Parent] = append(f.ChildrenOf[d.Parent], c)
		}
	}

	status := func(id string) (model.AtomStatus, bool) {
		i, ok := f.Index[id]
		if !ok {
			return "", false
		}
		return s.Atoms[i].Status, true
	}
	for i, a := range s.Atoms {
		// Only the first of duplicate ids counts (duplicates are a validation error).
		if a.Status != model.StatusPending || f.Index[a.ID] != i {
			continue
		}
		if isExecutableRef(f, a, groups, status) {
			f.Executable = append(f.Executable, a.ID)
		}
	}
	n := s.Objective.Constraints.EffectiveMaxParallelAgents()
	f.NextBatch = f.Executable[:min(n, len(f.Executable))]

	unresolved := f.Counts.Unresolved()
	switch prev := s.Control.PrevPendingCount; {
	case prev < 0:
		f.Progress = model.ProgressFirst
	case unresolved < prev:
		f.Progress = model.ProgressShrinking
	case unresolved == prev:
		f.Progress = model.ProgressStalled
	default:
		f.Progress = model.ProgressExpanding
	}
	f.LongestChain = longestChainRef(s, f)
	for _, a := range s.Atoms {
		if !a.Status.Unresolved() {
			continue
		}
		if g := f.ORGroupOf[a.ID]; g != "" && groups[g].Selected != a.ID {
			continue
		}
		f.Outstanding++
	}
	return f, dependents
}

func isExecutableRef(f *model.Facts, a model.Atom, groups map[string]*model.ORGroup, status func(string) (model.AtomStatus, bool)) bool {
	for _, dep := range a.DependsOn {
		if st, ok := status(dep); !ok || st != model.StatusResolved {
			return false
		}
	}
	// A decomposed parent is a container: it resolves when its children do.
	for _, c := range f.ChildrenOf[a.ID] {
		if st, ok := status(c); ok && st != model.StatusResolved {
			return false
		}
	}
	if g := f.ORGroupOf[a.ID]; g != "" && groups[g].Selected != a.ID {
		return false
	}
	return true
}

// longestUnresolvedChain runs a longest-path pass over unresolved atoms in
// topological order (Kahn); atoms on a cycle are left out.
func longestChainRef(s *model.State, f *model.Facts) []string {
	n := len(s.Atoms)
	if n == 0 {
		return nil
	}
	unres := func(i int) bool { return s.Atoms[i].Status.Unresolved() && f.Index[s.Atoms[i].ID] == i }
	indeg := make([]int, n)
	deps := make([][]int, n) // unresolved dependencies of i
	outs := make([][]int, n) // unresolved dependents of i
	for i, a := range s.Atoms {
		if !unres(i) {
			continue
		}
		seen := map[int]bool{}
		for _, d := range a.DependsOn {
			j, ok := f.Index[d]
			if !ok || !unres(j) || seen[j] {
				continue
			}
			seen[j] = true
			deps[i] = append(deps[i], j)
			outs[j] = append(outs[j], i)
			indeg[i]++
		}
	}
	queue := make([]int, 0, n)
	for i := range s.Atoms {
		if unres(i) && indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	length := make([]int, n)
	prev := make([]int, n)
	for i := range prev {
		prev[i] = -1
	}
	best := -1
	for q := 0; q < len(queue); q++ {
		i := queue[q]
		length[i]++
		if best < 0 || length[i] > length[best] {
			best = i
		}
		for _, j := range outs[i] {
			if length[i] > length[j] {
				length[j], prev[j] = length[i], i
			}
			indeg[j]--
			if indeg[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	if best < 0 {
		return nil
	}
	var chain []string
	for i := best; i >= 0; i = prev[i] {
		chain = append(chain, s.Atoms[i].ID)
	}
	for l, r := 0, len(chain)-1; l < r; l, r = l+1, r-1 {
		chain[l], chain[r] = chain[r], chain[l]
	}
	return chain
}
