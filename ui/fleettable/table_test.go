package fleettable

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

var now = time.Date(2025, 1, 15, 12, 0, 0, 0, time.UTC)

// testContext has the default keys of the table's bindings, no colour,
// and a fixed clock.
func testContext() kit.Context {
	keys := kit.Keys{}
	for name, ks := range map[string][]string{"open_loop": {"enter"}, "filter": {"/"}, "back": {"esc"}, "submit": {"enter"},
		"copy_text": {"Y"}} {
		keys[name] = key.NewBinding(key.WithKeys(ks...))
	}
	return kit.Context{Styles: kit.NewStyles(true, true), Keys: keys, Now: func() time.Time { return now }, NoColor: true}
}

func row(name string, att fleet.Attention, changed time.Duration) fleet.Row {
	return fleet.Row{Path: "/p/" + name + "/.claude/aot-loop-state.md", Project: "/p/" + name, Name: name, Kind: "aot-loop",
		File: fleet.FileOK, Status: "running", Goal: "goal of " + name, Iteration: 3, MaxIterations: 10, MaxStallCount: 3,
		Attention: att, Reason: att.Label(), Changed: now.Add(-changed)}
}

// table is a table of 100×30 with rows given as the watcher would.
func table(rows ...fleet.Row) *Table {
	t := New(Config{Dirs: []string{"/p"}, Options: fleet.Options{Depth: 3}})
	t.SetSize(100, 30)
	t.Update(testContext(), Ready{})
	t.Update(testContext(), Rows{Rows: rows})
	return t
}

func press(t *Table, k string) kit.Action {
	msg := tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	}
	return t.Update(testContext(), msg)
}

// Key in, action out: the table answers each key with what the root is
// to do, without the root.
func TestKeysGiveActions(t *testing.T) {
	calm, stopped := row("calm", fleet.AttentionNone, time.Minute), row("stopped", fleet.AttentionStopped, time.Hour)
	for _, c := range []struct {
		name   string
		table  func() *Table
		keys   []string
		kind   kit.ActionKind
		loop   string
		status string
		filter string
	}{
		{name: "enter opens the selected row, the one that needs attention first", table: func() *Table { return table(calm, stopped) },
			keys: []string{"enter"}, kind: kit.OpenLoop, loop: stopped.Path},
		{name: "enter after a move opens the row moved to", table: func() *Table { tb := table(calm, stopped); tb.By(1); return tb },
			keys: []string{"enter"}, kind: kit.OpenLoop, loop: calm.Path},
		{name: "enter on a table the scan found empty says so", table: func() *Table { return table() },
			keys: []string{"enter"}, kind: kit.ShowStatus, status: "no loop to open: the scan found none"},
		{name: "enter before the scan is done says so", table: func() *Table { return New(Config{}) },
			keys: []string{"enter"}, kind: kit.ShowStatus, status: "no loop to open yet: the scan is still looking"},
		{name: "enter with nothing matching the filter says esc clears it", table: func() *Table { return table(calm) },
			keys: []string{"/", "z", "enter", "enter"}, kind: kit.ShowStatus, status: "no loop to open: none matches the filter (esc clears it)", filter: "z"},
		{name: "esc with a filter clears it", table: func() *Table { return table(calm, stopped) },
			keys: []string{"/", "c", "a", "enter", "esc"}, kind: kit.None},
		{name: "esc while typing the filter clears it", table: func() *Table { return table(calm, stopped) },
			keys: []string{"/", "c", "esc"}, kind: kit.None},
		{name: "esc without a filter has nothing to clear", table: func() *Table { return table(calm) },
			keys: []string{"esc"}, kind: kit.ShowStatus, status: "no filter to clear"},
		{name: "the filter keeps the rows that match", table: func() *Table { return table(calm, stopped) },
			keys: []string{"/", "c", "a", "enter", "enter"}, kind: kit.OpenLoop, loop: calm.Path, filter: "ca"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := c.table()
			var a kit.Action
			for _, k := range c.keys {
				a = press(tb, k)
			}
			if a.Kind != c.kind || a.Loop != c.loop || a.Status.Text != c.status {
				t.Fatalf("action %v loop %q status %q, want %v %q %q", a.Kind, a.Loop, a.Status.Text, c.kind, c.loop, c.status)
			}
			if tb.cur.filter != c.filter {
				t.Fatalf("filter %q, want %q", tb.cur.filter, c.filter)
			}
			if tb.Filtering() {
				t.Fatal("the filter is still being typed")
			}
		})
	}
}

// Step walks the rows shown, wrapping, and selects the row it opens.
func TestStepWrapsAndSelects(t *testing.T) {
	a, b, c := row("a", fleet.AttentionNone, time.Minute), row("b", fleet.AttentionNone, 2*time.Minute), row("c", fleet.AttentionNone, 3*time.Minute)
	tb := table(a, b, c)
	var names []string
	for _, v := range tb.Visible() {
		names = append(names, v.Name)
	}
	order := strings.Join(names, " ")
	first := tb.Visible()[0]
	last := tb.Visible()[2]
	if r, ok := tb.Step(first.Path, -1); !ok || r.Path != last.Path {
		t.Fatalf("< from the first row (%s) opened %q, want the last", order, r.Name)
	}
	if sel, _ := tb.Selected(); sel.Path != last.Path {
		t.Fatalf("the selection is on %q, not the row opened", sel.Name)
	}
	if pos := tb.Position(last.Path); pos != "3/3 " {
		t.Fatalf("position %q", pos)
	}
	if _, ok := table().Step("/x", 1); ok {
		t.Fatal("an empty table has no row to step to")
	}
}

// An alert rings only while the pane is unfocused and not quiet, for a
// loop that changed for the worse, summing up the others.
func TestAlertsWhenUnfocused(t *testing.T) {
	calm, done := row("auth", fleet.AttentionNone, time.Minute), row("docs", fleet.AttentionNone, time.Hour)
	tb := table(calm, done)
	worse := calm
	worse.StallCount, worse.Attention, worse.Reason = 2, fleet.AttentionNearLimit, "stall 2/3"
	if cmd := tb.apply([]fleet.Row{worse}); cmd != nil {
		t.Fatal("an alert while the pane has the focus")
	}
	tb.Update(testContext(), tea.BlurMsg{})
	tb.apply([]fleet.Row{calm})
	finished := done
	finished.Status = "completed"
	raw := rawOf(tb.apply([]fleet.Row{worse, finished}))
	if !strings.HasPrefix(raw, "\a\x1b]9;aot-tui: 2 loops · 1 running · 1 needs attention · 1 completed: auth: stall 2/3 (and 1 more)\x07") ||
		!strings.Contains(raw, "\x1b]777;notify;aot-tui: 2 loops") {
		t.Fatalf("alert %q", raw)
	}
	quiet := New(Config{Quiet: true})
	quiet.Update(testContext(), tea.BlurMsg{})
	quiet.apply([]fleet.Row{calm})
	if cmd := quiet.apply([]fleet.Row{worse}); cmd != nil {
		t.Fatal("Quiet: an alert")
	}
}

func rawOf(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	if raw, ok := cmd().(tea.RawMsg); ok {
		return raw.Msg.(string)
	}
	return ""
}

// View only reads what Refresh drew: the clock moving on changes nothing
// on screen until Refresh runs at the new time, and View says when.
func TestViewReadsWhatRefreshDrew(t *testing.T) {
	tb := table(row("auth", fleet.AttentionNone, 10*time.Second))
	ctx := testContext()
	hints := func(room int) string { return "enter open the loop" }
	tb.Refresh(ctx, hints)
	before := tb.View(ctx)
	if !strings.Contains(before, "10s") || !strings.Contains(before, "enter open the loop") {
		t.Fatalf("the row's changed column or the hints are missing:\n%s", before)
	}
	// The text changes a second on; the shared clock draws it on its next
	// step.
	if next, want := tb.NextChange(), now.Add(time.Second).Truncate(ClockStep).Add(ClockStep); !next.Equal(want) {
		t.Fatalf("NextChange %v, want %v", next, want)
	}
	later := ctx
	later.Now = func() time.Time { return now.Add(5 * time.Second) }
	if again := tb.View(later); again != before {
		t.Fatal("View drew the clock's new time without Refresh")
	}
	tb.Refresh(later, hints)
	if out := tb.View(later); !strings.Contains(out, "15s") {
		t.Fatalf("after Refresh the changed column should read 15s:\n%s", out)
	}
}

// A loop the fleet watcher leaves to the stat poll says so in the
// preview; WatchNote says how the table watches the loops.
func TestPolledLoopsAndTheWatch(t *testing.T) {
	calm, polled := row("auth", fleet.AttentionNone, time.Minute), row("docs", fleet.AttentionNone, time.Hour)
	tb := table(calm, polled)
	rep := fleet.WatchReport{Mode: "claude", Backend: "kqueue", Dirs: 7, ClaudeDirs: 7, Descriptors: 14, Budget: 15,
		Loops: 8, Polled: []string{polled.Path}, PollMS: 2000, RescanMS: 10000}
	if tb.WatchNote() != "" {
		t.Fatal("a watch note before the watcher started")
	}
	tb.watch = func() fleet.WatchReport { return rep }
	why := "⟳ polled every 2s: its .claude directory is beyond the watch budget of 15 descriptors"
	ctx := testContext()
	hints := func(int) string { return "" }
	tb.Refresh(ctx, hints)
	if out := tb.View(ctx); strings.Contains(out, "polled every") {
		t.Fatalf("a watched loop's preview says it is polled:\n%s", out)
	}
	tb.Select(polled.Path)
	tb.Refresh(ctx, hints)
	if out := ansi.Strip(tb.View(ctx)); !strings.Contains(out, "docs · aot-loop") || !strings.Contains(out, why) {
		t.Fatalf("the polled loop's preview should say %q:\n%s", why, out)
	}
	want := "watch: watching 7 .claude directories with 14 of 15 descriptors (kqueue); trees walked again every 10s; 1 loop polled every 2s"
	if got := tb.WatchNote(); got != want {
		t.Fatalf("WatchNote %q, want %q", got, want)
	}
}

// A table with more rows than the pane shows says where it is in its
// footer, and with a filter, beside the filter.
func TestTableSaysWhereItIs(t *testing.T) {
	var rows []fleet.Row
	for i := 0; i < 40; i++ {
		rows = append(rows, row(fmt.Sprintf("loop%02d", i), fleet.AttentionNone, time.Minute))
	}
	tb := table(rows...)
	footer := func() string {
		tb.Refresh(testContext(), func(int) string { return "keys" })
		lines := strings.Split(tb.View(testContext()), "\n")
		return lines[len(lines)-1]
	}
	h := tb.cur.bodyHeight()
	if want := fmt.Sprintf("↓ 1–%d of 40", h); !strings.Contains(footer(), want) {
		t.Errorf("at the top: footer %q, want %q", footer(), want)
	}
	tb.End()
	if want := fmt.Sprintf("↑ %d–40 of 40", 41-h); !strings.Contains(footer(), want) {
		t.Errorf("at the end: footer %q, want %q", footer(), want)
	}
	tb.cur.setFilter("loop")
	if !strings.Contains(footer(), "filter: loop (40 of 40) ↑") {
		t.Errorf("with a filter: footer %q", footer())
	}
}
