package dagdraw

import (
	"sort"
	"strconv"
)

// Direction is a spatial move on screen.
type Direction uint8

// Directions (h, j, k, l).
const (
	Left Direction = iota
	Down
	Up
	Right
)

// navRect is what a node occupies for navigation: its box, or for a frame
// the title row.
func (l *Layout) navRect(i int) Rect {
	n := &l.nodes[i]
	if n.frame >= 0 {
		f := &l.frames[n.frame]
		if f.labelW > 0 {
			return Rect{f.labelX, f.labelY, f.labelW, 1}
		}
		return Rect{f.rect.X, f.rect.Y, f.rect.W, 1}
	}
	return n.rect
}

// Move returns the node nearest to from in direction d on screen: the
// closest one whose centre lies that way, preferring nodes in line with
// from. ok is false when there is none (or from is unknown).
func (l *Layout) Move(from string, d Direction) (string, bool) {
	i, ok := l.index[from]
	if !ok {
		return "", false
	}
	r := l.navRect(i)
	cx, cy := 2*r.X+r.W, 2*r.Y+r.H // doubled centres stay integers
	best, bestScore := -1, 0
	for j := range l.nodes {
		if j == i {
			continue
		}
		o := l.navRect(j)
		if o.W <= 0 {
			continue
		}
		ox, oy := 2*o.X+o.W, 2*o.Y+o.H
		var along, across int
		var overlap bool
		switch d {
		case Left:
			along, across = cx-ox, abs(oy-cy)
			overlap = o.Y < r.Y+r.H && r.Y < o.Y+o.H
			if o.X+o.W > r.X {
				continue
			}
		case Right:
			along, across = ox-cx, abs(oy-cy)
			overlap = o.Y < r.Y+r.H && r.Y < o.Y+o.H
			if o.X < r.X+r.W {
				continue
			}
		case Up:
			along, across = cy-oy, abs(ox-cx)
			overlap = o.X < r.X+r.W && r.X < o.X+o.W
			if o.Y+o.H > r.Y {
				continue
			}
		case Down:
			along, across = oy-cy, abs(ox-cx)
			overlap = o.X < r.X+r.W && r.X < o.X+o.W
			if o.Y < r.Y+r.H {
				continue
			}
		}
		if along <= 0 {
			continue
		}
		score := along + 3*across
		if overlap {
			score = along + across/4
		}
		if best < 0 || score < bestScore {
			best, bestScore = j, score
		}
	}
	if best < 0 {
		return "", false
	}
	return l.nodes[best].id, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Dependencies lists the nodes id depends on (edges into it, and for a
// decomposition parent drawn with links, its children), in screen order.
func (l *Layout) Dependencies(id string) []string {
	return l.neighbours(id, true)
}

// Dependents lists the nodes that depend on id, in screen order.
func (l *Layout) Dependents(id string) []string {
	return l.neighbours(id, false)
}

func (l *Layout) neighbours(id string, deps bool) []string {
	i, ok := l.index[id]
	if !ok {
		return nil
	}
	var ns []int
	for _, e := range l.edges {
		switch {
		case deps && e.to == i:
			ns = append(ns, e.from)
		case !deps && e.from == i:
			ns = append(ns, e.to)
		}
	}
	sort.SliceStable(ns, func(a, b int) bool {
		ra, rb := l.navRect(ns[a]), l.navRect(ns[b])
		if l.st.orient == LeftRight {
			if ra.X != rb.X {
				return ra.X < rb.X
			}
			return ra.Y < rb.Y
		}
		if ra.Y != rb.Y {
			return ra.Y < rb.Y
		}
		return ra.X < rb.X
	})
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, l.nodes[n].id)
	}
	return out
}

// FirstLayer returns the first node of the first layer (g).
func (l *Layout) FirstLayer() (string, bool) { return l.layerEnd(true) }

// LastLayer returns the first node of the last layer (G).
func (l *Layout) LastLayer() (string, bool) { return l.layerEnd(false) }

func (l *Layout) layerEnd(first bool) (string, bool) {
	for k := range l.layers {
		li := k
		if !first {
			li = len(l.layers) - 1 - k
		}
		if len(l.layers[li]) > 0 {
			return l.nodes[l.layers[li][0]].id, true
		}
	}
	return "", false
}

// Viewport is the visible part of a layout, in layout coordinates (which
// stay put across seeded layouts, so a viewport stays on the same cells).
type Viewport struct{ X, Y, W, H int }

// Rect is the viewport as a rectangle.
func (v Viewport) Rect() Rect { return Rect(v) }

// Home is a viewport of w×h at the layout's top-left corner.
func (l *Layout) Home(w, h int) Viewport {
	return Viewport{l.bounds.X, l.bounds.Y, w, h}
}

// Follow scrolls v as little as possible so id's node (its title row for
// frames too large to show) is inside with margin cells around it where the
// view allows.
func (v Viewport) Follow(l *Layout, id string, margin int) Viewport {
	i, ok := l.index[id]
	if !ok {
		return v
	}
	r := l.nodes[i].rect
	if r.W > v.W || r.H > v.H {
		nr := l.navRect(i)
		if r.W > v.W {
			r.X, r.W = nr.X, nr.W
		}
		if r.H > v.H {
			r.Y, r.H = nr.Y, nr.H
		}
	}
	mx := min(margin, max(0, (v.W-r.W)/2))
	my := min(margin, max(0, (v.H-r.H)/2))
	if r.X-mx < v.X {
		v.X = r.X - mx
	} else if r.X+r.W+mx > v.X+v.W {
		v.X = r.X + r.W + mx - v.W
	}
	if r.Y-my < v.Y {
		v.Y = r.Y - my
	} else if r.Y+r.H+my > v.Y+v.H {
		v.Y = r.Y + r.H + my - v.H
	}
	return v
}

// Settle moves v's left and top edges off the boxes they cut, keeping the
// node keep (its box, or a frame's title, with margin cells around it where
// the view allows) in view: back to where the cut boxes start, so that
// their status glyph and id show (at the left) or their title row (at the
// top), or else past them (the view may then reach beyond the drawing's
// far end). A viewport that follows a selection through a layout larger
// than the pane then does not show half a box at its left or top edge,
// where some position keeping keep in view shows none; an edge is left
// where it is when there is none.
func (v Viewport) Settle(l *Layout, keep string, margin int) Viewport {
	i, ok := l.index[keep]
	if !ok {
		return v
	}
	k := l.nodes[i].rect
	if k.W > v.W || k.H > v.H || l.nodes[i].frame >= 0 {
		k = l.navRect(i) // a frame's title is what must stay
	}
	my := min(margin, max(0, (v.H-k.H)/2))
	v.Y = settleAxis(v.Y, v.H, k.Y-my, k.Y+k.H+my, 1, func(at int) (int, int, bool) {
		return l.cutBoxes(Rect{v.X, at, v.W, 1}, false, 1)
	})
	mx := min(margin, max(0, (v.W-k.W)/2))
	v.X = settleAxis(v.X, v.W, k.X-mx, k.X+k.W+mx, 0, func(at int) (int, int, bool) {
		return l.cutBoxes(Rect{at, v.Y, 1, v.H}, true, 0)
	})
	return v
}

// settleAxis moves an edge at off the boxes cut reports cut there (those
// whose first lead cells it hides), for a view of size cells that must
// keep [keepLo, keepHi): to the nearest position back (towards the cut
// boxes' starts: onto a start where that cuts nothing, else lead cells
// past it) or on (past their ends) where none is cut, back first; at
// itself where neither keeps the range.
func settleAxis(at, size, keepLo, keepHi, lead int, cut func(at int) (lo, hi int, ok bool)) int {
	if _, _, ok := cut(at); !ok {
		return at
	}
	for back := at; keepHi <= back+size; {
		lo, _, ok := cut(back)
		if !ok {
			return back
		}
		if _, _, whole := cut(lo); !whole && keepHi <= lo+size {
			return lo
		}
		if lo+lead >= back {
			break
		}
		back = lo + lead
	}
	for on := at; on <= keepLo; {
		_, hi, ok := cut(on)
		if !ok {
			return on
		}
		if hi <= on {
			break
		}
		on = hi
	}
	return at
}

// cutBoxes reports the boxes whose leading part the edge r (a column when
// vertical, else a row) hides: those that start before it and reach at
// least lead cells past their start into it; lo is the smallest start and
// hi the largest end of them along that axis.
func (l *Layout) cutBoxes(r Rect, vertical bool, lead int) (lo, hi int, ok bool) {
	l.grid.visit(r, func(k primKind, i int) {
		if k != primBox {
			return
		}
		b := l.nodes[i].rect
		if !b.Intersects(r) {
			return
		}
		start, end, edge := b.X, b.X+b.W, r.X
		if !vertical {
			start, end, edge = b.Y, b.Y+b.H, r.Y
		}
		if start+lead >= edge {
			return
		}
		if !ok {
			lo, hi, ok = start, end, true
			return
		}
		lo, hi = min(lo, start), max(hi, end)
	})
	return lo, hi, ok
}

// Nearest returns the node that follows id in reading order (layer by
// layer, each in its drawing order) among those keep accepts, else the
// last one before id that it accepts: where a selection goes when its node
// disappears. ok is false when id is not drawn or keep accepts no other
// node.
func (l *Layout) Nearest(id string, keep func(id string) bool) (string, bool) {
	i, ok := l.index[id]
	if !ok {
		return "", false
	}
	before, found := "", false
	for _, layer := range l.layers {
		for _, n := range layer {
			switch {
			case n == i:
				found = true
			case !keep(l.nodes[n].id):
			case found:
				return l.nodes[n].id, true
			default:
				before = l.nodes[n].id
			}
		}
	}
	return before, before != ""
}

// FirstInSight returns the first node in reading order whose box lies in
// v, else the first node of the first layer.
func (l *Layout) FirstInSight(v Viewport) (string, bool) {
	for _, layer := range l.layers {
		for _, n := range layer {
			if l.navRect(n).Intersects(v.Rect()) {
				return l.nodes[n].id, true
			}
		}
	}
	return l.FirstLayer()
}

// Clamp keeps v over the layout where the layout is larger than v, and at
// its top-left corner otherwise.
func (v Viewport) Clamp(l *Layout) Viewport {
	b := l.bounds
	v.X = max(b.X, min(v.X, b.X+b.W-v.W))
	v.Y = max(b.Y, min(v.Y, b.Y+b.H-v.H))
	return v
}

// Anchor remembers where a node is on screen so the view can be put back
// after a new layout (the selection keeps its screen row and column).
type Anchor struct {
	ID     string
	DX, DY int // the node's position relative to the viewport
	ok     bool
}

// Anchor records id's screen position in v.
func (v Viewport) Anchor(l *Layout, id string) Anchor {
	i, ok := l.index[id]
	if !ok {
		return Anchor{ID: id}
	}
	r := l.nodes[i].rect
	return Anchor{ID: id, DX: r.X - v.X, DY: r.Y - v.Y, ok: true}
}

// Restore moves v so the anchored node is where it was on screen in the
// new layout l. Without the node (removed) v is returned unchanged.
func (a Anchor) Restore(l *Layout, v Viewport) Viewport {
	if !a.ok {
		return v
	}
	i, ok := l.index[a.ID]
	if !ok {
		if rid, ok2 := l.Resolve(a.ID); ok2 {
			i = l.index[rid]
		} else {
			return v
		}
	}
	r := l.nodes[i].rect
	v.X, v.Y = r.X-a.DX, r.Y-a.DY
	return v
}

// Indicator says which part of the layout v shows, compactly for a status
// line: "x 1–60/212 y 1–30/120" (1-based, limited to the layout).
func (l *Layout) Indicator(v Viewport) string {
	b := l.bounds
	part := func(what string, v0, vn, b0, bn int) string {
		lo, hi := max(v0, b0)-b0+1, min(v0+vn, b0+bn)-b0
		if hi < lo {
			return what + " -/" + strconv.Itoa(bn)
		}
		return what + " " + strconv.Itoa(lo) + "–" + strconv.Itoa(hi) + "/" + strconv.Itoa(bn)
	}
	return part("x", v.X, v.W, b.X, b.W) + " " + part("y", v.Y, v.H, b.Y, b.H)
}

// The minimap's glyphs: the part of the layout the viewport shows, a node
// in it and a node outside it.
const (
	minimapSeen = '░'
	minimapNode = '█'
	minimapOff  = '·'
)

// Minimap paints the whole layout scaled into w×h cells: · where nodes
// are, and inside the part the viewport v shows, █ for nodes and ░ for the
// rest (class ClassMinimapView), so the view reads without colour too.
func (l *Layout) Minimap(w, h int, v Viewport) *Canvas {
	c := newCanvas(max(0, w), max(0, h))
	if w <= 0 || h <= 0 || l.bounds.W <= 0 || l.bounds.H <= 0 {
		return c
	}
	b := l.bounds
	cellOf := func(x, y int) (int, int) {
		return min(w-1, max(0, (x-b.X)*w/b.W)), min(h-1, max(0, (y-b.Y)*h/b.H))
	}
	vx0, vy0 := cellOf(v.X, v.Y)
	vx1, vy1 := cellOf(v.X+v.W-1, v.Y+v.H-1)
	in := func(x, y int) bool { return x >= vx0 && x <= vx1 && y >= vy0 && y <= vy1 }
	for y := vy0; y <= vy1; y++ {
		for x := vx0; x <= vx1; x++ {
			c.Cells[y*w+x] = Cell{Rune: minimapSeen, Class: ClassMinimapView, Width: 1}
		}
	}
	for i := range l.nodes {
		r := l.nodes[i].rect
		if l.nodes[i].frame >= 0 || r.W <= 0 {
			continue
		}
		x, y := cellOf(r.X+r.W/2, r.Y+r.H/2)
		if in(x, y) {
			c.Cells[y*w+x] = Cell{Rune: minimapNode, Class: ClassMinimapView, Width: 1}
		} else {
			c.Cells[y*w+x] = Cell{Rune: minimapOff, Class: ClassMinimap, Width: 1}
		}
	}
	return c
}

// Fits reports whether the graph view is usable in a pane of paneW×paneH
// cells with node width NodeWidthFor(paneW): a whole node and the edges
// around it must show. When it is not, why says so in a sentence the UI
// can show before falling back to its list layout.
func Fits(paneW, paneH int, o Orientation) (ok bool, why string) {
	nw := NodeWidthFor(paneW)
	needW, needH := nw+4, 3+4
	if o == LeftRight {
		needW, needH = nw+8, 4+2
	}
	if paneW < needW || paneH < needH {
		return false, "graph needs at least " + strconv.Itoa(needW) + "×" + strconv.Itoa(needH) +
			" cells, the pane has " + strconv.Itoa(paneW) + "×" + strconv.Itoa(paneH) + ": showing the list"
	}
	return true, ""
}
