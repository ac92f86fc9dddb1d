package graph

import (
	"slices"
	"sort"
	"strconv"
)

// item is one position in a layer: a node's box, the port of a frame
// parent (plead), or a dummy that carries a long edge through the layer.
type item struct {
	node  int // drawn node, -1 for a dummy
	edge  int // dummy: index in ranking.edges, -1 otherwise
	plead bool
	layer int
	pos   int // index in the layer's order
	up    []int
	down  []int // segment indices
	cl    int   // innermost cluster, -1 for none
	size  int   // minor size in cells
	x     int   // minor coordinate of the first cell
	key   string
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
	seq    int   // creation order, for ties
}

// block references: >= 0 an item, < 0 the cluster -1-b.
func clusterBlock(c int) int { return -1 - c }

type work struct {
	st       *structure
	rk       *ranking
	opt      Options
	items    []item
	segs     []segment
	order    [][]int // items of each layer in order
	roots    [][]int // top-level blocks of each layer
	clusters []cluster
	nodeItem []int
	edgeSegs [][]int // segments of each ranking edge, top to bottom
	frameCl  []int   // frame index → cluster
	bary     bool    // sweeps use barycenters instead of medians
	tree     []int   // scratch for crossings
	byLayer  [][]int // clusters of each layer
	nbUp     [][]int // sorted neighbour positions (see fillNeighbours)
	nbDown   [][]int
	delta    []int // scratch for sifting
}

func newWork(st *structure, rk *ranking, opt Options) *work {
	w := &work{st: st, rk: rk, opt: opt}
	n := len(st.nodes)
	w.nodeItem = make([]int, n)
	degree := make([]int, n)
	for _, e := range rk.edges {
		degree[e.from]++
		degree[e.to]++
	}
	w.order = make([][]int, rk.layers)
	span := 0
	for _, e := range rk.edges {
		span += rk.rank[e.lower()] - rk.rank[e.upper()]
	}
	w.items = make([]item, 0, n+span)
	w.segs = make([]segment, 0, span)
	for v := 0; v < n; v++ {
		w.nodeItem[v] = -1
		plead := rk.frameOf[v] >= 0
		if plead && degree[v] == 0 {
			continue
		}
		w.nodeItem[v] = len(w.items)
		w.items = append(w.items, item{node: v, edge: -1, plead: plead, layer: rk.rank[v], cl: -1, key: st.nodes[v].id})
	}
	w.edgeSegs = make([][]int, len(rk.edges))
	for ei, e := range rk.edges {
		u, l := e.upper(), e.lower()
		prev := w.nodeItem[u]
		for r := rk.rank[u] + 1; r <= rk.rank[l]; r++ {
			next := w.nodeItem[l]
			if r < rk.rank[l] {
				next = len(w.items)
				w.items = append(w.items, item{node: -1, edge: ei, layer: r, cl: -1,
					key: st.nodes[e.from].id + ">" + st.nodes[e.to].id + "#" + strconv.Itoa(r)})
			}
			si := len(w.segs)
			w.segs = append(w.segs, segment{up: prev, down: next, edge: ei})
			w.items[prev].down = append(w.items[prev].down, si)
			w.items[next].up = append(w.items[next].up, si)
			w.edgeSegs[ei] = append(w.edgeSegs[ei], si)
			prev = next
		}
	}
	w.buildClusters()
	return w
}

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
		w.clusters = append(w.clusters, cluster{kind: clusterFrame, layer: layer, frame: fi, group: -1, parent: -1, seq: ci})
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
			w.clusters = append(w.clusters, cluster{kind: clusterOR, layer: l, frame: -1, group: gi, parent: -1, leaves: leaves, seq: ci})
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
	w.roots = make([][]int, L)
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
	minVal := make([]float64, len(w.clusters))
	bv := func(b int) float64 {
		if b >= 0 {
			return value(b)
		}
		c := -1 - b
		return minVal[c]
	}
	// clusters deeper first so parents see their children's values
	idx := make([]int, len(w.clusters))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return w.clusters[idx[a]].level < w.clusters[idx[b]].level })
	for _, ci := range idx {
		kids := w.clusters[ci].kids
		sort.SliceStable(kids, func(a, b int) bool { return bv(kids[a]) < bv(kids[b]) })
		if len(kids) > 0 {
			minVal[ci] = bv(kids[0])
		}
	}
	for l := range w.roots {
		r := w.roots[l]
		sort.SliceStable(r, func(a, b int) bool { return bv(r[a]) < bv(r[b]) })
	}
	w.flattenAll()
}

func (w *work) flattenAll() {
	for l := range w.roots {
		w.flatten(l)
	}
}

func (w *work) flatten(l int) {
	o := w.order[l][:0]
	var walk func(b int)
	walk = func(b int) {
		if b >= 0 {
			w.items[b].pos = len(o)
			o = append(o, b)
			return
		}
		for _, k := range w.clusters[-1-b].kids {
			walk(k)
		}
	}
	for _, b := range w.roots[l] {
		walk(b)
	}
	w.order[l] = o
}

// crossings counts segment crossings between layer l and l+1 with an
// accumulator tree (Barth, Jünger, Mutzel). Segments are taken in the order
// of their upper ends, ties by lower end, without a global sort: each
// item's few lower positions are sorted in place.
func (w *work) crossings(l int, tree []int) int {
	if l+1 >= len(w.order) {
		return 0
	}
	q := len(w.order[l+1])
	first := 1
	for first < q {
		first *= 2
	}
	size := 2*first - 1
	if cap(tree) < size {
		tree = make([]int, size)
	}
	tree = tree[:size]
	clear(tree)
	first--
	cross := 0
	var lows [8]int
	for _, it := range w.order[l] {
		d := w.items[it].down
		ps := lows[:0]
		for _, s := range d {
			ps = append(ps, w.items[w.segs[s].down].pos)
		}
		for i := 1; i < len(ps); i++ { // insertion sort: few entries
			for j := i; j > 0 && ps[j] < ps[j-1]; j-- {
				ps[j], ps[j-1] = ps[j-1], ps[j]
			}
		}
		for _, b := range ps {
			idx := b + first
			tree[idx]++
			for idx > 0 {
				if idx%2 == 1 {
					cross += tree[idx+1]
				}
				idx = (idx - 1) / 2
				tree[idx]++
			}
		}
	}
	return cross
}

func (w *work) totalCrossings() int {
	c := 0
	for l := 0; l+1 < len(w.order); l++ {
		c += w.crossings(l, w.tree)
		if n := 2 * len(w.order[l+1]); cap(w.tree) < n {
			w.tree = make([]int, 0, 2*n)
		}
	}
	return c
}

type orderSnapshot struct {
	roots [][]int
	kids  [][]int
}

func (w *work) snapshot() orderSnapshot {
	var s orderSnapshot
	w.snapshotInto(&s)
	return s
}

// snapshotInto copies the order into s, reusing its slices.
func (w *work) snapshotInto(s *orderSnapshot) {
	if len(s.roots) != len(w.roots) {
		s.roots = make([][]int, len(w.roots))
	}
	if len(s.kids) != len(w.clusters) {
		s.kids = make([][]int, len(w.clusters))
	}
	for i, r := range w.roots {
		s.roots[i] = append(s.roots[i][:0], r...)
	}
	for i, c := range w.clusters {
		s.kids[i] = append(s.kids[i][:0], c.kids...)
	}
}

func (w *work) restore(s orderSnapshot) {
	for i := range w.roots {
		w.roots[i] = append(w.roots[i][:0], s.roots[i]...)
	}
	for i := range w.clusters {
		w.clusters[i].kids = append(w.clusters[i].kids[:0], s.kids[i]...)
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
	slices.Sort(p)
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
func (w *work) sweepLayer(l int, down bool, val []float64, buf []int, reverse bool) {
	for _, it := range w.order[l] {
		buf = buf[:0]
		if down {
			for _, s := range w.items[it].up {
				buf = append(buf, w.items[w.segs[s].up].pos)
			}
		} else {
			for _, s := range w.items[it].down {
				buf = append(buf, w.items[w.segs[s].down].pos)
			}
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
	type bv struct {
		b int
		v float64
	}
	movable := make([]bv, 0, len(blocks))
	for _, b := range blocks {
		if v := w.blockValue(b, val); v >= 0 {
			movable = append(movable, bv{b, v})
		}
	}
	if reverse {
		// equal runs come out reversed
		slices.Reverse(movable)
	}
	slices.SortStableFunc(movable, func(a, b bv) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	k := 0
	for i, b := range blocks {
		if w.blockValue(b, val) >= 0 {
			blocks[i] = movable[k].b
			k++
		}
	}
}

// fillNeighbours sorts, for every item of layer l, the positions of its
// neighbours above and below (valid while those layers keep their order).
func (w *work) fillNeighbours(l int) {
	if len(w.nbUp) != len(w.items) {
		w.nbUp = make([][]int, len(w.items))
		w.nbDown = make([][]int, len(w.items))
	}
	for _, it := range w.order[l] {
		u := w.nbUp[it][:0]
		for _, s := range w.items[it].up {
			u = append(u, w.items[w.segs[s].up].pos)
		}
		insertionSort(u)
		w.nbUp[it] = u
		d := w.nbDown[it][:0]
		for _, s := range w.items[it].down {
			d = append(d, w.items[w.segs[s].down].pos)
		}
		insertionSort(d)
		w.nbDown[it] = d
	}
}

func insertionSort(a []int) {
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

// transpose swaps adjacent sibling items while that removes crossings
// (with equal, also when it keeps them equal). A layer is revisited only
// when it or a neighbouring layer changed in the previous pass, which gives
// the same result as revisiting all of them.
func (w *work) transpose(maxPasses int, equal bool) {
	L := len(w.roots)
	cand := make([]bool, L)
	next := make([]bool, L)
	for l := range cand {
		cand[l] = true
	}
	for pass := 0; pass < maxPasses; pass++ {
		improved := false
		clear(next)
		for l := 0; l < L; l++ {
			if !cand[l] {
				continue
			}
			changed := false
			w.fillNeighbours(l)
			up, down := w.nbUp, w.nbDown
			for _, kids := range w.siblingLists(l) {
				for i := 0; i+1 < len(kids); i++ {
					a, b := kids[i], kids[i+1]
					if a < 0 || b < 0 {
						continue
					}
					keep := pairCount(up[a], up[b]) + pairCount(down[a], down[b])
					sw := pairCount(up[b], up[a]) + pairCount(down[b], down[a])
					if sw < keep || equal && keep > 0 && sw == keep {
						kids[i], kids[i+1] = b, a
						pa := w.items[a].pos
						w.items[a].pos, w.items[b].pos = w.items[b].pos, pa
						w.order[l][w.items[a].pos] = a
						w.order[l][w.items[b].pos] = b
						changed = true
					}
				}
			}
			if changed {
				improved = true
				for k := max(0, l-1); k <= min(L-1, l+1); k++ {
					next[k] = true
				}
			}
		}
		if !improved {
			return
		}
		cand, next = next, cand
	}
}

// minimizeCrossings improves several starting orders (input order, DFS
// from the sources, DFS from the sinks), each once with medians and once
// with barycentres; it keeps the best, improves it once more, shakes it once
// (swapping random neighbours, deterministically) and improves again, then
// solves small graphs exactly. Big graphs get fewer starts, one variant and
// no extra passes: effort is a function of size only, so the result is
// deterministic.
func (w *work) minimizeCrossings() {
	inits := [][]float64{nil, w.dfsValues(false), w.dfsValues(true)}
	segs := len(w.segs)
	variants, shakes := 2, 1
	switch {
	case segs > 20000:
		inits, variants, shakes = inits[:1], 1, 0
	case segs > 6000:
		inits, variants, shakes = inits[:2], 1, 0
	case segs > 2500:
		shakes = 0
	}
	start := w.snapshot()
	best := -1
	var bestSnap orderSnapshot
	for k := 0; k < variants*len(inits); k++ {
		v := inits[k%len(inits)]
		if v != nil {
			w.initOrder(func(it int) float64 { return v[it] })
		} else {
			w.restore(start)
		}
		w.bary = k >= len(inits)
		c := w.improveOrder()
		if best < 0 || c < best {
			best, bestSnap = c, w.snapshot()
		}
		if best == 0 {
			break
		}
	}
	w.restore(bestSnap)
	// one more pass from the best order, as dot's third pass
	if best > 0 && segs <= 6000 {
		w.bary = false
		if c := w.improveOrder(); c < best {
			best, bestSnap = c, w.snapshot()
		}
	}
	r := uint64(len(w.items))*0x9e3779b97f4a7c15 + 1
	for k := 0; k < shakes && best > 0; k++ {
		w.restore(bestSnap)
		for l := range w.roots {
			for _, kids := range w.siblingLists(l) {
				for i := 0; i+1 < len(kids); i++ {
					r ^= r << 13
					r ^= r >> 7
					r ^= r << 17
					if r%6 == 0 {
						kids[i], kids[i+1] = kids[i+1], kids[i]
					}
				}
			}
			w.flatten(l)
		}
		w.bary = k%2 == 1
		if c := w.improveOrder(); c < best {
			best, bestSnap = c, w.snapshot()
		}
	}
	w.restore(bestSnap)
	if best > 0 {
		w.exactSmall(best)
	}
}

// siblingLists returns the root list and the kids of every cluster of
// layer l: the lists within which items may move.
func (w *work) siblingLists(l int) [][]int {
	lists := [][]int{w.roots[l]}
	for _, ci := range w.layerClusters(l) {
		lists = append(lists, w.clusters[ci].kids)
	}
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

// improveOrder runs median sweeps with transposition from the current
// order, then sifting; it leaves the best order found and returns its
// crossings.
func (w *work) improveOrder() int {
	best := w.totalCrossings()
	bestSnap := w.snapshot()
	val := make([]float64, len(w.items))
	var buf []int
	L := len(w.order)
	stale := 0
	maxIter, maxStale := 24, 8
	if len(w.segs) > 20000 {
		maxIter, maxStale = 6, 3
	}
	for iter := 0; iter < maxIter && best > 0; iter++ {
		// As dot does: every other pair of iterations lets equal medians
		// and equal transpositions swap, to leave plateaus.
		reverse := iter%4 < 2
		if iter%2 == 0 {
			for l := 1; l < L; l++ {
				w.sweepLayer(l, true, val, buf, reverse)
			}
		} else {
			for l := L - 2; l >= 0; l-- {
				w.sweepLayer(l, false, val, buf, reverse)
			}
		}
		w.transpose(8, !reverse)
		c := w.totalCrossings()
		if c <= best {
			if c < best {
				stale = 0
			}
			best = c
			w.snapshotInto(&bestSnap)
		}
		if stale++; stale >= maxStale {
			break
		}
	}
	w.restore(bestSnap)
	if best > 0 {
		w.sift(w.siftRounds())
		w.transpose(8, false)
		if c := w.totalCrossings(); c < best {
			best = c
		} else {
			w.restore(bestSnap)
		}
	}
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
		if len(w.items[it].up) == 0 && !reverse || len(w.items[it].down) == 0 && reverse {
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
			segs := w.items[it].down
			if reverse {
				segs = w.items[it].up
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

// siftRounds is how many sifting rounds the graph can afford: a round costs
// about the sum over layers of (layer size)² neighbour merges.
func (w *work) siftRounds() int {
	cost := 0
	for _, o := range w.order {
		cost += len(o) * len(o)
	}
	switch {
	case cost < 100_000:
		return 6
	case cost < 400_000:
		return 1
	}
	return 0
}
