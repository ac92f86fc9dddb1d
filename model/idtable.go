package model

import (
	"hash/maphash"
	"sync"
)

// idTable finds the first atom with an id: an open-addressing hash table
// of atom indexes, made once per shape. It does what a map[string]int of
// the ids does in less memory: each slot is 8 bytes, the upper half of
// the id's hash and the atom's index plus one (0: empty), so a probe
// compares the id's bytes only when the hashes' halves agree, and at
// 100,000 atoms the table (2 MB) stays in the cache where a Go map of the
// ids (about 5 MB, with the keys' bytes elsewhere) missed it on nearly
// every access (issue 26: validate grew ×13–21 from 10,000 to 100,000
// atoms).
//
// The ids' bytes a probe compares are copied, one after the other and
// without string headers, into keys (atom i's are
// keys[keyOff[i]:keyOff[i+1]]): a lookup then reads the 2 MB of slots
// and 1 MB of keys at 100,000 atoms, not an atom and its id's bytes, two
// cache misses somewhere in the state's 30 MB.
type idTable struct {
	slots  []uint64
	mask   uint64
	keys   []byte
	keyOff []int32
	// touched sums what findAll read ahead, so that the reads stay.
	touched int
}

// idSeed seeds the ids' hashes; the table's answers do not depend on it.
var idSeed = maphash.MakeSeed()

// scanAtoms indexes atoms by id, the first of each id, marks those in
// first (len(atoms) long) and gathers, in the same pass over the atoms,
// what Validate reads of each atom besides its id (sum, an atomSum) and
// its dependencies resolved (sum.g): at 100,000 atoms each pass over
// them reads 14 MB from memory, where 10,000 atoms stay in the caches
// (issue 26). A dependency is looked up in the table as it stands when
// its atom is reached, which has the atoms before it and itself: an id
// found there is the first atom's with it (the first of an id is the one
// the table keeps), and its atom and its slot were read a moment ago, for
// an atom mostly depends on atoms shortly before it. The ids not found
// yet are looked up again once the table has every atom. The table's
// slots and sum's slices are sc's memory.
func scanAtoms(atoms []Atom, first []bool, sc *checkScratch, sum *atomSum) (t idTable) {
	size := 16
	for size < 2*len(atoms) {
		size <<= 1
	}
	var slots []uint64
	if cap(sc.slots) >= size {
		slots = sc.slots[:size]
		clear(slots)
	} else {
		slots = make([]uint64, size)
		sc.slots = slots
	}
	t = idTable{slots: slots, mask: uint64(size - 1)}
	if cap(sc.keyOff) > len(atoms) {
		t.keyOff = sc.keyOff[:len(atoms)+1]
		t.keys = sc.keys[:0]
	} else {
		t.keyOff = make([]int32, len(atoms)+1)
	}
	// The ids are hashed and their slots read a batch ahead, as findAll
	// does, so that the batch's cache misses overlap.
	var hs [findBatch]uint64
	g := depGraph{dep: sc.dep[:0], repeat: sc.repeat[:0]}
	later := sc.later[:0]       // the dependencies not found when their atom was reached
	laterIDs := sc.laterIDs[:0] // their ids
	for i := range atoms {
		if k := i % findBatch; k == 0 {
			n := min(findBatch, len(atoms)-i)
			touch := uint64(0)
			for k := range n {
				hs[k] = maphash.String(idSeed, atoms[i+k].ID)
			}
			for k := range n {
				touch += t.slots[hs[k]&t.mask]
			}
			t.touched += int(touch)
		}
		a := &atoms[i]
		id := a.ID
		t.keys = append(t.keys, id...)
		t.keyOff[i+1] = int32(len(t.keys))
		h := hs[i%findBatch]
		tag := h &^ 0xFFFFFFFF
		for p := h & t.mask; ; p = (p + 1) & t.mask {
			sl := t.slots[p]
			if sl == 0 {
				t.slots[p] = tag | uint64(i+1)
				first[i] = true
				break
			}
			if sl&^0xFFFFFFFF == tag && t.is(int(uint32(sl))-1, id) {
				break // an id again: the first keeps the slot
			}
		}
		sum.add(i, a)
		sum.off[i] = int32(len(g.dep))
		deps := a.DependsOn
		seen := seenFor(deps)
		for j, d := range deps {
			repeat := repeated(deps, j, seen)
			x := t.probe(d, maphash.String(idSeed, d))
			if x < 0 {
				later, laterIDs = append(later, int32(len(g.dep))), append(laterIDs, d)
			}
			g.dep, g.repeat = append(g.dep, int32(x)), append(g.repeat, repeat)
		}
	}
	sc.keys, sc.keyOff = t.keys, t.keyOff
	sum.off[len(atoms)] = int32(len(g.dep))
	g.off = sum.off
	// The ids not found yet, looked up in the whole table.
	if len(laterIDs) > 0 {
		found := make([]int32, len(laterIDs))
		t.findAll(laterIDs, found)
		for k, p := range later {
			g.dep[p] = found[k]
		}
	}
	sum.g = g
	clear(laterIDs) // the scratch keeps no ids
	sc.dep, sc.repeat, sc.later, sc.laterIDs = g.dep, g.repeat, later, laterIDs
	return t
}

// is reports whether atom i's id is id.
func (t *idTable) is(i int, id string) bool {
	return string(t.keys[t.keyOff[i]:t.keyOff[i+1]]) == id
}

// find returns the index of the first atom (of those the table was made
// of) with id, and whether there is one.
func (t *idTable) find(id string) (int, bool) {
	i := t.probe(id, maphash.String(idSeed, id))
	return i, i >= 0
}

// probe is find for id, whose hash is h; -1 for none.
func (t *idTable) probe(id string, h uint64) int {
	tag := h &^ 0xFFFFFFFF
	for p := h & t.mask; ; p = (p + 1) & t.mask {
		sl := t.slots[p]
		if sl == 0 {
			return -1
		}
		if sl&^0xFFFFFFFF == tag {
			if i := int(uint32(sl)) - 1; t.is(i, id) {
				return i
			}
		}
	}
}

// findBatch is how many ids findAll looks up together.
const findBatch = 32

// findAll is find for each of ids, into out (as long): the index of the
// first atom with the id, -1 for none. It looks the ids up a batch at a
// time, each step for the whole batch before the next — the hashes, then
// the slots, then the ids' bytes the slots name, then the comparisons — so
// that the processor waits for the batch's cache misses together rather
// than one after the other: at 100,000 atoms nearly every slot is one
// (issue 26).
func (t *idTable) findAll(ids []string, out []int32) {
	var h, sl [findBatch]uint64
	for len(ids) > 0 {
		n := min(len(ids), findBatch)
		for k := range n {
			h[k] = maphash.String(idSeed, ids[k])
		}
		for k := range n {
			sl[k] = t.slots[h[k]&t.mask]
		}
		var touch int
		for k := range n {
			if s := sl[k]; s != 0 && s&^0xFFFFFFFF == h[k]&^0xFFFFFFFF {
				if i := int(uint32(s)) - 1; t.keyOff[i] < t.keyOff[i+1] {
					touch += int(t.keys[t.keyOff[i]])
				}
			}
		}
		for k := range n {
			out[k] = int32(t.probe(ids[k], h[k]))
		}
		t.touched += touch
		ids, out = ids[n:], out[n:]
	}
}

// findEach sets out[k] to the index of the first atom of s (of this
// shape) with id(k), -1 for none, for each k < len(out): a batch at a time
// through the table (findAll), one by one through a shape's index map.
func (sh *shape) findEach(s *State, out []int32, id func(k int) string) {
	if sh.ids.slots == nil {
		for k := range out {
			i, _ := sh.find(s, id(k))
			out[k] = int32(i)
		}
		return
	}
	var ids [findBatch]string
	for at := 0; at < len(out); at += findBatch {
		n := min(findBatch, len(out)-at)
		for k := range n {
			ids[k] = id(at + k)
		}
		sh.ids.findAll(ids[:n], out[at:at+n])
	}
}

// checkScratch is the memory of the slices checkShape makes, kept between
// calls of Validate (scratchPool): at 100,000 atoms they are 4 MB a call,
// whose allocation and collection on a heap of that size grew faster
// than the atoms (issue 26). Slices are carved from one arena of each
// type; what does not fit is allocated, and the next call gets an arena
// as large as the last one needed.
type checkScratch struct {
	i32                     []int32
	bools                   []bool
	u8                      []uint8
	slots                   []uint64
	needI32, needBo, needU8 int
	// orGroup is the memory of atomSum.orGroup.
	orGroup []int32
	// keys and keyOff are the memory of the idTable's.
	keys   []byte
	keyOff []int32
	// orAtoms is the memory of atomSum.orAtoms; dep, repeat, later and
	// laterIDs that of scanAtoms's dependencies.
	orAtoms  []int32
	dep      []int32
	repeat   []bool
	later    []int32
	laterIDs []string
}

var scratchPool sync.Pool

// getScratch returns a checkScratch, from the pool when it has one.
func getScratch() *checkScratch {
	if sc, ok := scratchPool.Get().(*checkScratch); ok {
		return sc
	}
	return &checkScratch{}
}

// putScratch gives sc back to the pool once nothing carved from it is
// used any more.
func putScratch(sc *checkScratch) {
	if sc.needI32 > cap(sc.i32) {
		sc.i32 = make([]int32, 0, sc.needI32)
	}
	if sc.needBo > cap(sc.bools) {
		sc.bools = make([]bool, 0, sc.needBo)
	}
	if sc.needU8 > cap(sc.u8) {
		sc.u8 = make([]uint8, 0, sc.needU8)
	}
	sc.i32, sc.bools, sc.u8, sc.needI32, sc.needBo, sc.needU8 = sc.i32[:0], sc.bools[:0], sc.u8[:0], 0, 0, 0
	scratchPool.Put(sc)
}

// int32s is make([]int32, n), from sh's scratch when it has one.
func (sh *shape) int32s(n int) []int32 {
	if sh.scratch == nil {
		return make([]int32, n)
	}
	return fromArena(&sh.scratch.i32, &sh.scratch.needI32, n)
}

// bools is make([]bool, n), from sh's scratch when it has one.
func (sh *shape) bools(n int) []bool {
	if sh.scratch == nil {
		return make([]bool, n)
	}
	return fromArena(&sh.scratch.bools, &sh.scratch.needBo, n)
}

// uint8s is make([]uint8, n), from sh's scratch when it has one.
func (sh *shape) uint8s(n int) []uint8 {
	if sh.scratch == nil {
		return make([]uint8, n)
	}
	return fromArena(&sh.scratch.u8, &sh.scratch.needU8, n)
}

// fromArena is make([]T, n) cut from the end of arena when it has room
// (capped, so that an append never reaches the next cut); need adds n,
// for the arena's size next time.
func fromArena[T any](arena *[]T, need *int, n int) []T {
	*need += n
	at := len(*arena)
	if cap(*arena)-at < n {
		return make([]T, n)
	}
	*arena = (*arena)[:at+n]
	s := (*arena)[at : at+n : at+n]
	clear(s)
	return s
}
