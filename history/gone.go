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
// version recorded during the iteration of cur (the file's Document now)
// and are gone from cur: what a TUI watching all along would note
// (model.KeepGone over the last goneLookBack versions of the iteration).
// Only a running loop has workers: for any other, and without a journal,
// nil. It reads only the journal's tail (ReadTail).
func GoneFromJournal(journal string, cur *statefile.Document) []model.Gone {
	if cur.State.Control.Status != model.LoopRunning {
		return nil
	}
	return ReadTail(journal).Gone(cur)
}

// A Tail is the last versions a journal holds, as GoneFromJournal reads
// them: the tail does not depend on the file's state, so it can be read
// while the file is parsed (status does).
type Tail struct{ versions [][]byte }

// ReadTail reads the tail of the journal at journal ("": none): from its
// last full record before the last goneLookBack+1 versions.
func ReadTail(journal string) *Tail {
	if journal == "" {
		return &Tail{}
	}
	return &Tail{tailVersions(journal, goneLookBack+1)}
}

// Gone is GoneFromJournal of the journal t was read from. Each version
// is parsed reusing the parts of the one after it, the first from cur:
// when cur remembers what that needs (statefile.LoadReparse), no version
// is parsed whole.
func (t *Tail) Gone(cur *statefile.Document) []model.Gone {
	if cur.State.Control.Status != model.LoopRunning {
		return nil
	}
	versions := t.versions
	iteration := cur.State.Control.Iteration
	// The versions of this iteration, newest first.
	var chain []*model.State
	doc := cur
	for i := len(versions) - 1; i >= 0 && len(chain) < goneLookBack; i-- {
		if bytes.Equal(versions[i], cur.Data) {
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
		gone = model.KeepGone(gone, chain[0], cur.State)
	}
	return gone
}
