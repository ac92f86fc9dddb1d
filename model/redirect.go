package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Request is one correction a person asks for, in the terms of the
// seed's /redirect flow (seed 003 §8.3) and /exit-recursion.
//
// Every correction but a stop records a corrections[] entry. The trail is
// another matter: seed 003 §8.3 has DAG additions and deletions "append to
// Trail", but the schema (seed 000 §4.7) defines a trail entry as an OR
// selection, with or_group and selected required. So a correction appends
// a trail entry only when it changes a selection (force-or; delete-atom of
// a selected choice when another choice takes its place), with exactly the
// schema's four fields; an objective change clears the trail and a redo
// clears the entries of its scope.
type Request interface {
	// Kind names the request as the CLI does ("add-atom", "stop", …).
	Kind() string
	plan(p *planner) error
}

// PlanContext is what a plan needs besides the state: the time to stamp
// the correction with, the person's note, and whether the person agreed
// to interrupt workers.
type PlanContext struct {
	Now  time.Time
	Note string
	// Interrupt allows the plan to touch in-progress atoms (see
	// Interrupt): the person agreed to interrupt their workers (the CLI's
	// --interrupt, the TUI's confirm after the preview named them).
	// Without it such a plan is refused with RuleInProgress.
	Interrupt bool
}

// Plan is a correction ready to apply: the edits to the document as read,
// plus what they record, for display and --json.
type Plan struct {
	Kind  string `json:"kind"`
	Edits []Edit `json:"-"`
	// Correction is the corrections[] entry the plan appends (nil for stop
	// and the redirect handshake, which record none).
	Correction *Correction `json:"-"`
	// Trail is the trail entry the plan appends, if any: only a plan that
	// changes an OR group's selection appends one (seed 000 §4.7, §5.3).
	// When a plan appends more than one (deleting an atom that two groups
	// select), Trail is the first and Trails holds them all.
	Trail *TrailEntry `json:"-"`
	// Trails lists every trail entry the plan appends, in order.
	Trails []TrailEntry `json:"-"`
	// TrailCleared is true when the plan clears the trail, in whole or in
	// the affected scope.
	TrailCleared bool `json:"trail_cleared"`
	// Summary is a short account for a status line: "added A7".
	Summary string `json:"summary"`
	// Affected lists the atoms whose entry the plan changes or removes.
	Affected []string `json:"affected"`
	// Interrupts lists the in-progress atoms the plan touches, in file
	// order: a worker is on each, which aot-tui cannot stop. A plan that
	// touches one is made only with PlanContext.Interrupt.
	Interrupts []Interrupt `json:"interrupts"`
	// AnyFile: the plan is written even on a file that fails validation
	// (see WritePolicy). A stop and the /redirect handshake flag have it.
	AnyFile bool `json:"-"`
	// Warnings say what the person should know before applying the plan,
	// each one line for a preview to show as a warning: a limit the loop
	// is already at, so that the stop hook ends it ("iteration is already
	// 6: the stop hook will end the loop").
	Warnings []string `json:"warnings,omitempty"`
}

// Interrupt is an in-progress atom a correction touches. The seed's
// /redirect stops the running workers before it changes anything (seed
// 003 §8.2 step 1, their results discarded); aot-tui cannot, so the worker
// on the atom goes on and, when it finishes, the loop writes its result
// over what the correction left (update_atom.py ID resolved, add_binding.py
// ID): an atom reset to pending comes back resolved, now perhaps depending
// on unresolved work; a deleted one makes the loop's scripts fail "Atom ID
// not found".
type Interrupt struct {
	Atom string `json:"atom"`
	// How says what the correction does to it: "resets it to pending",
	// "deletes it", "changes its depends_on", "makes OR group G select A5
	// instead of it" (joined with " and " when several).
	How string `json:"how"`
	// Deleted is true when the correction removes the atom.
	Deleted bool `json:"deleted"`
}

// Refusal is a correction that would break an invariant. Its message is one
// line that says which rule it would break.
type Refusal struct {
	Rule   string
	Reason string
}

func (r *Refusal) Error() string { return r.Reason + " (rule: " + r.Rule + ")" }

func refuse(rule, format string, args ...any) error {
	return &Refusal{Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// Rules a refusal can name.
const (
	RuleUnknownAtom      = "ids must name existing atoms"
	RuleDuplicateID      = "atom ids are unique"
	RuleBadID            = "atom ids are short words (letters, digits, _ . -)"
	RuleCycle            = "depends_on forms a DAG"
	RuleResolved         = "only unresolved atoms are deleted or gain dependencies"
	RuleDependents       = "an atom with dependents is deleted only when detached"
	RuleORMember         = "an OR choice is one of the group's choices and an existing atom"
	RulePositiveLimit    = "constraints are positive integers"
	RuleOverrideResolved = "only a resolved atom's binding is overridden"
	RuleEmpty            = "required text is not empty"
	RuleNoChange         = "a correction changes something"
	RuleLoopState        = "a stop needs a loop that has not ended"
	// RuleFileProblems: a correction of a file that fails validation is
	// refused unless it removes an error (WritePolicy; a stop and the
	// redirect handshake are written on any file).
	RuleFileProblems = "corrections are applied to valid files, unless they remove an error"
	RuleChecklist    = "base_case items are addressed by existing positions"
	// RuleCheckType: a check's type is one of the schema's (CheckTypes).
	RuleCheckType = "check types are the schema's"
	RuleLastAtom  = "a loop has at least one atom"
	// RuleInProgress: a correction that touches an in-progress atom is
	// made only with PlanContext.Interrupt.
	RuleInProgress = "an in-progress atom is changed only when its worker is interrupted"
)

// PlanCorrection plans req on s. It never modifies s. Its cost is linear
// in the size of s (it derives the facts once and plans on their indexes),
// so it stays cheap on states of 10,000 atoms.
//
// A file with validation errors (type errors included) is planned on like
// any other: whether the correction may be written on it is WritePolicy's
// decision (a correction on an invalid file is written only when it
// removes an error; a stop always: Plan.AnyFile), which statefile makes on
// the file it is written to.
//
// A plan that touches an in-progress atom (see Interrupt) is refused
// with RuleInProgress, naming the atom, unless ctx.Interrupt allows it
// (only AddAtom, DeleteAtom, ForceOR, OverrideBinding and Undo can touch one);
// the plan made lists them in Interrupts and its corrections[] entry says
// so.
func PlanCorrection(s *State, req Request, ctx PlanContext) (*Plan, error) {
	if ctx.Now.IsZero() {
		ctx.Now = time.Now()
	}
	p := &planner{s: s, f: Derive(s), ctx: ctx, plan: &Plan{Kind: req.Kind()}}
	if err := req.plan(p); err != nil {
		return nil, err
	}
	p.plan.Interrupts = p.interrupts()
	if len(p.plan.Interrupts) > 0 {
		if !ctx.Interrupt {
			return nil, interruptRefusal(p.plan.Interrupts)
		}
		p.rec.desc += " (" + interruptedText(p.plan.Interrupts) + ")"
		p.plan.Summary += " (" + interruptedText(p.plan.Interrupts) + ")"
	}
	p.writeCorrection()
	p.writeTrail()
	p.plan.Affected = nonNilStrings(p.plan.Affected)
	return p.plan, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type planner struct {
	s    *State
	f    *Facts
	ctx  PlanContext
	plan *Plan
	// removed tracks paths already removed so the same reference is not
	// removed twice.
	removed map[string]bool
	// affected is the set of plan.Affected.
	affected map[string]bool
	// bound indexes the atoms with a binding (see hasBinding).
	bound map[string]bool
	// rec is the corrections[] entry recorded, written once the plan is
	// complete (writeCorrection).
	rec *recorded
	// trailBase, when set, is the whole trail the plan writes, before the
	// entries it appends (an undo that puts cleared entries back).
	trailBase []any
}

// recorded is a corrections[] entry a plan records: its type, the
// generated description (the note is added when it is written) and
// trail_cleared.
type recorded struct {
	typ          CorrectionType
	desc         string
	trailCleared bool
}

func (p *planner) edit(e ...Edit) { p.plan.Edits = append(p.plan.Edits, e...) }

func (p *planner) timestamp() string { return p.ctx.Now.UTC().Format(time.RFC3339) }

// describe adds the person's note to a generated description.
func (p *planner) describe(generated string) string {
	note := strings.TrimSpace(p.ctx.Note)
	if note == "" {
		return generated
	}
	return generated + "; note: " + note
}

// record notes the corrections[] entry the plan appends; PlanCorrection
// writes it once the plan is complete (writeCorrection), so that it can
// say which workers the plan interrupts.
func (p *planner) record(typ CorrectionType, description string, trailCleared bool) {
	p.rec = &recorded{typ: typ, desc: description, trailCleared: trailCleared}
}

// writeCorrection plans the edit appending the recorded corrections[]
// entry (creating the section if absent).
func (p *planner) writeCorrection() {
	if p.rec == nil {
		return
	}
	c := &Correction{Timestamp: p.timestamp(), Type: p.rec.typ, Description: p.describe(p.rec.desc), TrailCleared: p.rec.trailCleared}
	p.plan.Correction = c
	entry := Map{
		{Key: "timestamp", Value: c.Timestamp},
		{Key: "type", Value: string(c.Type)},
		{Key: "description", Value: c.Description},
		{Key: "trail_cleared", Value: c.TrailCleared},
	}
	p.appendTo("corrections", entry)
}

// appendTrail records a trail entry for an OR selection the plan makes:
// the schema's four fields in its order (seed 000 §4.7: or_group,
// selected, reason, timestamp) and nothing else, so the loop's tools read
// it like one of their own. Only corrections that change a selection call
// it; the corrections[] entry records every correction. PlanCorrection
// writes the entries once the plan is complete (writeTrail).
func (p *planner) appendTrail(group, selected, reason string) {
	p.plan.Trails = append(p.plan.Trails, TrailEntry{ORGroup: group, Selected: selected, Reason: p.describe(reason), Timestamp: p.timestamp()})
}

// writeTrail plans the edits appending the recorded trail entries, adding
// the section (once, with all of them) when the file lacks it.
func (p *planner) writeTrail() {
	if len(p.plan.Trails) == 0 && p.trailBase == nil {
		return
	}
	items := make([]any, len(p.plan.Trails))
	for i, t := range p.plan.Trails {
		items[i] = Map{
			{Key: "or_group", Value: t.ORGroup},
			{Key: "selected", Value: t.Selected},
			{Key: "reason", Value: t.Reason},
			{Key: "timestamp", Value: t.Timestamp},
		}
	}
	if len(p.plan.Trails) > 0 {
		p.plan.Trail = &p.plan.Trails[0]
	}
	if p.trailBase != nil {
		items = append(slices.Clone(p.trailBase), items...)
		if p.s.Lines.Has("trail") {
			p.edit(Replace(P("trail"), items))
			return
		}
	}
	if !p.s.Lines.Has("trail") {
		p.edit(AddKey(nil, "trail", items))
		return
	}
	for _, it := range items {
		p.edit(Append(P("trail"), it))
	}
}

// appendTo appends an item to a top-level sequence, adding the section when
// the file lacks it.
func (p *planner) appendTo(section string, item any) {
	if p.s.Lines.Has(section) {
		p.edit(Append(P(section), item))
		return
	}
	p.edit(AddKey(nil, section, []any{item}))
}

// setKey replaces key in the mapping at path, or adds it when absent.
func (p *planner) setKey(path Path, lines Lines, key string, value any) {
	if lines.Has(key) {
		p.edit(Replace(path.Child(key), value))
	} else {
		p.edit(AddKey(path, key, value))
	}
}

// atomIndex finds the atom a request names by id as a person typed it:
// the atom of that id, else the one whose id differs from it only in case
// ("a5" for A5, as the TUI's ':' jump takes it); the caller writes the
// file's spelling, s.Atoms[i].ID. Refused as "no atom X (atoms: …)" when
// there is none, or when several differ from it only in case.
func (p *planner) atomIndex(id string) (int, error) {
	if i, ok := p.f.Index[id]; ok {
		return i, nil
	}
	found, n := 0, 0
	for i, a := range p.s.Atoms {
		if strings.EqualFold(a.ID, id) && p.f.Index[a.ID] == i {
			found, n = i, n+1
		}
	}
	switch {
	case n == 1:
		return found, nil
	case n > 1:
		return 0, refuse(RuleUnknownAtom, "no atom %s: the ids of several differ from it only in case; give one exactly (atoms: %s)", id, atomList(p.s))
	}
	return 0, refuse(RuleUnknownAtom, "no atom %s (atoms: %s)", id, atomList(p.s))
}

// atomList names a state's atoms for a refusal: the first ten ids, and
// how many more there are.
func atomList(s *State) string {
	const shown = 10
	var ids []string
	for _, a := range s.Atoms[:min(shown, len(s.Atoms))] {
		ids = append(ids, a.ID)
	}
	if len(ids) == 0 {
		return "none"
	}
	list := strings.Join(ids, ", ")
	if more := len(s.Atoms) - shown; more > 0 {
		list += fmt.Sprintf(", … and %d more", more)
	}
	return list
}

// removeOnce plans the removal of path unless it is already planned.
func (p *planner) removeOnce(path Path) {
	if p.removed == nil {
		p.removed = map[string]bool{}
	}
	k := path.String()
	if p.removed[k] {
		return
	}
	p.removed[k] = true
	p.edit(Remove(path))
}

// affect adds ids to the plan's affected atoms, each once (a set beside
// the list keeps this linear when thousands are affected).
func (p *planner) affect(ids ...string) {
	if p.affected == nil {
		p.affected = map[string]bool{}
	}
	for _, id := range ids {
		if !p.affected[id] {
			p.affected[id] = true
			p.plan.Affected = append(p.plan.Affected, id)
		}
	}
}

// validID reports whether id is a short word: a letter or digit, then up to
// 63 letters, digits, _ . or - (a hand-written check: the equivalent
// regexp costs milliseconds of start-up to compile).
func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '_' && c != '.' && c != '-')) {
			return false
		}
	}
	return true
}

// seqNumber returns n for a sequential id "A<n>".
func seqNumber(id string) (int, bool) {
	if len(id) < 2 || id[0] != 'A' {
		return 0, false
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil || n < 0 || id[1] == '+' || id[1] == '-' {
		return 0, false
	}
	return n, true
}

// NextAtomID returns the next free sequential id A<n>: one past the highest
// A<n> named anywhere (atoms, dependencies, OR choices, decompositions), so
// a new atom never silently becomes a choice or child someone listed.
func NextAtomID(s *State) string {
	high := 0
	see := func(id string) {
		if n, ok := seqNumber(id); ok && n > high {
			high = n
		}
	}
	for _, a := range s.Atoms {
		see(a.ID)
		for _, d := range a.DependsOn {
			see(d)
		}
	}
	for _, g := range s.ORGroups {
		for _, c := range g.Choices {
			see(c)
		}
	}
	for _, d := range s.Decompositions {
		see(d.Parent)
		for _, c := range d.Children {
			see(c)
		}
	}
	return "A" + strconv.Itoa(high+1)
}

// dependsClosure returns every atom reachable from roots along depends_on.
func (p *planner) dependsClosure(roots []string) map[string]string {
	// via[x] is the atom we reached x from (for cycle paths); roots map to "".
	via := map[string]string{}
	stack := make([]string, 0, len(roots))
	for _, r := range roots {
		if _, ok := via[r]; !ok {
			via[r] = ""
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := p.f.Index[x]
		if !ok {
			continue
		}
		for _, d := range p.s.Atoms[i].DependsOn {
			if _, seen := via[d]; !seen {
				via[d] = x
				stack = append(stack, d)
			}
		}
	}
	return via
}

// dependentsClosure returns the transitive dependents of roots, in a stable
// order (breadth first, file order within a level), roots excluded.
func (p *planner) dependentsClosure(roots []string) []string {
	seen := map[string]bool{}
	for _, r := range roots {
		seen[r] = true
	}
	queue := slices.Clone(roots)
	var out []string
	for q := 0; q < len(queue); q++ {
		next := slices.Clone(p.f.Dependents()[queue[q]])
		// A decomposed parent depends on its children in spirit: it resolved
		// because they did.
		if parent, ok := p.f.ParentOf[queue[q]]; ok {
			next = append(next, parent)
		}
		for _, d := range next {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
				out = append(out, d)
			}
		}
	}
	return out
}

// hasBinding reports whether atom id has a binding, through an index built
// on first use (a redo can reset thousands of atoms; State.Binding scans).
func (p *planner) hasBinding(id string) bool {
	if p.bound == nil {
		p.bound = make(map[string]bool, len(p.s.Bindings))
		for _, b := range p.s.Bindings {
			p.bound[b.AtomID] = true
		}
	}
	return p.bound[id]
}

// resetToPending plans status: pending for an atom and the removal of its
// binding, returning a description fragment ("A5 resolved → pending").
func (p *planner) resetToPending(id string) string {
	i := p.f.Index[id]
	a := p.s.Atoms[i]
	if a.Status == StatusPending {
		return ""
	}
	p.edit(Replace(P("atoms", i, "status"), string(StatusPending)))
	if p.hasBinding(id) {
		p.removeOnce(P("bindings", id))
	}
	p.affect(id)
	return fmt.Sprintf("%s %s → pending", id, a.Status)
}

// ---------------------------------------------------------------------------
// Add atom

// AddAtom adds an atom (dag_adjustment). ID empty means the next free A<n>.
// It writes no trail entry: the trail records OR selections (seed 000
// §4.7), and the corrections[] entry records the addition.
type AddAtom struct {
	ID          string
	Description string
	DependsOn   []string
	ORGroup     string
	// RequiredBy lists unresolved atoms that will depend on the new one
	// (an in-progress one goes back to pending, with
	// PlanContext.Interrupt: see Interrupt).
	RequiredBy []string
}

// Kind implements Request.
func (AddAtom) Kind() string { return "add-atom" }

func (r AddAtom) plan(p *planner) error {
	s := p.s
	id := strings.TrimSpace(r.ID)
	if id == "" {
		id = NextAtomID(s)
	}
	if !validID(id) {
		return refuse(RuleBadID, "%q is not a usable atom id", id)
	}
	for _, a := range s.Atoms {
		// An id that differs from an existing one only in case would read
		// as the same atom.
		if strings.EqualFold(a.ID, id) {
			return refuse(RuleDuplicateID, "atom %s already exists", a.ID)
		}
	}
	desc := strings.TrimSpace(r.Description)
	if desc == "" {
		return refuse(RuleEmpty, "the new atom needs a description")
	}
	var deps []string
	for _, d := range dedupe(r.DependsOn) {
		if strings.EqualFold(d, id) {
			return refuse(RuleCycle, "atom %s cannot depend on itself", id)
		}
		i, err := p.atomIndex(d)
		if err != nil {
			return err
		}
		deps = append(deps, s.Atoms[i].ID)
	}
	deps = dedupe(deps)
	var reqBy []string
	for _, rb := range dedupe(r.RequiredBy) {
		i, err := p.atomIndex(rb)
		if err != nil {
			return err
		}
		reqBy = append(reqBy, s.Atoms[i].ID)
	}
	reqBy = dedupe(reqBy)
	for _, rb := range reqBy {
		i := p.f.Index[rb]
		if s.Atoms[i].Status == StatusResolved {
			return refuse(RuleResolved, "%s is resolved; a resolved atom cannot gain a dependency (redo its binding first)", rb)
		}
	}
	// new → deps and reqBy → new: a cycle exists when a required-by atom
	// is among the dependencies' transitive dependencies.
	if len(reqBy) > 0 && len(deps) > 0 {
		via := p.dependsClosure(deps)
		for _, rb := range reqBy {
			if _, ok := via[rb]; ok {
				path := []string{rb}
				for x := via[rb]; x != ""; x = via[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				cycle := append([]string{id}, path...)
				cycle = append(cycle, id)
				return refuse(RuleCycle, "that would make a cycle: %s", strings.Join(cycle, " -> "))
			}
		}
	}
	var group *ORGroup
	if r.ORGroup != "" {
		g, ok := s.ORGroup(r.ORGroup)
		if !ok {
			return refuse(RuleORMember, "OR group %s does not exist", r.ORGroup)
		}
		group = g
	}

	atom := Map{{Key: "id", Value: id}, {Key: "description", Value: desc}, {Key: "status", Value: string(StatusPending)}, {Key: "depends_on", Value: toFlow(deps)}}
	if group != nil {
		atom = append(atom, KV{Key: "or_group", Value: group.Name})
	}
	if s.Lines.Has("atoms") {
		p.edit(Append(P("atoms"), atom))
	} else {
		p.edit(AddKey(nil, "atoms", []any{atom}))
	}
	// An id the group already lists (a choice named before its atom
	// existed) becomes that choice; it is not listed twice.
	if group != nil && !slices.Contains(group.Choices, id) {
		if group.Lines.Has("choices") {
			p.edit(Append(P("or_groups", group.Name, "choices"), id))
		} else {
			p.edit(AddKey(P("or_groups", group.Name), "choices", Flow{id}))
		}
	}
	var resets []string
	for _, rb := range reqBy {
		i := p.f.Index[rb]
		a := s.Atoms[i]
		if a.Lines.Has("depends_on") {
			p.edit(Append(P("atoms", i, "depends_on"), id))
		} else {
			p.edit(AddKey(P("atoms", i), "depends_on", Flow{id}))
		}
		if a.Status == StatusInProgress {
			p.edit(Replace(P("atoms", i, "status"), string(StatusPending)))
			resets = append(resets, rb+" in_progress → pending")
		}
		p.affect(rb)
	}
	p.affect(id)

	desc0 := fmt.Sprintf("added %s %q", id, desc)
	if len(deps) > 0 {
		desc0 += " depending on " + strings.Join(deps, ", ")
	}
	if group != nil {
		desc0 += " as a choice of OR group " + group.Name
	}
	if len(reqBy) > 0 {
		desc0 += "; required by " + strings.Join(reqBy, ", ")
	}
	if len(resets) > 0 {
		desc0 += " (" + strings.Join(resets, ", ") + ")"
	}
	p.record(CorrectionDAG, desc0, false)
	p.plan.Summary = "added " + id
	switch s.Control.Status {
	case LoopStopped, LoopCompleted:
		// The atom is recorded, but nothing will work on it.
		p.plan.Warnings = append(p.plan.Warnings, fmt.Sprintf("the loop has %s: it will not run %s until /enter-recursion starts it again", s.Control.Status, id))
	}
	return nil
}

func toFlow(ids []string) Flow {
	f := make(Flow, len(ids))
	for i, id := range ids {
		f[i] = id
	}
	return f
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Delete atom

// DeleteAtom deletes an unresolved atom (dag_adjustment). Detach drops it
// from its dependents' depends_on and allows deleting an OR group's
// selected choice; the group then selects its next choice that has not
// failed, and the trail records that selection (the only case in which a
// delete writes a trail entry), or selects nothing when none is left.
//
// Deleting an in-progress atom, or detaching it from one, needs
// PlanContext.Interrupt (see PlanCorrection).
type DeleteAtom struct {
	ID     string
	Detach bool
}

// Kind implements Request.
func (DeleteAtom) Kind() string { return "delete-atom" }

func (r DeleteAtom) plan(p *planner) error {
	s := p.s
	i, err := p.atomIndex(r.ID)
	if err != nil {
		return err
	}
	a := s.Atoms[i]
	if a.Status == StatusResolved {
		return refuse(RuleResolved, "%s is resolved; resolved work is not deleted (override its binding with --redo to undo it)", a.ID)
	}
	if len(s.Atoms) == 1 {
		return refuse(RuleLastAtom, "%s is the only atom; add the work that replaces it first", a.ID)
	}
	deps := p.f.Dependents()[a.ID]
	var selectedIn []string
	for _, g := range s.ORGroups {
		if g.Selected == a.ID {
			selectedIn = append(selectedIn, g.Name)
		}
	}
	if !r.Detach {
		if len(deps) > 0 {
			return refuse(RuleDependents, "%s is needed by %s; pass --detach to drop it from their depends_on", a.ID, strings.Join(deps, ", "))
		}
		if len(selectedIn) > 0 {
			return refuse(RuleDependents, "%s is the selected choice of OR group %s; pass --detach to delete it and select another choice", a.ID, selectedIn[0])
		}
	}
	p.removeOnce(P("atoms", i))
	p.affect(a.ID)
	var notes []string
	// The selected choice of an OR group hands its dependents to the
	// group's next choice, as the loop's own backtrack does; otherwise
	// they lose the dependency.
	next := ""
	for _, g := range s.ORGroups {
		if g.Selected == a.ID {
			next = nextChoice(p, g, a.ID)
			break
		}
	}
	switch {
	case len(deps) > 0 && next != "":
		moved, err := p.rewire(a.ID, next)
		if err != nil {
			return err
		}
		p.affect(moved...)
		notes = append(notes, fmt.Sprintf("%s now depend%s on %s instead", strings.Join(moved, ", "), plural1(len(moved)), next))
	case len(deps) > 0:
		for _, d := range deps {
			j := p.f.Index[d]
			for k, dep := range s.Atoms[j].DependsOn {
				if dep == a.ID {
					p.removeOnce(P("atoms", j, "depends_on", k))
				}
			}
			p.affect(d)
		}
		notes = append(notes, "detached from "+strings.Join(deps, ", "))
	}
	for _, g := range s.ORGroups {
		gp := P("or_groups", g.Name)
		for k, c := range g.Choices {
			if c == a.ID {
				p.removeOnce(gp.Child("choices").Child(k))
			}
		}
		for k, c := range g.Failed {
			if c == a.ID {
				p.removeOnce(gp.Child("failed").Child(k))
			}
		}
		if g.Selected == a.ID {
			next := nextChoice(p, g, a.ID)
			if next == "" {
				p.edit(Replace(gp.Child("selected"), nil))
				notes = append(notes, "OR group "+g.Name+" has no choice left to select")
			} else {
				p.edit(Replace(gp.Child("selected"), next))
				notes = append(notes, "OR group "+g.Name+" now selects "+next)
				p.appendTrail(g.Name, next, fmt.Sprintf("%s, the selected choice, was deleted; %s is the next choice that has not failed", a.ID, next))
			}
		}
	}
	for k, d := range s.Decompositions {
		switch {
		case d.Parent == a.ID:
			p.removeOnce(P("decompositions", k))
			notes = append(notes, "its decomposition record removed (children stay)")
		case slices.Contains(d.Children, a.ID):
			if len(d.Children) == 1 {
				p.removeOnce(P("decompositions", k))
				notes = append(notes, "decomposition of "+d.Parent+" removed (no children left)")
				continue
			}
			for ci, c := range d.Children {
				if c == a.ID {
					p.removeOnce(P("decompositions", k, "children", ci))
				}
			}
		}
	}
	if _, ok := s.Binding(a.ID); ok {
		p.removeOnce(P("bindings", a.ID))
	}
	desc := fmt.Sprintf("deleted %s %q (was %s)", a.ID, a.Description, a.Status)
	if len(notes) > 0 {
		desc += "; " + strings.Join(notes, "; ")
	}
	p.record(CorrectionDAG, desc, false)
	p.plan.Summary = "deleted " + a.ID
	return nil
}

// nextChoice is the choice of g that takes over from choice gone: the
// first other one that has not failed and exists ("" when none does).
func nextChoice(p *planner, g ORGroup, gone string) string {
	for _, c := range g.Choices {
		if c != gone && !slices.Contains(g.Failed, c) {
			if _, ok := p.f.Index[c]; ok {
				return c
			}
		}
	}
	return ""
}

// plural1 is the verb ending for n subjects ("s" for one: "A6 depends").
func plural1(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Force OR choice

// ForceOR selects a choice of an OR group (dag_adjustment), as the loop's
// own backtrack switches one (seed 000 §6.3): atoms that depend on the
// previous selection are moved onto the new choice (an unselected choice
// never runs, so they could otherwise never run either), the previous
// selection goes back to pending when in progress and is redone (binding
// dropped, dependents reset) when resolved, and the trail records the new
// selection. It is refused when moving a dependent would make a cycle.
//
// Touching an in-progress previous selection, or its dependents, needs
// PlanContext.Interrupt (see PlanCorrection).
type ForceOR struct {
	Group  string
	Choice string
	Reason string
}

// Kind implements Request.
func (ForceOR) Kind() string { return "force-or" }

func (r ForceOR) plan(p *planner) error {
	s := p.s
	g, ok := s.ORGroup(r.Group)
	if !ok {
		return refuse(RuleORMember, "OR group %s does not exist", r.Group)
	}
	if !slices.Contains(g.Choices, r.Choice) {
		// A choice typed in another case ("a6") is the one the group
		// lists ("A6"), as atom ids are everywhere a person types them.
		for _, c := range g.Choices {
			if strings.EqualFold(c, r.Choice) {
				r.Choice = c
				break
			}
		}
	}
	if !slices.Contains(g.Choices, r.Choice) {
		return refuse(RuleORMember, "%s is not one of OR group %s's choices (%s)", r.Choice, g.Name, strings.Join(g.Choices, ", "))
	}
	if _, ok := p.f.Index[r.Choice]; !ok {
		return refuse(RuleORMember, "%s is listed as a choice of %s but no atom %s exists; add it first", r.Choice, g.Name, r.Choice)
	}
	if g.Selected == r.Choice {
		return refuse(RuleNoChange, "OR group %s already selects %s", g.Name, r.Choice)
	}
	reason := strings.TrimSpace(r.Reason)
	if reason == "" {
		reason = "forced by user"
	}
	var rewired []string
	if g.Selected != "" {
		var err error
		if rewired, err = p.rewire(g.Selected, r.Choice); err != nil {
			return err
		}
	}
	gp := P("or_groups", g.Name)
	p.setKey(gp, g.Lines, "selected", r.Choice)
	for k, f := range g.Failed {
		if f == r.Choice {
			p.removeOnce(gp.Child("failed").Child(k))
		}
	}
	p.affect(r.Choice)
	var notes []string
	if prev, ok := p.f.Index[g.Selected]; ok && g.Selected != "" {
		switch s.Atoms[prev].Status {
		case StatusInProgress:
			notes = append(notes, p.resetToPending(g.Selected))
		case StatusResolved:
			notes = append(notes, p.resetToPending(g.Selected))
			for _, d := range p.dependentsClosure([]string{g.Selected}) {
				if n := p.resetToPending(d); n != "" {
					notes = append(notes, n)
				}
			}
		}
	}
	p.affect(rewired...)
	was := g.Selected
	if was == "" {
		was = "none"
	}
	desc := fmt.Sprintf("forced OR group %s to %s (was %s)", g.Name, r.Choice, was)
	switch len(rewired) {
	case 0:
	case 1:
		desc += fmt.Sprintf("; %s now depends on %s instead of %s", rewired[0], r.Choice, g.Selected)
	default:
		desc += fmt.Sprintf("; %s now depend on %s instead of %s", strings.Join(rewired, ", "), r.Choice, g.Selected)
	}
	if len(notes) > 0 {
		desc += "; " + strings.Join(notes, ", ")
	}
	p.appendTrail(g.Name, r.Choice, reason)
	p.record(CorrectionDAG, desc+"; reason: "+reason, false)
	p.plan.Summary = fmt.Sprintf("%s now selects %s", g.Name, r.Choice)
	return nil
}

// rewire plans moving the dependents of OR choice old onto choice next, as
// the loop's backtrack does: in each dependent's depends_on the entry old
// becomes next, in place (the list stays in flow style), or goes when the
// list already has next. It returns the dependents it moves, in file order,
// and refuses when one of them is next itself or something next depends
// on, transitively: the move would make a cycle.
func (p *planner) rewire(old, next string) ([]string, error) {
	deps := p.f.Dependents()[old]
	if len(deps) == 0 {
		return nil, nil
	}
	// A cycle needs a path from next back to a dependent: next's
	// dependency closure (next included) must contain none of them.
	via := p.dependsClosure([]string{next})
	for _, d := range deps {
		if _, ok := via[d]; !ok {
			continue
		}
		path := []string{d}
		for x := via[d]; x != ""; x = via[x] {
			path = append(path, x)
		}
		slices.Reverse(path) // next … d
		cycle := append([]string{d}, path...)
		return nil, refuse(RuleCycle, "%s depends on %s; making it depend on %s instead would make a cycle: %s",
			d, old, next, strings.Join(cycle, " -> "))
	}
	moved := make([]string, 0, len(deps))
	seen := make(map[string]bool, len(deps))
	for _, d := range deps {
		if seen[d] {
			continue // a duplicate atom id (a validation error): its first atom only
		}
		seen[d] = true
		moved = append(moved, d)
		j := p.f.Index[d]
		list := p.s.Atoms[j].DependsOn
		has := slices.Contains(list, next)
		for k, x := range list {
			if x != old {
				continue
			}
			if has {
				p.removeOnce(P("atoms", j, "depends_on", k))
			} else {
				p.edit(Replace(P("atoms", j, "depends_on", k), next))
				has = true
			}
		}
	}
	return moved, nil
}

// ---------------------------------------------------------------------------
// Change constraints

// ChangeConstraints sets constraints (constraint_change); nil leaves a
// constraint as it is.
type ChangeConstraints struct {
	MaxIterations     *int
	MaxParallelAgents *int
	MaxStallCount     *int
}

// Kind implements Request.
func (ChangeConstraints) Kind() string { return "constraints" }

func (r ChangeConstraints) plan(p *planner) error {
	c := p.s.Objective.Constraints
	type change struct {
		key      string
		val      *int
		cur      int
		present  bool
		fallback int
	}
	changes := []change{
		{"max_iterations", r.MaxIterations, c.MaxIterations, c.Lines.Has("max_iterations"), DefaultMaxIterations},
		{"max_parallel_agents", r.MaxParallelAgents, c.MaxParallelAgents, c.Lines.Has("max_parallel_agents"), DefaultMaxParallelAgents},
		{"max_stall_count", r.MaxStallCount, c.MaxStallCount, c.Lines.Has("max_stall_count"), DefaultMaxStallCount},
	}
	if r.MaxIterations == nil && r.MaxParallelAgents == nil && r.MaxStallCount == nil {
		return refuse(RuleNoChange, "nothing to change: give at least one of --max-iterations, --max-parallel-agents, --max-stall-count")
	}
	var parts []string
	if !p.s.Lines.Has("objective") {
		return refuse(RuleNoChange, "the file has no objective section to hold constraints")
	}
	if !p.s.Objective.Lines.Has("constraints") {
		m := Map{}
		for _, ch := range changes {
			v := ch.fallback
			if ch.val != nil {
				if *ch.val <= 0 {
					return refuse(RulePositiveLimit, "%s must be a positive integer, not %d", ch.key, *ch.val)
				}
				v = *ch.val
				parts = append(parts, fmt.Sprintf("%s (default %d) → %d", ch.key, ch.fallback, v))
			}
			m = append(m, KV{Key: ch.key, Value: v})
		}
		p.edit(AddKey(P("objective"), "constraints", m))
	} else {
		for _, ch := range changes {
			if ch.val == nil {
				continue
			}
			if *ch.val <= 0 {
				return refuse(RulePositiveLimit, "%s must be a positive integer, not %d", ch.key, *ch.val)
			}
			if ch.present && ch.cur == *ch.val {
				continue
			}
			cur := strconv.Itoa(ch.cur)
			if !ch.present {
				cur = fmt.Sprintf("(default %d)", ch.fallback)
			}
			parts = append(parts, fmt.Sprintf("%s %s → %d", ch.key, cur, *ch.val))
			p.setKey(P("objective", "constraints"), c.Lines, ch.key, *ch.val)
		}
		if len(parts) == 0 {
			return refuse(RuleNoChange, "the constraints already have those values")
		}
	}
	desc := strings.Join(parts, ", ")
	if r.MaxIterations != nil && *r.MaxIterations <= p.s.Control.Iteration {
		warning := fmt.Sprintf("iteration is already %d: the stop hook will end the loop", p.s.Control.Iteration)
		desc += " (" + warning + ")"
		p.plan.Warnings = append(p.plan.Warnings, warning)
	}
	p.record(CorrectionConstraint, desc, false)
	p.plan.Summary = desc
	return nil
}

// ---------------------------------------------------------------------------
// Change objective

// ChecklistPath addresses a base_case checklist item by 0-based positions:
// {2} is checklist[2]; {0, 1} is the second child of checklist[0]'s group
// or any_of.
type ChecklistPath []int

// String renders the path 1-based, as the CLI takes it: "1.2".
func (c ChecklistPath) String() string {
	parts := make([]string, len(c))
	for i, n := range c {
		parts[i] = strconv.Itoa(n + 1)
	}
	return strings.Join(parts, ".")
}

// ParseChecklistPath reads a 1-based dotted path such as "1.2".
func ParseChecklistPath(s string) (ChecklistPath, error) {
	var out ChecklistPath
	for _, part := range strings.Split(strings.TrimSpace(s), ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("checklist position %q: use 1-based numbers separated by dots, such as 2 or 1.3", s)
		}
		out = append(out, n-1)
	}
	return out, nil
}

// CheckEdit changes the base_case: Op "set" sets the type/value of the
// check at Path (an empty Path is the legacy {type, value} base_case), "add"
// adds an item with a check under Path (empty: the top of the checklist;
// else the group/any_of of that item), "remove" removes the item at Path.
type CheckEdit struct {
	Op    string
	Path  ChecklistPath
	Item  string
	Type  CheckType
	Value string
}

// ChangeObjective changes the alignment (objective_change): text fields that
// are not nil and base_case edits. It clears the trail.
type ChangeObjective struct {
	Goal             *string
	BackgroundIntent *string
	Deliverables     *string
	DefinitionOfDone *string
	Checks           []CheckEdit
}

// Kind implements Request.
func (ChangeObjective) Kind() string { return "objective" }

func (r ChangeObjective) plan(p *planner) error {
	o := p.s.Objective
	if !p.s.Lines.Has("objective") {
		return refuse(RuleNoChange, "the file has no objective section")
	}
	var parts []string
	for _, f := range []struct {
		key string
		val *string
		cur string
	}{
		{"goal", r.Goal, o.Goal},
		{"background_intent", r.BackgroundIntent, o.BackgroundIntent},
		{"deliverables", r.Deliverables, o.Deliverables},
		{"definition_of_done", r.DefinitionOfDone, o.DefinitionOfDone},
	} {
		if f.val == nil {
			continue
		}
		v := strings.TrimSpace(*f.val)
		if v == "" {
			return refuse(RuleEmpty, "objective.%s cannot be empty", f.key)
		}
		if o.Lines.Has(f.key) && v == f.cur {
			continue
		}
		p.setKey(P("objective"), o.Lines, f.key, v)
		parts = append(parts, fmt.Sprintf("%s → %q", f.key, v))
	}
	for _, ce := range r.Checks {
		part, err := p.checkEdit(ce)
		if err != nil {
			return err
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return refuse(RuleNoChange, "nothing to change: give a new goal, background intent, deliverables, definition of done or a base_case edit")
	}
	// An alignment change is essentially a restart: clear the trail.
	if p.s.Lines.Has("trail") {
		p.edit(Replace(P("trail"), []any{}))
	} else {
		p.edit(AddKey(nil, "trail", []any{}))
	}
	p.plan.TrailCleared = true
	desc := "objective changed: " + strings.Join(parts, "; ")
	p.record(CorrectionObjective, desc, true)
	p.plan.Summary = desc
	return nil
}

// CheckEditTarget checks that a base_case edit op ("set", "add" or
// "remove") can act at pos in s — an existing check to set, a group or
// any_of to add under (or the top level of a checklist), an item to remove
// — and returns the refusal when it cannot. The forms check a position with
// it as soon as it is typed; PlanCorrection applies the same rules.
func CheckEditTarget(s *State, op string, pos ChecklistPath) error {
	_, _, err := checkEditTarget(s, op, pos)
	return err
}

// checkEditTarget is CheckEditTarget returning the item (nil for the top
// level or a legacy base_case) and its document path.
func checkEditTarget(s *State, op string, pos ChecklistPath) (*ChecklistItem, Path, error) {
	bc := s.Objective.BaseCase
	if len(pos) == 0 {
		switch op {
		case "set":
			if bc.IsChecklist || !s.Objective.Lines.Has("base_case") {
				return nil, nil, refuse(RuleChecklist, "the base_case is a checklist: name the item to set, such as --check 1.2")
			}
			return nil, nil, nil
		case "add":
			if !bc.IsChecklist {
				return nil, nil, refuse(RuleChecklist, "the base_case uses the legacy {type, value} format; items can be added to a checklist only")
			}
			return nil, nil, nil
		}
	}
	item, path, err := checklistItem(bc, pos)
	if err != nil {
		return nil, nil, err
	}
	switch op {
	case "set":
		if item.Check == nil {
			return nil, nil, refuse(RuleChecklist, "checklist item %s (%q) is a %s, not a check", pos, item.Item, item.Kind())
		}
	case "add":
		if !item.IsGroup && !item.IsAnyOf {
			return nil, nil, refuse(RuleChecklist, "checklist item %s (%q) is not a group or any_of; add to its parent instead", pos, item.Item)
		}
	case "remove":
		if len(pos) == 1 && len(bc.Checklist) == 1 {
			return nil, nil, refuse(RuleChecklist, "checklist item %s is the last one; the loop could never verify completion without it", pos)
		}
		if len(pos) > 1 {
			// An empty any_of can never pass (a validation error).
			parentPath := pos[:len(pos)-1]
			if parent, _, _ := checklistItem(bc, parentPath); parent.IsAnyOf && len(parent.AnyOf) == 1 {
				return nil, nil, refuse(RuleChecklist, "checklist item %s is the only choice of any_of %s; no choice could pass without it (remove item %s instead)", pos, parentPath, parentPath)
			}
		}
	default:
		return nil, nil, refuse(RuleChecklist, "unknown base_case edit %q (set, add or remove)", op)
	}
	return item, path, nil
}

func (p *planner) checkEdit(ce CheckEdit) (string, error) {
	bc := p.s.Objective.BaseCase
	if ce.Type != "" && !ce.Type.Known() {
		return "", refuse(RuleCheckType, "check type %q is not one of %s", ce.Type, joinTypes())
	}
	base := P("objective", "base_case")
	switch ce.Op {
	case "set":
		item, path, err := checkEditTarget(p.s, ce.Op, ce.Path)
		if err != nil {
			return "", err
		}
		if item == nil {
			lines := Lines{}
			if bc.Legacy != nil {
				lines = bc.Legacy.Lines
			}
			return p.setCheck(base, lines, bc.Legacy, ce, "base_case")
		}
		if ce.Item != "" && ce.Item != item.Item {
			p.edit(Replace(path.Child("item"), ce.Item))
		}
		return p.setCheck(path.Child("check"), item.Check.Lines, item.Check, ce, "base_case item "+ce.Path.String())
	case "add":
		if strings.TrimSpace(ce.Item) == "" {
			return "", refuse(RuleEmpty, "a new base_case item needs a name (--item)")
		}
		if ce.Type == "" {
			return "", refuse(RuleCheckType, "a new base_case item needs a check type: one of %s", joinTypes())
		}
		if ce.Type != CheckQuality && strings.TrimSpace(ce.Value) == "" {
			return "", refuse(RuleEmpty, "a %s check needs a value", ce.Type)
		}
		newItem := Map{{Key: "item", Value: ce.Item}, {Key: "check", Value: newCheck(ce)}}
		item, path, err := checkEditTarget(p.s, ce.Op, ce.Path)
		switch {
		case err != nil:
			return "", err
		case item == nil:
			p.edit(Append(base.Child("checklist"), newItem))
			return fmt.Sprintf("base_case item %q added (%s)", ce.Item, ce.Type), nil
		case item.IsGroup:
			p.edit(Append(path.Child("group"), newItem))
		default:
			p.edit(Append(path.Child("any_of"), newItem))
		}
		return fmt.Sprintf("base_case item %q added under %s (%s)", ce.Item, ce.Path, ce.Type), nil
	case "remove":
		item, path, err := checkEditTarget(p.s, ce.Op, ce.Path)
		if err != nil {
			return "", err
		}
		p.removeOnce(path)
		return fmt.Sprintf("base_case item %s (%q) removed", ce.Path, item.Item), nil
	}
	return "", refuse(RuleChecklist, "unknown base_case edit %q (set, add or remove)", ce.Op)
}

func newCheck(ce CheckEdit) Map {
	if ce.Type == CheckQuality {
		return Map{{Key: "type", Value: string(ce.Type)}, {Key: "criteria", Value: ce.Value}, {Key: "pass_threshold", Value: 3}}
	}
	return Map{{Key: "type", Value: string(ce.Type)}, {Key: "value", Value: ce.Value}}
}

// setCheck plans new type/value fields for an existing check mapping.
func (p *planner) setCheck(path Path, lines Lines, cur *Check, ce CheckEdit, what string) (string, error) {
	curType, curVal := CheckType(""), ""
	if cur != nil {
		curType, curVal = cur.Type, cur.Value
		if cur.Type == CheckQuality {
			curVal = cur.Criteria
		}
	}
	typ := ce.Type
	if typ == "" {
		typ = curType
	}
	val := ce.Value
	if val == "" && typ == curType {
		val = curVal
	}
	if strings.TrimSpace(val) == "" {
		return "", refuse(RuleEmpty, "the %s check needs a value", typ)
	}
	if typ == curType && val == curVal {
		return "", refuse(RuleNoChange, "%s already is %s %q", what, typ, val)
	}
	if typ != curType {
		p.setKey(path, lines, "type", string(typ))
	}
	key := "value"
	if typ == CheckQuality {
		key = "criteria"
		if !lines.Has("pass_threshold") {
			p.edit(AddKey(path, "pass_threshold", 3))
		}
	}
	if val != curVal || typ != curType {
		p.setKey(path, lines, key, val)
	}
	return fmt.Sprintf("%s → %s %q", what, typ, val), nil
}

// checklistItem finds the item at cp and its document path.
func checklistItem(bc BaseCase, cp ChecklistPath) (*ChecklistItem, Path, error) {
	if !bc.IsChecklist {
		return nil, nil, refuse(RuleChecklist, "the base_case has no checklist")
	}
	items := bc.Checklist
	path := P("objective", "base_case", "checklist")
	var it *ChecklistItem
	for depth, n := range cp {
		if n < 0 || n >= len(items) {
			return nil, nil, refuse(RuleChecklist, "the base_case has no checklist item %s", cp)
		}
		it = &items[n]
		path = path.Child(n)
		if depth == len(cp)-1 {
			break
		}
		switch {
		case it.IsGroup:
			items, path = it.Group, path.Child("group")
		case it.IsAnyOf:
			items, path = it.AnyOf, path.Child("any_of")
		default:
			return nil, nil, refuse(RuleChecklist, "checklist item %s (%q) has no children", ChecklistPath(cp[:depth+1]), it.Item)
		}
	}
	if it == nil {
		return nil, nil, refuse(RuleChecklist, "name a checklist item, such as 1 or 1.2")
	}
	return it, path, nil
}

// ---------------------------------------------------------------------------
// Override binding

// OverrideBinding changes a resolved atom's binding (bindings_override).
// Amend rewrites Summary and/or Artifacts; Redo deletes the binding and
// resets the atom and its transitive dependents to pending.
type OverrideBinding struct {
	ID        string
	Summary   *string
	Artifacts []string
	// SetArtifacts is true when Artifacts should replace the current list
	// (an empty list included).
	SetArtifacts bool
	// Redo resets in-progress dependents only with PlanContext.Interrupt
	// (see PlanCorrection).
	Redo bool
}

// Kind implements Request.
func (OverrideBinding) Kind() string { return "override-binding" }

func (r OverrideBinding) plan(p *planner) error {
	s := p.s
	i, err := p.atomIndex(r.ID)
	if err != nil {
		return err
	}
	a := s.Atoms[i]
	if a.Status != StatusResolved {
		return refuse(RuleOverrideResolved, "%s is %s; only a resolved atom's binding can be overridden", a.ID, a.Status)
	}
	if r.Redo {
		return r.planRedo(p, a)
	}
	if r.Summary == nil && !r.SetArtifacts {
		return refuse(RuleNoChange, "nothing to change: give a new --summary or --artifacts, or --redo")
	}
	b, has := s.Binding(a.ID)
	var parts []string
	if !has {
		m := Map{}
		summary := ""
		if r.Summary != nil {
			summary = strings.TrimSpace(*r.Summary)
		}
		if summary == "" {
			return refuse(RuleEmpty, "%s has no binding yet; give a --summary for it", a.ID)
		}
		m = append(m, KV{Key: "summary", Value: summary}, KV{Key: "artifacts", Value: toFlow(r.Artifacts)})
		if s.Lines.Has("bindings") {
			p.edit(AddKey(P("bindings"), a.ID, m))
		} else {
			p.edit(AddKey(nil, "bindings", Map{{Key: a.ID, Value: m}}))
		}
		parts = append(parts, "summary set", fmt.Sprintf("artifacts set to [%s]", strings.Join(r.Artifacts, ", ")))
	} else {
		bl := b.Lines
		bp := P("bindings", a.ID)
		if r.Summary != nil {
			summary := strings.TrimSpace(*r.Summary)
			if summary == "" {
				return refuse(RuleEmpty, "a binding summary cannot be empty")
			}
			if summary != b.Summary {
				p.setKey(bp, bl, "summary", summary)
				parts = append(parts, fmt.Sprintf("summary → %q", summary))
			}
		}
		if r.SetArtifacts && !slices.Equal(r.Artifacts, b.Artifacts) {
			p.setKey(bp, bl, "artifacts", toFlow(r.Artifacts))
			parts = append(parts, fmt.Sprintf("artifacts → [%s]", strings.Join(r.Artifacts, ", ")))
		}
		if len(parts) == 0 {
			return refuse(RuleNoChange, "the binding of %s already says that", a.ID)
		}
	}
	p.affect(a.ID)
	desc := fmt.Sprintf("amended binding of %s: %s", a.ID, strings.Join(parts, ", "))
	p.record(CorrectionBindingsFix, desc, false)
	p.plan.Summary = "amended " + a.ID
	return nil
}

func (r OverrideBinding) planRedo(p *planner, a Atom) error {
	scope := append([]string{a.ID}, p.dependentsClosure([]string{a.ID})...)
	var resets []string
	for _, id := range scope {
		if n := p.resetToPending(id); n != "" {
			resets = append(resets, n)
		}
	}
	// Clear the trail entries of the affected scope.
	inScope := make(map[string]bool, len(scope))
	for _, id := range scope {
		inScope[id] = true
	}
	cleared := 0
	for k, t := range p.s.Trail {
		if t.Selected != "" && inScope[t.Selected] {
			p.removeOnce(P("trail", k))
			cleared++
		}
	}
	p.plan.TrailCleared = cleared > 0
	desc := fmt.Sprintf("redo %s: binding dropped; %s", a.ID, strings.Join(resets, ", "))
	if cleared > 0 {
		desc += fmt.Sprintf("; %d trail entries of the affected scope cleared", cleared)
	}
	p.record(CorrectionBindingsFix, desc, cleared > 0)
	p.plan.Summary = fmt.Sprintf("redo %s (%d atoms back to pending)", a.ID, len(resets))
	return nil
}

// ---------------------------------------------------------------------------
// Stop and the redirect handshake

// Stop is /exit-recursion: stop_requested true with a reason. It records no
// correction; the stop hook stops the loop at its next decision.
type Stop struct{ Reason string }

// Kind implements Request.
func (Stop) Kind() string { return "stop" }

func (r Stop) plan(p *planner) error {
	c := p.s.Control
	if !p.s.Lines.Has("control") {
		return refuse(RuleLoopState, "the file has no control section")
	}
	switch c.Status {
	case LoopStopped, LoopCompleted:
		return refuse(RuleLoopState, "the loop is already %s", c.Status)
	}
	if c.StopRequested {
		return refuse(RuleNoChange, "a stop is already requested")
	}
	reason := strings.TrimSpace(r.Reason)
	if reason == "" {
		reason = "Stopped by user"
	}
	p.setKey(P("control"), c.Lines, "stop_requested", true)
	p.setKey(P("control"), c.Lines, "stop_reason", reason)
	p.plan.Summary = "stop requested: " + reason
	p.plan.AnyFile = true // stopping a broken loop is what a person needs most
	return nil
}

// SetRedirect sets or clears control.redirect_requested, the /redirect
// handshake: true while a person is preparing a correction (the stop hook
// then lets the loop pause), false when they apply or cancel it.
type SetRedirect struct{ Requested bool }

// Kind implements Request.
func (SetRedirect) Kind() string { return "redirect-flag" }

func (r SetRedirect) plan(p *planner) error {
	c := p.s.Control
	if !p.s.Lines.Has("control") {
		return refuse(RuleLoopState, "the file has no control section")
	}
	if c.Lines.Has("redirect_requested") && c.RedirectRequested == r.Requested {
		return refuse(RuleNoChange, "redirect_requested already is %v", r.Requested)
	}
	p.setKey(P("control"), c.Lines, "redirect_requested", r.Requested)
	p.plan.Summary = fmt.Sprintf("redirect_requested: %v", r.Requested)
	p.plan.AnyFile = true // the pause must always be able to start and end
	return nil
}

// ---------------------------------------------------------------------------
// In-progress atoms

// interrupts finds the in-progress atoms the plan's edits touch, from the
// edits themselves (whichever correction made them): removing the atom,
// any edit of its entry (its status, its depends_on), and a new selection
// of an OR group that selects it. They come in file order.
func (p *planner) interrupts() []Interrupt {
	s := p.s
	hows := map[int][]string{}
	deleted := map[int]bool{}
	note := func(i int, how string) {
		if !slices.Contains(hows[i], how) {
			hows[i] = append(hows[i], how)
		}
	}
	inProgress := func(i int) bool { return i >= 0 && i < len(s.Atoms) && s.Atoms[i].Status == StatusInProgress }
	for _, e := range p.plan.Edits {
		path := e.Path
		switch {
		case len(path) >= 2 && path[0].Key == "atoms" && !path[0].IsIndex && path[1].IsIndex:
			i := path[1].Index
			if !inProgress(i) {
				continue
			}
			field := e.Key
			if len(path) >= 3 {
				field = path[2].Key
			}
			switch {
			case len(path) == 2 && e.Op == OpRemove:
				deleted[i] = true
				note(i, "deletes it")
			case field == "status" && e.Op == OpReplace:
				note(i, fmt.Sprintf("resets it to %v", e.Value))
			case field == "depends_on":
				note(i, "changes its depends_on")
			default:
				note(i, "changes its "+field)
			}
		case len(path) >= 2 && path[0].Key == "or_groups" && !path[1].IsIndex:
			selected := len(path) == 3 && path[2].Key == "selected" && (e.Op == OpReplace || e.Op == OpRemove) ||
				len(path) == 2 && e.Op == OpAdd && e.Key == "selected"
			if !selected {
				continue
			}
			g, ok := s.ORGroup(path[1].Key)
			if !ok || g.Selected == "" || e.Value == g.Selected {
				continue
			}
			i, ok := p.f.Index[g.Selected]
			if !ok || !inProgress(i) {
				continue
			}
			if e.Value == nil {
				note(i, fmt.Sprintf("leaves OR group %s with no selection", g.Name))
			} else {
				note(i, fmt.Sprintf("makes OR group %s select %v instead of it", g.Name, e.Value))
			}
		}
	}
	if len(hows) == 0 {
		return []Interrupt{}
	}
	idx := make([]int, 0, len(hows))
	for i := range hows {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	out := make([]Interrupt, 0, len(idx))
	for _, i := range idx {
		h := hows[i]
		if deleted[i] {
			h = []string{"deletes it"} // what else is done to it goes with it
		}
		slices.SortStableFunc(h, func(a, b string) int { return howRank(a) - howRank(b) })
		out = append(out, Interrupt{Atom: s.Atoms[i].ID, How: strings.Join(h, " and "), Deleted: deleted[i]})
	}
	return out
}

// howRank orders what a plan does to an atom: deleting it, resetting it,
// moving its OR group's selection away from it, changing its depends_on.
func howRank(how string) int {
	for r, prefix := range []string{"deletes", "resets", "makes OR group", "leaves OR group", "changes its depends_on"} {
		if strings.HasPrefix(how, prefix) {
			return r
		}
	}
	return 9
}

// Consequence says what the worker's own write will do after the
// correction: fail on an atom that is gone, overwrite a reset status, or,
// for a rewire alone, resolve the atom all the same: update_atom.py
// rewrites only the status line, so the new depends_on stays and the atom
// is resolved on the work done without what it now depends on.
func (in Interrupt) Consequence() string {
	switch {
	case in.Deleted:
		return fmt.Sprintf("the worker's update_atom.py %s … will fail 'Atom %s not found'", in.Atom, in.Atom)
	case !strings.Contains(in.How, "resets it") && strings.Contains(in.How, "changes its depends_on"):
		return "the worker still resolves it when it finishes, on the dependencies it started with (update_atom.py rewrites only the status)"
	}
	return "the worker's result would overwrite it"
}

// interruptRefusal is the one-line refusal of a plan that touches
// in-progress atoms without PlanContext.Interrupt: the first named, with
// what the plan does to it and what the worker's write would do then.
func interruptRefusal(ins []Interrupt) error {
	first := ins[0]
	msg := fmt.Sprintf("%s is in progress (a worker is on it): this correction %s; %s", first.Atom, first.How, first.Consequence())
	if len(ins) > 1 {
		var more []string
		for _, in := range ins[1:] {
			more = append(more, in.Atom+" "+in.How)
		}
		msg += " (also in progress: " + strings.Join(more, "; ") + ")"
	}
	return refuse(RuleInProgress, "%s. Add --interrupt to do it anyway", msg)
}

// interruptedText is what a correction's description adds about the
// workers it interrupts: "interrupted the worker on A9".
func interruptedText(ins []Interrupt) string {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = in.Atom
	}
	if len(ids) == 1 {
		return "interrupted the worker on " + ids[0]
	}
	return "interrupted the workers on " + strings.Join(ids, ", ")
}
