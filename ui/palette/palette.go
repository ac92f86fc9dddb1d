// Package palette is aot-tui's command palette (: or ctrl+p, as in k9s and
// lazygit) as a component: every key action that applies where it was
// opened, with its keys, filtered as the person types, and the atoms whose
// id starts with what is typed (:A7 jumps, as the : prompt did). Actions
// that cannot run there are listed greyed with their reason.
//
// The filter is words in any order, not fuzzy: every word typed must be
// in the action's name, help or group, ignoring case — the rule of / in
// the views (cells.HasWords), so that the two read alike.
//
// It is given a kit.Context and the actions as data (the root derives them
// from its one key table, so the palette cannot list what the table does
// not declare), and answers with kit.Actions: Invoke an action by name,
// Jump to an atom, a status (a greyed action's reason), Close. It never
// reaches into the root model, which runs the action through the same
// binding as its key, at the place the palette was opened over.
package palette

import (
	"fmt"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// Action is a key action as the palette lists it.
type Action struct {
	// Name is the action's name in a keys file (add_atom).
	Name string
	// Keys are its keys in effect, as help shows them ("a", "↑/k").
	Keys string
	// Help says what it does where the palette was opened.
	Help string
	// Group is its column on the help screen (redirect, move…).
	Group string
	// Why says why it cannot run there ("" when it can).
	Why string
}

// Atom is an atom the palette can jump to.
type Atom struct{ ID, Description string }

// Item is a row of the palette: an action or an atom (the other nil).
type Item struct {
	Action *Action
	Atom   *Atom
}

// key is what tells an item from another across a new list of actions or
// atoms, so the selection stays on it.
func (it Item) key() string {
	if it.Atom != nil {
		return "atom\x00" + it.Atom.ID
	}
	return "action\x00" + it.Action.Name
}

// Query is what the palette matches of what is typed: trimmed, without a
// leading ':' (typed by habit after ctrl+p).
func Query(typed string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(typed), ":"))
}

// Filter lists what matches query (as typed: see Query). Actions match
// when every word of the query is in their name (its _ read as spaces),
// help or group, ignoring case; all of them for an empty query, in the
// order given. Those where the query starts the help or the name come
// first, then those where each word starts a word, then the others, each
// in the order given. Atoms match a query of one word that starts their
// id, ignoring case; none for an empty query. An atom whose id is the
// query comes first of all (enter jumps to it), the other atoms last.
func Filter(actions []Action, atoms []Atom, query string) []Item {
	q := Query(query)
	var exact []Item
	var others []Item
	if q != "" && !strings.ContainsAny(q, " \t") {
		for i := range atoms {
			a := &atoms[i]
			switch {
			case strings.EqualFold(a.ID, q):
				exact = append(exact, Item{Atom: a})
			case len(a.ID) > len(q) && strings.EqualFold(a.ID[:len(q)], q):
				others = append(others, Item{Atom: a})
			}
		}
	}
	var ranked [3][]Item
	for i := range actions {
		a := &actions[i]
		text := strings.ReplaceAll(a.Name, "_", " ") + " " + a.Help + " " + a.Group
		if q == "" || cells.HasWords(text, q) {
			r := rank(a, text, q)
			ranked[r] = append(ranked[r], Item{Action: a})
		}
	}
	out := exact
	for _, r := range ranked {
		out = append(out, r...)
	}
	return append(out, others...)
}

// rank is how well a matches q, best first: 0 when q starts its help or
// its name, 1 when each word of q starts a word of text, 2 when the words
// are only inside words.
func rank(a *Action, text, q string) int {
	lq := strings.ToLower(q)
	if q == "" || strings.HasPrefix(strings.ToLower(a.Help), lq) || strings.HasPrefix(strings.ReplaceAll(strings.ToLower(a.Name), "_", " "), lq) {
		return 0
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range strings.Fields(lq) {
		starts := false
		for _, tw := range words {
			if strings.HasPrefix(tw, w) {
				starts = true
				break
			}
		}
		if !starts {
			return 2
		}
	}
	return 1
}

// Palette is the command palette. The zero value is not usable: New
// builds one.
type Palette struct {
	input   textinput.Model
	actions []Action
	atoms   []Atom
	// items are what matches the query; sel the chosen one, top the first
	// in sight.
	items    []Item
	sel, top int
	// w is the box's inner width and h the pane's height (Resize).
	w, h int
}

// New builds an empty palette; Focus starts its prompt, Resize gives it
// its size.
func New() *Palette {
	in := textinput.New()
	in.Prompt = ":"
	in.Placeholder = "an action, or an atom id (A7)"
	return &Palette{input: in, w: 40, h: 10}
}

// Focus gives the prompt the keys (its cursor blinks).
func (p *Palette) Focus() tea.Cmd { return p.input.Focus() }

// Resize lays the palette out for a pane of the given size.
func (p *Palette) Resize(ctx kit.Context, paneW, paneH int) {
	p.w, p.h = max(10, p.Width(ctx, paneW, paneH)-4), paneH
	p.clamp()
}

// SetActions gives the palette the actions that apply, as they are now
// (a reason may have come or gone); the selection stays where it was.
func (p *Palette) SetActions(as []Action) {
	p.actions = as
	p.refilter(false)
}

// SetAtoms gives the palette the atoms it can jump to.
func (p *Palette) SetAtoms(as []Atom) {
	p.atoms = as
	p.refilter(false)
}

// Items are the rows listed for the query typed.
func (p *Palette) Items() []Item { return p.items }

// Selected is the index of the chosen row in Items (-1 when there is
// none).
func (p *Palette) Selected() int {
	if len(p.items) == 0 {
		return -1
	}
	return p.sel
}

// Typed is the text of the prompt.
func (p *Palette) Typed() string { return p.input.Value() }

// refilter lists what matches the prompt; fresh (the query changed) puts
// the selection on the first row, else it stays on its item.
func (p *Palette) refilter(fresh bool) {
	var was string
	if !fresh && p.sel < len(p.items) {
		was = p.items[p.sel].key()
	}
	p.items = Filter(p.actions, p.atoms, p.input.Value())
	p.sel = 0
	if was != "" {
		for i, it := range p.items {
			if it.key() == was {
				p.sel = i
				break
			}
		}
	}
	if fresh {
		p.top = 0
	}
	p.clamp()
}

// Move moves the choice by d rows, wrapping around at either end.
func (p *Palette) Move(d int) {
	if n := len(p.items); n > 0 {
		p.sel = ((p.sel+d)%n + n) % n
		p.clamp()
	}
}

// By moves the choice by n rows, stopping at either end (a page).
func (p *Palette) By(n int) {
	p.sel = min(max(0, p.sel+n), max(0, len(p.items)-1))
	p.clamp()
}

// Page is a page of rows: as many as are in sight, less one.
func (p *Palette) Page() int { return max(1, p.rows()-1) }

// Home and End choose the first and the last row.
func (p *Palette) Home() { p.By(-len(p.items)) }
func (p *Palette) End()  { p.By(len(p.items)) }

// rows is how many rows are in sight: the pane less the box's frame, the
// prompt, the notes and the line of keys.
func (p *Palette) rows() int { return max(1, p.h-2-1-len(p.notes())-1) }

// clamp keeps the choice in sight (after every change: Draw only reads).
func (p *Palette) clamp() {
	p.sel = min(max(0, p.sel), max(0, len(p.items)-1))
	rows := p.rows()
	if p.sel < p.top {
		p.top = p.sel
	}
	if p.sel >= p.top+rows {
		p.top = p.sel - rows + 1
	}
	p.top = min(max(0, p.top), max(0, len(p.items)-rows))
}

// Title is the box's title.
func (p *Palette) Title() string { return "command palette" }

// Width is the box's width in a pane of the given size.
func (p *Palette) Width(_ kit.Context, paneW, _ int) int { return kit.DialogWidth(paneW) }

// Update takes a key: the submit key chooses the selected row, back
// closes, the palette's up and down (and the page keys) move the choice,
// any other key is typed into the prompt and filters the rows.
func (p *Palette) Update(ctx kit.Context, msg tea.Msg) kit.Action {
	k, isKey := msg.(tea.KeyPressMsg)
	keys := ctx.Keys
	switch {
	case !isKey:
	case key.Matches(k, keys.Key("submit")):
		return p.choose()
	case key.Matches(k, keys.Key("back")):
		return kit.Action{Kind: kit.Close}
	case key.Matches(k, keys.Key("palette_up")):
		p.Move(-1)
		return kit.Action{}
	case key.Matches(k, keys.Key("palette_down")):
		p.Move(1)
		return kit.Action{}
	case key.Matches(k, keys.Key("page_up")):
		p.By(-p.Page())
		return kit.Action{}
	case key.Matches(k, keys.Key("page_down")):
		p.By(p.Page())
		return kit.Action{}
	}
	before := p.input.Value()
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.refilter(true)
	}
	return kit.Run(cmd)
}

// choose answers the submit key: Invoke the selected action, or say why
// it cannot run; Jump to the selected atom — or, when nothing matches,
// to the id as typed, for the root to find or to say there is none.
func (p *Palette) choose() kit.Action {
	if len(p.items) == 0 {
		if q := Query(p.input.Value()); q != "" {
			return kit.Action{Kind: kit.Jump, Atom: q}
		}
		return kit.Action{}
	}
	it := p.items[p.sel]
	switch {
	case it.Atom != nil:
		return kit.Action{Kind: kit.Jump, Atom: it.Atom.ID}
	case it.Action.Why != "":
		return kit.Action{Kind: kit.ShowStatus, Status: kit.Status{Text: it.Action.Why, Level: kit.Info}}
	}
	return kit.Action{Kind: kit.Invoke, Name: it.Action.Name}
}

// Draw is the box's content for an inner width w in a pane of h lines
// (the box's frame takes two of them): the prompt, the rows in sight, the
// chosen action's reason when it is greyed, and the keys. It draws what
// Resize and the keys left; it changes nothing.
func (p *Palette) Draw(ctx kit.Context, w, _ int) []string {
	s := ctx.Styles
	lines := []string{p.promptLine(s, w)}
	kw := p.keysWidth()
	end := min(len(p.items), p.top+p.rows())
	for i := p.top; i < end; i++ {
		lines = append(lines, p.row(s, p.items[i], i == p.sel, kw, w))
	}
	if len(p.items) == 0 {
		lines = append(lines, s.Muted.Render(cells.Cut("  no action matches", w)))
	}
	for _, n := range p.notes() {
		lines = append(lines, s.Muted.Render(cells.Cut(n, w)))
	}
	k := ctx.Keys
	hint := fmt.Sprintf("%s run · %s %s choose · %s close · %s keys", label(k, "submit"), label(k, "palette_up"),
		label(k, "palette_down"), label(k, "back"), label(k, "help"))
	return append(lines, s.Muted.Render(cells.Cut(hint, w)))
}

// promptLine is the prompt, and at its right how many rows there are
// ("3 rows") or, when they do not all fit, which are in sight ("1–15 of
// 56").
func (p *Palette) promptLine(s kit.Styles, w int) string {
	where := cells.WindowHint(len(p.items), p.top, p.rows())
	if where == "" {
		where = textfmt.Plural(len(p.items), "row")
	}
	in := p.input
	room := w - ansi.StringWidth(where) - 2
	if room < 12 {
		in.SetWidth(max(1, w-ansi.StringWidth(in.Prompt)-1))
		return in.View()
	}
	in.SetWidth(max(1, room-ansi.StringWidth(in.Prompt)-1))
	return cells.Pad(in.View(), room) + "  " + s.Muted.Render(where)
}

// keysWidth is the width of the keys column: the widest keys of the
// actions (at most 10 cells), the same however the list is filtered.
func (p *Palette) keysWidth() int {
	kw := 1
	for _, a := range p.actions {
		kw = max(kw, ansi.StringWidth(termtext.Line(a.Keys)))
	}
	return min(kw, 10)
}

// row draws one item: ▸ on the chosen one, the keys, what it does; a
// greyed action says why after a dash, so that it reads without colour.
func (p *Palette) row(s kit.Styles, it Item, chosen bool, kw, w int) string {
	mark := "  "
	if chosen {
		mark = "▸ "
	}
	var keys, what, why string
	if it.Atom != nil {
		what = "jump to " + termtext.Line(it.Atom.ID)
		if d := termtext.Line(it.Atom.Description); d != "" {
			what += " — " + d
		}
	} else {
		keys, what, why = termtext.Line(it.Action.Keys), it.Action.Help, it.Action.Why
	}
	if chosen {
		text := mark + cells.Pad(keys, kw) + " " + what
		if why != "" {
			text += " — " + why
		}
		return s.Selected.Render(cells.Pad(cells.Cut(text, w), w))
	}
	ks, ws := s.Key, s.Base
	if why != "" {
		ks, ws = s.Muted, s.Muted
	}
	out := mark + ks.Render(cells.Pad(keys, kw)) + " " + ws.Render(what)
	if why != "" {
		out += s.Muted.Render(" — " + why)
	}
	return cells.Cut(out, w)
}

// notes are the lines under the rows: the chosen action's reason when it
// is greyed (whole, wrapped to at most three lines), or what enter does
// when nothing matches.
func (p *Palette) notes() []string {
	switch {
	case len(p.items) == 0 && Query(p.input.Value()) != "":
		return []string{fmt.Sprintf("enter looks for an atom %q", Query(p.input.Value()))}
	case len(p.items) > 0 && p.items[p.sel].Action != nil && p.items[p.sel].Action.Why != "":
		lines := cells.Wrap("greyed: "+p.items[p.sel].Action.Why, p.w)
		return lines[:min(3, len(lines))]
	}
	return nil
}

// label is the first key of an action in effect (the arrows as arrows).
func label(k kit.Keys, name string) string {
	ks := k.Key(name).Keys()
	if len(ks) == 0 {
		return "?"
	}
	switch ks[0] {
	case "up":
		return "↑"
	case "down":
		return "↓"
	}
	return termtext.Line(ks[0])
}
