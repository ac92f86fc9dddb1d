package statefile

import (
	"runtime"
	"sync"

	"github.com/aot-loop/aot-tui/model"
	"go.yaml.in/yaml/v3"
)

// atomHalves is the number of atoms from which Parse decodes the atoms list
// in two halves, the second on another core: on a 10,000-atom file the
// atoms are most of the decoding, and the decoding about a third of a
// one-shot `status`.
const atomHalves = 2000

// errHalfAlias stops the decoder of a half that meets an alias: aliases
// charge a budget shared by the whole document (see resolve), so such a
// list is decoded again in one piece.
var errHalfAlias = &struct{ error }{}

// atomsInHalves decodes the atoms list n in two halves at once, each with a
// decoder of its own, and returns what decoding it in one piece returns:
// the atoms, and their problems appended to d's in the same order (atom
// decoding reads nothing else of d's and writes nothing else). It declines
// (false) for Reparse, which records and reuses entries one by one, for a
// list under d.halves atoms or on one core, and when either half meets an
// alias.
func (d *decoder) atomsInHalves(x val) ([]model.Atom, bool) {
	if d.r != nil {
		return d.readInHalves(x)
	}
	n := x.n
	if d.memo != nil || d.halves <= 0 || n == nil || n.Kind != yaml.SequenceNode || len(n.Content) < max(d.halves, 2) || runtime.GOMAXPROCS(0) < 2 {
		return nil, false
	}
	out := make([]model.Atom, len(n.Content))
	mid := len(n.Content) / 2
	a := &decoder{lines: d.lines, half: true}
	b := &decoder{lines: d.lines, half: true}
	var (
		okB bool
		wg  sync.WaitGroup
	)
	wg.Go(func() { okB = b.atomRange(n.Content, mid, len(n.Content), out) })
	okA := a.atomRange(n.Content, 0, mid, out)
	wg.Wait()
	if !okA || !okB {
		return nil, false
	}
	d.problems = append(append(d.problems, a.problems...), b.problems...)
	return out, true
}

// atomRange decodes items[from:to] into out[from:to]; false when it met
// an alias.
func (d *decoder) atomRange(items []*yaml.Node, from, to int, out []model.Atom) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errHalfAlias {
				panic(r)
			}
			ok = false
		}
	}()
	for i := from; i < to; i++ {
		out[i] = d.atom(nodeVal(items[i]), i)
	}
	return true
}
