package dagdraw

import (
	"math"
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

// geometryFor is the spacing of an orientation with boxes width cells
// wide holding lines rows of text (top-down; left-right boxes are sized
// across the layers in sizeItems).
func geometryFor(o Orientation, width, lines int) geometry {
	if o == LeftRight {
		return geometry{boxMajor: width, gap: 2, padMinor: 1, padMajor: 2, minCh: 4, chPad: 2, chOff: 1}
	}
	return geometry{boxMajor: 2 + max(1, lines), gap: 3, padMinor: 2, padMajor: 1, minCh: 1, chPad: 0, chOff: 0}
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
			it.size = max(2+w.st.lines, 2*k+1)
		default:
			it.size = max(w.st.width, k+2)
		}
	}
}

// separations returns the minimum distance between the starts of
// consecutive items of layer l, including the frames that close and open
// between them.
// The separations are appended to sep.
func (w *work) separations(l int, g geometry, sep []int) []int {
	o := w.order[l]
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
// sc holds reusable buffers.
func pav(desired, weight []float64, sep []int, x []int, sc *coordScratch) {
	n := len(desired)
	if n == 0 {
		return
	}
	off := resize(sc.off, n)
	sc.off = off
	off[0] = 0
	for i := 1; i < n; i++ {
		off[i] = off[i-1] + sep[i-1]
	}
	blocks := sc.blocks[:0]
	for i := 0; i < n; i++ {
		t := desired[i] - float64(off[i])
		b := pavBlock{weight[i], weight[i] * t, i}
		for len(blocks) > 0 {
			p := blocks[len(blocks)-1]
			if p.swx/p.sw < b.swx/b.sw {
				break
			}
			b = pavBlock{p.sw + b.sw, p.swx + b.swx, p.start}
			blocks = blocks[:len(blocks)-1]
		}
		blocks = append(blocks, b)
	}
	sc.blocks = blocks
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

type pavBlock struct {
	sw, swx float64
	start   int
}

// coordScratch holds what coordinate assignment computes once or reuses:
// each layer's separations (the order is fixed by then), the previous
// layout's coordinate of each item (seeded layouts) and buffers.
type coordScratch struct {
	sepOff   []int // layer l's separations are sep[sepOff[l]:sepOff[l+1]]
	sep      []int
	anchored []bool
	anchorX  []int
	desired  []float64
	weight   []float64
	x        []int
	nb       []centerWeight
	off      []int
	blocks   []pavBlock
	// each item's centre, kept with its x while coordinates are assigned,
	// and each segment's weight: compact copies of what placeLayer reads
	// for every neighbour
	cx []float64
	sw []float64
}

type centerWeight struct{ c, w float64 }

// prepareCoordinates caches the separations of every layer and the anchor
// of every item.
func (w *work) prepareCoordinates(g geometry, seed []seedPos) {
	sc := &w.coord
	sc.sepOff = resize(sc.sepOff, len(w.order)+1)
	if sc.sep == nil {
		sc.sep = make([]int, 0, len(w.items))
	}
	sc.sep = sc.sep[:0]
	for l := range w.order {
		sc.sepOff[l] = len(sc.sep)
		sc.sep = w.separations(l, g, sc.sep)
	}
	sc.sepOff[len(w.order)] = len(sc.sep)
	sc.cx = resize(sc.cx, len(w.items))
	sc.sw = resize(sc.sw, len(w.segs))
	for s := range w.segs {
		sc.sw[s] = w.segWeight(s)
	}
	sc.anchored = sc.anchored[:0]
	if seed != nil {
		sc.anchored = resize(sc.anchored, len(w.items))
		sc.anchorX = resize(sc.anchorX, len(w.items))
		for i, p := range seed {
			sc.anchorX[i], sc.anchored[i] = int(p.x), p.ok
		}
	}
}

// layerSeps is the cached separations of layer l.
func (w *work) layerSeps(l int) []int {
	return w.coord.sep[w.coord.sepOff[l]:w.coord.sepOff[l+1]]
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
// neighbours' centres (above, below or both). Seeded layouts keep anchored
// items where they were (see pushAside).
func (w *work) placeLayer(l int, up, down, seeded bool) {
	o := w.order[l]
	if len(o) == 0 {
		return
	}
	sc := &w.coord
	desired := resize(sc.desired, len(o))
	weight := resize(sc.weight, len(o))
	sc.desired, sc.weight = desired, weight
	nb := sc.nb
	for i, it := range o {
		if seeded && sc.anchored[it] {
			desired[i], weight[i] = float64(sc.anchorX[it]), 100
			continue
		}
		nb = nb[:0]
		if up {
			for k := w.upOff[it]; k < w.upOff[it+1]; k++ {
				nb = append(nb, centerWeight{sc.cx[w.upNb[k]], sc.sw[w.upSeg[k]]})
			}
		}
		if down {
			for k := w.downOff[it]; k < w.downOff[it+1]; k++ {
				nb = append(nb, centerWeight{sc.cx[w.downNb[k]], sc.sw[w.downSeg[k]]})
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
		// The order of equal centres does not change the weighted median.
		for a := 1; a < len(nb); a++ {
			for b := a; b > 0 && nb[b].c < nb[b-1].c; b-- {
				nb[b], nb[b-1] = nb[b-1], nb[b]
			}
		}
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
	sc.nb = nb
	sep := w.layerSeps(l)
	for i := range desired {
		if desired[i] == -1e9 {
			desired[i] = desired[i-1] + float64(sep[i-1])
		}
	}
	x := resize(sc.x, len(o))
	sc.x = x
	if seeded {
		w.pushAside(o, desired, sep, x)
	} else {
		pav(desired, weight, sep, x, sc)
	}
	for i, it := range o {
		w.setX(it, x[i])
	}
}

// setX places item it at x, keeping its centre for placeLayer.
func (w *work) setX(it, x int) {
	w.items[it].x = x
	w.coord.cx[it] = float64(x) + float64(w.items[it].size-1)/2
}

// assignCoordinates gives every item its minor coordinate. Fresh layouts
// sweep down and up a few times and end with both neighbours; seeded ones
// keep old items where they were (anchor) and place new ones by their
// neighbours.
func (w *work) assignCoordinates(g geometry, seed []seedPos) {
	w.prepareCoordinates(g, seed)
	L := len(w.order)
	for l := 0; l < L; l++ {
		sep := w.layerSeps(l)
		x := 0
		for i, it := range w.order[l] {
			w.setX(it, x)
			if i < len(sep) {
				x += sep[i]
			}
		}
	}
	if seed != nil {
		for l := 0; l < L; l++ {
			w.placeLayer(l, true, true, true)
		}
		for l := L - 1; l >= 0; l-- {
			w.placeLayer(l, true, true, true)
		}
		return
	}
	iters := 6
	if len(w.segs) > 6000 {
		iters = 2
	}
	for iter := 0; iter < iters; iter++ {
		for l := 1; l < L; l++ {
			w.placeLayer(l, true, false, false)
		}
		for l := L - 2; l >= 0; l-- {
			w.placeLayer(l, false, true, false)
		}
	}
	for iter := 0; iter < 2; iter++ {
		for l := 0; l < L; l++ {
			w.placeLayer(l, true, true, false)
		}
	}
}

// declash nudges dummies sideways (within the slack their layer leaves)
// so that no column carries one long edge out of a layer and a different
// one into the next: such pairs constrain channel routing and can force
// doglegs.
func (w *work) declash() {
	L := len(w.order)
	// dummyAt finds the dummy of layer k at column x: x grows strictly
	// along each layer's order (and moves below keep it so).
	dummyAt := func(k, x int) (edge int, ok bool) {
		o := w.order[k]
		i, j := 0, len(o)
		for i < j {
			h := int(uint(i+j) >> 1)
			if w.items[o[h]].x < x {
				i = h + 1
			} else {
				j = h
			}
		}
		if i < len(o) && w.items[o[i]].x == x && w.items[o[i]].dummy() {
			return w.items[o[i]].edge, true
		}
		return 0, false
	}
	clash := func(l, x, edge int) bool {
		for _, k := range [2]int{l - 1, l + 1} {
			if k < 0 || k >= L {
				continue
			}
			if e, ok := dummyAt(k, x); ok && e != edge {
				return true
			}
		}
		return false
	}
	for l := 0; l < L; l++ {
		o := w.order[l]
		sep := w.layerSeps(l)
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
			// within [lo, hi] no other item of the layer can sit
			for _, dx := range [6]int{1, -1, 2, -2, 3, -3} {
				x := d.x + dx
				if x < lo || x > hi || clash(l, x, d.edge) {
					continue
				}
				d.x = x
				break
			}
		}
	}
}

// pushAside places a seeded layer: old items stay where they were and new
// ones go where their neighbours want them; overlaps are resolved by
// pushing items to one side only (right, or left when that moves fewer old
// items), so a new atom disturbs as few others as the gaps allow.
func (w *work) pushAside(o []int, desired []float64, sep []int, x []int) {
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
	sc := &w.coord
	moved := func(p []int) int {
		m := 0
		for i, it := range o {
			if sc.anchored[it] && sc.anchorX[it] != p[i] {
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
