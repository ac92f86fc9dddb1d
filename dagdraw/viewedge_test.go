package dagdraw

import (
	"strings"
	"testing"
)

// A view that follows or centres a selection through a layout larger than
// the pane does not cut a layer at its leading edge: in left-right every
// box in sight shows its left border, status glyph and id; in top-down
// every box in sight its title row.
func TestViewDoesNotCutBoxesAtItsEdges(t *testing.T) {
	g := demoGraph()
	for _, c := range []struct {
		o    Orientation
		w, h int
	}{{LeftRight, 79, 17}, {LeftRight, 60, 14}, {LeftRight, 40, 30}, {TopDown, 50, 12}, {TopDown, 79, 9}} {
		for _, center := range []bool{false, true} {
			v := NewView(c.w, c.h)
			v.SetOptions(g, Options{Orientation: c.o, NodeWidth: 16})
			for _, n := range g.Nodes {
				if center {
					v.Center(n.ID)
				} else {
					v.Select(n.ID)
				}
				vp := v.Viewport()
				if r, _ := v.Layout().Node(n.ID); !vp.Rect().Intersects(r) {
					t.Fatalf("%s %dx%d: %s is out of view", c.o, c.w, c.h, n.ID)
				}
				for _, m := range g.Nodes {
					r, _ := v.Layout().Node(m.ID)
					if m.ID == "A3" || !r.Intersects(vp.Rect()) {
						continue
					}
					if c.o == LeftRight && r.X < vp.X || c.o == TopDown && r.Y+1 < vp.Y {
						t.Errorf("%s %dx%d, %s selected (centred %v): %s's box %+v is cut by the view %+v",
							c.o, c.w, c.h, n.ID, center, m.ID, r, vp)
					}
				}
			}
		}
	}
}

// When the selected node goes, the nearest one in reading order takes its
// place: the next, else the one before.
func TestNearest(t *testing.T) {
	l := NewLayout(diamondGraph(), Options{NodeWidth: 20})
	all := func(except ...string) func(string) bool {
		return func(id string) bool { return !strings.Contains(" "+strings.Join(except, " ")+" ", " "+id+" ") }
	}
	for _, c := range []struct {
		from   string
		except []string
		want   string
	}{
		{"A1", []string{"A1"}, "A2"},
		{"A2", []string{"A2"}, "A3"},
		{"A4", []string{"A4"}, "A3"},
		{"A2", []string{"A2", "A3"}, "A4"},
		{"A4", []string{"A2", "A3", "A4"}, "A1"},
	} {
		if got, _ := l.Nearest(c.from, all(c.except...)); got != c.want {
			t.Errorf("nearest to %s without %v: %q, want %s", c.from, c.except, got, c.want)
		}
	}
	if _, ok := l.Nearest("A1", func(string) bool { return false }); ok {
		t.Error("no node left, yet one was found")
	}
}

// A move with nothing selected selects the first node in sight.
func TestMoveWithoutSelection(t *testing.T) {
	g := diamondGraph()
	v := NewView(60, 20)
	v.SetGraph(g)
	v.Select("A4")
	less := g
	less.Nodes = g.Nodes[:3]
	less.Edges = nil
	for _, e := range g.Edges {
		if e.To != "A4" {
			less.Edges = append(less.Edges, e)
		}
	}
	v.SetGraph(less)
	if v.Selected() != "" {
		t.Fatalf("A4 is gone, yet %q is selected", v.Selected())
	}
	for _, d := range []Direction{Down, Up, Left, Right} {
		v.SetGraph(g)
		v.Select("A4")
		v.SetGraph(less)
		if !v.Move(d) || v.Selected() != "A1" {
			t.Errorf("move %v from no selection: %q, want the first node in sight", d, v.Selected())
		}
	}
}

// Over random graphs, views and selections: wherever some position of the
// left (top) edge keeps the selection in view and cuts no box there,
// Settle leaves that edge cutting none.
func TestSettleFindsAnUncutEdge(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		g := genGraph(seed, 40+int(seed)*15, genOpts{extras: true, statuses: true})
		for _, o := range []Orientation{TopDown, LeftRight} {
			l := NewLayout(g, Options{Orientation: o, NodeWidth: 20})
			r := &rng{s: seed*7 + uint64(o)}
			for k := 0; k < 40; k++ {
				id := g.Nodes[r.intn(len(g.Nodes))].ID
				i := l.index[id]
				v := Viewport{W: 30 + r.intn(60), H: 8 + r.intn(20)}
				box := l.nodes[i].rect
				v.X, v.Y = box.X-r.intn(v.W), box.Y-r.intn(v.H)
				v = v.Follow(l, id, 2)
				got := v.Settle(l, id, 2)
				k := box
				if k.W > v.W || k.H > v.H || l.nodes[i].frame >= 0 {
					k = l.navRect(i)
				}
				my := min(2, max(0, (v.H-k.H)/2))
				mx := min(2, max(0, (v.W-k.W)/2))
				cutY := func(y int) bool { _, _, c := l.cutBoxes(Rect{v.X, y, v.W, 1}, false, 1); return c }
				cutX := func(x int) bool { _, _, c := l.cutBoxes(Rect{x, got.Y, 1, v.H}, true, 0); return c }
				if cutY(got.Y) {
					for y := k.Y + k.H + my - v.H; y <= k.Y-my; y++ {
						if !cutY(y) {
							t.Fatalf("seed %d %s, %s in %+v: the top edge at %d cuts a box, at %d it would not", seed, o, id, v, got.Y, y)
						}
					}
				}
				if cutX(got.X) {
					for x := k.X + k.W + mx - v.W; x <= k.X-mx; x++ {
						if !cutX(x) {
							t.Fatalf("seed %d %s, %s in %+v: the left edge at %d cuts a box, at %d it would not", seed, o, id, v, got.X, x)
						}
					}
				}
			}
		}
	}
}
