package ui

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
)

func TestDrawingShownInWidePanesListInNarrow(t *testing.T) {
	wide := loadedModel(t, "rich.md", 160, 40)
	if !wide.cur.graph.isLayered() || !strings.Contains(screen(wide), "╭") {
		t.Fatalf("a 160-column screen should draw the graph:\n%s", screen(wide))
	}
	press(wide, "v")
	if wide.cur.graph.isLayered() {
		t.Fatal("v in a wide pane should show the list")
	}
	narrow := loadedModel(t, "rich.md", 60, 20)
	if narrow.cur.graph.isLayered() {
		t.Fatal("a 60-column pane should start with the list")
	}
	press(narrow, "v")
	if !narrow.cur.graph.isLayered() || !strings.Contains(screen(narrow), "╭") {
		t.Fatalf("v should draw the graph:\n%s", screen(narrow))
	}
	press(narrow, "v")
	if narrow.cur.graph.isLayered() {
		t.Fatal("v again should show the list")
	}
}

func TestDrawingFallsBackWhenItCannotFit(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 11})
	if m.cur.graph.isLayered() {
		t.Fatal("a 120×11 screen cannot hold the drawing")
	}
	press(m, "v", "v") // ask for the drawing explicitly
	out := screen(m)
	if m.cur.graph.isLayered() || !strings.Contains(out, "graph needs at least") {
		t.Fatalf("the fallback should say why:\n%s", out)
	}
	checkFits(t, out, 120, 11)
}

func TestDrawingKeys(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	if m.cur.graph.sel != "A4" {
		t.Fatalf("selection %q, want the in-progress A4", m.cur.graph.sel)
	}
	press(m, "g")
	if m.cur.graph.sel != "A1" {
		t.Fatalf("g should go to the first layer: %q", m.cur.graph.sel)
	}
	press(m, "j")
	if m.cur.graph.sel == "A1" || m.cur.graph.sel == "" {
		t.Fatal("j should move down the drawing")
	}
	press(m, "G")
	if m.cur.graph.sel != "A8" {
		t.Fatalf("G should go to the last layer: %q", m.cur.graph.sel)
	}
	press(m, "[")
	if m.cur.graph.sel != "A7" {
		t.Fatalf("[ from A8 should go to its dependency A7: %q", m.cur.graph.sel)
	}
	press(m, "]")
	if m.cur.graph.sel != "A8" {
		t.Fatalf("] from A7 should go to its dependent A8: %q", m.cur.graph.sel)
	}
	press(m, "g")
	if m.cur.graph.sel != "A1" {
		t.Fatalf("g should go to the first layer: %q", m.cur.graph.sel)
	}
	press(m, ":", "a", "5", "enter")
	if m.cur.graph.sel != "A5" || !strings.Contains(screen(m), "A5  ○ pending") {
		t.Fatalf(":a5 should jump to A5 (case-insensitive): %q", m.cur.graph.sel)
	}
	press(m, ":", "Z", "9", "enter")
	if !strings.Contains(screen(m), "no atom Z9") {
		t.Fatal("an unknown id should say so")
	}
	before := m.cur.graph.lay.gv.Layout()
	press(m, "t")
	if m.cur.graph.lay.opt.Orientation != dagdraw.LeftRight || m.cur.graph.lay.gv.Layout() == before {
		t.Fatal("t should lay the graph out left to right")
	}
	if !strings.Contains(screen(m), "left-right") {
		t.Fatal("the position line should say left-right")
	}
	press(m, "t", "z")
	if !m.cur.graph.lay.opt.CollapseResolved || !strings.Contains(screen(m), "resolved collapsed") {
		t.Fatal("z should collapse the resolved history")
	}
	press(m, "z", ":", "A", "2", "enter", "space")
	if !m.cur.graph.lay.opt.Collapsed["A2"] {
		t.Fatal("space on the decomposed A2 should collapse it")
	}
	checkFits(t, screen(m), 160, 40)
}

func TestStatusChangeKeepsTheLayout(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	before := m.cur.graph.lay.gv.Layout()
	pane := drawingPane(m)
	ev := loadEvent(t, "../testdata/rich.md")
	ev.Doc.State.Atoms[3].Status = "resolved"
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	if m.cur.graph.lay.gv.Layout() != before {
		t.Fatal("a status change must not lay the graph out again")
	}
	if drawingPane(m) == pane {
		t.Fatal("the drawing does not show the new status")
	}
}

// generatedModel opens the TUI on a generated loop of n atoms, some of them
// in progress well down the graph.
func generatedModel(t *testing.T, n, w, h int) *Model {
	t.Helper()
	data := gen.Generate(gen.Options{Atoms: n, Seed: 5, Resolved: 0.6, ORGroups: n / 25, Decompositions: n / 40})
	doc, err := statefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Target: statefile.Target{Path: "gen.md", Kind: statefile.KindAoT}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: model.Derive(doc.State), At: fixedNow}}))
	return m
}

// drawingPane is the screen cut to the graph pane (the details pane beside
// it names the selected atom too).
func drawingPane(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	for i, l := range lines {
		lines[i] = ansi.Cut(l, 0, m.cur.graph.width)
	}
	return strings.Join(lines, "\n")
}

// idShown reports whether the atom id appears on the screen as a whole
// word (A15 is not A150).
func idShown(out, id string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9])` + id + `([^0-9]|$)`).MatchString(out)
}

// Opened on a running loop, the drawing selects the first in-progress atom
// and centres the view on it, clear of the minimap.
func TestDrawingOpensCentredOnTheFrontier(t *testing.T) {
	m := generatedModel(t, 300, 150, 44)
	if !m.cur.graph.isLayered() {
		t.Fatal("a 300-atom graph in 150 columns should be drawn")
	}
	a := m.cur.graph.selected()
	if a == nil || a.Status != model.StatusInProgress {
		t.Fatalf("selected %+v, want an in-progress atom", a)
	}
	for _, b := range m.cur.st.Atoms[:m.cur.facts.Index[a.ID]] {
		if b.Status == model.StatusInProgress && m.cur.graph.layout.row[b.ID] < m.cur.graph.layout.row[a.ID] {
			t.Fatalf("%s is in progress and comes before %s", b.ID, a.ID)
		}
	}
	vp := m.cur.graph.lay.gv.Viewport()
	r, _ := m.cur.graph.lay.gv.Layout().Node(a.ID)
	b := m.cur.graph.lay.gv.Layout().Bounds()
	// On each axis the node is in the middle third, or the view is against
	// the layout's edge (it cannot scroll further to centre it).
	centred := func(c, v0, vn, b0, bn int) bool {
		return (c-v0 >= vn/3 && c-v0 <= vn*2/3) || v0 == b0 || v0+vn == b0+bn
	}
	if !centred(r.X+r.W/2, vp.X, vp.W, b.X, b.W) || !centred(r.Y+r.H/2, vp.Y, vp.H, b.Y, b.H) {
		t.Errorf("node %s %+v is not centred in the view %+v (layout %+v)", a.ID, r, vp, b)
	}
	if vp.X == b.X || vp.X+vp.W == b.X+b.W {
		t.Fatalf("the view %+v is against a side of the layout %+v: pick a node in the middle", vp, b)
	}
	if out := drawingPane(m); !idShown(out, a.ID) {
		t.Fatalf("%s is not on the screen:\n%s", a.ID, out)
	}
	// Once the person moves, selections scroll as little as possible.
	press(m, "j")
	if m.cur.graph.lay.center {
		t.Fatal("a key press should end the centring")
	}
}

// Wherever the selection goes, the minimap never covers it.
func TestMinimapNeverCoversTheSelection(t *testing.T) {
	m := generatedModel(t, 300, 120, 36)
	press(m, "g")
	moved := 0
	for i, k := range strings.Split(strings.Repeat("jjjlllljjjlllljjjhhhjjjlllllljjj", 2), "") {
		before := m.cur.graph.sel
		press(m, k)
		if m.cur.graph.sel != before {
			moved++
		}
		out := drawingPane(m)
		if !strings.Contains(out, "┌──────") {
			t.Fatalf("step %d: no minimap on a graph larger than the pane:\n%s", i, out)
		}
		if !idShown(out, m.cur.graph.sel) {
			t.Fatalf("step %d (%s): the selected %s is not visible:\n%s", i, k, m.cur.graph.sel, out)
		}
	}
	if moved < 20 {
		t.Fatalf("the walk moved the selection only %d times", moved)
	}
}

func TestMinimapCorner(t *testing.T) {
	g := dagdraw.Graph{Nodes: []dagdraw.Node{{ID: "A1"}}}
	lay := dagdraw.NewLayout(g, dagdraw.Options{NodeWidth: 16})
	r, _ := lay.Node("A1")
	w, h, mw, mh := 100, 30, 28, 7
	for _, tt := range []struct {
		name   string
		vx, vy int
		x, y   int
		ok     bool
	}{
		{"node top-left: bottom-right", r.X, r.Y, w - mw, h - mh, true},
		{"node bottom-right: bottom-left", r.X - (w - r.W), r.Y - (h - r.H), 0, h - mh, true},
		{"node bottom-left: bottom-right", r.X, r.Y - (h - r.H), w - mw, h - mh, true},
	} {
		vp := dagdraw.Viewport{X: tt.vx, Y: tt.vy, W: w, H: h}
		x, y, ok := minimapCorner(lay, vp, "A1", w, h, mw, mh)
		if x != tt.x || y != tt.y || ok != tt.ok {
			t.Errorf("%s: got %d,%d,%v, want %d,%d,%v", tt.name, x, y, ok, tt.x, tt.y, tt.ok)
		}
	}
	// A node as wide as the pane on the bottom rows leaves only the top.
	big := dagdraw.NewLayout(g, dagdraw.Options{NodeWidth: w})
	rb, _ := big.Node("A1")
	if x, y, ok := minimapCorner(big, dagdraw.Viewport{X: rb.X, Y: rb.Y - (h - rb.H), W: w, H: h}, "A1", w, h, mw, mh); !ok || y != 0 || x != w-mw {
		t.Errorf("wide node at the bottom: %d,%d,%v", x, y, ok)
	}
}

// A selection made in the drawing is in view when the list comes back.
func TestListFollowsTheDrawingsSelection(t *testing.T) {
	m := generatedModel(t, 300, 150, 44)
	for _, k := range []string{"g", "G"} {
		press(m, k)
		sel := m.cur.graph.sel
		press(m, "v") // the list
		if m.cur.graph.isLayered() {
			t.Fatal("v should show the list")
		}
		found := false
		for _, l := range strings.Split(drawingPane(m), "\n") {
			if strings.HasPrefix(l, "›") && idShown(l, sel) {
				found = true
			}
		}
		if !found {
			t.Fatalf("after %s then v, %s is not the selected row on screen:\n%s", k, sel, screen(m))
		}
		press(m, "v") // back to the drawing
	}
}

// TestMinimapMemoIsTheLayoutsMinimap walks the drawing of a loop larger
// than the pane, with writes that change a status between the keys: the
// minimap drawn (kept from the last frame while the layout and the
// viewport stay) must be the one the layout makes for the viewport shown.
func TestMinimapMemoIsTheLayoutsMinimap(t *testing.T) {
	m := generatedModel(t, 300, 120, 36)
	press(m, "g")
	data := gen.Generate(gen.Options{Atoms: 300, Seed: 5, Resolved: 0.6, ORGroups: 300 / 25, Decompositions: 300 / 40})
	kept, keys := 0, strings.Split(strings.Repeat("jjjlllljjjlllljjjhhhjjjlllllljjj", 2), "")
	for i, k := range keys {
		press(m, k)
		_ = drawingPane(m)
		l := &m.cur.graph.lay
		was := l.minimap
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		a := &doc.State.Atoms[(i*37)%len(doc.State.Atoms)]
		a.Status = map[model.AtomStatus]model.AtomStatus{model.StatusPending: model.StatusInProgress}[a.Status]
		if a.Status == "" {
			a.Status = model.StatusPending
		}
		m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventLoaded, Doc: doc, Facts: model.Derive(doc.State), At: fixedNow}}))
		_ = drawingPane(m)
		if l.minimap == nil {
			t.Fatalf("step %d: no minimap", i)
		}
		if l.minimap == was {
			kept++
		}
		want := l.gv.Layout().Minimap(l.minimap.W, l.minimap.H, l.gv.Viewport())
		if !reflect.DeepEqual(l.minimap, want) {
			t.Fatalf("step %d (%s): the minimap drawn is not the layout's for the viewport", i, k)
		}
	}
	if kept < len(keys)/2 {
		t.Fatalf("the minimap was kept across a write in only %d of %d steps", kept, len(keys))
	}
}
