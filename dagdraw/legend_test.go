package dagdraw

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// legendGraphs are drawings with every feature the painter has: each
// status, ready and failed marks, both flags, OR groups, decompositions
// drawn as frames and as links, missing ids, a selection, summaries of
// resolved history and collapsed decompositions, in both orientations.
func legendGraphs(t *testing.T) map[string]struct {
	g   Graph
	opt Options
	sel string
} {
	flagged := genGraph(7, 120, genOpts{extras: true, statuses: true})
	flagged.Nodes[3].Flag, flagged.Nodes[9].Flag = FlagError, FlagWarning
	flagged.Nodes = append(flagged.Nodes, Node{ID: "Q1", Label: "odd", Status: Unknown})
	out := map[string]struct {
		g   Graph
		opt Options
		sel string
	}{}
	for name, g := range fixtures(t) {
		for _, o := range []Orientation{TopDown, LeftRight} {
			out[fmt.Sprintf("%s/%s", name, o)] = struct {
				g   Graph
				opt Options
				sel string
			}{g, Options{Orientation: o}, "A2"}
		}
	}
	for _, o := range []Orientation{TopDown, LeftRight} {
		for _, collapse := range []bool{false, true} {
			opt := Options{Orientation: o, CollapseResolved: collapse, Collapsed: map[string]bool{}}
			for _, d := range flagged.Decomps[:1] {
				opt.Collapsed[d.Parent] = true
			}
			out[fmt.Sprintf("generated/%s/%v", o, collapse)] = struct {
				g   Graph
				opt Options
				sel string
			}{flagged, opt, flagged.Nodes[40].ID}
		}
	}
	return out
}

// TestLegendExplainsEveryGlyph paints every feature of the drawing and
// its minimap: each cell that is not text (an id, a label, a title) must
// be explained by an entry of the legend, so a glyph, box style or class
// added without a legend line fails here.
func TestLegendExplainsEveryGlyph(t *testing.T) {
	text := func(c Class) bool { return slices.Contains(textClasses, c) }
	for c := Class(0); c < numClasses; c++ {
		if text(c) {
			continue
		}
		if !slices.ContainsFunc(legend, func(e LegendEntry) bool { return slices.Contains(e.classes, c) }) {
			t.Errorf("class %s has no legend entry", c)
		}
	}
	found := map[Class]bool{}
	for name, x := range legendGraphs(t) {
		l := NewLayout(x.g, x.opt)
		b := l.Bounds()
		canvases := []*Canvas{l.Paint(l.Decorate(x.g), b, x.sel),
			l.Minimap(20, 6, Viewport{X: b.X, Y: b.Y, W: b.W / 2, H: b.H / 2})}
		for _, c := range canvases {
			for _, cell := range c.Cells {
				found[cell.Class] = true
				if text(cell.Class) || cell.Rune == ' ' && cell.Class != ClassFolded {
					continue
				}
				if !slices.ContainsFunc(legend, func(e LegendEntry) bool { return e.covers(cell.Class, cell.Rune) }) {
					t.Fatalf("%s: %q in class %s has no legend entry", name, cell.Rune, cell.Class)
				}
			}
		}
	}
	// The drawings above are what makes the check worth something: they
	// show every class there is.
	for c := Class(0); c < numClasses; c++ {
		if !found[c] && c != ClassIndicator {
			t.Errorf("no drawing shows class %s", c)
		}
	}
}

// TestLegendLinesAreShort: a meaning fits a column of the TUI's help.
func TestLegendLinesAreShort(t *testing.T) {
	for _, e := range legend {
		if n := len([]rune(e.Meaning)); n > 23 || len([]rune(e.Sample)) > 4 {
			t.Errorf("%q %q: %d cells", e.Sample, e.Meaning, n)
		}
	}
}

// TestLegendOfShowsWhatIsDrawn: the legend of a canvas lists what it
// shows and nothing else.
func TestLegendOfShowsWhatIsDrawn(t *testing.T) {
	meanings := func(es []LegendEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.Sample+" "+e.Meaning)
		}
		return strings.Join(out, "\n")
	}
	g := chainGraph()
	l := NewLayout(g, Options{})
	got := meanings(LegendOf(l.Paint(l.Decorate(g), l.Bounds(), "")))
	for _, want := range []string{"○ pending", "◐ in progress", "● resolved", "╭─╮ an atom", "─│ a dependency",
		"▼ to the atom that waits", "┬ from the atom waited on"} {
		if !strings.Contains(got, want) {
			t.Errorf("legend of a chain lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"failed", "OR group", "selected", "error", "▶", "minimap"} {
		if strings.Contains(got, not) {
			t.Errorf("legend of a chain, nothing selected, mentions %q:\n%s", not, got)
		}
	}

	g.Nodes[3].Flag = FlagError
	l = NewLayout(g, Options{Orientation: LeftRight})
	got = meanings(LegendOf(l.Paint(l.Decorate(g), l.Bounds(), "A2")))
	for _, want := range []string{"! an error about it", "┏━┓ the selected atom", "▶ to the atom that waits", "├ from the atom waited on"} {
		if !strings.Contains(got, want) {
			t.Errorf("legend lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "▼") {
		t.Errorf("a left-right drawing has no ▼:\n%s", got)
	}
}

// TestFlagMarksANode: a flag takes the place of the ready mark, the most
// serious flag wins, and a flag is decoration: it never moves a cell.
func TestFlagMarksANode(t *testing.T) {
	var b Builder
	b.Node("A1", "one", Resolved).Node("A2", "two", Pending).Edge("A1", "A2").Ready("A2")
	plain := Draw(b.Graph(), Options{}).Plain()
	b.Flag(FlagError, "A2").Flag(FlagWarning, "A2", "A1")
	flagged := Draw(b.Graph(), Options{}).Plain()
	if !strings.Contains(plain, "▸○ A2") || !strings.Contains(flagged, "!○ A2") || !strings.Contains(flagged, "⚠● A1") {
		t.Fatalf("flags not drawn:\n%s\n%s", plain, flagged)
	}
	if strings.ReplaceAll(strings.ReplaceAll(flagged, "!○", "▸○"), "⚠●", " ●") != plain {
		t.Fatalf("a flag moved cells:\n%s\n%s", plain, flagged)
	}
}
