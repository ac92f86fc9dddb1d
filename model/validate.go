package model

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Report is the result of validation. Its JSON keys are those of the seed's
// validate_state.py (valid, errors, warnings, atom_count); Problems adds the
// same findings with their line and severity.
type Report struct {
	Valid     bool            `json:"valid"`
	Errors    []string        `json:"errors"`
	Warnings  []string        `json:"warnings"`
	AtomCount int             `json:"atom_count"`
	Problems  []ReportProblem `json:"problems"`
	// texts are the findings' texts as Errors and Warnings hold them
	// ("line 12: " and the message, which is its end), one for each of
	// Problems while they are gathered (put); finish hands them out.
	texts []string
}

// ReportProblem is one finding with its place in the file.
type ReportProblem struct {
	Severity string `json:"severity"`
	// Kind is LoopToolsKind for what the loop's own tools will read
	// differently ("" for the others).
	Kind    string `json:"kind,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Atoms are the ids of the atoms it is about: the one its Path is in
	// (atoms[i]…), or every atom of a dependency cycle. The TUI marks them
	// in the graph.
	Atoms []string `json:"-"`
}

func (r *Report) add(isErr bool, p Problem) {
	sev := "warning"
	if isErr {
		sev = "error"
	}
	r.put(ReportProblem{Severity: sev, Line: p.Line, Path: p.Path, Message: p.Message})
}

// put adds the finding rp, its text made of its line and message: the
// message is then the end of the text, not a string of its own.
func (r *Report) put(rp ReportProblem) {
	text := Problem{Line: rp.Line, Message: rp.Message}.String()
	rp.Message = text[len(text)-len(rp.Message):]
	r.putText(rp, text)
}

// putText adds the finding rp whose text (see texts) is made already.
func (r *Report) putText(rp ReportProblem, text string) {
	if len(r.Problems) == cap(r.Problems) {
		// Doubling: append grows a long slice by a quarter, which at
		// 10,000 findings copied and allocated them five times over.
		r.Problems = slices.Grow(r.Problems, max(16, len(r.Problems)))
	}
	if len(r.texts) == cap(r.texts) {
		r.texts = slices.Grow(r.texts, max(16, len(r.texts)))
	}
	r.Problems = append(r.Problems, rp)
	r.texts = append(r.texts, text)
}

// finish sorts findings by line and fills Errors and Warnings. The
// findings are copied, in their order, into a slice of their number: the
// one they were gathered in may be a buffer used again (problemBufs).
func (r *Report) finish() {
	order := sortedByLine(r.Problems)
	sorted := make([]ReportProblem, len(r.Problems))
	for k, o := range order {
		sorted[k] = r.Problems[o.i]
	}
	r.Problems = sorted
	errs := 0
	for i := range r.Problems {
		if r.Problems[i].Severity == "error" {
			errs++
		}
	}
	r.Errors, r.Warnings = make([]string, 0, errs), make([]string, 0, len(r.Problems)-errs)
	for k, p := range r.Problems {
		s := r.texts[order[k].i]
		if p.Severity == "error" {
			r.Errors = append(r.Errors, s)
		} else {
			r.Warnings = append(r.Warnings, s)
		}
	}
	r.texts = nil
	r.Valid = len(r.Errors) == 0
}

// lineAt is a finding's line and its place among the findings.
type lineAt struct {
	line int
	i    int32
}

// sortedByLine is the findings' lines and places, sorted by line and, on
// one line, by place: the findings' order, sorted stably by line. Their
// lines and places are sorted rather than the findings (96 bytes each),
// and by their digits, base 2^11 from the lowest, each digit in one pass
// that keeps the order of the last (a radix sort): the findings of each
// check come in file order, a few thousand at 10,000 atoms and ten times
// that at 100,000, where a comparison sort's log factor grew its time
// ×18 (issue 26).
func sortedByLine(ps []ReportProblem) []lineAt {
	order := make([]lineAt, len(ps))
	top, low := 0, 0
	for i := range ps {
		order[i] = lineAt{ps[i].Line, int32(i)}
		top, low = max(top, ps[i].Line), min(low, ps[i].Line)
	}
	if len(ps) < 64 || low < 0 {
		slices.SortStableFunc(order, func(a, b lineAt) int { return cmp.Compare(a.line, b.line) })
		return order
	}
	const digit = 11
	var count [1<<digit + 1]int32
	tmp := make([]lineAt, len(order))
	for shift := 0; top>>shift > 0; shift += digit {
		clear(count[:])
		for _, o := range order {
			count[(o.line>>shift)&(1<<digit-1)+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, o := range order {
			d := (o.line >> shift) & (1<<digit - 1)
			tmp[count[d]] = o
			count[d]++
		}
		order, tmp = tmp, order
	}
	return order
}

// problemBuf is a validation's findings before finish copies them out,
// kept for the next one (problemBufs): at 100,000 atoms a slice grown to
// 10,000 findings was 2 MB of fresh memory a validation (issue 26).
type problemBuf struct {
	p     []ReportProblem
	texts []string
}

var problemBufs sync.Pool

type validator struct {
	s *State
	f *Facts
	// sh is the work graph of s with its ids looked up (f's shape).
	sh *shape
	// memo is what the Validator, if any, kept of the last state; next
	// what this validation keeps for the next one.
	memo, next *Validator
	r          Report
	// badValue holds the paths of values the decoder found of the wrong
	// type. Such a value was decoded as its zero value; a finding about
	// that zero ("constraints.max_iterations is 0") would be misleading,
	// so each value is reported once, as the type error.
	badValue map[string]bool
	// sum, when not nil, is what Validate gathered of the atoms while it
	// built the shape (their status codes among it: is reads them): the
	// checks skip the atoms it shows have nothing to report.
	sum *atomSum
	// selAt is, for each OR group, the atom its selected choice names
	// (selectedAt).
	selAt []int32
}

func (v *validator) errf(line int, path, format string, args ...any) {
	if v.badValue[path] {
		return
	}
	v.r.add(true, Problem{Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) warnf(line int, path, format string, args ...any) {
	if v.badValue[path] {
		return
	}
	v.r.add(false, Problem{Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
}

// warnAtom is warnf for a finding about field of atom i (the path
// "atoms[i].field") whose message is msg's parts: the finding's text, its
// message and its path are made in one allocation, for a large loop has
// thousands of such findings (orDeadEnds).
func (v *validator) warnAtom(line, i int, field string, msg ...string) {
	var pb [64]byte
	path := append(strconv.AppendInt(append(pb[:0], "atoms["...), int64(i), 10), "]."...)
	path = append(path, field...)
	if v.badValue[string(path)] {
		return
	}
	var lb [24]byte
	lined := appendLineOf(lb[:0], line)
	n := len(lined) + len(path)
	for _, m := range msg {
		n += len(m)
	}
	var b strings.Builder
	b.Grow(n)
	b.Write(lined)
	for _, m := range msg {
		b.WriteString(m)
	}
	end := b.Len()
	b.Write(path)
	all := b.String()
	v.r.putText(ReportProblem{Severity: "warning", Line: line, Path: all[end:], Message: all[len(lined):end]}, all[:end])
}

// Validate checks s against the schema's invariants. It is a superset of
// the seed's validate_state.py; see docs/ARCHITECTURE.md §3.4 for the list. Beyond
// it, Validate warns where the loop would get stuck (a pending atom that
// waits on an OR choice its group does not select) and about trail entries
// that lack one of the schema's fields (or_group, selected, reason,
// timestamp), such as the user_correction entries older aot-tui versions
// wrote.
func Validate(s *State) Report {
	// The facts validate reads (Outstanding and the shape's ids,
	// dependencies and OR groups), without the ones it does not (the maps
	// of Facts, the decompositions, the longest chain): the same report
	// as ValidateWith(s, Derive(s)), TestValidateReadsNoMoreThanItDerives.
	// The shape's slices are taken from, and given back to, the memory
	// of the last calls: the report keeps none of them. What the checks
	// read of each atom besides is gathered in the pass that builds the
	// shape (atomSum), and Outstanding is counted from it when a
	// completed loop's check asks (outstandingCount).
	sc := getScratch()
	defer putScratch(sc)
	var sum atomSum
	sh := checkShape(s, sc, &sum)
	return validateSum(s, &Facts{sh: sh}, nil, nil, &sum)
}

// ValidateWith is Validate with facts already derived from s.
func ValidateWith(s *State, f *Facts) Report { return validate(s, f, nil, nil) }

// A Validator validates the successive states of one loop as a watcher
// reads them: Validate returns what ValidateWith does, taking from the
// last state it validated what cannot have changed. Which fields each
// atom has is taken from the last state where the atom's Lines are the
// same slice (a re-read shares the entries whose text did not change:
// statefile.Reparse); what depends on the work graph's shape alone (its
// dependency cycles, the OR group choices that are not atoms) when the
// facts share the last ones' shape (Facts.SameShape); the atom of each
// binding when it names the same id as the last state's binding at its
// place. That keeps a write of a 10,000-atom loop from looking every
// field of every atom up again (issue 26). A Validator is for one
// goroutine, and the states it is given are not modified.
type Validator struct {
	last *State
	sh   *shape
	// fields has, for each atom of last, the fields its Lines has
	// (fieldDescription, …).
	fields []uint8
	// bindAt is the index of the atom of each binding of last (-1: none).
	bindAt []int32
	// cycles are sh's dependency cycles, choiceAtom whether each choice
	// of each OR group of sh names an atom (the groups' choices in
	// order); made when first needed, as is orField.
	cycles     []cycle
	cyclesDone bool
	choiceAtom []bool
	// orField is what each atom's or_group field names in sh (orFieldOK,
	// …).
	orField []uint8
	// clean marks the atoms of last that atoms() found nothing about,
	// with no decoder problem to hide a finding (nil: not known).
	clean []bool
	// decompAt are the atom indexes of the decompositions' parents and
	// children of sh (-1: none), each parent before its children;
	// orDepending the atoms of sh (first of their ids) that depend on an
	// OR choice, in order. Both made when first needed.
	decompAt    []int32
	orDepending []int32
	// stuck is PredictOutlook's memo of the stuck atoms.
	stuck stuckMemo
}

// Validate returns ValidateWith(s, f).
func (m *Validator) Validate(s *State, f *Facts) Report {
	next := &Validator{last: s}
	r := validate(s, f, m, next)
	if m != nil {
		next.stuck = m.stuck
		*m = *next
	}
	return r
}

// validate is ValidateWith, reusing what memo kept of the last state and
// keeping in next what the next validation may reuse (both nil for a
// validation on its own).
func validate(s *State, f *Facts, memo, next *Validator) Report {
	return validateSum(s, f, memo, next, nil)
}

// validateSum is validate; sum, when not nil, is what checkShape gathered
// of s's atoms for f's shape, and f has no Outstanding (outstandingCount).
func validateSum(s *State, f *Facts, memo, next *Validator, sum *atomSum) Report {
	v := &validator{s: s, f: f, sh: shapeOf(s, f), badValue: make(map[string]bool, len(s.Problems)), sum: sum}
	if memo != nil && next != nil {
		v.memo, v.next = memo, next
		v.next.sh = v.sh
		if memo.sh == v.sh {
			v.next.cycles, v.next.cyclesDone, v.next.choiceAtom, v.next.orField = memo.cycles, memo.cyclesDone, memo.choiceAtom, memo.orField
			v.next.decompAt, v.next.orDepending = memo.decompAt, memo.orDepending
		}
	}
	v.r.AtomCount = len(s.Atoms)
	buf, _ := problemBufs.Get().(*problemBuf)
	if buf == nil {
		buf = &problemBuf{}
	}
	v.r.Problems, v.r.texts = buf.p, buf.texts
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
	gathered, texts := v.r.Problems, v.r.texts
	v.r.finish()
	v.atomsOf()
	clear(gathered) // the buffer keeps no strings
	clear(texts)
	buf.p, buf.texts = gathered[:0], texts[:0]
	problemBufs.Put(buf)
	return v.r
}

// The fields of an atom Validate asks whether it has.
const (
	fieldDescription uint8 = 1 << iota
	fieldStatus
	fieldDependsOn
)

// atomFields are the fields atom i (a) has of those Validate asks about:
// the last state's answer when a's Lines are the ones it had.
func (v *validator) atomFields(i int, a *Atom) uint8 {
	if v.sum != nil {
		return v.sum.fields[i] & allFields
	}
	var has uint8
	if m := v.memo; m != nil && m.last != nil && i < len(m.fields) && sameLines(m.last.Atoms[i].Lines, a.Lines) {
		has = m.fields[i]
	} else {
		for _, f := range []struct {
			key string
			bit uint8
		}{{"description", fieldDescription}, {"status", fieldStatus}, {"depends_on", fieldDependsOn}} {
			if a.Lines.Has(f.key) {
				has |= f.bit
			}
		}
	}
	if v.next != nil {
		if v.next.fields == nil {
			v.next.fields = make([]uint8, len(v.s.Atoms))
		}
		v.next.fields[i] = has
	}
	return has
}

// is reports whether atom i has the status of code c (stPending,
// stInProgress or stResolved): Validate's code, or the atom's status
// compared (the Validator of a watcher reads the atoms of a 10,000-atom
// loop from the cache, and a pass to gather the codes cost more than it
// saved).
func (v *validator) is(i int, c uint8) bool {
	if v.sum != nil {
		return v.sum.st[i] == c
	}
	// Compared with a constant (c is one where is is inlined), which the
	// compiler compares without a call.
	switch st := v.s.Atoms[i].Status; c {
	case stPending:
		return st == StatusPending
	case stInProgress:
		return st == StatusInProgress
	case stResolved:
		return st == StatusResolved
	}
	return false
}

// unresolved reports whether atom i is unresolved, as is reads statuses.
func (v *validator) unresolved(i int) bool {
	if v.sum != nil {
		return unresolvedCode(v.sum.st[i])
	}
	return v.s.Atoms[i].Status.Unresolved()
}

// outstandingCount is Facts.Outstanding, which only a completed loop's
// check reads: the facts' own, or for Validate's facts, which have none,
// counted from the atoms' status codes (outstanding).
func (v *validator) outstandingCount() int {
	if v.sum != nil {
		return v.outstanding()
	}
	return v.f.Outstanding
}

// outstanding is Facts.Outstanding (the function outstanding) read from
// the atoms' status codes.
func (v *validator) outstanding() int {
	sh := v.sh
	n := 0
	for i, c := range v.sum.st {
		if !unresolvedCode(c) {
			continue
		}
		k := i
		if !sh.first[i] {
			k, _ = sh.find(v.s, v.s.Atoms[i].ID) // a repeated id: the group is its first's
		}
		// An OR choice its group does not select: the group's selected
		// choice names another atom (k is the first of its id).
		if last := sh.orGroupLast(k); last >= 0 && v.selectedAt()[last] != int32(k) {
			continue
		}
		n++
	}
	return n
}

// selectedAt is, for each OR group, the index of the atom (the first of
// the id) its selected choice names, -1 for none: an atom j that is the
// first of its id is what group k selects when selectedAt()[k] == j.
//
// A group mostly selects one of its choices, whose atoms the shape has
// found (choiceAt): only the other selections are looked up, for a
// lookup reads the ids' table at random (issue 26).
func (v *validator) selectedAt() []int32 {
	if v.selAt != nil {
		return v.selAt
	}
	sh := v.sh
	v.selAt = make([]int32, len(v.s.ORGroups))
	var rest []int32 // the groups that select none of their choices
	for k := range v.s.ORGroups {
		g := &v.s.ORGroups[k]
		if c := slices.Index(g.Choices, g.Selected); c >= 0 && sh.choiceAt != nil {
			v.selAt[k] = sh.choiceAt[sh.choiceOff[k]+int32(c)]
		} else {
			rest = append(rest, int32(k))
		}
	}
	sh.findAt(v.s, v.selAt, rest, func(k int32) string { return v.s.ORGroups[k].Selected })
	return v.selAt
}

// idText is atom i's id, to be copied into a finding's text: from the
// ids' table when Validate made one (reading the atom is a cache miss at
// 100,000 atoms; the table's copy of the ids is in the cache), valid
// until the table's scratch is given back.
func (v *validator) idText(i int) string {
	if v.sum != nil {
		return v.sh.ids.idOf(i)
	}
	return v.s.Atoms[i].ID
}

// dependsOnLine is the line of atom i's depends_on field (0: none).
func (v *validator) dependsOnLine(i int) int {
	if v.sum != nil {
		return int(v.sum.depLine[i])
	}
	return v.s.Atoms[i].Lines.Line("depends_on")
}

// groupNames are s's OR groups by name, as its shape has them (made now
// for the reference validator of the tests, which has no shape).
func (v *validator) groupNames() *groupNames {
	if v.sh == nil {
		return nameGroups(v.s.ORGroups)
	}
	return v.sh.names
}

// find is the index of the first atom with id, and whether there is one:
// the shape's answer (the reference validator of the tests has only
// Facts.Index).
func (v *validator) find(id string) (int, bool) {
	if v.sh == nil {
		if i, ok := v.f.Index[id]; ok {
			return i, true
		}
		return -1, false
	}
	return v.sh.find(v.s, id)
}

// firstOf is the index of the first atom with id, an id some atom has.
func (v *validator) firstOf(id string) int {
	i, _ := v.find(id)
	return i
}

// sameLines reports whether a and b are one Lines (not merely equal ones:
// the same keys, for Lines are never changed in place).
func sameLines(a, b Lines) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// atomsOf names the atom of each finding whose path is in one
// ("atoms[3].depends_on") and that names none yet.
func (v *validator) atomsOf() {
	// The findings' ids share one array, and are read from the ids'
	// table when Validate made one (idText): each atom read would be a
	// cache miss at 100,000 atoms.
	var ids []string
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
		k, err := strconv.Atoi(n)
		if err != nil || k < 0 || k >= len(v.s.Atoms) {
			continue
		}
		id := v.idText(k)
		if id == "" {
			continue
		}
		if v.sum != nil {
			id = strings.Clone(id) // the table's bytes are given back
		}
		if ids == nil {
			ids = make([]string, 0, len(v.r.Problems)-i)
		}
		ids = append(ids, id)
		p.Atoms = ids[len(ids)-1 : len(ids) : len(ids)]
	}
}

func (v *validator) sections() {
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

func emptyOf(sec string) string {
	if sec == "bindings" {
		return "bindings: {}"
	}
	return sec + ": []"
}

func (v *validator) objective() {
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

func (v *validator) baseCase(b BaseCase, line int) {
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

func (v *validator) checklist(items []ChecklistItem, path string) {
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

func (v *validator) check(c *Check, path string, line int, checklist bool) {
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

func joinTypes() string {
	parts := make([]string, len(CheckTypes))
	for i, t := range CheckTypes {
		parts[i] = string(t)
	}
	return strings.Join(parts, ", ")
}

func (v *validator) control() {
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
	if c.Status != LoopCompleted {
		return
	}
	if n := v.outstandingCount(); n > 0 {
		v.warnf(c.Lines.Line("status"), "control.status", "control.status is completed but %d atoms still need work", n)
	}
}

func (v *validator) atoms() {
	if v.s.Lines.Has("atoms") && len(v.s.Atoms) == 0 {
		v.errf(v.s.Lines.Line("atoms"), "atoms", "no atoms defined (must have at least 1)")
	}
	orField := v.orFields()
	g := v.sh.g
	// An atom the last state's atoms() found nothing about, of the same
	// shape (id, dependencies, OR group and what they resolve to) and
	// the same Lines (the fields it has), gives nothing again while its
	// status is one the loop knows: its lines and status are read only
	// for a finding's text. A decoder problem hides findings, so clean is
	// kept only of a state without any.
	var reuse []bool
	if m := v.memo; m != nil && m.sh == v.sh && m.last != nil && len(m.clean) == len(v.s.Atoms) && len(m.last.Atoms) == len(v.s.Atoms) {
		reuse = m.clean
	}
	var clean []bool
	if v.next != nil && len(v.s.Problems) == 0 {
		clean = make([]bool, len(v.s.Atoms))
		v.next.clean = clean
	}
	for i := range v.s.Atoms {
		// An atom Validate's pass over the atoms shows has every field
		// with a known status, is the first of its id and names no OR
		// group it is not in, and whose dependencies are atoms named once,
		// gives nothing: it is not read again.
		if v.sum != nil && v.sum.fields[i] == allFields && v.sum.st[i] != stOther && v.sh.first[i] && orField[i] == orFieldOK && g.clean(i) {
			continue
		}
		a := &v.s.Atoms[i]
		if reuse != nil && reuse[i] && a.Status.Known() && sameLines(v.memo.last.Atoms[i].Lines, a.Lines) {
			v.atomFields(i, a) // for the next validation
			if clean != nil {
				clean[i] = true
			}
			continue
		}
		found := len(v.r.Problems)
		// The path is spelt out only for a finding: this runs on every
		// write of the loop, over every atom.
		path := func(field string) string { return "atoms[" + strconv.Itoa(i) + "]" + field }
		name := a.ID
		if a.ID == "" {
			v.errf(a.Line, path(".id"), "%s has no id", path(""))
			name = path("")
		} else if !v.sh.first[i] {
			v.errf(a.Line, path(".id"), "duplicate atom id %s (first defined on line %d)", a.ID, v.s.Atoms[v.firstOf(a.ID)].Line)
		}
		has := v.atomFields(i, a)
		if has&fieldDescription == 0 {
			v.warnf(a.Line, path(".description"), "atom %s has no description", name)
		}
		switch {
		case has&fieldStatus == 0:
			v.errf(a.Line, path(".status"), "atom %s has no status", name)
		case !a.Status.Known():
			v.errf(a.Lines.Line("status"), path(".status"), "atom %s has status %q; expected pending, in_progress or resolved", name, a.Status)
		}
		if has&fieldDependsOn == 0 {
			v.warnf(a.Line, path(".depends_on"), "atom %s has no depends_on (write depends_on: [] when it has none)", name)
		}
		// The dependencies as the shape resolved them: repeat marks one
		// named earlier in the list, a negative index one no atom has.
		for p := g.off[i]; p < g.off[i+1]; p++ {
			d := a.DependsOn[p-g.off[i]]
			if g.repeat[p] {
				v.warnf(a.Lines.Line("depends_on"), path(".depends_on"), "atom %s lists dependency %s twice", name, d)
			}
			if g.dep[p] < 0 {
				v.errf(a.Lines.Line("depends_on"), path(".depends_on"), "atom %s depends on %s, which does not exist (the loop could never finish)", name, d)
			}
		}
		switch orField[i] {
		case orUndefined:
			v.warnf(a.Lines.Line("or_group"), path(".or_group"), "atom %s names OR group %s, which is not defined in or_groups", name, a.ORGroup)
		case orUnlisted:
			v.warnf(a.Lines.Line("or_group"), path(".or_group"), "atom %s names OR group %s, whose choices do not list it", name, a.ORGroup)
		}
		if clean != nil && len(v.r.Problems) == found {
			clean[i] = true
		}
	}
}

// What an atom's or_group field names.
const (
	orFieldOK   uint8 = iota // no group, or one that lists the atom
	orUndefined              // a group or_groups does not define
	orUnlisted               // a group whose choices do not list the atom
)

// orFields says, for each atom, what its or_group field names (orFieldOK,
// …). It depends on the work graph's shape alone: a Validator works it
// out once per shape.
func (v *validator) orFields() []uint8 {
	if v.next != nil && v.next.orField != nil {
		return v.next.orField
	}
	out := make([]uint8, len(v.s.Atoms))
	// An atom's OR group looked up by name, not scanned for: with one
	// group per few atoms a scan per atom made validate quadratic (issue
	// 26). Whether a group of that name lists the atom is read from the
	// shape's choices (the atoms they name), following next from the
	// first group of the name to the others.
	sh := v.sh
	names := v.groupNames()
	field := func(i int, k int32) {
		if k < 0 {
			out[i] = orUndefined
			return
		}
		me := int32(i)
		if !sh.first[i] {
			me = int32(v.firstOf(v.s.Atoms[i].ID))
		}
		listed := false
		for ; k >= 0 && !listed; k = names.next[k] {
			listed = slices.Contains(sh.choiceAt[sh.choiceOff[k]:sh.choiceOff[k+1]], me)
		}
		if !listed {
			out[i] = orUnlisted
		}
	}
	orAtomGroups(v.s, names, v.sum, field)
	if v.next != nil {
		v.next.orField = out
	}
	return out
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
func (v *validator) resolvedTooEarly() {
	g, atoms := v.sh.g, v.s.Atoms
	for i := range atoms {
		if !v.is(i, stResolved) || !v.sh.first[i] {
			continue
		}
		for p := g.off[i]; p < g.off[i+1]; p++ {
			j := g.dep[p]
			if j < 0 || !v.unresolved(int(j)) {
				continue
			}
			a := &atoms[i]
			d := a.DependsOn[p-g.off[i]]
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

// cycle is a dependency cycle found in the work graph: the atoms on it
// (ids) from the atom j where it was entered, and its finding's message.
type cycle struct {
	j   int
	ids []string
	msg string
}

// cycles reports each dependency cycle once (up to 20), as a path A1 ->
// A2 -> A1 (read "depends on"). The cycles depend on the work graph's
// shape alone: a Validator finds them once per shape.
func (v *validator) cycles() {
	var found []cycle
	if v.next != nil && v.next.cyclesDone {
		found = v.next.cycles
	} else {
		found = findCycles(v.s, v.sh)
		if v.next != nil {
			v.next.cycles, v.next.cyclesDone = found, true
		}
	}
	for _, c := range found {
		n := len(v.r.Problems)
		v.errf(v.s.Atoms[c.j].Line, fmt.Sprintf("atoms[%d].depends_on", c.j), "%s", c.msg)
		if len(v.r.Problems) > n {
			v.r.Problems[n].Atoms = c.ids
		}
	}
}

// findCycles finds the dependency cycles of s (of shape sh), up to 20,
// each once, with an iterative DFS so long chains cannot overflow the
// stack.
func findCycles(s *State, sh *shape) []cycle {
	atoms := s.Atoms
	g := sh.g
	const (
		white = iota
		grey
		black
	)
	color := sh.uint8s(len(atoms))
	reported := map[string]bool{}
	var found []cycle
	// next is the position in g.dep of the dependency of node to follow.
	type frame struct {
		node int
		next int32
	}
	var stack []frame
	for start := range atoms {
		if color[start] != white || !sh.first[start] {
			continue
		}
		stack = append(stack[:0], frame{start, g.off[start]})
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next >= g.off[top.node+1] {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			j := int(g.dep[top.next])
			top.next++
			if j < 0 {
				continue
			}
			switch color[j] {
			case white:
				color[j] = grey
				stack = append(stack, frame{j, g.off[j]})
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
					path := strings.Join(append(ids[:len(ids):len(ids)], atoms[j].ID), " -> ")
					found = append(found, cycle{j: j, ids: ids, msg: "circular dependency: " + path})
				}
			}
		}
	}
	return found
}

// canonicalCycle names a cycle independently of where it was entered.
func canonicalCycle(ids []string) string {
	m := 0
	for i := range ids {
		if ids[i] < ids[m] {
			m = i
		}
	}
	return strings.Join(append(append([]string{}, ids[m:]...), ids[:m]...), ">")
}

func (v *validator) orGroups() {
	isAtom := v.choiceAtoms()
	k := 0
	for _, g := range v.s.ORGroups {
		// The path is spelt out only for a finding (this runs on every
		// write).
		p := func(field string) string { return "or_groups." + g.Name + field }
		if len(g.Choices) == 0 {
			v.errf(g.Line, p(".choices"), "OR group %s has no choices", g.Name)
		}
		for _, c := range g.Choices {
			if !isAtom[k] {
				v.warnf(g.Lines.Line("choices"), p(".choices"), "OR group %s lists choice %s, which is not an atom (yet)", g.Name, c)
			}
			k++
		}
		switch {
		case !g.Lines.Has("selected") || g.Selected == "":
			v.warnf(g.Line, p(".selected"), "OR group %s has no selected choice", g.Name)
		case !contains(g.Choices, g.Selected):
			v.errf(g.Lines.Line("selected"), p(".selected"), "OR group %s selects %s, which is not among its choices %v", g.Name, g.Selected, g.Choices)
		case contains(g.Failed, g.Selected):
			v.warnf(g.Lines.Line("selected"), p(".selected"), "OR group %s selects %s, which is listed as failed", g.Name, g.Selected)
		}
		if !g.Lines.Has("failed") {
			v.warnf(g.Line, p(".failed"), "OR group %s has no failed list (write failed: [])", g.Name)
		}
		for _, fl := range g.Failed {
			if !contains(g.Choices, fl) {
				v.warnf(g.Lines.Line("failed"), p(".failed"), "OR group %s lists failed choice %s, which is not among its choices", g.Name, fl)
			}
		}
	}
}

// choiceAtoms reports, for each choice of each OR group in order, whether
// an atom has its id: the shape's, which a Validator keeps.
func (v *validator) choiceAtoms() []bool {
	if v.next != nil && v.next.choiceAtom != nil {
		return v.next.choiceAtom
	}
	isAtom := make([]bool, len(v.sh.choiceAt))
	for k, i := range v.sh.choiceAt {
		isAtom[k] = i >= 0
	}
	if v.next != nil {
		v.next.choiceAtom = isAtom
	}
	return isAtom
}

// orDeadEnds warns about pending atoms that wait on an OR choice the group
// does not select (a failed one or an unused alternative) and that is not
// resolved: such a choice never runs, so neither can they. Forcing the
// group to another choice moves them onto it; the loop's own backtrack
// does the same. Unselected choices themselves are left out: they are not
// expected to run.
func (v *validator) orDeadEnds() {
	if len(v.s.ORGroups) == 0 {
		return
	}
	sh, g := v.sh, v.sh.g
	// unselected returns the group of atom j (first with its id), an
	// unresolved OR choice it does not select; nil for the others and for
	// an id no atom has (j < 0).
	unselected := func(j int) *ORGroup {
		if j < 0 {
			return nil
		}
		k := sh.orGroupFirst(j)
		if k < 0 {
			return nil
		}
		if v.is(j, stResolved) {
			return nil
		}
		// j is the first of its id: the group selects it when its
		// selected choice names j (read without reading the atom).
		if v.selectedAt()[k] == int32(j) {
			return nil
		}
		return &v.s.ORGroups[k]
	}
	for _, i := range v.orDependingAtoms() {
		if !v.is(int(i), stPending) || unselected(int(i)) != nil {
			continue
		}
		for p := g.off[i]; p < g.off[i+1]; p++ {
			j := int(g.dep[p])
			grp := unselected(j)
			if grp == nil {
				continue
			}
			// The dependency's text is the id of the atom it names (j), the
			// atom's from the table: the findings read no atom.
			d, id := v.idText(j), v.idText(int(i))
			sel := grp.Selected
			if sel == "" {
				sel = "nothing"
			}
			line := v.dependsOnLine(int(i))
			if contains(grp.Failed, d) {
				v.warnAtom(line, int(i), "depends_on", "atom ", id, " depends on ", d, ", which failed in OR group ", grp.Name, " (it selects ", sel, "): ", id, " can never run")
			} else {
				v.warnAtom(line, int(i), "depends_on", "atom ", id, " depends on ", d, ", which OR group ", grp.Name, " does not select (it selects ", sel, "): ", id, " can never run")
			}
		}
	}
}

// orDependingAtoms are the atoms (first of their ids) with a dependency
// on an OR choice: those orDeadEnds reads. They depend on the work
// graph's shape alone: a Validator finds them once per shape.
func (v *validator) orDependingAtoms() []int32 {
	if v.next != nil && v.next.orDepending != nil {
		return v.next.orDepending
	}
	sh, g := v.sh, v.sh.g
	out := []int32{}
	for i := range v.s.Atoms {
		if !sh.first[i] {
			continue
		}
		for p := g.off[i]; p < g.off[i+1]; p++ {
			if j := g.dep[p]; j >= 0 && sh.orGroupFirst(int(j)) >= 0 {
				out = append(out, int32(i))
				break
			}
		}
	}
	if v.next != nil {
		v.next.orDepending = out
	}
	return out
}

func (v *validator) decompositions() {
	// The parents and children looked up together (shape.findEach): each
	// decomposition's parent, then its children. They are the shape's: a
	// Validator keeps them while it stays.
	n := 0
	for _, d := range v.s.Decompositions {
		n += 1 + len(d.Children)
	}
	var at []int32
	switch {
	case v.next != nil && v.next.decompAt != nil && len(v.next.decompAt) == n:
		at = v.next.decompAt
	case v.sh != nil:
		at = make([]int32, n)
		v.sh.findDecompositions(v.s, at)
		if v.next != nil {
			v.next.decompAt = at
		}
	default:
		at = make([]int32, n)
		k := 0
		for _, d := range v.s.Decompositions {
			for _, id := range append([]string{d.Parent}, d.Children...) {
				j, _ := v.find(id)
				at[k] = int32(j)
				k++
			}
		}
	}
	for i, d := range v.s.Decompositions {
		// The path is made for a finding only: most decompositions have
		// none, and a large loop has thousands.
		p := func(field string) string { return "decompositions[" + strconv.Itoa(i) + "]" + field }
		parent := int(at[0])
		kids := at[1 : 1+len(d.Children)]
		at = at[1+len(d.Children):]
		if d.Parent == "" {
			v.errf(d.Line, p(".parent"), "%s has no parent", p(""))
		} else if parent < 0 {
			v.errf(d.Line, p(".parent"), "decomposition of %s: the parent is not an atom", d.Parent)
		}
		if len(d.Children) == 0 {
			v.warnf(d.Line, p(".children"), "decomposition of %s has no children", d.Parent)
		}
		unresolvedChild := ""
		for k, c := range d.Children {
			j := int(kids[k])
			if j < 0 {
				v.errf(d.Line, p(".children"), "decomposition of %s names child %s, which is not an atom", d.Parent, c)
				continue
			}
			if !v.is(j, stResolved) && unresolvedChild == "" {
				unresolvedChild = c
			}
			if c == d.Parent {
				v.errf(d.Line, p(".children"), "decomposition of %s lists the parent as its own child", d.Parent)
			}
		}
		if j := parent; j >= 0 && unresolvedChild != "" && !v.is(j, stPending) {
			v.warnf(v.s.Atoms[j].Line, p(""), "decomposed parent %s is %s while its child %s is unresolved (a parent stays pending until its children resolve)",
				d.Parent, v.s.Atoms[j].Status, unresolvedChild)
		}
	}
}

func (v *validator) bindings() {
	// bound marks the atoms (the first of each id) that have a binding.
	var bound []bool
	if v.sh != nil {
		bound = v.sh.bools(len(v.s.Atoms))
	} else {
		bound = make([]bool, len(v.s.Atoms))
	}
	var at []int32
	if v.next != nil {
		at = make([]int32, len(v.s.Bindings))
		v.next.bindAt = at
	}
	// Without the last state's answers, the atoms are looked up together
	// (bindingAtoms).
	var found []int32
	if m := v.memo; v.sh != nil && (m == nil || m.sh != v.sh || m.last == nil) {
		found = v.bindingAtoms()
	}
	for k, b := range v.s.Bindings {
		var j int
		if found != nil {
			j = int(found[k])
		} else {
			j = v.bindingAtom(k, b.AtomID)
		}
		if at != nil {
			at[k] = int32(j)
		}
		if j >= 0 {
			bound[j] = true
		}
		switch {
		case j < 0:
			v.warnf(b.Line, "bindings."+b.AtomID, "binding for %s, which is not an atom", b.AtomID)
		case !v.is(j, stResolved):
			v.warnf(b.Line, "bindings."+b.AtomID, "binding for %s, which is %s (stale: bindings belong to resolved atoms)", b.AtomID, v.s.Atoms[j].Status)
		}
	}
	atoms := v.s.Atoms
	for i := range atoms {
		if v.is(i, stResolved) {
			if bound[i] || !v.sh.first[i] {
				continue
			}
			a := &atoms[i]
			v.warnf(a.Line, fmt.Sprintf("atoms[%d]", i), "atom %s is resolved but has no binding", a.ID)
		}
	}
}

// bindingAtoms is, for each binding, the index of the atom (the first of
// the id) it belongs to, -1 for none. A loop adds a binding as it
// resolves an atom, so that the bindings mostly name the resolved atoms
// in their order: each binding's id is first compared with the next
// resolved atoms (four, within 4,096 atoms) after the last binding's,
// and looked up only when it is none of them, for a lookup reads the ids'
// table at random (issue 26); those are looked up together
// (shape.findEach).
func (v *validator) bindingAtoms() []int32 {
	bs := v.s.Bindings
	found := v.sh.int32s(len(bs))
	var look []int32 // the bindings to look up
	next := 0        // where the next resolved atom is looked for
	for k := range bs {
		found[k] = -1
		if v.sum != nil { // the table and the statuses are there
			// Four resolved atoms are compared (past some without a
			// binding), found among the next 4,096 atoms' statuses.
			st := v.sum.st[:min(next+4096, len(v.sum.st))]
			for j, tries := next, 4; j < len(st) && tries > 0; j, tries = j+1, tries-1 {
				x := bytes.IndexByte(st[j:], stResolved)
				if x < 0 {
					break
				}
				j += x
				if v.sh.isFirst(j, bs[k].AtomID) {
					found[k], next = int32(j), j+1
					break
				}
			}
		}
		if found[k] < 0 {
			look = append(look, int32(k))
		}
	}
	v.sh.findAt(v.s, found, look, func(k int32) string { return bs[k].AtomID })
	return found
}

// bindingAtom is the index of the atom (the first of the id) binding k,
// for id, belongs to; -1 for none: the last state's answer when its
// binding k was for id too and the atoms have the last state's shape.
func (v *validator) bindingAtom(k int, id string) int {
	if m := v.memo; m != nil && m.sh == v.sh && m.last != nil && k < len(m.bindAt) && m.last.Bindings[k].AtomID == id {
		return int(m.bindAt[k])
	}
	if j, ok := v.find(id); ok {
		return j
	}
	return -1
}

func (v *validator) trailAndCorrections() {
	// A trail entry records an OR selection: or_group, selected, reason and
	// timestamp are all required (seed 000 §4.7).
	names := v.groupNames()
	near := int32(-1) // the group of the last entry that names one
	for i := range v.s.Trail {
		t := &v.s.Trail[i]
		// The path is spelt out only for a finding.
		p := func() string { return "trail[" + strconv.Itoa(i) + "]" }
		switch {
		case t.ORGroup == "" && t.Selected == "" && t.Type == "user_correction":
			v.warnf(t.Line, p(), "trail entry %d is a user_correction without or_group and selected (older aot-tui versions wrote these; the trail records OR selections, corrections[] the corrections)", i+1)
		default:
			if t.ORGroup == "" {
				v.warnf(t.Line, p()+".or_group", "trail entry %d has no or_group", i+1)
			}
			if t.Selected == "" {
				v.warnf(t.Line, p()+".selected", "trail entry %d has no selected", i+1)
			}
		}
		if t.Reason == "" {
			v.warnf(t.Line, p()+".reason", "trail entry %d has no reason", i+1)
		}
		if t.Timestamp == "" {
			v.warnf(t.Line, p()+".timestamp", "trail entry %d has no timestamp", i+1)
		}
		if t.ORGroup != "" {
			k := names.firstNear(v.s.ORGroups, t.ORGroup, near)
			if k >= 0 {
				near = k
			} else if t.Type != "user_correction" {
				v.warnf(t.Line, p()+".or_group", "trail entry %d names OR group %s, which is not defined", i+1, t.ORGroup)
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loopTools adds the loop-tools warnings: where the loop's own tools will
// read the file otherwise than aot-tui. They are warnings whatever their
// consequence, so they never block a correction.
func (v *validator) loopTools() {
	for _, p := range LoopToolsWarnings(v.s) {
		v.r.put(ReportProblem{Severity: "warning", Kind: LoopToolsKind, Line: p.Line, Path: p.Path, Message: p.Message})
	}
}
