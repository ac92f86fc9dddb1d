package model

import (
	"fmt"
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
	var out []Gone
	var have map[string]bool
	seen := map[string]bool{}
	for _, a := range prev.Atoms {
		if a.Status != StatusInProgress || seen[a.ID] {
			continue
		}
		if have == nil {
			have = make(map[string]bool, len(cur.Atoms))
			for _, c := range cur.Atoms {
				have[c.ID] = true
			}
		}
		seen[a.ID] = true
		if !have[a.ID] {
			out = append(out, Gone{ID: a.ID, Description: a.Description, Iteration: cur.Control.Iteration})
		}
	}
	return out
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
	var have map[string]bool
	var out []Gone
	for _, g := range gone {
		if g.Iteration != cur.Control.Iteration {
			continue
		}
		if have == nil {
			have = make(map[string]bool, len(cur.Atoms))
			for _, a := range cur.Atoms {
				have[a.ID] = true
			}
		}
		if !have[g.ID] {
			out = append(out, g)
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
