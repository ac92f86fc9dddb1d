package dagdraw

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestNavigation(t *testing.T) {
	g := diamondGraph()
	l := NewLayout(g, Options{NodeWidth: 20})
	if id, ok := l.FirstLayer(); !ok || id != "A1" {
		t.Fatalf("first layer: %q", id)
	}
	if id, ok := l.LastLayer(); !ok || id != "A4" {
		t.Fatalf("last layer: %q", id)
	}
	down, ok := l.Move("A1", Down)
	if !ok || (down != "A2" && down != "A3") {
		t.Fatalf("down from A1: %q", down)
	}
	right, ok := l.Move("A2", Right)
	if !ok || right != "A3" {
		t.Fatalf("right from A2: %q", right)
	}
	if left, _ := l.Move("A3", Left); left != "A2" {
		t.Fatalf("left from A3: %q", left)
	}
	if up, _ := l.Move("A4", Up); up != "A2" && up != "A3" {
		t.Fatalf("up from A4: %q", up)
	}
	if _, ok := l.Move("A1", Up); ok {
		t.Fatal("nothing is above A1")
	}
	if d := l.Dependencies("A4"); !slices.Equal(d, []string{"A2", "A3"}) {
		t.Fatalf("dependencies of A4: %v", d)
	}
	if d := l.Dependents("A1"); !slices.Equal(d, []string{"A2", "A3"}) {
		t.Fatalf("dependents of A1: %v", d)
	}
	// left-right: moving right follows the layers
	lr := NewLayout(g, Options{Orientation: LeftRight, NodeWidth: 20})
	if r, _ := lr.Move("A1", Right); r != "A2" && r != "A3" {
		t.Fatalf("left-right: right from A1: %q", r)
	}
}

func TestViewFollowsSelection(t *testing.T) {
	g := genGraph(5, 120, genOpts{statuses: true})
	v := NewView(60, 20)
	v.SetGraph(g)
	for _, id := range []string{"A120", "A1", "A60"} {
		if !v.Select(id) {
			t.Fatalf("select %s", id)
		}
		r, _ := v.Layout().Node(id)
		vp := v.Viewport()
		if !vp.Rect().Intersects(r) || r.Y < vp.Y || r.Y+r.H > vp.Y+vp.H {
			t.Fatalf("%s at %v is not in view %v", id, r, vp)
		}
	}
	// walking with j never loses the selection
	v.Select("A1")
	for k := 0; k < 30 && v.Move(Down); k++ {
		r, _ := v.Layout().Node(v.Selected())
		if !v.Viewport().Rect().Intersects(r) {
			t.Fatalf("moved out of view")
		}
	}
	if v.Select("nope") {
		t.Fatal("selected an unknown id")
	}
}

func TestCollapse(t *testing.T) {
	g := decompGraph()
	open := NewLayout(g, Options{})
	if _, ok := open.Node("A3"); !ok {
		t.Fatal("A3 should be drawn")
	}
	shut := NewLayout(g, Options{Collapsed: map[string]bool{"A2": true}})
	for _, id := range []string{"A3", "A4", "A5"} {
		if _, ok := shut.Node(id); ok {
			t.Fatalf("%s should be hidden in collapsed A2", id)
		}
		if rid, _ := shut.Resolve(id); rid != "A2" {
			t.Fatalf("%s resolves to %q", id, rid)
		}
	}
	if f := shut.Folded("A2"); len(f) != 3 {
		t.Fatalf("A2 folds %v", f)
	}
	txt := shut.Paint(shut.Decorate(g), shut.Bounds(), "").Plain()
	if !strings.Contains(txt, "A2 [+3]") {
		t.Fatalf("collapsed parent does not say what it hides:\n%s", txt)
	}
	for _, e := range checkLayout(shut, g) {
		t.Error(e)
	}

	// resolved history folds into one summary node
	big := genGraph(8, 200, genOpts{statuses: true})
	full := NewLayout(big, Options{})
	sum := NewLayout(big, Options{CollapseResolved: true})
	if sum.Len() >= full.Len() {
		t.Fatalf("collapse resolved kept %d of %d nodes", sum.Len(), full.Len())
	}
	summaries := 0
	for _, id := range sum.IDs() {
		if sum.IsSummary(id) {
			summaries++
		}
	}
	if summaries == 0 {
		t.Fatal("no summary node")
	}
	rid, ok := sum.Resolve("A1")
	if !ok || !sum.IsSummary(rid) {
		t.Fatalf("A1 (resolved) should fold into a summary, got %q", rid)
	}
	for _, e := range checkLayout(sum, big) {
		t.Error(e)
	}
}

func TestWideLabelsKeepAlignment(t *testing.T) {
	g := Graph{
		Nodes: []Node{
			{ID: "A1", Label: "認証機能の実装とテスト", Status: Resolved},
			{ID: "A2", Label: "🚀 deploy 👩‍👩‍👧 family emoji and more", Status: Pending},
			{ID: "界", Label: "ascii", Status: InProgress},
		},
		Edges: []Edge{{"A1", "A2"}, {"A1", "界"}},
	}
	for _, w := range []int{13, 20, 27} {
		l := NewLayout(g, Options{NodeWidth: w})
		b := l.Bounds()
		// every view, including ones that cut wide graphemes, keeps width
		for dx := 0; dx < 6; dx++ {
			c := l.Paint(l.Decorate(g), Rect{b.X + dx, b.Y, b.W - dx, b.H}, "")
			for y, line := range c.Lines(nil) {
				if got := ansi.StringWidth(line); got != c.W {
					t.Fatalf("width %d view +%d line %d is %d cells, want %d: %q", w, dx, y, got, c.W, line)
				}
			}
		}
		// box borders line up: every box row is as wide as the box
		full := l.Paint(l.Decorate(g), b, "")
		for _, id := range []string{"A1", "A2", "界"} {
			r, _ := l.Node(id)
			for y := r.Y; y < r.Y+r.H; y++ {
				row := rowText(full, y-b.Y, r.X-b.X, r.W)
				if ansi.StringWidth(row) != r.W {
					t.Fatalf("box %s row %d is %d cells, want %d: %q", id, y, ansi.StringWidth(row), r.W, row)
				}
			}
		}
	}
}

func TestPaneWidthNeverExceeded(t *testing.T) {
	g := genGraph(77, 150, genOpts{extras: true, statuses: true})
	for _, w := range []int{20, 60, 100, 160} {
		for _, o := range []Orientation{TopDown, LeftRight} {
			v := NewView(w, 25)
			v.SetOptions(g, Options{Orientation: o, NodeWidth: NodeWidthFor(w)})
			for k := 0; k < 8; k++ {
				v.Move(Direction(k % 4))
				for _, line := range v.Canvas().Lines(nil) {
					if ansi.StringWidth(line) != w {
						t.Fatalf("%s at %d columns: a line of %d cells", o, w, ansi.StringWidth(line))
					}
				}
			}
			mm := v.Layout().Minimap(w/4, 6, v.Viewport())
			for _, line := range mm.Lines(nil) {
				if ansi.StringWidth(line) > w {
					t.Fatal("minimap wider than the pane")
				}
			}
		}
	}
}

func TestFits(t *testing.T) {
	if ok, _ := Fits(60, 20, TopDown); !ok {
		t.Fatal("60×20 should fit")
	}
	ok, why := Fits(14, 5, TopDown)
	if ok || !strings.Contains(why, "list") {
		t.Fatalf("14×5 should not fit and say so: %v %q", ok, why)
	}
}

func TestStyler(t *testing.T) {
	g := orGraph()
	l := NewLayout(g, Options{NodeWidth: 20})
	c := l.Paint(l.Decorate(g), l.Bounds(), "A3")
	out := c.Render(StyleFunc(func(cl Class) (string, string) {
		return "<" + cl.String() + ">", "</>"
	}))
	for _, want := range []string{"<border-selected>┏", "<failed-mark>✗", "<in-progress>◐", "<frame-or-label> or token_method", "<arrow-active>"} {
		if !strings.Contains(out, want) {
			t.Errorf("styled output lacks %q", want)
		}
	}
	plain := c.Render(nil)
	if strings.Contains(plain, "<") {
		t.Error("plain render has markup")
	}
}

// The painter reads only the buckets under the view.
func TestPaintTouchesOnlyTheView(t *testing.T) {
	small := NewLayout(genGraph(3, 100, genOpts{}), Options{})
	big := NewLayout(genGraph(3, 1000, genOpts{}), Options{})
	count := func(l *Layout) int {
		n := 0
		l.grid.eachBucket(Rect{l.Bounds().X, l.Bounds().Y, 160, 50}, func(_ Rect, es []gridEntry) { n += len(es) })
		return n
	}
	a, b := count(small), count(big)
	if b > 4*a+200 {
		t.Fatalf("a 160×50 view visits %d primitives on a big graph, %d on a small one", b, a)
	}
}

func TestViewFollowsEdges(t *testing.T) {
	g := diamondGraph()
	v := NewView(80, 20)
	v.SetGraph(g)
	if !v.Last() || v.Selected() != "A4" {
		t.Fatalf("G: %q", v.Selected())
	}
	v.FollowDependency(0)
	a := v.Selected()
	v.Select("A4")
	v.FollowDependency(1)
	if b := v.Selected(); a == b || (a != "A2" && a != "A3") || (b != "A2" && b != "A3") {
		t.Fatalf("dependencies of A4 visited as %q, %q", a, b)
	}
	if !v.FollowDependent(0) || v.Selected() != "A4" {
		t.Fatalf("dependent: %q", v.Selected())
	}
	if !v.First() || v.Selected() != "A1" {
		t.Fatalf("g: %q", v.Selected())
	}
	n := v.Relaid()
	g2 := g
	g2.Nodes = slices.Clone(g.Nodes)
	g2.Nodes[3].Status = Resolved
	v.SetGraph(g2)
	if v.Relaid() != n {
		t.Fatal("a status change re-ran layout")
	}
}
