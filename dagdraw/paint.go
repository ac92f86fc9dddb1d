package dagdraw

import (
	"slices"

	"github.com/charmbracelet/x/ansi"
)

// Class is the style class of a cell. The UI maps classes to colours and
// attributes; every distinction a class makes is also made by a glyph, so
// the picture reads without colour (NO_COLOR).
type Class uint8

// Classes.
const (
	ClassBlank          Class = iota
	ClassEdge                 // a dependency line
	ClassEdgeActive           // a line to or from the selected node
	ClassEdgePartOf           // a dotted child ⇢ parent link
	ClassEdgeCross            // where two unrelated lines cross (┼)
	ClassArrow                // an arrowhead or tee on a border
	ClassArrowActive          // an arrowhead or tee of an edge of the selection
	ClassBorder               // a box border
	ClassBorderSelected       // the selected node's border (heavy)
	ClassBorderMissing        // a referenced but undefined atom (dashed)
	ClassBorderChosen         // the selected choice of an OR group (double)
	ClassBorderFailed         // a failed OR choice
	ClassBorderSummary        // a summary of resolved atoms
	ClassPending              // status glyph ○
	ClassInProgress           // status glyph ◐
	ClassResolved             // status glyph ●
	ClassUnknown              // status glyph ?
	ClassReady                // ▸ executable now
	ClassFailedMark           // ✗ a failed OR choice
	ClassFlagError            // ! an error about the node
	ClassFlagWarning          // ⚠ a warning about the node
	ClassFolded               // [+N]: a collapsed decomposition's hidden parts
	ClassID                   // the atom id
	ClassLabel                // the description
	ClassLabelFailed          // a failed choice's description (dim, struck)
	ClassLabelResolved        // a resolved atom's description (muted)
	ClassFrame                // a decomposition frame
	ClassFrameOR              // an OR group frame (dashed)
	ClassFrameLabel           // a decomposition frame's title
	ClassFrameORLabel         // an OR group frame's title
	ClassMinimap              // minimap content
	ClassMinimapView          // the viewport's outline on the minimap
	ClassIndicator            // the position indicator text
	numClasses
)

var classNames = [numClasses]string{
	"blank", "edge", "edge-active", "edge-part-of", "edge-cross", "arrow", "arrow-active",
	"border", "border-selected", "border-missing", "border-chosen", "border-failed", "border-summary",
	"pending", "in-progress", "resolved", "unknown", "ready", "failed-mark", "flag-error", "flag-warning", "folded", "id", "label",
	"label-failed", "label-resolved", "frame", "frame-or", "frame-label", "frame-or-label",
	"minimap", "minimap-view", "indicator",
}

// String names the class (for debugging and tests).
func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class?"
}

// Cell is one terminal cell. A wide grapheme (CJK, emoji) occupies its cell
// (Width 2) and the next (Width 0, Rune 0). Cluster holds graphemes of more
// than one rune; Rune is then the first.
type Cell struct {
	Rune    rune
	Class   Class
	Width   int8
	Cluster string
}

// Canvas is a painted rectangle of cells, row by row.
type Canvas struct {
	W, H  int
	Cells []Cell
}

// Row returns row y's cells.
func (c *Canvas) Row(y int) []Cell { return c.Cells[y*c.W : (y+1)*c.W] }

// At returns the cell at (x, y).
func (c *Canvas) At(x, y int) Cell { return c.Cells[y*c.W+x] }

func newCanvas(w, h int) *Canvas {
	c := &Canvas{W: w, H: h, Cells: make([]Cell, w*h)}
	for i := range c.Cells {
		c.Cells[i] = Cell{Rune: ' ', Width: 1}
	}
	return c
}

// Decoration is what a graph says about its nodes beyond structure:
// statuses, labels, executability, OR selection and failures. Build it
// with Layout.Decorate; it never changes the layout.
type Decoration struct {
	status []Status
	label  []string
	exec   []bool
	chosen []bool // the selected choice of its OR group
	failed []bool
	flag   []Flag
	orSel  map[int]string // Graph.ORGroups index → selected id
}

// Decorate reads g's decoration for l's nodes. g must have l's structure
// (l.Update(g, opt) == l); other nodes are ignored.
func (l *Layout) Decorate(g Graph) *Decoration {
	n := len(l.nodes)
	d := &Decoration{status: make([]Status, n), label: make([]string, n), exec: make([]bool, n),
		chosen: make([]bool, n), failed: make([]bool, n), flag: make([]Flag, n), orSel: map[int]string{}}
	for i, pn := range l.nodes {
		switch pn.kind {
		case kindAtom:
			d.status[i] = Unknown // unless g has it (below)
		case kindMissing:
			d.status[i] = Unknown
			d.label[i] = missingLabel
		case kindSummary:
			d.status[i] = Resolved
			d.label[i] = summaryLabel(&l.st.nodes[i])
		}
	}
	for j, i := range l.atomSlots(g.Nodes) {
		if i >= 0 {
			d.status[i] = g.Nodes[j].Status
			d.label[i] = g.Nodes[j].Label
			d.exec[i] = g.Nodes[j].Executable
			d.flag[i] = g.Nodes[j].Flag
		}
	}
	for gi, o := range g.ORGroups {
		d.orSel[gi] = o.Selected
		if i, ok := l.index[o.Selected]; ok && l.nodes[i].kind != kindSummary {
			d.chosen[i] = true
		}
		for _, f := range o.Failed {
			if i, ok := l.index[f]; ok && l.nodes[i].kind != kindSummary {
				d.failed[i] = true
			}
		}
	}
	return d
}

// atomSlots is, for each of nodes, the index of the atom box l draws it
// in, or -1 (not drawn as an atom, or an id given before: the first
// node of an id decorates it). A graph whose nodes have the ids of the
// last one decorated (each write of a loop that keeps its atoms) gets
// the slots kept from then, with no map built.
func (l *Layout) atomSlots(nodes []Node) []int32 {
	if m := l.slots.Load(); m != nil && len(m.ids) == len(nodes) {
		same := true
		for j := range nodes {
			if nodes[j].ID != m.ids[j] {
				same = false
				break
			}
		}
		if same {
			return m.slots
		}
	}
	m := &decoSlots{ids: make([]string, len(nodes)), slots: make([]int32, len(nodes))}
	taken := make([]bool, len(l.nodes))
	for j := range nodes {
		m.ids[j] = nodes[j].ID
		m.slots[j] = -1
		if i, ok := l.index[nodes[j].ID]; ok && l.nodes[i].kind == kindAtom && !taken[i] {
			taken[i] = true
			m.slots[j] = int32(i)
		}
	}
	l.slots.Store(m)
	return m.slots
}

// decoSlots is atomSlots' answer for a graph's ids.
type decoSlots struct {
	ids   []string
	slots []int32
}

// Status returns the decorated status of node id.
func (d *Decoration) status0(i int) Status {
	if d == nil || i >= len(d.status) {
		return Unknown
	}
	return d.status[i]
}

// Paint draws the cells of view (layout coordinates) with decoration d and
// the node selected (an id, or "" for none) highlighted. Its cost grows
// with the view's area and what lies under it, not with the graph.
func (l *Layout) Paint(d *Decoration, view Rect, selected string) *Canvas {
	c := newCanvas(max(0, view.W), max(0, view.H))
	if view.W <= 0 || view.H <= 0 {
		return c
	}
	sel := -1
	if i, ok := l.index[selected]; ok {
		sel = i
	}
	p := painter{l: l, d: d, c: c, view: view, sel: sel}
	p.bits = make([]uint8, view.W*view.H)
	p.owner = make([]int32, view.W*view.H)
	for i := range p.owner {
		p.owner[i] = -1
	}
	l.grid.eachBucket(view, func(clip Rect, es []gridEntry) {
		for _, e := range es {
			if e.kind == primFrame {
				p.frame(int(e.idx), clip)
			}
		}
	})
	l.grid.eachBucket(view, func(clip Rect, es []gridEntry) {
		for _, e := range es {
			if e.kind == primStroke {
				p.stroke(int(e.idx), clip)
			}
		}
	})
	p.flushStrokes()
	l.grid.eachBucket(view, func(clip Rect, es []gridEntry) {
		for _, e := range es {
			switch e.kind {
			case primBox:
				p.box(int(e.idx), clip)
			case primFrame:
				p.frameLabel(int(e.idx), clip)
			}
		}
	})
	l.grid.eachBucket(view, func(clip Rect, es []gridEntry) {
		for _, e := range es {
			if e.kind == primMark {
				p.mark(int(e.idx), clip)
			}
		}
	})
	return c
}

type painter struct {
	l     *Layout
	d     *Decoration
	c     *Canvas
	view  Rect
	sel   int
	bits  []uint8 // N E S W of edge lines per cell
	owner []int32 // first stroke drawn in the cell
	// text buffers, reused by every box and label
	spans  []textSpan
	glyphs []glyph
	placed []placed
}

const (
	bitN uint8 = 1 << iota
	bitE
	bitS
	bitW
	bitCross  // two unrelated strokes meet
	bitDotted // a part-of link
	bitActive // an edge of the selection
)

func (p *painter) set(x, y int, r rune, cl Class) {
	if !p.view.Contains(x, y) {
		return
	}
	i := (y-p.view.Y)*p.c.W + (x - p.view.X)
	p.c.Cells[i] = Cell{Rune: r, Class: cl, Width: 1}
}

func (p *painter) active(edges []int32) bool {
	if p.sel < 0 {
		return false
	}
	for _, e := range edges {
		pe := p.l.edges[e]
		if pe.from == p.sel || pe.to == p.sel {
			return true
		}
	}
	return false
}

func (p *painter) stroke(si int, clip Rect) {
	s := &p.l.strokes[si]
	r := intersect(s.rect(), clip)
	if r.W == 0 {
		return
	}
	var extra uint8
	if s.kind == edgePartOf {
		extra |= bitDotted
	}
	if p.active(s.edges) {
		extra |= bitActive
	}
	for y := r.Y; y < r.Y+r.H; y++ {
		for x := r.X; x < r.X+r.W; x++ {
			var b uint8
			pos := x
			if s.vert {
				pos = y
			}
			if s.vert {
				if pos > s.a {
					b |= bitN
				}
				if pos < s.b {
					b |= bitS
				}
			} else {
				if pos > s.a {
					b |= bitW
				}
				if pos < s.b {
					b |= bitE
				}
			}
			i := (y-p.view.Y)*p.c.W + (x - p.view.X)
			if o := p.owner[i]; o < 0 {
				p.owner[i] = int32(si)
			} else if o != int32(si) && !sharesEdge(p.l.strokes[o].edges, s.edges) {
				p.bits[i] |= bitCross
			}
			p.bits[i] |= b | extra
		}
	}
}

func sharesEdge(a, b []int32) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			return true
		}
	}
	return false
}

// lineGlyph maps N E S W bits to a box-drawing character.
var lineGlyph = [16]rune{
	' ', '│', '─', '└', '│', '│', '┌', '├',
	'─', '┘', '─', '┴', '┐', '┤', '┬', '┼',
}

func (p *painter) flushStrokes() {
	for i, b := range p.bits {
		if b&0x0f == 0 {
			if p.owner[i] >= 0 { // a one-cell stroke
				b |= bitN | bitS
				if !p.l.strokes[p.owner[i]].vert {
					b = b&^(bitN|bitS) | bitE | bitW
				}
			} else {
				continue
			}
		}
		r := lineGlyph[b&0x0f]
		cl := ClassEdge
		switch {
		case b&bitActive != 0:
			cl = ClassEdgeActive
		case b&bitCross != 0:
			cl = ClassEdgeCross
		case b&bitDotted != 0:
			cl = ClassEdgePartOf
		}
		if b&bitDotted != 0 {
			switch r {
			case '│':
				r = '┆'
			case '─':
				r = '┄'
			}
		}
		p.c.Cells[i] = Cell{Rune: r, Class: cl, Width: 1}
	}
}

// border glyphs: top-left, top, top-right, side, bottom-left, bottom-right
type borderSet [6]rune

var (
	borderRound  = borderSet{'╭', '─', '╮', '│', '╰', '╯'}
	borderHeavy  = borderSet{'┏', '━', '┓', '┃', '┗', '┛'}
	borderDouble = borderSet{'╔', '═', '╗', '║', '╚', '╝'}
	borderDashed = borderSet{'╭', '┄', '╮', '┆', '╰', '╯'}
	borderFrame  = borderSet{'┌', '─', '┐', '│', '└', '┘'}
	borderFrameO = borderSet{'┌', '╌', '┐', '╎', '└', '┘'}
)

func (p *painter) rectBorder(r, clip Rect, bs borderSet, cl Class) {
	x1, y1 := r.X+r.W-1, r.Y+r.H-1
	for y := max(r.Y, clip.Y); y <= min(y1, clip.Y+clip.H-1); y++ {
		for x := max(r.X, clip.X); x <= min(x1, clip.X+clip.W-1); x++ {
			var g rune
			switch {
			case y == r.Y && x == r.X:
				g = bs[0]
			case y == r.Y && x == x1:
				g = bs[2]
			case y == y1 && x == r.X:
				g = bs[4]
			case y == y1 && x == x1:
				g = bs[5]
			case y == r.Y || y == y1:
				g = bs[1]
			case x == r.X || x == x1:
				g = bs[3]
			default:
				continue
			}
			p.set(x, y, g, cl)
		}
	}
}

func (p *painter) frame(fi int, clip Rect) {
	f := &p.l.frames[fi]
	if f.kind == clusterOR {
		p.rectBorder(f.rect, clip, borderFrameO, ClassFrameOR)
		return
	}
	bs := borderFrame
	cl := ClassFrame
	if f.node == p.sel {
		bs, cl = borderHeavy, ClassBorderSelected
	}
	p.rectBorder(f.rect, clip, bs, cl)
}

// frameLabel writes a frame's title into its top border.
func (p *painter) frameLabel(fi int, clip Rect) {
	f := &p.l.frames[fi]
	if f.labelW < 3 {
		return
	}
	y := f.labelY
	if y < clip.Y || y >= clip.Y+clip.H {
		return
	}
	w := textWriter{p: p, y: y, x: f.labelX, end: f.labelX + f.labelW, clip: clip, lastRow: y, wrapFrom: -1, spans: p.spans[:0]}
	defer w.flush()
	if f.kind == clusterOR {
		w.put(" or ", ClassFrameORLabel)
		w.put(f.name, ClassFrameORLabel)
		if p.d != nil {
			if s := p.d.orSel[f.group]; s != "" {
				w.put(" → "+s, ClassFrameORLabel)
			}
		}
	} else {
		n := f.node
		p.nodeTitle(&w, n, ClassFrameLabel)
	}
	w.put(" ", ClassFrameLabel)
}

// The marks drawn before a node's status glyph (with Flag.Glyph).
const (
	readyMark  = '▸'
	failedMark = '✗'
)

// nodeTitle writes marker, status glyph, id and label.
func (p *painter) nodeTitle(w *textWriter, n int, labelClass Class) {
	pn := &p.l.nodes[n]
	st := p.d.status0(n)
	switch {
	case p.d != nil && p.d.flag[n] != FlagNone:
		cl := ClassFlagWarning
		if p.d.flag[n] == FlagError {
			cl = ClassFlagError
		}
		w.putRune(p.d.flag[n].Glyph(), cl)
	case p.d != nil && p.d.exec[n]:
		w.putRune(readyMark, ClassReady)
	case p.d != nil && p.d.failed[n]:
		w.putRune(failedMark, ClassFailedMark)
	default:
		w.put(" ", labelClass)
	}
	w.putRune(st.Glyph(), statusClass(st))
	w.put(" ", labelClass)
	w.markWrap()
	w.put(pn.id, ClassID)
	if pn.kind == kindAtom && len(pn.folded) > 0 {
		w.put(" [+"+itoa(len(pn.folded))+"]", ClassFolded)
	}
	if p.d == nil {
		return
	}
	lc := labelClass
	switch {
	case p.d.failed[n]:
		lc = ClassLabelFailed
	case st == Resolved && labelClass == ClassLabel:
		lc = ClassLabelResolved
	}
	if l := p.d.label[n]; l != "" {
		w.put(" ", lc)
		w.put(l, lc)
	}
}

func statusClass(s Status) Class {
	switch s {
	case Pending:
		return ClassPending
	case InProgress:
		return ClassInProgress
	case Resolved:
		return ClassResolved
	}
	return ClassUnknown
}

func (p *painter) box(n int, clip Rect) {
	pn := &p.l.nodes[n]
	r := pn.rect
	bs, cl := borderRound, ClassBorder
	switch {
	case n == p.sel:
		bs, cl = borderHeavy, ClassBorderSelected
	case pn.kind == kindMissing:
		bs, cl = borderDashed, ClassBorderMissing
	case pn.kind == kindSummary:
		bs, cl = borderDouble, ClassBorderSummary
	case p.d != nil && p.d.failed[n]:
		cl = ClassBorderFailed
	case p.d != nil && p.d.chosen[n]:
		bs, cl = borderDouble, ClassBorderChosen
	}
	p.rectBorder(r, clip, bs, cl)
	// interior
	for y := max(r.Y+1, clip.Y); y <= min(r.Y+r.H-2, clip.Y+clip.H-1); y++ {
		for x := max(r.X+1, clip.X); x <= min(r.X+r.W-2, clip.X+clip.W-1); x++ {
			p.set(x, y, ' ', ClassLabel)
		}
	}
	w := textWriter{p: p, y: r.Y + 1, x: r.X + 1, end: r.X + r.W - 1, clip: clip, lastRow: r.Y + r.H - 2, wrapFrom: -1, spans: p.spans[:0]}
	p.nodeTitle(&w, n, ClassLabel)
	w.flush()
}

func (p *painter) mark(mi int, clip Rect) {
	m := &p.l.marks[mi]
	if !clip.Contains(m.x, m.y) {
		return
	}
	cl := ClassArrow
	if p.active(m.edges) {
		cl = ClassArrowActive
	}
	p.set(m.x, m.y, m.glyph, cl)
}

// textWriter collects a title as spans, then lays it into cells from x to
// end (exclusive) on row y, wrapping to further rows (up to lastRow) at
// wrapFrom, and truncating with "…" when it does not fit. Cells outside clip
// are measured but not written, so a box split across buckets is written
// identically in each part.
type textWriter struct {
	p        *painter
	x, y     int
	end      int
	clip     Rect
	lastRow  int
	wrapFrom int
	spans    []textSpan
}

type textSpan struct {
	s    string
	cl   Class
	wrap bool // wrapped lines start here
}

func (w *textWriter) putRune(r rune, cl Class) { w.put(string(r), cl) }

func (w *textWriter) put(s string, cl Class) {
	w.spans = append(w.spans, textSpan{s: s, cl: cl, wrap: w.wrapFrom == -2})
	if w.wrapFrom == -2 {
		w.wrapFrom = -1
	}
}

// markWrap makes the next span the start of wrapped lines.
func (w *textWriter) markWrap() { w.wrapFrom = -2 }

type placed struct {
	x, y int
	ok   bool
}

type glyph struct {
	g    string
	w    int
	cl   Class
	wrap bool
}

func (w *textWriter) flush() {
	gs := w.p.glyphs[:0]
	for _, sp := range w.spans {
		s := sp.s
		first := true
		for len(s) > 0 {
			g, gw := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
			s = s[len(g):]
			if gw <= 0 {
				continue
			}
			gs = append(gs, glyph{g, gw, sp.cl, sp.wrap && first})
			first = false
		}
	}
	// Coordinates may be negative (seeded layouts keep old cells), so
	// "not placed" and "no wrap column" are flags, not -1.
	pos := resize(w.p.placed, len(gs))
	clear(pos)
	w.p.glyphs, w.p.placed, w.p.spans = gs, pos, w.spans
	x, y := w.x, w.y
	wrapX, wraps := 0, false
	cut := len(gs) // glyphs from cut on are not drawn
	var ellipsis placed
	// Trailing blanks need no room: the title fits without them.
	end := len(gs)
	for end > 0 && gs[end-1].g == " " {
		end--
	}
	for i := 0; i < len(gs); i++ {
		g := gs[i]
		if g.wrap {
			wrapX, wraps = x, true
		}
		canWrap := wraps && y < w.lastRow
		if canWrap && g.g != " " && (i == 0 || gs[i-1].g == " ") {
			// start of a word: move it down whole if it does not fit here
			// but would fit on a fresh line
			wl := 0
			for j := i; j < len(gs) && gs[j].g != " "; j++ {
				wl += gs[j].w
			}
			if x+wl > w.end && x > wrapX && wrapX+wl <= w.end {
				y++
				x = wrapX
				canWrap = y < w.lastRow
			}
		}
		if x+g.w > w.end && canWrap {
			y++
			x = wrapX
		}
		if g.g == " " && wraps && x == wrapX && y > w.y {
			continue // no leading blank on a wrapped line
		}
		// On the last line, leave room for "…" unless everything fits.
		rest := 0
		for j := i; j < end; j++ {
			rest += gs[j].w
		}
		if x+g.w > w.end || (!canWrap && x+rest > w.end && x+g.w > w.end-1) {
			cut = i
			if x < w.end {
				ellipsis = placed{x, y, true}
			}
			break
		}
		pos[i] = placed{x, y, true}
		x += g.w
	}
	for i := 0; i < cut; i++ {
		if pos[i].ok {
			w.cell(pos[i].x, pos[i].y, gs[i].g, gs[i].w, gs[i].cl)
		}
	}
	if ellipsis.ok {
		w.cell(ellipsis.x, ellipsis.y, "…", 1, gs[min(cut, len(gs)-1)].cl)
	}
}

func (w *textWriter) inClip(x, y int) bool {
	return w.clip.Contains(x, y) && w.p.view.Contains(x, y)
}

func (w *textWriter) cell(x, y int, g string, gw int, cl Class) {
	// A wide grapheme cut by the view's edge is drawn as blanks.
	whole := w.p.view.Contains(x, y) && w.p.view.Contains(x+gw-1, y)
	for k := 0; k < gw; k++ {
		if !w.inClip(x+k, y) {
			continue
		}
		i := (y-w.p.view.Y)*w.p.c.W + (x + k - w.p.view.X)
		switch {
		case !whole:
			w.p.c.Cells[i] = Cell{Rune: ' ', Class: cl, Width: 1}
		case k == 0:
			c := Cell{Class: cl, Width: int8(gw)}
			r := []rune(g)
			c.Rune = r[0]
			if len(r) > 1 {
				c.Cluster = g
			}
			w.p.c.Cells[i] = c
		default:
			w.p.c.Cells[i] = Cell{Rune: 0, Class: cl, Width: 0}
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append(b, byte('0'+n%10))
	}
	slices.Reverse(b)
	return string(b)
}
