package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/graph"
)

func TestDrawingShownInWidePanesListInNarrow(t *testing.T) {
	wide := loadedModel(t, "rich.md", 160, 40)
	if !wide.graph.isLayered() || !strings.Contains(screen(wide), "╭") {
		t.Fatalf("a 160-column screen should draw the graph:\n%s", screen(wide))
	}
	press(wide, "v")
	if wide.graph.isLayered() {
		t.Fatal("v in a wide pane should show the list")
	}
	narrow := loadedModel(t, "rich.md", 60, 20)
	if narrow.graph.isLayered() {
		t.Fatal("a 60-column pane should start with the list")
	}
	press(narrow, "v")
	if !narrow.graph.isLayered() || !strings.Contains(screen(narrow), "╭") {
		t.Fatalf("v should draw the graph:\n%s", screen(narrow))
	}
	press(narrow, "v")
	if narrow.graph.isLayered() {
		t.Fatal("v again should show the list")
	}
}

func TestDrawingFallsBackWhenItCannotFit(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 11})
	if m.graph.isLayered() {
		t.Fatal("a 120×11 screen cannot hold the drawing")
	}
	press(m, "v", "v") // ask for the drawing explicitly
	out := screen(m)
	if m.graph.isLayered() || !strings.Contains(out, "graph needs at least") {
		t.Fatalf("the fallback should say why:\n%s", out)
	}
	checkFits(t, out, 120, 11)
}

func TestDrawingKeys(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	if m.graph.sel != "A4" {
		t.Fatalf("selection %q, want the in-progress A4", m.graph.sel)
	}
	press(m, "g")
	if m.graph.sel != "A1" {
		t.Fatalf("g should go to the first layer: %q", m.graph.sel)
	}
	press(m, "j")
	if m.graph.sel == "A1" || m.graph.sel == "" {
		t.Fatal("j should move down the drawing")
	}
	press(m, "G")
	if m.graph.sel != "A8" {
		t.Fatalf("G should go to the last layer: %q", m.graph.sel)
	}
	press(m, "[")
	if m.graph.sel != "A7" {
		t.Fatalf("[ from A8 should go to its dependency A7: %q", m.graph.sel)
	}
	press(m, "]")
	if m.graph.sel != "A8" {
		t.Fatalf("] from A7 should go to its dependent A8: %q", m.graph.sel)
	}
	press(m, "g")
	if m.graph.sel != "A1" {
		t.Fatalf("g should go to the first layer: %q", m.graph.sel)
	}
	press(m, ":", "a", "5", "enter")
	if m.graph.sel != "A5" || !strings.Contains(screen(m), "A5  ○ pending") {
		t.Fatalf(":a5 should jump to A5 (case-insensitive): %q", m.graph.sel)
	}
	press(m, ":", "Z", "9", "enter")
	if !strings.Contains(screen(m), "no atom Z9") {
		t.Fatal("an unknown id should say so")
	}
	before := m.graph.lay.gv.Layout()
	press(m, "t")
	if m.graph.lay.opt.Orientation != graph.LeftRight || m.graph.lay.gv.Layout() == before {
		t.Fatal("t should lay the graph out left to right")
	}
	if !strings.Contains(screen(m), "left-right") {
		t.Fatal("the position line should say left-right")
	}
	press(m, "t", "z")
	if !m.graph.lay.opt.CollapseResolved || !strings.Contains(screen(m), "resolved collapsed") {
		t.Fatal("z should collapse the resolved history")
	}
	press(m, "z", ":", "A", "2", "enter", "space")
	if !m.graph.lay.opt.Collapsed["A2"] {
		t.Fatal("space on the decomposed A2 should collapse it")
	}
	checkFits(t, screen(m), 160, 40)
}

func TestStatusChangeKeepsTheLayout(t *testing.T) {
	m := loadedModel(t, "rich.md", 160, 40)
	before := m.graph.lay.gv.Layout()
	ev := loadEvent(t, "../testdata/rich.md")
	ev.Doc.State.Atoms[3].Status = "resolved"
	m.Update(stateMsg{ev: ev})
	if m.graph.lay.gv.Layout() != before {
		t.Fatal("a status change must not lay the graph out again")
	}
}
