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
	base   []int   // stepMiddle's row constants
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
	gone   []int32 // position the dummy was taken from, per layer of the chain, or -1
	real   []bool  // the dummy was taken out of the layer's lists
}

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
	if len(w.scratch.chainSeen) != len(w.edgeSegs) {
		w.scratch.chainSeen = resize(w.scratch.chainSeen, len(w.edgeSegs))
		for e := range w.scratch.chainSeen {
			w.scratch.chainSeen[e] = -1
		}
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
		if c == 0 {
			continue
		}
		// A chain whose layers did not change since its last reroute
		// would take the same route.
		r := w.items[w.segs[segs[0]].up].layer
		if w.scratch.chainSeen[e] >= w.lastChange(r, r+len(segs)) {
			continue
		}
		// (a chain that moved may find more from its new place: its
		// window moved with it)
		if g := w.rerouteChain(e); g > 0 {
			gain += g
		} else {
			w.scratch.chainSeen[e] = w.scratch.clock
		}
	}
	return gain
}

// rerouteChain moves the dummies of edge e to the route with the fewest
// crossings (ties: the fewest dummies moved) and returns the crossings
// removed.
//
// The chain is taken out of its layers only in thought where it can be:
// in a layer without clusters the other items' positions shift past the
// dummy's (eff), and the dummy moves by rotating the few items between its
// old and new place. Layers with clusters take it out for real. Only
// segments with an end inside the candidate windows are counted: one that
// passes the windows on one side, above and below, crosses every
// candidate route equally often, which changes no choice and no gain.
func (w *work) rerouteChain(e int) int {
	c := chainRoute{w: w, sc: &w.chain, segs: w.edgeSegs[e]}
	c.m = len(c.segs) - 1
	c.scale = c.m + 1
	c.takeOut()
	sc := c.sc
	u := w.segs[c.segs[0]].up
	v := w.segs[c.segs[c.m]].down
	pu, pv := w.pos[u], w.pos[v] // the ends' layers are untouched
	sc.prev = append(sc.prev[:0], 0)
	sc.cOff = sc.cOff[:0]
	sc.choice = sc.choice[:0]
	oldCost := 0
	// candidate positions of the upper layer and the old one's index; a
	// fixed end p is given as [p, p+1] (p+1 to count the segments right
	// of it)
	up := append(sc.up[:0], pu, pu+1)
	oldUp := 0
	for k := 0; k <= c.m; k++ {
		down, oldDown := append(sc.down[:0], pv, pv+1), 0
		if k < c.m {
			down, oldDown = c.candidates(k + 1)
		}
		g, nr, nc := c.fillGrid(k, up, down)
		oldCost += c.step(k, g, nr, nc, oldUp, oldDown)
		sc.prev, sc.cur = sc.cur, sc.prev
		sc.up, sc.down = down, up
		up, oldUp = down, oldDown
	}
	newCost := sc.prev[0] / c.scale
	sc.sel = resize(sc.sel, c.m+1)
	copy(sc.sel, sc.old)
	if newCost < oldCost {
		j := 0
		for k := c.m; k >= 1; k-- {
			j = int(sc.choice[sc.cOff[k]+j])
			sc.sel[k] = sc.lo[k] + j
		}
	}
	c.putBack()
	return max(0, oldCost-newCost)
}

// chainRoute is one rerouting of a long edge (see rerouteChain): its
// segments, the layer of its upper end and the buffers.
type chainRoute struct {
	w     *work
	sc    *chainScratch
	segs  []int
	m     int // dummies
	r     int // layer of the upper end
	scale int // costs are crossings*scale + dummies moved
}

// takeOut takes the chain's dummies out of their layers: in thought in
// layers without clusters, for real in the others.
func (c *chainRoute) takeOut() {
	w, sc, m := c.w, c.sc, c.m
	c.r = w.items[w.segs[c.segs[0]].up].layer
	sc.old = resize(sc.old, m+1)
	sc.lo = resize(sc.lo, m+1)
	sc.gone = resize(sc.gone, m+2)
	sc.real = resize(sc.real, m+2)
	sc.gone[0], sc.gone[m+1] = -1, -1 // the ends' layers keep everything
	sc.real[0], sc.real[m+1] = false, false
	for k := 1; k <= m; k++ {
		d := w.segs[c.segs[k]].up
		l := c.r + k
		if len(w.layerClusters(l)) == 0 {
			sc.old[k] = int(w.pos[d])
			sc.gone[k] = w.pos[d]
			sc.real[k] = false
			continue
		}
		ri := slices.Index(w.roots[l], d)
		sc.old[k] = ri
		sc.gone[k] = -1
		sc.real[k] = true
		w.roots[l] = slices.Delete(w.roots[l], ri, ri+1)
		w.flattenQuiet(l)
	}
}

// eff is a position of layer r+k with the chain's dummy taken out.
func (c *chainRoute) eff(k int, p int32) int32 {
	if g := c.sc.gone[k]; g >= 0 && p > g {
		return p - 1
	}
	return p
}

// itemAt is the item at an effective position of layer r+k.
func (c *chainRoute) itemAt(k int, p int32) int {
	if g := c.sc.gone[k]; g >= 0 && p >= g {
		p++
	}
	return c.w.order[c.r+k][p]
}

// width is the number of items left in layer r+k.
func (c *chainRoute) width(k int) int32 {
	n := int32(len(c.w.order[c.r+k]))
	if c.sc.gone[k] >= 0 {
		n--
	}
	return n
}

// candidates returns the candidate positions of the dummy in layer r+k
// (the slots within chainWindow of its old one) and the old one's index.
func (c *chainRoute) candidates(k int) ([]int32, int) {
	w, sc := c.w, c.sc
	l := c.r + k
	n := int(c.width(k)) + 1 // slots: one per root block, and the end
	if sc.real[k] {
		n = len(w.roots[l]) + 1
	}
	lo := max(0, sc.old[k]-w.chainWindow)
	hi := min(n, sc.old[k]+w.chainWindow+1)
	sc.lo[k] = lo
	var down []int32
	if !sc.real[k] { // slot i at position i
		down = sc.down[:0]
		for p := lo; p < hi; p++ {
			down = append(down, int32(p))
		}
	} else {
		down = append(sc.down[:0], w.slotPositions(l, &sc.slots)[lo:hi]...)
	}
	return down, sc.old[k] - lo
}

// fillGrid counts the segments between layers r+k and r+k+1 other than
// the chain's own: g[x*nc+y] counts those with a < up[x] and b < down[y];
// row len(up) and column len(down) stand for "anywhere".
func (c *chainRoute) fillGrid(k int, up, down []int32) (g []int32, nr, nc int) {
	w, sc := c.w, c.sc
	l := c.r + k
	nr, nc = len(up)+1, len(down)+1
	sc.grid = resize(sc.grid, nr*nc)
	g = sc.grid
	clear(g)
	rowOf := w.bucketer(l, up, &sc.rowOf)
	colOf := w.bucketer(l+1, down, &sc.colOf)
	// the chain's own segment here: from item from (or u's segs[0])
	own := int32(c.segs[k])
	// segments with an upper end inside the row window ...
	for p := up[0]; p < up[len(up)-1]; p++ {
		it := c.itemAt(k, p)
		x := int(rowOf.of(p)) * nc
		for s := w.downOff[it]; s < w.downOff[it+1]; s++ {
			if w.downSeg[s] != own {
				g[x+int(colOf.of(c.eff(k+1, w.pos[w.downNb[s]])))]++
			}
		}
	}
	// ... and the others with a lower end inside the column window
	for p := down[0]; p < down[len(down)-1]; p++ {
		it := c.itemAt(k+1, p)
		y := int(colOf.of(p))
		for s := w.upOff[it]; s < w.upOff[it+1]; s++ {
			if w.upSeg[s] == own {
				continue
			}
			if a := c.eff(k, w.pos[w.upNb[s]]); a < up[0] || a >= up[len(up)-1] {
				g[int(rowOf.of(a))*nc+y]++
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
	return g, nr, nc
}

// step is the dynamic programme's step over layer pair r+k, r+k+1: it
// fills sc.cur (the best cost of each lower candidate) and the choices
// from sc.prev and the grid, and returns the old route's crossings there.
func (c *chainRoute) step(k int, g []int32, nr, nc, oldUp, oldDown int) int {
	sc, scale := c.sc, c.scale
	at := func(x, y int) int { return int(g[x*nc+y]) }
	ax, by := nr-1, nc-1
	nu, nd := nr-1, nc-1 // candidates above and below
	sc.cur = resize(sc.cur, nc-1)
	sc.cOff = append(sc.cOff, len(sc.choice))
	oldCost := 0
	switch {
	case k == 0 && k == c.m:
	case k == 0: // u fixed at up[0]; its own segments never cross ours
		left := at(0, by)
		oldCost = left - at(0, oldDown) + at(ax, oldDown) - at(1, oldDown)
		for jj := 0; jj < nd; jj++ {
			cost := (left-at(0, jj)+at(ax, jj)-at(1, jj))*scale + sc.prev[0]
			if jj != oldDown {
				cost++
			}
			sc.cur[jj] = cost
			sc.choice = append(sc.choice, 0)
		}
	case k == c.m: // v fixed at down[0]
		oldCost = at(oldUp, by) - at(oldUp, 1) + at(ax, 0) - at(oldUp, 0)
		best, arg := -1, 0
		for ii := 0; ii < nu; ii++ {
			cost := sc.prev[ii] + (at(ii, by)-at(ii, 1)+at(ax, 0)-at(ii, 0))*scale
			if best < 0 || cost < best {
				best, arg = cost, ii
			}
		}
		sc.cur = sc.cur[:1]
		sc.cur[0] = best
		sc.choice = append(sc.choice, int32(arg))
	default:
		oldCost = at(oldUp, by) + at(ax, oldDown) - 2*at(oldUp, oldDown)
		c.stepMiddle(g, nu, nd, oldDown)
	}
	return oldCost
}

// stepMiddle is step between two layers of dummies.
func (c *chainRoute) stepMiddle(g []int32, nu, nd, oldDown int) {
	sc, scale := c.sc, c.scale
	nc := nd + 1
	ax, by := nu, nd
	cur := sc.cur[:nd]
	base := resize(sc.base, nu)
	for ii := range base {
		base[ii] = sc.prev[ii] + int(g[ii*nc+by])*scale
	}
	sc.base = base
	n0 := len(sc.choice)
	for range nd {
		sc.choice = append(sc.choice, 0)
	}
	columnMinima(g, nc, scale, base, cur, sc.choice[n0:], 0, nd-1, 0, nu-1)
	for jj := range cur {
		cur[jj] += int(g[ax*nc+jj]) * scale
		if jj != oldDown {
			cur[jj]++
		}
	}
	sc.cur = cur
}

// columnMinima sets cur[jj], for columns jlo..jhi, to the least
// base[ii] - 2*g[ii][jj]*scale over rows ilo..ihi, and choice[jj] to the
// first row reaching it. g counts dominance (a 2-D prefix sum of counts),
// so the matrix is Monge and the first minimising row never decreases
// from one column to the next: each column's row is searched between its
// neighbours' (divide and conquer, O(n log n) cells instead of n²).
func columnMinima(g []int32, nc, scale int, base, cur []int, choice []int32, jlo, jhi, ilo, ihi int) {
	for jlo <= jhi {
		jm := (jlo + jhi) / 2
		best, arg := base[ilo]-2*int(g[ilo*nc+jm])*scale, ilo
		for ii := ilo + 1; ii <= ihi; ii++ {
			if cost := base[ii] - 2*int(g[ii*nc+jm])*scale; cost < best {
				best, arg = cost, ii
			}
		}
		cur[jm], choice[jm] = best, int32(arg)
		columnMinima(g, nc, scale, base, cur, choice, jlo, jm-1, ilo, arg)
		jlo, ilo = jm+1, arg
	}
}

// putBack puts the dummies in their selected slots (sc.sel).
func (c *chainRoute) putBack() {
	w, sc := c.w, c.sc
	for k := 1; k <= c.m; k++ {
		l := c.r + k
		d := w.segs[c.segs[k]].up
		if sc.real[k] {
			w.roots[l] = slices.Insert(w.roots[l], sc.sel[k], d)
			if sc.sel[k] != sc.old[k] {
				w.flatten(l)
			} else {
				w.flattenQuiet(l)
			}
			continue
		}
		if sc.sel[k] != sc.old[k] {
			w.moveInLayer(l, int(sc.gone[k]), sc.sel[k])
		}
	}
}

// moveInLayer moves the item at position from of layer l (which has no
// clusters: its roots are its order) to position to.
func (w *work) moveInLayer(l, from, to int) {
	o, rt := w.order[l], w.roots[l]
	it := o[from]
	if from < to {
		copy(o[from:to], o[from+1:to+1])
	} else {
		copy(o[to+1:from+1], o[to:from])
	}
	o[to] = it
	lo, hi := min(from, to), max(from, to)
	for p := lo; p <= hi; p++ {
		w.pos[o[p]] = int32(p)
		rt[p] = o[p]
	}
	w.changed(l)
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
