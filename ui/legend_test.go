package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// legendLoop is a loop whose list shows every glyph the list has: each
// status, a ready atom, an OR group with its selection and a failed
// choice, a decomposition, a chain deeper than a narrow pane indents, an
// atom an error is about and one a warning is about. Descriptions are
// ASCII, so every other character in the list is a glyph.
func legendLoop(t *testing.T) string {
	t.Helper()
	var atoms strings.Builder
	atom := func(id, status, deps, extra string) {
		fmt.Fprintf(&atoms, "  - id: %s\n    description: \"work on %s\"\n    status: %s\n    depends_on: [%s]\n%s", id, id, status, deps, extra)
	}
	atom("A1", "resolved", "", "")
	atom("A2", "pending", "A1", "")
	atom("A3", "in_progress", "A1", "")
	atom("A4", "pending", "A1", "    or_group: g\n")
	atom("A5", "pending", "A1", "    or_group: g\n")
	atom("A6", "pending", "A1", "")
	atom("A7", "pending", "A1", "")
	atom("A8", "pending", "A1", "")
	prev := "A1"
	for i := 1; i <= 14; i++ {
		id := fmt.Sprintf("C%d", i)
		atom(id, "pending", prev, "")
		prev = id
	}
	atom("X1", "blocked", "A1", "")                                              // an unknown status: an error
	fmt.Fprintf(&atoms, "  - id: W1\n    status: pending\n    depends_on: []\n") // no description: a warning
	state := `---
objective:
  goal: "legend"
  base_case:
    type: command
    value: "true"
  background_intent: "b"
  deliverables: "d"
  definition_of_done: "done"
  constraints:
    max_iterations: 20
    max_parallel_agents: 3
    max_stall_count: 3
control:
  status: running
  iteration: 1
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
` + atoms.String() + `decompositions:
  - parent: A6
    children: [A7, A8]
or_groups:
  g:
    choices: [A4, A5]
    selected: A4
    failed: [A5]
bindings:
  A1:
    summary: "s"
    artifacts: []
trail: []
corrections: []
---
`
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLegendCoversTheList draws the list of a loop with every feature:
// every glyph it shows must have a line in the legend help shows, so a
// glyph added to the list without one fails here (the drawing's own
// check is dagdraw's TestLegendExplainsEveryGlyph).
func TestLegendCoversTheList(t *testing.T) {
	m := modelOn(t, legendLoop(t), 60, 40, false)
	if m.cur.graph.isLayered() {
		pressDrawn(m, "v")
	}
	g := &m.cur.graph
	g.sel = "C1"
	var rows []string
	for _, i := range g.layout.order {
		rows = append(rows, ansi.Strip(g.row(i, m.styles)))
	}
	text := strings.Join(rows, "\n")
	var samples string
	for _, r := range listLegend(text, m.styles) {
		samples += ansi.Strip(r.sample)
	}
	for _, r := range text {
		if r > 0x7e && r != '…' && !strings.ContainsRune(samples, r) {
			t.Errorf("the list shows %q, which no legend line explains:\n%s", r, text)
		}
	}
	for k := listMark(0); k < numListMarks; k++ {
		if !strings.Contains(text, k.String()) {
			t.Errorf("the fixture shows no %s (%s): the check above misses it", k, listMarks[k].meaning)
		}
	}
	for _, glyph := range []string{"○", "◐", "●", "?", "!", "⚠"} {
		if !strings.Contains(text, glyph) {
			t.Errorf("the fixture shows no %s", glyph)
		}
	}
}

// TestHelpShowsTheLegend: ? on the graph lists what its glyphs and box
// styles mean, only those on screen, and says when the help goes on
// below the pane; at 80×24 (the drawing) and 60×20 (the list).
func TestHelpShowsTheLegend(t *testing.T) {
	for _, c := range []struct {
		w, h    int
		drawing bool
		has     []string
		hasNot  []string
	}{
		{80, 24, true, []string{"╭─╮        an atom", "▼          to the atom that waits", "✗          a failed OR choice", "◐          in progress"},
			[]string{"⎇", "an error about it", "an id named"}},
		{60, 20, false, []string{"⎇          an OR group's choice", "★          the group selects it", "○          pending"},
			[]string{"╭─╮", "⚠", "nested deeper"}},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			m := loadedModel(t, "rich.md", c.w, c.h)
			if m.cur.graph.isLayered() != c.drawing {
				t.Fatalf("drawing %v, want %v", m.cur.graph.isLayered(), c.drawing)
			}
			press(m, "?")
			top := screen(m)
			checkFits(t, top, c.w, c.h)
			lines := strings.Split(top, "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "↓ more (j/k)") {
				t.Errorf("the help goes on below: its last line should say so:\n%s", top)
			}
			press(m, "G")
			end := screen(m)
			checkFits(t, end, c.w, c.h)
			golden.RequireEqual(t, top+"\n\n"+end)
			all := ansi.Strip(strings.Join(m.helpText.lines, "\n"))
			for _, want := range c.has {
				if !strings.Contains(all, want) {
					t.Errorf("the legend should have %q:\n%s", want, all)
				}
			}
			for _, not := range c.hasNot {
				if strings.Contains(all, not) {
					t.Errorf("the legend has %q, which the screen does not show:\n%s", not, all)
				}
			}
		})
	}
}
