package model

import (
	"fmt"
	"slices"
	"strings"
)

// Undo is a correction that undoes an earlier one (Inverse makes it). It
// is planned like any other request, on the file as it is now: a loop that
// wrote the file since the correction (it rewrites it within a second)
// does not stand in the way, only what the loop's later work makes
// impossible to put back. It restores exactly what the correction changed,
// or is refused with a one-line reason (RuleUndo) naming what changed
// since: an atom the correction added that the loop has started or
// resolved, a deleted atom whose id was reused, an OR group the loop
// switched, a constraint or objective value someone changed again.
//
// What it puts back, by what the correction did:
//
//   - an atom it added is removed (with its place in OR choices and the
//     depends_on of the atoms it was required by);
//   - an atom it deleted is added again, with its fields (unknown ones
//     included) and its dependents' edges, at the end of atoms (the file's
//     order decides only which ready atoms run first);
//   - an atom it sent back to pending from resolved is resolved again,
//     with its binding; one it sent back from in progress stays pending
//     (its worker was interrupted, and no worker is on it now);
//   - depends_on, OR choices, failed and decomposition children as they
//     were; an OR selection as it was (a trail entry records it, as every
//     selection a correction makes);
//   - bindings, constraints, the objective's fields and base_case as they
//     were; trail entries it cleared (an objective change, a redo) come
//     back, before those appended since;
//   - a stop request is withdrawn while the stop hook has not acted on it.
//
// Its corrections[] entry has the undone correction's type (an undone
// dag_adjustment is itself a DAG adjustment, and so on), trail_cleared
// false, and a description that names the correction undone by its time;
// a withdrawn stop records none, as a stop records none. Undoing an Undo
// made with Inverse puts the correction back.
type Undo struct {
	// Of is the corrections[] entry of the correction undone; nil for a
	// stop, which records none.
	Of *Correction

	atoms       []atomUndo
	groups      []groupUndo
	decomps     []decompUndo
	bindings    []bindingUndo
	trail       *trailUndo
	constraints *constraintsUndo
	fields      []fieldUndo
	base        *baseUndo
	stop        *stopUndo
}

// RuleUndo is the rule an undo is refused by.
const RuleUndo = "an undo puts back exactly what the correction changed, where the loop's later work allows it"

// Kind implements Request.
func (*Undo) Kind() string { return "undo" }

// What names the correction undone, for a status line: the start of its
// description ("added A9 \"Write the runbook\""), or "stop" for a stop.
func (u *Undo) What() string {
	if u.Of == nil {
		return "stop"
	}
	return shortDescription(u.Of.Description)
}

// Atoms lists the atoms whose entry or binding the undo would change, in
// the order it plans them (not those whose place in an OR group's
// choices or a decomposition alone changes).
func (u *Undo) Atoms() []string {
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, a := range u.atoms {
		add(a.id)
	}
	for _, b := range u.bindings {
		add(b.id)
	}
	return out
}

// Groups lists the OR groups whose selection the undo would change.
func (u *Undo) Groups() []string {
	var out []string
	for _, g := range u.groups {
		if g.sel != nil {
			out = append(out, g.name)
		}
	}
	return out
}

// shortDescription is the first clause of a correction's description, at
// most 80 bytes (cut at a rune boundary, with an ellipsis).
func shortDescription(d string) string {
	if i := strings.Index(d, " (\""); i > 0 && strings.HasPrefix(d, "undo of ") {
		d = d[:i] // an undo: "undo of the dag_adjustment of <time>"
	}
	if i := strings.Index(d, "; "); i >= 0 {
		d = d[:i]
	}
	if len(d) > 80 {
		cut := 77
		for cut > 0 && !isRuneStart(d[cut]) {
			cut--
		}
		d = d[:cut] + "…"
	}
	return d
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// listUndo is a list of ids a correction changed (depends_on, choices,
// failed, children): as it was before and after, and whether its key was
// there.
type listUndo struct {
	before, after  []string
	hadKey, hasKey bool
}

// back are the ids the correction took out; out those it put in.
func (l *listUndo) back() []string { return minus(l.before, l.after) }
func (l *listUndo) out() []string  { return minus(l.after, l.before) }

// minus is a's ids that b lacks, in a's order, each once.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func newListUndo(before, after []string, hadKey, hasKey bool) *listUndo {
	if hadKey == hasKey && slices.Equal(before, after) {
		return nil
	}
	if len(minus(before, after)) == 0 && len(minus(after, before)) == 0 && (hadKey || len(before) == 0) == (hasKey || len(after) == 0) {
		return nil // the same ids, reordered or repeated: nothing a correction does
	}
	return &listUndo{before: before, after: after, hadKey: hadKey, hasKey: hasKey}
}

// atomUndo is what a correction did to one atom.
type atomUndo struct {
	id string
	// added: the correction added it (as it was then); removed: it
	// deleted it (as it was before).
	added, removed *Atom
	// was is the status it had before the correction sent it back to
	// pending, or (an undo of that) resolved it again ("" when it did
	// neither).
	was  AtomStatus
	deps *listUndo
}

type groupUndo struct {
	name            string
	sel             *selUndo
	choices, failed *listUndo
}

type selUndo struct {
	before, after string
	hadKey        bool
}

type decompUndo struct {
	parent string
	// removed: the correction removed the record; added: it added it (an
	// undo of a removal).
	removed, added *Decomposition
	children       *listUndo
}

type bindingUndo struct {
	id            string
	before, after *Binding
}

type trailUndo struct{ before []TrailEntry }

type constraintsUndo struct {
	before, after Constraints
	hadSection    bool
}

type fieldUndo struct {
	key           string
	before, after string
	hadKey        bool
}

type baseUndo struct{ before, after BaseCase }

type stopUndo struct{ before Control }

// footprint is what a correction of one type can change.
type footprint struct {
	atoms, groups, decomps, bindings, trail, constraints, objective bool
}

func footprintOf(c *Correction) footprint {
	if c == nil {
		return footprint{}
	}
	switch c.Type {
	case CorrectionDAG:
		return footprint{atoms: true, groups: true, decomps: true, bindings: true, trail: true}
	case CorrectionBindingsFix:
		return footprint{atoms: true, bindings: true, trail: true}
	case CorrectionConstraint:
		return footprint{constraints: true}
	case CorrectionObjective:
		return footprint{objective: true, trail: true}
	}
	return footprint{atoms: true, groups: true, decomps: true, bindings: true, trail: true, constraints: true, objective: true}
}

// Inverse is the undo of the correction that turned before into after:
// the version it was planned on and the version it wrote (as last
// written, when the guard applied it again). It never modifies either.
//
// The correction is the one corrections[] entry after has and before does
// not (or a stop: stop_requested set, no entry), and the undo looks only
// at what a correction of its type can change (a constraint_change at the
// constraints, and so on). Inverse returns a *Refusal when the two
// versions do not hold exactly one correction.
func Inverse(before, after *State) (*Undo, error) {
	u := &Undo{}
	fresh := newEntries(before, after)
	switch {
	case len(fresh) > 1:
		return nil, refuse(RuleUndo, "the versions hold %d corrections, not one: undo them one at a time", len(fresh))
	case len(fresh) == 1:
		c := fresh[0]
		u.Of = &c
	case before.Control.StopRequested != after.Control.StopRequested:
		// A stop, or the undo of one (which records no entry either).
		u.stop = &stopUndo{before: before.Control}
		return u, nil
	default:
		return nil, refuse(RuleUndo, "no correction was made between these versions of the file")
	}
	for _, st := range []*State{before, after} {
		if id := duplicateAtom(st); id != "" {
			return nil, refuse(RuleUndo, "the file has two atoms with the id %s; an undo needs every id once", id)
		}
	}
	fp := footprintOf(u.Of)
	if fp.atoms {
		u.diffAtoms(before, after, fp.groups)
	}
	if fp.groups {
		u.diffGroups(before, after)
	}
	if fp.decomps {
		u.diffDecomps(before, after)
	}
	if fp.bindings {
		u.diffBindings(before, after)
	}
	if fp.trail && lostEntries(before.Trail, after.Trail) {
		u.trail = &trailUndo{before: before.Trail}
	}
	if fp.constraints {
		u.diffConstraints(before, after)
	}
	if fp.objective {
		u.diffObjective(before, after)
	}
	return u, nil
}

// newEntries are after's corrections[] entries that before lacks.
func newEntries(before, after *State) []Correction {
	had := make(map[string]int, len(before.Corrections))
	for _, c := range before.Corrections {
		had[correctionKey(c)]++
	}
	var out []Correction
	for _, c := range after.Corrections {
		k := correctionKey(c)
		if had[k] > 0 {
			had[k]--
			continue
		}
		out = append(out, c)
	}
	return out
}

func correctionKey(c Correction) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%v", c.Timestamp, c.Type, c.Description, c.TrailCleared)
}

func duplicateAtom(s *State) string {
	seen := make(map[string]bool, len(s.Atoms))
	for _, a := range s.Atoms {
		if seen[a.ID] {
			return a.ID
		}
		seen[a.ID] = true
	}
	return ""
}

// lostEntries reports whether after's trail lacks entries before's has.
func lostEntries(before, after []TrailEntry) bool {
	have := make(map[string]int, len(after))
	for _, t := range after {
		have[canon(t)]++
	}
	for _, t := range before {
		k := canon(t)
		if have[k] == 0 {
			return true
		}
		have[k]--
	}
	return false
}

func atomsByID(s *State) map[string]*Atom {
	m := make(map[string]*Atom, len(s.Atoms))
	for i := range s.Atoms {
		m[s.Atoms[i].ID] = &s.Atoms[i]
	}
	return m
}

func (u *Undo) diffAtoms(before, after *State, structure bool) {
	was, now := atomsByID(before), atomsByID(after)
	for _, a := range before.Atoms {
		b, ok := now[a.ID]
		if !ok {
			if structure {
				c := a
				u.atoms = append(u.atoms, atomUndo{id: a.ID, removed: &c})
			}
			continue
		}
		au := atomUndo{id: a.ID}
		switch {
		case b.Status == StatusPending && (a.Status == StatusResolved || a.Status == StatusInProgress):
			au.was = a.Status // reset by the correction
		case b.Status == StatusResolved && a.Status == StatusPending:
			au.was = a.Status // resolved again by an undo of a reset
		}
		if structure {
			au.deps = newListUndo(a.DependsOn, b.DependsOn, a.Lines.Has("depends_on"), b.Lines.Has("depends_on"))
		}
		if au.was != "" || au.deps != nil {
			u.atoms = append(u.atoms, au)
		}
	}
	if !structure {
		return
	}
	for _, b := range after.Atoms {
		if _, ok := was[b.ID]; !ok {
			c := b
			u.atoms = append(u.atoms, atomUndo{id: b.ID, added: &c})
		}
	}
}

func (u *Undo) diffGroups(before, after *State) {
	for _, g := range before.ORGroups {
		h, ok := after.ORGroup(g.Name)
		if !ok {
			continue // corrections never remove a group
		}
		gu := groupUndo{name: g.Name,
			choices: newListUndo(g.Choices, h.Choices, g.Lines.Has("choices"), h.Lines.Has("choices")),
			failed:  newListUndo(g.Failed, h.Failed, g.Lines.Has("failed"), h.Lines.Has("failed"))}
		if g.Selected != h.Selected {
			gu.sel = &selUndo{before: g.Selected, after: h.Selected, hadKey: g.Lines.Has("selected")}
		}
		if gu.sel != nil || gu.choices != nil || gu.failed != nil {
			u.groups = append(u.groups, gu)
		}
	}
}

func (u *Undo) diffDecomps(before, after *State) {
	for _, d := range before.Decompositions {
		k := decompIndex(after, d.Parent)
		if k < 0 {
			c := d
			u.decomps = append(u.decomps, decompUndo{parent: d.Parent, removed: &c})
			continue
		}
		if l := newListUndo(d.Children, after.Decompositions[k].Children, true, true); l != nil {
			u.decomps = append(u.decomps, decompUndo{parent: d.Parent, children: l})
		}
	}
	for _, d := range after.Decompositions {
		if decompIndex(before, d.Parent) < 0 {
			c := d
			u.decomps = append(u.decomps, decompUndo{parent: d.Parent, added: &c})
		}
	}
}

func decompIndex(s *State, parent string) int {
	for k, d := range s.Decompositions {
		if d.Parent == parent {
			return k
		}
	}
	return -1
}

func bindingsByID(s *State) map[string]*Binding {
	m := make(map[string]*Binding, len(s.Bindings))
	for i := range s.Bindings {
		if b := &s.Bindings[i]; m[b.AtomID] == nil {
			m[b.AtomID] = b // the first, as State.Binding
		}
	}
	return m
}

func (u *Undo) diffBindings(before, after *State) {
	was, now := bindingsByID(before), bindingsByID(after)
	for i := range before.Bindings {
		b := &before.Bindings[i]
		a, ok := now[b.AtomID]
		switch {
		case !ok:
			u.bindings = append(u.bindings, bindingUndo{id: b.AtomID, before: b})
		case !sameBinding(b, a):
			u.bindings = append(u.bindings, bindingUndo{id: b.AtomID, before: b, after: a})
		}
	}
	for i := range after.Bindings {
		a := &after.Bindings[i]
		if _, ok := was[a.AtomID]; !ok {
			u.bindings = append(u.bindings, bindingUndo{id: a.AtomID, after: a})
		}
	}
}

func sameBinding(a, b *Binding) bool {
	return a.Summary == b.Summary && slices.Equal(a.Artifacts, b.Artifacts) && canon(a.Extra) == canon(b.Extra)
}

// constraintKeys are the constraints a correction sets.
var constraintKeys = []string{"max_iterations", "max_parallel_agents", "max_stall_count"}

func constraintValue(c Constraints, key string) (int, bool) {
	switch key {
	case "max_iterations":
		return c.MaxIterations, c.Lines.Has(key)
	case "max_parallel_agents":
		return c.MaxParallelAgents, c.Lines.Has(key)
	}
	return c.MaxStallCount, c.Lines.Has(key)
}

func sameConstraints(a, b Constraints) bool {
	for _, k := range constraintKeys {
		av, ah := constraintValue(a, k)
		bv, bh := constraintValue(b, k)
		if av != bv || ah != bh {
			return false
		}
	}
	return true
}

func (u *Undo) diffConstraints(before, after *State) {
	had, has := before.Objective.Lines.Has("constraints"), after.Objective.Lines.Has("constraints")
	if had == has && sameConstraints(before.Objective.Constraints, after.Objective.Constraints) {
		return
	}
	u.constraints = &constraintsUndo{before: before.Objective.Constraints, after: after.Objective.Constraints, hadSection: had}
}

// objectiveFields are the objective's text fields a correction sets.
var objectiveFields = []string{"goal", "background_intent", "deliverables", "definition_of_done"}

func objectiveField(o Objective, key string) string {
	switch key {
	case "goal":
		return o.Goal
	case "background_intent":
		return o.BackgroundIntent
	case "deliverables":
		return o.Deliverables
	}
	return o.DefinitionOfDone
}

func (u *Undo) diffObjective(before, after *State) {
	b, a := before.Objective, after.Objective
	for _, k := range objectiveFields {
		bv, av := objectiveField(b, k), objectiveField(a, k)
		if bv != av || b.Lines.Has(k) != a.Lines.Has(k) {
			u.fields = append(u.fields, fieldUndo{key: k, before: bv, after: av, hadKey: b.Lines.Has(k)})
		}
	}
	if canon(b.BaseCase) != canon(a.BaseCase) {
		u.base = &baseUndo{before: b.BaseCase, after: a.BaseCase}
	}
}

// ---------------------------------------------------------------------------
// Planning the undo on the file as it is now

// undoPlan is one plan of an Undo.
type undoPlan struct {
	u     *Undo
	p     *planner
	parts []string
	notes []string
	// removing are atoms the undo removes; readded those it adds again.
	removing, readded map[string]bool
}

func (up *undoPlan) refuse(format string, args ...any) error {
	return refuse(RuleUndo, format, args...)
}

// exists reports whether atom id is in the file once the undo is written.
func (up *undoPlan) exists(id string) bool {
	if up.readded[id] {
		return true
	}
	_, ok := up.p.f.Index[id]
	return ok && !up.removing[id]
}

func (u *Undo) plan(p *planner) error {
	if id := duplicateAtom(p.s); id != "" {
		return refuse(RuleUndo, "the file has two atoms with the id %s; an undo needs every id once", id)
	}
	up := &undoPlan{u: u, p: p, removing: map[string]bool{}, readded: map[string]bool{}}
	for _, step := range []func() error{up.removeAdded, up.addRemoved, up.restoreAtoms, up.restoreGroups,
		up.restoreDecomps, up.restoreBindings, up.restoreConstraints, up.restoreObjective, up.withdrawStop, up.restoreTrail} {
		if err := step(); err != nil {
			return err
		}
	}
	if len(p.plan.Edits) == 0 && len(p.plan.Trails) == 0 {
		return refuse(RuleNoChange, "nothing to undo: the file already is as it was before %s", u.subject())
	}
	desc := fmt.Sprintf("undo of %s: %s", u.subject(), strings.Join(up.parts, "; "))
	if len(up.notes) > 0 {
		desc += " (" + strings.Join(up.notes, "; ") + ")"
	}
	if u.Of != nil {
		p.record(u.Of.Type, desc, false)
		p.plan.Summary = "undid " + u.What()
	} else {
		p.plan.Summary = strings.Join(up.parts, "; ")
		p.plan.AnyFile = true // as the stop itself: a broken loop's stop can be taken back
	}
	return nil
}

// subject names the correction undone in the undo's description.
func (u *Undo) subject() string {
	if u.Of == nil && u.stop != nil && u.stop.before.StopRequested {
		return "the withdrawal of the stop request"
	}
	if u.Of == nil {
		return "the stop request"
	}
	return fmt.Sprintf("the %s of %s (%q)", u.Of.Type, u.Of.Timestamp, u.What())
}

// removeAdded removes the atoms the correction added, while they are
// pending and nothing the undo does not also change refers to them.
func (up *undoPlan) removeAdded() error {
	p, s := up.p, up.p.s
	var idx []int
	for _, a := range up.u.atoms {
		if a.added == nil {
			continue
		}
		i, ok := p.f.Index[a.id]
		if !ok {
			continue // gone already
		}
		cur := s.Atoms[i]
		if cur.Description != a.added.Description {
			return up.refuse("the id %s was reused: the file has %s %q now, not the atom %q the correction added", a.id, a.id, cur.Description, a.added.Description)
		}
		switch cur.Status {
		case StatusInProgress:
			return up.refuse("%s, which the correction added, is in progress now: the loop started it (a worker is on it)", a.id)
		case StatusResolved:
			return up.refuse("%s, which the correction added, is resolved now: the loop did it", a.id)
		}
		up.removing[a.id] = true
		idx = append(idx, i)
	}
	for _, i := range idx {
		id := s.Atoms[i].ID
		for _, d := range p.f.Dependents()[id] {
			if !up.takesOut(d, id) {
				return up.refuse("%s depends on %s now (a change since the correction); delete or detach it first", d, id)
			}
		}
		for _, g := range s.ORGroups {
			if g.Selected == id && !up.deselects(g.Name, id) {
				return up.refuse("OR group %s selects %s now (a change since the correction)", g.Name, id)
			}
		}
		for _, d := range s.Decompositions {
			if (d.Parent == id || slices.Contains(d.Children, id)) && !up.undecomposes(d.Parent, id) {
				return up.refuse("%s is in the decomposition of %s now: the loop decomposed it", id, d.Parent)
			}
		}
		p.removeOnce(P("atoms", i))
		if p.hasBinding(id) {
			p.removeOnce(P("bindings", id))
		}
		p.affect(id)
		up.parts = append(up.parts, id+" removed")
	}
	return nil
}

// takesOut reports whether the undo takes id out of atom d's depends_on.
func (up *undoPlan) takesOut(d, id string) bool {
	for _, a := range up.u.atoms {
		if a.id == d && a.deps != nil && slices.Contains(a.deps.out(), id) {
			return true
		}
	}
	return false
}

// deselects reports whether the undo moves OR group g's selection away
// from id.
func (up *undoPlan) deselects(g, id string) bool {
	for _, x := range up.u.groups {
		if x.name == g && x.sel != nil && x.sel.after == id {
			return true
		}
	}
	return false
}

// undecomposes reports whether the undo takes id out of the
// decomposition of parent (or removes the record).
func (up *undoPlan) undecomposes(parent, id string) bool {
	for _, d := range up.u.decomps {
		if d.parent == parent && (d.added != nil || d.children != nil && slices.Contains(d.children.out(), id)) {
			return true
		}
	}
	return false
}

// addRemoved adds the atoms the correction deleted again.
func (up *undoPlan) addRemoved() error {
	p, s := up.p, up.p.s
	var back []*Atom
	for _, a := range up.u.atoms {
		if a.removed == nil {
			continue
		}
		if i, ok := p.f.Index[a.id]; ok {
			if cur := s.Atoms[i]; cur.Description != a.removed.Description {
				return up.refuse("the id %s was reused: the file has %s %q now, not the deleted %q", a.id, a.id, cur.Description, a.removed.Description)
			}
			up.readded[a.id] = true // back already (a loop write)
			continue
		}
		up.readded[a.id] = true
		back = append(back, a.removed)
	}
	for _, a := range back {
		for _, d := range a.DependsOn {
			if !up.exists(d) {
				return up.refuse("%s, which the deleted %s depended on, is no longer in the file", d, a.ID)
			}
		}
		if a.ORGroup != "" {
			if _, ok := s.ORGroup(a.ORGroup); !ok {
				return up.refuse("OR group %s, of which the deleted %s was a choice, is no longer in the file", a.ORGroup, a.ID)
			}
		}
		status := a.Status
		if status == StatusInProgress {
			status = StatusPending
			up.notes = append(up.notes, a.ID+" comes back pending: its worker was interrupted")
		}
		p.appendTo("atoms", atomValue(*a, status))
		p.affect(a.ID)
		up.parts = append(up.parts, fmt.Sprintf("%s %q back", a.ID, a.Description))
	}
	return nil
}

// restoreAtoms puts back the statuses and depends_on of atoms in both
// versions.
func (up *undoPlan) restoreAtoms() error {
	p, s := up.p, up.p.s
	for _, a := range up.u.atoms {
		if a.added != nil || a.removed != nil {
			continue
		}
		i, ok := p.f.Index[a.id]
		if !ok {
			return up.refuse("%s is no longer in the file (deleted since the correction)", a.id)
		}
		cur := s.Atoms[i]
		switch {
		case a.was == StatusResolved:
			switch cur.Status {
			case StatusInProgress:
				return up.refuse("%s is in progress again: the loop is redoing it (a worker is on it)", a.id)
			case StatusResolved:
				return up.refuse("%s was resolved again since the correction: the loop redid it", a.id)
			}
			p.edit(Replace(P("atoms", i, "status"), string(StatusResolved)))
			p.affect(a.id)
			up.parts = append(up.parts, a.id+" resolved again")
		case a.was == StatusInProgress && cur.Status == StatusPending:
			up.notes = append(up.notes, a.id+" stays pending: its worker was interrupted")
		case a.was == StatusPending:
			// The undo of an undo that resolved the atom again: reset it
			// again, as the correction did.
			switch cur.Status {
			case StatusInProgress:
				return up.refuse("%s is in progress now (a worker is on it)", a.id)
			case StatusResolved:
				p.edit(Replace(P("atoms", i, "status"), string(StatusPending)))
				p.affect(a.id)
				up.parts = append(up.parts, a.id+" pending again")
			}
		}
		if a.deps == nil {
			continue
		}
		back := a.deps.back()
		if cur.Status == StatusResolved && a.was == "" {
			for _, d := range back {
				if !slices.Contains(cur.DependsOn, d) {
					return up.refuse("%s was resolved since the correction without %s; a resolved atom does not gain a dependency", a.id, d)
				}
			}
		}
		for _, d := range back {
			if !up.exists(d) && !slices.Contains(cur.DependsOn, d) {
				return up.refuse("%s, which %s depended on, is no longer in the file", d, a.id)
			}
		}
		if part := up.restoreList(P("atoms", i), "depends_on", cur.Lines.Has("depends_on"), cur.DependsOn, a.deps); part != "" {
			p.affect(a.id)
			up.parts = append(up.parts, a.id+" "+part)
		}
	}
	return nil
}

// restoreList plans putting a list back as it was: the ids the correction
// put in come out, those it took out come back (in place of the one it
// put in, when it swapped one for another), and a key it added goes when
// the list is empty again. It returns what it did in words ("" when the
// list already is as it was).
func (up *undoPlan) restoreList(path Path, key string, hasKey bool, cur []string, l *listUndo) string {
	p := up.p
	out, back := l.out(), l.back()
	var missing []string
	for _, x := range back {
		if !slices.Contains(cur, x) {
			missing = append(missing, x)
		}
	}
	var gone []int
	keep := 0
	for k, x := range cur {
		if slices.Contains(out, x) {
			gone = append(gone, k)
		} else {
			keep++
		}
	}
	if len(gone) == 0 && len(missing) == 0 {
		return ""
	}
	what := key
	if key == "depends_on" {
		what = "depends on"
	}
	switch {
	case len(gone) == 1 && len(missing) == 1:
		p.edit(Replace(path.Child(key).Child(gone[0]), missing[0]))
		return fmt.Sprintf("%s %s again instead of %s", what, missing[0], cur[gone[0]])
	case !l.hadKey && hasKey && keep == 0 && len(missing) == 0:
		p.edit(Remove(path.Child(key)))
	default:
		for _, k := range gone {
			p.removeOnce(path.Child(key).Child(k))
		}
		switch {
		case len(missing) == 0:
		case hasKey:
			for _, x := range missing {
				p.edit(Append(path.Child(key), x))
			}
		default:
			p.edit(AddKey(path, key, toFlow(missing)))
		}
	}
	var bits []string
	if len(missing) > 0 {
		bits = append(bits, strings.Join(missing, ", ")+" back")
	}
	if len(gone) > 0 {
		var ids []string
		for _, k := range gone {
			ids = append(ids, cur[k])
		}
		bits = append(bits, "without "+strings.Join(ids, ", "))
	}
	return key + ": " + strings.Join(bits, ", ")
}

// restoreGroups puts back OR selections, choices and failed lists.
func (up *undoPlan) restoreGroups() error {
	p, s := up.p, up.p.s
	for _, g := range up.u.groups {
		cg, ok := s.ORGroup(g.name)
		if !ok {
			return up.refuse("OR group %s is no longer in the file", g.name)
		}
		gp := P("or_groups", g.name)
		if sel := g.sel; sel != nil && cg.Selected != sel.before {
			if cg.Selected != sel.after {
				return up.refuse("OR group %s selects %s now, not %s: it was switched since the correction", g.name, orNone(cg.Selected), orNone(sel.after))
			}
			switch {
			case sel.before == "" && sel.hadKey:
				p.edit(Replace(gp.Child("selected"), nil))
				up.parts = append(up.parts, "OR group "+g.name+" selects nothing again")
			case sel.before == "":
				p.edit(Remove(gp.Child("selected")))
				up.parts = append(up.parts, "OR group "+g.name+" selects nothing again")
			default:
				if !up.exists(sel.before) {
					return up.refuse("%s, which OR group %s selected, is no longer in the file", sel.before, g.name)
				}
				p.setKey(gp, cg.Lines, "selected", sel.before)
				p.appendTrail(g.name, sel.before, "undo: "+sel.before+" selected again, as before the correction of "+up.u.Of.Timestamp)
				up.parts = append(up.parts, "OR group "+g.name+" selects "+sel.before+" again")
			}
			p.affect(sel.before)
		}
		if g.choices != nil {
			if part := up.restoreList(gp, "choices", cg.Lines.Has("choices"), cg.Choices, g.choices); part != "" {
				up.parts = append(up.parts, "OR group "+g.name+" "+part)
			}
		}
		if g.failed != nil {
			if part := up.restoreList(gp, "failed", cg.Lines.Has("failed"), cg.Failed, g.failed); part != "" {
				up.parts = append(up.parts, "OR group "+g.name+" "+part)
			}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// restoreDecomps puts back decomposition records and children.
func (up *undoPlan) restoreDecomps() error {
	p, s := up.p, up.p.s
	for _, d := range up.u.decomps {
		k := decompIndex(s, d.parent)
		if d.added != nil {
			if k < 0 {
				continue
			}
			if canon(s.Decompositions[k]) != canon(*d.added) {
				return up.refuse("the decomposition of %s changed since the correction", d.parent)
			}
			p.removeOnce(P("decompositions", k))
			up.parts = append(up.parts, "decomposition of "+d.parent+" removed")
			continue
		}
		if d.removed != nil {
			if k >= 0 {
				if canon(s.Decompositions[k]) == canon(*d.removed) {
					continue
				}
				return up.refuse("%s was decomposed again since the correction", d.parent)
			}
			for _, c := range append([]string{d.removed.Parent}, d.removed.Children...) {
				if !up.exists(c) {
					return up.refuse("%s, of the decomposition of %s, is no longer in the file", c, d.parent)
				}
			}
			p.appendTo("decompositions", decompValue(*d.removed))
			up.parts = append(up.parts, "decomposition of "+d.parent+" back")
			continue
		}
		if k < 0 {
			return up.refuse("the decomposition of %s is no longer in the file", d.parent)
		}
		cur := s.Decompositions[k]
		if part := up.restoreList(P("decompositions", k), "children", true, cur.Children, d.children); part != "" {
			up.parts = append(up.parts, "decomposition of "+d.parent+" "+part)
		}
	}
	return nil
}

// restoreBindings puts bindings back as they were.
func (up *undoPlan) restoreBindings() error {
	p, s := up.p, up.p.s
	var added Map
	for _, b := range up.u.bindings {
		cur, has := s.Binding(b.id)
		switch {
		case b.after == nil: // the correction removed it
			if has {
				if sameBinding(cur, b.before) {
					continue
				}
				return up.refuse("%s has a new binding since the correction: the loop redid it", b.id)
			}
			if !up.exists(b.id) {
				return up.refuse("%s, whose binding the correction removed, is no longer in the file", b.id)
			}
			added = append(added, KV{Key: b.id, Value: bindingValue(*b.before)})
			up.parts = append(up.parts, "binding of "+b.id+" back")
		case b.before == nil: // the correction added it
			if !has {
				continue
			}
			if !sameBinding(cur, b.after) {
				return up.refuse("the binding of %s changed since the correction", b.id)
			}
			p.removeOnce(P("bindings", b.id))
			up.parts = append(up.parts, "binding of "+b.id+" removed")
		default: // the correction changed it
			if !has {
				return up.refuse("the binding of %s is no longer in the file", b.id)
			}
			if sameBinding(cur, b.before) {
				continue
			}
			if !sameBinding(cur, b.after) {
				return up.refuse("the binding of %s changed since the correction", b.id)
			}
			bp := P("bindings", b.id)
			if b.before.Summary != b.after.Summary || b.before.Lines.Has("summary") != cur.Lines.Has("summary") {
				if b.before.Lines.Has("summary") {
					p.setKey(bp, cur.Lines, "summary", b.before.Summary)
				} else {
					p.edit(Remove(bp.Child("summary")))
				}
			}
			if !slices.Equal(b.before.Artifacts, b.after.Artifacts) || b.before.Lines.Has("artifacts") != cur.Lines.Has("artifacts") {
				if b.before.Lines.Has("artifacts") {
					p.setKey(bp, cur.Lines, "artifacts", toFlow(b.before.Artifacts))
				} else {
					p.edit(Remove(bp.Child("artifacts")))
				}
			}
			up.parts = append(up.parts, "binding of "+b.id+" as it was")
		}
		p.affect(b.id)
	}
	switch {
	case len(added) == 0:
	case s.Lines.Has("bindings"):
		for _, kv := range added {
			p.edit(AddKey(P("bindings"), kv.Key, kv.Value))
		}
	default:
		p.edit(AddKey(nil, "bindings", added))
	}
	return nil
}

// restoreTrail puts back the trail entries the correction removed: the
// trail as it was, then the entries appended since (by the correction,
// the loop and later corrections).
func (up *undoPlan) restoreTrail() error {
	t := up.u.trail
	if t == nil || !lostEntries(t.before, up.p.s.Trail) {
		return nil
	}
	have := make(map[string]int, len(t.before))
	for _, e := range t.before {
		have[canon(e)]++
	}
	items := make([]any, 0, len(t.before)+len(up.p.s.Trail))
	for _, e := range t.before {
		items = append(items, trailValue(e))
	}
	restored := len(t.before)
	for _, e := range up.p.s.Trail {
		if k := canon(e); have[k] > 0 {
			have[k]--
			restored--
			continue
		}
		items = append(items, trailValue(e))
	}
	up.p.trailBase = items
	up.parts = append(up.parts, fmt.Sprintf("%d trail %s back", restored, plural(restored, "entry", "entries")))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// restoreConstraints puts the constraints back as they were.
func (up *undoPlan) restoreConstraints() error {
	c := up.u.constraints
	if c == nil {
		return nil
	}
	p, o := up.p, up.p.s.Objective
	cur := o.Constraints
	if !c.hadSection {
		if !o.Lines.Has("constraints") {
			return nil
		}
		if !sameConstraints(cur, c.after) {
			return up.refuse("the constraints changed since the correction (%s)", constraintsText(cur))
		}
		p.edit(Remove(P("objective", "constraints")))
		up.parts = append(up.parts, "constraints removed (the stop hook's defaults again)")
		return nil
	}
	if !o.Lines.Has("constraints") {
		return up.refuse("the constraints are no longer in the file")
	}
	for _, k := range constraintKeys {
		bv, bh := constraintValue(c.before, k)
		av, ah := constraintValue(c.after, k)
		cv, ch := constraintValue(cur, k)
		if (bv == av && bh == ah) || (cv == bv && ch == bh) {
			continue
		}
		if cv != av || ch != ah {
			return up.refuse("%s is %s now, not the %s the correction set: it changed since", k, valueText(cv, ch), valueText(av, ah))
		}
		if bh {
			p.setKey(P("objective", "constraints"), cur.Lines, k, bv)
		} else {
			p.edit(Remove(P("objective", "constraints", k)))
		}
		up.parts = append(up.parts, fmt.Sprintf("%s %s → %s", k, valueText(av, ah), valueText(bv, bh)))
	}
	return nil
}

func valueText(v int, present bool) string {
	if !present {
		return "(absent)"
	}
	return fmt.Sprint(v)
}

func constraintsText(c Constraints) string {
	var parts []string
	for _, k := range constraintKeys {
		v, h := constraintValue(c, k)
		parts = append(parts, k+" "+valueText(v, h))
	}
	return strings.Join(parts, ", ")
}

// restoreObjective puts the objective's fields and base_case back.
func (up *undoPlan) restoreObjective() error {
	p, o := up.p, up.p.s.Objective
	for _, f := range up.u.fields {
		cv, ch := objectiveField(o, f.key), o.Lines.Has(f.key)
		if cv == f.before && ch == f.hadKey {
			continue
		}
		if cv != f.after {
			return up.refuse("objective.%s changed since the correction", f.key)
		}
		if f.hadKey {
			p.setKey(P("objective"), o.Lines, f.key, f.before)
			up.parts = append(up.parts, fmt.Sprintf("%s → %q", f.key, f.before))
		} else {
			p.edit(Remove(P("objective", f.key)))
			up.parts = append(up.parts, f.key+" removed")
		}
	}
	if b := up.u.base; b != nil && canon(o.BaseCase) != canon(b.before) {
		if canon(o.BaseCase) != canon(b.after) {
			return up.refuse("the base_case changed since the correction")
		}
		p.restoreBase(b.before, b.after)
		up.parts = append(up.parts, "base_case as it was")
	}
	return nil
}

// withdrawStop takes a stop request back while the loop has not stopped
// (or, undoing that, asks for the stop again while the loop runs).
func (up *undoPlan) withdrawStop() error {
	st := up.u.stop
	if st == nil {
		return nil
	}
	p, c := up.p, up.p.s.Control
	want := st.before.StopRequested
	if c.StopRequested == want {
		return nil
	}
	switch c.Status {
	case LoopStopped, LoopCompleted:
		if want {
			return up.refuse("the loop has already %s", c.Status)
		}
		return up.refuse("the loop has already %s: its stop hook acted on the stop (a stopped loop is resumed with /enter-recursion)", c.Status)
	}
	cp := P("control")
	if st.before.Lines.Has("stop_requested") {
		p.setKey(cp, c.Lines, "stop_requested", want)
	} else {
		p.edit(Remove(cp.Child("stop_requested")))
	}
	switch {
	case !st.before.Lines.Has("stop_reason"):
		if c.Lines.Has("stop_reason") {
			p.edit(Remove(cp.Child("stop_reason")))
		}
	case c.StopReason != st.before.StopReason || !c.Lines.Has("stop_reason"):
		p.setKey(cp, c.Lines, "stop_reason", nullable(st.before.StopReason))
	}
	if want {
		up.parts = append(up.parts, "stop requested again")
	} else {
		up.parts = append(up.parts, "stop request withdrawn")
	}
	return nil
}
