package dagdraw

import "slices"

// builder holds what the steps of Layout.build share: the work state, the
// layer rows and the growing stroke, mark and edge-id arrays.
type builder struct {
	lay   *Layout
	w     *work
	st    *structure
	rk    *ranking
	bs    []bundle
	g     geometry
	tb    bool  // top-down: abstract major is y
	depth []int // frame nesting of each layer
	size  []int // major size of each layer's band

	runEnd []int32 // first straight segment of a run: its last row; others -1
	inRun  []bool  // dummies drawn by a run
	ids    []int32 // backing array of strokes' and marks' edge lists
}

// build turns the work state into cells: layer rows, boxes, frames,
// strokes and marks, and the index used to paint.
func (lay *Layout) build(w *work, rk *ranking, bs []bundle, g geometry, chans []int) {
	b := &builder{lay: lay, w: w, st: w.st, rk: rk, bs: bs, g: g, tb: w.st.orient == TopDown}
	b.layerRows(chans)
	frameOfCluster := b.placeFrames()
	b.placeNodes(frameOfCluster)
	b.keepSeeds()
	b.findRuns()
	b.allocStrokes()
	for bi := range bs {
		b.drawBundle(bi)
	}
	b.drawDummies()
	lay.bounds = b.bounds()
	lay.crossN = w.totalCrossings()
	lay.grid = buildGrid(lay)
	lay.placeLabels()
}

// layerRows sets each layer's first row and band size.
func (b *builder) layerRows(chans []int) {
	L := b.rk.layers
	b.depth = make([]int, L)
	for _, c := range b.w.clusters {
		b.depth[c.layer] = max(b.depth[c.layer], c.level)
	}
	b.size = make([]int, L)
	b.lay.layerY = make([]int, L)
	y := 0
	for l := 0; l < L; l++ {
		b.lay.layerY[l] = y
		b.size[l] = b.g.boxMajor + 2*b.depth[l]*b.g.padMajor
		y += b.size[l] + chans[l]
	}
}

func (b *builder) boxStart(l int) int { return b.lay.layerY[l] + b.depth[l]*b.g.padMajor }
func (b *builder) boxEnd(l int) int   { return b.boxStart(l) + b.g.boxMajor - 1 }

// screen converts abstract (major, minor) to (x, y).
func (b *builder) screen(major, minor int) (int, int) {
	if b.tb {
		return minor, major
	}
	return major, minor
}

// rect is the screen rectangle of a major range and a minor range, inclusive.
func (b *builder) rect(m0, m1, n0, n1 int) Rect {
	x0, y0 := b.screen(m0, n0)
	x1, y1 := b.screen(m1, n1)
	return Rect{X: x0, Y: y0, W: x1 - x0 + 1, H: y1 - y0 + 1}
}

// placeFrames places the frames of clusters and returns each cluster's
// frame index.
func (b *builder) placeFrames() []int {
	w, g, lay := b.w, b.g, b.lay
	frameOfCluster := make([]int, len(w.clusters))
	ext := make([][2]int, len(w.clusters))
	done := make([]bool, len(w.clusters))
	var minorExt func(c int) (int, int)
	minorExt = func(c int) (int, int) {
		if done[c] {
			return ext[c][0], ext[c][1]
		}
		lo, hi := 1<<30, -1<<30
		for _, k := range w.clusters[c].kids {
			if k >= 0 {
				lo = min(lo, w.items[k].x-g.padMinor)
				hi = max(hi, w.items[k].x+w.items[k].size-1+g.padMinor)
			} else {
				a, z := minorExt(-1 - k)
				lo, hi = min(lo, a-g.padMinor), max(hi, z+g.padMinor)
			}
		}
		done[c] = true
		ext[c] = [2]int{lo, hi}
		return lo, hi
	}
	for ci, c := range w.clusters {
		lo, hi := minorExt(ci)
		m0 := b.boxStart(c.layer) - c.level*g.padMajor
		m1 := b.boxEnd(c.layer) + c.level*g.padMajor
		pf := placedFrame{rect: b.rect(m0, m1, lo, hi), kind: c.kind, node: -1, group: -1, level: c.level}
		if c.kind == clusterFrame {
			pf.node = b.rk.frames[c.frame].parent
		} else {
			pf.group = b.st.groups[c.group].gi
			pf.name = b.st.groups[c.group].name
		}
		frameOfCluster[ci] = len(lay.frames)
		lay.frames = append(lay.frames, pf)
	}
	return frameOfCluster
}

// placeNodes places every drawn node and lists each layer's nodes in order.
func (b *builder) placeNodes(frameOfCluster []int) {
	w, rk, st, lay := b.w, b.rk, b.st, b.lay
	lay.index = st.index // drawn node id → index, as st.nodes
	lay.nodes = make([]placedNode, len(st.nodes))
	for v, n := range st.nodes {
		pn := placedNode{id: n.id, kind: n.kind, src: n.src, folded: n.folded, frame: -1, layer: rk.rank[v]}
		if fi := rk.frameOf[v]; fi >= 0 {
			pn.frame = frameOfCluster[w.frameCl[fi]]
			pn.rect = lay.frames[pn.frame].rect
		} else if it := w.nodeItem[v]; it >= 0 {
			i := &w.items[it]
			pn.rect = b.rect(b.boxStart(i.layer), b.boxEnd(i.layer), i.x, i.x+i.size-1)
		}
		lay.nodes[v] = pn
	}
	lay.layers = make([][]int, rk.layers)
	for l := range lay.layers {
		for _, it := range w.order[l] {
			if n := w.items[it].node; n >= 0 {
				lay.nodes[n].pos = len(lay.layers[l])
				lay.layers[l] = append(lay.layers[l], n)
			}
		}
	}
	// Frame parents without edges have no item: put them by their frame.
	for v := range lay.nodes {
		if w.nodeItem[v] < 0 && lay.nodes[v].frame >= 0 {
			l := lay.nodes[v].layer
			at := len(lay.layers[l])
			fx := lay.nodes[v].rect.X + lay.nodes[v].rect.Y
			for k, o := range lay.layers[l] {
				if r := lay.nodes[o].rect; r.X+r.Y > fx {
					at = k
					break
				}
			}
			lay.layers[l] = slices.Insert(lay.layers[l], at, v)
			for k, o := range lay.layers[l] {
				lay.nodes[o].pos = k
			}
		}
	}
}

// keepSeeds records where nodes and dummies are, to seed the next layout,
// and the edges.
func (b *builder) keepSeeds() {
	w, rk, lay := b.w, b.rk, b.lay
	lay.nodeSeed = make([]seedPos, len(b.st.nodes))
	for v, it := range w.nodeItem {
		if it >= 0 {
			lay.nodeSeed[v] = seedPos{int32(w.items[it].x), w.pos[it], int32(w.items[it].size), true}
		}
	}
	lay.dumOff = make([]int32, len(rk.edges)+1)
	for e, segs := range w.edgeSegs {
		lay.dumOff[e+1] = lay.dumOff[e] + int32(len(segs)-1)
	}
	lay.dum = make([]seedPos, lay.dumOff[len(rk.edges)])
	for e, segs := range w.edgeSegs {
		for k, s := range segs[1:] {
			d := w.segs[s].up
			lay.dum[int(lay.dumOff[e])+k] = seedPos{int32(w.items[d].x), w.pos[d], 1, true}
		}
	}
	lay.edges = make([]placedEdge, len(rk.edges))
	for i, e := range rk.edges {
		lay.edges[i] = placedEdge(e)
	}
}

// frameLevel is the nesting level of the frame whose parent port is it.
func (b *builder) frameLevel(it int) int {
	w := b.w
	return w.clusters[w.frameCl[b.rk.frameOf[w.items[it].node]]].level
}

// upperRow is where an edge leaves item it downwards.
func (b *builder) upperRow(it int) int {
	i := &b.w.items[it]
	switch {
	case i.dummy():
		return b.lay.layerY[i.layer] + b.size[i.layer] - 1
	case i.plead:
		return b.boxEnd(i.layer) + b.frameLevel(it)*b.g.padMajor
	}
	return b.boxEnd(i.layer)
}

// lowerRow is where an edge enters item it from above.
func (b *builder) lowerRow(it int) int {
	i := &b.w.items[it]
	switch {
	case i.dummy():
		return b.lay.layerY[i.layer]
	case i.plead:
		return b.boxStart(i.layer) - b.frameLevel(it)*b.g.padMajor
	}
	return b.boxStart(i.layer)
}

func (b *builder) trackRow(c, t int) int { return b.lay.layerY[c] + b.size[c] + b.g.chOff + t }

// straight is whether segment s is drawn as one straight piece.
func (b *builder) straight(s int) bool {
	bd := &b.bs[b.w.segs[s].bundle]
	return bd.link < 0 && bd.track < 0
}

// findRuns finds the runs of long edges. A long edge that goes straight
// through several layers is drawn as one stroke, not one per dummy and per
// channel: its pieces (the dummies' strokes and the straight segments
// between them, all in one column, each overlapping the next by a cell)
// paint the same cells. A run is kept where its first straight segment
// would be drawn.
func (b *builder) findRuns() {
	w := b.w
	b.runEnd = make([]int32, len(w.segs))
	b.inRun = make([]bool, len(w.items))
	for s := range b.runEnd {
		b.runEnd[s] = -1
	}
	for _, segs := range w.edgeSegs {
		if len(segs) < 2 {
			continue
		}
		for k := 0; k < len(segs); {
			if !b.straight(segs[k]) {
				k++
				continue
			}
			j := k // the run's straight segments are segs[k..j]
			for j+1 < len(segs) && b.straight(segs[j+1]) {
				j++
			}
			b.markRun(segs[k : j+1])
			k = j + 1
		}
	}
}

// markRun records the run of straight segments run.
func (b *builder) markRun(run []int) {
	w := b.w
	last := w.segs[run[len(run)-1]].down
	end := b.lowerRow(last)
	if w.items[last].dummy() { // the dummy's stroke below
		end = b.lay.layerY[w.items[last].layer] + b.size[w.items[last].layer] - 1
	}
	b.runEnd[run[0]] = int32(end)
	for _, s := range run {
		if d := w.segs[s].up; w.items[d].dummy() {
			b.inRun[d] = true
		}
		if d := w.segs[s].down; w.items[d].dummy() {
			b.inRun[d] = true
		}
	}
}

// allocStrokes sizes the stroke, mark and edge-id arrays.
func (b *builder) allocStrokes() {
	w := b.w
	nStrokes := len(w.items) // at most: one per dummy, and per bundle below
	for bi := range b.bs {
		switch bd := &b.bs[bi]; {
		case bd.link >= 0:
			nStrokes += 3
		case bd.track < 0:
			nStrokes++
		default:
			nStrokes += 1 + 2*len(bd.segs)
		}
	}
	b.lay.strokes = make([]stroke, 0, nStrokes)
	b.lay.marks = make([]mark, 0, 2*len(b.rk.edges))
	b.ids = make([]int32, 0, 4*len(w.segs)+len(w.items))
}

// addStroke adds a stroke; abstract vertical = along the major axis.
func (b *builder) addStroke(alongMajor bool, fixed, from, to int, net int32, kind edgeKind, edges []int32) {
	if from > to {
		from, to = to, from
	}
	s := stroke{fix: fixed, a: from, b: to, net: net, kind: kind, edges: edges}
	s.vert = alongMajor == b.tb
	b.lay.strokes = append(b.lay.strokes, s)
}

// edgeIDs returns the sorted distinct edges of segs. Edge lists of strokes
// and marks are carved from one growing array: a slice keeps its view when
// a later append moves the array.
func (b *builder) edgeIDs(segs []int) []int32 {
	start := len(b.ids)
	for _, s := range segs {
		b.ids = append(b.ids, int32(b.w.segs[s].edge))
	}
	e := b.ids[start:]
	slices.Sort(e)
	e = slices.Compact(e)
	b.ids = b.ids[:start+len(e)]
	return b.ids[start:len(b.ids):len(b.ids)]
}

// edgeID returns the edge of segment s as a list.
func (b *builder) edgeID(s int) []int32 { return b.oneID(b.w.segs[s].edge) }

func (b *builder) oneID(e int) []int32 {
	b.ids = append(b.ids, int32(e))
	return b.ids[len(b.ids)-1 : len(b.ids) : len(b.ids)]
}

// addMark adds the mark where bundle bd's edges meet item it (none at
// dummies).
func (b *builder) addMark(it int, up bool, minor int, bd *bundle, edges []int32) {
	i := &b.w.items[it]
	if i.dummy() {
		return
	}
	major := b.upperRow(it)
	if up {
		major = b.lowerRow(it)
	}
	x, yy := b.screen(major, minor)
	e := b.rk.edges[edges[0]]
	// The dependent end gets the arrowhead: forward edges at the lower
	// item, reversed ones at the upper.
	arrow := up != e.rev
	b.lay.marks = append(b.lay.marks, mark{x: x, y: yy, glyph: markGlyph(b.st.orient, up, arrow, bd.kind), arrow: arrow,
		kind: bd.kind, node: i.node, edges: edges})
}

// drawBundle adds bundle bi's marks and strokes.
func (b *builder) drawBundle(bi int) {
	bd := &b.bs[bi]
	net := int32(bi)
	if bd.link >= 0 && !bd.first {
		net = int32(bd.link)
	}
	all := b.edgeIDs(bd.segs)
	b.bundleMarks(bd, all)
	switch {
	case bd.link >= 0:
		b.drawDogleg(bd, net, all)
	case bd.track < 0:
		b.drawStraight(bd, net, all)
	default:
		b.drawStar(bd, net, all)
	}
}

// bundleMarks adds the marks at the real items of bundle bd.
func (b *builder) bundleMarks(bd *bundle, all []int32) {
	w := b.w
	if bd.link < 0 || bd.first {
		if bd.hubUp {
			b.addMark(bd.hub, false, bd.hubPort, bd, all)
		} else {
			for _, s := range bd.segs {
				if !w.items[w.segs[s].up].dummy() {
					b.addMark(w.segs[s].up, false, w.segs[s].upPort, bd, b.edgeID(s))
				}
			}
		}
	}
	if bd.link < 0 || !bd.first {
		if !bd.hubUp {
			b.addMark(bd.hub, true, bd.hubPort, bd, all)
		} else {
			for _, s := range bd.segs {
				if !w.items[w.segs[s].down].dummy() {
					b.addMark(w.segs[s].down, true, w.segs[s].downPort, bd, b.edgeID(s))
				}
			}
		}
	}
}

// drawDogleg draws one half of a dogleg (a single segment).
func (b *builder) drawDogleg(bd *bundle, net int32, all []int32) {
	s := b.w.segs[bd.segs[0]]
	other := &b.bs[bd.link]
	tr := b.trackRow(bd.channel, bd.track)
	if bd.first {
		b.addStroke(true, s.upPort, b.upperRow(s.up), tr, net, bd.kind, all)
		b.addStroke(false, tr, s.upPort, bd.vcol, net, bd.kind, all)
		b.addStroke(true, bd.vcol, tr, b.trackRow(bd.channel, other.track), net, bd.kind, all)
	} else {
		b.addStroke(false, tr, bd.vcol, s.downPort, net, bd.kind, all)
		b.addStroke(true, s.downPort, tr, b.lowerRow(s.down), net, bd.kind, all)
	}
}

// drawStraight draws a bundle of one straight segment, or the run of a
// long edge that starts with it.
func (b *builder) drawStraight(bd *bundle, net int32, all []int32) {
	w := b.w
	si := bd.segs[0]
	s := w.segs[si]
	switch {
	case !w.items[s.up].dummy() && !w.items[s.down].dummy():
		b.addStroke(true, s.upPort, b.upperRow(s.up), b.lowerRow(s.down), net, bd.kind, all)
	case b.runEnd[si] >= 0: // a run of a long edge, from its top
		top := b.upperRow(s.up)
		if w.items[s.up].dummy() {
			top = b.lay.layerY[w.items[s.up].layer]
		}
		b.addStroke(true, s.upPort, top, int(b.runEnd[si]), net, bd.kind, all)
	}
}

// drawStar draws a bundle routed on a track: the hub's stroke to the
// track, one stroke per leaf, and the pieces of the track between them.
func (b *builder) drawStar(bd *bundle, net int32, all []int32) {
	w := b.w
	type leaf struct{ col, seg int }
	tr := b.trackRow(bd.channel, bd.track)
	hubRow := b.upperRow(bd.hub)
	if !bd.hubUp {
		hubRow = b.lowerRow(bd.hub)
	}
	b.addStroke(true, bd.hubPort, hubRow, tr, net, bd.kind, all)
	leaves := make([]leaf, 0, len(bd.segs))
	for _, s := range bd.segs {
		c, row := w.segs[s].downPort, b.lowerRow(w.segs[s].down)
		if !bd.hubUp {
			c, row = w.segs[s].upPort, b.upperRow(w.segs[s].up)
		}
		leaves = append(leaves, leaf{c, s})
		b.addStroke(true, c, tr, row, net, bd.kind, b.edgeID(s))
	}
	// Horizontal pieces, each carrying the edges beyond it.
	cols := append(make([]int, 0, len(leaves)+1), bd.hubPort)
	for _, lf := range leaves {
		cols = append(cols, lf.col)
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	var segs []int
	for k := 0; k+1 < len(cols); k++ {
		a, z := cols[k], cols[k+1]
		segs = segs[:0]
		for _, lf := range leaves {
			if (z <= bd.hubPort && lf.col <= a) || (a >= bd.hubPort && lf.col >= z) {
				segs = append(segs, lf.seg)
			}
		}
		b.addStroke(false, tr, a, z, net, bd.kind, b.edgeIDs(segs))
	}
}

// drawDummies draws long edges through their dummies' layers, where no
// run draws them.
func (b *builder) drawDummies() {
	for i, it := range b.w.items {
		if !it.dummy() || b.inRun[i] {
			continue
		}
		e := b.rk.edges[it.edge]
		y := b.lay.layerY[it.layer]
		b.addStroke(true, it.x, y, y+b.size[it.layer]-1, int32(len(b.bs)+i), e.kind, b.oneID(it.edge))
	}
}

// bounds is the rectangle around every node, frame and stroke.
func (b *builder) bounds() Rect {
	lay := b.lay
	r := Rect{}
	first := true
	grow := func(q Rect) {
		if q.W <= 0 || q.H <= 0 {
			return
		}
		if first {
			r, first = q, false
			return
		}
		x0, y0 := min(r.X, q.X), min(r.Y, q.Y)
		x1, y1 := max(r.X+r.W, q.X+q.W), max(r.Y+r.H, q.Y+q.H)
		r = Rect{x0, y0, x1 - x0, y1 - y0}
	}
	for _, n := range lay.nodes {
		grow(n.rect)
	}
	for _, f := range lay.frames {
		grow(f.rect)
	}
	for _, s := range lay.strokes {
		if s.vert {
			grow(Rect{s.fix, s.a, 1, s.b - s.a + 1})
		} else {
			grow(Rect{s.a, s.fix, s.b - s.a + 1, 1})
		}
	}
	return r
}
