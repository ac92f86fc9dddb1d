package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/textsafe"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
)

// hostile carries a title-setting OSC, a C1 CSI, a C1 ST and bidi
// overrides and isolates: none may reach the terminal raw.
const hostile = "\x1b]0;pwned\x07 \u009b31m \u009c \u202eevil\u202c \u2066iso\u2069 \u200f \x7f"

// unsafeRune is the first rune of s that internal/textsafe forbids raw, or -1.
func unsafeRune(s string) rune {
	for _, r := range s {
		if textsafe.Unsafe(r) {
			return r
		}
	}
	return -1
}

// The window title and the OSC 9 / 777 notifications carry no control or
// bidi character from the file or the path: not the status, not the goal,
// not the stop reason, not the loop's name.
func TestTitleAndNotificationsEscapeEverything(t *testing.T) {
	ev := loadEvent(t, "../testdata/rich.md")
	st := ev.Doc.State
	st.Objective.Goal = "goal " + hostile
	st.Control.Status = model.LoopStatus("running" + hostile)
	m := New(Options{Target: statefile.Target{Path: "../testdata/rich.md", Kind: statefile.KindAoT}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, LoopName: "name " + hostile})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	ev.Facts = model.Derive(st)
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	if title := m.View().WindowTitle; unsafeRune(title) >= 0 || !strings.Contains(title, `\u202eevil`) {
		t.Fatalf("window title %q: %U raw, or the override not shown escaped", title, unsafeRune(title))
	}
	m.Update(tea.BlurMsg{})
	next := loadEvent(t, "../testdata/rich.md")
	next.Doc.State.Control.Status = model.LoopStopped
	next.Doc.State.Control.StopReason = "reason " + hostile
	next.Facts = model.Derive(next.Doc.State)
	raw := rawOf(m.onState(m.cur, next))
	if raw == "" {
		t.Fatal("no notification")
	}
	// The sequences' own framing: BEL, ESC ] 9 ; … BEL, ESC ] 777 ; notify ; … BEL.
	body := strings.TrimPrefix(raw, "\a")
	for _, part := range strings.Split(strings.TrimSuffix(body, "\x07"), "\x07") {
		part = strings.TrimPrefix(strings.TrimPrefix(part, "\x1b]9;"), "\x1b]777;notify;")
		if r := unsafeRune(part); r >= 0 {
			t.Fatalf("notification text %q carries %U raw", part, r)
		}
		if !strings.Contains(part, `\u202eevil`) {
			t.Fatalf("notification text %q: the reason's override is not shown escaped", part)
		}
	}
}

// A path with escape sequences is shown escaped on the screens before any
// state is read (reading, waiting, an odd file), in the message log, and
// in the loop's tab.
func TestPathsAreShownEscaped(t *testing.T) {
	path := t.TempDir() + "/p" + hostile + "/.claude/aot-loop-state.md"
	second := t.TempDir() + "/q" + hostile + "/.claude/aot-loop-state.md"
	m := New(Options{Targets: []statefile.Target{{Path: path, Kind: statefile.KindAoT}, {Path: second, Kind: statefile.KindAoT}},
		NoColor: true, Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: 300, Height: 30})
	check := func(what string) {
		t.Helper()
		out := ansi.Strip(m.render())
		if r := unsafeRune(strings.ReplaceAll(out, "\n", "")); r >= 0 {
			t.Fatalf("%s: %U reached the screen raw:\n%s", what, r, out)
		}
		if !strings.Contains(out, `\x1b]0;pwned\x07`) {
			t.Fatalf("%s: the path is not shown escaped:\n%s", what, out)
		}
	}
	check("reading")
	m.onState(m.cur, statefile.Event{Kind: statefile.EventWaiting, Target: m.cur.target})
	check("waiting")
	m.onState(m.cur, statefile.Event{Kind: statefile.EventError, Target: m.cur.target,
		Err: &statefile.OddFileError{Path: path, What: "a named pipe (FIFO)", Err: statefile.ErrNotRegular}})
	check("a named pipe")
	m.setStatus("about "+path, time.Minute)
	check("the footer")
	m.openMessages()
	check("the message log")
}
