package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

var fixedNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// loadedModel builds a model on a fixture, sized w×h, without a program:
// the state arrives as the watcher would deliver it.
func loadedModel(t testing.TB, fixture string, w, h int) *Model {
	t.Helper()
	path := filepath.Join("..", "testdata", fixture)
	m := New(Options{Target: statefile.Target{Path: path, Kind: kindFor(path), Exists: true}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, SoloPause: true}) // no commands run here: no looks at the pause
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	if isStale(m.cur.topDialog()) {
		press(m, "n") // rich.md has redirect_requested: true
		m.cur.status = statusLine{}
	}
	return m
}

func kindFor(path string) statefile.Kind {
	if strings.HasSuffix(path, ".json") {
		return statefile.KindPhaseLoop
	}
	return statefile.KindAoT
}

func loadEvent(t testing.TB, path string) statefile.Event {
	t.Helper()
	ev := statefile.Event{Kind: statefile.EventLoaded, Target: statefile.Target{Path: path, Kind: kindFor(path)}, At: fixedNow.Add(-12 * time.Second)}
	if kindFor(path) == statefile.KindPhaseLoop {
		p, err := statefile.LoadPhaseLoop(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		ev.Phase = p
		return ev
	}
	doc, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	ev.Doc, ev.Facts = doc, model.Derive(doc.State)
	return ev
}

func keyMsg(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(keyMsg(k))
	}
}

// screen is what a person would see, without colours.
func screen(m *Model) string { return ansi.Strip(m.render()) }

// checkFits asserts the screen has exactly h lines, none wider than w, and
// no raw control character from the file reached it.
func checkFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, got, w, l)
		}
	}
	for _, c := range out {
		if c == 0x1b || c == 0x07 || (c < 0x20 && c != '\n') {
			t.Fatalf("a raw control character %#x reached the screen", c)
		}
	}
}

func TestViewsGolden(t *testing.T) {
	sizes := []struct{ w, h int }{{60, 20}, {100, 30}, {160, 40}}
	views := []struct {
		name string
		keys []string
	}{
		{"graph", nil},
		{"graph-selected", []string{"g", "j", "j", "j", "j", "j"}},
		{"details", []string{"g", "j", "j", "j", "j", "j", "enter"}},
		{"bindings", []string{"2"}},
		{"trail", []string{"3"}},
		{"corrections", []string{"4"}},
		{"objective", []string{"5"}},
		{"prompt", []string{"6"}},
		{"help", []string{"?"}},
		{"filter", []string{"/", "a", "u", "d", "i", "t", "enter"}},
	}
	for _, fx := range []string{"rich.md", "seed-complete.md"} {
		for _, v := range views {
			for _, sz := range sizes {
				name := fmt.Sprintf("%s/%s/%dx%d", strings.TrimSuffix(fx, ".md"), v.name, sz.w, sz.h)
				t.Run(name, func(t *testing.T) {
					m := loadedModel(t, fx, sz.w, sz.h)
					press(m, v.keys...)
					out := screen(m)
					checkFits(t, out, sz.w, sz.h)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

func TestPhaseLoopGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{60, 20}, {100, 30}, {160, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m := loadedModel(t, "seed-phase-loop.json", sz.w, sz.h)
			out := screen(m)
			checkFits(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

func TestEscapeSequencesNeverEmitted(t *testing.T) {
	m := loadedModel(t, "rich.md", 120, 40)
	m.styles = NewStyles(true, false) // with colours: the styling itself is allowed
	m.gstyler = graphStyler(m.styles)
	press(m, ":", "A", "6", "enter")
	raw := m.render()
	for _, bad := range []string{"\x1b]0;pwned", "\x07", "\x1b[31mred"} {
		if strings.Contains(raw, bad) {
			t.Fatalf("the file's escape sequence %q reached the terminal", bad)
		}
	}
	if !strings.Contains(ansi.Strip(raw), `\x1b]0;pwned`) {
		t.Fatalf("the escape sequence should be shown escaped; screen:\n%s", ansi.Strip(raw))
	}
	v := m.View()
	if strings.ContainsAny(v.WindowTitle, "\x1b\x07") {
		t.Fatalf("window title carries control characters: %q", v.WindowTitle)
	}
}

func TestSelectionNavigation(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	if m.cur.graph.sel != "A4" {
		t.Fatalf("initial selection %q, want the in-progress A4", m.cur.graph.sel)
	}
	press(m, "g")
	if m.cur.graph.sel != "A1" {
		t.Fatalf("after g: %q", m.cur.graph.sel)
	}
	press(m, "j")
	if m.cur.graph.sel != "A2" {
		t.Fatalf("after j: %q", m.cur.graph.sel)
	}
	press(m, "]")
	if m.cur.graph.sel != "A7" {
		t.Fatalf("after ] from A2: %q (A7 depends on A2)", m.cur.graph.sel)
	}
	press(m, "[")
	if got := m.cur.graph.sel; got != "A5" && got != "A2" {
		t.Fatalf("after [ from A7: %q, want one of its dependencies", got)
	}
	press(m, "G")
	if m.cur.graph.sel != "A8" {
		t.Fatalf("after G: %q", m.cur.graph.sel)
	}
	press(m, "g")
	if m.cur.graph.sel != "A1" {
		t.Fatalf("after g: %q", m.cur.graph.sel)
	}
	press(m, "f")
	if m.cur.graph.sel != "A4" || !m.cur.graph.follow {
		t.Fatalf("follow should select the in-progress atom A4, got %q", m.cur.graph.sel)
	}
	press(m, "j")
	if m.cur.graph.follow {
		t.Fatal("moving by hand should turn follow off")
	}
}

func TestFollowTracksNewState(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	press(m, "f")
	ev := loadEvent(t, filepath.Join("..", "testdata", "rich.md"))
	st := ev.Doc.State
	st.Atoms[3].Status = model.StatusResolved   // A4
	st.Atoms[6].Status = model.StatusInProgress // A7
	ev.Facts = model.Derive(st)
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	if m.cur.graph.sel != "A7" {
		t.Fatalf("follow should move to A7, got %q", m.cur.graph.sel)
	}
}

func TestFilterByStatusAndText(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	press(m, "/")
	for _, r := range "resolved" {
		m.Update(keyMsg(string(r)))
	}
	press(m, "enter")
	out := screen(m)
	if !strings.Contains(out, "A1") || !strings.Contains(out, "A3") || strings.Contains(out, "A7 ") {
		t.Fatalf("filter resolved:\n%s", out)
	}
	press(m, "esc")
	if m.cur.filters[viewGraph] != "" || !strings.Contains(screen(m), "A7") {
		t.Fatal("esc should clear the filter")
	}
}

func TestReadOnlyGreysWriteKeys(t *testing.T) {
	path := filepath.Join("..", "testdata", "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true, ReadOnly: true,
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	press(m, "a")
	if !strings.Contains(screen(m), "read-only") {
		t.Fatalf("a write key in read-only mode should say so:\n%s", screen(m))
	}
	press(m, "?")
	screen(m)
	if help := ansi.Strip(strings.Join(m.helpText.lines, "\n")); !strings.Contains(help, "greyed r a d o c e b S I u: read-only (--read-only): corrections are disabled") {
		t.Fatalf("help should mark the write keys read-only:\n%s", help)
	}
}

func TestBannerKeepsLastGoodState(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventInvalid, Err: &statefile.Error{Path: "x", Line: 12, Msg: "YAML syntax error: oops", Hint: "fix the YAML syntax on that line"}}}))
	out := screen(m)
	if !strings.Contains(out, "line 12") || !strings.Contains(out, "last good state") || !strings.Contains(out, "Define the billing schema") {
		t.Fatalf("invalid banner:\n%s", out)
	}
	m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventRemoved}}))
	if out := screen(m); !strings.Contains(out, "was removed") || !strings.Contains(out, "Define the billing schema") {
		t.Fatalf("removed banner:\n%s", out)
	}
	checkFits(t, screen(m), 100, 30)
}

func TestWaitingMessage(t *testing.T) {
	m := New(Options{Target: statefile.Target{Path: ".claude/aot-loop-state.md", Kind: statefile.KindAoT}, NoColor: true,
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventWaiting}}))
	if out := screen(m); !strings.Contains(out, "waiting for .claude/aot-loop-state.md — start the loop with /align-goal; q quits") {
		t.Fatalf("waiting:\n%s", out)
	}
}

// TestWaitingMessageNamesTheQuitKeyInEffect: a keys file that moves quit
// elsewhere changes what the waiting screen says.
func TestWaitingMessageNamesTheQuitKeyInEffect(t *testing.T) {
	k := DefaultKeyMap()
	k.Quit = key.NewBinding(key.WithKeys("ctrl+q"), key.WithHelp("ctrl+q", "quit"))
	m := New(Options{Target: statefile.Target{Path: "foo/.claude/aot-loop-state.md", Kind: statefile.KindAoT}, NoColor: true,
		Keys: &k, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventWaiting}}))
	if out := screen(m); !strings.Contains(out, "waiting for foo/.claude/aot-loop-state.md — start the loop with /align-goal; ctrl+q quits") {
		t.Fatalf("waiting:\n%s", out)
	}
}

func TestResizeNeverOverflows(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	for _, v := range []string{"1", "2", "3", "4", "5", "6"} {
		press(m, v)
		for _, sz := range [][2]int{{60, 20}, {61, 21}, {99, 25}, {100, 30}, {200, 60}, {40, 12}} {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkFits(t, screen(m), sz[0], sz[1])
		}
	}
}

// A redirect dialog sits over the view, which stays in sight (dimmed)
// around it; nothing drawn crosses the pane's edge, and even in a tiny pane
// the dialog is a closed box.
func TestDialogOverTheView(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{30, 8}, {40, 9}, {60, 12}, {60, 20}, {100, 30}, {160, 40}} {
		m := loadedModel(t, "rich.md", sz.w, sz.h)
		press(m, "c")
		out := screen(m)
		checkFits(t, out, sz.w, sz.h)
		if strings.Count(out, "╭") != strings.Count(out, "╰") {
			t.Errorf("%dx%d: the dialog box is not closed:\n%s", sz.w, sz.h, out)
		}
		if sz.h < 20 {
			continue
		}
		if !strings.Contains(out, "Change constraints") {
			t.Fatalf("%dx%d: no dialog:\n%s", sz.w, sz.h, out)
		}
		w := kit.DialogWidth(sz.w)
		left := (sz.w - w) / 2
		below := false
		rows := strings.Split(out, "\n")
		for _, l := range rows[4 : len(rows)-1] { // the body: below the tabs, above the footer
			if b := ansi.Cut(l, left, left+1); b != "╭" && b != "│" && b != "╰" {
				below = below || strings.TrimSpace(l) != ""
				continue // below the dialog
			}
			// Beside the box nothing: the view's lines cut at its edges
			// left fragments of words and boxes there.
			if side := ansi.Cut(l, 0, left) + ansi.Cut(l, left+w, sz.w); strings.TrimSpace(side) != "" {
				t.Fatalf("%dx%d: fragments of the view beside the dialog: %q", sz.w, sz.h, l)
			}
		}
		if sz.w >= 100 && !below {
			t.Fatalf("%dx%d: the view is not visible below the dialog:\n%s", sz.w, sz.h, out)
		}
	}
}

// In the objective and prompt views, / keeps the lines that contain the
// text; esc brings the whole text back.
func TestFilterInTextViews(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	for _, tt := range []struct{ view, text string }{{"5", "docs"}, {"6", "finance"}} {
		press(m, tt.view, "/")
		press(m, strings.Split(tt.text, "")...)
		press(m, "enter")
		body := strings.Split(screen(m), "\n")
		body = body[4 : len(body)-1]
		n := 0
		for _, l := range body {
			if strings.TrimSpace(l) == "" {
				continue
			}
			n++
			if !strings.Contains(strings.ToLower(l), tt.text) {
				t.Fatalf("view %s, filter %q shows %q", tt.view, tt.text, l)
			}
		}
		if n == 0 {
			t.Fatalf("view %s: filter %q shows nothing:\n%s", tt.view, tt.text, screen(m))
		}
		press(m, "esc")
		others := 0
		for _, l := range strings.Split(screen(m), "\n")[4:] {
			if strings.TrimSpace(l) != "" && !strings.Contains(strings.ToLower(l), tt.text) {
				others++
			}
		}
		if m.cur.filters[m.cur.view] != "" || others < 3 {
			t.Fatalf("esc should bring the whole text back:\n%s", screen(m))
		}
	}
	press(m, "/", "z", "q", "x", "enter")
	if out := screen(m); !strings.Contains(out, `no line contains "zqx"`) {
		t.Fatalf("no match should say so:\n%s", out)
	}
}

// A file problem over the last good state wraps, so what to do about it
// shows at every width.
func TestBannerWrapsToTheHint(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{60, 20}, {100, 30}} {
		m := loadedModel(t, "rich.md", sz.w, sz.h)
		err := &statefile.Error{Path: "rich.md", Line: 57, Msg: "YAML syntax error: did not find expected ',' or ']'",
			Hint: "fix the YAML syntax on that line"}
		m.Update(m.loops[0].envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventInvalid, Err: err}}))
		out := screen(m)
		checkFits(t, out, sz.w, sz.h)
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "fix the YAML syntax on that line") || !strings.Contains(flat, "line 57") {
			t.Fatalf("%dx%d: the banner lost its hint:\n%s", sz.w, sz.h, out)
		}
	}
}

// Keys that cannot act say why instead of doing nothing.
func TestKeysThatCannotActSaySo(t *testing.T) {
	p := loadedModel(t, "seed-phase-loop.json", 100, 30)
	for _, k := range []string{"a", "r", "S", "u"} {
		p.cur.status = statusLine{}
		press(p, k)
		if !strings.Contains(p.cur.status.Text, "read-only") {
			t.Errorf("%s on a phase loop: status %q", k, p.cur.status.Text)
		}
	}
	m := loadedModel(t, "rich.md", 100, 30) // the graph pane is 58 columns wide beside the details
	press(m, "m", "m")
	if !m.cur.graph.isLayered() && !strings.Contains(m.cur.status.Text, "graph drawing (v)") {
		t.Errorf("m over the list: status %q", m.cur.status.Text)
	}
	press(m, "v", "m", "m")
	if m.cur.graph.isLayered() && !strings.Contains(m.cur.status.Text, "at least 60×14") {
		t.Errorf("m in a small drawing: status %q", m.cur.status.Text)
	}
}

// q quits from the stale-flag question too (it used to take only y or n).
func TestQuitFromTheStaleFlagQuestion(t *testing.T) {
	path := filepath.Join("..", "testdata", "rich.md") // redirect_requested: true
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, SoloPause: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	if !isStale(m.cur.topDialog()) {
		t.Fatal("rich.md should raise the stale-flag question")
	}
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q did nothing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q should quit")
	}
}

func isStale(d dialog) bool {
	f, ok := d.(*flowBox)
	return ok && f.b.Place() == redirect.InStaleFlag
}

// formOpen reports whether the top box of the loop on screen is the form
// of kind.
func formOpen(m *Model, kind string) bool {
	f, ok := flowTop(m.cur).(interface{ Kind() string })
	return ok && flowTop(m.cur).Place() == redirect.InForm && f.Kind() == kind
}
