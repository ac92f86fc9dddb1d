package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/fleettable"
	"github.com/charmbracelet/x/exp/golden"
)

// fleetRows is a small fleet: every kind of attention, a phase loop, and
// a project whose name and goal carry escape sequences.
func fleetRows() []fleet.Row {
	abs := func(p string) string { a, _ := filepath.Abs(filepath.Join("..", "testdata", p)); return a }
	at := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	row := func(name, status, goal string, it, maxIt, stall, maxStall int, changed time.Duration) fleet.Row {
		return fleet.Row{Path: "/work/projects/" + name + "/.claude/aot-loop-state.md", Project: "/work/projects/" + name, Name: name,
			Kind: "aot-loop", File: fleet.FileOK, Status: status, Goal: goal, Iteration: it, MaxIterations: maxIt,
			StallCount: stall, MaxStallCount: maxStall, Summary: model.Counts{Total: 9, Pending: 4, InProgress: 2, Resolved: 3},
			Outlook: "continues: next iteration", Changed: at(changed)}
	}
	near := row("api/payments", "running", "Payments via the new provider", 7, 12, 2, 3, 40*time.Second)
	near.Attention, near.Reason = fleet.AttentionNearLimit, "stall 2/3: one more stalled iteration stops the loop"
	stopped := row("web/search", "stopped", "Full-text search", 9, 12, 3, 3, 10*time.Minute)
	stopped.Attention, stopped.Reason, stopped.StopReason = fleet.AttentionStopped, "stopped: stall limit reached", "stall limit reached"
	paused := row("cli/export", "running", "Export to CSV", 2, 20, 0, 3, 3*time.Minute)
	paused.Attention, paused.Reason, paused.RedirectRequested = fleet.AttentionRedirect, "paused: redirect_requested is set", true
	broken := row("infra/ci", "running", "Faster CI", 4, 10, 0, 3, 5*time.Second)
	broken.File, broken.Error = fleet.FileInvalid, "line 12: mapping values are not allowed here"
	broken.Attention, broken.Reason = fleet.AttentionInvalid, broken.Error
	calm := row("auth", "running", "Add user authentication", 5, 20, 0, 3, 2*time.Second)
	calm.Path, calm.Project = abs("seed-complete.md"), abs(".") // a real file, for opening
	done := row("docs", "completed", "Write the docs", 6, 10, 0, 3, 2*time.Hour)
	evil := row("evil\x1b]0;pwned\x07", "running", "goal \x1b[31mred\x1b[0m here", 1, 10, 0, 3, time.Hour)
	phase := fleet.Row{Path: "/work/projects/mobile/.claude/autonomous-loop.json", Project: "/work/projects/mobile", Name: "mobile",
		Kind: "phase-loop", File: fleet.FileOK, Status: "running", Phase: "work", Goal: "Offline mode", Iteration: 9, MaxIterations: 50,
		StallCount: 2, MaxStallCount: 10, PhasesDone: 4, PhasesTotal: 11, Changed: at(20 * time.Second)}
	return []fleet.Row{calm, done, near, broken, phase, stopped, evil, paused}
}

// fleetModel is the TUI on the fleet table with rows delivered as the
// watcher would, without a program.
func fleetModel(t testing.TB, w, h int, rows []fleet.Row) *Model {
	t.Helper()
	m := New(Options{Fleet: &FleetOptions{Dirs: []string{"/work/projects"}, Options: fleet.Options{Depth: 4}},
		NoColor: true, Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(fleettable.Ready{})
	m.Update(fleettable.Rows{Rows: rows})
	return m
}

// tableNames lists the projects of the table's rows on screen, in order.
func tableNames(m *Model) []string {
	var out []string
	for _, r := range m.fleet.Visible() {
		out = append(out, r.Name)
	}
	return out
}

func TestFleetTableGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{60, 20}, {100, 24}, {160, 30}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := fleetModel(t, sz.w, sz.h, fleetRows())
			out := screen(m)
			checkFits(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

func TestFleetTableOrdersByAttentionAndFollowsChanges(t *testing.T) {
	m := fleetModel(t, 120, 30, fleetRows())
	want := []string{"api/payments", "web/search", "cli/export", "infra/ci", "auth", "mobile", "evil\x1b]0;pwned\x07", "docs"}
	if got := tableNames(m); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("order %q, want %q", got, want)
	}
	out := screen(m)
	if !strings.Contains(out, "8 loops · 5 running · 4 need attention · 1 completed") {
		t.Fatalf("the title should summarise the fleet:\n%s", out)
	}
	// Select mobile; then docs stalls near its limit and goes to the top,
	// web/search goes away, a new loop comes: the selection stays on mobile.
	press(m, "j", "j", "j", "j", "j")
	if r, _ := m.fleet.Selected(); r.Name != "mobile" {
		t.Fatalf("selected %q", r.Name)
	}
	rows := fleetRows()
	docs := rows[1]
	docs.Status, docs.StallCount, docs.Attention, docs.Reason, docs.Changed = "running", 2, fleet.AttentionNearLimit, "stall 2/3", fixedNow
	fresh := rows[0]
	fresh.Path, fresh.Name, fresh.Changed = "/work/projects/new/.claude/aot-loop-state.md", "new", fixedNow
	m.Update(fleettable.Rows{Rows: []fleet.Row{docs, {Path: rows[5].Path, Gone: true}, fresh}})
	want = []string{"docs", "api/payments", "cli/export", "infra/ci", "new", "auth", "mobile", "evil\x1b]0;pwned\x07"}
	if got := tableNames(m); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("after the changes: order %q, want %q", got, want)
	}
	if r, _ := m.fleet.Selected(); r.Name != "mobile" {
		t.Fatalf("the selection moved to %q", r.Name)
	}
	if out := screen(m); strings.Contains(out, "web/search") || !strings.Contains(out, "│ new") && !strings.Contains(out, " new ") {
		t.Fatalf("removed and added loops:\n%s", out)
	}
}

// Rows arrive in batches while the scan reads the files: until the person
// moves it, the selection stays on the top row.
func TestFleetSelectionStaysOnTopUntilMoved(t *testing.T) {
	rows := fleetRows()
	m := fleetModel(t, 100, 30, rows[:2]) // auth and docs first
	m.Update(fleettable.Rows{Rows: rows[2:]})
	if r, _ := m.fleet.Selected(); r.Name != "api/payments" {
		t.Fatalf("selected %q, want the top row", r.Name)
	}
	press(m, "j")
	late := rows[0]
	late.Path, late.Name, late.Attention = "/late", "late", fleet.AttentionNearLimit
	m.Update(fleettable.Rows{Rows: []fleet.Row{late}})
	if r, _ := m.fleet.Selected(); r.Name != "web/search" {
		t.Fatalf("once moved, the selection stays on its loop; it is on %q", r.Name)
	}
}

func TestFleetFilter(t *testing.T) {
	m := fleetModel(t, 120, 30, fleetRows())
	press(m, "/", "p", "a", "y")
	if got := tableNames(m); len(got) != 1 || got[0] != "api/payments" {
		t.Fatalf("/pay shows %q", got)
	}
	if out := screen(m); !strings.Contains(out, "/pay") {
		t.Fatalf("the prompt should show while typing:\n%s", out)
	}
	press(m, "enter")
	if out := screen(m); !strings.Contains(out, "filter: pay (1 of 8)") {
		t.Fatalf("the footer should show the filter:\n%s", out)
	}
	// Words of the attention and status match too.
	press(m, "/", "backspace", "backspace", "backspace")
	for _, r := range "redirect" {
		press(m, string(r))
	}
	press(m, "enter")
	if got := tableNames(m); len(got) != 1 || got[0] != "cli/export" {
		t.Fatalf("/redirect shows %q", got)
	}
	press(m, "esc")
	if got := tableNames(m); len(got) != 8 {
		t.Fatalf("esc should clear the filter, %d rows shown", len(got))
	}
	press(m, "/", "z", "z", "z", "enter")
	if out := screen(m); !strings.Contains(out, `nothing matches "zzz"`) {
		t.Fatalf("an empty result should say so:\n%s", out)
	}
}

func TestFleetEnterOpensTheLoopAndEscReturns(t *testing.T) {
	m := fleetModel(t, 120, 34, fleetRows())
	seed, _ := filepath.Abs(filepath.Join("..", "testdata", "seed-complete.md"))
	press(m, "G", "k", "k", "k") // auth is the fifth of eight
	if r, _ := m.fleet.Selected(); r.Name != "auth" {
		t.Fatalf("selected %q", r.Name)
	}
	press(m, "enter")
	if m.fleetShown() || m.cur.target.Path != seed {
		t.Fatalf("enter should open auth's loop (shown %v, cur %q)", m.fleetShown(), m.cur.target.Path)
	}
	m.Update(m.cur.envelope(stateMsg{ev: loadEvent(t, seed)}))
	out := screen(m)
	for _, want := range []string{"◂ fleet esc", "5/8 auth ▶ running", "iteration 5/20", "1 Graph"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the loop view should show %q:\n%s", want, out)
		}
	}
	// The normal views work; esc first closes what the view has open.
	press(m, "2", "/", "x", "enter")
	press(m, "esc")
	if m.fleetShown() {
		t.Fatal("esc should clear the view's filter before leaving the loop")
	}
	press(m, "esc")
	if !m.fleetShown() {
		t.Fatal("esc should return to the table")
	}
	if out := screen(m); !strings.Contains(out, "aot-tui fleet") || !strings.Contains(out, "api/payments") {
		t.Fatalf("back on the table:\n%s", out)
	}
	if r, _ := m.fleet.Selected(); r.Name != "auth" {
		t.Fatalf("the selection should stay on auth, is on %q", r.Name)
	}
	// Opening it again reuses the loop; > opens the next row of the table.
	n := len(m.loops)
	press(m, "enter")
	if len(m.loops) != n || m.cur.target.Path != seed || m.cur.view != viewBindings {
		t.Fatalf("reopening should reuse the loop with its view (%d loops, view %v)", len(m.loops), m.cur.view)
	}
	press(m, ">")
	if m.cur.name != "mobile" || m.fleetShown() {
		t.Fatalf("> should open the next loop of the table, opened %q", m.cur.name)
	}
	press(m, "<", "<")
	if m.cur.name != "infra/ci" {
		t.Fatalf("< < should open the loop two rows up, opened %q", m.cur.name)
	}
	if v := m.View(); !strings.Contains(v.WindowTitle, "fleet: 8 loops · 5 running · 4 need attention") {
		t.Fatalf("window title %q", v.WindowTitle)
	}
}

func TestFleetHelpAndTitle(t *testing.T) {
	m := fleetModel(t, 100, 30, fleetRows())
	if v := m.View(); v.WindowTitle != "aot-tui fleet: 8 loops · 5 running · 4 need attention · 1 completed" {
		t.Fatalf("window title %q", v.WindowTitle)
	}
	press(m, "?")
	out := screen(m)
	for _, want := range []string{"help — fleet table", "open the loop", "clear the filter"} {
		if !strings.Contains(out, want) {
			t.Fatalf("help should show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "back to the table") || strings.Contains(out, "next loop") {
		t.Fatalf("the table's help lists the keys of a loop opened from it:\n%s", out)
	}
	press(m, "esc")
	if out := screen(m); !strings.Contains(out, "enter open the loop") {
		t.Fatalf("the footer should hint at enter:\n%s", out)
	}
	press(m, "enter", "?")
	out = screen(m)
	for _, want := range []string{"back to the table", "next loop of the table", "previous loop of the table"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the help of a loop opened from the table should show %q:\n%s", want, out)
		}
	}
}

func TestFleetNeverEmitsEscapesFromFiles(t *testing.T) {
	m := fleetModel(t, 140, 30, fleetRows())
	m.styles = NewStyles(true, false)
	press(m, "G", "k") // the evil row, selected: its preview is drawn too
	raw := m.render()
	if strings.Contains(raw, "\x1b]0;pwned") || strings.Contains(raw, "\x07") || strings.Contains(raw, "\x1b[31mred") {
		t.Fatal("an escape sequence from a file reached the terminal")
	}
	if out := screen(m); !strings.Contains(out, `\x1b]0;pwned`) || !strings.Contains(out, `goal \x1b[31mred`) {
		t.Fatalf("escapes should be shown escaped:\n%s", out)
	}
	if title := m.View().WindowTitle; strings.ContainsAny(title, "\x1b\x07") {
		t.Fatalf("window title %q", title)
	}
}

// The scan itself failing (a directory that does not exist) is said on
// the screen.
func TestFleetScanErrorShown(t *testing.T) {
	m := New(Options{Fleet: &FleetOptions{Dirs: []string{"/nonexistent/dir"}}, NoColor: true, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 20})
	msg := m.fleet.Init()()
	m.Update(msg)
	if out := screen(m); !strings.Contains(out, "scan failed") || !strings.Contains(out, "/nonexistent/dir") {
		t.Fatalf("screen:\n%s", out)
	}
	_ = statefile.KindAoT
}

// In a 60-column pane the title keeps the summary whole, and the preview
// wraps a long reason over the lines it has, the file's line last; an
// unread file's empty goal takes no line.
func TestFleetNarrowTitleAndPreviewWrap(t *testing.T) {
	rows := fleetRows()
	for i := range rows {
		if rows[i].Name == "infra/ci" {
			rows[i].Goal = ""
			rows[i].Error = "state file /work/projects/infra/ci/.claude/aot-loop-state.md line 12: mapping values are not allowed here — fix the YAML"
			rows[i].Reason = rows[i].Error
		}
	}
	m := fleetModel(t, 60, 20, rows)
	for r, _ := m.fleet.Selected(); r.Path != rows[3].Path; r, _ = m.fleet.Selected() {
		m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	out := screen(m)
	checkFits(t, out, 60, 20)
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.TrimRight(lines[0], " "), "4 need attention · 1 completed") {
		t.Fatalf("the title should keep the summary whole: %q", lines[0])
	}
	pv := strings.Join(lines[14:19], "\n")
	for _, want := range []string{"infra/ci · aot-loop", "✗ state file", "mapping values are not", ".claude/aot-loop-state.md · enter opens it"} {
		if !strings.Contains(pv, want) {
			t.Errorf("the preview lacks %q:\n%s", want, pv)
		}
	}
	if strings.Contains(pv, "goal") {
		t.Errorf("an empty goal should take no line:\n%s", pv)
	}
}

// In a loop opened from the table, esc with the timeline's past on screen
// returns to live first; only the next esc goes back to the table.
func TestFleetEscFromThePastReturnsToLiveFirst(t *testing.T) {
	m := fleetModel(t, 120, 34, fleetRows())
	seed, _ := filepath.Abs(filepath.Join("..", "testdata", "seed-complete.md"))
	press(m, "G", "k", "k", "k", "enter") // auth
	if m.fleetShown() || m.cur.target.Path != seed {
		t.Fatalf("enter should open auth's loop")
	}
	data, err := os.ReadFile(seed)
	if err != nil {
		t.Fatal(err)
	}
	first := loadEvent(t, seed)
	first.Data = data
	m.Update(m.cur.envelope(stateMsg{ev: first}))
	later := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(later, []byte(strings.Replace(string(data), "iteration: 5", "iteration: 6", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := loadEvent(t, later)
	ev.Target, ev.Data = first.Target, []byte(strings.Replace(string(data), "iteration: 5", "iteration: 6", 1))
	m.Update(m.cur.envelope(stateMsg{ev: ev}))
	if out := screen(m); !strings.Contains(out, "iteration 6/20") {
		t.Fatalf("the second version should be live:\n%s", out)
	}
	press(m, ",")
	if out := screen(m); !strings.Contains(out, "◷ version 1 of 2") {
		t.Fatalf(", should show the first version:\n%s", out)
	}
	press(m, "esc")
	if m.fleetShown() || m.cur.hist.inPast() {
		t.Fatalf("esc in the past should return to live, not to the table (table shown %v)", m.fleetShown())
	}
	press(m, "esc")
	if !m.fleetShown() {
		t.Fatal("esc when live should return to the table")
	}
}

// TestFleetMarksLoopTools: a loop whose file the loop's own tools read
// otherwise, without needing attention yet, is marked ≠ in the table, and
// the preview says what the first misreading is and how many there are.
func TestFleetMarksLoopTools(t *testing.T) {
	rows := fleetRows()
	for i := range rows {
		if rows[i].Name == "auth" {
			rows[i].LoopTools, rows[i].LoopTool = 2, "line 27: read_state.py reads atoms[0].status as 'resolved   # …' (inline comment, line 27)"
		}
	}
	m := fleetModel(t, 160, 30, rows)
	for r, _ := m.fleet.Selected(); r.Name != "auth"; r, _ = m.fleet.Selected() {
		press(m, "j")
	}
	out := screen(m)
	if l := lineOfScreen(out, " auth "); !strings.Contains(l, "≠") {
		t.Fatalf("auth's row is not marked: %q\n%s", l, out)
	}
	if !strings.Contains(out, "⚠ loop tools: line 27: read_state.py reads atoms[0].status as 'resolved   # …' (inline comment, line 27) (+1 more)") {
		t.Fatalf("the preview does not say it:\n%s", out)
	}
	if l := lineOfScreen(out, " docs "); strings.Contains(l, "≠") {
		t.Fatalf("docs is marked: %q", l)
	}
}

func lineOfScreen(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// A row that names a host the fleet does not have is refused: its path
// is on that machine, never to be read or written here.
func TestFleetRefusesARowOfAnUnknownHost(t *testing.T) {
	rows := fleetRows()
	far := rows[0]
	far.Host, far.Name = "gpu-box", "far/loop"
	m := fleetModel(t, 140, 30, []fleet.Row{far})
	n := len(m.loops)
	press(m, "enter")
	if !m.fleetShown() || len(m.loops) != n {
		t.Fatalf("a row of an unknown host was opened (table shown %v, %d loops)", m.fleetShown(), len(m.loops))
	}
	if out := screen(m); !strings.Contains(out, "host gpu-box is not in this fleet") {
		t.Fatalf("no word of the refusal:\n%s", out)
	}
}
