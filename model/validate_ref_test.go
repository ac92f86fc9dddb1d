package model

// The validator and the stuck finder as they were before they were made
// to read the work graph from the facts' shape (issue 26), kept to check
// the faster ones against (validate_diff_test.go).

import (
	"fmt"
	"math"
	"strconv"
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
		out.Cause = sf.cause(out.IDs[0])
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

// cause says why atom x can never run: it follows the first of its
// dependencies (then of a decomposed parent's children) that cannot
// finish, down to what it waits on for good: an atom that does not exist
// or has a status the loop does not know, an OR choice its group does not
// select, or an atom already passed (a dependency cycle).
func (sf *stuckFinderRef) cause(x string) string {
	s, f, can := sf.s, sf.f, sf.can
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
			if g := sf.deselectedBy(d); g != "" {
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
				if g := sf.deselectedBy(c); g != "" {
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

type validatorRef struct {
	s *State
	f *Facts
	r Report
	// badValue holds the paths of values the decoder found of the wrong
	// type. Such a value was decoded as its zero value; a finding about
	// that zero ("constraints.max_iterations is 0") would be misleading,
	// so each value is reported once, as the type error.
	badValue map[string]bool
}

func (v *validatorRef) errf(line int, path, format string, args ...any) {
	if v.badValue[path] {
		return
	}
	v.r.add(true, Problem{Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (v *validatorRef) warnf(line int, path, format string, args ...any) {
	if v.badValue[path] {
		return
	}
	v.r.add(false, Problem{Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
}

// ValidateRef is ValidateWith as it was before it was made incremental
// (issue 26), kept to check the faster one against.
func ValidateRef(s *State, f *Facts) Report {
	v := &validatorRef{s: s, f: f, badValue: make(map[string]bool, len(s.Problems))}
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

// atomsOf names the atom of each finding whose path is in one
// ("atoms[3].depends_on") and that names none yet.
func (v *validatorRef) atomsOf() {
	for i := range v.r.Problems {
		p := &v.r.Problems[i]
		if p.Atoms != nil {
			continue
		}
		rest, ok := strings.CutPrefix(p.Path, "atoms[")
		if !ok {
			continue
		}
		n, _, ok := strings.Cut(rest, "]")
		if !ok {
			continue
		}
		if k, err := strconv.Atoi(n); err == nil && k >= 0 && k < len(v.s.Atoms) && v.s.Atoms[k].ID != "" {
			p.Atoms = []string{v.s.Atoms[k].ID}
		}
	}
}

func (v *validatorRef) sections() {
	for _, sec := range []string{"objective", "control", "atoms"} {
		if !v.s.Lines.Has(sec) {
			v.errf(0, sec, "missing required section: %s", sec)
		}
	}
	for _, sec := range []string{"bindings", "trail", "corrections"} {
		if !v.s.Lines.Has(sec) {
			v.warnf(0, sec, "missing section %s: the schema requires it (write %s)", sec, emptyOf(sec))
		}
	}
}

func (v *validatorRef) objective() {
	o := v.s.Objective
	if !v.s.Lines.Has("objective") {
		return
	}
	line := v.s.Lines.Line("objective")
	if !o.Lines.Has("goal") {
		v.errf(line, "objective.goal", "missing objective.goal")
	} else if strings.TrimSpace(o.Goal) == "" {
		v.warnf(o.Lines.Line("goal"), "objective.goal", "objective.goal is empty")
	}
	if !o.Lines.Has("base_case") {
		v.errf(line, "objective.base_case", "missing objective.base_case")
	} else {
		v.baseCase(o.BaseCase, o.Lines.Line("base_case"))
	}
	for _, k := range []string{"background_intent", "deliverables", "definition_of_done"} {
		if !o.Lines.Has(k) {
			v.warnf(line, "objective."+k, "missing objective.%s (the /enter-recursion gate requires it)", k)
		}
	}
	c := o.Constraints
	if !o.Lines.Has("constraints") {
		v.warnf(line, "objective.constraints", "missing objective.constraints: the loop falls back to %d iterations, %d agents, %d stalls",
			DefaultMaxIterations, DefaultMaxParallelAgents, DefaultMaxStallCount)
		return
	}
	for _, lim := range []struct {
		key string
		val int
	}{{"max_iterations", c.MaxIterations}, {"max_parallel_agents", c.MaxParallelAgents}, {"max_stall_count", c.MaxStallCount}} {
		if !c.Lines.Has(lim.key) {
			v.warnf(o.Lines.Line("constraints"), "constraints."+lim.key, "missing constraints.%s", lim.key)
		} else if lim.val <= 0 {
			v.errf(c.Lines.Line(lim.key), "constraints."+lim.key, "constraints.%s is %d; it must be a positive integer", lim.key, lim.val)
		}
	}
}

func (v *validatorRef) baseCase(b BaseCase, line int) {
	if b.Legacy != nil && b.IsChecklist {
		v.warnf(line, "objective.base_case", "objective.base_case has both type/value and a checklist; the checklist is used")
	}
	switch {
	case b.IsChecklist:
		if len(b.Checklist) == 0 {
			v.errf(line, "objective.base_case.checklist", "objective.base_case.checklist is empty: the loop could never verify completion")
		}
		v.checklist(b.Checklist, "base_case.checklist")
	case b.Legacy != nil:
		v.check(b.Legacy, "objective.base_case", line, false)
	default:
		v.errf(line, "objective.base_case", "objective.base_case defines no check: give {type, value} or a checklist")
	}
}

func (v *validatorRef) checklist(items []ChecklistItem, path string) {
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		name := it.Item
		if name == "" {
			v.warnf(it.Line, p+".item", "checklist item %s has no item name", p)
			name = p
		}
		kinds := 0
		for _, has := range []bool{it.Check != nil, it.IsGroup, it.IsAnyOf} {
			if has {
				kinds++
			}
		}
		switch {
		case kinds == 0:
			v.errf(it.Line, p, "checklist item %q has no check, group or any_of", name)
		case kinds > 1:
			v.warnf(it.Line, p, "checklist item %q has more than one of check, group and any_of", name)
		}
		if it.Check != nil {
			v.check(it.Check, p+".check", it.Line, true)
		}
		if it.IsGroup {
			if len(it.Group) == 0 {
				v.warnf(it.Line, p+".group", "checklist group %q is empty", name)
			}
			v.checklist(it.Group, p+".group")
		}
		if it.IsAnyOf {
			if len(it.AnyOf) == 0 {
				v.errf(it.Line, p+".any_of", "checklist any_of %q is empty: no choice could ever pass", name)
			}
			v.checklist(it.AnyOf, p+".any_of")
		}
	}
}

func (v *validatorRef) check(c *Check, path string, line int, checklist bool) {
	if c.Line > 0 {
		line = c.Line
	}
	switch {
	case c.Type == "":
		v.errf(line, path+".type", "%s has no type", path)
		return
	case !c.Type.Known():
		v.errf(line, path+".type", "%s has unknown type %q; expected one of %s", path, c.Type, joinTypes())
		return
	}
	if !checklist && (c.Type == CheckNotCommand || c.Type == CheckNotFile || c.Type == CheckQuality) {
		v.warnf(line, path+".type", "%s type %s needs the checklist format (schema v1.3); the legacy format knows command, file and assertion", path, c.Type)
	}
	if c.Type != CheckQuality {
		if strings.TrimSpace(c.Value) == "" {
			v.errf(line, path+".value", "%s (%s) has no value", path, c.Type)
		}
		return
	}
	if len(c.Rubric) == 0 && strings.TrimSpace(c.Criteria) == "" {
		v.errf(line, path, "%s is a quality check without rubric or criteria", path)
	}
	if !c.HasThreshold {
		v.warnf(line, path+".pass_threshold", "%s has no pass_threshold", path)
	} else if c.PassThreshold < 1 || c.PassThreshold > 5 {
		v.warnf(line, path+".pass_threshold", "%s pass_threshold %g is outside the 1–5 scale", path, c.PassThreshold)
	}
	if len(c.Rubric) > 0 {
		sum := 0.0
		for i, r := range c.Rubric {
			if r.Criterion == "" {
				v.warnf(r.Line, fmt.Sprintf("%s.rubric[%d]", path, i), "%s.rubric[%d] has no criterion", path, i)
			}
			if r.Weight < 0 {
				v.errf(r.Line, fmt.Sprintf("%s.rubric[%d].weight", path, i), "%s.rubric[%d] has a negative weight", path, i)
			}
			for _, l := range r.Levels {
				if l.Score < 1 || l.Score > 5 {
					v.warnf(r.Line, fmt.Sprintf("%s.rubric[%d].levels", path, i), "%s.rubric[%d] has level %d outside the 1–5 scale", path, i, l.Score)
				}
			}
			sum += r.Weight
		}
		if math.Abs(sum-1) > 0.01 {
			v.warnf(line, path+".rubric", "%s rubric weights add up to %g, not 1", path, sum)
		}
	}
}

func (v *validatorRef) control() {
	c := v.s.Control
	if !v.s.Lines.Has("control") {
		return
	}
	line := v.s.Lines.Line("control")
	for _, k := range []string{"status", "iteration", "stall_count", "prev_pending_count", "stop_requested", "redirect_requested"} {
		if !c.Lines.Has(k) {
			v.warnf(line, "control."+k, "missing control.%s", k)
		}
	}
	if c.Lines.Has("status") && !c.Status.Known() {
		v.errf(c.Lines.Line("status"), "control.status", "control.status is %q; expected pending, running, stopped or completed", c.Status)
	}
	if c.Iteration < 0 {
		v.errf(c.Lines.Line("iteration"), "control.iteration", "control.iteration is %d; it cannot be negative", c.Iteration)
	}
	if c.StallCount < 0 {
		v.errf(c.Lines.Line("stall_count"), "control.stall_count", "control.stall_count is %d; it cannot be negative", c.StallCount)
	}
	if c.PrevPendingCount < -1 {
		v.errf(c.Lines.Line("prev_pending_count"), "control.prev_pending_count", "control.prev_pending_count is %d; -1 means first iteration, lower is invalid", c.PrevPendingCount)
	}
	cons := v.s.Objective.Constraints
	if max := cons.EffectiveMaxIterations(); c.Iteration > max {
		v.warnf(c.Lines.Line("iteration"), "control.iteration", "control.iteration %d is past max_iterations %d", c.Iteration, max)
	}
	if max := cons.EffectiveMaxStallCount(); c.StallCount > max {
		v.warnf(c.Lines.Line("stall_count"), "control.stall_count", "control.stall_count %d is past max_stall_count %d", c.StallCount, max)
	}
	if c.Status == LoopCompleted && v.f.Outstanding > 0 {
		v.warnf(c.Lines.Line("status"), "control.status", "control.status is completed but %d atoms still need work", v.f.Outstanding)
	}
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

func (v *validatorRef) decompositions() {
	for i, d := range v.s.Decompositions {
		p := fmt.Sprintf("decompositions[%d]", i)
		if d.Parent == "" {
			v.errf(d.Line, p+".parent", "%s has no parent", p)
		} else if _, ok := v.f.Index[d.Parent]; !ok {
			v.errf(d.Line, p+".parent", "decomposition of %s: the parent is not an atom", d.Parent)
		}
		if len(d.Children) == 0 {
			v.warnf(d.Line, p+".children", "decomposition of %s has no children", d.Parent)
		}
		unresolvedChild := ""
		for _, c := range d.Children {
			j, ok := v.f.Index[c]
			if !ok {
				v.errf(d.Line, p+".children", "decomposition of %s names child %s, which is not an atom", d.Parent, c)
				continue
			}
			if v.s.Atoms[j].Status != StatusResolved && unresolvedChild == "" {
				unresolvedChild = c
			}
			if c == d.Parent {
				v.errf(d.Line, p+".children", "decomposition of %s lists the parent as its own child", d.Parent)
			}
		}
		if j, ok := v.f.Index[d.Parent]; ok && unresolvedChild != "" && v.s.Atoms[j].Status != StatusPending {
			v.warnf(v.s.Atoms[j].Line, p, "decomposed parent %s is %s while its child %s is unresolved (a parent stays pending until its children resolve)",
				d.Parent, v.s.Atoms[j].Status, unresolvedChild)
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

func (v *validatorRef) trailAndCorrections() {
	// A trail entry records an OR selection: or_group, selected, reason and
	// timestamp are all required (seed 000 §4.7).
	var groups map[string]*ORGroup // made on the first entry that names a group
	for i, t := range v.s.Trail {
		p := fmt.Sprintf("trail[%d]", i)
		switch {
		case t.ORGroup == "" && t.Selected == "" && t.Type == "user_correction":
			v.warnf(t.Line, p, "trail entry %d is a user_correction without or_group and selected (older aot-tui versions wrote these; the trail records OR selections, corrections[] the corrections)", i+1)
		default:
			if t.ORGroup == "" {
				v.warnf(t.Line, p+".or_group", "trail entry %d has no or_group", i+1)
			}
			if t.Selected == "" {
				v.warnf(t.Line, p+".selected", "trail entry %d has no selected", i+1)
			}
		}
		if t.Reason == "" {
			v.warnf(t.Line, p+".reason", "trail entry %d has no reason", i+1)
		}
		if t.Timestamp == "" {
			v.warnf(t.Line, p+".timestamp", "trail entry %d has no timestamp", i+1)
		}
		if t.ORGroup != "" {
			if groups == nil {
				groups = orGroupsByName(v.s)
			}
			if _, ok := groups[t.ORGroup]; !ok && t.Type != "user_correction" {
				v.warnf(t.Line, p+".or_group", "trail entry %d names OR group %s, which is not defined", i+1, t.ORGroup)
			}
		}
	}
	for i, c := range v.s.Corrections {
		p := fmt.Sprintf("corrections[%d]", i)
		switch {
		case c.Type == "":
			v.errf(c.Line, p+".type", "correction %d has no type", i+1)
		case !c.Type.Known():
			v.errf(c.Line, p+".type", "correction %d has type %q; expected objective_change, dag_adjustment, constraint_change or bindings_override", i+1, c.Type)
		}
		if c.Timestamp == "" {
			v.warnf(c.Line, p+".timestamp", "correction %d has no timestamp", i+1)
		}
		if c.Description == "" {
			v.warnf(c.Line, p+".description", "correction %d has no description", i+1)
		}
	}
}

// loopTools adds the loop-tools warnings: where the loop's own tools will
// read the file otherwise than aot-tui. They are warnings whatever their
// consequence, so they never block a correction.
func (v *validatorRef) loopTools() {
	for _, p := range LoopToolsWarnings(v.s) {
		v.r.Problems = append(v.r.Problems, ReportProblem{Severity: "warning", Kind: LoopToolsKind, Line: p.Line, Path: p.Path, Message: p.Message})
	}
}

// WithoutShape is f without the shape it was derived with, to compare
// with facts made otherwise.
func WithoutShape(f *Facts) *Facts {
	c := *f
	c.sh = nil
	return &c
}
