package graph

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
	var errs []string
	fail := func(f string, a ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(f, a...))
		}
	}
	boxes := []int{}
	for i, n := range l.nodes {
		if n.rect.W <= 0 || n.rect.H <= 0 {
			fail("node %s has no geometry", n.id)
			continue
		}
		if n.frame < 0 {
			boxes = append(boxes, i)
		}
	}
	// 1. No overlapping boxes; frames neither cut boxes nor each other.
	for a := 0; a < len(boxes); a++ {
		for b := a + 1; b < len(boxes); b++ {
			if l.nodes[boxes[a]].rect.Intersects(l.nodes[boxes[b]].rect) {
				fail("boxes %s and %s overlap", l.nodes[boxes[a]].id, l.nodes[boxes[b]].id)
			}
		}
	}
	inside := func(r, o Rect) bool { // o inside r's interior
		return o.X > r.X && o.Y > r.Y && o.X+o.W < r.X+r.W && o.Y+o.H < r.Y+r.H
	}
	for fi, f := range l.frames {
		for _, b := range boxes {
			br := l.nodes[b].rect
			if br.Intersects(f.rect) && !inside(f.rect, br) {
				fail("frame %d cuts box %s", fi, l.nodes[b].id)
			}
		}
		for fj, o := range l.frames {
			if fj != fi && f.rect.Intersects(o.rect) && !inside(f.rect, o.rect) && !inside(o.rect, f.rect) {
				fail("frames %d and %d cross", fi, fj)
			}
		}
	}
	// Cells of each edge, and what covers each cell.
	type cover struct {
		s       int
		through bool // the cell is inside the stroke, not an end
	}
	cells := map[cellKey][]cover{}
	edgeCells := make([]map[cellKey]bool, len(l.edges))
	for i := range edgeCells {
		edgeCells[i] = map[cellKey]bool{}
	}
	for si, s := range l.strokes {
		for p := s.a; p <= s.b; p++ {
			k := cellKey{s.fix, p}
			if !s.vert {
				k = cellKey{p, s.fix}
			}
			cells[k] = append(cells[k], cover{si, p > s.a && p < s.b})
			for _, e := range s.edges {
				edgeCells[e][k] = true
			}
		}
	}
	marks := map[cellKey][]int{}
	for mi, m := range l.marks {
		marks[cellKey{m.x, m.y}] = append(marks[cellKey{m.x, m.y}], mi)
	}
	// 2. No edge cell inside a box other than its endpoints' borders.
	for _, b := range boxes {
		r := l.nodes[b].rect
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				cs := cells[cellKey{x, y}]
				if len(cs) == 0 {
					continue
				}
				border := x == r.X || y == r.Y || x == r.X+r.W-1 || y == r.Y+r.H-1
				if !border {
					fail("edge inside box %s at %d,%d", l.nodes[b].id, x, y)
					continue
				}
				for _, c := range cs {
					for _, e := range l.strokes[c.s].edges {
						pe := l.edges[e]
						if pe.from != b && pe.to != b {
							fail("edge %s→%s touches box %s", l.nodes[pe.from].id, l.nodes[pe.to].id, l.nodes[b].id)
						}
					}
				}
				if len(marks[cellKey{x, y}]) == 0 {
					fail("edge meets box %s at %d,%d without a port", l.nodes[b].id, x, y)
				}
			}
		}
	}
	// Frame titles are not crossed.
	for fi, f := range l.frames {
		for x := f.labelX; x < f.labelX+f.labelW; x++ {
			if len(cells[cellKey{x, f.labelY}]) > 0 || len(marks[cellKey{x, f.labelY}]) > 0 {
				fail("an edge crosses frame %d's title", fi)
			}
		}
	}
	// 3. Every edge is drawn end to end: its cells are connected and it has
	// a mark on each endpoint's border.
	for ei, pe := range l.edges {
		ec := edgeCells[ei]
		if len(ec) == 0 {
			fail("edge %s→%s not drawn", l.nodes[pe.from].id, l.nodes[pe.to].id)
			continue
		}
		ends := 0
		for _, mis := range marks {
			for _, mi := range mis {
				if slices.Contains(l.marks[mi].edges, int32(ei)) {
					n := l.marks[mi].node
					if n != pe.from && n != pe.to {
						fail("edge %s→%s marked on %s", l.nodes[pe.from].id, l.nodes[pe.to].id, l.nodes[n].id)
					}
					if !ec[cellKey{l.marks[mi].x, l.marks[mi].y}] {
						fail("edge %s→%s mark off its path", l.nodes[pe.from].id, l.nodes[pe.to].id)
					}
					ends++
				}
			}
		}
		if ends != 2 {
			fail("edge %s→%s has %d end marks", l.nodes[pe.from].id, l.nodes[pe.to].id, ends)
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
			fail("edge %s→%s is broken (%d of %d cells connected)", l.nodes[pe.from].id, l.nodes[pe.to].id, len(seen), len(ec))
		}
	}
	// 4. Cells shared only by edges with one source or one target, or at a
	// right-angle crossing of two such groups.
	common := func(es []int32) bool {
		if len(es) <= 1 {
			return true
		}
		f, t := true, true
		for _, e := range es[1:] {
			f = f && l.edges[e].from == l.edges[es[0]].from
			t = t && l.edges[e].to == l.edges[es[0]].to
		}
		return f || t
	}
	for k, cs := range cells {
		var all, vert, hor []int32
		allThrough := true
		for _, c := range cs {
			s := &l.strokes[c.s]
			all = append(all, s.edges...)
			if s.vert {
				vert = append(vert, s.edges...)
			} else {
				hor = append(hor, s.edges...)
			}
			allThrough = allThrough && c.through
		}
		slices.Sort(all)
		all = slices.Compact(all)
		if common(all) {
			continue
		}
		slices.Sort(vert)
		slices.Sort(hor)
		vert, hor = slices.Compact(vert), slices.Compact(hor)
		if allThrough && len(vert) > 0 && len(hor) > 0 && common(vert) && common(hor) && !sharesEdge(vert, hor) {
			continue // a crossing
		}
		names := []string{}
		for _, e := range all {
			names = append(names, l.nodes[l.edges[e].from].id+"→"+l.nodes[l.edges[e].to].id)
		}
		fail("cell %d,%d merges unrelated edges %v", k.x, k.y, names)
	}
	// Every node shows its id (boxes wide enough for it).
	c := l.Paint(l.Decorate(g), l.bounds, "")
	for i, n := range l.nodes {
		if n.frame >= 0 {
			continue
		}
		r := n.rect
		row := rowText(c, r.Y+1-l.bounds.Y, r.X-l.bounds.X, r.W)
		if ansi.StringWidth(n.id)+4 <= r.W && !strings.Contains(row, n.id) {
			fail("node %d (%s) does not show its id: %q", i, n.id, row)
		}
	}
	return errs
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
				l := NewLayout(g, Options{Orientation: o, NodeWidth: w})
				for _, e := range checkLayout(l, g) {
					t.Errorf("%s %s width %d: %s", name, o, w, e)
				}
			}
		}
	}
}
