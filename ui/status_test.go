package ui

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// twoLoops watches two projects, alpha (on screen) and beta, each a copy
// of rich.md, on a clock the test moves.
func twoLoops(t *testing.T, now *time.Time) *Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1)
	var targets []statefile.Target
	for _, name := range []string{"alpha", "beta"} {
		path := filepath.Join(t.TempDir(), name, ".claude", "aot-loop-state.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true})
	}
	m := New(Options{Targets: targets, NoColor: true, Now: func() time.Time { return *now }, SyncLayout: true, SoloPause: true})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 30})
	for _, l := range m.loops {
		m.Update(l.envelope(stateMsg{ev: loadEvent(t, l.target.Path)}))
	}
	if m.cur != m.loops[0] || m.loops[0].name != "alpha" || m.loops[1].name != "beta" {
		t.Fatalf("loops %q %q, %q on screen; want alpha (on screen) and beta", m.loops[0].name, m.loops[1].name, m.cur.name)
	}
	return m
}

// footerLine is the last line of the screen.
func footerLine(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-1]
}

// logLines is the message log as drawn, one string.
func logLines(t *testing.T, m *Model) string {
	t.Helper()
	press(m, "M")
	out := screen(m)
	press(m, "esc")
	if !strings.Contains(out, "message log") {
		t.Fatalf("M did not open the message log:\n%s", out)
	}
	return out
}

// A correction result for a loop that is not on screen (an undo, the
// guard's re-apply) is that loop's: it does not show in the footer of the
// loop on screen, shows when the person switches to its loop while it is
// still live, and is logged under its loop's name with its level.
func TestAResultForALoopNotOnScreenIsThatLoops(t *testing.T) {
	now := fixedNow
	m := twoLoops(t, &now)
	beta := m.loops[1]
	m.Update(beta.envelope(sessionMsg{res: correction.UndoResult{Summary: "max_iterations 20 → 30"}}))
	m.Update(beta.envelope(sessionMsg{res: correction.GuardResult{Summary: "constraints", Reapplied: true}}))

	if f := footerLine(m); strings.Contains(f, "undone") || strings.Contains(f, "re-applied") {
		t.Errorf("alpha's footer shows beta's result: %q", f)
	}
	log := logLines(t, m)
	for _, want := range []string{
		"ok     [beta] undone: max_iterations 20 → 30",
		"ok     [beta] re-applied after the loop overwrote it: constraints",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the message log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "[alpha]") {
		t.Errorf("beta's results logged under alpha:\n%s", log)
	}

	// Five seconds on, the re-apply (a success, six seconds) is still live.
	now = now.Add(5 * time.Second)
	press(m, ">")
	if m.cur != beta {
		t.Fatalf("> did not switch to beta")
	}
	if f := footerLine(m); !strings.Contains(f, "✓ re-applied after the loop overwrote it: constraints") {
		t.Errorf("beta's footer lacks its live result: %q", f)
	}
	press(m, "<")
	if f := footerLine(m); strings.Contains(f, "re-applied") {
		t.Errorf("back on alpha, its footer shows beta's result: %q", f)
	}

	// Past its time to live it is gone from beta's footer too; the log
	// keeps it.
	now = now.Add(2 * time.Second)
	press(m, ">")
	if f := footerLine(m); strings.Contains(f, "re-applied") {
		t.Errorf("beta's result still shown past its time to live: %q", f)
	}
	if log := logLines(t, m); !strings.Contains(log, "[beta] re-applied") {
		t.Errorf("the expired result left the message log:\n%s", log)
	}
}

// A result for the loop on screen shows at once, in its level's glyph; a
// failure is an error.
func TestAResultForTheLoopOnScreenShowsWithItsLevel(t *testing.T) {
	now := fixedNow
	m := twoLoops(t, &now)
	alpha := m.loops[0]
	m.Update(alpha.envelope(sessionMsg{res: correction.UndoResult{Err: errors.New("disk full")}}))
	if f := footerLine(m); !strings.Contains(f, "✗ undo failed: disk full") {
		t.Errorf("footer %q, want the error with its glyph", f)
	}
	if log := logLines(t, m); !strings.Contains(log, "error  [alpha] undo failed: disk full") {
		t.Errorf("the message log lacks the error under alpha:\n%s", log)
	}
}

// A message for a loop that does not exist (an index out of range, -1
// included) changes nothing.
func TestALoopMessageForNoLoopIsDropped(t *testing.T) {
	now := fixedNow
	m := twoLoops(t, &now)
	before := screen(m)
	for _, idx := range []int{-1, 2} {
		m.Update(loopMsg{idx: idx, msg: sessionMsg{res: correction.UndoResult{Summary: "x"}}})
	}
	if after := screen(m); after != before {
		t.Errorf("a message for no loop changed the screen:\n%s", after)
	}
	if len(m.msgs.entries) != 0 {
		t.Errorf("a message for no loop was logged: %+v", m.msgs.entries)
	}
}

// Each level is drawn in its colour, and with its glyph, so that under
// NO_COLOR the level still reads.
func TestStatusLevelsColourAndGlyph(t *testing.T) {
	colour := NewStyles(true, false)
	plain := NewStyles(true, true)
	for _, c := range []struct {
		lv    kit.Level
		style func(Styles) string // the palette colour the line takes
		glyph string
	}{
		{kit.Info, func(s Styles) string { return s.Accent.Render("x") }, ""},
		{kit.Success, func(s Styles) string { return s.OK.Render("x") }, "✓ "},
		{kit.Warn, func(s Styles) string { return s.Warn.Render("x") }, "⚠ "},
		{kit.Error, func(s Styles) string { return s.Danger.Render("x") }, "✗ "},
	} {
		if got, want := colour.Status(c.lv).Render("x"), c.style(colour); got != want {
			t.Errorf("%s: drawn %q, want %q", c.lv, got, want)
		}
		if got := plain.Status(c.lv).Render("x"); got != "x" {
			t.Errorf("%s under NO_COLOR: drawn %q, want plain", c.lv, got)
		}
		if got := markText(c.lv, "text"); got != c.glyph+"text" {
			t.Errorf("%s: %q, want %q", c.lv, got, c.glyph+"text")
		}
	}
	// The four colours differ: a level is told by its colour too.
	seen := map[string]kit.Level{}
	for _, lv := range []kit.Level{kit.Info, kit.Success, kit.Warn, kit.Error} {
		r := colour.Status(lv).Render("x")
		if other, dup := seen[r]; dup {
			t.Errorf("%s and %s are drawn alike: %q", lv, other, r)
		}
		seen[r] = lv
	}
}

// A status line lives its level's time (or its own), on the injected
// clock: the frame drawn while it is live has it, the one after does not.
func TestStatusExpiresOnTheClock(t *testing.T) {
	now := fixedNow
	m := twoLoops(t, &now)
	alpha := m.loops[0]
	for _, c := range []struct {
		st   kit.Status
		live time.Duration
	}{
		{kit.Status{Text: "a hint", Level: kit.Info}, 3 * time.Second},
		{kit.Status{Text: "a result", Level: kit.Success}, 6 * time.Second},
		{kit.Status{Text: "a warning", Level: kit.Warn}, 6 * time.Second},
		{kit.Status{Text: "a failure", Level: kit.Error}, 6 * time.Second},
		{kit.Status{Text: "under way", Level: kit.Info, TTL: time.Hour}, time.Hour},
	} {
		start := now
		m.post(alpha, c.st)
		now = start.Add(c.live)
		m.Update(clockMsg(now)) // the clock's wake-up, as the program gets it
		if f := ansi.Strip(m.View().Content); !strings.Contains(f, c.st.Text) {
			t.Errorf("%q (%s) gone at %v, want it until then", c.st.Text, c.st.Level, c.live)
		}
		// The footer drawn wakes the program when the line goes.
		if next, gone := m.chrome.next, start.Add(c.live+time.Nanosecond); !next.Equal(gone) {
			t.Errorf("%q (%s): the footer next reads differently at %v, want %v", c.st.Text, c.st.Level, next, gone)
		}
		now = start.Add(c.live + time.Millisecond)
		m.Update(clockMsg(now))
		if f := ansi.Strip(m.View().Content); strings.Contains(f, c.st.Text) {
			t.Errorf("%q (%s) still shown past %v", c.st.Text, c.st.Level, c.live)
		}
	}
}

// The fleet table's own lines are the fleet's: one shows on the table and
// is logged under "fleet".
func TestFleetStatusIsTheFleets(t *testing.T) {
	m := New(Options{Fleet: &FleetOptions{Dirs: []string{t.TempDir()}}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	press(m, "enter")
	if f := footerLine(m); !strings.Contains(f, "no loop to open yet: the scan is still looking") {
		t.Errorf("fleet footer %q", f)
	}
	if e := m.msgs.entries; len(e) != 1 || e[0].loop != fleetLogName || e[0].level != kit.Info {
		t.Errorf("logged %+v, want one info line under %q", e, fleetLogName)
	}
}
