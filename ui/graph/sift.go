package graph

import "slices"

// Sifting (Matuszewski, Schönfeld, Molitor): each item in turn is taken out
// of its layer and put back at the position with the fewest crossings with
// the layers above and below. Items move among their siblings (blocks of the
// same cluster), so frames stay contiguous.

// pairCounts returns the crossings between the segments of a and b towards
// one adjacent layer, given their neighbours' positions sorted ascending:
// keep with a left of b (the pairs with a's neighbour right of b's), swap
// with b left of a.
func pairCounts(a, b []int32) (keep, swap int) {
	j, k := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		for k < len(b) && b[k] <= x {
			k++
		}
		keep += j
		swap += len(b) - k
	}
	return keep, swap
}

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

// siftLayer sifts every item of layer l once; it returns whether any
// crossing was removed.
func (w *work) siftLayer(l int) bool {
	w.fillNeighbours(l)
	var dUp, dDown []int32
	if l > 0 {
		w.scratch.dUp = resize(w.scratch.dUp, len(w.order[l-1]))
		dUp = w.scratch.dUp
	}
	if l+1 < len(w.order) {
		w.scratch.dDown = resize(w.scratch.dDown, len(w.order[l+1]))
		dDown = w.scratch.dDown
	}
	// cost of item v against the item being sifted
	cost := func(v int) int {
		c := int32(0)
		for _, q := range w.ups(v) {
			c += dUp[q]
		}
		for _, q := range w.downs(v) {
			c += dDown[q]
		}
		return int(c)
	}
	// Items that cross nothing cannot gain by moving.
	cr := w.itemCrossings(l)
	improved := false
	lists := w.siblingLists(l)
	for _, kids := range lists {
		// busiest items first
		todo := append(w.scratch.todo[:0], kids...)
		w.scratch.todo = todo
		slices.SortStableFunc(todo, func(a, b int) int {
			if a < 0 || b < 0 {
				return 0
			}
			return (len(w.items[b].up) + len(w.items[b].down)) - (len(w.items[a].up) + len(w.items[a].down))
		})
		for _, it := range todo {
			if it < 0 || len(kids) < 2 || cr[it] == 0 {
				continue
			}
			cur := slices.Index(kids, it)
			siftDelta(dUp, w.ups(it))
			siftDelta(dDown, w.downs(it))
			// crossings relative to putting it first: moving it past block
			// b adds cross(b, it) - cross(it, b)
			w.scratch.delta = resize(w.scratch.delta, len(kids))
			delta := w.scratch.delta
			for k, b := range kids {
				switch {
				case b == it:
					delta[k] = 0
				case b >= 0:
					delta[k] = cost(b)
				default:
					delta[k] = 0
					for _, v := range w.clusters[-1-b].leaves {
						delta[k] += cost(v)
					}
				}
			}
			best, bestAt, acc := 0, 0, 0
			curVal := 0
			at := 0
			for k, b := range kids {
				if b == it {
					curVal = acc
					continue
				}
				acc += delta[k]
				at++
				if acc < best {
					best, bestAt = acc, at
				}
			}
			if best >= curVal {
				continue
			}
			copy(kids[cur:], kids[cur+1:])
			kids = kids[:len(kids)-1]
			kids = slices.Insert(kids, bestAt, it)
			w.flatten(l)
			improved = true
			// positions in this layer changed; neighbours' lists of the
			// adjacent layers are not used here, ours stay valid
		}
	}
	return improved
}

// sift runs sifting rounds over all layers until a round removes nothing.
func (w *work) sift(rounds int) {
	for r := 0; r < rounds; r++ {
		improved := false
		for l := range w.order {
			if w.siftLayer(l) {
				improved = true
			}
		}
		for l := len(w.order) - 1; l >= 0; l-- {
			if w.siftLayer(l) {
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
