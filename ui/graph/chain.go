package graph

import "slices"

// Long edges are chains of dummies, one per layer they pass. Median sweeps,
// transposition and sifting move one item at a time, and a dummy pulled
// off its chain's line adds crossings on both sides, so a long edge that
// crosses many others tends to stay where it is. rerouteChains moves whole
// chains instead: with everything else fixed, the best route of a chain
// through its layers is a shortest path, found by a dynamic programme over
// the layers whose states are the slots (between root blocks, where
// dummies may go) near the chain's current route.

// chainScratch holds the buffers of rerouteChain.
type chainScratch struct {
	old    []int   // root index each dummy had
	lo     []int   // first candidate slot (root index) per layer of the chain
	grid   []int32 // 2-D prefix counts of one layer pair over candidates
	prev   []int
	cur    []int
	choice []int32 // arg min per layer and lower candidate
	cOff   []int
	up     []int32 // positions of the candidates of the upper layer
	down   []int32
	rowOf  []int32 // position in the upper layer → grid row
	colOf  []int32
	cr     []int32 // crossings of each segment
	bit    []int32
	sel    []int
	slots  []int32
}

// chainWindow is how many slots either side of its current one a dummy
// may move to in one reroute.
var chainWindow = 8

// segCrossings sets cr[s], for every segment s between layers l and l+1,
// to the number of segments crossing it.
func (w *work) segCrossings(l int, cr []int32) {
	if l+1 >= len(w.order) {
		return
	}
	q := len(w.order[l+1])
	sc := &w.chain
	sc.bit = resize(sc.bit, q+1)
	bit := sc.bit
	clear(bit)
	// left to right: earlier upper ends with a lower end further right
	inserted := int32(0)
	for _, it := range w.order[l] {
		lo, hi := w.downOff[it], w.downOff[it+1]
		for k := lo; k < hi; k++ {
			b := w.pos[w.downNb[k]]
			cr[w.downSeg[k]] = inserted - bitSum(bit, int(b)+1) // b' > b
		}
		for k := lo; k < hi; k++ {
			bitAdd(bit, int(w.pos[w.downNb[k]])+1)
			inserted++
		}
	}
	clear(bit)
	o := w.order[l]
	for x := len(o) - 1; x >= 0; x-- {
		it := o[x]
		lo, hi := w.downOff[it], w.downOff[it+1]
		for k := lo; k < hi; k++ {
			b := w.pos[w.downNb[k]]
			cr[w.downSeg[k]] += bitSum(bit, int(b)) // b' < b
		}
		for k := lo; k < hi; k++ {
			bitAdd(bit, int(w.pos[w.downNb[k]])+1)
		}
	}
}

// bitSum is the sum of the first i entries of the Fenwick tree bit.
func bitSum(bit []int32, i int) int32 {
	s := int32(0)
	for ; i > 0; i -= i & -i {
		s += bit[i]
	}
	return s
}

func bitAdd(bit []int32, i int) {
	for ; i < len(bit); i += i & -i {
		bit[i]++
	}
}

// rerouteChains reroutes, in edge order, every long edge that crosses
// something, each along its best route given the others. It returns the
// crossings removed.
func (w *work) rerouteChains() int {
	sc := &w.chain
	sc.cr = resize(sc.cr, len(w.segs))
	for l := 0; l+1 < len(w.order); l++ {
		w.segCrossings(l, sc.cr)
	}
	gain := 0
	for e, segs := range w.edgeSegs {
		if len(segs) < 2 {
			continue
		}
		c := int32(0)
		for _, s := range segs {
			c += sc.cr[s]
		}
		if c > 0 {
			gain += w.rerouteChain(e)
		}
	}
	return gain
}

// rerouteChain moves the dummies of edge e to the route with the fewest
// crossings (ties: the fewest dummies moved) and returns the crossings
// removed.
func (w *work) rerouteChain(e int) int {
	segs := w.edgeSegs[e]
	m := len(segs) - 1
	sc := &w.chain
	u := w.segs[segs[0]].up
	v := w.segs[segs[m]].down
	r := w.items[u].layer
	sc.old = resize(sc.old, m+1)
	sc.lo = resize(sc.lo, m+1)
	for k := 1; k <= m; k++ {
		d := w.segs[segs[k]].up
		l := r + k
		ri := w.rootIndex(l, d)
		sc.old[k] = ri
		w.roots[l] = slices.Delete(w.roots[l], ri, ri+1)
		w.flatten(l)
	}
	pu, pv := w.pos[u], w.pos[v]
	scale := m + 1
	sc.prev = append(sc.prev[:0], 0)
	sc.cOff = sc.cOff[:0]
	sc.choice = sc.choice[:0]
	oldCost := 0
	// candidate positions of the upper layer and the old one's index; a
	// fixed end p is given as [p, p+1] (p+1 to count the segments right
	// of it)
	up := append(sc.up[:0], pu, pu+1)
	oldUp := 0
	for k := 0; k <= m; k++ {
		l := r + k
		var down []int32
		oldDown := 0
		if k < m {
			all := w.slotPositions(l+1, &sc.slots)
			lo := max(0, sc.old[k+1]-chainWindow)
			hi := min(len(all), sc.old[k+1]+chainWindow+1)
			sc.lo[k+1] = lo
			down = append(sc.down[:0], all[lo:hi]...)
			oldDown = sc.old[k+1] - lo
		} else {
			down = append(sc.down[:0], pv, pv+1)
		}
		// g[x*nc+y] counts the segments with a < up[x] and b < down[y];
		// row len(up) and column len(down) stand for "anywhere".
		nr, nc := len(up)+1, len(down)+1
		sc.grid = resize(sc.grid, nr*nc)
		g := sc.grid
		clear(g)
		rowOf := w.bucketer(l, up, &sc.rowOf)
		colOf := w.bucketer(l+1, down, &sc.colOf)
		skip := int32(-1)
		if k == 0 {
			skip = int32(segs[0])
		}
		for _, it := range w.order[l] {
			x := int(rowOf.of(w.pos[it])) * nc
			for s := w.downOff[it]; s < w.downOff[it+1]; s++ {
				if w.downSeg[s] != skip {
					g[x+int(colOf.of(w.pos[w.downNb[s]]))]++
				}
			}
		}
		// A segment sits in row x when exactly x candidates lie at or
		// before its upper end (column likewise); summing the cells before
		// and at (x, y) counts a < up[x], b < down[y].
		for y := 1; y < nc; y++ {
			g[y] += g[y-1]
		}
		for x := 1; x < nr; x++ {
			row, prow := g[x*nc:(x+1)*nc], g[(x-1)*nc:x*nc]
			run := int32(0)
			for y := range row {
				run += row[y]
				row[y] = prow[y] + run
			}
		}
		at := func(x, y int) int { return int(g[x*nc+y]) }
		ax, by := nr-1, nc-1
		sc.cur = resize(sc.cur, nc-1)
		sc.cOff = append(sc.cOff, len(sc.choice))
		switch {
		case k == 0 && k == m:
		case k == 0: // u fixed at up[0]; its own segments never cross ours
			left := at(0, by)
			oldCost += left - at(0, oldDown) + at(ax, oldDown) - at(1, oldDown)
			for jj := 0; jj < len(down); jj++ {
				c := (left-at(0, jj)+at(ax, jj)-at(1, jj))*scale + sc.prev[0]
				if jj != oldDown {
					c++
				}
				sc.cur[jj] = c
				sc.choice = append(sc.choice, 0)
			}
		case k == m: // v fixed at down[0]
			oldCost += at(oldUp, by) - at(oldUp, 1) + at(ax, 0) - at(oldUp, 0)
			best, arg := -1, 0
			for ii := 0; ii < len(up); ii++ {
				c := sc.prev[ii] + (at(ii, by)-at(ii, 1)+at(ax, 0)-at(ii, 0))*scale
				if best < 0 || c < best {
					best, arg = c, ii
				}
			}
			sc.cur = sc.cur[:1]
			sc.cur[0] = best
			sc.choice = append(sc.choice, int32(arg))
		default:
			oldCost += at(oldUp, by) + at(ax, oldDown) - 2*at(oldUp, oldDown)
			cur := sc.cur[:len(down)]
			base := sc.prev[0] + at(0, by)*scale
			for jj, p := range g[:len(down)] {
				cur[jj] = base - 2*int(p)*scale
				sc.choice = append(sc.choice, 0)
			}
			choice := sc.choice[len(sc.choice)-len(down):]
			for ii := 1; ii < len(up); ii++ {
				base := sc.prev[ii] + at(ii, by)*scale
				row := g[ii*nc : ii*nc+len(down)]
				for jj, p := range row {
					if c := base - 2*int(p)*scale; c < cur[jj] {
						cur[jj] = c
						choice[jj] = int32(ii)
					}
				}
			}
			sc.cur = cur
			for jj := range sc.cur {
				sc.cur[jj] += at(ax, jj) * scale
				if jj != oldDown {
					sc.cur[jj]++
				}
			}
		}
		sc.prev, sc.cur = sc.cur, sc.prev
		sc.up, sc.down = down, up
		up, oldUp = down, oldDown
	}
	newCost := sc.prev[0] / scale
	sc.sel = resize(sc.sel, m+1)
	copy(sc.sel, sc.old)
	if newCost < oldCost {
		j := 0
		for k := m; k >= 1; k-- {
			j = int(sc.choice[sc.cOff[k]+j])
			sc.sel[k] = sc.lo[k] + j
		}
	}
	for k := 1; k <= m; k++ {
		l := r + k
		w.roots[l] = slices.Insert(w.roots[l], sc.sel[k], w.segs[segs[k]].up)
		w.flatten(l)
	}
	return max(0, oldCost-newCost)
}

// rootIndex is the index of item it in the root list of its layer l.
func (w *work) rootIndex(l, it int) int {
	if len(w.layerClusters(l)) == 0 {
		return int(w.pos[it])
	}
	return slices.Index(w.roots[l], it)
}

// bucketer maps a position in layer l to the number of candidates at or
// before it.
type bucketer struct {
	first, n int32
	idx      []int32 // nil when the candidates are consecutive positions
}

func (b bucketer) of(p int32) int32 {
	if b.idx != nil {
		return b.idx[p]
	}
	return min(max(p-b.first+1, 0), b.n)
}

func (w *work) bucketer(l int, cand []int32, buf *[]int32) bucketer {
	n := int32(len(cand))
	if cand[n-1]-cand[0] == n-1 {
		return bucketer{first: cand[0], n: n}
	}
	*buf = resize(*buf, len(w.order[l])+1)
	fillIndex(*buf, cand)
	return bucketer{idx: *buf}
}

// fillIndex sets idx[p], for every position p, to the number of
// candidates at or before p: the grid row (column) of a segment end at p.
func fillIndex(idx []int32, cand []int32) {
	c := int32(0)
	for p := range idx {
		for int(c) < len(cand) && cand[c] <= int32(p) {
			c++
		}
		idx[p] = c
	}
}

// slotPositions lists, for each slot of layer l (before each root block,
// and at the end), its position in the layer's order.
func (w *work) slotPositions(l int, buf *[]int32) []int32 {
	s := (*buf)[:0]
	p := int32(0)
	for _, b := range w.roots[l] {
		s = append(s, p)
		if b >= 0 {
			p++
		} else {
			p += int32(len(w.clusters[-1-b].leaves))
		}
	}
	s = append(s, p)
	*buf = s
	return s
}
