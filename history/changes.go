package history

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/aot-loop/aot-tui/model"
)

// ChangeKind classifies one difference between two versions of a state.
type ChangeKind string

// The kinds of Change, roughly in the order Compare lists them.
const (
	ChangeLoopStatus   ChangeKind = "loop_status"   // control.status
	ChangeIteration    ChangeKind = "iteration"     // control.iteration
	ChangeStall        ChangeKind = "stall"         // control.stall_count
	ChangeFlag         ChangeKind = "flag"          // stop_requested, redirect_requested, stop_reason
	ChangeObjective    ChangeKind = "objective"     // goal, base_case, intent, deliverables, done
	ChangeConstraint   ChangeKind = "constraint"    // objective.constraints
	ChangeAtomAdded    ChangeKind = "atom_added"    // a new atom
	ChangeAtomRemoved  ChangeKind = "atom_removed"  // an atom went away
	ChangeStatus       ChangeKind = "status"        // an atom's status
	ChangeAtomEdited   ChangeKind = "atom_edited"   // description, depends_on or or_group
	ChangeDecomposed   ChangeKind = "decomposed"    // a decompositions entry
	ChangeORSelected   ChangeKind = "or_selected"   // an OR group's selection moved
	ChangeBacktrack    ChangeKind = "backtrack"     // ... because its choice failed
	ChangeORGroup      ChangeKind = "or_group"      // a group added or removed
	ChangeBinding      ChangeKind = "binding"       // bindings added, changed, removed
	ChangeTrail        ChangeKind = "trail"         // a trail entry added
	ChangeTrailCleared ChangeKind = "trail_cleared" // the trail lost entries
	ChangeCorrection   ChangeKind = "correction"    // a corrections[] entry added
	ChangeBody         ChangeKind = "body"          // the Markdown prompt
	ChangeFirst        ChangeKind = "first"         // the first version: a summary
)

// Change is one difference between two versions, in words.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Atom is the atom the change is about, if any.
	Atom string `json:"atom,omitempty"`
	// Text says what changed ("A4 pending → in_progress", "stall 1 → 2").
	// It quotes the file's own strings: sanitise it before drawing it.
	Text string `json:"text"`
}

// Mark flags what kind of step a version is, for jumping between the
// versions where something happened rather than a counter moved.
type Mark uint8

// Marks of a version (see MarksOf).
const (
	MarkFirst      Mark = 1 << iota // the first version of a timeline
	MarkAtoms                       // atoms added or removed
	MarkStatus                      // an atom's status changed
	MarkCorrection                  // a correction entry was added
	MarkBacktrack                   // an OR group's selection moved on
	MarkLoop                        // control.status changed
	MarkStall                       // stall_count went up
	MarkTrail                       // the trail gained or lost entries
)

// Structural is the set of marks the timeline's jump keys stop at: the
// structure or an atom's status changed, a correction, a backtrack, the
// loop started or ended.
const Structural = MarkFirst | MarkAtoms | MarkStatus | MarkCorrection | MarkBacktrack | MarkLoop

// MarksOf summarises changes as marks.
func MarksOf(changes []Change) Mark {
	var m Mark
	for _, c := range changes {
		switch c.Kind {
		case ChangeAtomAdded, ChangeAtomRemoved, ChangeDecomposed:
			m |= MarkAtoms
		case ChangeStatus:
			m |= MarkStatus
		case ChangeCorrection:
			m |= MarkCorrection
		case ChangeBacktrack, ChangeORSelected:
			m |= MarkBacktrack
		case ChangeLoopStatus:
			m |= MarkLoop
		case ChangeStall:
			if strings.HasSuffix(c.Text, "↑") {
				m |= MarkStall
			}
		case ChangeTrail, ChangeTrailCleared:
			m |= MarkTrail
		case ChangeFirst:
			m |= MarkFirst
		}
	}
	return m
}

// Compare lists what changed from prev to cur, in words: control first,
// then the objective, atoms (in cur's order), decompositions, OR groups,
// bindings, trail, corrections and the prompt. prev nil means cur is the
// first version: nothing is listed but a summary of it.
func Compare(prev, cur *model.State) []Change {
	if cur == nil {
		return nil
	}
	if prev == nil {
		return []Change{{Kind: ChangeFirst, Text: fmt.Sprintf("first version: %d atoms, status %s, iteration %d",
			len(cur.Atoms), cur.Control.Status, cur.Control.Iteration)}}
	}
	var out []Change
	add := func(k ChangeKind, atom, format string, args ...any) {
		out = append(out, Change{Kind: k, Atom: atom, Text: fmt.Sprintf(format, args...)})
	}
	compareControl(prev, cur, add)
	compareObjective(prev, cur, add)
	compareAtoms(prev, cur, add)
	compareDecompositions(prev, cur, add)
	compareORGroups(prev, cur, add)
	compareBindings(prev, cur, add)
	compareTrail(prev, cur, add)
	compareCorrections(prev, cur, add)
	if prev.Body != cur.Body {
		add(ChangeBody, "", "the prompt (Markdown body) changed")
	}
	return out
}

type addFunc func(k ChangeKind, atom, format string, args ...any)

func compareControl(prev, cur *model.State, add addFunc) {
	p, c := prev.Control, cur.Control
	if p.Status != c.Status {
		add(ChangeLoopStatus, "", "loop %s → %s", orNone(string(p.Status)), orNone(string(c.Status)))
	}
	if p.Iteration != c.Iteration {
		add(ChangeIteration, "", "iteration %d → %d", p.Iteration, c.Iteration)
	}
	if p.StallCount != c.StallCount {
		dir := "↓"
		if c.StallCount > p.StallCount {
			dir = "↑"
		}
		add(ChangeStall, "", "stall %d → %d %s", p.StallCount, c.StallCount, dir)
	}
	if p.StopRequested != c.StopRequested {
		add(ChangeFlag, "", "stop_requested %v → %v", p.StopRequested, c.StopRequested)
	}
	if p.RedirectRequested != c.RedirectRequested {
		add(ChangeFlag, "", "redirect_requested %v → %v", p.RedirectRequested, c.RedirectRequested)
	}
	if p.StopReason != c.StopReason {
		add(ChangeFlag, "", "stop_reason %s → %s", quote(p.StopReason), quote(c.StopReason))
	}
}

func compareObjective(prev, cur *model.State, add addFunc) {
	p, c := prev.Objective, cur.Objective
	for _, f := range []struct{ name, a, b string }{
		{"goal", p.Goal, c.Goal},
		{"background_intent", p.BackgroundIntent, c.BackgroundIntent},
		{"deliverables", p.Deliverables, c.Deliverables},
		{"definition_of_done", p.DefinitionOfDone, c.DefinitionOfDone},
	} {
		if f.a != f.b {
			add(ChangeObjective, "", "%s %s → %s", f.name, quote(f.a), quote(f.b))
		}
	}
	if baseCaseText(p.BaseCase) != baseCaseText(c.BaseCase) {
		add(ChangeObjective, "", "base_case changed")
	}
	pc, cc := p.Constraints, c.Constraints
	for _, f := range []struct {
		name string
		a, b int
	}{
		{"max_iterations", pc.EffectiveMaxIterations(), cc.EffectiveMaxIterations()},
		{"max_parallel_agents", pc.EffectiveMaxParallelAgents(), cc.EffectiveMaxParallelAgents()},
		{"max_stall_count", pc.EffectiveMaxStallCount(), cc.EffectiveMaxStallCount()},
	} {
		if f.a != f.b {
			add(ChangeConstraint, "", "%s %d → %d", f.name, f.a, f.b)
		}
	}
}

// baseCaseText is a base_case without its line numbers, to compare.
func baseCaseText(b model.BaseCase) string {
	var sb strings.Builder
	check := func(c *model.Check) {
		if c == nil {
			return
		}
		fmt.Fprintf(&sb, "{%s %q %q %v %q", c.Type, c.Value, c.Criteria, c.PassThreshold, c.Scope)
		for _, r := range c.Rubric {
			fmt.Fprintf(&sb, "[%q %q %v %v]", r.Criterion, r.Description, r.Weight, r.Levels)
		}
		sb.WriteString("}")
	}
	var items func(list []model.ChecklistItem)
	items = func(list []model.ChecklistItem) {
		for _, it := range list {
			fmt.Fprintf(&sb, "(%q %s ", it.Item, it.Kind())
			check(it.Check)
			items(it.Group)
			items(it.AnyOf)
			sb.WriteString(")")
		}
	}
	check(b.Legacy)
	fmt.Fprintf(&sb, "%v|", b.IsChecklist)
	items(b.Checklist)
	return sb.String()
}

// comparePlaced compares the entries of prev and cur pair by pair when
// pairing them by place is what pairing them by id gives (byPlace):
// compare for each of cur's (p nil past prev's end), removed for each of
// prev's past cur's end. It reports whether it did.
func comparePlaced[T any](prev, cur []T, id func(*T) string, compare func(p, c *T), removed func(*T)) bool {
	if !byPlace(len(prev), len(cur), func(i int) string { return id(&prev[i]) }, func(i int) string { return id(&cur[i]) }) {
		return false
	}
	for i := range cur {
		var p *T
		if i < len(prev) {
			p = &prev[i]
		}
		compare(p, &cur[i])
	}
	for i := len(cur); i < len(prev); i++ {
		removed(&prev[i])
	}
	return true
}

func compareAtoms(prev, cur *model.State, add addFunc) {
	if comparePlaced(prev.Atoms, cur.Atoms, func(a *model.Atom) string { return a.ID },
		func(p, c *model.Atom) { compareAtom(p, c, add) },
		func(a *model.Atom) {
			add(ChangeAtomRemoved, a.ID, "%s removed (was %s): %s", a.ID, orNone(string(a.Status)), a.Description)
		}) {
		return
	}
	old := make(map[string]*model.Atom, len(prev.Atoms))
	for i := range prev.Atoms {
		old[prev.Atoms[i].ID] = &prev.Atoms[i]
	}
	seen := make(map[string]bool, len(cur.Atoms))
	for i := range cur.Atoms {
		a := &cur.Atoms[i]
		seen[a.ID] = true
		compareAtom(old[a.ID], a, add)
	}
	for _, a := range prev.Atoms {
		if !seen[a.ID] {
			add(ChangeAtomRemoved, a.ID, "%s removed (was %s): %s", a.ID, orNone(string(a.Status)), a.Description)
		}
	}
}

// compareAtom lists what changed in atom a since p (nil: a is new).
func compareAtom(p, a *model.Atom, add addFunc) {
	if p == nil {
		deps := ""
		if len(a.DependsOn) > 0 {
			deps = ", depends on " + strings.Join(a.DependsOn, " ")
		}
		add(ChangeAtomAdded, a.ID, "%s added (%s%s): %s", a.ID, orNone(string(a.Status)), deps, a.Description)
		return
	}
	if p.Status != a.Status {
		add(ChangeStatus, a.ID, "%s %s → %s", a.ID, orNone(string(p.Status)), orNone(string(a.Status)))
	}
	if p.Description != a.Description {
		add(ChangeAtomEdited, a.ID, "%s description %s → %s", a.ID, quote(p.Description), quote(a.Description))
	}
	if !slices.Equal(p.DependsOn, a.DependsOn) {
		add(ChangeAtomEdited, a.ID, "%s depends on [%s] (was [%s])", a.ID, strings.Join(a.DependsOn, " "), strings.Join(p.DependsOn, " "))
	}
	if p.ORGroup != a.ORGroup {
		add(ChangeAtomEdited, a.ID, "%s or_group %s → %s", a.ID, orNone(p.ORGroup), orNone(a.ORGroup))
	}
}

// byPlace is samePlaces; a test turns it off to check that pairing by
// place and by key agree.
var byPlace = samePlaces

// keySeed hashes keys for samePlaces.
var keySeed = maphash.MakeSeed()

// samePlaces says whether pairing up np old and nc new entries by place
// (old i with new i) is what pairing them by key through a map of the
// old ones would do: the old keys all differ, the first min(np, nc) new
// keys are the old ones in the same order, and a new key past those is
// none of the old ones. Then the old entries past nc are the ones gone
// and the new ones past np the ones added. That is a loop's usual write
// (statuses changed, atoms appended), and it spares a map of 10,000 keys
// a version. Keys are told apart by a hash: one that might repeat makes
// it answer false, never a wrong true.
func samePlaces(np, nc int, oldKey, newKey func(int) string) bool {
	for i := range min(np, nc) {
		if oldKey(i) != newKey(i) {
			return false
		}
	}
	hashes := make([]uint64, np)
	for i := range hashes {
		hashes[i] = maphash.String(keySeed, oldKey(i))
	}
	slices.Sort(hashes)
	for i := 1; i < len(hashes); i++ {
		if hashes[i] == hashes[i-1] {
			return false
		}
	}
	for i := np; i < nc; i++ {
		if _, found := slices.BinarySearch(hashes, maphash.String(keySeed, newKey(i))); found {
			return false
		}
	}
	return true
}

func compareDecompositions(prev, cur *model.State, add addFunc) {
	old := map[string]string{}
	for _, d := range prev.Decompositions {
		old[d.Parent] = strings.Join(d.Children, " ")
	}
	for _, d := range cur.Decompositions {
		kids := strings.Join(d.Children, " ")
		if was, ok := old[d.Parent]; !ok || was != kids {
			add(ChangeDecomposed, d.Parent, "%s decomposed into %s: %s", d.Parent, strings.Join(d.Children, ", "), d.Reason)
		}
	}
}

func compareORGroups(prev, cur *model.State, add addFunc) {
	old := map[string]*model.ORGroup{}
	for i := range prev.ORGroups {
		old[prev.ORGroups[i].Name] = &prev.ORGroups[i]
	}
	seen := map[string]bool{}
	for _, g := range cur.ORGroups {
		seen[g.Name] = true
		p, ok := old[g.Name]
		if !ok {
			add(ChangeORGroup, "", "OR group %s added: choices %s, selected %s", g.Name, strings.Join(g.Choices, " "), orNone(g.Selected))
			continue
		}
		var failed []string
		for _, f := range g.Failed {
			if !slices.Contains(p.Failed, f) {
				failed = append(failed, f)
			}
		}
		switch {
		case p.Selected != g.Selected && slices.Contains(failed, p.Selected):
			add(ChangeBacktrack, g.Selected, "OR group %s backtracked: %s failed, %s selected", g.Name, p.Selected, orNone(g.Selected))
		case p.Selected != g.Selected:
			add(ChangeORSelected, g.Selected, "OR group %s: selected %s → %s", g.Name, orNone(p.Selected), orNone(g.Selected))
		}
		for _, f := range failed {
			if f != p.Selected || p.Selected == g.Selected {
				add(ChangeBacktrack, f, "OR group %s: %s marked failed", g.Name, f)
			}
		}
	}
	for _, g := range prev.ORGroups {
		if !seen[g.Name] {
			add(ChangeORGroup, "", "OR group %s removed", g.Name)
		}
	}
}

func compareBindings(prev, cur *model.State, add addFunc) {
	if comparePlaced(prev.Bindings, cur.Bindings, func(b *model.Binding) string { return b.AtomID },
		func(p, c *model.Binding) { compareBinding(p, c, add) },
		func(b *model.Binding) { add(ChangeBinding, b.AtomID, "binding for %s removed", b.AtomID) }) {
		return
	}
	old := map[string]*model.Binding{}
	for i := range prev.Bindings {
		old[prev.Bindings[i].AtomID] = &prev.Bindings[i]
	}
	seen := map[string]bool{}
	for i := range cur.Bindings {
		b := &cur.Bindings[i]
		seen[b.AtomID] = true
		compareBinding(old[b.AtomID], b, add)
	}
	for _, b := range prev.Bindings {
		if !seen[b.AtomID] {
			add(ChangeBinding, b.AtomID, "binding for %s removed", b.AtomID)
		}
	}
}

// compareBinding lists what changed in binding b since p (nil: b is new).
func compareBinding(p, b *model.Binding, add addFunc) {
	switch {
	case p == nil:
		add(ChangeBinding, b.AtomID, "binding for %s added: %s", b.AtomID, firstLine(b.Summary))
	case p.Summary != b.Summary || !slices.Equal(p.Artifacts, b.Artifacts):
		add(ChangeBinding, b.AtomID, "binding for %s changed: %s", b.AtomID, firstLine(b.Summary))
	}
}

// TrailKey identifies a trail entry across versions.
func TrailKey(t model.TrailEntry) string {
	return t.Timestamp + "|" + t.ORGroup + "|" + t.Selected + "|" + t.Reason + "|" + t.Type
}

func compareTrail(prev, cur *model.State, add addFunc) {
	same := 0
	for same < len(prev.Trail) && same < len(cur.Trail) && TrailKey(prev.Trail[same]) == TrailKey(cur.Trail[same]) {
		same++
	}
	if lost := len(prev.Trail) - same; lost > 0 {
		add(ChangeTrailCleared, "", "trail cleared: %d entr%s removed", lost, plural(lost, "y", "ies"))
	}
	for _, t := range cur.Trail[same:] {
		add(ChangeTrail, t.Selected, "trail: %s", TrailText(t))
	}
}

// TrailText words a trail entry: "session_strategy → A5: A4 failed".
func TrailText(t model.TrailEntry) string {
	what := t.ORGroup
	if t.Selected != "" {
		what += " → " + t.Selected
	}
	if t.Type != "" {
		what = strings.TrimSpace("[" + t.Type + "] " + what)
	}
	if t.Reason != "" {
		what += ": " + firstLine(t.Reason)
	}
	return what
}

// CorrectionKey identifies a correction entry across versions.
func CorrectionKey(c model.Correction) string {
	return c.Timestamp + "|" + string(c.Type) + "|" + c.Description
}

func compareCorrections(prev, cur *model.State, add addFunc) {
	old := map[string]int{}
	for _, c := range prev.Corrections {
		old[CorrectionKey(c)]++
	}
	for _, c := range cur.Corrections {
		k := CorrectionKey(c)
		if old[k] > 0 {
			old[k]--
			continue
		}
		cleared := ""
		if c.TrailCleared {
			cleared = " (trail cleared)"
		}
		add(ChangeCorrection, "", "correction added: %s%s — %s", c.Type, cleared, firstLine(c.Description))
	}
	n := 0
	for _, v := range old {
		n += v
	}
	if n > 0 {
		add(ChangeCorrection, "", "%d correction entr%s removed", n, plural(n, "y", "ies"))
	}
}

func quote(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", firstLine(s))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
