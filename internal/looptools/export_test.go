package looptools

import "github.com/aot-loop/aot-tui/model"

// ReadEntriesCounted is ReadEntries that also says how many entries it
// took from the version before.
func ReadEntriesCounted(data []byte, fm Frame, st *model.State, e Entries) (*model.LoopRead, []EntryRead, int) {
	r := readEntries(data, fm, st, e)
	return r.lr, r.records, r.skipped
}

// Reusable reports whether an entry's reading can be taken as it is.
func (e EntryRead) Reusable() bool { return e&reusable != 0 }
