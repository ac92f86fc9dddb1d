package model

// The validator and the stuck finder as they were before they were made
// to read the work graph from the facts' shape (issue 26), kept to check
// the faster ones against (validate_diff_test.go). Only what issue 26
// changed is kept here; what it left alone is shared with them.

import (
	"fmt"
	"strings"
)

// StuckAtomsRef is StuckAtoms as it was.
func StuckAtomsRef(s *State, f *Facts) Stuck {
	if f.Outstanding == 0 {
		return Stuck{}
	}
	sf := stuckFinderRef{s: s, f: f, groups: orGroupsByName(s)}
	sf.finishable()
	var out Stuck
	for i, a := range s.Atoms {
		if f.Index[a.ID] == i && !sf.can[i] && a.Status.Unresolved() && sf.deselectedBy(a.ID) == "" {
			out.IDs = append(out.IDs, a.ID)
		}
	}
	if len(out.IDs) > 0 {
		out.Cause = stuckCause(s, f, sf.can, sf.deselectedBy, out.IDs[0]) // the cause is unchanged: shared
	}
	return out
}

// stuckFinderRef finds the stuck atoms of s.
type stuckFinderRef struct {
	s      *State
	f      *Facts
	groups map[string]*ORGroup
	// can marks, by atom index (first of each id), the atoms that are
	// resolved or will be.
	can []bool
}

// deselectedBy is the OR group that lists id as a choice and selects
// another ("" when none does).
func (sf *stuckFinderRef) deselectedBy(id string) string {
	name, ok := sf.f.ORGroupOf[id]
	if !ok {
		return ""
	}
	if g := sf.groups[name]; g != nil && g.Selected != id {
		return name
	}
	return ""
}

// finishable marks the atoms that are resolved or will be (sf.can):
// resolved and in-progress atoms (a worker is on them), then every
// pending atom, not an unselected OR choice, whose dependencies all exist
// and whose dependencies and decomposition children are all finishable.
func (sf *stuckFinderRef) finishable() {
	s, f := sf.s, sf.f
	n := len(s.Atoms)
	can := make([]bool, n)
	sf.can = can
	need := make([]int32, n)
	// waits are the pairs (j, i) of atom i waiting on atom j, as a
	// dependency or a decomposed parent on its child, once each: last[j]
	// is i+1 once i waits on j (i's pairs are made one after the other).
	type wait struct{ on, by int32 }
	total := 0
	for _, a := range s.Atoms {
		total += len(a.DependsOn)
	}
	waits := make([]wait, 0, total+len(f.ParentOf))
	last := make([]int32, n)
	queue := make([]int32, 0, n)
	for i, a := range s.Atoms {
		if f.Index[a.ID] != i {
			continue
		}
		switch a.Status {
		case StatusResolved, StatusInProgress:
			can[i] = true
			queue = append(queue, int32(i))
			continue
		case StatusPending:
		default:
			continue // a status the loop does not know: it never runs
		}
		if sf.deselectedBy(a.ID) != "" {
			continue
		}
		by := int32(i)
		on := func(j int) {
			if last[j] != by+1 {
				last[j] = by + 1
				waits = append(waits, wait{int32(j), by})
				need[i]++
			}
		}
		blocked := false
		for _, d := range a.DependsOn {
			j, ok := f.Index[d]
			if !ok {
				blocked = true
				break
			}
			on(j)
		}
		for _, c := range f.ChildrenOf[a.ID] {
			if j, ok := f.Index[c]; ok {
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

// validatorRef is the validator with the checks issue 26 changed as they
// were; the checks it left alone (objective, control, decompositions,
// trail, loop tools, …) are the validator's own, promoted from the
// embedded one, for comparing a copy of them with themselves would test
// nothing.
type validatorRef struct {
	validator
}

// ValidateRef is ValidateWith as it was before it was made incremental
// (issue 26), kept to check the faster one against.
func ValidateRef(s *State, f *Facts) Report {
	v := &validatorRef{validator{s: s, f: f, badValue: make(map[string]bool, len(s.Problems))}}
	v.r.AtomCount = len(s.Atoms)
	for _, p := range s.Problems {
		v.r.add(true, p)
		v.badValue[p.Path] = true
	}
	v.sections()
	v.objective()
	v.control()
	v.atoms()
	v.cycles()
	v.resolvedTooEarly()
	v.orGroups()
	v.orDeadEnds()
	v.decompositions()
	v.bindings()
	v.trailAndCorrections()
	v.loopTools()
	v.r.finish()
	v.atomsOf()
	return v.r
}

func (v *validatorRef) atoms() {
	if v.s.Lines.Has("atoms") && len(v.s.Atoms) == 0 {
		v.errf(v.s.Lines.Line("atoms"), "atoms", "no atoms defined (must have at least 1)")
	}
	// An atom's OR group and whether it lists the atom, looked up, not
	// scanned for: with one group per few atoms a scan per atom made
	// validate quadratic (issue 26).
	groups := orGroupsByName(v.s)
	type choice struct{ group, atom string }
	listed := map[choice]bool{}
	for _, g := range v.s.ORGroups {
		for _, c := range g.Choices {
			listed[choice{g.Name, c}] = true
		}
	}
	for i, a := range v.s.Atoms {
		p := fmt.Sprintf("atoms[%d]", i)
		name := a.ID
		if a.ID == "" {
			v.errf(a.Line, p+".id", "%s has no id", p)
			name = p
		} else if first := v.f.Index[a.ID]; first != i {
			v.errf(a.Line, p+".id", "duplicate atom id %s (first defined on line %d)", a.ID, v.s.Atoms[first].Line)
		}
		if !a.Lines.Has("description") {
			v.warnf(a.Line, p+".description", "atom %s has no description", name)
		}
		switch {
		case !a.Lines.Has("status"):
			v.errf(a.Line, p+".status", "atom %s has no status", name)
		case !a.Status.Known():
			v.errf(a.Lines.Line("status"), p+".status", "atom %s has status %q; expected pending, in_progress or resolved", name, a.Status)
		}
		if !a.Lines.Has("depends_on") {
			v.warnf(a.Line, p+".depends_on", "atom %s has no depends_on (write depends_on: [] when it has none)", name)
		}
		seen := map[string]bool{}
		for _, d := range a.DependsOn {
			if seen[d] {
				v.warnf(a.Lines.Line("depends_on"), p+".depends_on", "atom %s lists dependency %s twice", name, d)
			}
			seen[d] = true
			if _, ok := v.f.Index[d]; !ok {
				v.errf(a.Lines.Line("depends_on"), p+".depends_on", "atom %s depends on %s, which does not exist (the loop could never finish)", name, d)
			}
		}
		if a.ORGroup != "" {
			g, ok := groups[a.ORGroup]
			switch {
			case !ok:
				v.warnf(a.Lines.Line("or_group"), p+".or_group", "atom %s names OR group %s, which is not defined in or_groups", name, a.ORGroup)
			case !listed[choice{g.Name, a.ID}]:
				v.warnf(a.Lines.Line("or_group"), p+".or_group", "atom %s names OR group %s, whose choices do not list it", name, a.ORGroup)
			}
		}
	}
}

// resolvedTooEarly reports a resolved atom that depends on an unresolved
// one. It is an error, not a warning: the loop resolves an atom only after
// a worker ran it, and a worker runs only an atom whose every depends_on is
// resolved (seed 000 §7; the coordinator's executable atoms; the state
// transition pending → in_progress → resolved, §5.2), and a redo resets
// the dependents of what it redoes (seed 003 §8.3). So the atom's work was
// done without the work it depends on, and the loop will not do it again:
// the loop would complete with it wrong. It happens when a worker's
// result lands on an atom a correction had reset under it (see
// model.Interrupt). Dependencies that are not atoms, or whose status is
// not one the loop knows, are reported as such elsewhere.
func (v *validatorRef) resolvedTooEarly() {
	for i, a := range v.s.Atoms {
		if a.Status != StatusResolved || v.f.Index[a.ID] != i {
			continue
		}
		for _, d := range a.DependsOn {
			j, ok := v.f.Index[d]
			if !ok || !v.s.Atoms[j].Status.Unresolved() {
				continue
			}
			line := a.Lines.Line("status")
			if line == 0 {
				line = a.Line
			}
			v.errf(line, fmt.Sprintf("atoms[%d].status", i),
				"atom %s is resolved but depends on %s, which is %s: its work was done without %s's (redo it: aot-tui redirect override-binding %s --redo)",
				a.ID, d, v.s.Atoms[j].Status, d, a.ID)
			break
		}
	}
}

// cycles reports each dependency cycle once, as a path A1 -> A2 -> A1
// (read "depends on"), with an iterative DFS so long chains cannot
// overflow the stack.
func (v *validatorRef) cycles() {
	atoms := v.s.Atoms
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(atoms))
	reported := map[string]bool{}
	type frame struct{ node, next int }
	for start := range atoms {
		if color[start] != white || v.f.Index[atoms[start].ID] != start {
			continue
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			deps := atoms[top.node].DependsOn
			if top.next >= len(deps) {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			j, ok := v.f.Index[deps[top.next]]
			top.next++
			if !ok {
				continue
			}
			switch color[j] {
			case white:
				color[j] = grey
				stack = append(stack, frame{j, 0})
			case grey:
				// Back edge: the cycle is the stack from j to the top.
				var ids []string
				k := len(stack) - 1
				for stack[k].node != j {
					k--
				}
				for _, fr := range stack[k:] {
					ids = append(ids, atoms[fr.node].ID)
				}
				key := canonicalCycle(ids)
				if !reported[key] && len(reported) < 20 {
					reported[key] = true
					n := len(v.r.Problems)
					v.errf(atoms[j].Line, fmt.Sprintf("atoms[%d].depends_on", j), "circular dependency: %s", strings.Join(append(ids, atoms[j].ID), " -> "))
					if len(v.r.Problems) > n {
						v.r.Problems[n].Atoms = ids
					}
				}
			}
		}
	}
}

func (v *validatorRef) orGroups() {
	for _, g := range v.s.ORGroups {
		p := "or_groups." + g.Name
		if len(g.Choices) == 0 {
			v.errf(g.Line, p+".choices", "OR group %s has no choices", g.Name)
		}
		for _, c := range g.Choices {
			if _, ok := v.f.Index[c]; !ok {
				v.warnf(g.Lines.Line("choices"), p+".choices", "OR group %s lists choice %s, which is not an atom (yet)", g.Name, c)
			}
		}
		switch {
		case !g.Lines.Has("selected") || g.Selected == "":
			v.warnf(g.Line, p+".selected", "OR group %s has no selected choice", g.Name)
		case !contains(g.Choices, g.Selected):
			v.errf(g.Lines.Line("selected"), p+".selected", "OR group %s selects %s, which is not among its choices %v", g.Name, g.Selected, g.Choices)
		case contains(g.Failed, g.Selected):
			v.warnf(g.Lines.Line("selected"), p+".selected", "OR group %s selects %s, which is listed as failed", g.Name, g.Selected)
		}
		if !g.Lines.Has("failed") {
			v.warnf(g.Line, p+".failed", "OR group %s has no failed list (write failed: [])", g.Name)
		}
		for _, fl := range g.Failed {
			if !contains(g.Choices, fl) {
				v.warnf(g.Lines.Line("failed"), p+".failed", "OR group %s lists failed choice %s, which is not among its choices", g.Name, fl)
			}
		}
	}
}

// orDeadEnds warns about pending atoms that wait on an OR choice the group
// does not select (a failed one or an unused alternative) and that is not
// resolved: such a choice never runs, so neither can they. Forcing the
// group to another choice moves them onto it; the loop's own backtrack
// does the same. Unselected choices themselves are left out: they are not
// expected to run.
func (v *validatorRef) orDeadEnds() {
	if len(v.s.ORGroups) == 0 {
		return
	}
	groups := orGroupsByName(v.s)
	// unselected returns the group of an unresolved OR choice it does not
	// select.
	unselected := func(id string) *ORGroup {
		name, ok := v.f.ORGroupOf[id]
		if !ok {
			return nil
		}
		g := groups[name]
		if g == nil || g.Selected == id {
			return nil
		}
		if j, ok := v.f.Index[id]; !ok || v.s.Atoms[j].Status == StatusResolved {
			return nil
		}
		return g
	}
	for i, a := range v.s.Atoms {
		if a.Status != StatusPending || v.f.Index[a.ID] != i || unselected(a.ID) != nil {
			continue
		}
		for _, d := range a.DependsOn {
			g := unselected(d)
			if g == nil {
				continue
			}
			sel := g.Selected
			if sel == "" {
				sel = "nothing"
			}
			p := fmt.Sprintf("atoms[%d].depends_on", i)
			if contains(g.Failed, d) {
				v.warnf(a.Lines.Line("depends_on"), p, "atom %s depends on %s, which failed in OR group %s (it selects %s): %s can never run", a.ID, d, g.Name, sel, a.ID)
			} else {
				v.warnf(a.Lines.Line("depends_on"), p, "atom %s depends on %s, which OR group %s does not select (it selects %s): %s can never run", a.ID, d, g.Name, sel, a.ID)
			}
		}
	}
}

func (v *validatorRef) bindings() {
	bound := make(map[string]bool, len(v.s.Bindings))
	for _, b := range v.s.Bindings {
		bound[b.AtomID] = true
		j, ok := v.f.Index[b.AtomID]
		switch {
		case !ok:
			v.warnf(b.Line, "bindings."+b.AtomID, "binding for %s, which is not an atom", b.AtomID)
		case v.s.Atoms[j].Status != StatusResolved:
			v.warnf(b.Line, "bindings."+b.AtomID, "binding for %s, which is %s (stale: bindings belong to resolved atoms)", b.AtomID, v.s.Atoms[j].Status)
		}
	}
	for i, a := range v.s.Atoms {
		if a.Status == StatusResolved && !bound[a.ID] && v.f.Index[a.ID] == i {
			v.warnf(a.Line, fmt.Sprintf("atoms[%d]", i), "atom %s is resolved but has no binding", a.ID)
		}
	}
}

// WithoutShape is f without the shape it was derived with, to compare
// with facts made otherwise.
func WithoutShape(f *Facts) *Facts {
	c := *f
	c.sh = nil
	return &c
}

// orGroupsByName indexes s's OR groups by name; of groups with one name
// the first counts, as in State.ORGroup.
func orGroupsByName(s *State) map[string]*ORGroup {
	groups := make(map[string]*ORGroup, len(s.ORGroups))
	for i := range s.ORGroups {
		if g := &s.ORGroups[i]; groups[g.Name] == nil {
			groups[g.Name] = g
		}
	}
	return groups
}
