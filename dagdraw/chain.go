package dagdraw

import (
	"math"
	"slices"
)

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
	old     []int   // root index each dummy had
	lo      []int   // first candidate slot (root index) per layer of the chain
	px, py  []int32 // one layer pair's segments as grid points (see collect)
	grid    []int32 // an end's step: dominance counts
	prev    []int
	cur     []int
	f       []int   // stepMiddle's row values
	colHead []int32 // stepMiddle's points by column: first, next
	next    []int32
	rowCnt  []int32
	choice  []int32 // arg min per layer and lower candidate
	cOff    []int
	up      []int32 // positions of the candidates of the upper layer
	down    []int32
	rowOf   []int32 // position in the upper layer → grid row
	colOf   []int32
	cr      []int32 // crossings of each segment
	bit     []int32
	sel     []int
	slots   []int32
	gone    []int32 // position the dummy was taken from, per layer of the chain, or -1
	real    []bool  // the dummy was taken out of the layer's lists
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
		nr, nc := c.collect(k, up, down)
		oldCost += c.step(k, nr, nc, oldUp, oldDown)
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

// collect lists the segments between layers r+k and r+k+1 other than
// the chain's own as points of a grid over the candidates: a segment
// lies in row x when exactly x candidates of up lie at or before its
// upper end (row len(up): after all of them), in column y likewise with
// down. It fills sc.px and sc.py and returns the grid's rows and columns.
func (c *chainRoute) collect(k int, up, down []int32) (nr, nc int) {
	w, sc := c.w, c.sc
	l := c.r + k
	nr, nc = len(up)+1, len(down)+1
	sc.px, sc.py = sc.px[:0], sc.py[:0]
	// the chain's own segment here
	own := int32(c.segs[k])
	u0, uN := up[0], up[len(up)-1]
	d0, dN := down[0], down[len(down)-1]
	if uN-u0 == int32(len(up)-1) && dN-d0 == int32(len(down)-1) {
		c.collectConsecutive(k, own, u0, uN, d0, dN)
		return nr, nc
	}
	rowOf := w.bucketer(l, up, &sc.rowOf)
	colOf := w.bucketer(l+1, down, &sc.colOf)
	// segments with an upper end inside the row window ...
	for p := u0; p < uN; p++ {
		it := c.itemAt(k, p)
		x := rowOf.of(p)
		for s := w.downOff[it]; s < w.downOff[it+1]; s++ {
			if w.downSeg[s] != own {
				sc.px = append(sc.px, x)
				sc.py = append(sc.py, colOf.of(c.eff(k+1, w.pos[w.downNb[s]])))
			}
		}
	}
	// ... and the others with a lower end inside the column window
	for p := d0; p < dN; p++ {
		it := c.itemAt(k+1, p)
		y := colOf.of(p)
		for s := w.upOff[it]; s < w.upOff[it+1]; s++ {
			if w.upSeg[s] == own {
				continue
			}
			if a := c.eff(k, w.pos[w.upNb[s]]); a < u0 || a >= uN {
				sc.px = append(sc.px, rowOf.of(a))
				sc.py = append(sc.py, y)
			}
		}
	}
	return nr, nc
}

// collectConsecutive is collect when the candidates of both layers are
// consecutive positions u0..uN and d0..dN (layers without clusters): a
// position's row is then its distance from the first candidate,
// clamped. Only the ends of the chain's own segment have it among their
// segments; every other item's segments all count, and most items have
// one (a dummy's), read without the segment lists.
func (c *chainRoute) collectConsecutive(k int, own, u0, uN, d0, dN int32) {
	w, sc := c.w, c.sc
	l := c.r + k
	pos := w.pos
	ou, od := w.order[l], w.order[l+1]
	nu, nd := uN-u0+1, dN-d0+1
	ownUp, ownDown := w.segs[own].up, w.segs[own].down
	px, py := sc.px, sc.py
	// the dummies taken out in thought: positions after them shift back
	// one (gone: the largest position when none is)
	gu, gd := sc.gone[k], sc.gone[k+1]
	if gu < 0 {
		gu = math.MaxInt32
	}
	if gd < 0 {
		gd = math.MaxInt32
	}
	downOff, downNb, downOne := w.downOff, w.downNb, w.downOne
	for p := u0; p < uN; p++ {
		q := p
		if p >= gu {
			q++
		}
		it := ou[q]
		x := p - u0 + 1
		if b := downOne[it]; b >= 0 && it != ownUp {
			b := pos[b]
			b -= int32(uint32(gd-b) >> 31) // b > gd: one back
			px = append(px, x)
			py = append(py, min(max(b-d0+1, 0), nd))
			continue
		}
		for s := downOff[it]; s < downOff[it+1]; s++ {
			if it == ownUp && w.downSeg[s] == own {
				continue
			}
			b := pos[downNb[s]]
			b -= int32(uint32(gd-b) >> 31)
			px = append(px, x)
			py = append(py, min(max(b-d0+1, 0), nd))
		}
	}
	// the others with a lower end inside the column window: those with
	// an upper end before or after the row window
	upOff, upNb, upOne := w.upOff, w.upNb, w.upOne
	for p := d0; p < dN; p++ {
		q := p
		if p >= gd {
			q++
		}
		it := od[q]
		y := p - d0 + 1
		if a := upOne[it]; a >= 0 && it != ownDown {
			a := pos[a]
			a -= int32(uint32(gu-a) >> 31)
			if a < u0 {
				px = append(px, 0)
				py = append(py, y)
			} else if a >= uN {
				px = append(px, nu)
				py = append(py, y)
			}
			continue
		}
		for s := upOff[it]; s < upOff[it+1]; s++ {
			if it == ownDown && w.upSeg[s] == own {
				continue
			}
			a := pos[upNb[s]]
			a -= int32(uint32(gu-a) >> 31)
			if a < u0 {
				px = append(px, 0)
				py = append(py, y)
			} else if a >= uN {
				px = append(px, nu)
				py = append(py, y)
			}
		}
	}
	sc.px, sc.py = px, py
}

// step is the dynamic programme's step over layer pair r+k, r+k+1: it
// fills sc.cur (the best cost of each lower candidate) and the choices
// from sc.prev and the points (see collect), and returns the old route's
// crossings there.
//
// With G[x][y] the points in rows up to x and columns up to y, a route
// through candidates ii above and jj below crosses the points left of it
// above and right of it below, or the other way round: G[ii][nd] -
// 2 G[ii][jj] + G[nu][jj] of them (the ends' steps count likewise, less
// the fixed end's own row or column).
func (c *chainRoute) step(k, nr, nc, oldUp, oldDown int) int {
	sc, scale := c.sc, c.scale
	nu, nd := nr-1, nc-1 // candidates above and below
	sc.cur = resize(sc.cur, nd)
	sc.cOff = append(sc.cOff, len(sc.choice))
	if k > 0 && k < c.m {
		return c.stepMiddle(nu, nd, oldUp, oldDown)
	}
	// an end's step: one row (column) of candidates; count on a small
	// grid of dominance counts
	sc.grid = resize(sc.grid, nr*nc)
	g := sc.grid
	clear(g)
	for i, x := range sc.px {
		g[int(sc.py[i])*nr+int(x)]++
	}
	prefix2D(g, nr, nc)
	at := func(x, y int) int { return int(g[y*nr+x]) }
	ax, by := nr-1, nc-1
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
	default: // k == c.m: v fixed at down[0]
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
	}
	return oldCost
}

// prefix2D turns the cell counts of a column-major grid (g[y*nr+x]) into
// dominance counts: the points of rows up to x and columns up to y.
func prefix2D(g []int32, nr, nc int) {
	for x := 1; x < nr; x++ {
		g[x] += g[x-1]
	}
	for y := 1; y < nc; y++ {
		col, pcol := g[y*nr:(y+1)*nr], g[(y-1)*nr:y*nr]
		pcol = pcol[:len(col)]
		run := int32(0)
		for x := range col {
			run += col[x]
			col[x] = pcol[x] + run
		}
	}
}

// stepMiddle is step between two layers of dummies:
//
//	cur[jj] = min over ii of (prev[ii] + G[ii][nd]*scale - 2 G[ii][jj]*scale)
//	          + G[nu][jj]*scale (+1 if jj moves the dummy).
//
// It sweeps the columns left to right keeping f[ii], the term in
// brackets for the current column, and arg, its first minimising row: a
// point in row x and column jj takes 2*scale off f of rows x and below.
// The points only grow G, so this matrix is Monge and the first
// minimising row never decreases from one column to the next, nor from
// one point to the next: rows above arg are never looked at again (nor
// kept up to date). A point at or above arg lowers every row that is
// still looked at alike (off keeps the sum); one below it lowers the rows
// from its own, whose least value takes arg's place when it is smaller
// (the rows in between are no smaller than arg's).
func (c *chainRoute) stepMiddle(nu, nd, oldUp, oldDown int) int {
	sc, scale := c.sc, c.scale
	px, py := sc.px, sc.py[:len(sc.px)]
	// the points of each column as a list (head, next), rows' counts
	head := resize(sc.colHead, nd)
	for y := range head {
		head[y] = -1
	}
	next := resize(sc.next, len(px))
	rows := resize(sc.rowCnt, nu+1)
	clear(rows)
	for i, x := range px {
		rows[x]++
		if y := py[i]; int(y) < nd {
			next[i] = head[y]
			head[y] = int32(i)
		}
	}
	f := resize(sc.f, nu)
	prev := sc.prev[:nu]
	tot, oldCost := 0, 0 // G[ii][nd]
	arg, best := 0, math.MaxInt
	for ii := range f {
		tot += int(rows[ii])
		v := prev[ii] + tot*scale
		f[ii] = v
		if v < best {
			arg, best = ii, v
		}
		if ii == oldUp {
			oldCost = tot
		}
	}
	cur := sc.cur[:nd]
	n0 := len(sc.choice)
	sc.choice = slices.Grow(sc.choice, nd)[:n0+nd]
	choice := sc.choice[n0 : n0+nd]
	two := 2 * scale
	off := 0              // taken off every row from arg on
	below, inside := 0, 0 // G[nu][jj], G[oldUp][jj]
	for jj := range cur {
		for i := head[jj]; i >= 0; i = next[i] {
			x := int(px[i])
			below++
			if x <= oldUp {
				inside++
			}
			switch {
			case x <= arg:
				off += two
			case x < nu:
				best, at := f[x]-two, x
				f[x] = best
				for ii := x + 1; ii < nu; ii++ {
					v := f[ii] - two
					f[ii] = v
					if v < best {
						best, at = v, ii
					}
				}
				if best < f[arg] {
					arg = at
				}
			}
		}
		cost := f[arg] - off + below*scale
		if jj != oldDown {
			cost++
		} else {
			oldCost += below - 2*inside
		}
		cur[jj], choice[jj] = cost, int32(arg)
	}
	sc.f, sc.colHead, sc.next, sc.rowCnt = f, head, next, rows
	return oldCost
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
