package model

// Counts are atoms by status.
type Counts struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Resolved   int `json:"resolved"`
	// Other counts atoms whose status is not one of the three.
	Other int `json:"other,omitempty"`
}

// Unresolved is pending + in_progress, what the stop hook compares with
// prev_pending_count.
func (c Counts) Unresolved() int { return c.Pending + c.InProgress }

// Progress classifies the unresolved count against control.prev_pending_count,
// as the loop's progress evaluation does.
type Progress string

// Progress classes.
const (
	ProgressFirst     Progress = "first"
	ProgressShrinking Progress = "shrinking"
	ProgressStalled   Progress = "stalled"
	ProgressExpanding Progress = "expanding"
)

// Facts are what can be derived from a state without running anything.
type Facts struct {
	Counts Counts
	// Index maps an atom id to its position in State.Atoms (first occurrence).
	Index map[string]int
	// Executable lists the ids of atoms that can start now, in file order.
	Executable []string
	// NextBatch is the first max_parallel_agents of Executable.
	NextBatch []string
	// Progress compares the unresolved count with prev_pending_count.
	Progress Progress
	// Dependents maps an atom id to the atoms that depend on it, in file order.
	Dependents map[string][]string
	// ORGroupOf maps an atom id to the OR group it belongs to.
	ORGroupOf map[string]string
	// ParentOf maps a decomposition child to its parent.
	ParentOf map[string]string
	// ChildrenOf maps a decomposed parent to its children (all decompositions).
	ChildrenOf map[string][]string
	// LongestChain is the longest dependency chain of unresolved atoms, from
	// the first to start to the last: a lower bound on iterations still needed.
	LongestChain []string
	// Outstanding counts unresolved atoms that still need work: every
	// unresolved atom except OR choices that are not selected (a failed or
	// unused alternative stays pending for good).
	Outstanding int
}

// Derive computes the facts of s in time linear in its size.
func Derive(s *State) *Facts {
	f := &Facts{
		Index:      make(map[string]int, len(s.Atoms)),
		Dependents: make(map[string][]string),
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
		case StatusPending:
			f.Counts.Pending++
		case StatusInProgress:
			f.Counts.InProgress++
		case StatusResolved:
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
			f.Dependents[dep] = append(f.Dependents[dep], a.ID)
		}
	}
	groups := make(map[string]*ORGroup, len(s.ORGroups))
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

	status := func(id string) (AtomStatus, bool) {
		i, ok := f.Index[id]
		if !ok {
			return "", false
		}
		return s.Atoms[i].Status, true
	}
	for i, a := range s.Atoms {
		// Only the first of duplicate ids counts (duplicates are a validation error).
		if a.Status != StatusPending || f.Index[a.ID] != i {
			continue
		}
		if f.isExecutable(a, groups, status) {
			f.Executable = append(f.Executable, a.ID)
		}
	}
	n := s.Objective.Constraints.EffectiveMaxParallelAgents()
	f.NextBatch = f.Executable[:min(n, len(f.Executable))]

	unresolved := f.Counts.Unresolved()
	switch prev := s.Control.PrevPendingCount; {
	case prev < 0:
		f.Progress = ProgressFirst
	case unresolved < prev:
		f.Progress = ProgressShrinking
	case unresolved == prev:
		f.Progress = ProgressStalled
	default:
		f.Progress = ProgressExpanding
	}
	f.LongestChain = longestUnresolvedChain(s, f)
	for _, a := range s.Atoms {
		if !a.Status.Unresolved() {
			continue
		}
		if g := f.ORGroupOf[a.ID]; g != "" && groups[g].Selected != a.ID {
			continue
		}
		f.Outstanding++
	}
	return f
}

func (f *Facts) isExecutable(a Atom, groups map[string]*ORGroup, status func(string) (AtomStatus, bool)) bool {
	for _, dep := range a.DependsOn {
		if st, ok := status(dep); !ok || st != StatusResolved {
			return false
		}
	}
	// A decomposed parent is a container: it resolves when its children do.
	for _, c := range f.ChildrenOf[a.ID] {
		if st, ok := status(c); ok && st != StatusResolved {
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
func longestUnresolvedChain(s *State, f *Facts) []string {
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

// Atom returns the atom with id, if any.
func (s *State) Atom(id string) (*Atom, bool) {
	for i := range s.Atoms {
		if s.Atoms[i].ID == id {
			return &s.Atoms[i], true
		}
	}
	return nil, false
}

// ORGroup returns the OR group named name, if any.
func (s *State) ORGroup(name string) (*ORGroup, bool) {
	for i := range s.ORGroups {
		if s.ORGroups[i].Name == name {
			return &s.ORGroups[i], true
		}
	}
	return nil, false
}

// Binding returns the binding of atom id, if any.
func (s *State) Binding(id string) (*Binding, bool) {
	for i := range s.Bindings {
		if s.Bindings[i].AtomID == id {
			return &s.Bindings[i], true
		}
	}
	return nil, false
}
