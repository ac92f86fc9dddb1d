package dagdraw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

var goldenWidths = []int{60, 100, 160}

// screen renders what the graph pane shows at w columns: the viewport
// (whole graph height for small graphs, 36 rows for big ones) and the
// position indicator beneath it.
func screen(g Graph, w int, opt Options, maxH int) string {
	opt.NodeWidth = NodeWidthFor(w)
	l := NewLayout(g, opt)
	h := min(l.Bounds().H, maxH)
	v := NewView(w, h)
	v.SetOptions(g, opt)
	var b strings.Builder
	b.WriteString(v.Render(nil))
	b.WriteString("\n")
	status := v.Layout().Indicator(v.Viewport()) + fmt.Sprintf(" · %s · %d crossings", v.Selected(), v.Layout().Crossings())
	b.WriteString(ansi.Truncate(status, w, "…"))
	b.WriteString("\n")
	return b.String()
}

func TestGolden(t *testing.T) {
	fx := fixtures(t)
	big := genGraph(300, 300, genOpts{extras: true, statuses: true})
	for _, name := range append(fixtureNames, "generated-300") {
		g, ok := fx[name]
		if !ok {
			g = big
		}
		for _, w := range goldenWidths {
			t.Run(fmt.Sprintf("%s_%d", name, w), func(t *testing.T) {
				out := screen(g, w, Options{}, 36)
				for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if ansi.StringWidth(line) > w {
						t.Errorf("line %d is wider than %d", i, w)
					}
				}
				golden.RequireEqual(t, out)
			})
		}
	}
	for _, name := range []string{"seed-complete", "decomposition", "fan"} {
		t.Run(name+"_lr_100", func(t *testing.T) {
			golden.RequireEqual(t, screen(fx[name], 100, Options{Orientation: LeftRight}, 36))
		})
	}
}
