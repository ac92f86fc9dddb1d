package model

import (
	"slices"
	"sync"
)

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
	// sh is the shape the facts were derived with: the work graph with
	// its ids looked up, which Validate and StuckAtoms read rather than
	// look every id up again (nil for facts made otherwise).
	sh *shape
}

// Derive computes the facts of s in time linear in its size.
func Derive(s *State) *Facts { return derive(s, newShape(s), nil) }

// A Deriver derives the facts of the successive states of one loop, as a
// watcher reads them. When a state's work graph has the shape of the last
// one's — the same atom ids in the same order with the same dependencies
// and OR groups, the same OR group choices and decompositions — as after a
// write that changed only statuses or the control block, what depends on
// the shape alone (Index, Dependents, ORGroupOf, ParentOf, ChildrenOf) is
// taken from the last facts rather than built again. The facts are those
// Derive returns, sharing those maps with the last ones (nothing modifies
// Facts). A Deriver is for one goroutine.
type Deriver struct {
	last  *State
	shape *shape
	// chain is the last facts' LongestChain.
	chain []string
}

// Derive returns Derive(s).
//
// The longest chain of unresolved atoms depends on the shape and on which
// atoms are unresolved: when a write changed neither (an atom went from
// pending to in_progress, say), it is the last one.
func (d *Deriver) Derive(s *State) *Facts {
	var chain *[]string
	switch {
	case d.shape == nil || d.last == nil || !sameShape(d.last, s):
		d.shape = newShape(s)
	case sameUnresolved(d.last, s, d.shape.first):
		chain = &d.chain
	}
	d.last = s
	f := derive(s, d.shape, chain)
	d.chain = f.LongestChain
	return f
}

// sameUnresolved reports whether the same atoms (the first of each id) are
// unresolved in a and b, of one shape.
func sameUnresolved(a, b *State, first []bool) bool {
	for i := range a.Atoms {
		if first[i] && a.Atoms[i].Status.Unresolved() != b.Atoms[i].Status.Unresolved() {
			return false
		}
	}
	return true
}

// Dependents maps an atom id to the atoms that depend on it, in file
// order: every id a depends_on names, an atom's or not, with the atoms
// naming it, each once. It is made when first asked for, once for the
// facts of one shape (a 10,000-atom map is a third of Derive's time and
// status never reads it); nil for facts made without Derive.
func (f *Facts) Dependents() map[string][]string {
	if f == nil || f.sh == nil {
		return nil
	}
	sh := f.sh
	sh.dependentsOnce.Do(func() {
		if sh.dependentsOf != nil {
			sh.dependents = dependents(sh.dependentsOf, sh.g)
			sh.dependentsOf = nil
		}
	})
	return sh.dependents
}

// SameShape reports whether f and g were derived from states whose work
// graphs have one shape — the same atom ids in the same order with the
// same dependencies and OR groups, the same OR group choices and
// decompositions — because one Deriver found it so and shares it between
// them. False says nothing: facts derived otherwise never share a shape.
func (f *Facts) SameShape(g *Facts) bool {
	return f != nil && g != nil && f.sh != nil && f.sh == g.sh
}

// shape is what Derive builds from the shape of the work graph alone.
// It is shared by the facts of states of one shape and never modified.
type shape struct {
	// ids finds the first atom of an id (find); index is the same as a
	// map, for Facts.Index: newShape's, not checkShape's. A shape made
	// from facts (shapeOf) has index and no table.
	ids   idTable
	index map[string]int
	first []bool // the atom is the first with its id
	g     depGraph
	// dependents is made from dependentsOf, a state of the shape, when
	// first asked for (Facts.Dependents), which then lets the state go:
	// a command that never reads it (status) never makes it.
	dependentsOnce sync.Once
	dependentsOf   *State
	dependents     map[string][]string
	orGroupOf      map[string]string
	// names indexes the OR groups by name.
	names      *groupNames
	parentOf   map[string]string
	childrenOf map[string][]string
	// orIn is, for each atom first with its id that is in an OR group
	// (orGroupOf), the index in State.ORGroups of the first group of
	// that name plus one; 0 for the others (orGroupFirst, orGroupLast).
	// Nil when there are no OR groups.
	orIn []int32
	// choiceAt is, for each choice of each OR group in order, the index
	// of the atom (the first with its id) it names, -1 for none;
	// choiceOff[k] is where group k's choices start (len(ORGroups)+1
	// long). Nil when there are no OR groups.
	choiceAt, choiceOff []int32
	// The decomposition children of atom i (first with its id) are
	// kids[kidOff[i]:kidOff[i+1]] in childrenOf's order, each the index of
	// the atom it names or -1; nil when there are no decompositions.
	kidOff, kids []int32
	// scratch, when not nil, is where the shape's slices come from
	// (int32s, bools): a shape Validate makes and drops.
	scratch *checkScratch
}

// orGroupFirst is the index of the OR group atom i (first with its id) is
// in, of the groups with its name the first (State.ORGroup's); -1 for
// none.
func (sh *shape) orGroupFirst(i int) int {
	if sh.orIn == nil {
		return -1
	}
	return int(sh.orIn[i]) - 1
}

// orGroupLast is orGroupFirst's last group of the name (the one whose
// selection counts); -1 for none.
func (sh *shape) orGroupLast(i int) int {
	if k := sh.orGroupFirst(i); k >= 0 {
		return int(sh.names.lastOf[k])
	}
	return -1
}

// find is the index of the first atom of s (of this shape) with id, and
// whether there is one.
func (sh *shape) find(s *State, id string) (int, bool) {
	if sh.ids.slots != nil {
		return sh.ids.find(id)
	}
	if i, ok := sh.index[id]; ok {
		return i, true
	}
	return -1, false
}

// children are the indexes of the decomposition children of atom i
// (first with its id); -1 for a child no atom has.
func (sh *shape) children(i int) []int32 {
	if sh.kidOff == nil {
		return nil
	}
	return sh.kids[sh.kidOff[i]:sh.kidOff[i+1]]
}

func newShape(s *State) *shape {
	// The facts' Index is a map, which newShape looks the ids up in:
	// building checkShape's table as well cost more than it saved.
	sh := &shape{first: make([]bool, len(s.Atoms))}
	sh.index = firstIndex(s, sh.first)
	sh.g = resolveDeps(s, sh)
	inGroups := 0
	for _, g := range s.ORGroups {
		inGroups += len(g.Choices)
	}
	sh.orGroupOf = make(map[string]string, inGroups)
	orGroupsOf(s, nil, sh.orGroupOf)
	sh.names = nameGroups(s.ORGroups)
	sh.orGroupIndexes(s, nil)
	sh.dependentsOf = s
	kids := 0
	for _, d := range s.Decompositions {
		kids += len(d.Children)
	}
	sh.parentOf = make(map[string]string, kids)
	sh.childrenOf = make(map[string][]string, len(s.Decompositions))
	for _, d := range s.Decompositions {
		for _, c := range d.Children {
			sh.parentOf[c] = d.Parent
			sh.childrenOf[d.Parent] = append(sh.childrenOf[d.Parent], c)
		}
	}
	sh.childIndexes(s)
	return sh
}

// checkShape is the part of newShape that Validate reads, with the ids in
// a table (idTable) rather than Facts.Index: the dependencies looked up and
// the OR groups' indexes; the maps of Facts (Index, Dependents, ORGroupOf,
// ParentOf, ChildrenOf) and the children's indexes are left out. Building them (Index and Dependents
// are maps of an entry an atom) grew faster than the atoms: map work at
// 100,000 atoms misses the caches (issue 26). What it builds are slices
// and one table of 8 bytes a slot, read in order or found in one probe.
//
// The table, the dependencies and what Validate reads of each atom besides
// (sum, an atomSum; its slices are sc's) are made in one pass over the
// atoms (scanAtoms).
func checkShape(s *State, sc *checkScratch, sum *atomSum) *shape {
	sh := &shape{scratch: sc}
	n := len(s.Atoms)
	sh.first = sh.bools(n)
	sum.st, sum.fields, sum.off, sum.depLine = sh.uint8s(n), sh.uint8s(n), sh.int32s(n+1), sh.int32s(n)
	sh.names = nameGroups(s.ORGroups)
	sum.orAtoms, sum.orGroup, sum.names, sum.groups = sc.orAtoms[:0], sc.orGroup[:0], sh.names, s.ORGroups
	sh.ids = scanAtoms(s.Atoms, sh.first, sc, sum)
	sc.orAtoms, sc.orGroup = sum.orAtoms, sum.orGroup
	sh.g = sum.g
	sh.orGroupIndexes(s, sum)
	return sh
}

// firstIndex indexes s's atoms by id, the first of each id, and marks
// those in first. One map assignment an atom, from the last atom to the
// first so the first of an id is the one that stays: at 100,000 atoms the
// map no longer fits a cache and each access is a miss (issue 26). An
// assignment that does not grow the map found an id again; only then are
// the atoms marked with lookups.
func firstIndex(s *State, first []bool) map[string]int {
	index := make(map[string]int, len(s.Atoms))
	dup := false
	for i := len(s.Atoms) - 1; i >= 0; i-- {
		before := len(index)
		index[s.Atoms[i].ID] = i
		dup = dup || len(index) == before
	}
	if !dup {
		for i := range first {
			first[i] = true
		}
		return index
	}
	for i, a := range s.Atoms {
		first[i] = index[a.ID] == i
	}
	return index
}

// orGroupIndexes fills orIn: for each atom, the group
// orGroupsOf gives its id (the group its or_group field names, when one
// has that name, of atoms with one id the last; else the first group
// that lists it), found through the ids' table rather than a map of ids.
// The groups are indexed by name in sh.names; the atoms with an or_group
// field, and the group it names, are sum's when it is not nil.
func (sh *shape) orGroupIndexes(s *State, sum *atomSum) {
	names := sh.names
	if len(s.ORGroups) == 0 {
		return
	}
	n := len(s.Atoms)
	sh.orIn = sh.int32s(n) // zero: in no group; a group's first of its name plus one
	sh.choiceOff = sh.int32s(len(s.ORGroups) + 1)
	for k, g := range s.ORGroups {
		sh.choiceOff[k+1] = sh.choiceOff[k] + int32(len(g.Choices))
	}
	sh.choiceAt = sh.int32s(int(sh.choiceOff[len(s.ORGroups)]))
	sh.choiceIndexes(s, sum)
	for k := range s.ORGroups {
		fk := names.firstOf[k] + 1
		for _, i := range sh.choiceAt[sh.choiceOff[k]:sh.choiceOff[k+1]] {
			if i >= 0 && sh.orIn[i] == 0 {
				sh.orIn[i] = fk
			}
		}
	}
	// The group an atom's or_group field names (k, a first of its name)
	// is its id's.
	named := func(i int, k int32) {
		j := i
		if !sh.first[i] {
			j, _ = sh.find(s, s.Atoms[i].ID)
		}
		sh.orIn[j] = k + 1
	}
	orAtomGroups(s, names, sum, func(i int, k int32) {
		if k >= 0 {
			named(i, k)
		}
	})
}

// choiceIndexes fills choiceAt. A group's choices are mostly atoms that
// name it in their or_group field (sum's orAtoms, when sum is not nil):
// a choice that is the id of one of those, the first of its id, is that
// atom; only the other choices are looked up, for a lookup reads the
// ids' table at random (issue 26).
func (sh *shape) choiceIndexes(s *State, sum *atomSum) {
	var look []int32 // the choices looked up, by their place in choiceAt
	if sum == nil {
		look = make([]int32, len(sh.choiceAt))
		for c := range look {
			look[c] = int32(c)
		}
	} else {
		// The atoms naming each group, a first of its name (as an
		// or_group field names it), one after the other from at[k].
		at := make([]int32, len(s.ORGroups)+1)
		for _, k := range sum.orGroup {
			if k >= 0 {
				at[k+1]++
			}
		}
		for k := range s.ORGroups {
			at[k+1] += at[k]
		}
		naming := make([]int32, at[len(s.ORGroups)])
		fill := slices.Clone(at[:len(s.ORGroups)])
		for x, k := range sum.orGroup {
			if k >= 0 {
				naming[fill[k]] = sum.orAtoms[x]
				fill[k]++
			}
		}
		for k := range s.ORGroups {
			atoms := naming[at[sh.names.firstOf[k]]:at[sh.names.firstOf[k]+1]]
			for x, choice := range s.ORGroups[k].Choices {
				// The atom in the choice's place first; the others only
				// when they are few, so that a group named by many
				// atoms costs a lookup a choice, not a pass over them.
				c := sh.choiceOff[k] + int32(x)
				sh.choiceAt[c] = -1
				if x < len(atoms) && sh.isFirst(int(atoms[x]), choice) {
					sh.choiceAt[c] = atoms[x]
				} else if len(atoms) <= 8 {
					for _, j := range atoms {
						if sh.isFirst(int(j), choice) {
							sh.choiceAt[c] = j
							break
						}
					}
				}
				if sh.choiceAt[c] < 0 {
					look = append(look, c)
				}
			}
		}
	}
	k := 0
	sh.findAt(s, sh.choiceAt, look, func(c int32) string {
		for c >= sh.choiceOff[k+1] {
			k++
		}
		return s.ORGroups[k].Choices[c-sh.choiceOff[k]]
	})
}

// childIndexes fills kidOff and kids.
func (sh *shape) childIndexes(s *State) {
	if len(sh.childrenOf) == 0 {
		return
	}
	n := len(s.Atoms)
	sh.kidOff = make([]int32, n+1)
	total := 0
	for parent, kids := range sh.childrenOf {
		if i, ok := sh.index[parent]; ok {
			sh.kidOff[i+1] = int32(len(kids))
			total += len(kids)
		}
	}
	for i := range n {
		sh.kidOff[i+1] += sh.kidOff[i]
	}
	sh.kids = make([]int32, total)
	for parent, kids := range sh.childrenOf {
		i, ok := sh.index[parent]
		if !ok {
			continue
		}
		at := sh.kidOff[i]
		for k, c := range kids {
			j, ok := sh.index[c]
			if !ok {
				j = -1
			}
			sh.kids[int(at)+k] = int32(j)
		}
	}
}

// shapeOf is the shape f was derived with, or, for facts made otherwise,
// one built from s and f's Index.
func shapeOf(s *State, f *Facts) *shape {
	if f.sh != nil {
		return f.sh
	}
	sh := &shape{index: f.Index, first: make([]bool, len(s.Atoms)), orGroupOf: f.ORGroupOf, childrenOf: f.ChildrenOf}
	for i, a := range s.Atoms {
		if k, ok := f.Index[a.ID]; ok && k == i {
			sh.first[i] = true
		}
	}
	sh.g = resolveDeps(s, sh)
	sh.names = nameGroups(s.ORGroups)
	sh.orGroupIndexes(s, nil)
	sh.childIndexes(s)
	return sh
}

// sameShape reports whether newShape(a) and newShape(b) are the same.
func sameShape(a, b *State) bool {
	if len(a.Atoms) != len(b.Atoms) || len(a.ORGroups) != len(b.ORGroups) || len(a.Decompositions) != len(b.Decompositions) {
		return false
	}
	for i := range a.Atoms {
		x, y := &a.Atoms[i], &b.Atoms[i]
		if x.ID != y.ID || x.ORGroup != y.ORGroup || !sameStrings(x.DependsOn, y.DependsOn) {
			return false
		}
	}
	for i := range a.ORGroups {
		if a.ORGroups[i].Name != b.ORGroups[i].Name || !slices.Equal(a.ORGroups[i].Choices, b.ORGroups[i].Choices) {
			return false
		}
	}
	for i := range a.Decompositions {
		if a.Decompositions[i].Parent != b.Decompositions[i].Parent || !slices.Equal(a.Decompositions[i].Children, b.Decompositions[i].Children) {
			return false
		}
	}
	return true
}

// sameStrings is slices.Equal, at once for the same slice (a re-read
// shares the atoms whose text did not change with the version before).
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// derive computes the facts of s, whose shape is sh; chain, when not nil,
// is its longest chain of unresolved atoms, known already.
func derive(s *State, sh *shape, chain *[]string) *Facts {
	f := &Facts{
		Index:      sh.index,
		ORGroupOf:  sh.orGroupOf,
		ParentOf:   sh.parentOf,
		ChildrenOf: sh.childrenOf,
		sh:         sh,
	}
	for _, a := range s.Atoms {
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
	for i, a := range s.Atoms {
		// Only the first of duplicate ids counts (duplicates are a validation error).
		if a.Status != StatusPending || !sh.first[i] {
			continue
		}
		if isExecutable(s, sh, i) {
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
	if chain != nil {
		f.LongestChain = *chain
	} else {
		f.LongestChain = longestUnresolvedChain(s, sh.g, sh.first)
	}
	f.Outstanding = outstanding(s, sh)
	return f
}

// outstanding counts the unresolved atoms of s that still need work
// (Facts.Outstanding).
func outstanding(s *State, sh *shape) int {
	n := 0
	for i, a := range s.Atoms {
		if !a.Status.Unresolved() {
			continue
		}
		k := i
		if !sh.first[i] {
			k, _ = sh.find(s, a.ID) // a repeated id: the group is its first's
		}
		if unselected(s, sh, k, a.ID) {
			continue
		}
		n++
	}
	return n
}

// unselected reports whether the atom id, first at index i, is an OR
// choice that its group (of the groups with the group's name, the last)
// does not select.
func unselected(s *State, sh *shape, i int, id string) bool {
	k := sh.orGroupLast(i)
	return k >= 0 && s.ORGroups[k].Selected != id
}

// depGraph is every atom's depends_on resolved once: the dependencies of
// atom i are dep[off[i]:off[i+1]], each the index of the atom it names
// (the first with that id) or -1 when none has it; repeat marks one that
// the same list names earlier. Looking ids up once, rather than in a map
// per use and a set per atom, is most of what made Derive fast enough to
// run on every change of a 10,000-atom file.
type depGraph struct {
	off    []int32
	dep    []int32
	repeat []bool
}

// clean reports whether atom i's dependencies are all atoms, each named
// once.
func (g *depGraph) clean(i int) bool {
	for p := g.off[i]; p < g.off[i+1]; p++ {
		if g.dep[p] < 0 || g.repeat[p] {
			return false
		}
	}
	return true
}

// resolveDeps resolves the atoms' dependencies through the shape's index
// (Validate's table does it in scanAtoms).
func resolveDeps(s *State, sh *shape) depGraph {
	total := 0
	for _, a := range s.Atoms {
		total += len(a.DependsOn)
	}
	g := depGraph{off: sh.int32s(len(s.Atoms) + 1), dep: sh.int32s(total), repeat: sh.bools(total)}
	k := 0
	for i := range s.Atoms {
		deps := s.Atoms[i].DependsOn
		g.off[i] = int32(k)
		seen := seenFor(deps)
		for j, d := range deps {
			x, _ := sh.find(s, d)
			g.dep[k] = int32(x)
			g.repeat[k] = repeated(deps, j, seen)
			k++
		}
	}
	g.off[len(s.Atoms)] = int32(k)
	return g
}

// seenFor is the set repeated keeps for a long dependency list (nil for a
// short one, which is scanned instead).
func seenFor(deps []string) map[string]bool {
	if len(deps) > 16 {
		return make(map[string]bool, len(deps))
	}
	return nil
}

// repeated reports whether deps[j] is named earlier in deps (seen, from
// seenFor, is filled as j goes up: call it for each j in order).
func repeated(deps []string, j int, seen map[string]bool) bool {
	d := deps[j]
	if seen != nil {
		was := seen[d]
		seen[d] = true
		return was
	}
	return slices.Contains(deps[:j], d)
}

// dependents maps each id named in a depends_on to the atoms naming it, in
// file order; the lists share one array (each capped at its length).
func dependents(s *State, g depGraph) map[string][]string {
	count := make([]int32, len(s.Atoms))
	var dangling map[string][]string // ids no atom has
	keys, total := 0, 0
	for i, a := range s.Atoms {
		for p := g.off[i]; p < g.off[i+1]; p++ {
			switch x := g.dep[p]; {
			case g.repeat[p]:
			case x < 0:
				if dangling == nil {
					dangling = map[string][]string{}
				}
				d := a.DependsOn[p-g.off[i]]
				dangling[d] = append(dangling[d], a.ID)
			default:
				if count[x] == 0 {
					keys++
				}
				count[x]++
				total++
			}
		}
	}
	out := make(map[string][]string, keys+len(dangling))
	all := make([]string, total)
	next := make([]int32, len(s.Atoms)) // where atom x's next dependent goes
	at := int32(0)
	for x, c := range count {
		next[x] = at
		at += c
	}
	for i, a := range s.Atoms {
		for p := g.off[i]; p < g.off[i+1]; p++ {
			if x := g.dep[p]; x >= 0 && !g.repeat[p] {
				all[next[x]] = a.ID
				next[x]++
			}
		}
	}
	for x, c := range count {
		if c > 0 {
			end := next[x]
			out[s.Atoms[x].ID] = all[end-c : end : end]
		}
	}
	for d, ids := range dangling {
		out[d] = ids
	}
	return out
}

// isExecutable reports whether the pending atom i (first with its id) can
// start: its dependencies are all resolved atoms, so are its decomposition
// children that are atoms, and it is not an OR choice its group leaves
// unselected.
func isExecutable(s *State, sh *shape, i int) bool {
	g := sh.g
	for p := g.off[i]; p < g.off[i+1]; p++ {
		if x := g.dep[p]; x < 0 || s.Atoms[x].Status != StatusResolved {
			return false
		}
	}
	// A decomposed parent is a container: it resolves when its children do.
	for _, c := range sh.children(i) {
		if c >= 0 && s.Atoms[c].Status != StatusResolved {
			return false
		}
	}
	return !unselected(s, sh, i, s.Atoms[i].ID)
}

// longestUnresolvedChain runs a longest-path pass over unresolved atoms in
// topological order (Kahn); atoms on a cycle are left out.
func longestUnresolvedChain(s *State, g depGraph, first []bool) []string {
	n := len(s.Atoms)
	if n == 0 {
		return nil
	}
	unres := make([]bool, n)
	for i, a := range s.Atoms {
		unres[i] = a.Status.Unresolved() && first[i]
	}
	// edge reports whether dependency p of atom i is an edge between two
	// unresolved atoms (each counted once).
	edge := func(i int, p int32) bool {
		x := g.dep[p]
		return unres[i] && x >= 0 && unres[x] && !g.repeat[p]
	}
	indeg := make([]int32, n)
	outOff := make([]int32, n+1) // unresolved dependents of j: outs[outOff[j]:outOff[j+1]]
	for i := range s.Atoms {
		for p := g.off[i]; p < g.off[i+1]; p++ {
			if edge(i, p) {
				indeg[i]++
				outOff[g.dep[p]+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		outOff[j+1] += outOff[j]
	}
	outs := make([]int32, outOff[n])
	fill := make([]int32, n)
	copy(fill, outOff[:n])
	for i := range s.Atoms {
		for p := g.off[i]; p < g.off[i+1]; p++ {
			if edge(i, p) {
				x := g.dep[p]
				outs[fill[x]] = int32(i)
				fill[x]++
			}
		}
	}
	queue := make([]int32, 0, n)
	for i := range s.Atoms {
		if unres[i] && indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	length := make([]int32, n)
	prev := make([]int32, n)
	for i := range prev {
		prev[i] = -1
	}
	best := int32(-1)
	for q := 0; q < len(queue); q++ {
		i := queue[q]
		length[i]++
		if best < 0 || length[i] > length[best] {
			best = i
		}
		for _, j := range outs[outOff[i]:outOff[i+1]] {
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

// orGroupsOf fills into with the OR group of each atom id (of the ids
// only holds, or all when only is nil): the group its own or_group field
// names, when a group has that name (of atoms with one id, the last that
// names one), else the first group that lists it as a choice. It is the
// one rule for "which OR group is this atom in" (Facts.ORGroupOf,
// Intent.Defeated).
func orGroupsOf(s *State, only map[string]bool, into map[string]string) {
	named := make(map[string]bool, len(s.ORGroups))
	for _, g := range s.ORGroups {
		named[g.Name] = true
		for _, c := range g.Choices {
			if _, ok := into[c]; !ok && (only == nil || only[c]) {
				into[c] = g.Name
			}
		}
	}
	for _, a := range s.Atoms {
		if a.ORGroup != "" && named[a.ORGroup] && (only == nil || only[a.ID]) {
			into[a.ID] = a.ORGroup
		}
	}
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
