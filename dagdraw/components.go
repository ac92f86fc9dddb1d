package dagdraw

import "slices"

// parts labels the connected parts of the layered graph: items joined by
// segments or by sharing a cluster. It returns each item's part (0..n-1)
// and the number of parts.
func (w *work) parts() ([]int32, int) {
	n := len(w.items)
	uf := newUnionFind(n)
	for _, s := range w.segs {
		uf.union(s.up, s.down)
	}
	for _, c := range w.clusters {
		for _, it := range c.leaves[min(1, len(c.leaves)):] {
			uf.union(c.leaves[0], it)
		}
	}
	label := make([]int32, n)
	for i := range label {
		label[i] = -1
	}
	k := int32(0)
	for i := range n {
		r := uf.find(i)
		if label[r] < 0 {
			label[r] = k
			k++
		}
		label[i] = label[r]
	}
	return label, int(k)
}

// arrangeParts orders every layer by part, then by pos within a part, so
// each part's items are contiguous, as dot lays out components side by
// side. The order within each part is kept (pos must follow it), so
// crossings between two segments of one part do not change and crossings
// between parts are gone: the total never grows. Parts are placed by their
// items' mean relative position in the current order, so the drawing keeps
// its overall arrangement. Clusters stay contiguous: a cluster's leaves are
// consecutive and of one part.
func (w *work) arrangeParts(part []int32, nparts int, pos []float64) {
	mean := make([]float64, nparts)
	cnt := make([]int32, nparts)
	for _, layer := range w.order {
		for k, it := range layer {
			mean[part[it]] += (float64(k) + 0.5) / float64(len(layer))
			cnt[part[it]]++
		}
	}
	idx := make([]int, nparts)
	for p := range idx {
		idx[p] = p
		mean[p] /= float64(max(cnt[p], 1))
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case mean[a] < mean[b]:
			return -1
		case mean[a] > mean[b]:
			return 1
		}
		return 0
	})
	rank := make([]float64, nparts)
	for k, p := range idx {
		rank[p] = float64(k)
	}
	scale := float64(len(w.items) + 1)
	w.initOrder(func(it int) float64 { return rank[part[it]]*scale + pos[it] })
}

// bestParts keeps, part by part, the best of several orders: each call to
// offer gives the current order of w; apply orders w with every part as in
// the offer where it crossed least.
type bestParts struct {
	part   []int32
	nparts int
	best   []int     // least crossings of each part so far
	pos    []float64 // each item's position in its part's best offer
	cr     []int
	// start is each item's first index in its layer when the layer is
	// ordered by part (parts in number order, each part's items
	// contiguous): the slots its part takes there. Part sizes per layer do
	// not depend on the order, so it is fixed.
	start  []int32
	better []bool  // per part: the offer being judged is its best
	local  []int32 // per part: items placed so far in the current layer
	ins    []int32 // per part: segments inserted so far in the current layer pair
	slot   []int32 // each item's index in its layer ordered by part
	tree   []int32
	downs  []int32
}

// newBestParts returns nil when one part holds nearly every item (long
// strands joined into one): judging parts would cost and gain nothing.
func (w *work) newBestParts() *bestParts {
	part, n := w.parts()
	if n < 2 {
		return nil
	}
	size := make([]int, n)
	for _, p := range part {
		size[p]++
	}
	if slices.Max(size)*10 > len(part)*9 {
		return nil
	}
	b := &bestParts{part: part, nparts: n, best: make([]int, n), cr: make([]int, n),
		start: make([]int32, len(part)), local: make([]int32, n), ins: make([]int32, n),
		slot: make([]int32, len(part)), better: make([]bool, n), pos: make([]float64, len(part))}
	for i := range b.best {
		b.best[i] = -1
	}
	// a layer's items sorted by part: each part's first index is its start
	var sorted []int
	for _, layer := range w.order {
		sorted = append(sorted[:0], layer...)
		slices.SortStableFunc(sorted, func(x, y int) int { return int(part[x] - part[y]) })
		first := 0
		for k, it := range sorted {
			if part[it] != part[sorted[first]] {
				first = k
			}
			b.start[it] = int32(first)
		}
	}
	return b
}

// partCrossings sets b.cr, per part, to the crossings between its own
// segments in w's current order. Segments of one part cross as they would
// with the parts laid side by side (see arrangeParts), which keeps each
// part's order: each part is counted in its own slots of an accumulator
// tree, so w's order is not touched.
func (b *bestParts) partCrossings(w *work) {
	clear(b.cr)
	part := b.part
	for _, layer := range w.order {
		for _, it := range layer {
			p := part[it]
			b.slot[it] = b.start[it] + b.local[p]
			b.local[p]++
		}
		for _, it := range layer {
			b.local[part[it]] = 0
		}
	}
	for l := 0; l+1 < len(w.order); l++ {
		size := len(w.order[l+1])
		b.tree = resize(b.tree, size+1)
		tree := b.tree
		clear(tree)
		for _, it := range w.order[l] {
			ds := w.downSegs(it)
			p := part[it]
			if len(ds) == 0 || b.best[p] == 0 {
				// a part whose best crosses nothing cannot do better:
				// it is not counted (its count stays 0)
				continue
			}
			// the part's slots in layer l+1 start here: segments of
			// parts further left end before them
			left := bitSum(tree, int(b.start[w.segs[ds[0]].down]))
			downs := b.downs[:0]
			for _, s := range ds {
				downs = append(downs, b.slot[w.segs[s].down])
			}
			insertionSort(downs)
			b.downs = downs
			for _, d := range downs {
				// segments of p inserted before, ending right of d
				b.cr[p] += int(b.ins[p] - (bitSum(tree, int(d)+1) - left))
				bitAdd(tree, int(d)+1)
				b.ins[p]++
			}
		}
		for _, it := range w.order[l] {
			b.ins[part[it]] = 0
		}
	}
}

// offer judges w's current order part by part; w's order is not changed.
// It reports whether the parts' best crossings fell in all.
func (b *bestParts) offer(w *work) bool {
	b.partCrossings(w)
	gain := 0
	for p, c := range b.cr {
		if b.best[p] < 0 || c < b.best[p] {
			if b.best[p] < 0 {
				gain++
			} else {
				gain += b.best[p] - c
			}
			b.best[p] = c
			b.better[p] = true
		}
	}
	for it, p := range b.part {
		if b.better[p] {
			b.pos[it] = float64(w.pos[it])
		}
	}
	clear(b.better)
	return gain > 0
}

// apply orders w by the best offers and returns its crossings.
func (b *bestParts) apply(w *work) int {
	w.arrangeParts(b.part, b.nparts, b.pos)
	return w.totalCrossings()
}
