package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
	"github.com/charmbracelet/x/ansi"
)

// walkPlace is somewhere keys land: a view, a dialog, the fleet table, a
// panel, the help screen.
type walkPlace struct {
	name  string
	build func(t *testing.T) *Model
}

// copied is a copy of a fixture in a temporary directory: keys that
// write (a correction, the pause flag) write there.
func copied(t *testing.T, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fixture)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// projectState is a copy of fixture as dir's state file
// (dir/.claude/aot-loop-state.md), where a watcher finds a project's loop.
func projectState(t *testing.T, dir, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// walkModel is loadedModel on a copy of fixture; stale keeps the
// stale-flag question rich.md raises.
func walkModel(t *testing.T, fixture string, w, h int, stale bool) *Model {
	t.Helper()
	return modelOn(t, copied(t, fixture), w, h, stale)
}

// generated is a loop of n generated atoms, in a temporary file.
func generated(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	data := gen.Generate(gen.Options{Atoms: n, Seed: 5, Resolved: 0.6, ORGroups: n / 25, Decompositions: n / 40})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func modelOn(t *testing.T, path string, w, h int, stale bool) *Model {
	t.Helper()
	m := bareModel(t, path, w, h)
	m.Update(m.cur.envelope(stateMsg{ev: loadEvent(t, path)}))
	if isStale(m.cur.topDialog()) && !stale {
		press(m, "n")
	}
	clearStatus(m)
	return m
}

// bareModel is the TUI on path before anything is read.
func bareModel(t *testing.T, path string, w, h int) *Model {
	t.Helper()
	m := New(Options{Target: statefile.Target{Path: path, Kind: kindFor(path), Exists: true}, NoColor: true,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, SoloPause: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	closeSessions(t, m)
	return m
}

// closeSessions waits, when the test ends, for the file work keys have
// started (a correction applied, a flag cleared) before the temporary
// directory goes.
func closeSessions(t *testing.T, m *Model) {
	t.Cleanup(func() {
		for _, l := range m.loops {
			l.session.Close()
		}
	})
}

// versions is rich.md read twice, the second time at iteration 8, with
// the older version on screen.
func versions(t *testing.T) *Model {
	path := copied(t, "rich.md")
	m := bareModel(t, path, 100, 16)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range [][]byte{data, []byte(strings.Replace(string(data), "iteration: 7", "iteration: 8", 1))} {
		doc, err := statefile.Parse(d)
		if err != nil {
			t.Fatal(err)
		}
		m.Update(m.cur.envelope(stateMsg{ev: statefile.Event{Kind: statefile.EventLoaded, Target: m.cur.target, Doc: doc,
			Facts: model.Derive(doc.State), Data: d, At: fixedNow.Add(time.Duration(i) * time.Second)}}))
	}
	for _, l := range m.loops {
		l.dialogs = nil // rich.md has redirect_requested: true
	}
	m.refocus()
	pressDrawn(m, ",", "2", "j")
	if !m.cur.hist.inPast() {
		t.Fatal(", should show the older version")
	}
	clearStatus(m)
	return m
}

// at builds a model on fixture and presses keys.
func at(fixture string, w, h int, keys ...string) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		m := walkModel(t, fixture, w, h, false)
		pressDrawn(m, keys...)
		clearStatus(m)
		return m
	}
}

// pressDrawn presses keys with a frame drawn after each, as a running
// program draws: what a key scrolls knows its size from the last frame.
func pressDrawn(m *Model, keys ...string) {
	for _, k := range keys {
		m.Update(pressOf(k))
		screen(m)
	}
}

// then runs more on what build builds.
func then(build func(t *testing.T) *Model, more func(m *Model)) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		m := build(t)
		more(m)
		m.Update(tea.WindowSizeMsg{Width: m.width, Height: m.height}) // a dialog pushed: lay out again
		screen(m)
		clearStatus(m)
		return m
	}
}

func walkPlaces() []walkPlace {
	list := func(m *Model) {
		if m.cur.graph.isLayered() {
			press(m, "v")
		}
	}
	drawing := func(m *Model) {
		if !m.cur.graph.isLayered() {
			press(m, "v")
		}
	}
	// A real preview of a change of constraints, planned on the copy.
	planned := func(m *Model, kind string, req model.Request) {
		l := m.cur
		// The plan's job runs to its end (it reads the file); the pause's
		// timers do not run here.
		a := redirect.Plan(m.flowLoop(l), kind, req, "")
		job := a.Job
		a.Job = nil
		m.openFlow(l, a)
		m.Update(m.flowJob(l, job)())
		if b := flowTop(l); b == nil || b.Place() != redirect.InPreview {
			panic(fmt.Sprintf("no preview: %T %v, status %q", l.topDialog(), flowTop(l).Place(), m.screenStatus().Text))
		}
	}
	preview := func(m *Model) {
		n := 31
		planned(m, redirect.Constraints, model.ChangeConstraints{MaxIterations: &n})
	}
	// Small screens: what the move keys scroll is longer than its pane.
	graph := at("rich.md", 100, 14, "j", "j")
	return []walkPlace{
		{"graph list", then(graph, list)},
		{"graph drawing", func(t *testing.T) *Model {
			m := modelOn(t, generated(t, 60), 120, 14, false)
			drawing(m)
			if !m.cur.graph.isLayered() {
				t.Fatal("no room for the drawing")
			}
			pressDrawn(m, "j", "j")
			clearStatus(m)
			return m
		}},
		{"graph list, narrow", then(at("rich.md", 90, 24, "j", "j"), list)},
		{"details over the graph", then(at("rich.md", 90, 10, "j", "j"), func(m *Model) { list(m); press(m, "enter") })},
		{"bindings", at("rich.md", 100, 24, "2", "j")},
		{"trail", at("rich.md", 100, 24, "3", "j")},
		{"corrections", at("rich.md", 100, 24, "4", "j")},
		{"objective", at("rich.md", 100, 16, "5", "j")},
		{"prompt", at("rich.md", 100, 16, "6", "j")},
		{"phase loop", at("seed-phase-loop.json", 100, 16, "j")},
		{"two loops", func(t *testing.T) *Model { return walkTwoLoops(t) }},
		{"message log", then(graph, func(m *Model) {
			for i := range 40 {
				m.logMessage(m.logName(m.cur), kit.Info, fmt.Sprint("message ", i))
			}
			press(m, "M")
		})},
		{"help", at("rich.md", 100, 16, "?", "j")},
		{"problems", func(t *testing.T) *Model {
			m := modelOn(t, manyProblems(t), 100, 16, false)
			pressDrawn(m, "!", "j")
			if m.panel.kind != panelProblems {
				t.Fatal("! should open the problems")
			}
			clearStatus(m)
			return m
		}},
		{"command palette", inPaletteAt(at("rich.md", 100, 16, ":"))},
		{"command palette over the trail", inPaletteAt(at("rich.md", 100, 24, "3", "ctrl+p", "down"))},
		{"redirect menu", at("rich.md", 100, 30, "r")},
		{"preview", then(at("rich.md", 100, 12, "j", "j"), preview)},
		{"busy", then(at("rich.md", 100, 12, "j", "j"), func(m *Model) {
			preview(m)
			press(m, "enter") // apply: the busy box stands while the write (not run here) is under way
		})},
		{"stale-flag question", func(t *testing.T) *Model { return staleModel(t) }},
		{"verify confirmation", func(t *testing.T) *Model {
			var checklist strings.Builder
			for i := range 20 {
				fmt.Fprintf(&checklist, "      - item: \"check %d\"\n        check:\n          type: command\n          value: \"true %d\"\n", i, i)
			}
			path := filepath.Join(t.TempDir(), "aot-loop-state.md")
			if err := os.WriteFile(path, []byte(verifyState(checklist.String())), 0o644); err != nil {
				t.Fatal(err)
			}
			m := modelOn(t, path, 100, 20, false)
			pressDrawn(m, "V")
			clearStatus(m)
			return m
		}},
		{"interrupt question", then(at("rich.md", 100, 16, "j", "j"), func(m *Model) {
			planned(m, redirect.DeleteAtom, model.DeleteAtom{ID: "A4"}) // A4 is in progress
			press(m, "enter")
			if flowTop(m.cur).Place() != redirect.InAsk {
				panic("apply on a correction that interrupts a worker did not ask first")
			}
		})},
		// The run's command is not run here: the progress box waits.
		{"verify progress", at("rich.md", 100, 16, "5", "V", "enter")},
		{"loop not read yet", func(t *testing.T) *Model { return bareModel(t, copied(t, "rich.md"), 100, 16) }},
		{"the past", func(t *testing.T) *Model { return versions(t) }},
		{"fleet table", func(t *testing.T) *Model {
			m := walkFleet(t, 24)
			pressDrawn(m, "j")
			return m
		}},
		{"loop opened from the fleet", func(t *testing.T) *Model {
			m := walkFleet(t, 10)
			for _, r := range m.fleet.Visible() {
				if r.Name == "auth" { // the row on a copy of seed-complete.md
					m.fleet.Select(r.Path)
				}
			}
			pressDrawn(m, "enter")
			m.Update(m.cur.envelope(stateMsg{ev: loadEvent(t, m.cur.target.Path)}))
			pressDrawn(m, "j")
			clearStatus(m)
			return m
		}},
	}
}

// inPaletteAt is what build builds, which must show the command palette.
func inPaletteAt(build func(t *testing.T) *Model) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		m := build(t)
		if !m.place().Has(inPalette) {
			t.Fatalf("the command palette is not open: %s", where(m))
		}
		return m
	}
}

// promptOf is what is typed into the prompt of m's place, where keys no
// binding claims are typed (false: a place without one).
func promptOf(m *Model) (string, bool) {
	if b, ok := m.cur.topDialog().(*paletteBox); ok {
		return b.p.Typed(), true
	}
	return "", false
}

// walkFleet is the fleet table, its first row (the one that opens) on a
// copy of seed-complete.md.
func walkFleet(t *testing.T, h int) *Model {
	rows := fleetRows()
	rows[0].Path = copied(t, "seed-complete.md")
	m := fleetModel(t, 100, h, rows)
	closeSessions(t, m)
	return m
}

// walkTwoLoops watches rich.md and seed-complete.md.
func walkTwoLoops(t *testing.T) *Model {
	var targets []statefile.Target
	for _, f := range []string{"rich.md", "seed-complete.md"} {
		targets = append(targets, statefile.Target{Path: copied(t, f), Kind: statefile.KindAoT, Exists: true})
	}
	m := New(Options{Targets: targets, NoColor: true, Now: func() time.Time { return fixedNow }, SyncLayout: true, SoloPause: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 14})
	closeSessions(t, m)
	for i, tg := range targets {
		m.Update(m.loops[i].envelope(stateMsg{ev: loadEvent(t, tg.Path)}))
	}
	for _, l := range m.loops {
		l.dialogs = nil // rich.md has redirect_requested: true
	}
	m.refocus()
	pressDrawn(m, "j", "j")
	for _, l := range m.loops {
		l.status = statusLine{}
	}
	return m
}

// staleModel shows the question about rich.md's redirect_requested.
func staleModel(t *testing.T) *Model {
	m := walkModel(t, "rich.md", 100, 24, true)
	if !isStale(m.cur.topDialog()) {
		t.Fatal("rich.md should raise the stale-flag question")
	}
	return m
}

// walkKeys are the keys tried in every place: every printable character
// and the named keys a person can press.
func walkKeys() []string {
	var out []string
	for c := '!'; c <= '~'; c++ {
		out = append(out, string(c))
	}
	return append(out, "enter", "esc", "tab", "shift+tab", "space", "backspace", "delete", "up", "down", "left", "right",
		"pgup", "pgdown", "home", "end", "shift+up", "shift+down", "ctrl+u", "ctrl+d", "ctrl+c")
}

// pressOf is the key press whose String() is s.
func pressOf(s string) tea.KeyPressMsg {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
		"right": tea.KeyRight, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd}
	var mod tea.KeyMod
	rest := s
	for p, md := range map[string]tea.KeyMod{"ctrl+": tea.ModCtrl, "shift+": tea.ModShift} {
		if r, ok := strings.CutPrefix(rest, p); ok && r != "" {
			rest, mod = r, mod|md
		}
	}
	if c, ok := named[rest]; ok {
		msg := tea.KeyPressMsg{Code: c, Mod: mod}
		if c == tea.KeySpace {
			msg.Text = " "
		}
		return msg
	}
	r := []rune(rest)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: rest}
}

// fingerprint is what a key press can change: the screen, the focus, the
// footer, and the state behind them that the screen may not show.
func fingerprint(m *Model) string {
	l := onScreen(m)
	g := &l.graph
	fleet := ""
	if f := m.fleet; f != nil {
		r, _ := f.Selected()
		fleet = fmt.Sprintf("%v|%q|%v", m.fleetShown(), r.Path, f.Filtering())
	}
	return fleet + fmt.Sprintf("%s\n%v|%q|%v|%v|%q|%v|%v|%v|%v|%v|%d|%v|%q|%d|%d",
		screen(m), m.focus, m.screenStatus().Text, l.view, l.showDetails, g.sel, g.follow, g.lay.opt, g.lay.hideMinimap,
		g.lay.prefer, g.lay.chosen, len(l.dialogs), m.panel.kind, l.name, l.details.top, g.xoff)
}

// where is the place m is in: what has the focus, which view, dialog or
// panel.
func where(m *Model) string {
	l := onScreen(m)
	return fmt.Sprintf("%v|%v|%v|%T|%v|%v|%v|%v", m.focus, l.view, l.showDetails, l.topDialog(), m.panel.kind,
		l.graph.isLayered(), m.fleetShown(), l.hist.inPast())
}

// onScreen is the loop on screen; a blank one on the fleet table before
// a loop is opened from it.
func onScreen(m *Model) *loop {
	if m.cur == nil {
		return &loop{}
	}
	return m.cur
}

// allBindings are every binding of k, by field name.
func allBindings(k KeyMap) map[string]key.Binding {
	out := map[string]key.Binding{}
	v := reflect.ValueOf(k)
	for i := range v.NumField() {
		f := v.Field(i)
		switch b := f.Interface().(type) {
		case key.Binding:
			out[v.Type().Field(i).Name] = b
		default:
			if f.Kind() == reflect.Array {
				for j := range f.Len() {
					if b, ok := f.Index(j).Interface().(key.Binding); ok {
						out[fmt.Sprintf("%s%d", v.Type().Field(i).Name, j+1)] = b
					}
				}
			}
		}
	}
	return out
}

// helpLabels are the key labels the help screen of m's place lists (on
// the help screen itself: its closing line).
func helpLabels(m *Model) map[string]bool {
	out := map[string]bool{}
	if m.focus == focusHelp {
		screen(m)
		lines := m.helpText.lines
		n := len(wrap(m.helpScreenHint(), max(20, m.width-1))) // the closing lines
		for _, f := range strings.Fields(ansi.Strip(strings.Join(lines[len(lines)-n:], " "))) {
			out[f] = true
		}
		return out
	}
	press(m, "?")
	screen(m) // draws the help into helpText
	if m.focus != focusHelp {
		return out
	}
	for _, line := range m.helpText.lines {
		r := []rune(ansi.Strip(line))
		// Rows are "  label      description", in columns of 36.
		for c := 0; c < len(r); c += 36 {
			cell := string(r[c:min(len(r), c+36)])
			if !strings.HasPrefix(cell, "  ") || strings.HasPrefix(cell, "   ") {
				continue
			}
			if f := strings.Fields(cell); len(f) >= 2 {
				out[f[0]] = true
			}
		}
		// The reasons of greyed keys: "greyed d b: why".
		if rest, ok := strings.CutPrefix(string(r), "greyed "); ok {
			keys, _, _ := strings.Cut(rest, ":")
			for _, f := range strings.Fields(keys) {
				out[f] = true
			}
		}
	}
	return out
}

// TestEveryKeyThatActsIsInHelp walks every place keys land; for each key
// that does something there (changes the screen or the model, or returns
// a command), ? must list it; and each key ? lists must do something
// there, or say why it is disabled.
func TestEveryKeyThatActsIsInHelp(t *testing.T) {
	for _, p := range walkPlaces() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			labels := helpLabels(p.build(t))
			k := p.build(t).keys
			bindings := allBindings(k)
			listed := func(s string) bool {
				msg := pressOf(s)
				for _, b := range bindings {
					if key.Matches(msg, b) && labels[b.Help().Key] {
						return true
					}
				}
				return false
			}
			actsFrom := func(s string, first ...string) bool {
				m := p.build(t)
				start := where(m)
				pressDrawn(m, first...)
				if where(m) != start {
					return false // first left the place
				}
				before := fingerprint(m)
				_, cmd := m.Update(pressOf(s))
				return cmd != nil || fingerprint(m) != before
			}
			acts := func(s string) bool { return actsFrom(s) }
			// A key may do nothing at one end of what it moves through
			// (k at the top): it must act after one other listed key that
			// stays in the place.
			actsSomewhere := func(s string) bool {
				if actsFrom(s) {
					return true
				}
				for label := range labels {
					for _, b := range bindings {
						if b.Help().Key == label && len(b.Keys()) > 0 && actsFrom(s, b.Keys()[0]) {
							return true
						}
					}
				}
				return false
			}
			// In a place with a prompt, a key that no binding claims is
			// typed (the place's help says so): it acts by changing
			// what the prompt holds.
			typed := func(s string) bool {
				m := p.build(t)
				before, ok := promptOf(m)
				if !ok {
					return false
				}
				m.Update(pressOf(s))
				after, _ := promptOf(m)
				return after != before
			}
			var unlisted, idle []string
			for _, s := range walkKeys() {
				if acts(s) && !listed(s) && !typed(s) {
					unlisted = append(unlisted, s)
				}
			}
			for label := range labels {
				var first string
				for _, b := range bindings {
					if b.Help().Key == label && len(b.Keys()) > 0 {
						first = b.Keys()[0]
					}
				}
				if first != "" && !actsSomewhere(first) {
					idle = append(idle, label)
				}
			}
			sort.Strings(unlisted)
			sort.Strings(idle)
			if len(unlisted) > 0 {
				t.Errorf("keys that act here but ? does not list: %s", strings.Join(unlisted, " "))
			}
			if len(idle) > 0 {
				t.Errorf("keys ? lists that do nothing here and give no reason: %s", strings.Join(idle, " "))
			}
		})
	}
}

// No key acts on what is not on screen: from the trail, d (delete the
// graph's selected atom) says where it works instead of opening a form
// on a selection the person cannot see, and a opens an empty form.
func TestKeysActOnlyOnWhatIsOnScreen(t *testing.T) {
	m := walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, "j", "j", "3", "d")
	if d := m.cur.topDialog(); d != nil {
		t.Fatalf("d in the trail opened %T on the graph's hidden selection", d)
	}
	if !strings.Contains(m.screenStatus().Text, "selected in the graph") {
		t.Fatalf("d in the trail: status %q", m.screenStatus().Text)
	}
	if sel := m.flowLoop(m.cur).Selected; sel != "" {
		t.Fatalf("from the trail the redirect is given the graph's hidden selection %s", sel)
	}
	pressDrawn(m, "a")
	if b := flowTop(m.cur); b == nil || b.Place() != redirect.InForm {
		t.Fatalf("a in the trail opened %T", m.cur.topDialog())
	}

	// In the graph the selection is on screen: a starts from it (how the
	// form starts from Selected: ui/redirect's tests).
	m = walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, "j", "j")
	if sel := m.flowLoop(m.cur).Selected; sel == "" || sel != m.cur.graph.sel {
		t.Fatalf("the graph's selection %s is not given to the redirect: %q", m.cur.graph.sel, sel)
	}
}

// Help says what h and l do where they are pressed: pan the list, move
// the selection in the drawing.
func TestHelpSaysWhatHAndLDoHere(t *testing.T) {
	list := walkModel(t, "rich.md", 100, 40, false)
	if list.cur.graph.isLayered() {
		pressDrawn(list, "v")
	}
	drawing := walkModel(t, "rich.md", 160, 40, false)
	if !drawing.cur.graph.isLayered() {
		pressDrawn(drawing, "v")
	}
	for _, c := range []struct {
		m    *Model
		want string
		not  string
	}{{list, "pan the list left", ""}, {drawing, "←/h        left", "pans the list"}} {
		pressDrawn(c.m, "?")
		help := ansi.Strip(strings.Join(c.m.helpText.lines, "\n"))
		if !strings.Contains(help, c.want) || c.not != "" && strings.Contains(help, c.not) {
			t.Errorf("help (drawing: %v) should say %q and not %q:\n%s", c.m.cur.graph.isLayered(), c.want, c.not, help)
		}
	}
}

// The keys that scroll the details pane are the ones a keys file binds.
func TestDetailsScrollKeysAreRebindable(t *testing.T) {
	k, err := LoadKeyMap(writeKeys(t, "details_down: X\ndetails_up: P\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	path := copied(t, "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true}, NoColor: true, Keys: &k,
		Now: func() time.Time { return fixedNow }, SyncLayout: true, SoloPause: true})
	closeSessions(t, m)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 14})
	m.Update(m.cur.envelope(stateMsg{ev: loadEvent(t, path)}))
	if isStale(m.cur.topDialog()) {
		pressDrawn(m, "n")
	}
	pressDrawn(m, "j", "j", "J")
	if m.cur.details.top != 0 {
		t.Fatal("J still scrolls the details after details_down was bound to N")
	}
	pressDrawn(m, "X")
	if m.cur.details.top != 1 {
		t.Fatalf("X (details_down) did not scroll the details: top %d", m.cur.details.top)
	}
}

// clearStatus clears every status line, the loops' and the fleet table's.
func clearStatus(m *Model) {
	for _, l := range m.loops {
		l.status = statusLine{}
	}
	if m.fleet != nil {
		m.fleet.SetStatus(kit.Shown{})
	}
}
