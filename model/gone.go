package model

import (
	"fmt"
	"slices"
	"strings"
)

// Gone is an atom that was in progress in an earlier version of the file
// and is missing from a later one (deleted with --interrupt, or by anyone).
// A worker was on it, and aot-tui cannot stop the loop's workers: when it
// finishes, the coordinator runs update_atom.py and add_binding.py on an
// atom that is no longer there, and they fail ("Atom A9 not found"). The
// loop has to know.
type Gone struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// Iteration is control.iteration of the first version without it.
	Iteration int `json:"iteration"`
}

// GoneInProgress lists the atoms in progress in prev that cur does not
// have, in prev's order (each id once).
func GoneInProgress(prev, cur *State) []Gone {
	if prev == nil || cur == nil {
		return nil
	}
	var ids []string
	var first []*Atom
	for i := range prev.Atoms {
		if a := &prev.Atoms[i]; a.Status == StatusInProgress && !slices.Contains(ids, a.ID) {
			ids, first = append(ids, a.ID), append(first, a)
		}
	}
	var out []Gone
	for k, have := range idsIn(cur, ids) {
		if !have {
			a := first[k]
			out = append(out, Gone{ID: a.ID, Description: a.Description, Iteration: cur.Control.Iteration})
		}
	}
	return out
}

// idsIn reports, for each of ids, whether an atom of s has it. The ids
// are few (the atoms in progress: the loop's workers) and s's atoms many,
// so they are looked for in one pass over the atoms, which stops once
// all are found, rather than s's ids put in a set (a 10,000-atom map on
// each write of a running loop: the TUI notes gone atoms on every one).
func idsIn(s *State, ids []string) []bool {
	found := make([]bool, len(ids))
	if len(ids) == 0 {
		return found
	}
	want := make(map[string]int, len(ids))
	for k, id := range ids {
		if _, dup := want[id]; !dup {
			want[id] = k
		}
	}
	left := len(want)
	for i := range s.Atoms {
		if k, ok := want[s.Atoms[i].ID]; ok && !found[k] {
			found[k] = true
			if left--; left == 0 {
				break
			}
		}
	}
	for k, id := range ids {
		found[k] = found[want[id]]
	}
	return found
}

// KeepGone carries the gone atoms noted so far to the version cur that
// follows prev, adding those GoneInProgress(prev, cur) finds when both are
// of the same iteration of a running loop. A gone atom is dropped once it
// is back in cur, once the loop is no longer running, or once the
// iteration moved on: the coordinator that ran its worker has ended (it
// waits for its workers; the stop hook counts the iteration when it
// exits), and its scripts have met the missing atom by then. For the same
// reason an atom still in progress when an iteration ends has no worker:
// it going at the turn of an iteration is not noted. A watcher that sees
// every version (the TUI) keeps the note up for the rest of the iteration
// rather than only until the next write.
func KeepGone(gone []Gone, prev, cur *State) []Gone {
	if cur == nil {
		return gone
	}
	if cur.Control.Status != LoopRunning {
		return nil
	}
	var out, same []Gone
	for _, g := range gone {
		if g.Iteration == cur.Control.Iteration {
			same = append(same, g)
		}
	}
	if len(same) > 0 {
		ids := make([]string, len(same))
		for k, g := range same {
			ids[k] = g.ID
		}
		for k, have := range idsIn(cur, ids) {
			if !have {
				out = append(out, same[k])
			}
		}
	}
	if prev == nil || prev.Control.Iteration != cur.Control.Iteration {
		return out
	}
	for _, g := range GoneInProgress(prev, cur) {
		dup := false
		for _, o := range out {
			dup = dup || o.ID == g.ID
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}

// GoneText says what gone atoms mean for the loop, in one line: "A9 was
// in progress and is gone: the worker's update_atom.py A9 … will fail
// 'Atom A9 not found'" ("" for none).
func GoneText(gone []Gone) string {
	switch len(gone) {
	case 0:
		return ""
	case 1:
		id := gone[0].ID
		return fmt.Sprintf("%s was in progress and is gone: the worker's update_atom.py %s … will fail 'Atom %s not found'", id, id, id)
	}
	ids := make([]string, len(gone))
	for i, g := range gone {
		ids[i] = g.ID
	}
	return fmt.Sprintf("%s were in progress and are gone: their workers' update_atom.py calls will fail 'Atom … not found'", strings.Join(ids, ", "))
}

// WithGone is the outlook o told about gone atoms: their note comes
// first in its text (a narrow header cuts the end) and it is a warning.
// The hook's decision is the same; the loop's next scripts will fail.
func WithGone(o Outlook, gone []Gone) Outlook {
	if len(gone) == 0 {
		return o
	}
	o.Text = GoneText(gone) + "; " + o.Text
	o.Warning = true
	return o
}
