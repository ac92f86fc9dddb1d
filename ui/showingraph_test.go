package ui

import (
	"strings"
	"testing"
)

// enter on a bindings row, or on a trail row, shows the atom it names in
// the graph, selected; ? lists the key in both views.
func TestEnterShowsTheRowsAtomInTheGraph(t *testing.T) {
	f := startFlow(t, "rich.md", 120, 40, Options{})
	f.waitFor("A4  ◐ in_progress") // the details pane: A4 is selected
	f.keys("2", "j")               // the bindings of A1 and A3: A3's row
	f.waitFor("Backoff 100ms doubling to 30s")
	f.keys("enter")
	// The drawing, once laid out (the first layout runs in the
	// background: a frame before it shows the graph without it), says
	// where it is in the footer: "x 3–81/83 y 1–25/25" (x as far as A3
	// is scrolled into view).
	f.waitFor("A3  ● resolved", "1 Graph", " y 1–")
	f.keys("3") // the trail: audit_store → A6, then → A5
	f.waitFor("S3 is cheaper")
	f.keys("enter")
	f.waitFor("A6  ○ pending", "a failed choice ✗")
	f.keys("3", "?")
	f.waitFor("help — Trail", "show atom in graph")
	f.keys("esc", "2", "?")
	f.waitFor("help — Bindings", "show atom in graph")
}

// The atom is scrolled into view, in the drawing and in the list.
func TestShowInGraphScrollsTheAtomIntoView(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
	}{{"drawing", 120, 30}, {"list", 60, 20}} {
		t.Run(c.name, func(t *testing.T) {
			m := modelOn(t, generated(t, 300), c.w, c.h, false)
			l := m.cur
			press(m, "2", "G")
			want := l.st.Bindings[l.bindings.visible[l.bindings.sel]].AtomID
			press(m, "enter")
			g := &l.graph
			if l.view != viewGraph || g.sel != want {
				t.Fatalf("view %d, selection %q; want the graph with %s", l.view, g.sel, want)
			}
			if g.isLayered() {
				r, ok := g.lay.gv.Layout().Node(want)
				if vp := g.lay.gv.Viewport(); !ok || !r.Intersects(vp.Rect()) || g.lay.gv.Selected() != want {
					t.Fatalf("%s (%+v) is not in the view %+v", want, r, vp)
				}
				return
			}
			if k := g.rowOfSel(); k < g.top || k >= g.top+g.height {
				t.Fatalf("row %d of %s is out of the list's rows %d–%d", k, want, g.top, g.top+g.height-1)
			}
			if !strings.Contains(screen(m), " "+want+" ") {
				t.Fatalf("%s is not on screen:\n%s", want, screen(m))
			}
		})
	}
}
