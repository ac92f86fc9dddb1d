package dagdraw

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

type cellKey struct{ x, y int }

// checkLayout verifies the drawing rules every layout must keep and returns
// the problems found (empty when all hold).
func checkLayout(l *Layout, g Graph) []string {
	c := &layoutChecker{l: l}
	c.listBoxes()
	c.checkOverlaps()
	c.coverCells()
	c.checkBoxesClear()
	c.checkTitles()
	for ei := range l.edges {
		c.checkEdge(ei)
	}
	c.checkSharedCells()
	c.checkIDsShown(g)
	return c.errs
}

// cover is a stroke over a cell.
type cover struct {
	s       int
	through bool // the cell is inside the stroke, not an end
}

// layoutChecker holds what the checks of checkLayout share.
type layoutChecker struct {
	l         *Layout
	errs      []string
	boxes     []int               // nodes drawn as boxes
	cells     map[cellKey][]cover // what covers each cell
	edgeCells []map[cellKey]bool  // cells of each edge
	marks     map[cellKey][]int   // marks at each cell
}

func (c *layoutChecker) fail(f string, a ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, fmt.Sprintf(f, a...))
	}
}

func (c *layoutChecker) listBoxes() {
	c.boxes = []int{}
	for i, n := range c.l.nodes {
		if n.rect.W <= 0 || n.rect.H <= 0 {
			c.fail("node %s has no geometry", n.id)
			continue
		}
		if n.frame < 0 {
			c.boxes = append(c.boxes, i)
		}
	}
}

// inside is whether o lies inside r's interior.
func inside(r, o Rect) bool {
	return o.X > r.X && o.Y > r.Y && o.X+o.W < r.X+r.W && o.Y+o.H < r.Y+r.H
}

// checkOverlaps checks rule 1: no overlapping boxes; frames neither cut
// boxes nor each other.
func (c *layoutChecker) checkOverlaps() {
	l, boxes := c.l, c.boxes
	for a := 0; a < len(boxes); a++ {
		for b := a + 1; b < len(boxes); b++ {
			if l.nodes[boxes[a]].rect.Intersects(l.nodes[boxes[b]].rect) {
				c.fail("boxes %s and %s overlap", l.nodes[boxes[a]].id, l.nodes[boxes[b]].id)
			}
		}
	}
	for fi, f := range l.frames {
		for _, b := range boxes {
			br := l.nodes[b].rect
			if br.Intersects(f.rect) && !inside(f.rect, br) {
				c.fail("frame %d cuts box %s", fi, l.nodes[b].id)
			}
		}
		for fj, o := range l.frames {
			if fj != fi && f.rect.Intersects(o.rect) && !inside(f.rect, o.rect) && !inside(o.rect, f.rect) {
				c.fail("frames %d and %d cross", fi, fj)
			}
		}
	}
}

// coverCells finds the cells of each edge, what covers each cell and the
// marks.
func (c *layoutChecker) coverCells() {
	l := c.l
	c.cells = map[cellKey][]cover{}
	c.edgeCells = make([]map[cellKey]bool, len(l.edges))
	for i := range c.edgeCells {
		c.edgeCells[i] = map[cellKey]bool{}
	}
	for si, s := range l.strokes {
		for p := s.a; p <= s.b; p++ {
			k := cellKey{s.fix, p}
			if !s.vert {
				k = cellKey{p, s.fix}
			}
			c.cells[k] = append(c.cells[k], cover{si, p > s.a && p < s.b})
			for _, e := range s.edges {
				c.edgeCells[e][k] = true
			}
		}
	}
	c.marks = map[cellKey][]int{}
	for mi, m := range l.marks {
		c.marks[cellKey{m.x, m.y}] = append(c.marks[cellKey{m.x, m.y}], mi)
	}
}

// checkBoxesClear checks rule 2: no edge cell inside a box other than its
// endpoints' borders.
func (c *layoutChecker) checkBoxesClear() {
	l := c.l
	for _, b := range c.boxes {
		r := l.nodes[b].rect
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				cs := c.cells[cellKey{x, y}]
				if len(cs) == 0 {
					continue
				}
				border := x == r.X || y == r.Y || x == r.X+r.W-1 || y == r.Y+r.H-1
				if !border {
					c.fail("edge inside box %s at %d,%d", l.nodes[b].id, x, y)
					continue
				}
				for _, cv := range cs {
					for _, e := range l.strokes[cv.s].edges {
						pe := l.edges[e]
						if pe.from != b && pe.to != b {
							c.fail("edge %s→%s touches box %s", l.nodes[pe.from].id, l.nodes[pe.to].id, l.nodes[b].id)
						}
					}
				}
				if len(c.marks[cellKey{x, y}]) == 0 {
					c.fail("edge meets box %s at %d,%d without a port", l.nodes[b].id, x, y)
				}
			}
		}
	}
}

// checkTitles checks that frame titles are not crossed.
func (c *layoutChecker) checkTitles() {
	for fi, f := range c.l.frames {
		for x := f.labelX; x < f.labelX+f.labelW; x++ {
			if len(c.cells[cellKey{x, f.labelY}]) > 0 || len(c.marks[cellKey{x, f.labelY}]) > 0 {
				c.fail("an edge crosses frame %d's title", fi)
			}
		}
	}
}

// checkEdge checks rule 3 for edge ei: it is drawn end to end, its cells
// are connected and it has a mark on each endpoint's border.
func (c *layoutChecker) checkEdge(ei int) {
	l := c.l
	pe := l.edges[ei]
	ec := c.edgeCells[ei]
	name := l.nodes[pe.from].id + "→" + l.nodes[pe.to].id
	if len(ec) == 0 {
		c.fail("edge %s not drawn", name)
		return
	}
	ends := 0
	for _, mis := range c.marks {
		for _, mi := range mis {
			if slices.Contains(l.marks[mi].edges, int32(ei)) {
				n := l.marks[mi].node
				if n != pe.from && n != pe.to {
					c.fail("edge %s marked on %s", name, l.nodes[n].id)
				}
				if !ec[cellKey{l.marks[mi].x, l.marks[mi].y}] {
					c.fail("edge %s mark off its path", name)
				}
				ends++
			}
		}
	}
	if ends != 2 {
		c.fail("edge %s has %d end marks", name, ends)
	}
	var start cellKey
	for k := range ec {
		start = k
		break
	}
	seen := map[cellKey]bool{start: true}
	stack := []cellKey{start}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range []cellKey{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			nk := cellKey{k.x + d.x, k.y + d.y}
			if ec[nk] && !seen[nk] {
				seen[nk] = true
				stack = append(stack, nk)
			}
		}
	}
	if len(seen) != len(ec) {
		c.fail("edge %s is broken (%d of %d cells connected)", name, len(seen), len(ec))
	}
}

// common is whether edges es all have one source or one target.
func (c *layoutChecker) common(es []int32) bool {
	if len(es) <= 1 {
		return true
	}
	f, t := true, true
	for _, e := range es[1:] {
		f = f && c.l.edges[e].from == c.l.edges[es[0]].from
		t = t && c.l.edges[e].to == c.l.edges[es[0]].to
	}
	return f || t
}

// checkSharedCells checks rule 4: cells shared only by edges with one
// source or one target, or at a right-angle crossing of two such groups.
func (c *layoutChecker) checkSharedCells() {
	l := c.l
	for k, cs := range c.cells {
		var all, vert, hor []int32
		allThrough := true
		for _, cv := range cs {
			s := &l.strokes[cv.s]
			all = append(all, s.edges...)
			if s.vert {
				vert = append(vert, s.edges...)
			} else {
				hor = append(hor, s.edges...)
			}
			allThrough = allThrough && cv.through
		}
		slices.Sort(all)
		all = slices.Compact(all)
		if c.common(all) {
			continue
		}
		slices.Sort(vert)
		slices.Sort(hor)
		vert, hor = slices.Compact(vert), slices.Compact(hor)
		if allThrough && len(vert) > 0 && len(hor) > 0 && c.common(vert) && c.common(hor) && !sharesEdge(vert, hor) {
			continue // a crossing
		}
		names := []string{}
		for _, e := range all {
			names = append(names, l.nodes[l.edges[e].from].id+"→"+l.nodes[l.edges[e].to].id)
		}
		c.fail("cell %d,%d merges unrelated edges %v", k.x, k.y, names)
	}
}

// checkIDsShown checks that every node shows its id (boxes wide enough
// for it).
func (c *layoutChecker) checkIDsShown(g Graph) {
	l := c.l
	cv := l.Paint(l.Decorate(g), l.bounds, "")
	for i, n := range l.nodes {
		if n.frame >= 0 {
			continue
		}
		r := n.rect
		row := rowText(cv, r.Y+1-l.bounds.Y, r.X-l.bounds.X, r.W)
		if ansi.StringWidth(n.id)+4 <= r.W && !strings.Contains(row, n.id) {
			c.fail("node %d (%s) does not show its id: %q", i, n.id, row)
		}
	}
}

func rowText(c *Canvas, y, x, w int) string {
	var b strings.Builder
	for _, cell := range c.Row(y)[x : x+w] {
		if cell.Width == 0 {
			continue
		}
		if cell.Cluster != "" {
			b.WriteString(cell.Cluster)
		} else {
			b.WriteRune(cell.Rune)
		}
	}
	return b.String()
}

func TestFixturesKeepDrawingRules(t *testing.T) {
	for _, name := range fixtureNames {
		g := fixtures(t)[name]
		for _, o := range []Orientation{TopDown, LeftRight} {
			for _, w := range []int{12, 20, 30} {
				for _, lines := range []int{1, 2} {
					l := NewLayout(g, Options{Orientation: o, NodeWidth: w, TitleLines: lines, FitTitles: lines == 2})
					for _, e := range checkLayout(l, g) {
						t.Errorf("%s %s width %d, %d lines: %s", name, o, w, lines, e)
					}
				}
			}
		}
	}
}
