package history

import (
	"bytes"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// goneLookBack bounds how many recorded versions GoneFromJournal reads
// back: an iteration of a real loop is a few writes per worker.
const goneLookBack = 8

// GoneFromJournal reads the journal at journal (when there is one: see
// NewestJournal) and returns the atoms that were in progress in a
// version recorded during cur's iteration and are gone from cur, data's
// state: what a TUI watching all along would note (model.KeepGone over
// the last goneLookBack versions of the iteration). Only a running loop
// has workers: for any other, and without a journal, nil. It reads only
// the journal's tail: from the last full record before those versions.
func GoneFromJournal(journal string, cur *model.State, data []byte) []model.Gone {
	if cur.Control.Status != model.LoopRunning {
		return nil
	}
	versions := tailVersions(journal, goneLookBack+1)
	iteration := cur.Control.Iteration
	// The versions of this iteration, newest first, each parsed reusing
	// the parts of the one after it (Reparse).
	var chain []*model.State
	var doc *statefile.Document
	for i := len(versions) - 1; i >= 0 && len(chain) < goneLookBack; i-- {
		if bytes.Equal(versions[i], data) {
			continue
		}
		next, err := statefile.Reparse(doc, versions[i])
		if err != nil {
			continue
		}
		doc = next
		if doc.State.Control.Iteration != iteration {
			break
		}
		chain = append(chain, doc.State)
	}
	var gone []model.Gone
	for i := len(chain) - 1; i > 0; i-- {
		gone = model.KeepGone(gone, chain[i], chain[i-1])
	}
	if len(chain) > 0 {
		gone = model.KeepGone(gone, chain[0], cur)
	}
	return gone
}
