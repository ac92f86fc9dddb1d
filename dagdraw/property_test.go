package dagdraw

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// propertySizes spans 1–500 nodes; -short keeps the small ones.
func propertyCases(t *testing.T) []int {
	sizes := []int{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 500}
	if testing.Short() {
		sizes = sizes[:9]
	}
	return sizes
}

func TestRandomDAGsKeepDrawingRules(t *testing.T) {
	for _, n := range propertyCases(t) {
		for seed := uint64(1); seed <= 3; seed++ {
			o := genOpts{extras: seed%2 == 1, statuses: true, window: []int{4, 16, 40}[seed%3]}
			g := genGraph(seed*1000+uint64(n), n, o)
			opt := Options{NodeWidth: 12 + int(seed)*6}
			switch seed {
			case 2:
				opt.Orientation = LeftRight
			case 3:
				opt.FitTitles, opt.TitleLines = true, 2
			}
			orient := opt.Orientation
			l := NewLayout(g, opt)
			if l.Len() < n {
				t.Errorf("n=%d seed=%d: %d nodes drawn", n, seed, l.Len())
			}
			for _, e := range checkLayout(l, g) {
				t.Errorf("n=%d seed=%d %s: %s", n, seed, orient, e)
			}
			// any view, anywhere, is exactly as wide as the pane
			r := &rng{s: seed + uint64(n)}
			b := l.Bounds()
			d := l.Decorate(g)
			for k := 0; k < 3; k++ {
				view := Rect{b.X - 5 + r.intn(b.W+10), b.Y - 3 + r.intn(b.H+6), 20 + r.intn(140), 5 + r.intn(40)}
				for _, line := range l.Paint(d, view, g.Nodes[r.intn(len(g.Nodes))].ID).Lines(nil) {
					if ansi.StringWidth(line) != view.W {
						t.Fatalf("n=%d seed=%d: a %d-cell line in a %d-cell view", n, seed, ansi.StringWidth(line), view.W)
					}
				}
			}
			// the same input gives the same cells
			if n <= 144 {
				l2 := NewLayout(g, opt)
				if l.Paint(d, b, "").Render(nil) != l2.Paint(l2.Decorate(g), l2.Bounds(), "").Render(nil) {
					t.Fatalf("n=%d seed=%d: two layouts of one graph differ", n, seed)
				}
			}
		}
	}
}
