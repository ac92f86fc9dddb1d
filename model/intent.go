package model

import (
	"fmt"
	"slices"
)

// Intent is what a correction means to hold in the versions of the file
// that follow it, beyond carrying its corrections[] entry (see Mark): its
// post-conditions. The loop's workers do not stop for a correction. A
// worker that was on an atom the correction sent back to pending (force-or's
// dropped choice, override-binding --redo, add-atom --required-by) finishes
// later, and update_atom.py sets the atom resolved on our version: the
// entry is carried, and what the correction meant is undone. So is a
// deleted atom that a loop write adds again.
//
// The post-conditions, checked on each later version that carries the
// correction:
//
//   - an atom the correction sent back to pending, or gave a new
//     dependency, is not resolved while one of its dependencies is
//     unresolved, nor while it is an OR choice its group does not select
//     (the loop itself never resolves such an atom: its coordinator runs
//     only executable atoms);
//   - an atom the correction deleted is not there again (same id and
//     description).
type Intent struct {
	watch   []watchedAtom
	deleted []Atom
}

// watchedAtom is an atom the correction sent back to pending (was is its
// status before) or gave new dependencies (was is pending).
type watchedAtom struct {
	id  string
	was AtomStatus
}

// IntentOf is the intent of a correction that turned before into after.
func IntentOf(before, after *State) Intent {
	var in Intent
	now := make(map[string]*Atom, len(after.Atoms))
	for i := range after.Atoms {
		now[after.Atoms[i].ID] = &after.Atoms[i]
	}
	for _, a := range before.Atoms {
		b, ok := now[a.ID]
		switch {
		case !ok:
			in.deleted = append(in.deleted, Atom{ID: a.ID, Description: a.Description})
		case b.Status == StatusPending && (a.Status == StatusInProgress || a.Status == StatusResolved):
			in.watch = append(in.watch, watchedAtom{id: a.ID, was: a.Status})
		case b.Status != StatusResolved && gained(a.DependsOn, b.DependsOn):
			in.watch = append(in.watch, watchedAtom{id: a.ID, was: b.Status})
		}
	}
	return in
}

// gained reports whether after lists an id before does not.
func gained(before, after []string) bool {
	for _, d := range after {
		if !slices.Contains(before, d) {
			return true
		}
	}
	return false
}

// Empty reports whether the intent has nothing to check.
func (in Intent) Empty() bool { return len(in.watch) == 0 && len(in.deleted) == 0 }

// Defeated returns why st undoes the correction's intent ("" when it does
// not): "A9 came back resolved while A10, which it depends on, is pending:
// the worker that was on A9 finished after the correction". It looks at
// the few atoms the intent names and their dependencies only.
func (in Intent) Defeated(st *State) string {
	if in.Empty() {
		return ""
	}
	want := make(map[string]*Atom, len(in.watch)+len(in.deleted))
	for _, w := range in.watch {
		want[w.id] = nil
	}
	for _, d := range in.deleted {
		want[d.ID] = nil
	}
	find(st, want)
	for _, d := range in.deleted {
		if a := want[d.ID]; a != nil && a.Description == d.Description {
			return fmt.Sprintf("%s, which the correction deleted, is back in the file: a loop write added it again", d.ID)
		}
	}
	deps := map[string]*Atom{}
	for _, w := range in.watch {
		if a := want[w.id]; a != nil && a.Status == StatusResolved {
			for _, d := range a.DependsOn {
				deps[d] = nil
			}
		}
	}
	if len(deps) > 0 {
		find(st, deps)
	}
	for _, w := range in.watch {
		a := want[w.id]
		if a == nil || a.Status != StatusResolved {
			continue
		}
		why := ""
		for _, dep := range a.DependsOn {
			if d := deps[dep]; d != nil && d.Status.Unresolved() {
				why = fmt.Sprintf("%s came back resolved while %s, which it depends on, is %s", w.id, dep, d.Status)
				break
			}
		}
		if why == "" {
			if g := orGroupOf(st, w.id); g != nil && g.Selected != "" && g.Selected != w.id {
				why = fmt.Sprintf("%s came back resolved although OR group %s selects %s", w.id, g.Name, g.Selected)
			}
		}
		if why == "" {
			continue
		}
		switch w.was {
		case StatusInProgress:
			return why + fmt.Sprintf(": the worker that was on %s finished after the correction", w.id)
		case StatusResolved:
			return why + ": a loop write set it resolved again before what it depends on was redone"
		}
		return why + ": the loop ran it on what it read before the correction"
	}
	return ""
}

// find points each id of want at st's first atom with that id.
func find(st *State, want map[string]*Atom) {
	for i := range st.Atoms {
		a := &st.Atoms[i]
		if p, ok := want[a.ID]; ok && p == nil {
			want[a.ID] = a
		}
	}
}

// orGroupOf is the OR group atom id is in, as Derive reads it
// (orGroupsOf), or nil.
func orGroupOf(st *State, id string) *ORGroup {
	name := make(map[string]string, 1)
	orGroupsOf(st, map[string]bool{id: true}, name)
	if g, ok := st.ORGroup(name[id]); ok && name[id] != "" {
		return g
	}
	return nil
}
