package ui

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// cellOf is the screen cell where text is first drawn below the tab bar
// and left of column maxX (the graph pane), found on the screen as drawn.
func cellOf(t *testing.T, out, text string, maxX int) (x, y int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	below := false
	for y, line := range lines {
		if !below {
			below = strings.Contains(line, "1 Graph")
			continue
		}
		if i := strings.Index(line, text); i >= 0 {
			if x := ansi.StringWidth(line[:i]); x < maxX {
				return x, y
			}
		}
	}
	t.Fatalf("%q is not drawn below the tabs:\n%s", text, out)
	return 0, 0
}

// click sends a left click at (x, y) and draws the frame after it.
func click(m *Model, x, y int) tea.Cmd {
	_, cmd := m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	screen(m)
	return cmd
}

// A click on an atom's box in the drawing selects that atom (its id, its
// description, its border), and a click on a decomposition's frame its
// parent; a click between the boxes, on the position line or on the
// details pane changes nothing.
func TestClickSelectsAnAtomInTheDrawing(t *testing.T) {
	m := walkModel(t, "rich.md", 160, 40, false)
	g := &m.cur.graph
	if !g.isLayered() {
		t.Fatal("no drawing at 160×40")
	}
	out := screen(m)
	for _, c := range []struct {
		text, id string
		dx, dy   int // from where text is drawn
	}{
		{"A7 Wire", "A7", 0, 0},
		{"Retry policy", "A3", 4, 0},
		{"A8 ", "A8", -2, 1}, // the box's bottom border
		{"A2 Payment client", "A2", 0, 0},
		{"A6 Audit", "A6", 0, -1}, // the top border
	} {
		x, y := cellOf(t, out, c.text, g.width)
		click(m, x+c.dx, y+c.dy)
		if g.sel != c.id || g.lay.gv.Selected() != c.id {
			t.Fatalf("a click on %q (%d,%d) selected %q (the drawing %q), want %s", c.text, x+c.dx, y+c.dy, g.sel, g.lay.gv.Selected(), c.id)
		}
		if g.follow {
			t.Fatal("a click leaves follow on")
		}
		out = screen(m)
		if details := paneRight(out, g.width); !strings.Contains(details, c.id+"  ") {
			t.Fatalf("the details pane does not show %s after the click:\n%s", c.id, details)
		}
	}
	x, y := cellOf(t, out, "A7 Wire", g.width)
	for _, c := range []struct {
		what string
		x, y int
	}{
		{"beside A7's box", x + 30, y},
		{"the position line", 2, m.height - 2},
		{"the details pane", g.width + 5, y},
		{"the header", x, 0},
	} {
		click(m, c.x, c.y)
		if g.sel != "A6" {
			t.Errorf("a click on %s moved the selection to %s", c.what, g.sel)
		}
	}
}

// paneRight is the screen right of the graph pane: the details.
func paneRight(out string, gw int) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = ansi.Cut(l, gw, ansi.StringWidth(l))
	}
	return strings.Join(lines, "\n")
}

// A click on a row of the graph's list selects its atom: the row drawn
// there, with the list scrolled.
func TestClickSelectsAnAtomInTheList(t *testing.T) {
	m := modelOn(t, generated(t, 60), 90, 16, false)
	if m.cur.graph.isLayered() {
		pressDrawn(m, "v")
	}
	pressDrawn(m, "G") // the list scrolled to its end
	g := &m.cur.graph
	if g.top == 0 {
		t.Fatal("the list should be scrolled")
	}
	id := g.st.Atoms[g.layout.order[g.visible[g.top+3]]].ID
	row := regexp.MustCompile(`[○◐●?] ` + id + ` `)
	y := -1
	for i, l := range strings.Split(screen(m), "\n") {
		if row.MatchString(l) {
			y = i
		}
	}
	click(m, 20, y)
	if g.sel != id {
		t.Fatalf("a click on the row of %s selected %s", id, g.sel)
	}
}

// A click on a tab shows its view; on the tab on screen, or beside the
// tabs, nothing changes.
func TestClickATabShowsItsView(t *testing.T) {
	for _, w := range []int{160, 62} { // full names; short ones
		m := walkModel(t, "rich.md", w, 30, false)
		out := screen(m)
		lines := strings.Split(out, "\n")
		tabsY := -1
		for y, l := range lines {
			if strings.Contains(l, "1 Graph") {
				tabsY = y
			}
		}
		if tabsY < 0 {
			t.Fatalf("no tab bar at %d columns:\n%s", w, out)
		}
		for _, c := range []struct {
			label string
			view  viewID
		}{{"3 Trail", viewTrail}, {"2 Bind", viewBindings}, {"6 Prompt", viewPrompt}, {"1 Graph", viewGraph}} {
			x := ansi.StringWidth(lines[tabsY][:strings.Index(lines[tabsY], c.label)])
			click(m, x+1, tabsY)
			if m.cur.view != c.view {
				t.Fatalf("%d columns: a click on %q shows view %v", w, c.label, m.cur.view)
			}
		}
		click(m, w-2, tabsY)
		if m.cur.view != viewGraph {
			t.Fatalf("a click right of the tabs changed the view to %v", m.cur.view)
		}
	}
}

// A click on a table's row selects that row, as drawn: the table
// scrolled, the first row under the header; the preview follows.
func TestClickSelectsATableRow(t *testing.T) {
	m := modelOn(t, generated(t, 60), 100, 20, false)
	pressDrawn(m, "2", "G")
	tb := &m.cur.bindings
	if tb.top == 0 {
		t.Fatalf("the bindings table should be scrolled (%d rows)", len(tb.visible))
	}
	out := screen(m)
	want := tb.cell(tb.visible[tb.top+2], 0)
	x, y := cellOf(t, out, want+" ", 1)
	click(m, x+30, y)
	if got := tb.cell(tb.visible[tb.sel], 0); got != want {
		t.Fatalf("a click on the row of %s selected %s", want, got)
	}
	// The header and the preview are not rows.
	_, hy := cellOf(t, out, "atom", 1)
	click(m, 3, hy)
	click(m, 3, m.height-3)
	if got := tb.cell(tb.visible[tb.sel], 0); got != want {
		t.Fatalf("a click on the header or the preview moved the selection to %s", got)
	}
	// The trail and corrections tables take clicks the same way.
	m = walkModel(t, "rich.md", 100, 24, false)
	pressDrawn(m, "4")
	tc := &m.cur.corrections
	if len(tc.visible) < 2 {
		t.Fatal("rich.md should have two corrections")
	}
	out = screen(m)
	second := tc.cell(tc.visible[1], 0)
	x, y = cellOf(t, out, second, 1)
	click(m, x, y)
	if tc.sel != 1 {
		t.Fatalf("a click on the second correction selected row %d", tc.sel)
	}
}

// A click does nothing while a dialog, the help or a prompt is in front.
func TestClickBehindADialogDoesNothing(t *testing.T) {
	m := walkModel(t, "rich.md", 160, 40, false)
	x, y := cellOf(t, screen(m), "A7 Wire", m.cur.graph.width)
	pressDrawn(m, "/")
	click(m, x, y)
	pressDrawn(m, "esc", "?")
	click(m, x, y)
	pressDrawn(m, "esc", "r")
	click(m, x, y)
	if m.cur.graph.sel == "A7" {
		t.Fatal("a click behind the filter prompt, the help or the redirect menu selected A7")
	}
}

// A click on a fleet row selects it; a second click opens its loop.
func TestClickAFleetRowSelectsThenOpens(t *testing.T) {
	m := fleetModel(t, 120, 34, fleetRows())
	seed, _ := filepath.Abs(filepath.Join("..", "testdata", "seed-complete.md"))
	y := -1
	for i, l := range strings.Split(screen(m), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "auth" {
			y = i
		}
	}
	if y < 0 {
		t.Fatalf("no auth row:\n%s", screen(m))
	}
	click(m, 20, y)
	if r, _ := m.fleet.Selected(); r.Name != "auth" || !m.fleetShown() {
		t.Fatalf("the first click selected %q (table shown: %v)", r.Name, m.fleetShown())
	}
	click(m, 20, y)
	if m.fleetShown() || m.cur.target.Path != seed {
		t.Fatalf("the second click should open auth's loop (table shown %v)", m.fleetShown())
	}
}

// y copies the selected atom's id, Y its description, through OSC 52,
// and the footer says so; a description is copied with its escape
// sequences shown escaped, as on screen.
func TestCopyTheSelectedAtom(t *testing.T) {
	m := walkModel(t, "rich.md", 160, 40, false)
	x, y := cellOf(t, screen(m), "A7 Wire", m.cur.graph.width)
	click(m, x, y)
	for _, c := range []struct {
		key, clip, footer string
	}{
		{"y", "A7", "copied A7"},
		{"Y", m.cur.graph.selected().Description, "copied A7's description"},
	} {
		_, cmd := m.Update(keyMsg(c.key))
		if clip := clipboardOf(cmd); clip != c.clip {
			t.Fatalf("%s put %q on the clipboard, want %q", c.key, clip, c.clip)
		}
		if out := screen(m); !strings.Contains(lastLine(out), c.footer) {
			t.Fatalf("after %s the footer should say %q:\n%s", c.key, c.footer, lastLine(out))
		}
	}
	m.cur.graph.selected().Description = "evil \x1b]52;c;cHduZWQ=\x07 text\nsecond line"
	_, cmd := m.Update(keyMsg("Y"))
	if clip := clipboardOf(cmd); clip != `evil \x1b]52;c;cHduZWQ=\x07 text`+"\nsecond line" {
		t.Fatalf("Y copied %q: escape sequences from the file must be escaped", clip)
	}
}

// clipboardOf is the text cmd puts on the clipboard (tea.SetClipboard's
// message; "" when it sets none).
func clipboardOf(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c != nil {
				if s := clipboardOf(c); s != "" {
					return s
				}
			}
		}
		return ""
	}
	if fmt.Sprintf("%T", msg) != "tea.setClipboardMsg" {
		return ""
	}
	return fmt.Sprint(msg)
}

func lastLine(out string) string { return out[strings.LastIndex(out, "\n")+1:] }

// settledDrawing waits until the screen shows want in a drawing that has
// stopped moving: no layout under way (the first one, the narrower boxes
// tried after it) and the same body on two reads. A click aimed at a
// screen read while the drawing was still being laid out could land on
// another box. A liveness bound, not a timing assertion.
func (f *flow) settledDrawing(want string) string {
	f.t.Helper()
	body := func(s string) string { return s[strings.Index(s, "1 Graph"):] }
	prev := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s := f.waitFor("1 Graph", want)
		if strings.Contains(s, "laying out") {
			continue
		}
		if prev != "" && body(s) == body(prev) {
			return s
		}
		prev = s
	}
	f.t.Fatalf("the drawing never settled; last screen:\n%s", prev)
	return ""
}

// End to end: in the running program a click selects A7 and y writes the
// OSC 52 sequence with A7 to the terminal.
func TestFlowClickAndCopy(t *testing.T) {
	f := startFlow(t, "rich.md", 160, 40, Options{})
	out := f.settledDrawing("A7 Wire")
	x, y := cellOf(t, out, "A7 Wire", 100)
	f.tm.Send(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	f.waitFor("│A7  ○ pending")
	f.keys("y")
	f.waitFor("copied A7")
	osc := regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]*)(\x07|\x1b\\)`)
	var got string
	teatest.WaitFor(t, f.tm.Output(), func(b []byte) bool {
		for _, mm := range osc.FindAllSubmatch(b, -1) {
			if d, err := base64.StdEncoding.DecodeString(string(mm[1])); err == nil {
				got = string(d)
			}
		}
		return got == "A7"
	}, teatest.WithDuration(10*time.Second))
}

// The minimap hides the boxes under it: a click on it selects none of
// them.
func TestClickOnTheMinimapSelectsNothingBeneath(t *testing.T) {
	m := generatedModel(t, 300, 150, 44)
	out := screen(m)
	g := &m.cur.graph
	s := g.lay.shown
	if s.mini.W == 0 {
		t.Fatalf("no minimap drawn:\n%s", out)
	}
	tabsY := -1
	for y, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "1 Graph") {
			tabsY = y
		}
	}
	before := g.sel
	hidden := 0
	for dy := 0; dy < s.mini.H; dy++ {
		for dx := 0; dx < s.mini.W; dx++ {
			x, y := s.mini.X+dx, s.mini.Y+dy
			if id, ok := s.lay.NodeAt(s.vp.X+x, s.vp.Y+y); !ok || id == before {
				continue
			}
			hidden++
			click(m, x, tabsY+1+y)
			if g.sel != before {
				t.Fatalf("a click on the minimap at (%d,%d) selected %s, hidden under it", x, y, g.sel)
			}
		}
	}
	if hidden == 0 {
		t.Fatal("no box under the minimap: the test checks nothing")
	}
}
