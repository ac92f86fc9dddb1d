package dagdraw

import (
	"math/bits"
	"slices"
	"sort"
	"sync"
)

// item is one position in a layer: a node's box, the port of a frame
// parent (plead), or a dummy that carries a long edge through the layer.
type item struct {
	node  int // drawn node, -1 for a dummy
	edge  int // dummy: index in ranking.edges, -1 otherwise
	plead bool
	layer int
	cl    int // innermost cluster, -1 for none
	size  int // minor size in cells
	x     int // minor coordinate of the first cell
}

func (it *item) dummy() bool { return it.node < 0 }

// segment is the part of an edge between two adjacent layers.
type segment struct {
	up, down int // items
	edge     int
	bundle   int
	upPort   int // minor coordinate where the segment leaves the upper item
	downPort int // and enters the lower one
}

type clusterKind uint8

const (
	clusterFrame clusterKind = iota // a decomposition parent around its children
	clusterOR                       // an OR group's members in one layer
)

// cluster is a frame in one layer: its leaves stay contiguous in the
// layer's order. Clusters nest (a laminar family per layer).
type cluster struct {
	kind   clusterKind
	layer  int
	parent int // enclosing cluster or -1
	frame  int // clusterFrame: index in ranking.frames
	group  int // clusterOR: index in structure.groups
	level  int // 1 for a frame around boxes only, 1+max(children) otherwise
	kids   []int
	leaves []int // every item inside, sorted
}

// block references: >= 0 an item, < 0 the cluster -1-b.
func clusterBlock(c int) int { return -1 - c }

// work is the state of one layout. Its layered graph is built by newWork
// and only read while the layers are ordered, so the forks that order
// from several starts at once share it whole (see fork); the rest — the
// order and everything that follows it — is each fork's own.
type work struct {
	layered
	order    [][]int // items of each layer in order
	roots    [][]int // top-level blocks of each layer
	clusters []cluster
	bary     bool // sweeps use barycenters instead of medians

	// pos is each item's index in its layer's order; upPos and downPos,
	// laid out as upNb and downNb, hold the neighbours' positions,
	// sorted per item (see fillNeighbours).
	pos            []int32
	upPos, downPos []int32
	scratch        orderScratch
	chain          chainScratch
	coord          coordScratch
	chainWindow    int        // see effort.window
	tValid         bool       // scratch.tpos and dirty hold for this work
	bp             *bestParts // while minimizing: the best order of each part (see bestParts)
	// finishAhead, set for a fresh layout, lays out a fork's order: the
	// layout runStarts makes ahead, aheadLay once the caller takes it
	finishAhead func(f *work) *Layout
	aheadLay    *Layout
	route       routeScratch

	// backing arrays kept for reuse (see newWork); spare, a fork's own
	// layered arrays while it shares another work's (see fork)
	buf   workBuffers
	spare layered
}

// layered is the layered graph a work orders: its items and segments,
// their adjacency and the clusters of each layer.
type layered struct {
	st       *structure
	rk       *ranking
	opt      Options
	items    []item
	segs     []segment
	nodeItem []int
	nReal    int     // items below this index are boxes or frame ports, the rest dummies
	edgeSegs [][]int // segments of each ranking edge, top to bottom
	frameCl  []int   // frame index → cluster
	byLayer  [][]int // clusters of each layer

	// The ordering works on flat int32 arrays: upNb[upOff[i]:upOff[i+1]]
	// are the items above item i (one per segment, in segment order),
	// downNb likewise below.
	upOff, downOff []int32
	upNb, downNb   []int32
	upSeg, downSeg []int32 // each item's segments above and below (CSR by upOff, downOff)
	upOne, downOne []int32 // the only neighbour above (below), or -1
	// upSlot and downSlot are upOne and downOne with len(items) for -1:
	// indices into pos, whose last entry is -1 (see onePos)
	upSlot, downSlot []int32
}

// workBuffers are arrays a work carves or fills anew for every layout;
// pooled works keep them, so big layouts do not allocate them each time.
type workBuffers struct {
	degree, count, segIdx, orders, roots []int
	fillUp, fillDown                     []int32
	bundles                              []bundle
	bundleSegs                           []int
	counts                               []int32
}

// workPool recycles works between layouts: a layout's buffers are the
// same size as the last one's when the UI lays out the same graph again.
// A Layout keeps nothing of its work.
var workPool sync.Pool

// release returns w to the pool; w must not be used afterwards.
func (w *work) release() {
	w.st, w.rk = nil, nil
	workPool.Put(w)
}

// orderScratch holds buffers the ordering reuses between calls, so that
// sweeps, transpositions and sifting do not allocate.
type orderScratch struct {
	tree  []int32
	buf   []int
	val   []float64
	bv    []blockVal
	bvTmp []blockVal // stableSortBlocks' merge buffer
	slots []int
	lists [][]int
	cand  []bool
	next  []bool
	todo  []int
	delta []int
	// initOrder's values and cluster order
	initVal []float64
	minVal  []float64
	clIdx   []int
	// Change tracking, to skip work whose inputs did not change: clock
	// ticks at every change; layerChg is each layer's last change, and
	// siftSeen and chainSeen when a layer was last sifted without gain
	// and when an edge was last rerouted.
	clock     int64
	layerChg  []int64
	siftSeen  []int64
	chainSeen []int64
	itemCr    []int32
	dUp       []int32
	dDown     []int32
	// transpose's judgements (see transpose): the positions it left,
	// each item's dirty bits, whether its last call swapped equal pairs
	tpos    []int32
	dirty   []uint8
	tEqual  bool
	improve orderSnapshot
	best    orderSnapshot
	start   orderSnapshot
}

type blockVal struct {
	b int
	v float64
}

func newWork(st *structure, rk *ranking, opt Options) *work {
	w, _ := workPool.Get().(*work)
	if w == nil {
		w = new(work)
	}
	// Keep every buffer's capacity, forget everything else.
	old := *w
	*w = work{layered: layered{st: st, rk: rk, opt: opt}, scratch: old.scratch, chain: old.chain, coord: old.coord, route: old.route, buf: old.buf}
	sc := &w.scratch
	sc.layerChg, sc.siftSeen, sc.chainSeen = sc.layerChg[:0], sc.siftSeen[:0], sc.chainSeen[:0]
	n := len(st.nodes)
	w.nodeItem = resize(old.nodeItem, n)
	degree := resize(w.buf.degree, n)
	w.buf.degree = degree
	clear(degree)
	for _, e := range rk.edges {
		degree[e.from]++
		degree[e.to]++
	}
	w.order = resize(old.order, rk.layers)
	span := 0
	for _, e := range rk.edges {
		span += rk.rank[e.lower()] - rk.rank[e.upper()]
	}
	w.items = slices.Grow(old.items[:0], n+span)
	w.segs = slices.Grow(old.segs[:0], span)
	for v := 0; v < n; v++ {
		w.nodeItem[v] = -1
		plead := rk.frameOf[v] >= 0
		if plead && degree[v] == 0 {
			continue
		}
		w.nodeItem[v] = len(w.items)
		w.items = append(w.items, item{node: v, edge: -1, plead: plead, layer: rk.rank[v], cl: -1})
	}
	w.nReal = len(w.items) // boxes and frame ports come first, dummies after
	w.edgeSegs = resize(old.edgeSegs, len(rk.edges))
	segIdx := resize(w.buf.segIdx, span)
	w.buf.segIdx = segIdx
	for ei, e := range rk.edges {
		u, l := e.upper(), e.lower()
		prev := w.nodeItem[u]
		first := len(w.segs)
		for r := rk.rank[u] + 1; r <= rk.rank[l]; r++ {
			next := w.nodeItem[l]
			if r < rk.rank[l] {
				next = len(w.items)
				w.items = append(w.items, item{node: -1, edge: ei, layer: r, cl: -1})
			}
			si := len(w.segs)
			w.segs = append(w.segs, segment{up: prev, down: next, edge: ei})
			segIdx[si] = si
			prev = next
		}
		w.edgeSegs[ei] = segIdx[first:len(w.segs):len(w.segs)]
	}
	// Each item's segments above and below, in segment order: CSR
	// arrays (upSeg[upOff[i]:upOff[i+1]], downSeg likewise).
	n1 := len(w.items) + 1
	w.upOff = resize(old.upOff, n1)
	w.downOff = resize(old.downOff, n1)
	clear(w.upOff)
	clear(w.downOff)
	for _, sg := range w.segs {
		w.upOff[sg.down+1]++
		w.downOff[sg.up+1]++
	}
	for i := 1; i < n1; i++ {
		w.upOff[i] += w.upOff[i-1]
		w.downOff[i] += w.downOff[i-1]
	}
	w.upSeg = resize(old.upSeg, len(w.segs))
	w.downSeg = resize(old.downSeg, len(w.segs))
	fillUp := resize(w.buf.fillUp, len(w.items))
	fillDown := resize(w.buf.fillDown, len(w.items))
	w.buf.fillUp, w.buf.fillDown = fillUp, fillDown
	clear(fillUp)
	clear(fillDown)
	for si, sg := range w.segs {
		w.upSeg[w.upOff[sg.down]+fillUp[sg.down]] = int32(si)
		fillUp[sg.down]++
		w.downSeg[w.downOff[sg.up]+fillDown[sg.up]] = int32(si)
		fillDown[sg.up]++
	}
	// Each layer's order (and root list) holds at most its items: carve
	// them from two arrays.
	count := resize(w.buf.count, rk.layers+1)
	w.buf.count = count
	clear(count)
	for i := range w.items {
		count[w.items[i].layer+1]++
	}
	orders, roots := resize(w.buf.orders, len(w.items)), resize(w.buf.roots, len(w.items))
	w.buf.orders, w.buf.roots = orders, roots
	w.roots = resize(old.roots, rk.layers)
	for l := range w.order {
		a, z := count[l], count[l]+count[l+1]
		count[l+1] = z
		w.order[l] = orders[a:a:z]
		w.roots[l] = roots[a:a:z]
	}
	w.clusters = old.clusters[:0]
	w.buildClusters()
	w.buildAdjacency(&old)
	return w
}

// buildAdjacency fills the flat neighbour arrays from the segments.
func (w *work) buildAdjacency(old *work) {
	n := len(w.items)
	w.pos = resize(old.pos, n+1)
	w.pos[n] = -1 // see onePos
	w.upNb = resize(old.upNb, len(w.upSeg))
	w.downNb = resize(old.downNb, len(w.downSeg))
	for k, s := range w.upSeg {
		w.upNb[k] = int32(w.segs[s].up)
	}
	for k, s := range w.downSeg {
		w.downNb[k] = int32(w.segs[s].down)
	}
	w.upPos = resize(old.upPos, len(w.upNb))
	w.downPos = resize(old.downPos, len(w.downNb))
	w.upOne = resize(old.upOne, n)
	w.downOne = resize(old.downOne, n)
	w.upSlot = resize(old.upSlot, n)
	w.downSlot = resize(old.downSlot, n)
	for i := range w.items {
		w.upOne[i], w.downOne[i] = -1, -1
		w.upSlot[i], w.downSlot[i] = int32(n), int32(n)
		if w.upOff[i+1]-w.upOff[i] == 1 {
			w.upOne[i] = w.upNb[w.upOff[i]]
			w.upSlot[i] = w.upOne[i]
		}
		if w.downOff[i+1]-w.downOff[i] == 1 {
			w.downOne[i] = w.downNb[w.downOff[i]]
			w.downSlot[i] = w.downOne[i]
		}
	}
}

// degree is how many segments item it has.
func (w *work) degree(it int) int {
	return int(w.upOff[it+1] - w.upOff[it] + w.downOff[it+1] - w.downOff[it])
}

// upSegs and downSegs are item it's segments above and below, in segment
// order.
func (w *work) upSegs(it int) []int32   { return w.upSeg[w.upOff[it]:w.upOff[it+1]] }
func (w *work) downSegs(it int) []int32 { return w.downSeg[w.downOff[it]:w.downOff[it+1]] }

// ups and downs are item it's sorted neighbour positions above and below
// (valid after fillNeighbours of its layer).
func (w *work) ups(it int) []int32   { return w.upPos[w.upOff[it]:w.upOff[it+1]] }
func (w *work) downs(it int) []int32 { return w.downPos[w.downOff[it]:w.downOff[it+1]] }

// buildClusters makes the frames of decompositions and the per-layer frames
// of OR groups, keeping only a laminar family in each layer.
func (w *work) buildClusters() {
	rk, st := w.rk, w.st
	w.frameCl = make([]int, len(rk.frames))
	byLayer := map[int][]int{}
	leafSet := func(units []int) []int {
		var s []int
		for _, u := range units {
			if u >= 0 {
				s = append(s, u)
			} else {
				s = append(s, w.clusters[-1-u].leaves...)
			}
		}
		slices.Sort(s)
		return slices.Compact(s)
	}
	// Frames, innermost first so a frame's leaves include nested frames'.
	var visit func(fi int, seen []bool)
	visit = func(fi int, seen []bool) {
		if seen[fi] {
			return
		}
		seen[fi] = true
		f := rk.frames[fi]
		var units []int
		if it := w.nodeItem[f.parent]; it >= 0 {
			units = append(units, it)
		}
		for _, c := range f.children {
			if cf := rk.frameOf[c]; cf >= 0 {
				visit(cf, seen)
				units = append(units, clusterBlock(w.frameCl[cf]))
			} else if it := w.nodeItem[c]; it >= 0 {
				units = append(units, it)
			}
		}
		ci := len(w.clusters)
		layer := rk.rank[f.parent]
		w.clusters = append(w.clusters, cluster{kind: clusterFrame, layer: layer, frame: fi, group: -1, parent: -1})
		w.clusters[ci].leaves = leafSet(units)
		w.frameCl[fi] = ci
		byLayer[layer] = append(byLayer[layer], ci)
	}
	seen := make([]bool, len(rk.frames))
	for fi := range rk.frames {
		visit(fi, seen)
	}
	// OR groups, one frame per layer their members occupy.
	for gi, g := range st.groups {
		per := map[int][]int{}
		var layers []int
		for _, m := range g.members {
			var u int
			if cf := rk.frameOf[m]; cf >= 0 {
				u = clusterBlock(w.frameCl[cf])
			} else if it := w.nodeItem[m]; it >= 0 {
				u = it
			} else {
				continue
			}
			l := rk.rank[m]
			if _, ok := per[l]; !ok {
				layers = append(layers, l)
			}
			per[l] = append(per[l], u)
		}
		sort.Ints(layers)
		for _, l := range layers {
			leaves := leafSet(per[l])
			if len(leaves) == 0 {
				continue
			}
			ok := true
			for _, c := range byLayer[l] {
				in := countCommon(leaves, w.clusters[c].leaves)
				if in != 0 && in != len(leaves) && in != len(w.clusters[c].leaves) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			ci := len(w.clusters)
			w.clusters = append(w.clusters, cluster{kind: clusterOR, layer: l, frame: -1, group: gi, parent: -1, leaves: leaves})
			byLayer[l] = append(byLayer[l], ci)
		}
	}
	// Nesting: the parent of a cluster is the smallest cluster containing it.
	for _, cs := range byLayer {
		sorted := slices.Clone(cs)
		sort.SliceStable(sorted, func(a, b int) bool {
			return len(w.clusters[sorted[a]].leaves) > len(w.clusters[sorted[b]].leaves)
		})
		for i, c := range sorted {
			for j := i - 1; j >= 0; j-- {
				p := sorted[j]
				if countCommon(w.clusters[c].leaves, w.clusters[p].leaves) == len(w.clusters[c].leaves) {
					w.clusters[c].parent = p
					break
				}
			}
			for _, it := range w.clusters[c].leaves {
				w.items[it].cl = c // later (smaller) clusters overwrite
			}
		}
	}
	for ci := range w.clusters {
		w.clusters[ci].level = 1
	}
	// Levels: a cluster is one higher than its highest child.
	for changed := true; changed; {
		changed = false
		for ci := range w.clusters {
			if p := w.clusters[ci].parent; p >= 0 && w.clusters[p].level < w.clusters[ci].level+1 {
				w.clusters[p].level = w.clusters[ci].level + 1
				changed = true
			}
		}
	}
}

func countCommon(a, b []int) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// initOrder builds each layer's block tree in an initial order: by the
// value each item gets from init (smaller first), clusters by their
// smallest leaf value.
func (w *work) initOrder(value func(it int) float64) {
	L := w.rk.layers
	if len(w.roots) != L {
		w.roots = make([][]int, L)
	}
	for l := range w.roots {
		w.roots[l] = w.roots[l][:0]
	}
	for ci := range w.clusters {
		w.clusters[ci].kids = w.clusters[ci].kids[:0]
	}
	for ci, c := range w.clusters {
		if c.parent >= 0 {
			w.clusters[c.parent].kids = append(w.clusters[c.parent].kids, clusterBlock(ci))
		} else {
			w.roots[c.layer] = append(w.roots[c.layer], clusterBlock(ci))
		}
	}
	for i := range w.items {
		it := &w.items[i]
		if it.cl >= 0 {
			w.clusters[it.cl].kids = append(w.clusters[it.cl].kids, i)
		} else {
			w.roots[it.layer] = append(w.roots[it.layer], i)
		}
	}
	sc := &w.scratch
	vals := resize(sc.initVal, len(w.items))
	for i := range vals {
		vals[i] = value(i)
	}
	minVal := resize(sc.minVal, len(w.clusters))
	sc.initVal, sc.minVal = vals, minVal
	// sort blocks stably by value (clusters by their smallest leaf value)
	sortBy := func(blocks []int) {
		bv := sc.bv[:0]
		for _, b := range blocks {
			v := 0.0
			if b >= 0 {
				v = vals[b]
			} else {
				v = minVal[-1-b]
			}
			bv = append(bv, blockVal{b, v})
		}
		sc.bvTmp = stableSortBlocks(bv, sc.bvTmp)
		for i := range blocks {
			blocks[i] = bv[i].b
		}
		sc.bv = bv
	}
	// clusters deeper first so parents see their children's values
	idx := resize(sc.clIdx, len(w.clusters))
	sc.clIdx = idx
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return w.clusters[a].level - w.clusters[b].level })
	for _, ci := range idx {
		kids := w.clusters[ci].kids
		sortBy(kids)
		if len(kids) > 0 {
			if k := kids[0]; k >= 0 {
				minVal[ci] = vals[k]
			} else {
				minVal[ci] = minVal[-1-k]
			}
		}
	}
	for l := range w.roots {
		sortBy(w.roots[l])
	}
	w.flattenAll()
}

func (w *work) flattenAll() {
	for l := range w.roots {
		w.flatten(l)
	}
}

// changed records that layer l's order changed (see layerChg).
func (w *work) changed(l int) {
	sc := &w.scratch
	if len(sc.layerChg) != len(w.order) {
		sc.layerChg = resize(sc.layerChg, len(w.order))
		clear(sc.layerChg)
	}
	sc.clock++
	sc.layerChg[l] = sc.clock
}

// lastChange is when any of layers lo..hi last changed.
func (w *work) lastChange(lo, hi int) int64 {
	sc := &w.scratch
	if len(sc.layerChg) != len(w.order) {
		return 1 << 62
	}
	t := int64(0)
	for l := max(lo, 0); l <= min(hi, len(w.order)-1); l++ {
		t = max(t, sc.layerChg[l])
	}
	return t
}

// flatten rebuilds layer l's order (and positions) from its block tree.
func (w *work) flatten(l int) {
	w.changed(l)
	w.flattenQuiet(l)
}

// flattenQuiet is flatten without recording a change, for orders that
// are put back as they were.
func (w *work) flattenQuiet(l int) {
	o := w.order[l][:0]
	for _, b := range w.roots[l] {
		if b >= 0 {
			w.pos[b] = int32(len(o))
			o = append(o, b)
		} else {
			o = w.flattenCluster(-1-b, o)
		}
	}
	w.order[l] = o
}

func (w *work) flattenCluster(c int, o []int) []int {
	for _, b := range w.clusters[c].kids {
		if b >= 0 {
			w.pos[b] = int32(len(o))
			o = append(o, b)
		} else {
			o = w.flattenCluster(-1-b, o)
		}
	}
	return o
}

// crossings counts segment crossings between layer l and l+1: with bit
// planes when layer l+1 has at most 64 items (crossingsNarrow, as in the
// graphs of a few hundred atoms), with an accumulator tree otherwise.
func (w *work) crossings(l int) int {
	switch {
	case l+1 >= len(w.order):
		return 0
	case len(w.order[l+1]) <= 64:
		return w.crossingsNarrow(l)
	}
	return w.crossingsTree(l)
}

// crossingsTree is crossings with an accumulator tree (Barth, Jünger,
// Mutzel) over the lower layer's positions. Segments are taken in the
// order of their upper ends, ties by lower end, without a global sort:
// each item's few lower positions are sorted in place.
func (w *work) crossingsTree(l int) int {
	q := len(w.order[l+1])
	first := 1
	for first < q {
		first *= 2
	}
	size := 2*first - 1
	if cap(w.scratch.tree) < size {
		w.scratch.tree = make([]int32, size)
	}
	tree := w.scratch.tree[:size]
	clear(tree)
	first--
	cross := 0
	var lows [8]int32
	pos, downNb, downOff := w.pos, w.downNb, w.downOff
	for _, it := range w.order[l] {
		lo, hi := downOff[it], downOff[it+1]
		var ps []int32
		if hi-lo == 1 {
			lows[0] = pos[downNb[lo]]
			ps = lows[:1]
		} else {
			ps = lows[:0]
			for _, x := range downNb[lo:hi] {
				ps = append(ps, pos[x])
			}
			insertionSort(ps)
		}
		for _, b := range ps {
			idx := int(b) + first
			tree[idx]++
			for idx > 0 {
				// a left child adds its right sibling's count
				odd := idx & 1
				cross += int(tree[idx+odd]) * odd
				idx = (idx - 1) >> 1
				tree[idx]++
			}
		}
	}
	return cross
}

// crossingsNarrow is crossings for a lower layer of at most 64 items.
// Instead of the accumulator tree it keeps the number of segments so far
// that end at each lower position in bit planes (bit p of planes[k] is
// bit k of position p's count), so the segments so far ending right of a
// position are a popcount per plane; the counts are small (an item's
// neighbours above), so there are few planes. An item's segments are
// counted against the segments of the items left of it before any is
// added, so they need no sorting: they share their upper end and cross
// none of each other.
func (w *work) crossingsNarrow(l int) int {
	var planes [32]uint64 // counts below 2^32: more than any item's neighbours
	np := 0               // planes in use
	cross := 0
	pos, downNb, downOff := w.pos, w.downNb, w.downOff
	for _, it := range w.order[l] {
		nb := downNb[downOff[it]:downOff[it+1]]
		for _, x := range nb {
			right := ^uint64(0) << (pos[x] + 1) // positions right of x's (none for 63)
			for k, pl := range planes[:np] {
				cross += bits.OnesCount64(pl&right) << k
			}
		}
		for _, x := range nb {
			// one more segment ends at x: add one to its count, carrying
			// from plane to plane
			m := uint64(1) << pos[x]
			k := 0
			for ; k < np; k++ {
				planes[k] ^= m
				if planes[k]&m != 0 {
					break
				}
			}
			if k == np {
				planes[np] = m
				np++
			}
		}
	}
	return cross
}

func (w *work) totalCrossings() int {
	c := 0
	for l := 0; l+1 < len(w.order); l++ {
		c += w.crossings(l)
	}
	return c
}

// orderSnapshot is a copy of the block lists: the roots of each layer,
// then the kids of each cluster, back to back in flat (list i is
// flat[off[i]:off[i+1]]).
type orderSnapshot struct {
	flat []int
	off  []int32
}

// snapshotInto copies the order into s, reusing its slices.
func (w *work) snapshotInto(s *orderSnapshot) {
	n := len(w.roots) + len(w.clusters)
	s.off = resize(s.off, n+1)
	if s.flat == nil {
		s.flat = make([]int, 0, len(w.items)+len(w.clusters)) // blocks at most
	}
	s.flat = s.flat[:0]
	for i, r := range w.roots {
		s.off[i] = int32(len(s.flat))
		s.flat = append(s.flat, r...)
	}
	for i := range w.clusters {
		s.off[len(w.roots)+i] = int32(len(s.flat))
		s.flat = append(s.flat, w.clusters[i].kids...)
	}
	s.off[n] = int32(len(s.flat))
}

func (w *work) restore(s *orderSnapshot) {
	for i := range w.roots {
		w.roots[i] = append(w.roots[i][:0], s.flat[s.off[i]:s.off[i+1]]...)
	}
	for i := range w.clusters {
		k := len(w.roots) + i
		w.clusters[i].kids = append(w.clusters[i].kids[:0], s.flat[s.off[k]:s.off[k+1]]...)
	}
	w.flattenAll()
}

// median is the weighted median of the neighbours' positions (Gansner et
// al.), or -1 without neighbours.
func median(p []int) float64 {
	m := len(p)
	switch m {
	case 0:
		return -1
	case 1:
		return float64(p[0])
	case 2:
		return float64(p[0]+p[1]) / 2
	}
	if m <= 16 {
		for i := 1; i < m; i++ {
			for j := i; j > 0 && p[j] < p[j-1]; j-- {
				p[j], p[j-1] = p[j-1], p[j]
			}
		}
	} else {
		slices.Sort(p)
	}
	if m%2 == 1 {
		return float64(p[m/2])
	}
	left := float64(p[m/2-1] - p[0])
	right := float64(p[m-1] - p[m/2])
	if left+right == 0 {
		return float64(p[m/2-1]+p[m/2]) / 2
	}
	return (float64(p[m/2-1])*right + float64(p[m/2])*left) / (left + right)
}

// sweepLayer reorders layer l by the median positions of its neighbours in
// the layer above (down) or below.
func (w *work) sweepLayer(l int, down bool, val []float64, reverse bool) {
	buf := w.scratch.buf
	off, nbs := w.downOff, w.downNb
	if down {
		off, nbs = w.upOff, w.upNb
	}
	for _, it := range w.order[l] {
		nb := nbs[off[it]:off[it+1]]
		if len(nb) == 1 {
			// a dummy's, and many a box's, only neighbour: its position
			// is the median and the barycentre
			val[it] = float64(w.pos[nb[0]])
			continue
		}
		buf = buf[:0]
		for _, x := range nb {
			buf = append(buf, int(w.pos[x]))
		}
		if w.bary && len(buf) > 0 {
			sum := 0
			for _, p := range buf {
				sum += p
			}
			val[it] = float64(sum) / float64(len(buf))
		} else {
			val[it] = median(buf)
		}
	}
	w.scratch.buf = buf
	w.sortBlocks(w.roots[l], val, reverse)
	for _, b := range w.roots[l] {
		if b < 0 {
			w.sortCluster(-1-b, val, reverse)
		}
	}
	w.flatten(l)
}

func (w *work) sortCluster(c int, val []float64, reverse bool) {
	kids := w.clusters[c].kids
	for _, k := range kids {
		if k < 0 {
			w.sortCluster(-1-k, val, reverse)
		}
	}
	w.sortBlocks(kids, val, reverse)
}

func (w *work) blockValue(b int, val []float64) float64 {
	if b >= 0 {
		return val[b]
	}
	sum, n := 0.0, 0
	for _, it := range w.clusters[-1-b].leaves {
		if val[it] >= 0 {
			sum += val[it]
			n++
		}
	}
	if n == 0 {
		return -1
	}
	return sum / float64(n)
}

// sortBlocks sorts blocks by value; blocks without a value keep their slot.
// With reverse, blocks of equal value swap their relative order.
func (w *work) sortBlocks(blocks []int, val []float64, reverse bool) {
	if len(blocks) < 2 {
		return
	}
	movable := w.scratch.bv[:0]
	slots := w.scratch.slots[:0]
	for i, b := range blocks {
		if v := w.blockValue(b, val); v >= 0 {
			movable = append(movable, blockVal{b, v})
			slots = append(slots, i)
		}
	}
	if reverse {
		// equal runs come out reversed
		slices.Reverse(movable)
	}
	w.scratch.bvTmp = stableSortBlocks(movable, w.scratch.bvTmp)
	for k, i := range slots {
		blocks[i] = movable[k].b
	}
	w.scratch.bv, w.scratch.slots = movable, slots
}

// stableSortBlocks sorts by value, keeping the order of equal values:
// short lists by insertion, longer ones by merging insertion-sorted runs
// through tmp (which it returns, grown, for reuse). Runs already in order
// are not merged, so a nearly sorted list costs little.
func stableSortBlocks(a, tmp []blockVal) []blockVal {
	const run = 24
	n := len(a)
	if n <= 2*run {
		insertionSortBlocks(a)
		return tmp
	}
	for lo := 0; lo < n; lo += run {
		insertionSortBlocks(a[lo:min(lo+run, n)])
	}
	tmp = resize(tmp, n)
	src, dst := a, tmp
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			mergeBlocks(dst[lo:hi], src[lo:mid], src[mid:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return tmp
}

func insertionSortBlocks(a []blockVal) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for ; j > 0 && a[j-1].v > x.v; j-- {
			a[j] = a[j-1]
		}
		a[j] = x
	}
}

// mergeBlocks merges the sorted l and r into dst, l first among equals.
func mergeBlocks(dst, l, r []blockVal) {
	if len(r) == 0 || l[len(l)-1].v <= r[0].v {
		copy(dst[copy(dst, l):], r)
		return
	}
	i, j, k := 0, 0, 0
	for i < len(l) && j < len(r) {
		if r[j].v < l[i].v {
			dst[k] = r[j]
			j++
		} else {
			dst[k] = l[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], l[i:])
	copy(dst[k:], r[j:])
}

func insertionSort(a []int32) {
	if len(a) > 12 {
		slices.Sort(a)
		return
	}
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// transpose swaps adjacent sibling items while that removes crossings;
// with equal it also swaps pairs whose crossings stay equal (as dot does, to
// leave plateaus), but only strict gains call for another pass.
//
// Only pairs with a dirty item are judged: an item is dirty when it or a
// neighbour moved since its layer was last judged (positions are compared
// with those the last call left, see markMoved), or, within a call, when
// a swap in the next layer changed the order of its neighbours against
// those of the item beside it (see markSwapped). A pair of clean items
// was judged, adjacent, against the same order of their neighbours and
// kept, so it would be kept again: skipping it changes nothing but the
// time, and late sweeps, which move few items, cost little.
func (w *work) transpose(maxPasses int, equal bool) {
	L := len(w.roots)
	sc := &w.scratch
	cand := resize(sc.cand, L)
	next := resize(sc.next, L)
	defer func() { sc.cand, sc.next = cand, next }()
	w.markMoved(equal, cand)
	dirty := sc.dirty
	for pass := 0; pass < maxPasses; pass++ {
		gained := false
		clear(next)
		for l := 0; l < L; l++ {
			if !cand[l] {
				continue
			}
			changed := false
			order := w.order[l]
			for _, kids := range w.siblingLists(l) {
				// the item judged last on the right and its neighbours'
				// positions (see onePos), which stay while layer l is
				// judged: the next pair has it on the left
				last, lu, ld := -1, int32(0), int32(0)
				for i := 0; i+1 < len(kids); i++ {
					a, b := kids[i], kids[i+1]
					if a < 0 || b < 0 || dirty[a]|dirty[b] == 0 {
						continue
					}
					au, ad := lu, ld
					if a != last {
						au, ad = w.onePos(a)
					}
					bu, bd := w.onePos(b)
					last, lu, ld = b, bu, bd
					keep, sw := w.pairCross(a, b, au, ad, bu, bd)
					if sw < keep || equal && keep > 0 && sw == keep {
						last, lu, ld = a, au, ad
						kids[i], kids[i+1] = b, a
						pa, pb := w.pos[a], w.pos[b]
						w.pos[a], w.pos[b] = pb, pa
						order[pb] = a
						order[pa] = b
						sc.tpos[a], sc.tpos[b] = pb, pa
						w.markSwapped(a, b, l)
						dirty[a] |= 2 // judged again at the next visit
						dirty[b] |= 2
						w.changed(l)
						changed = true
						if sw < keep {
							gained = true
						}
					}
				}
			}
			for _, it := range order {
				dirty[it] >>= 1
			}
			if changed {
				next[max(0, l-1)] = true
				next[l] = true
				next[min(L-1, l+1)] = true
			}
		}
		if !gained {
			return
		}
		cand, next = next, cand
	}
}

// markMoved marks dirty every item whose position changed since the last
// transpose (and its neighbours), or every item when the last call's
// judgements do not hold for this one (a first call; a pair of equal
// crossings kept when equal swaps were off), and sets cand for the layers
// with a dirty item.
func (w *work) markMoved(equal bool, cand []bool) {
	sc := &w.scratch
	n := len(w.items)
	if !w.tValid || len(sc.tpos) != n || equal && !sc.tEqual {
		w.tValid = true
		sc.tpos = resize(sc.tpos, n)
		sc.dirty = resize(sc.dirty, n)
		copy(sc.tpos, w.pos)
		for i := range sc.dirty {
			sc.dirty[i] = 1
		}
		for l := range cand {
			cand[l] = true
		}
		sc.tEqual = equal
		return
	}
	sc.tEqual = equal
	for it, p := range w.pos[:n] {
		if sc.tpos[it] != p {
			sc.tpos[it] = p
			sc.dirty[it] |= 1
			w.markNeighbours(it, 1)
		}
	}
	clear(cand)
	for l, o := range w.order {
		for _, it := range o {
			if sc.dirty[it] != 0 {
				cand[l] = true
				break
			}
		}
	}
}

// markNeighbours marks item it's neighbours above and below dirty.
func (w *work) markNeighbours(it int, bit uint8) {
	d := w.scratch.dirty
	for _, x := range w.upNb[w.upOff[it]:w.upOff[it+1]] {
		d[x] |= bit
	}
	for _, x := range w.downNb[w.downOff[it]:w.downOff[it+1]] {
		d[x] |= bit
	}
}

// markSwapped marks dirty what the swap of a and b, adjacent in layer l,
// may make judge otherwise in the layers above and below: a pair judges
// by the order of its items' neighbours, and the swap changed only the
// order of a and b. So only a pair of adjacent items c, d with c a
// neighbour of a and d one of b is marked; every other pair would be
// kept again (see transpose).
func (w *work) markSwapped(a, b, l int) {
	d, pos := w.scratch.dirty, w.pos
	if l > 0 {
		if c, e := w.upOne[a], w.upOne[b]; c >= 0 && e >= 0 {
			p := pos[c] - pos[e]
			var m uint8
			if p*p == 1 {
				m = 1
			}
			d[c] |= m
			d[e] |= m
		} else {
			w.markAdjacent(w.upNb[w.upOff[a]:w.upOff[a+1]], w.upNb[w.upOff[b]:w.upOff[b+1]])
		}
	}
	if l+1 < len(w.order) {
		if c, e := w.downOne[a], w.downOne[b]; c >= 0 && e >= 0 {
			p := pos[c] - pos[e]
			var m uint8
			if p*p == 1 {
				m = 1
			}
			d[c] |= m
			d[e] |= m
		} else {
			w.markAdjacent(w.downNb[w.downOff[a]:w.downOff[a+1]], w.downNb[w.downOff[b]:w.downOff[b+1]])
		}
	}
}

// markAdjacent marks dirty every item of na next to an item of nb in
// their layer's order, and that item.
func (w *work) markAdjacent(na, nb []int32) {
	d, pos := w.scratch.dirty, w.pos
	for _, c := range na {
		pc := pos[c]
		for _, e := range nb {
			p := pc - pos[e]
			var m uint8
			if p*p == 1 {
				m = 1
			}
			d[c] |= m
			d[e] |= m
		}
	}
}

// onePos returns the positions of item it's only neighbour above and
// below (as dummies have), or -1 where it has several or none.
func (w *work) onePos(it int) (up, down int32) {
	// the slots spare a branch on each side, which the mix of items with
	// one neighbour and with several makes hard to foretell
	return w.pos[w.upSlot[it]], w.pos[w.downSlot[it]]
}

// pairCross returns the crossings between the segments of items a and b
// of one layer with a left of b (keep) and with b left of a (swap),
// reading the neighbours' current positions; au, ad, bu and bd are a's
// and b's onePos. The side above and the side below are written out
// twice on purpose: one function per side, called twice, is not inlined
// and made layouts measurably slower (transpose calls this for every
// pair it judges).
func (w *work) pairCross(a, b int, au, ad, bu, bd int32) (keep, swap int) {
	pos := w.pos
	switch {
	case au >= 0 && bu >= 0:
		d := au - bu
		keep, swap = int(uint32(-d)>>31), int(uint32(d)>>31)
	case au >= 0:
		for _, y := range w.upNb[w.upOff[b]:w.upOff[b+1]] {
			d := au - pos[y]
			keep += int(uint32(-d) >> 31)
			swap += int(uint32(d) >> 31)
		}
	case bu >= 0:
		for _, x := range w.upNb[w.upOff[a]:w.upOff[a+1]] {
			d := pos[x] - bu
			keep += int(uint32(-d) >> 31)
			swap += int(uint32(d) >> 31)
		}
	default:
		keep, swap = crossPairs(pos, w.upNb[w.upOff[a]:w.upOff[a+1]], w.upNb[w.upOff[b]:w.upOff[b+1]])
	}
	switch {
	case ad >= 0 && bd >= 0:
		d := ad - bd
		keep += int(uint32(-d) >> 31)
		swap += int(uint32(d) >> 31)
	case ad >= 0:
		for _, y := range w.downNb[w.downOff[b]:w.downOff[b+1]] {
			d := ad - pos[y]
			keep += int(uint32(-d) >> 31)
			swap += int(uint32(d) >> 31)
		}
	case bd >= 0:
		for _, x := range w.downNb[w.downOff[a]:w.downOff[a+1]] {
			d := pos[x] - bd
			keep += int(uint32(-d) >> 31)
			swap += int(uint32(d) >> 31)
		}
	default:
		k, s := crossPairs(pos, w.downNb[w.downOff[a]:w.downOff[a+1]], w.downNb[w.downOff[b]:w.downOff[b+1]])
		keep, swap = keep+k, swap+s
	}
	return keep, swap
}

// crossPairs counts the pairs of neighbours (x of a, y of b) with y left
// of x (keep) and right of x (swap). Degrees are small: all pairs.
func crossPairs(pos []int32, na, nb []int32) (keep, swap int) {
	for _, x := range na {
		px := pos[x]
		for _, y := range nb {
			d := px - pos[y] // positions are small: no overflow
			keep += int(uint32(-d) >> 31)
			swap += int(uint32(d) >> 31)
		}
	}
	return keep, swap
}

// fillNeighbours sorts, for every item of layer l, the positions of its
// neighbours above and below (valid while those layers keep their order).
func (w *work) fillNeighbours(l int) {
	for _, it := range w.order[l] {
		a, z := w.upOff[it], w.upOff[it+1]
		for k := a; k < z; k++ {
			w.upPos[k] = w.pos[w.upNb[k]]
		}
		if z-a > 1 {
			insertionSort(w.upPos[a:z])
		}
		a, z = w.downOff[it], w.downOff[it+1]
		for k := a; k < z; k++ {
			w.downPos[k] = w.pos[w.downNb[k]]
		}
		if z-a > 1 {
			insertionSort(w.downPos[a:z])
		}
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// effort is how hard crossing reduction tries. It depends on the graph's
// size and on whether it falls into parts only, so the result is
// deterministic.
type effort struct {
	starts int  // starting orders (see minimizeWith)
	iters  int  // median sweeps per start
	quit   int  // a start stops after this many sweeps without a real gain (0: never)
	again  int  // sweeps again from the best order of each part, times
	rounds int  // polishing rounds at most
	sift   bool // polishing sifts
	window int  // slots a dummy may move either way when a long edge is rerouted
}

// convergence is dot's: a sweep whose crossings are not below this
// fraction of the best so far gains nothing real.
const convergence = 0.995

// effort is how hard to try on w: everything up to 2,500 segments; three
// starts up to 5,000. Above that a graph of many parts (parts: see
// bestParts; the simulator's loops) keeps three starts: each sweep offers
// every part a new order, and the parts are small, so sweeps still pay
// (with one start of four sweeps the simulator's loops of 5,000 and
// 10,000 atoms crossed 20 % more than dot's). A graph that is one big
// part (long strands) takes one start of four sweeps and two rounds of
// polishing, where rerouting long edges gains most (with three sweeps and
// no rounds, as above 30,000 segments before, the long-edge loops of
// 5,000 and 10,000 atoms crossed 10-13 % more than dot's).
func (w *work) effort(parts bool) effort {
	switch segs := len(w.segs); {
	case segs <= 2500:
		return effort{starts: 4, iters: 24, quit: 6, again: 1, rounds: 4, sift: true, window: 16}
	case segs <= 5000 || parts:
		return effort{starts: 3, iters: 12, quit: 6, again: 1, rounds: 2, sift: true, window: 8}
	}
	return effort{starts: 1, iters: 4, rounds: 2, window: 8}
}

// minimizeCrossings orders the layers for few crossings, then solves small
// graphs exactly.
func (w *work) minimizeCrossings() {
	bp := w.newBestParts()
	if best := w.minimizeWith(w.effort(bp != nil), bp); best > 0 && w.aheadLay == nil {
		w.exactSmall(best)
	}
}

// minimizeWith runs median sweeps with transposition from several
// starting orders (input order, DFS from the sources, DFS from the sinks;
// then the same with barycentres, as far as e.starts goes), keeps the best and polishes it: long
// edges rerouted whole, sifting, transposition. It returns the crossings.
//
// When the layered graph falls into several parts (the simulator's loops
// have hundreds: strands, OR groups and decompositions apart from the
// rest), every order a sweep reaches is also judged part by part: each
// part keeps its best order over all sweeps and starts, as dot minimises
// each component on its own, and the parts are then laid side by side
// (see bestParts; bp, from newBestParts, is nil for a graph of one
// part); with e.again, sweeps run again from that order.
//
// The starts are independent and run side by side (runStarts); each
// judges parts on its own and the results are merged in start order, so
// the outcome is the same on any number of cores.
func (w *work) minimizeWith(e effort, bp *bestParts) int {
	start := &w.scratch.start
	w.snapshotInto(start)
	best, last, winner := -1, 0, -1
	runs, ahead := w.runStarts(e, start, bp)
	for k := range runs {
		if best < 0 || runs[k].c < best {
			best, winner = runs[k].c, k
		}
		last = k
		if best == 0 {
			break
		}
	}
	if ahead.k >= 0 && ahead.k == winner {
		// polished, and laid out, while the last starts ran (see
		// runStarts)
		w.restore(&ahead.snap)
		w.aheadLay = ahead.lay
		return ahead.c
	}
	w.restore(&runs[winner].snap)
	if bp != nil {
		for _, r := range runs[:last+1] {
			bp.merge(r.bp)
		}
	}
	w.bp = bp
	defer func() { w.bp = nil }()
	bestSnap := &w.scratch.best
	w.snapshotInto(bestSnap)
	w.bary = e.starts > 3 // the again sweeps as the last start's
	if bp != nil {
		if c := bp.apply(w); c <= best {
			best = c
			for p := 0; p < e.again && best > 0; p++ {
				w.medianSweeps(e.iters, e.quit)
				best = bp.apply(w)
			}
		} else {
			w.restore(bestSnap)
		}
	}
	w.bary = false
	w.chainWindow = e.window
	return w.polish(best, e.rounds, e.sift)
}

// polish improves the order, whose crossings are have, by rounds of long
// edge rerouting, sifting and transposition until a round gains nothing.
// Each step only makes strict gains.
func (w *work) polish(have, rounds int, sift bool) int {
	for r := 0; r < rounds && have > 0; r++ {
		w.rerouteChains()
		if sift {
			w.sift(1)
		}
		w.transpose(8, false)
		c := w.totalCrossings()
		if c >= have {
			break
		}
		have = c
	}
	return have
}

// siblingLists returns the root list and the kids of every cluster of
// layer l: the lists within which items may move.
// The result is a scratch buffer, valid until the next call.
func (w *work) siblingLists(l int) [][]int {
	lists := append(w.scratch.lists[:0], w.roots[l])
	for _, ci := range w.layerClusters(l) {
		lists = append(lists, w.clusters[ci].kids)
	}
	w.scratch.lists = lists
	return lists
}

func (w *work) layerClusters(l int) []int {
	if w.byLayer == nil {
		w.byLayer = make([][]int, len(w.roots))
		for ci := range w.clusters {
			w.byLayer[w.clusters[ci].layer] = append(w.byLayer[w.clusters[ci].layer], ci)
		}
	}
	return w.byLayer[l]
}

// medianSweeps runs up to iters median (or barycentre) sweeps, each
// followed by transposition, from the current order, leaves the best order
// found and returns its crossings. Each sweep's order is offered to w.bp.
// As in dot, the sweeps stop once quit of them in a row (if quit > 0) have
// not brought the crossings below convergence times the best so far, nor
// lowered any part's best.
func (w *work) medianSweeps(iters, quit int) int {
	best := w.totalCrossings()
	bestSnap := &w.scratch.improve
	w.snapshotInto(bestSnap)
	w.scratch.val = resize(w.scratch.val, len(w.items))
	val := w.scratch.val
	L := len(w.order)
	stale := 0 // sweeps since the last real gain
	for iter := 0; iter < iters && best > 0 && (quit <= 0 || stale < quit); iter++ {
		// The first sweep lets equal medians swap places; the others keep
		// them in order and let transposition swap pairs of equal
		// crossings, to leave plateaus. (dot alternates the two every other
		// pair of sweeps; this schedule did better on the recorded graphs
		// and on 36 more, and needs fewer sweeps.)
		reverse := iter == 0
		if iter%2 == 0 {
			for l := 1; l < L; l++ {
				w.sweepLayer(l, true, val, reverse)
			}
		} else {
			for l := L - 2; l >= 0; l-- {
				w.sweepLayer(l, false, val, reverse)
			}
		}
		w.transpose(8, !reverse)
		stale++
		if c := w.totalCrossings(); c <= best {
			if float64(c) < convergence*float64(best) {
				stale = 0
			}
			best = c
			w.snapshotInto(bestSnap)
		}
		if w.bp != nil && w.bp.offer(w) {
			stale = 0
		}
	}
	w.restore(bestSnap)
	return best
}

// dfsValues numbers items in depth-first order from the items with nothing
// above them (in input order), so connected items start out together, as
// dot's initial order does.
func (w *work) dfsValues(reverse bool) []float64 {
	val := make([]float64, len(w.items))
	seen := make([]bool, len(w.items))
	k := 0.0
	var stack []int
	push := func(it int) {
		if !seen[it] {
			seen[it] = true
			stack = append(stack, it)
		}
	}
	starts := make([]int, 0, len(w.items))
	for it := range w.items {
		if w.upOff[it] == w.upOff[it+1] && !reverse || w.downOff[it] == w.downOff[it+1] && reverse {
			starts = append(starts, it)
		}
	}
	for _, s := range starts {
		push(s)
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			val[it] = k
			k++
			segs := w.downSegs(it)
			if reverse {
				segs = w.upSegs(it)
			}
			for i := len(segs) - 1; i >= 0; i-- {
				o := w.segs[segs[i]].down
				if reverse {
					o = w.segs[segs[i]].up
				}
				push(o)
			}
		}
	}
	return val
}
