package dagdraw

import "slices"

// Sifting (Matuszewski, Schönfeld, Molitor): each item in turn is taken out
// of its layer and put back at the position with the fewest crossings with
// the layers above and below. Items move among their siblings (blocks of the
// same cluster), so frames stay contiguous.

// siftDelta fills d, indexed by position in an adjacent layer, with the
// change in crossings of a segment ending at that position when the item
// whose (sorted) neighbour positions are ps moves from its right to its
// left: the neighbours left of it minus those right of it.
func siftDelta(d []int32, ps []int32) {
	n := int32(len(ps))
	j, lt := 0, int32(0)
	for q := range d {
		for j < len(ps) && ps[j] < int32(q) {
			j++
			lt++
		}
		eq := int32(0)
		for k := j; k < len(ps) && ps[k] == int32(q); k++ {
			eq++
		}
		d[q] = 2*lt + eq - n
	}
}

// siftReach is how many places either way sifting moves an item at most:
// enough for the moves that pay (measured), at a fraction of the cost.
const siftReach = 4

// siftLayer sifts every item of layer l once, busiest first; it returns
// whether any crossing was removed.
func (w *work) siftLayer(l int) bool {
	w.fillNeighbours(l)
	// Items that cross nothing cannot gain by moving.
	cr := w.itemCrossings(l)
	improved := false
	for _, kids := range w.siblingLists(l) {
		todo := append(w.scratch.todo[:0], kids...)
		w.scratch.todo = todo
		slices.SortStableFunc(todo, func(a, b int) int {
			if a < 0 || b < 0 {
				return 0
			}
			return w.degree(b) - w.degree(a)
		})
		for _, it := range todo {
			if it < 0 || len(kids) < 2 || cr[it] == 0 {
				continue
			}
			if w.siftNear(l, kids, slices.Index(kids, it), siftReach) {
				improved = true
			}
		}
	}
	return improved
}

// sift runs sifting rounds over all layers until a round removes nothing.
func (w *work) sift(rounds int) {
	sc := &w.scratch
	if len(sc.siftSeen) != len(w.order) {
		sc.siftSeen = resize(sc.siftSeen, len(w.order))
		for l := range sc.siftSeen {
			sc.siftSeen[l] = -1
		}
	}
	// A layer sifted without gain, whose neighbourhood did not change
	// since, would sift without gain again.
	layer := func(l int) bool {
		if sc.siftSeen[l] >= w.lastChange(l-1, l+1) {
			return false
		}
		if w.siftLayer(l) {
			return true
		}
		sc.siftSeen[l] = sc.clock
		return false
	}
	for r := 0; r < rounds; r++ {
		improved := false
		for l := range w.order {
			if layer(l) {
				improved = true
			}
		}
		for l := len(w.order) - 1; l >= 0; l-- {
			if layer(l) {
				improved = true
			}
		}
		if !improved {
			return
		}
	}
}

// itemCrossings returns, indexed by item, the crossings of the segments of
// layer l's items (valid for those items only).
func (w *work) itemCrossings(l int) []int32 {
	sc := &w.chain
	sc.cr = resize(sc.cr, len(w.segs))
	if l > 0 {
		w.segCrossings(l-1, sc.cr)
	}
	w.segCrossings(l, sc.cr)
	w.scratch.itemCr = resize(w.scratch.itemCr, len(w.items))
	out := w.scratch.itemCr
	for _, it := range w.order[l] {
		c := int32(0)
		for _, s := range w.upSeg[w.upOff[it]:w.upOff[it+1]] {
			c += sc.cr[s]
		}
		for _, s := range w.downSeg[w.downOff[it]:w.downOff[it+1]] {
			c += sc.cr[s]
		}
		out[it] = c
	}
	return out
}

// dval is siftDelta's entry for position q: the neighbours in ps (sorted)
// left of q minus those right of it.
func dval(ps []int32, q int32) int32 {
	lt, gt := int32(0), int32(0)
	for _, p := range ps {
		if p < q {
			lt++
		} else if p > q {
			gt++
		}
	}
	return lt - gt
}

// siftNear moves kids[cur] to the best position within k places of where
// it is, if that removes crossings.
func (w *work) siftNear(l int, kids []int, cur, k int) bool {
	it := kids[cur]
	ups, downs := w.ups(it), w.downs(it)
	cost := func(v int) int {
		c := int32(0)
		for _, q := range w.ups(v) {
			c += dval(ups, q)
		}
		for _, q := range w.downs(v) {
			c += dval(downs, q)
		}
		return int(c)
	}
	block := func(b int) int {
		if b >= 0 {
			return cost(b)
		}
		c := 0
		for _, v := range w.clusters[-1-b].leaves {
			c += cost(v)
		}
		return c
	}
	lo, hi := max(0, cur-k), min(len(kids)-1, cur+k)
	// value of each target relative to staying: left of cur, passing
	// blocks lo..cur-1 changes crossings by -Σ delta; right, by +Σ delta
	best, bestAt := 0, cur
	acc := 0
	left := w.scratch.delta[:0]
	for x := cur - 1; x >= lo; x-- {
		acc -= block(kids[x])
		left = append(left, acc)
	}
	w.scratch.delta = left
	for i := len(left) - 1; i >= 0; i-- { // leftmost first
		if left[i] < best {
			best, bestAt = left[i], cur-1-i
		}
	}
	acc = 0
	for x := cur + 1; x <= hi; x++ {
		acc += block(kids[x])
		if acc < best {
			best, bestAt = acc, x
		}
	}
	if bestAt == cur {
		return false
	}
	// Move it from cur to bestAt inside kids (the caller's slice: the
	// length does not change, so this stays in its backing array).
	if bestAt < cur {
		copy(kids[bestAt+1:cur+1], kids[bestAt:cur])
	} else {
		copy(kids[cur:bestAt], kids[cur+1:bestAt+1])
	}
	kids[bestAt] = it
	w.flatten(l)
	return true
}
