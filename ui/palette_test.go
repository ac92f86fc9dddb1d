package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/palette"
	"github.com/aot-loop/aot-tui/ui/redirect"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// typeIn types text into what has the keys, a key press a character.
func typeIn(m *Model, text string) {
	for _, r := range text {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// openedPalette is the command palette on screen.
func openedPalette(t *testing.T, m *Model) *paletteBox {
	t.Helper()
	b, ok := m.cur.topDialog().(*paletteBox)
	if !ok {
		t.Fatalf("the command palette is not open: %s", where(m))
	}
	return b
}

// Wherever the palette opens, it lists every binding of keyTable that
// applies there (but itself), with its keys in effect, its help there and
// its disabled reason there — and nothing else: it is read from the key
// table, so a binding added to the table is listed without a word more.
func TestPaletteListsEveryActionOfTheKeyTable(t *testing.T) {
	opened := 0
	for _, p := range walkPlaces() {
		t.Run(p.name, func(t *testing.T) {
			m := p.build(t)
			from := m.place()
			if !bindingNamed("palette").Applies(from) {
				return
			}
			opened++
			pressDrawn(m, ":")
			b := openedPalette(t, m)
			if b.from != from {
				t.Fatalf("the palette was opened over %b, it says %b", from, b.from)
			}
			h := here{m: m, l: m.cur, p: from}
			want := map[string]palette.Action{}
			for i := range keyTable {
				kb := &keyTable[i]
				if !kb.Applies(from) || kb.Name == "palette" {
					continue
				}
				g, help := kb.HelpIn(from)
				want[kb.Name] = palette.Action{Name: kb.Name, Keys: kb.keys(&m.keys).Help().Key, Help: help, Group: g, Why: kb.Why(h)}
			}
			got := map[string]palette.Action{}
			for _, it := range b.p.Items() {
				if it.Atom != nil {
					t.Fatalf("with nothing typed the palette lists atom %s", it.Atom.ID)
				}
				got[it.Action.Name] = *it.Action
			}
			for name, a := range want {
				if g, ok := got[name]; !ok {
					t.Errorf("the palette does not list %s (%s), which applies here", name, a.Help)
				} else if g != a {
					t.Errorf("the palette lists %s as %+v, the key table says %+v", name, g, a)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("the palette lists %s, which does not apply here", name)
				}
			}
		})
	}
	if opened < 10 {
		t.Fatalf("the palette opened in %d places", opened)
	}
}

// An action chosen in the palette runs through its binding at the place
// the palette was opened over, as its key there would.
func TestPaletteRunsTheActionWhereItWasOpened(t *testing.T) {
	m := walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, "3", ":")
	typeIn(m, "help")
	pressDrawn(m, "enter")
	if m.focus != focusHelp || !m.helpOf.Has(inTrail) {
		t.Fatalf("help from the palette over the trail: focus %v, help of %b", m.focus, m.helpOf)
	}
	if !strings.Contains(screen(m), "help — Trail") {
		t.Fatalf("the help is not the trail's:\n%s", screen(m))
	}
	pressDrawn(m, "esc")
	if m.focus != focusView || m.cur.topDialog() != nil {
		t.Fatalf("closing that help went back to %s", where(m))
	}

	// A key that acts on the view: the next view, a filter over the
	// trail, a move in it.
	pressDrawn(m, "ctrl+p")
	typeIn(m, "next view")
	pressDrawn(m, "enter")
	if m.cur.view != viewCorrections {
		t.Fatalf("next view from the trail gave view %d", m.cur.view)
	}
	pressDrawn(m, "3", ":")
	typeIn(m, "down")
	pressDrawn(m, "enter")
	if m.cur.trail.sel != 1 {
		t.Fatalf("down from the palette over the trail: row %d", m.cur.trail.sel)
	}

	// A form opens, from the selection on screen.
	pressDrawn(m, "1", "g", ":")
	typeIn(m, "atom add")
	pressDrawn(m, "enter")
	if !formOpen(m, redirect.AddAtom) {
		t.Fatalf("add atom from the palette opened %T", m.cur.topDialog())
	}
	if sel := m.flowLoop(m.cur).Selected; sel != "A1" {
		t.Fatalf("the form was given the selection %q, not the graph's A1", sel)
	}
}

// A greyed action says why and does not run; the palette stays open. The
// reason is the binding's at the moment enter is pressed.
func TestPaletteGreyedActionSaysWhy(t *testing.T) {
	m := walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, ":")
	typeIn(m, "next match")
	b := openedPalette(t, m)
	if it := b.p.Items()[b.p.Selected()]; it.Action == nil || it.Action.Name != "next_match" || it.Action.Why == "" {
		t.Fatalf("next match without a filter is not listed greyed: %+v", it)
	}
	if !strings.Contains(screen(m), "greyed: n and N step through the matches of a filter: / sets one") {
		t.Fatalf("the palette does not say why next match is greyed:\n%s", screen(m))
	}
	pressDrawn(m, "enter")
	if st := m.screenStatus().Text; !strings.Contains(st, "/ sets one") {
		t.Fatalf("enter on a greyed action: status %q", st)
	}
	openedPalette(t, m)

	// The loop turns read-only while the palette is open: add atom is
	// listed greyed after the next message, and enter says why.
	pressDrawn(m, "esc", ":")
	typeIn(m, "add atom")
	m.cur.readOnly, m.cur.readOnlyWhy = true, "the file is not writable"
	m.Update(tea.FocusMsg{}) // the next message, whatever it is: the palette is given the actions anew after each
	clearStatus(m)
	if !strings.Contains(screen(m), "add atom — read-only (the file is not writable)") {
		t.Fatalf("the palette does not grey add atom once the loop is read-only:\n%s", screen(m))
	}
	pressDrawn(m, "enter")
	if formOpen(m, redirect.AddAtom) {
		t.Fatal("add atom ran on a read-only loop")
	}
	openedPalette(t, m)
	if st := m.screenStatus().Text; !strings.Contains(st, "read-only (the file is not writable)") {
		t.Fatalf("add atom on a read-only loop: status %q", st)
	}
}

// : jumps to an atom as the : prompt did: the id in any case, enter; an
// unknown id says so; the footer's "no atom" goes with the next jump.
func TestPaletteJumpsToAtoms(t *testing.T) {
	m := walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, "3", ":")
	typeIn(m, "a7")
	if b := openedPalette(t, m); b.p.Selected() != 0 || b.p.Items()[0].Atom == nil || b.p.Items()[0].Atom.ID != "A7" ||
		!strings.Contains(screen(m), "jump to A7 — Wire audit log into the payment path") {
		t.Fatalf("the palette does not offer A7 first:\n%s", screen(m))
	}
	pressDrawn(m, "enter")
	if m.cur.view != viewGraph || m.cur.graph.sel != "A7" || m.cur.topDialog() != nil {
		t.Fatalf(":a7 from the trail: view %d, selection %q, %T open", m.cur.view, m.cur.graph.sel, m.cur.topDialog())
	}
	pressDrawn(m, ":")
	typeIn(m, "Z9")
	pressDrawn(m, "enter")
	if !strings.Contains(m.screenStatus().Text, "no atom Z9") || m.cur.graph.sel != "A7" {
		t.Fatalf(":Z9: status %q, selection %q", m.screenStatus().Text, m.cur.graph.sel)
	}
	// ctrl+p, and a : typed by habit.
	pressDrawn(m, "ctrl+p")
	typeIn(m, ":A2")
	pressDrawn(m, "enter")
	if m.cur.graph.sel != "A2" {
		t.Fatalf("ctrl+p :A2: selection %q", m.cur.graph.sel)
	}
}

// The palette's keys: ↑ and ↓ choose (wrapping), esc closes, ? shows its
// keys and a word on what is typed, and back to the palette.
func TestPaletteKeys(t *testing.T) {
	m := walkModel(t, "rich.md", 100, 30, false)
	pressDrawn(m, ":")
	b := openedPalette(t, m)
	n := len(b.p.Items())
	pressDrawn(m, "up")
	if b.p.Selected() != n-1 {
		t.Fatalf("↑ on the first row went to row %d of %d", b.p.Selected(), n)
	}
	pressDrawn(m, "down", "ctrl+n")
	if b.p.Selected() != 1 {
		t.Fatalf("↓ ctrl+n from the last row: row %d", b.p.Selected())
	}
	pressDrawn(m, "?")
	help := screen(m)
	for _, want := range []string{"help — the command palette", "↑/ctrl+p", "↓/ctrl+n", "run / jump",
		"Any other key is typed"} {
		if !strings.Contains(help, want) {
			t.Errorf("the palette's help does not say %q:\n%s", want, help)
		}
	}
	pressDrawn(m, "esc")
	if m.cur.topDialog() != b || m.focus != focusDialog {
		t.Fatalf("closing the palette's help: %s", where(m))
	}
	pressDrawn(m, "esc")
	if m.cur.topDialog() != nil || m.focus != focusView {
		t.Fatalf("esc left the palette open: %s", where(m))
	}
}

// Every key keyTable declares is the key press Bubble Tea names so:
// what a handler is given when its action runs from the palette.
func TestKeyPressNamesEveryKey(t *testing.T) {
	k := DefaultKeyMap()
	seen := 0
	for i := range keyTable {
		for _, s := range keyTable[i].keys(&k).Keys() {
			seen++
			if got := keyPress(s).String(); got != s {
				t.Errorf("keyPress(%q).String() = %q", s, got)
			}
		}
	}
	for _, s := range []string{"f5", "alt+x", "ctrl+shift+up", "insert", "shift+f12"} {
		if got := keyPress(s).String(); got != s {
			t.Errorf("keyPress(%q).String() = %q", s, got)
		}
	}
	if seen < 80 {
		t.Fatalf("only %d keys", seen)
	}
}

// A keys file written before the palette, which binds jump, binds the
// palette.
func TestKeysFileJumpBindsThePalette(t *testing.T) {
	k, err := LoadKeyMap(writeKeys(t, "jump: ';'\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Palette.Keys(); !reflect.DeepEqual(got, []string{";"}) {
		t.Fatalf("jump: ; bound the palette to %q", got)
	}
}

func TestPaletteGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {60, 20}} {
		for _, c := range []struct {
			name string
			do   func(m *Model)
		}{
			{"open", func(m *Model) { press(m, ":") }},
			{"typed", func(m *Model) { press(m, ":"); typeIn(m, "a") }},
			// At these widths the details are an overlay: J is greyed.
			{"greyed", func(m *Model) { press(m, "ctrl+p"); typeIn(m, "details down") }},
			// The atoms come after the actions: ↑ wraps around to them.
			{"atom", func(m *Model) { press(m, "3", ":"); typeIn(m, "A"); press(m, "up") }},
		} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, sz.w, sz.h), func(t *testing.T) {
				m := loadedModel(t, "rich.md", sz.w, sz.h)
				c.do(m)
				openedPalette(t, m)
				out := screen(m)
				checkFits(t, out, sz.w, sz.h)
				golden.RequireEqual(t, out)
			})
		}
	}
}

// n and N step through the matches of a / filter, wrapping around, and
// the footer says which: the selection in the graph's list and the
// tables, a marked line in the text views.
func TestNextMatch(t *testing.T) {
	filter := func(m *Model, f string) {
		pressDrawn(m, "/")
		typeIn(m, f)
		pressDrawn(m, "enter")
		clearStatus(m)
	}
	status := func(t *testing.T, m *Model, want string) {
		t.Helper()
		if got := m.screenStatus().Text; got != want {
			t.Fatalf("status %q, want %q", got, want)
		}
		if !strings.Contains(screen(m), want) {
			t.Fatalf("the footer does not say %q:\n%s", want, screen(m))
		}
	}

	t.Run("graph list", func(t *testing.T) {
		m := walkModel(t, "rich.md", 100, 30, false)
		if m.cur.graph.isLayered() {
			pressDrawn(m, "v")
		}
		filter(m, "pending") // A2 A5 A6 A7 A8
		g := &m.cur.graph
		if len(g.visible) != 5 {
			t.Fatalf("%d atoms pending", len(g.visible))
		}
		first := g.rowOfSel()
		pressDrawn(m, "n")
		if g.rowOfSel() != first+1 {
			t.Fatalf("n from row %d went to row %d", first, g.rowOfSel())
		}
		status(t, m, fmt.Sprintf("match %d of 5", first+2))
		if !strings.Contains(ansi.Strip(m.cur.details.view()), g.sel+"  ") {
			t.Fatalf("the details do not show %s:\n%s", g.sel, m.cur.details.view())
		}
		pressDrawn(m, "G", "n")
		if g.rowOfSel() != 0 {
			t.Fatal("n on the last match does not wrap to the first")
		}
		status(t, m, "match 1 of 5")
		pressDrawn(m, "N")
		status(t, m, "match 5 of 5")
	})

	t.Run("table", func(t *testing.T) {
		m := walkModel(t, "rich.md", 100, 30, false)
		pressDrawn(m, "3")
		filter(m, "audit")
		pressDrawn(m, "n")
		status(t, m, "match 2 of 2")
		pressDrawn(m, "n")
		status(t, m, "match 1 of 2")
		if m.cur.trail.sel != 0 {
			t.Fatalf("n wrapped to row %d", m.cur.trail.sel)
		}
		pressDrawn(m, "N")
		status(t, m, "match 2 of 2")
	})

	t.Run("text", func(t *testing.T) {
		m := walkModel(t, "rich.md", 100, 30, false)
		pressDrawn(m, "5")
		filter(m, "go test")
		o := &m.cur.objective
		n := o.matches()
		if n < 2 {
			t.Fatalf("%d lines hold go test:\n%s", n, screen(m))
		}
		pressDrawn(m, "n")
		status(t, m, fmt.Sprintf("match 1 of %d", n))
		pressDrawn(m, "n")
		status(t, m, fmt.Sprintf("match 2 of %d", n))
		if o.mark != 2 {
			t.Fatalf("mark %d", o.mark)
		}
		// The marked line is drawn in the selection's style (reverse
		// without colours), the others are not.
		lines := strings.Split(o.view(), "\n")
		if !strings.Contains(lines[1], "\x1b[7m") || strings.Contains(lines[0], "\x1b[7m") {
			t.Fatalf("the second match is not the one marked: %q", lines[:2])
		}
		pressDrawn(m, "N", "N")
		status(t, m, fmt.Sprintf("match %d of %d", n, n))
		pressDrawn(m, "esc")
		if o.mark != 0 {
			t.Fatal("clearing the filter leaves a line marked")
		}
	})

	t.Run("no filter, no match", func(t *testing.T) {
		m := walkModel(t, "rich.md", 100, 30, false)
		pressDrawn(m, "3", "n")
		if st := m.screenStatus().Text; !strings.Contains(st, "n and N step through the matches of a filter: / sets one") {
			t.Fatalf("n without a filter: %q", st)
		}
		filter(m, "nothing-here")
		pressDrawn(m, "N")
		if st := m.screenStatus().Text; st != `nothing matches "nothing-here"` {
			t.Fatalf("N with nothing matching: %q", st)
		}
		pressDrawn(m, "6")
		filter(m, "nothing-here")
		pressDrawn(m, "n")
		if st := m.screenStatus().Text; st != `nothing matches "nothing-here"` {
			t.Fatalf("n in a text with nothing matching: %q", st)
		}
	})
}

// The palette in a running program on the real watcher (teatest): open
// it, type, run an action that opens a form and see the form.
func TestFlowPaletteRunsAnActionThatOpensAForm(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{})
	f.waitFor("Define the billing schema")
	f.keys(":")
	f.waitFor("command palette", "redirect menu", "an action, or an atom id")
	f.typeText("add atom")
	f.waitFor(":add atom", "1 row", "add atom")
	f.keys("enter")
	f.waitFor("Add an atom", "┃ Description")
	f.waitGone("command palette", "the palette stayed over the form")
	f.keys("esc")
	f.waitGone("Add an atom", "esc did not cancel the form")
}

// A greyed action, run from the palette, says why in the footer and runs
// nothing; the palette stays.
func TestFlowPaletteGreyedActionSaysWhy(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{})
	f.waitFor("Define the billing schema")
	f.ctrl('p')
	f.waitFor("command palette")
	f.typeText("next match")
	f.waitFor("greyed: n and N step through the matches of a filter")
	f.keys("enter")
	deadline := time.Now().Add(10 * time.Second)
	for {
		lines := strings.Split(f.screen(), "\n")
		if footer := lines[len(lines)-1]; strings.Contains(footer, "n and N step through the matches") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the footer never said why:\n%s", f.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.waitFor("command palette", ":next match")
}

// :a7 and enter jump to A7, from any view.
func TestFlowPaletteJumps(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{})
	f.waitFor("Define the billing schema")
	f.keys("3", ":")
	f.waitFor("command palette")
	f.typeText("a7")
	f.waitFor("jump to A7 — Wire audit log")
	f.keys("enter")
	f.waitGone("command palette", "the palette stayed after the jump")
	f.waitFor("A7  ○ pending", "Wire audit log into the payment path")
}
