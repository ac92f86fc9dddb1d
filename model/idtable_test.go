package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDTableIsTheFirstIndex checks the ids' table checkShape makes
// against a map of the first index of each id: ids repeated, empty, of
// one length, differing in their last byte only, and ids that are not
// there, with many more atoms than one batch of findAll, one at a time and
// a batch at a time; the tables, of growing and then shrinking sizes,
// reuse one scratch's memory as Validate's do. Tables of more than one
// part (idTable.build) are among them, the largest with more atoms than
// the recent ids hold many times over. The dependencies scanAtoms
// resolves are checked too: on atoms just before, on a repeated id whose
// first is far back, on atoms further down, on no atom.
func TestIDTableIsTheFirstIndex(t *testing.T) {
	testIDTable(t)
	// Parts of 64 slots: runs of full slots cross into the next part,
	// not cleared yet, many times in each table.
	defer func(n int) { partSlots = n }(partSlots)
	partSlots = 64
	testIDTable(t)
}

func testIDTable(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 3))
	sc := &checkScratch{}
	for _, n := range []int{0, 1, 2, 31, 33, 100, 1000, 5000, 20000, 70000, 20000, 70000, 1000, 33} {
		atoms := make([]Atom, n)
		for i := range atoms {
			switch r.IntN(10) {
			case 0:
				atoms[i].ID = "" // no id
			case 1, 2:
				if i > 0 {
					atoms[i].ID = atoms[r.IntN(i)].ID // a repeated id
					continue
				}
				fallthrough
			default:
				atoms[i].ID = fmt.Sprintf("A%06d", r.IntN(4*n+1))
			}
		}
		for i := range atoms {
			for range r.IntN(4) {
				var d string
				switch k := r.IntN(10); {
				case k < 6 && i > 0:
					d = atoms[max(0, i-1-r.IntN(64))].ID // just before
				case k == 6:
					d = atoms[r.IntN(n)].ID // anywhere
				case k == 7:
					d = atoms[i].ID // itself
				default:
					d = fmt.Sprintf("A%06dx", r.IntN(n)) // no atom
				}
				atoms[i].DependsOn = append(atoms[i].DependsOn, d)
			}
		}
		want := map[string]int{}
		for i, a := range atoms {
			if _, ok := want[a.ID]; !ok {
				want[a.ID] = i
			}
		}
		for i := range sc.slots[:cap(sc.slots)] {
			sc.slots[i] = uint32(i) * 0x9E3779B9 // the last table's, as far as build knows
		}
		var sum atomSum
		sh := checkShape(&State{Atoms: atoms}, sc, &sum)
		tab, first := &sh.ids, sh.first
		for i, a := range atoms {
			if first[i] != (want[a.ID] == i) {
				t.Fatalf("%d atoms: first[%d] (%q) is %v", n, i, a.ID, first[i])
			}
			for j, d := range a.DependsOn {
				w, ok := want[d]
				if !ok {
					w = -1
				}
				if got := sh.g.dep[sh.g.off[i]+int32(j)]; int(got) != w {
					t.Fatalf("%d atoms: atom %d's dependency %q is atom %d, want %d", n, i, d, got, w)
				}
			}
		}
		var ids []string
		for i := range 2*n + 40 {
			id := fmt.Sprintf("A%06d", i)
			if i%7 == 0 {
				id += "x" // never an atom
			}
			ids = append(ids, id)
		}
		ids = append(ids, "")
		got := make([]int32, len(ids))
		tab.findAll(ids, got)
		for k, id := range ids {
			w, ok := want[id]
			if !ok {
				w = -1
			}
			i, found := tab.find(id)
			if i != w || found != ok || int(got[k]) != w {
				t.Fatalf("%d atoms: %q: find %d %v, findAll %d, want %d", n, id, i, found, got[k], w)
			}
		}
	}
}
