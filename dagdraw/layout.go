package dagdraw

import (
	"bytes"
	"slices"
	"sync/atomic"
)

// Rect is a rectangle of cells in layout coordinates.
type Rect struct{ X, Y, W, H int }

// Contains reports whether the cell (x, y) lies in r.
func (r Rect) Contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Intersects reports whether r and o share a cell.
func (r Rect) Intersects(o Rect) bool {
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

type placedNode struct {
	id     string
	kind   nodeKind
	src    int
	folded []string
	rect   Rect // the box, or the frame for a frame parent
	frame  int  // index in Layout.frames when drawn as a frame, else -1
	layer  int
	pos    int // order in the layer (boxes and frame ports)
}

type placedFrame struct {
	rect   Rect
	kind   clusterKind
	node   int // the parent drawn as this frame, -1 for OR frames
	group  int // index in Graph.ORGroups for OR frames, else -1
	name   string
	level  int
	labelX int // title cells on the top (or bottom) border row
	labelY int
	labelW int
}

// stroke is a straight run of edge cells. Strokes of one net (bundle or
// long edge) may join; strokes of different nets only cross.
type stroke struct {
	fix   int // column (vertical) or row (horizontal)
	a, b  int // inclusive range along the stroke
	edges []int32
	net   int32
	vert  bool
	kind  edgeKind
}

// mark is a glyph on a box or frame border where an edge attaches: an
// arrowhead at the dependent end, a tee at the dependency end.
type mark struct {
	x, y  int
	glyph rune
	arrow bool
	kind  edgeKind
	node  int // the node whose border it sits on
	edges []int32
}

type placedEdge struct {
	from, to int // drawn nodes
	kind     edgeKind
	rev      bool
}

// Layout is the geometry of a graph's structure: where every box, frame
// and edge cell goes. It is immutable once built and safe to share; paint
// it with a Decoration (see Paint). Coordinates may be negative: a seeded
// layout keeps old cells where they were.
type Layout struct {
	st      *structure
	opt     Options
	nodes   []placedNode
	index   map[string]int
	frames  []placedFrame
	strokes []stroke
	marks   []mark
	edges   []placedEdge
	bounds  Rect
	layers  [][]int // node indices per layer in order (boxes and frames)
	layerY  []int   // first row (top-down) / column (left-right) of each layer
	// seeding state for the next layout: where each node's item and each
	// edge's dummies (top to bottom, dum[dumOff[e]:dumOff[e+1]]) were
	nodeSeed []seedPos
	dumOff   []int32
	dum      []seedPos
	channels []int
	grid     grid
	crossN   int
	ahead    bool // laid out while the last ordering starts ran (see runStarts)
	// slots holds where the nodes of the graph last decorated go
	// (atomSlots); views on two goroutines may decorate at once.
	slots *atomic.Pointer[decoSlots]
}

// NewLayout lays g out from scratch.
func NewLayout(g Graph, opt Options) *Layout {
	return layout(buildStructure(&g, opt), opt, nil)
}

// Update returns the layout for g: l itself when g's structure (and opt)
// are unchanged, so decoration changes cost nothing here; otherwise a new
// layout seeded from l, keeping the other nodes' order, layers and columns
// where it can. A change of orientation or node width, or a change to more
// than a fifth of the nodes, lays out from scratch.
func (l *Layout) Update(g Graph, opt Options) *Layout {
	st := buildStructure(&g, opt)
	if l == nil {
		return layout(st, opt, nil)
	}
	if bytes.Equal(st.key, l.st.key) {
		return l
	}
	if st.orient != l.st.orient || st.width != l.st.width || st.lines != l.st.lines {
		return layout(st, opt, nil)
	}
	common := 0
	for _, n := range st.nodes {
		if _, ok := l.index[n.id]; ok {
			common++
		}
	}
	if changed := len(st.nodes) + len(l.nodes) - 2*common; changed*5 > max(len(st.nodes), 5) {
		return layout(st, opt, nil)
	}
	return layout(st, opt, l)
}

// Relayout lays the same structure out from scratch (after many seeded
// updates the order drifts from the best one).
func (l *Layout) Relayout() *Layout { return layout(l.st, l.opt, nil) }

// Bounds is the rectangle holding every drawn cell.
func (l *Layout) Bounds() Rect { return l.bounds }

// Orientation is the layout's orientation.
func (l *Layout) Orientation() Orientation { return l.st.orient }

// Crossings is the number of edge crossings between adjacent layers (the
// quantity crossing reduction minimises, counted on segments).
func (l *Layout) Crossings() int { return l.crossN }

// Len is the number of drawn nodes (atoms, missing ids, summaries).
func (l *Layout) Len() int { return len(l.nodes) }

// IDs lists the drawn nodes' ids in input order.
func (l *Layout) IDs() []string {
	ids := make([]string, len(l.nodes))
	for i, n := range l.nodes {
		ids[i] = n.id
	}
	return ids
}

// Node returns where the node id is drawn: its box, or its frame when it is
// a decomposition parent drawn around its children.
func (l *Layout) Node(id string) (Rect, bool) {
	i, ok := l.index[id]
	if !ok {
		return Rect{}, false
	}
	return l.nodes[i].rect, true
}

// Resolve maps any id of the graph to the id of the node that draws it: a
// hidden child to its collapsed parent, a folded resolved atom to its
// summary. ok is false for ids the graph does not know.
func (l *Layout) Resolve(id string) (string, bool) {
	i, ok := l.st.repOf[id]
	if !ok {
		return "", false
	}
	return l.nodes[i].id, true
}

// Folded lists the ids a node stands for besides itself: a collapsed
// parent's hidden descendants, or all the members of a summary.
func (l *Layout) Folded(id string) []string {
	if i, ok := l.index[id]; ok {
		return slices.Clone(l.nodes[i].folded)
	}
	return nil
}

// IsSummary reports whether id is a summary of resolved atoms.
func (l *Layout) IsSummary(id string) bool {
	i, ok := l.index[id]
	return ok && l.nodes[i].kind == kindSummary
}

// IsMissing reports whether id is referenced but not defined.
func (l *Layout) IsMissing(id string) bool {
	i, ok := l.index[id]
	return ok && l.nodes[i].kind == kindMissing
}

// Layer returns the layer (dependency depth) of id and its order in it.
func (l *Layout) Layer(id string) (layer, pos int, ok bool) {
	i, ok := l.index[id]
	if !ok {
		return 0, 0, false
	}
	return l.nodes[i].layer, l.nodes[i].pos, true
}

// NodeWidth is the width of the boxes, border included (with
// Options.FitTitles, at most Options.NodeWidth).
func (l *Layout) NodeWidth() int { return l.st.width }

// TitleWidth is the box width, border included, that shows every box's
// title on one row; 0 unless the layout was made with Options.FitTitles.
func (l *Layout) TitleWidth() int { return l.st.title }

// TitleLines is the rows of text a box holds at least (Options.TitleLines).
func (l *Layout) TitleLines() int { return l.st.lines }

// TitleRows is how many rows of text the title that wraps most among g's
// nodes (g has l's structure) needs in l's boxes, counting at most
// limit+1. Its cost grows with the graph: it is for choosing the rows of
// a drawing small enough to fit a pane (Options.TitleLines).
func (l *Layout) TitleRows(g Graph, limit int) int {
	label := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		if _, dup := label[n.ID]; !dup {
			label[n.ID] = n.Label
		}
	}
	worst := 1
	for i := range l.nodes {
		pn := &l.nodes[i]
		if pn.frame >= 0 {
			continue
		}
		text := label[pn.id]
		switch pn.kind {
		case kindMissing:
			text = missingLabel
		case kindSummary:
			text = summaryLabel(&l.st.nodes[i])
		}
		if worst = max(worst, titleRows(&l.st.nodes[i], text, l.st.width-2, limit)); worst > limit {
			break
		}
	}
	return worst
}

// RowCost is how many rows one more row of text in every box adds to the
// drawing's height, about: a row per layer in top-down, per box of the
// layer with the most boxes in left-right.
func (l *Layout) RowCost() int {
	if l.st.orient == TopDown {
		return len(l.layers)
	}
	most := 0
	for _, ns := range l.layers {
		most = max(most, len(ns))
	}
	return most
}

// Layers lists each layer's node ids in drawing order.
func (l *Layout) Layers() [][]string {
	out := make([][]string, len(l.layers))
	for i, ns := range l.layers {
		for _, n := range ns {
			out[i] = append(out[i], l.nodes[n].id)
		}
	}
	return out
}

// seedPos is where an item was: its minor coordinate and its position in
// the layer's order.
type seedPos struct {
	x, pos int32
	size   int32
	ok     bool
}

func layout(st *structure, opt Options, prev *Layout) *Layout {
	var prevRank []int
	if prev != nil {
		prevRank = make([]int, len(st.nodes))
		for v, n := range st.nodes {
			prevRank[v] = -1
			if i, ok := prev.index[n.id]; ok {
				prevRank[v] = prev.nodes[i].layer
			}
		}
	}
	rk := rankNodes(st, prevRank)
	w := newWork(st, rk, opt)
	g := geometryFor(st.orient, st.width, st.lines)
	var seed []seedPos
	if prev != nil {
		seed = w.seedsFrom(prev)
	}

	// Order.
	if prev == nil {
		w.finishAhead = func(f *work) *Layout { return f.finish(opt, g, nil, nil) }
		w.orderFresh()
		if lay := w.aheadLay; lay != nil {
			lay.ahead = true
			w.release()
			return lay
		}
	} else {
		w.seedOrder(seed, g)
	}
	lay := w.finish(opt, g, seed, prev)
	w.release()
	return lay
}

// finish lays out w's ordered layered graph: box sizes, coordinates,
// ports, edge tracks and the cells. seed and prev are those of a seeded
// layout, nil for a fresh one.
func (w *work) finish(opt Options, g geometry, seed []seedPos, prev *Layout) *Layout {
	rk := w.rk
	// Ports need bundles; box sizes need port counts.
	bs := w.formBundles()
	var sb []int
	w.sizeItems(g, func(it int) int {
		sb = w.sideBundles(it, true, sb)
		n := len(sb)
		sb = w.sideBundles(it, false, sb)
		return max(n, len(sb))
	})
	w.assignCoordinates(g, seed)
	w.declash()
	if prev == nil {
		w.normalize(g)
	}
	w.assignPorts(bs)

	// Tracks per channel.
	L := rk.layers
	byCh := make([][]int, L)
	for bi := range bs {
		byCh[bs[bi].channel] = append(byCh[bs[bi].channel], bi)
	}
	chans := make([]int, L)
	for c := 0; c < L; c++ {
		ids := byCh[c]
		t := 0
		for {
			t = w.routeChannel(&bs, ids)
			if t >= 0 {
				break
			}
			ids = append(ids, len(bs)-1)
		}
		byCh[c] = ids
		chans[c] = max(g.minCh, t+g.chPad)
	}
	chans = channelHeights(chans, prev)

	lay := &Layout{st: w.st, opt: opt, channels: chans, slots: new(atomic.Pointer[decoSlots])}
	lay.build(w, rk, bs, g, chans)
	w.buf.bundles = bs[:0]
	return lay
}

// initialSweep orders each layer once by its neighbours above.
func (w *work) initialSweep() {
	val := make([]float64, len(w.items))
	for l := 1; l < len(w.order); l++ {
		w.sweepLayer(l, true, val, false)
	}
}

// seedsFrom finds each item of w in the previous layout: a node's item by
// the node's id, a dummy by its edge's ends and its layer.
func (w *work) seedsFrom(prev *Layout) []seedPos {
	seed := make([]seedPos, len(w.items))
	type ends struct{ from, to string }
	var oldEdge map[ends]int
	for i, it := range w.items {
		if !it.dummy() {
			if j, ok := prev.index[w.st.nodes[it.node].id]; ok {
				seed[i] = prev.nodeSeed[j]
			}
			continue
		}
		if oldEdge == nil {
			oldEdge = make(map[ends]int, len(prev.edges))
			for oe, pe := range prev.edges {
				oldEdge[ends{prev.nodes[pe.from].id, prev.nodes[pe.to].id}] = oe
			}
		}
		e := w.rk.edges[it.edge]
		oe, ok := oldEdge[ends{w.st.nodes[e.from].id, w.st.nodes[e.to].id}]
		if !ok {
			continue
		}
		pe := prev.edges[oe]
		upper := pe.from
		if pe.rev {
			upper = pe.to
		}
		k := int32(it.layer - prev.nodes[upper].layer - 1)
		if k >= 0 && k < prev.dumOff[oe+1]-prev.dumOff[oe] {
			seed[i] = prev.dum[prev.dumOff[oe]+k]
		}
	}
	return seed
}

// seedOrder keeps the previous relative order of old items and inserts new
// ones where they cross the fewest segments.
func (w *work) seedOrder(seed []seedPos, g geometry) {
	w.initOrder(func(it int) float64 {
		if seed[it].ok {
			return float64(seed[it].pos)
		}
		return 1e9 + float64(it)
	})
	for it := range w.items {
		if !seed[it].ok {
			w.insertBest(it, seed, g)
		}
	}
}

// insertBest moves item it to the slot among its siblings that gives the
// fewest crossings with the adjacent layers. Only its own segments'
// crossings depend on the slot: passing sibling block b changes them by
// cross(b, it) - cross(it, b), as in sifting. Of equally good slots it
// takes the first where the old neighbours leave room for it (so placing
// it pushes no old item aside, which would bend old edges), else the
// first.
func (w *work) insertBest(it int, seed []seedPos, g geometry) {
	l := w.items[it].layer
	var list *[]int
	if c := w.items[it].cl; c >= 0 {
		list = &w.clusters[c].kids
	} else {
		list = &w.roots[l]
	}
	cur := slices.Index(*list, it)
	if cur < 0 {
		return
	}
	*list = slices.Delete(*list, cur, cur+1)
	w.fillNeighbours(l)
	var dUp, dDown []int32
	if l > 0 {
		w.scratch.dUp = resize(w.scratch.dUp, len(w.order[l-1]))
		dUp = w.scratch.dUp
		siftDelta(dUp, w.ups(it))
	}
	if l+1 < len(w.order) {
		w.scratch.dDown = resize(w.scratch.dDown, len(w.order[l+1]))
		dDown = w.scratch.dDown
		siftDelta(dDown, w.downs(it))
	}
	cost := func(v int) int {
		c := int32(0)
		for _, q := range w.ups(v) {
			c += dUp[q]
		}
		for _, q := range w.downs(v) {
			c += dDown[q]
		}
		return int(c)
	}
	acc := w.scratch.delta[:0]
	acc = append(acc, 0) // relative crossings with it in slot k
	best := 0
	for _, b := range *list {
		c := acc[len(acc)-1]
		if b >= 0 {
			c += cost(b)
		} else {
			for _, v := range w.clusters[-1-b].leaves {
				c += cost(v)
			}
		}
		acc = append(acc, c)
		best = min(best, c)
	}
	w.scratch.delta = acc
	bestAt := -1
	for k, c := range acc {
		if c != best {
			continue
		}
		if bestAt < 0 {
			bestAt = k
		}
		if w.roomAt(*list, k, it, seed, g) {
			bestAt = k
			break
		}
	}
	*list = slices.Insert(*list, bestAt, it)
	w.flatten(l)
}

// roomAt reports whether item it fits between the old items either side of
// slot k of list without moving them (as far as the previous layout's
// coordinates and sizes tell; new neighbours do not count).
func (w *work) roomAt(list []int, k, it int, seed []seedPos, g geometry) bool {
	edge := func(b int, last bool) int { // the first or last item of a block
		for b < 0 {
			kids := w.clusters[-1-b].kids
			if len(kids) == 0 {
				return -1
			}
			b = kids[0]
			if last {
				b = kids[len(kids)-1]
			}
		}
		return b
	}
	left, right := -1, -1
	if k > 0 {
		left = edge(list[k-1], true)
	}
	if k < len(list) {
		right = edge(list[k], false)
	}
	if left < 0 || right < 0 || !seed[left].ok || !seed[right].ok {
		return true
	}
	gap := func(a, b int) int32 {
		if w.items[a].dummy() || w.items[a].plead || w.items[b].dummy() || w.items[b].plead {
			return 1
		}
		return int32(g.gap)
	}
	size := int32(1) // a dummy; a box at its narrowest
	switch i := &w.items[it]; {
	case i.dummy() || i.plead:
	case w.st.orient == LeftRight:
		size = 4
	default:
		size = int32(max(w.st.width, 3))
	}
	need := seed[left].size + gap(left, it) + size + gap(it, right)
	if w.items[left].cl != w.items[right].cl {
		need += 2 * int32(g.padMinor) // a frame border between them
	}
	return seed[right].x-seed[left].x >= need
}

// normalize shifts a fresh layout so its leftmost (topmost) cell is 0.
func (w *work) normalize(g geometry) {
	lo := 1 << 30
	for i := range w.items {
		d := 0
		for c := w.items[i].cl; c >= 0; c = w.clusters[c].parent {
			d++
		}
		lo = min(lo, w.items[i].x-d*g.padMinor)
	}
	if lo == 1<<30 {
		return
	}
	for i := range w.items {
		w.items[i].x -= lo
	}
}

// placeLabels puts each frame's title in the longest run of its top border
// that no edge crosses, or of its bottom border when that one is clearly
// roomier (edges into the children cross the top).
func (lay *Layout) placeLabels() {
	for fi := range lay.frames {
		f := &lay.frames[fi]
		x0, x1 := f.rect.X+1, f.rect.X+f.rect.W-2
		if x1 < x0 {
			continue
		}
		ts, tl := lay.freeRun(x0, x1, f.rect.Y)
		bs, bl := lay.freeRun(x0, x1, f.rect.Y+f.rect.H-1)
		y, s, n := f.rect.Y, ts, tl
		if tl < 24 && bl > tl+4 {
			y, s, n = f.rect.Y+f.rect.H-1, bs, bl
		}
		// one line cell either side of the title
		if n >= 3 {
			f.labelX, f.labelY, f.labelW = x0+s+1, y, n-2
		}
	}
}

// freeRun finds the longest run of cells x0..x1 on row y that no stroke or
// mark occupies, as an offset from x0 and a length.
func (lay *Layout) freeRun(x0, x1, y int) (start, length int) {
	busy := make([]bool, x1-x0+1)
	lay.grid.visit(Rect{x0, y, x1 - x0 + 1, 1}, func(k primKind, i int) {
		switch k {
		case primStroke:
			s := &lay.strokes[i]
			if s.vert {
				if s.fix >= x0 && s.fix <= x1 && s.a <= y && s.b >= y {
					busy[s.fix-x0] = true
				}
			} else if s.fix == y {
				for x := max(s.a, x0); x <= min(s.b, x1); x++ {
					busy[x-x0] = true
				}
			}
		case primMark:
			m := &lay.marks[i]
			if m.y == y && m.x >= x0 && m.x <= x1 {
				busy[m.x-x0] = true
			}
		}
	})
	s := -1
	for i := 0; i <= len(busy); i++ {
		if i < len(busy) && !busy[i] {
			if s < 0 {
				s = i
			}
			continue
		}
		if s >= 0 && i-s > length {
			start, length = s, i-s
		}
		s = -1
	}
	return start, length
}

// markGlyph is the glyph where an edge meets a border: up says the border
// is the item's upper side (top, or left in left-right).
func markGlyph(o Orientation, up, arrow bool, kind edgeKind) rune {
	hollow := kind == edgePartOf
	if o == TopDown {
		switch {
		case up && arrow:
			return pick(hollow, '▽', '▼')
		case !up && arrow:
			return pick(hollow, '△', '▲')
		case up:
			return '┴'
		}
		return '┬'
	}
	switch {
	case up && arrow:
		return pick(hollow, '▷', '▶')
	case !up && arrow:
		return pick(hollow, '◁', '◀')
	case up:
		return '┤'
	}
	return '├'
}

func pick(c bool, a, b rune) rune {
	if c {
		return a
	}
	return b
}

// channelHeights turns the rows each channel needs into the rows it gets.
// A fresh layout gives dense channels (three tracks or more) one spare row.
// A seeded one keeps every channel at least as tall as before and, when one
// must grow, takes the rows back from the nearest channels below that have
// spare ones, so the rows further down do not move.
func channelHeights(need []int, prev *Layout) []int {
	h := make([]int, len(need))
	if prev == nil {
		for c, n := range need {
			h[c] = n
			if n >= 3 {
				h[c]++
			}
		}
		return h
	}
	for c := range need {
		h[c] = need[c]
		if c < len(prev.channels) {
			h[c] = max(need[c], prev.channels[c])
		}
	}
	for c := range need {
		if c >= len(prev.channels) || need[c] <= prev.channels[c] {
			continue
		}
		grow := need[c] - prev.channels[c]
		for d := c + 1; d < len(need) && grow > 0; d++ {
			take := min(grow, h[d]-need[d])
			h[d] -= take
			grow -= take
		}
	}
	return h
}

// orderFresh orders the layers from scratch: nodes in input order, each
// dummy after the upper end of its edge, then crossing minimisation.
func (w *work) orderFresh() {
	first := make([]float64, len(w.items))
	for i, it := range w.items {
		if it.dummy() {
			e := w.rk.edges[it.edge]
			first[i] = float64(min(e.from, e.to)) + 0.5
		} else {
			first[i] = float64(it.node)
		}
	}
	w.initOrder(func(it int) float64 { return first[it] })
	w.initialSweep()
	w.minimizeCrossings()
}
