package dagdraw

import (
	"strconv"
	"strings"
	"testing"
)

// demoGraph is the shape of aot-tui's demo loop halfway through: a
// decomposition, an OR group with a failed choice, long and short labels.
func demoGraph() Graph {
	var b Builder
	b.Node("A1", "User model and migration", Resolved).Node("A2", "Password hashing with argon2id", Resolved).
		Node("A3", "Authentication logic", Pending).Node("A4", "Stateless JWT tokens", Pending).
		Node("A5", "Server-side sessions in Redis", InProgress).Node("A6", "Login endpoint", Pending).
		Node("A7", "Document the login flow", Pending).Node("A8", "Request validation", Resolved).
		Node("A9", "Credential check against the user store", InProgress)
	b.Edge("A1", "A2").Edge("A1", "A3").Edge("A2", "A4").Edge("A2", "A5").Edge("A3", "A6").Edge("A5", "A6").
		Edge("A6", "A7").Edge("A1", "A8").Edge("A1", "A9")
	b.Parts("A3", "A8", "A9").Alternatives("session_strategy", "A4", "A5").Choose("session_strategy", "A5", "A4")
	return b.Graph()
}

// drawnText is a canvas's text, row by row.
func drawnText(c *Canvas) string {
	var b strings.Builder
	for y := 0; y < c.H; y++ {
		b.WriteString(rowText(c, y, 0, c.W))
		b.WriteByte('\n')
	}
	return b.String()
}

// With FitTitles, boxes are as wide as the widest title and every title
// shows whole, a collapsed parent's and a summary's too; NodeWidth stays
// the most a box takes.
func TestFitTitlesShowsEveryTitleWhole(t *testing.T) {
	g := demoGraph()
	for _, c := range []struct {
		name  string
		opt   Options
		shows []string
	}{
		{"plain", Options{NodeWidth: 48, FitTitles: true}, []string{"A9 Credential check against the user store", "A2 Password hashing with argon2id"}},
		{"collapsed", Options{NodeWidth: 48, FitTitles: true, Collapsed: map[string]bool{"A3": true}}, []string{"A3 [+2] Authentication logic"}},
		{"summary", Options{NodeWidth: 48, FitTitles: true, CollapseResolved: true}, []string{"A5 Server-side sessions in Redis"}},
		{"left-right", Options{NodeWidth: 48, FitTitles: true, Orientation: LeftRight}, []string{"A6 Login endpoint"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := NewLayout(g, c.opt)
			cv := l.Paint(l.Decorate(g), l.Bounds(), "")
			out := drawnText(cv)
			for _, s := range c.shows {
				if !strings.Contains(out, s) {
					t.Errorf("%q is not shown whole:\n%s", s, out)
				}
			}
			for _, id := range l.IDs() {
				r, _ := l.Node(id)
				if id == "A3" && c.opt.Collapsed == nil {
					continue // a frame: its title is on its border
				}
				b := l.Bounds()
				if row := rowText(cv, r.Y+1-b.Y, r.X-b.X, r.W); strings.Contains(row, "…") {
					t.Errorf("%s's title is cut although the boxes may be %d wide: %q", id, c.opt.NodeWidth, row)
				}
			}
			if l.NodeWidth() != l.TitleWidth() && l.NodeWidth() != MinNodeWidth {
				t.Errorf("boxes %d wide for titles of %d", l.NodeWidth(), l.TitleWidth())
			}
		})
	}
	// "A9 Credential check against the user store" needs 4+2+1+39 cells,
	// a border and a blank before the right one (as the marker cell is
	// before the glyph): 48.
	if w := NewLayout(g, Options{NodeWidth: 49, FitTitles: true}).NodeWidth(); w != 48 {
		t.Errorf("boxes %d wide, want 48", w)
	}
	if w := NewLayout(g, Options{NodeWidth: 30, FitTitles: true}).NodeWidth(); w != 30 {
		t.Errorf("NodeWidth 30 is the most: boxes %d wide", w)
	}
	var short Builder
	short.Node("a", "x", Pending).Node("b", "y", Pending).Edge("a", "b")
	if w := NewLayout(short.Graph(), Options{NodeWidth: 48, FitTitles: true}).NodeWidth(); w != MinNodeWidth {
		t.Errorf("short titles: boxes %d wide, want the minimum %d", w, MinNodeWidth)
	}
}

// With FitTitles the widest title is structure: a label that widens it
// lays the graph out again; a status change still does not.
func TestFitTitlesLabelIsStructure(t *testing.T) {
	g := demoGraph()
	opt := Options{NodeWidth: 48, FitTitles: true}
	l := NewLayout(g, opt)
	st := g
	st.Nodes = append([]Node(nil), g.Nodes...)
	st.Nodes[3].Status = Resolved
	if l.Update(st, opt) != l {
		t.Error("a status change laid the graph out again")
	}
	wide := g
	wide.Nodes = append([]Node(nil), g.Nodes...)
	wide.Nodes[0].Label = "a much longer label for the very first atom of all"
	if nl := l.Update(wide, opt); nl == l || nl.NodeWidth() != 48 {
		t.Errorf("a wider label: same layout %v, width %d", nl == l, nl.NodeWidth())
	}
}

// Two rows of text wrap a long title at a word: every word of every label
// shows whole where the two rows hold it.
func TestTitleLinesWrapAtWords(t *testing.T) {
	g := demoGraph()
	l := NewLayout(g, Options{NodeWidth: 30, FitTitles: true, TitleLines: 2})
	if l.TitleLines() != 2 {
		t.Fatalf("%d rows of text", l.TitleLines())
	}
	out := drawnText(l.Paint(l.Decorate(g), l.Bounds(), ""))
	for _, n := range g.Nodes {
		if n.ID == "A3" {
			continue // a frame: its title is on the border
		}
		r, _ := l.Node(n.ID)
		if r.H != 4 {
			t.Errorf("%s: a box %d rows tall, want 4", n.ID, r.H)
		}
		for _, w := range strings.Fields(n.Label) {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the word %q is not shown whole:\n%s", n.ID, w, out)
			}
		}
	}
	if strings.Contains(out, "…") {
		t.Errorf("a title is cut although two rows hold it:\n%s", out)
	}
	for _, c := range []struct{ asked, want int }{{0, 2}, {1, 2}, {3, 3}, {5, 3}} {
		lr := NewLayout(g, Options{NodeWidth: 20, Orientation: LeftRight, TitleLines: c.asked})
		if lr.TitleLines() != c.want {
			t.Errorf("left-right, %d rows asked: %d, want %d", c.asked, lr.TitleLines(), c.want)
		}
		for _, n := range g.Nodes {
			if r, _ := lr.Node(n.ID); n.ID != "A3" && r.H < 2+c.want {
				t.Errorf("left-right, %d rows: %s's box is %d tall", c.want, n.ID, r.H)
			}
		}
	}
}

// TitleRows counts the rows the painter gives each title: at every width,
// a box whose title needs at most MaxTitleLines rows shows it whole on
// that many rows, and one that needs more is cut with "…".
func TestTitleRowsAgreesWithThePainter(t *testing.T) {
	g := demoGraph()
	g.Nodes = append(g.Nodes, Node{ID: "A10", Label: "internationalisation-aware    pluralisation rules for every locale", Status: Pending},
		Node{ID: "A11", Label: "文档：计费服务的运行手册 and docs", Status: Pending})
	g.Edges = append(g.Edges, Edge{From: "A7", To: "A10"}, Edge{From: "A7", To: "A11"})
	r := &rng{s: 23}
	for i := 12; i < 40; i++ {
		var words []string
		for k := 1 + r.intn(8); k > 0; k-- {
			words = append(words, strings.Repeat("w", 1+r.intn(30))+strings.Repeat(" ", r.intn(3)))
		}
		id := "A" + strconv.Itoa(i)
		g.Nodes = append(g.Nodes, Node{ID: id, Label: strings.Join(words, " "), Status: Pending})
		g.Edges = append(g.Edges, Edge{From: "A7", To: id})
	}
	for w := MinNodeWidth; w <= 48; w++ {
		l := NewLayout(g, Options{NodeWidth: w, TitleLines: MaxTitleLines})
		cv := l.Paint(l.Decorate(g), l.Bounds(), "")
		b := l.Bounds()
		for _, n := range g.Nodes {
			if n.ID == "A3" {
				continue // a frame
			}
			r, _ := l.Node(n.ID)
			one := NewLayout(Graph{Nodes: []Node{n}}, Options{NodeWidth: w})
			want := one.TitleRows(Graph{Nodes: []Node{n}}, MaxTitleLines)
			used, cut := 0, false
			for y := 1; y <= MaxTitleLines; y++ {
				row := rowText(cv, r.Y+y-b.Y, r.X+1-b.X, r.W-2)
				if strings.TrimSpace(row) != "" {
					used = y
				}
				cut = cut || strings.Contains(row, "…")
			}
			if want <= MaxTitleLines && (used != want || cut) || want > MaxTitleLines && !cut {
				t.Errorf("width %d, %s: TitleRows says %d, the painter used %d rows (cut %v)", w, n.ID, want, used, cut)
			}
		}
	}
}
