package looptools

import (
	"bytes"
	"math"

	"github.com/aot-loop/aot-tui/model"
)

// ReadEntriesCounted is ReadEntries that also says how many entries it
// took from the version before.
func ReadEntriesCounted(data []byte, fm Frame, st *model.State, e Entries) (*model.LoopRead, []EntryRead, int) {
	r := readEntries(data, fm, st, e)
	return r.lr, r.records, r.skipped
}

// Reusable reports whether an entry's reading can be taken as it is.
func (e EntryRead) Reusable() bool { return e&reusable != 0 }

// Atom is an atom as the loop's Python scripts read it (read_state.py's
// atoms: id, status and depends_on, comments and all).
type Atom struct {
	ID string
	// Status is "" when the scripts find none (HasStatus false).
	Status    string
	HasStatus bool
	DependsOn []string
	// Line is the file line of its '- id:'.
	Line int
}

// Atoms reads the atoms of data as the loop's Python scripts do.
func Atoms(data []byte) []Atom {
	var out []Atom
	r := reader{data: data, recording: -1, plainAtom: -1}
	r.py.init(&r)
	r.py.collect = func(a *pyAtom) {
		x := Atom{ID: string(a.id), Status: string(a.status), HasStatus: a.hasStatus, DependsOn: []string{}, Line: a.start}
		a.eachDep(func(d []byte) bool {
			x.DependsOn = append(x.DependsOn, string(d))
			return true
		})
		out = append(out, x)
	}
	cr := bytes.IndexByte(data, '\r') >= 0
	for pos, n := 0, 1; pos < len(data); n++ {
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		r.py.lineCR(data[pos:end], n, cr)
		pos = end + 1
	}
	r.py.close(math.MaxInt)
	return out
}

// lineCR is line with Python's universal newlines when the file holds a
// CR: \r\n and a lone \r end lines too.
func (p *pyReader) lineCR(line []byte, n int, cr bool) {
	if !cr {
		p.line(line, n)
		return
	}
	p.lineWithCR(line, n)
}
