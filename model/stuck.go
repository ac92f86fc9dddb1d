package model

import "fmt"

// Stuck are the atoms a loop can never finish as its work graph stands:
// outstanding atoms (unresolved, not an OR choice its group leaves
// unselected) that no order of work will ever make executable, because
// what they wait on, directly or through other atoms, does not exist, has
// a status the loop does not know, is an OR choice its group does not
// select, or waits on them in turn (a dependency cycle). The loop's
// coordinator completes only when every atom is resolved, so a loop with
// stuck atoms runs what it can and then stalls until its stall limit ends
// it, unless someone corrects the graph.
type Stuck struct {
	// IDs are the stuck atoms, in file order.
	IDs []string
	// Cause says why the first of them can never run, following what it
	// waits on to the root ("A6 waits on A9, which does not exist"); ""
	// when none is stuck.
	Cause string
}

// StuckAtoms finds the atoms of s that can never run (see Stuck), in
// time linear in the size of the graph: starting from the atoms that are
// resolved or under way, it marks every atom whose dependencies and
// decomposition children can all finish, as the loop would run them; the
// outstanding atoms never marked are stuck.
func StuckAtoms(s *State, f *Facts) Stuck {
	if f.Outstanding == 0 {
		return Stuck{}
	}
	sf := stuckFinder{s: s, f: f, sh: shapeOf(s, f)}
	sf.finishable()
	var out Stuck
	for i := range s.Atoms {
		a := &s.Atoms[i]
		if sf.sh.first[i] && !sf.can[i] && a.Status.Unresolved() && sf.deselected(i) == "" {
			out.IDs = append(out.IDs, a.ID)
		}
	}
	if len(out.IDs) > 0 {
		out.Cause = sf.cause(out.IDs[0])
	}
	return out
}

// stuckFinder finds the stuck atoms of s.
type stuckFinder struct {
	s *State
	f *Facts
	// sh is the work graph of s with its ids looked up (f's shape).
	sh *shape
	// can marks, by atom index (first of each id), the atoms that are
	// resolved or will be.
	can []bool
	// asPending has finishable take every atom of a known status for a
	// pending one (stuckMemo's lower bound of can).
	asPending bool
}

// stuckMemo is what StuckAtoms found of the last states of one loop that
// holds for the next while the work graph's shape and the OR groups'
// selections stay: whether no atom can be stuck whatever the known
// statuses are. Its atoms method returns StuckAtoms(s, f).
//
// A resolved or in-progress atom is always finishable, a pending one when
// what it waits on is: so the atoms finishable when every atom of a known
// status is taken for pending (can with asPending) are finishable under
// any known statuses. When that set holds every atom that is not an OR
// choice its group leaves unselected, no atom is stuck while every status
// is known — a status-only write (the loop's usual one) then costs a pass
// over the statuses instead of the whole search (issue 26).
type stuckMemo struct {
	sh       *shape
	selected []string
	// clear: every first atom of the shape that its OR group does not
	// leave unselected is finishable when every atom is pending.
	clear bool
}

// atoms returns StuckAtoms(s, f).
func (m *stuckMemo) atoms(s *State, f *Facts) Stuck {
	if f.Outstanding == 0 {
		return Stuck{}
	}
	sh := shapeOf(s, f)
	if m.sh != sh || !sameSelections(m.selected, s.ORGroups) {
		m.sh, m.selected = sh, m.selected[:0]
		for _, g := range s.ORGroups {
			m.selected = append(m.selected, g.Selected)
		}
		sf := stuckFinder{s: s, f: f, sh: sh, asPending: true}
		sf.finishable()
		m.clear = true
		for i := range s.Atoms {
			if sh.first[i] && !sf.can[i] && sf.deselected(i) == "" {
				m.clear = false
				break
			}
		}
	}
	if m.clear && allKnown(s.Atoms) {
		return Stuck{}
	}
	return StuckAtoms(s, f)
}

// sameSelections reports whether groups select what selected lists, in
// order.
func sameSelections(selected []string, groups []ORGroup) bool {
	if len(selected) != len(groups) {
		return false
	}
	for k := range groups {
		if groups[k].Selected != selected[k] {
			return false
		}
	}
	return true
}

// allKnown reports whether every atom has a status the loop knows.
func allKnown(atoms []Atom) bool {
	for i := range atoms {
		if !atoms[i].Status.Known() {
			return false
		}
	}
	return true
}

// deselectedBy is the OR group that lists id as a choice and selects
// another ("" when none does).
func (sf *stuckFinder) deselectedBy(id string) string {
	if i, ok := sf.f.Index[id]; ok {
		return sf.deselected(i)
	}
	// Not an atom (cause asks only about atoms).
	name, ok := sf.f.ORGroupOf[id]
	if !ok {
		return ""
	}
	if g, ok := sf.s.ORGroup(name); ok && g.Selected != id {
		return name
	}
	return ""
}

// deselected is deselectedBy of atom i (first with its id).
func (sf *stuckFinder) deselected(i int) string {
	k := sf.sh.orGroupFirst(i)
	if k < 0 {
		return ""
	}
	if g := &sf.s.ORGroups[k]; g.Selected != sf.s.Atoms[i].ID {
		return g.Name
	}
	return ""
}

// finishable marks the atoms that are resolved or will be (sf.can):
// resolved and in-progress atoms (a worker is on them), then every
// pending atom, not an unselected OR choice, whose dependencies all exist
// and whose dependencies and decomposition children are all finishable.
func (sf *stuckFinder) finishable() {
	s, sh := sf.s, sf.sh
	g := sh.g
	n := len(s.Atoms)
	can := make([]bool, n)
	sf.can = can
	need := make([]int32, n)
	// waits are the pairs (j, i) of atom i waiting on atom j, as a
	// dependency or a decomposed parent on its child, once each: last[j]
	// is i+1 once i waits on j (i's pairs are made one after the other).
	type wait struct{ on, by int32 }
	waits := make([]wait, 0, len(g.dep)+len(sh.kids))
	last := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := range s.Atoms {
		if !sh.first[i] {
			continue
		}
		status := s.Atoms[i].Status
		if sf.asPending && status.Known() {
			status = StatusPending
		}
		switch status {
		case StatusResolved, StatusInProgress:
			can[i] = true
			queue = append(queue, int32(i))
			continue
		case StatusPending:
		default:
			continue // a status the loop does not know: it never runs
		}
		if sf.deselected(i) != "" {
			continue
		}
		by := int32(i)
		on := func(j int32) {
			if last[j] != by+1 {
				last[j] = by + 1
				waits = append(waits, wait{j, by})
				need[i]++
			}
		}
		blocked := false
		for p := g.off[i]; p < g.off[i+1]; p++ {
			j := g.dep[p]
			if j < 0 {
				blocked = true
				break
			}
			on(j)
		}
		for _, j := range sh.children(i) {
			if j >= 0 {
				on(j)
			}
		}
		switch {
		case blocked:
			need[i] = -1 // never: it waits on an atom that does not exist
		case need[i] == 0:
			can[i] = true
			queue = append(queue, by)
		}
	}
	// The waiters of atom j are waiters[off[j]:off[j+1]].
	off := make([]int32, n+1)
	for _, w := range waits {
		off[w.on+1]++
	}
	for j := 0; j < n; j++ {
		off[j+1] += off[j]
	}
	waiters := make([]int32, len(waits))
	fill := last // no longer needed: where atom j's next waiter goes
	copy(fill, off[:n])
	for _, w := range waits {
		waiters[fill[w.on]] = w.by
		fill[w.on]++
	}
	for q := 0; q < len(queue); q++ {
		x := queue[q]
		for _, w := range waiters[off[x]:off[x+1]] {
			if need[w] <= 0 {
				continue
			}
			need[w]--
			if need[w] == 0 {
				can[w] = true
				queue = append(queue, w)
			}
		}
	}
}

// cause says why atom x can never run: it follows the first of its
// dependencies (then of a decomposed parent's children) that cannot
// finish, down to what it waits on for good: an atom that does not exist
// or has a status the loop does not know, an OR choice its group does not
// select, or an atom already passed (a dependency cycle).
func (sf *stuckFinder) cause(x string) string {
	return stuckCause(sf.s, sf.f, sf.can, sf.deselectedBy, x)
}

// stuckCause is cause with what it reads passed in: can marks the atoms
// that can finish, deselectedBy names the OR group that leaves an id
// unselected. StuckAtomsRef shares it with its own deselectedBy.
func stuckCause(s *State, f *Facts, can []bool, deselectedBy func(string) string, x string) string {
	seen := map[string]bool{}
	for x != "" {
		seen[x] = true
		next := ""
		for _, d := range s.Atoms[f.Index[x]].DependsOn {
			j, ok := f.Index[d]
			switch {
			case !ok:
				return fmt.Sprintf("%s waits on %s, which does not exist", x, d)
			case can[j]:
				continue
			case !s.Atoms[j].Status.Known():
				return fmt.Sprintf("%s waits on %s, whose status %q the loop does not know", x, d, s.Atoms[j].Status)
			}
			if g := deselectedBy(d); g != "" {
				return fmt.Sprintf("%s waits on %s, which OR group %s does not select", x, d, g)
			}
			if next == "" {
				next = d
			}
		}
		if next == "" {
			// A decomposed parent waits on its children.
			for _, c := range f.ChildrenOf[x] {
				j, ok := f.Index[c]
				if !ok || can[j] {
					continue
				}
				if !s.Atoms[j].Status.Known() {
					return fmt.Sprintf("%s waits on its child %s, whose status %q the loop does not know", x, c, s.Atoms[j].Status)
				}
				if g := deselectedBy(c); g != "" {
					return fmt.Sprintf("%s waits on its child %s, which OR group %s does not select", x, c, g)
				}
				next = c
				break
			}
		}
		if next != "" && seen[next] {
			return fmt.Sprintf("%s waits on %s, on a dependency cycle", x, next)
		}
		x = next
	}
	return "every pending atom waits on another"
}
