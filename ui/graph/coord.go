package graph

import (
	"math"
	"sort"
)

// geometry holds the per-orientation spacing rules, in cells. "Major" runs
// along the layers (down in top-down, right in left-right), "minor" across.
type geometry struct {
	boxMajor int // a box's size along the major axis
	gap      int // minor gap between neighbouring items
	padMinor int // a frame's border (and inner margin) across the layer
	padMajor int // a frame's border (and inner margin) along the major axis
	minCh    int // smallest channel between layers
	chPad    int // channel cells beyond the tracks
	chOff    int // offset of the first track in its channel
}

func geometryFor(o Orientation, width int) geometry {
	if o == LeftRight {
		return geometry{boxMajor: width, gap: 2, padMinor: 1, padMajor: 2, minCh: 4, chPad: 2, chOff: 1}
	}
	return geometry{boxMajor: 3, gap: 3, padMinor: 2, padMajor: 1, minCh: 1, chPad: 0, chOff: 0}
}

// sizeItems sets each item's minor size from its kind and port count.
func (w *work) sizeItems(g geometry, ports func(it int) int) {
	for i := range w.items {
		it := &w.items[i]
		k := ports(i)
		switch {
		case it.dummy():
			it.size = 1
		case it.plead:
			it.size = max(1, 2*k-1)
		case w.st.orient == LeftRight:
			it.size = max(4, 2*k+1)
		default:
			it.size = max(w.st.width, k+2)
		}
	}
}

// separations returns the minimum distance between the starts of
// consecutive items of layer l, including the frames that close and open
// between them.
func (w *work) separations(l int, g geometry, sep []int) []int {
	o := w.order[l]
	sep = sep[:0]
	for i := 0; i+1 < len(o); i++ {
		a, b := &w.items[o[i]], &w.items[o[i+1]]
		closed, opened := w.frameChange(a.cl, b.cl)
		gap := g.gap
		if a.dummy() || a.plead || b.dummy() || b.plead {
			// a line next to a box or another line needs one blank cell;
			// boxes keep room for one new line between them
			gap = 1
		}
		sep = append(sep, a.size+gap+g.padMinor*(closed+opened))
	}
	return sep
}

// frameChange counts the clusters left (containing a, not b) and entered
// (containing b, not a) between two neighbouring items.
func (w *work) frameChange(ca, cb int) (closed, opened int) {
	depth := func(c int) int {
		d := 0
		for ; c >= 0; c = w.clusters[c].parent {
			d++
		}
		return d
	}
	da, db := depth(ca), depth(cb)
	for da > db {
		ca = w.clusters[ca].parent
		da--
		closed++
	}
	for db > da {
		cb = w.clusters[cb].parent
		db--
		opened++
	}
	for ca != cb {
		ca, cb = w.clusters[ca].parent, w.clusters[cb].parent
		closed++
		opened++
	}
	return closed, opened
}

// pav places items at x minimising Σ weight·(x-desired)² subject to the
// separations (pool-adjacent-violators on x minus the cumulative offsets).
func pav(desired, weight []float64, sep []int, x []int) {
	n := len(desired)
	if n == 0 {
		return
	}
	off := make([]int, n)
	for i := 1; i < n; i++ {
		off[i] = off[i-1] + sep[i-1]
	}
	type blk struct {
		sw, swx float64
		start   int
	}
	blocks := make([]blk, 0, n)
	for i := 0; i < n; i++ {
		t := desired[i] - float64(off[i])
		b := blk{weight[i], weight[i] * t, i}
		for len(blocks) > 0 {
			p := blocks[len(blocks)-1]
			if p.swx/p.sw < b.swx/b.sw {
				break
			}
			b = blk{p.sw + b.sw, p.swx + b.swx, p.start}
			blocks = blocks[:len(blocks)-1]
		}
		blocks = append(blocks, b)
	}
	for bi, b := range blocks {
		end := n
		if bi+1 < len(blocks) {
			end = blocks[bi+1].start
		}
		z := int(math.Floor(b.swx/b.sw + 0.5))
		for i := b.start; i < end; i++ {
			x[i] = z + off[i]
		}
	}
	// Rounding can make neighbouring blocks touch out of order; push right.
	for i := 1; i < n; i++ {
		if x[i] < x[i-1]+sep[i-1] {
			x[i] = x[i-1] + sep[i-1]
		}
	}
}

func (w *work) center(it int) float64 {
	return float64(w.items[it].x) + float64(w.items[it].size-1)/2
}

func (w *work) segWeight(s int) float64 {
	a, b := w.items[w.segs[s].up].dummy(), w.items[w.segs[s].down].dummy()
	switch {
	case a && b:
		return 8
	case a || b:
		return 2
	}
	return 1
}

// placeLayer moves layer l's items towards the weighted median of their
// neighbours' centres (above, below or both).
func (w *work) placeLayer(l int, g geometry, up, down bool, anchor map[string]int) {
	o := w.order[l]
	if len(o) == 0 {
		return
	}
	desired := make([]float64, len(o))
	weight := make([]float64, len(o))
	type cw struct{ c, w float64 }
	var nb []cw
	for i, it := range o {
		if anchor != nil {
			if x, ok := anchor[w.items[it].key]; ok {
				desired[i], weight[i] = float64(x), 100
				continue
			}
		}
		nb = nb[:0]
		if up {
			for _, s := range w.items[it].up {
				nb = append(nb, cw{w.center(w.segs[s].up), w.segWeight(s)})
			}
		}
		if down {
			for _, s := range w.items[it].down {
				nb = append(nb, cw{w.center(w.segs[s].down), w.segWeight(s)})
			}
		}
		if len(nb) == 0 {
			// Nothing pulls it: sit next to the item on the left.
			desired[i], weight[i] = float64(w.items[it].x), 0.01
			if i > 0 {
				desired[i] = -1e9
			}
			continue
		}
		sort.Slice(nb, func(a, b int) bool { return nb[a].c < nb[b].c })
		total := 0.0
		for _, n := range nb {
			total += n.w
		}
		acc, m := 0.0, nb[0].c
		for k, n := range nb {
			acc += n.w
			if acc*2 > total {
				m = n.c
				break
			}
			if acc*2 == total && k+1 < len(nb) {
				m = (n.c + nb[k+1].c) / 2
				break
			}
		}
		desired[i] = m - float64(w.items[it].size-1)/2
		weight[i] = total
	}
	sep := w.separations(l, g, nil)
	for i := range desired {
		if desired[i] == -1e9 {
			desired[i] = desired[i-1] + float64(sep[i-1])
		}
	}
	x := make([]int, len(o))
	if anchor != nil {
		w.pushAside(o, desired, sep, x, anchor)
	} else {
		pav(desired, weight, sep, x)
	}
	for i, it := range o {
		w.items[it].x = x[i]
	}
}

// assignCoordinates gives every item its minor coordinate. Fresh layouts
// sweep down and up a few times and end with both neighbours; seeded ones
// keep old items where they were (anchor) and place new ones by their
// neighbours.
func (w *work) assignCoordinates(g geometry, anchor map[string]int) {
	L := len(w.order)
	for l := 0; l < L; l++ {
		var sep []int
		sep = w.separations(l, g, sep)
		x := 0
		for i, it := range w.order[l] {
			w.items[it].x = x
			if i < len(sep) {
				x += sep[i]
			}
		}
	}
	if anchor != nil {
		for l := 0; l < L; l++ {
			w.placeLayer(l, g, true, true, anchor)
		}
		for l := L - 1; l >= 0; l-- {
			w.placeLayer(l, g, true, true, anchor)
		}
		return
	}
	iters := 6
	if len(w.segs) > 6000 {
		iters = 2
	}
	for iter := 0; iter < iters; iter++ {
		for l := 1; l < L; l++ {
			w.placeLayer(l, g, true, false, nil)
		}
		for l := L - 2; l >= 0; l-- {
			w.placeLayer(l, g, false, true, nil)
		}
	}
	for iter := 0; iter < 2; iter++ {
		for l := 0; l < L; l++ {
			w.placeLayer(l, g, true, true, nil)
		}
	}
}

// declash nudges dummies sideways (within the slack their layer leaves)
// so that no column carries one long edge out of a layer and a different
// one into the next: such pairs constrain channel routing and can force
// doglegs.
func (w *work) declash(g geometry) {
	L := len(w.order)
	cols := make([]map[int]int, L) // layer → dummy column → edge
	for l := 0; l < L; l++ {
		cols[l] = map[int]int{}
		for _, it := range w.order[l] {
			if w.items[it].dummy() {
				cols[l][w.items[it].x] = w.items[it].edge
			}
		}
	}
	clash := func(l, x, edge int) bool {
		for _, k := range []int{l - 1, l + 1} {
			if k < 0 || k >= L {
				continue
			}
			if e, ok := cols[k][x]; ok && e != edge {
				return true
			}
		}
		return false
	}
	var sep []int
	for l := 0; l < L; l++ {
		o := w.order[l]
		sep = w.separations(l, g, sep)
		for i, it := range o {
			d := &w.items[it]
			if !d.dummy() || !clash(l, d.x, d.edge) {
				continue
			}
			lo, hi := -1<<30, 1<<30
			if i > 0 {
				lo = w.items[o[i-1]].x + sep[i-1]
			}
			if i+1 < len(o) {
				hi = w.items[o[i+1]].x - sep[i]
			}
			for _, dx := range []int{1, -1, 2, -2, 3, -3} {
				x := d.x + dx
				if x < lo || x > hi || clash(l, x, d.edge) {
					continue
				}
				if _, taken := cols[l][x]; taken {
					continue
				}
				delete(cols[l], d.x)
				d.x = x
				cols[l][x] = d.edge
				break
			}
		}
	}
}

// pushAside places a seeded layer: old items stay where they were and new
// ones go where their neighbours want them; overlaps are resolved by
// pushing items to one side only (right, or left when that moves fewer old
// items), so a new atom disturbs as few others as the gaps allow.
func (w *work) pushAside(o []int, desired []float64, sep []int, x []int, anchor map[string]int) {
	n := len(o)
	right := make([]int, n)
	left := make([]int, n)
	for i := range o {
		right[i] = int(math.Floor(desired[i] + 0.5))
		left[i] = right[i]
	}
	for i := 1; i < n; i++ {
		right[i] = max(right[i], right[i-1]+sep[i-1])
	}
	for i := n - 2; i >= 0; i-- {
		left[i] = min(left[i], left[i+1]-sep[i])
	}
	moved := func(p []int) int {
		m := 0
		for i, it := range o {
			if a, ok := anchor[w.items[it].key]; ok && a != p[i] {
				m++
			}
		}
		return m
	}
	if moved(left) < moved(right) {
		copy(x, left)
	} else {
		copy(x, right)
	}
}
