package fleettable

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// rowAt is the screen row View draws name's row on (-1: not drawn).
func rowAt(tb *Table, name string) int {
	for y, line := range strings.Split(ansi.Strip(tb.View(testContext())), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return y
		}
	}
	return -1
}

func click(tb *Table, x, y int) kit.Action {
	a := tb.Update(testContext(), tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	tb.Refresh(testContext(), func(int) string { return "" })
	return a
}

// A click selects the row drawn under it — scrolled down, filtered — and
// a click on the selected row opens its loop, as enter does (a double
// click: the first selects, the second opens). A click on the header, the
// preview, or with another button does nothing.
func TestClickSelectsTheRowDrawnAndOpensTheSelected(t *testing.T) {
	var rows []fleet.Row
	for i := range 40 {
		rows = append(rows, row(fmt.Sprintf("loop%02d", i), fleet.AttentionNone, time.Duration(i+1)*time.Minute))
	}
	tb := table(rows...)
	tb.End() // scrolled: the rows on screen are not the first ones
	tb.Refresh(testContext(), func(int) string { return "" })
	target := tb.Visible()[len(tb.Visible())-5]
	y := rowAt(tb, target.Name)
	if y < 0 {
		t.Fatalf("%s is not drawn:\n%s", target.Name, tb.View(testContext()))
	}
	if a := click(tb, 30, y); a.Kind != kit.None {
		t.Fatalf("the first click on %s answered %v", target.Name, a.Kind)
	}
	if r, _ := tb.Selected(); r.Path != target.Path {
		t.Fatalf("a click on the row of %s selected %s", target.Name, r.Name)
	}
	if a := click(tb, 3, y); a.Kind != kit.OpenLoop || a.Loop != target.Path {
		t.Fatalf("a click on the selected row answered %v %q, want to open %s", a.Kind, a.Loop, target.Path)
	}

	for _, c := range []struct {
		name string
		msg  tea.MouseClickMsg
	}{
		{"the title", tea.MouseClickMsg{X: 3, Y: 0, Button: tea.MouseLeft}},
		{"the column header", tea.MouseClickMsg{X: 3, Y: 1, Button: tea.MouseLeft}},
		{"the preview", tea.MouseClickMsg{X: 3, Y: 28, Button: tea.MouseLeft}},
		{"a right click", tea.MouseClickMsg{X: 3, Y: rowAt(tb, tb.Visible()[len(tb.Visible())-2].Name), Button: tea.MouseRight}},
	} {
		if a := tb.Update(testContext(), c.msg); a.Kind != kit.None {
			t.Errorf("a click on %s answered %v", c.name, a.Kind)
		}
		if r, _ := tb.Selected(); r.Path != target.Path {
			t.Errorf("a click on %s moved the selection to %s", c.name, r.Name)
		}
	}

	// Filtered while typing: the rows drawn are the matches; the click
	// ends the typing and keeps the filter.
	for _, k := range []string{"/", "p", "2"} {
		press(tb, k)
	}
	tb.Refresh(testContext(), func(int) string { return "" })
	y = rowAt(tb, "loop21")
	if y != 3 {
		t.Fatalf("loop21 should be the second match, drawn on row 3, is on %d:\n%s", y, tb.View(testContext()))
	}
	click(tb, 10, y)
	if r, _ := tb.Selected(); r.Name != "loop21" || tb.Filtering() || tb.cur.filter != "p2" {
		t.Fatalf("selected %s, typing %v, filter %q", r.Name, tb.Filtering(), tb.cur.filter)
	}
}

// Y copies the selected loop's path to the clipboard and says so.
func TestCopyThePath(t *testing.T) {
	calm := row("auth", fleet.AttentionNone, time.Minute)
	tb := table(calm)
	ctx := testContext()
	a := tb.Update(ctx, tea.KeyPressMsg{Code: 'Y', Text: "Y"})
	if a.Kind != kit.ShowStatus || a.Status.Text != "copied the path of auth" || a.Cmd == nil {
		t.Fatalf("Y answered %v %q", a.Kind, a.Status.Text)
	}
	if msg := a.Cmd(); fmt.Sprintf("%T", msg) != "tea.setClipboardMsg" || fmt.Sprint(msg) != calm.Path {
		t.Fatalf("Y's command gives %T %q, want tea.SetClipboard's message with %q", msg, msg, calm.Path)
	}
	a = table().Update(ctx, tea.KeyPressMsg{Code: 'Y', Text: "Y"})
	if a.Kind != kit.ShowStatus || a.Status.Text != "no loop to copy the path of: the scan found none" || a.Cmd != nil {
		t.Fatalf("Y on an empty table answered %v %q", a.Kind, a.Status.Text)
	}
}
