package palette

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

var actions = []Action{
	{Name: "up", Keys: "↑/k", Help: "up", Group: "move"},
	{Name: "page_up", Keys: "pgup", Help: "page up", Group: "move"},
	{Name: "to_dependency", Keys: "[", Help: "to a dependency", Group: "graph"},
	{Name: "add_atom", Keys: "a", Help: "add atom", Group: "redirect"},
	{Name: "delete_atom", Keys: "d", Help: "delete atom", Group: "redirect", Why: "read-only (replay): corrections are disabled"},
	{Name: "more_iterations", Keys: "I", Help: "max_iterations +10", Group: "redirect"},
}

var atoms = []Atom{{ID: "A7", Description: "Wire audit log"}, {ID: "A70", Description: "seventy"}, {ID: "B7"}, {ID: "a71"}}

// names are the rows of items: action names, and atoms as @id.
func names(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Atom != nil {
			out = append(out, "@"+it.Atom.ID)
		} else {
			out = append(out, it.Action.Name)
		}
	}
	return out
}

func TestFilter(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string
	}{
		// Nothing typed: every action, in the order given, and no atom.
		{"", []string{"up", "page_up", "to_dependency", "add_atom", "delete_atom", "more_iterations"}},
		{"   ", []string{"up", "page_up", "to_dependency", "add_atom", "delete_atom", "more_iterations"}},
		// Words in any order, ignoring case, in the name, help or group.
		{"atom ADD", []string{"add_atom"}},
		{"redirect", []string{"add_atom", "delete_atom", "more_iterations"}},
		{"max iter", []string{"more_iterations"}},
		{"more", []string{"more_iterations"}},
		// Where the query starts the help or name first, then where each
		// word starts a word, then the words inside words.
		{"a", []string{"add_atom", "to_dependency", "delete_atom", "page_up", "more_iterations", "@A7", "@A70", "@a71"}},
		{"up", []string{"up", "page_up"}},
		// An atom whose id is typed (in any case) comes first, the
		// other ids it starts last.
		{"a7", []string{"@A7", "@A70", "@a71"}},
		{"A71", []string{"@a71"}},
		{":a7", []string{"@A7", "@A70", "@a71"}},
		{"b7", []string{"@B7"}},
		// Two words are never an atom id.
		{"a7 x", nil},
		{"zz9", nil},
	} {
		got := names(Filter(actions, atoms, c.query))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Filter(%q) = %q, want %q", c.query, got, c.want)
		}
	}
}

// Every action is found by its own help and by its own name: what the
// palette lists can be typed for.
func TestEveryActionIsFoundByItsHelpAndName(t *testing.T) {
	for i := range actions {
		a := &actions[i]
		for _, q := range []string{a.Help, strings.ReplaceAll(a.Name, "_", " ")} {
			got := Filter(actions, atoms, q)
			if len(got) == 0 || got[0].Action != a {
				t.Errorf("Filter(%q) = %q: %s is not first", q, names(got), a.Name)
			}
		}
	}
}

func context() kit.Context {
	b := func(keys ...string) key.Binding { return key.NewBinding(key.WithKeys(keys...)) }
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	return kit.Context{Styles: kit.NewStyles(true, true), NoColor: true, Now: func() time.Time { return now },
		Keys: kit.Keys{"submit": b("enter"), "back": b("esc"), "palette_up": b("up", "ctrl+p"), "palette_down": b("down", "ctrl+n"),
			"page_up": b("pgup"), "page_down": b("pgdown"), "help": b("?")}}
}

func press(ctx kit.Context, p *Palette, keys ...string) kit.Action {
	var a kit.Action
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "ctrl+n":
			msg = tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl}
		case "pgdown":
			msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
		default:
			for _, r := range k {
				a = p.Update(ctx, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		a = p.Update(ctx, msg)
	}
	return a
}

func newPalette(ctx kit.Context, w, h int) *Palette {
	p := New()
	p.Focus()
	p.Resize(ctx, w, h)
	p.SetActions(actions)
	p.SetAtoms(atoms)
	return p
}

// Enter answers for the row chosen: Invoke an action, the reason of a
// greyed one (the palette stays), Jump to an atom, or to the id typed
// when nothing matches; esc closes.
func TestChoose(t *testing.T) {
	ctx := context()
	for _, c := range []struct {
		keys []string
		want kit.Action
	}{
		{[]string{"enter"}, kit.Action{Kind: kit.Invoke, Name: "up"}},
		{[]string{"atom", "enter"}, kit.Action{Kind: kit.Invoke, Name: "add_atom"}},
		{[]string{"atom", "down", "enter"}, kit.Action{Kind: kit.ShowStatus, Status: kit.Status{Text: "read-only (replay): corrections are disabled"}}},
		{[]string{"atom", "ctrl+n", "ctrl+n", "enter"}, kit.Action{Kind: kit.Invoke, Name: "add_atom"}}, // down wraps around
		{[]string{"up", "enter"}, kit.Action{Kind: kit.Invoke, Name: "more_iterations"}},                // and up
		{[]string{"pgdown", "pgdown", "enter"}, kit.Action{Kind: kit.Invoke, Name: "more_iterations"}},  // a page stops at the end
		{[]string{"a7", "enter"}, kit.Action{Kind: kit.Jump, Atom: "A7"}},
		{[]string{"a7", "down", "enter"}, kit.Action{Kind: kit.Jump, Atom: "A70"}},
		{[]string{"z9", "enter"}, kit.Action{Kind: kit.Jump, Atom: "z9"}},
		{[]string{"atom", "esc"}, kit.Action{Kind: kit.Close}},
	} {
		p := newPalette(ctx, 80, 12)
		got := press(ctx, p, c.keys...)
		got.Cmd = nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.keys, got, c.want)
		}
	}
}

// New actions (a reason came or went) keep the choice on its row, and
// typing puts it on the first.
func TestSelectionStaysOnItsRow(t *testing.T) {
	ctx := context()
	p := newPalette(ctx, 80, 12)
	press(ctx, p, "down", "down", "down") // add_atom
	p.SetActions(append([]Action{{Name: "new", Help: "a new one"}}, actions...))
	if it := p.Items()[p.Selected()]; it.Action.Name != "add_atom" {
		t.Fatalf("the choice moved to %s", it.Action.Name)
	}
	press(ctx, p, "d")
	if p.Selected() != 0 {
		t.Fatalf("typing left the choice on row %d", p.Selected())
	}
}

// The box: the prompt with the count, the rows in sight (the chosen one
// marked, greyed ones with their reason after a dash), the chosen greyed
// action's reason in full, the keys; every line within the width, the
// box within the pane, text from the file escaped.
func TestDraw(t *testing.T) {
	ctx := context()
	p := New()
	p.Focus()
	p.Resize(ctx, 40, 9) // 36 columns inside, 9 lines: 2 of frame, the prompt, the keys, rows
	p.SetActions(actions)
	p.SetAtoms([]Atom{{ID: "A1", Description: "evil \x1b]0;pwned\x07 title"}})
	draw := func() []string {
		lines := p.Draw(ctx, 36, 9)
		for i, l := range lines {
			lines[i] = strings.TrimRight(ansi.Strip(l), " ")
			if w := ansi.StringWidth(l); w > 36 {
				t.Errorf("line %d is %d wide: %q", i, w, lines[i])
			}
		}
		if len(lines) > 9-2 {
			t.Errorf("%d lines in a box of 9", len(lines))
		}
		return lines
	}
	got := draw()
	want := []string{
		":an action, or an atom id   1–5 of 6",
		"▸ ↑/k  up",
		"  pgup page up",
		"  [    to a dependency",
		"  a    add atom",
		"  d    delete atom — read-only (rep…",
		"enter run · ↑ ↓ choose · esc close …",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	press(ctx, p, "up", "up") // delete_atom: its reason, whole, above the keys; the rows shrink for it
	got = draw()
	if !strings.HasPrefix(got[len(got)-3], "greyed: read-only (replay):") || got[len(got)-2] != "corrections are disabled" {
		t.Errorf("the reason of the chosen greyed action is not whole above the keys:\n%s", strings.Join(got, "\n"))
	}
	if !strings.HasPrefix(strings.TrimSpace(got[len(got)-4]), "▸ d") {
		t.Errorf("the chosen row is not in sight:\n%s", strings.Join(got, "\n"))
	}
	press(ctx, p, "a1")
	got = draw()
	if !strings.Contains(got[1], `jump to A1 — evil \x1b]0;`) || !strings.HasSuffix(got[0], "1 row") ||
		strings.Contains(strings.Join(p.Draw(ctx, 36, 9), ""), "\x1b]0;") {
		t.Errorf("an atom's description is not escaped, or the count is wrong:\n%s", strings.Join(got, "\n"))
	}
	press(ctx, p, "9")
	got = draw()
	if got[1] != "  no action matches" || got[2] != `enter looks for an atom "a19"` {
		t.Errorf("nothing matches:\n%s", strings.Join(got, "\n"))
	}
}

// What a key typed into the palette costs on a large loop: the actions of
// a view and 10,000 atoms filtered for "a1" (1,111 ids start with it).
func BenchmarkFilter10000Atoms(b *testing.B) {
	var as []Action
	for i := range 60 {
		as = append(as, Action{Name: fmt.Sprintf("action_%d", i), Keys: "x", Help: fmt.Sprintf("does thing %d", i), Group: "redirect"})
	}
	atoms := make([]Atom, 10000)
	for i := range atoms {
		atoms[i] = Atom{ID: fmt.Sprintf("A%d", i+1), Description: "an atom"}
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(Filter(as, atoms, "a1")) == 0 {
			b.Fatal("no match")
		}
	}
}
