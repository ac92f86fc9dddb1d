package model

import (
	"fmt"
	"slices"
)

// Lineage is what a guard keeps of a version of the state file it planned
// a correction on, to tell whether a later version of the file, which no
// longer carries the correction, is the loop's own work on that version
// (a script that read the file before our write and wrote after it: the
// correction is applied again) or something else at the same path — a new
// loop (/align-goal, a copied state), an older version of this loop (a git
// checkout, a restore) — onto which it must not be carried over.
//
// The rule follows what the loop's writers can change. The stop hook
// rewrites control.status (to stopped), stop_reason, stall_count,
// prev_pending_count and control.iteration (up by one); update_atom.py sets
// an atom's status; add_binding.py adds or replaces a binding;
// set_status.py sets control.status to running, stopped or completed;
// add_atom.py and decompose_atom.py append atoms (and a decomposition);
// switch_or_branch.py sets an OR group's selection and appends to the
// trail. None of them touches the objective, removes an atom, changes an
// atom's description, removes a corrections[], trail or decompositions
// entry, lowers the iteration or sets control.status back to pending. A
// later version L descends from the planned-on version B unless one of
// these holds:
//
//   - B's corrections[] are not a prefix of L's (the loop only appends) —
//     but see Break.Behind for an L that lacks B's last entries (and may
//     have others appended since, in their place);
//   - control.iteration is lower in L than in B;
//   - control.status is pending in L and was not in B (only /align-goal
//     writes pending: a new loop);
//   - the goal differs, unless L's corrections after B's include an
//     objective_change (someone's /redirect), or one of B's that L lacks
//     is one;
//   - an atom of B, by id and description, is missing from L, unless L's
//     new corrections include a dag_adjustment (a deletion);
//   - L's trail or decompositions are shorter than B's, unless L's new
//     corrections include an objective_change or bindings_override (trail)
//     or a dag_adjustment (decompositions).
//
// Bindings are not compared (add_binding.py replaces an atom's binding),
// nor is the Markdown body. A byte-identical return to the version before
// our write descends (it is a version planned on): a loop script that
// changed nothing writes exactly that; the correction package takes it
// for a revert, on bytes, once such a script would have written it back.
// What the rule cannot tell apart: a version that differs from B only in
// what the loop's writers change (an atom's status, a binding, the control
// counters going up) — a new loop with B's goal and B's atoms at B's
// iteration, or an older version of this loop that differs from B only in
// statuses — is taken as the loop's work.
type Lineage struct {
	goal        string
	status      LoopStatus
	iteration   int
	corrections []Correction
	trail       int
	decomps     int
	// atoms are the hashes of B's atoms' (id, description) pairs, sorted.
	atoms []uint64
}

// LineageOf is the lineage of st, a version a correction was planned on.
func LineageOf(st *State) Lineage {
	l := Lineage{goal: st.Objective.Goal, status: st.Control.Status, iteration: st.Control.Iteration,
		corrections: slices.Clone(st.Corrections), trail: len(st.Trail), decomps: len(st.Decompositions),
		atoms: make([]uint64, len(st.Atoms))}
	for i, a := range st.Atoms {
		l.atoms[i] = atomHash(a)
	}
	slices.Sort(l.atoms)
	return l
}

// atomHash is FNV-1a of id, a zero byte and description.
func atomHash(a Atom) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(a.ID); i++ {
		h = (h ^ uint64(a.ID[i])) * prime
	}
	h *= prime // the zero byte
	for i := 0; i < len(a.Description); i++ {
		h = (h ^ uint64(a.Description[i])) * prime
	}
	return h
}

// maxBehind bounds Break.Behind: more missing corrections than that is an
// older version, not a loop write that raced a few of them.
const maxBehind = 3

// BreakKind says what a version that does not descend looks like.
type BreakKind string

// Kinds of Break.
const (
	// BreakNewLoop: another loop (a new /align-goal, another project's
	// state copied in).
	BreakNewLoop BreakKind = "new_loop"
	// BreakOlderVersion: this loop's goal and atoms, but older than the
	// version planned on (a git checkout, a restore from a backup).
	BreakOlderVersion BreakKind = "older_version"
)

// Break says why a later version does not descend from a Lineage.
type Break struct {
	Kind BreakKind
	// Reason is the first difference found, in words
	// ("control.iteration went back from 7 to 4").
	Reason string
	// Behind, when not 0, is the only difference: the version lacks that
	// many of the last corrections[] entries B had, and is otherwise the
	// loop's work on B without them. That is what a loop script writes
	// when it read the file before someone else's correction that came
	// just before ours: that writer's guard may put it back in a moment,
	// and the version that follows descends again. It is also an older
	// version restored; only what follows tells them apart.
	Behind int
}

// Check returns nil when st may be the loop's work on the version l was
// taken of (see Lineage), or why it is not.
func (l Lineage) Check(st *State) *Break {
	if st.Control.Status == LoopPending && l.status != LoopPending {
		return &Break{Kind: BreakNewLoop, Reason: fmt.Sprintf("control.status is pending again (it was %s)", l.status)}
	}
	// B's corrections[] and st's share a prefix; what B has beyond it is
	// behind (a loop script that read the file before B's last entries
	// were written wrote it back without them), what st has beyond it is
	// after (corrections made since: someone's /redirect, another aot-tui
	// — possibly on such a loop write, before the entries behind were put
	// back, so that both lists go on differently from the same point). An
	// entry behind that st has after the prefix was put back: it is not
	// behind. Either part longer than maxBehind, or no shared entry at
	// all, is another history.
	cs := st.Corrections
	k := 0
	for k < min(len(cs), len(l.corrections)) && sameCorrection(cs[k], l.corrections[k]) {
		k++
	}
	after := cs[k:]
	var behind []Correction
	for _, c := range l.corrections[k:] {
		if !slices.ContainsFunc(after, func(x Correction) bool { return sameCorrection(x, c) }) {
			behind = append(behind, c)
		}
	}
	var objective, dag, bindings bool
	for _, c := range append(append([]Correction(nil), after...), behind...) {
		switch c.Type {
		case CorrectionObjective:
			objective = true
		case CorrectionDAG:
			dag = true
		case CorrectionBindingsFix:
			bindings = true
		}
	}
	// The wording: another goal (unless an objective_change after or
	// behind explains it: someone's /redirect, or one a loop script that
	// read the file before it wrote back without it), fewer than half of
	// B's atoms, or more than a quarter of atoms B never had make it
	// another loop (an older version of this one has B's atoms up to those
	// added since).
	present, foreign := l.atomsIn(st)
	other := (st.Objective.Goal != l.goal && !objective) || present*2 < len(l.atoms) || foreign*4 > len(st.Atoms)
	kind := BreakOlderVersion
	if other {
		kind = BreakNewLoop
	}
	brk := func(format string, args ...any) *Break {
		return &Break{Kind: kind, Reason: fmt.Sprintf(format, args...)}
	}
	if st.Control.Iteration < l.iteration {
		return brk("control.iteration went back from %d to %d", l.iteration, st.Control.Iteration)
	}
	if len(behind) > 0 {
		switch {
		case k < len(cs) && (k == 0 || len(after) > maxBehind):
			return brk("its corrections[] differ from entry %d on", k+1)
		case other || len(behind) > maxBehind:
			return brk("it has %d corrections, the version the correction was planned on had %d", len(cs), len(l.corrections))
		}
	}
	if !objective && st.Objective.Goal != l.goal {
		return brk("the goal is %q, not %q", st.Objective.Goal, l.goal)
	}
	if !dag && present < len(l.atoms) {
		return brk("%d of its %d atoms are not there (by id and description)", len(l.atoms)-present, len(l.atoms))
	}
	// A force-or behind appended to B's trail.
	if !objective && !bindings && !(dag && len(behind) > 0) && len(st.Trail) < l.trail {
		return brk("its trail has %d entries, it had %d", len(st.Trail), l.trail)
	}
	if !dag && len(st.Decompositions) < l.decomps {
		return brk("it has %d decompositions, it had %d", len(st.Decompositions), l.decomps)
	}
	if len(behind) > 0 {
		return &Break{Kind: kind, Behind: len(behind),
			Reason: fmt.Sprintf("it lacks the last %d of the %d corrections the version the correction was planned on had", len(behind), len(l.corrections))}
	}
	return nil
}

// sameCorrection reports whether two corrections[] entries are the same
// entry (a correction is written once, with its time).
func sameCorrection(a, b Correction) bool {
	return a.Timestamp == b.Timestamp && a.Type == b.Type && a.Description == b.Description && a.TrailCleared == b.TrailCleared
}

// atomsIn counts l's atoms that st has (present) and st's atoms that l
// does not have (foreign), by id and description: both lists of hashes
// sorted, then walked together.
func (l Lineage) atomsIn(st *State) (present, foreign int) {
	hs := make([]uint64, len(st.Atoms))
	for i, a := range st.Atoms {
		hs[i] = atomHash(a)
	}
	slices.Sort(hs)
	i, j := 0, 0
	for i < len(l.atoms) && j < len(hs) {
		switch {
		case l.atoms[i] == hs[j]:
			present++
			i, j = i+1, j+1
		case l.atoms[i] < hs[j]:
			i++
		default:
			foreign++
			j++
		}
	}
	return present, foreign + len(hs) - j
}
