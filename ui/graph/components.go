package graph

import "slices"

// parts labels the connected parts of the layered graph: items joined by
// segments or by sharing a cluster. It returns each item's part (0..n-1)
// and the number of parts.
func (w *work) parts() ([]int32, int) {
	n := len(w.items)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		if ra, rb := find(int32(a)), find(int32(b)); ra != rb {
			parent[ra] = rb
		}
	}
	for _, s := range w.segs {
		union(s.up, s.down)
	}
	for _, c := range w.clusters {
		for _, it := range c.leaves[min(1, len(c.leaves)):] {
			union(c.leaves[0], it)
		}
	}
	label := make([]int32, n)
	for i := range label {
		label[i] = -1
	}
	k := int32(0)
	for i := range parent {
		r := find(int32(i))
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

// positions returns every item's index in its layer's order.
func (w *work) positions(dst []float64) []float64 {
	dst = resize(dst, len(w.items))
	for _, layer := range w.order {
		for k, it := range layer {
			dst[it] = float64(k)
		}
	}
	return dst
}

// partCrossings adds to cr, per part, the crossings between its segments.
// The order must have no crossings between parts (see arrangeParts): each
// crossing is then counted for the part of the segment that closes it.
func (w *work) partCrossings(part []int32, cr []int) {
	var tree []int32
	var downs []int32
	for l := 0; l+1 < len(w.order); l++ {
		size := len(w.order[l+1])
		tree = resize(tree, size+1)
		clear(tree)
		inserted := int32(0)
		for _, it := range w.order[l] {
			downs = downs[:0]
			for _, s := range w.downSegs(it) {
				downs = append(downs, w.pos[w.segs[s].down])
			}
			slices.Sort(downs)
			for _, d := range downs {
				// inserted segments ending at or left of d
				le := int32(0)
				for i := int(d) + 1; i > 0; i -= i & -i {
					le += tree[i]
				}
				cr[part[it]] += int(inserted - le)
				for i := int(d) + 1; i <= size; i += i & -i {
					tree[i]++
				}
				inserted++
			}
		}
	}
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
	b := &bestParts{part: part, nparts: n, best: make([]int, n), cr: make([]int, n)}
	for i := range b.best {
		b.best[i] = -1
	}
	return b
}

func (b *bestParts) offer(w *work) {
	pos := w.positions(nil)
	w.arrangeParts(b.part, b.nparts, pos)
	clear(b.cr)
	w.partCrossings(b.part, b.cr)
	pos = w.positions(pos)
	if b.pos == nil {
		b.pos = make([]float64, len(w.items))
	}
	better := make([]bool, b.nparts)
	for p, c := range b.cr {
		if b.best[p] < 0 || c < b.best[p] {
			b.best[p] = c
			better[p] = true
		}
	}
	for it, p := range b.part {
		if better[p] {
			b.pos[it] = pos[it]
		}
	}
}

// apply orders w by the best offers and returns its crossings.
func (b *bestParts) apply(w *work) int {
	w.arrangeParts(b.part, b.nparts, b.pos)
	return w.totalCrossings()
}

// offerKeep offers the current order and leaves w's order as it was.
func (b *bestParts) offerKeep(w *work) {
	s := &w.scratch.offer
	w.snapshotInto(s)
	b.offer(w)
	w.restore(s)
}
