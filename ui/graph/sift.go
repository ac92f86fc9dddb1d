package graph

import "slices"

// Sifting (Matuszewski, Schönfeld, Molitor): each item in turn is taken out
// of its layer and put back at the position with the fewest crossings with
// the layers above and below. Items move among their siblings (blocks of the
// same cluster), so frames stay contiguous.

// pairCount returns the crossings between the segments of a (left) and b
// (right) towards one adjacent layer, given their neighbours' positions
// sorted ascending: the pairs with a's neighbour right of b's.
func pairCount(a, b []int) int {
	c, j := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		c += j
	}
	return c
}

// siftLayer sifts every item of layer l once; it returns whether any
// crossing was removed.
func (w *work) siftLayer(l int) bool {
	w.fillNeighbours(l)
	up, down := w.nbUp, w.nbDown
	nb := func(it int, upper bool) []int {
		if upper {
			return up[it]
		}
		return down[it]
	}
	cross := func(a, b int) int { // a left of b
		return pairCount(nb(a, true), nb(b, true)) + pairCount(nb(a, false), nb(b, false))
	}
	improved := false
	lists := w.siblingLists(l)
	leaves := func(b int) []int {
		if b >= 0 {
			return []int{b}
		}
		return w.clusters[-1-b].leaves
	}
	for _, kids := range lists {
		// busiest items first
		todo := slices.Clone(kids)
		slices.SortStableFunc(todo, func(a, b int) int {
			if a < 0 || b < 0 {
				return 0
			}
			return (len(w.items[b].up) + len(w.items[b].down)) - (len(w.items[a].up) + len(w.items[a].down))
		})
		for _, it := range todo {
			if it < 0 || len(kids) < 2 {
				continue
			}
			cur := slices.Index(kids, it)
			// crossings relative to putting it first: moving it past block
			// b adds cross(b, it) - cross(it, b)
			if cap(w.delta) < len(kids) {
				w.delta = make([]int, len(kids))
			}
			delta := w.delta[:len(kids)]
			clear(delta)
			for k, b := range kids {
				if b == it {
					continue
				}
				for _, v := range leaves(b) {
					delta[k] += cross(v, it) - cross(it, v)
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
