package dagdraw

import (
	"strings"
	"testing"
)

// nodeAtByScan is NodeAt by looking at every node and frame, for checking
// the grid's answer.
func nodeAtByScan(l *Layout, x, y int) (string, bool) {
	for _, n := range l.nodes {
		if n.frame < 0 && n.rect.Contains(x, y) {
			return n.id, true
		}
	}
	best := -1
	for i, f := range l.frames {
		if f.node >= 0 && onBorder(f.rect, x, y) && (best < 0 || f.level < l.frames[best].level) {
			best = i
		}
	}
	if best >= 0 {
		return l.nodes[l.frames[best].node].id, true
	}
	return "", false
}

// Every cell in and around a layout answers what a scan of all the nodes
// answers: boxes, decomposition frames (nested ones the innermost), and
// nothing on edges, OR frames and empty cells, in both orientations,
// collapsed or not.
func TestNodeAtMatchesEveryCell(t *testing.T) {
	graphs := fixtures(t)
	graphs["generated"] = genGraph(7, 120, genOpts{extras: true, statuses: true})
	for name, g := range graphs {
		for _, o := range []Options{{NodeWidth: 20}, {NodeWidth: 16, Orientation: LeftRight}, {NodeWidth: 20, CollapseResolved: true}} {
			l := NewLayout(g, o)
			b := l.Bounds()
			boxes, frames, empty := 0, 0, 0
			for y := b.Y - 2; y < b.Y+b.H+2; y++ {
				for x := b.X - 2; x < b.X+b.W+2; x++ {
					got, ok := l.NodeAt(x, y)
					want, wantOK := nodeAtByScan(l, x, y)
					if got != want || ok != wantOK {
						t.Fatalf("%s %+v: NodeAt(%d, %d) = %q %v, want %q %v", name, o, x, y, got, ok, want, wantOK)
					}
					i, isNode := l.index[got]
					switch {
					case !ok:
						empty++
					case isNode && l.nodes[i].frame >= 0:
						frames++
					default:
						boxes++
					}
				}
			}
			if boxes == 0 || empty == 0 {
				t.Fatalf("%s %+v: %d box cells, %d empty: the check saw nothing", name, o, boxes, empty)
			}
			if name == "decomposition" && o.Orientation == TopDown && !o.CollapseResolved && frames == 0 {
				t.Fatalf("decomposition: no cell answered the parent drawn as a frame")
			}
		}
	}
}

// A click lands where the text was painted: the cell under an atom's id
// in the painted canvas names that atom, the frame's title its parent.
func TestNodeAtWhereTheIDIsPainted(t *testing.T) {
	g := decompGraph()
	l := NewLayout(g, Options{NodeWidth: 24})
	b := l.Bounds()
	c := l.Paint(l.Decorate(g), b, "")
	lines := strings.Split(c.Plain(), "\n")
	find := func(s string) (int, int) {
		for y, line := range lines {
			if x := strings.Index(line, s); x >= 0 {
				return len([]rune(line[:x])), y
			}
		}
		t.Fatalf("%q not painted:\n%s", s, c.Plain())
		return 0, 0
	}
	for _, c := range []struct{ text, id string }{{"A4 ", "A4"}, {"Migrations", "A5"}, {"A6 ", "A6"}, {"A2 ", "A2"}} {
		x, y := find(c.text)
		if id, ok := l.NodeAt(b.X+x, b.Y+y); !ok || id != c.id {
			t.Errorf("the cell under %q answers %q %v, want %s", c.text, id, ok, c.id)
		}
	}
	if r, ok := l.Node("A2"); !ok || l.nodes[l.index["A2"]].frame < 0 {
		t.Fatal("A2 should be drawn as a frame around its parts")
	} else if id, ok := l.NodeAt(r.X+r.W/2, r.Y+r.H/2); ok && id == "A2" {
		t.Errorf("the inside of A2's frame (%q) is not A2: only its border is", id)
	}
}
