package model

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"unsafe"
)

// idTable finds the first atom with an id: an open-addressing hash table
// of atom indexes, made once per shape. It does what a map[string]int of
// the ids does in less memory: each slot is 4 bytes, the atom's index
// plus one (0: empty) in its low bits (those of mask) and the bits of
// the id's hash above them in the others (the low bits place the slot),
// so that a probe compares the id's bytes only when those agree. At 100,000 atoms the table is 1 MB, where
// a Go map of the ids (about 5 MB, with the keys' bytes elsewhere)
// missed the cache on nearly every access (issue 26: validate grew
// ×13–21 from 10,000 to 100,000 atoms).
//
// The ids' bytes a probe compares are copied, one after the other and
// without string headers, into keys (atom i's are
// keys[keyOff[i]:keyOff[i+1]]): a lookup then reads the table and the
// 1 MB of keys at 100,000 atoms, not an atom and its id's bytes, two
// cache misses somewhere in the state's 30 MB.
type idTable struct {
	slots  []uint32
	mask   uint32
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
// (issue 26).
//
// The pass hashes each id and keeps its bytes; the table is built after
// it (build), a part at a time. A dependency is looked up as its atom is
// reached among the atoms read last (recentIDs), for an atom mostly
// depends on atoms shortly before it; once the table has every atom, a
// dependency found there that is not the first of its id is changed for
// the first, and those not found are looked up in the table. The
// table's slots and sum's slices are sc's memory.
func scanAtoms(atoms []Atom, first []bool, sc *checkScratch, sum *atomSum) (t idTable) {
	size := 16
	for 2*len(atoms) > size {
		size <<= 1
	}
	t = idTable{slots: reuse(&sc.slots, size), mask: uint32(size - 1)} // build clears them
	if cap(sc.keyOff) > len(atoms) {
		t.keyOff = sc.keyOff[:len(atoms)+1]
		t.keys = sc.keys[:0]
	} else {
		t.keyOff = make([]int32, len(atoms)+1)
	}
	hashes := reuse(&sc.hashes, len(atoms))
	var recent recentIDs
	g := depGraph{dep: sc.dep[:0], repeat: sc.repeat[:0]}
	later := sc.later[:0]       // the dependencies not found when their atom was reached
	laterIDs := sc.laterIDs[:0] // their ids
	for i := range atoms {
		a := &atoms[i]
		id := a.ID
		t.keys = append(t.keys, id...)
		t.keyOff[i+1] = int32(len(t.keys))
		h := maphash.String(idSeed, id)
		hashes[i] = uint32(h)
		recent.put(h, i)
		sum.add(i, a)
		sum.off[i] = int32(len(g.dep))
		deps := a.DependsOn
		seen := seenFor(deps)
		for j, d := range deps {
			repeat := repeated(deps, j, seen)
			x := recent.get(&t, d, maphash.String(idSeed, d))
			if x < 0 {
				later, laterIDs = append(later, int32(len(g.dep))), append(laterIDs, d)
			}
			g.dep, g.repeat = append(g.dep, int32(x)), append(g.repeat, repeat)
		}
	}
	sc.keys, sc.keyOff = t.keys, t.keyOff
	sum.off[len(atoms)] = int32(len(g.dep))
	g.off = sum.off
	t.build(hashes, first, sc)
	// A dependency found among the recent atoms names the first atom
	// with its id, which is another when an earlier atom has the id.
	for p, x := range g.dep {
		if x >= 0 && !first[x] {
			g.dep[p] = int32(t.probe(t.idOf(int(x)), uint64(hashes[x])))
		}
	}
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

// idOf is atom i's id: the table's copy of its bytes, valid while the
// table's keys are.
func (t *idTable) idOf(i int) string {
	if b := t.keys[t.keyOff[i]:t.keyOff[i+1]]; len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return ""
}

// recentSize is how many atoms recentIDs can hold.
const recentSize = 4096

// recentIDs finds the atoms scanAtoms read last by id: a direct-mapped
// cache of atom indexes (plus one, with the upper half of the id's hash
// above them) by the low bits of the ids' hashes, where an atom takes
// the place of an earlier one with the same low bits. 32 KB, it stays in
// the cache where the table's slots, at 100,000 atoms, would be written
// all over 1 MB (issue 26).
type recentIDs [recentSize]uint64

// put adds atom i, whose id's hash is h.
func (r *recentIDs) put(h uint64, i int) {
	r[h&(recentSize-1)] = h&^0xFFFFFFFF | uint64(i+1)
}

// get is the index of an atom in r with id (hashed h), -1 for none: an
// atom with id, not always the first.
func (r *recentIDs) get(t *idTable, id string, h uint64) int {
	sl := r[h&(recentSize-1)]
	if sl == 0 || sl&^0xFFFFFFFF != h&^0xFFFFFFFF {
		return -1
	}
	if i := int(uint32(sl)) - 1; t.is(i, id) {
		return i
	}
	return -1
}

// partSlots is how many slots of the table build fills together: 32 KB
// (a variable for the tests, whose parts are small).
var partSlots = 8192

// slotAt is an atom as build puts it: its slot's value and the slot its
// probe starts at.
type slotAt struct {
	val, home uint32
}

// build puts the atoms, their ids hashed in hashes (the low halves),
// into t's slots and marks the first of each id in first (len(hashes)
// long). A table of more than one part is
// filled a part at a time (partSlots): the atoms whose slots start in
// the part, in their order, each part cleared just before, so that its
// slots are in the cache as they are written, where atoms put in their
// order write all over the table (1 MB at 100,000 atoms; issue 26). The
// atoms are sorted into the parts by counting (sc's memory).
func (t *idTable) build(hashes []uint32, first []bool, sc *checkScratch) {
	// Each atom is the first of its id until put finds its id again:
	// one pass over first, not a write at random for each atom.
	for i := range first {
		first[i] = true
	}
	parts := len(t.slots) / partSlots
	if parts <= 1 {
		clear(t.slots)
		cleared := len(t.slots)
		for i, h := range hashes {
			t.put(t.slotOf(h, i), first, &cleared)
		}
		return
	}
	shift := uint(bits.TrailingZeros(uint(partSlots)))
	count := reuse(&sc.partCount, parts+1)
	clear(count)
	for _, h := range hashes {
		count[(h&t.mask)>>shift+1]++
	}
	for q := 1; q <= parts; q++ {
		count[q] += count[q-1]
	}
	order := reuse(&sc.order, len(hashes))
	for i, h := range hashes {
		q := (h & t.mask) >> shift
		order[count[q]] = t.slotOf(h, i)
		count[q]++
	}
	cleared, at := 0, int32(0)
	for q := range parts {
		if end := (q + 1) * partSlots; cleared < end {
			clear(t.slots[cleared:end])
			cleared = end
		}
		for _, o := range order[at:count[q]] {
			t.put(o, first, &cleared)
		}
		at = count[q]
	}
}

// slotOf is atom i, the low half of whose id's hash is h, as build puts
// it.
func (t *idTable) slotOf(h uint32, i int) slotAt {
	return slotAt{val: t.tag(h) | uint32(i+1), home: h & t.mask}
}

// put puts atom o into t, and unmarks it in first when an atom before
// it has its id. The slots from cleared on are not cleared yet: a run of
// full slots that reaches them clears a part more.
func (t *idTable) put(o slotAt, first []bool, cleared *int) {
	for p := o.home; ; p = (p + 1) & t.mask {
		if int(p) >= *cleared {
			end := min(*cleared+partSlots, len(t.slots))
			clear(t.slots[*cleared:end])
			*cleared = end
		}
		sl := t.slots[p]
		if sl == 0 {
			t.slots[p] = o.val
			return
		}
		if i := int(o.val&t.mask) - 1; sl&^t.mask == o.val&^t.mask && t.is(int(sl&t.mask)-1, t.idOf(i)) {
			first[i] = false // an id again: the first keeps the slot
			return
		}
	}
}

// tag is the part of a slot that holds bits of h (the low half of the
// hash of the slot's id): those above the index's (mask), which the
// slot's position does not use either.
func (t *idTable) tag(h uint32) uint32 {
	return h &^ t.mask
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
	tag := t.tag(uint32(h))
	for p := uint32(h) & t.mask; ; p = (p + 1) & t.mask {
		sl := t.slots[p]
		if sl == 0 {
			return -1
		}
		if sl&^t.mask == tag {
			if i := int(sl&t.mask) - 1; t.is(i, id) {
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
	var h [findBatch]uint64
	var sl [findBatch]uint32
	for len(ids) > 0 {
		n := min(len(ids), findBatch)
		for k := range n {
			h[k] = maphash.String(idSeed, ids[k])
		}
		for k := range n {
			sl[k] = t.slots[uint32(h[k])&t.mask]
		}
		var touch int
		for k := range n {
			if s := sl[k]; s != 0 && s&^t.mask == t.tag(uint32(h[k])) {
				if i := int(s&t.mask) - 1; t.keyOff[i] < t.keyOff[i+1] {
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

// findAt is findEach for some places of out only: out[k], for each k in
// places, is set to the index of the first atom with id(k), -1 for none.
// The ids are looked up together; the guesses before a lookup (bindings,
// choices, decompositions) leave it the places they did not answer.
func (sh *shape) findAt(s *State, out, places []int32, id func(k int32) string) {
	if len(places) == 0 {
		return
	}
	found := make([]int32, len(places))
	sh.findEach(s, found, func(x int) string { return id(places[x]) })
	for x, k := range places {
		out[k] = found[x]
	}
}

// isFirst reports whether atom j is the first atom with id: a guessed
// answer checked, as a lookup in the table would give it. The shape
// must have the table (Validate's).
func (sh *shape) isFirst(j int, id string) bool {
	return sh.first[j] && sh.ids.is(j, id)
}

// findDecompositions sets out to the indexes of the atoms s's
// decompositions name, each decomposition's parent and then its
// children, as findEach would (-1: none). A decomposition's children are
// mostly the atoms right after its parent: each child is first compared
// with the atom after the one the parent or the child before it is, and
// only looked up when it is not that atom, for a lookup reads the ids'
// table at random (issue 26). The parents are looked up together first,
// then the children that were not the next atom.
func (sh *shape) findDecompositions(s *State, out []int32) {
	ds := s.Decompositions
	// The ids to look up, by their places in out, ascending; id is the
	// id at a place, a walk along ds as the places go up.
	var look []int32
	var d, base int // decomposition d's parent is at out[base]
	id := func(k int32) string {
		for int(k) > base+len(ds[d].Children) {
			base += 1 + len(ds[d].Children)
			d++
		}
		if int(k) == base {
			return ds[d].Parent
		}
		return ds[d].Children[int(k)-base-1]
	}
	lookUp := func() {
		d, base = 0, 0 // the walk starts again
		sh.findAt(s, out, look, id)
		look = look[:0]
	}
	if sh.ids.slots == nil { // a shape without the table: no atom to compare with
		for k := range out {
			look = append(look, int32(k))
		}
		lookUp()
		return
	}
	k := int32(0)
	for _, dc := range ds {
		look = append(look, k)
		k += 1 + int32(len(dc.Children))
	}
	lookUp()
	k = 0
	for _, dc := range ds {
		for c := 0; c < len(dc.Children); c++ {
			p := k + 1 + int32(c)
			if j := out[p-1] + 1; out[p-1] >= 0 && int(j) < len(sh.first) && sh.isFirst(int(j), dc.Children[c]) {
				out[p] = j
			} else {
				out[p] = -1
				look = append(look, p)
			}
		}
		k += 1 + int32(len(dc.Children))
	}
	lookUp()
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
	slots                   []uint32
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
	// hashes, partCount and order are idTable.build's memory.
	hashes    []uint32
	partCount []int32
	order     []slotAt
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

// reuse is (*buf)[:n] when *buf has room for n, else a new slice of n,
// kept in *buf for the next call: a scratch slice, which holds what the
// last call left in it.
func reuse[T any](buf *[]T, n int) []T {
	if cap(*buf) >= n {
		return (*buf)[:n]
	}
	*buf = make([]T, n)
	return *buf
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
