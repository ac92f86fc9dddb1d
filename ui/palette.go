package ui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/palette"
)

// The command palette (: or ctrl+p) is the component ui/palette on the
// loop's dialog stack. What it lists is read from keyTable at the place it
// was opened over, again after every message (a reason may have come or
// gone since); its choice runs through the chosen binding's own Run, at
// that place, as the binding's key would.

// paletteBox is the palette on a loop's dialog stack, with the place it
// was opened over.
type paletteBox struct {
	p    *palette.Palette
	from kit.Scope
	// st is the state whose atoms p holds.
	st *model.State
}

// openPalette opens the palette over h's place.
func (m *Model) openPalette(h here) tea.Cmd {
	b := &paletteBox{p: palette.New(), from: h.p}
	b.p.Resize(m.context(), m.width, m.bodyHeight())
	m.fillPalette(h.l, b)
	m.push(h.l, b)
	return b.p.Focus()
}

// refreshPalette gives the palette on screen the actions as they are
// after a message (its View only reads).
func (m *Model) refreshPalette() {
	if m.cur == nil {
		return
	}
	if b, ok := m.cur.topDialog().(*paletteBox); ok {
		m.fillPalette(m.cur, b)
	}
}

// fillPalette gives b the actions as they are now at its place, and l's
// atoms when its state changed.
func (m *Model) fillPalette(l *loop, b *paletteBox) {
	b.p.SetActions(m.paletteActions(here{m: m, l: l, p: b.from}))
	if l.st != b.st {
		b.st = l.st
		var atoms []palette.Atom
		if l.st != nil {
			atoms = make([]palette.Atom, len(l.st.Atoms))
			for i, a := range l.st.Atoms {
				atoms[i] = palette.Atom{ID: a.ID, Description: a.Description}
			}
		}
		b.p.SetAtoms(atoms)
	}
}

// paletteGroups are the help groups in the order the palette lists them:
// what acts on the loop first, how to move last (the keys people know).
var paletteGroups = []string{"redirect", "graph", "drawing", "base_case", "timeline", "views", "loops", "fleet", "this box", "general", "move"}

// paletteActions are the bindings of keyTable that apply at h, by group
// (paletteGroups, then the table's order), each with its keys in effect,
// its help there and why it is disabled there. The palette's own binding
// is not among them: it is what is open.
func (m *Model) paletteActions(h here) []palette.Action {
	byGroup := map[string][]palette.Action{}
	groups := append([]string(nil), paletteGroups...)
	for i := range keyTable {
		b := &keyTable[i]
		if !b.Applies(h.p) || b.Name == "palette" {
			continue
		}
		g, help := b.HelpIn(h.p)
		if _, ok := byGroup[g]; !ok && !contains(paletteGroups, g) {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], palette.Action{Name: b.Name, Keys: b.keys(&m.keys).Help().Key, Help: help, Group: g, Why: b.Why(h)})
	}
	var out []palette.Action
	for _, g := range groups {
		out = append(out, byGroup[g]...)
	}
	return out
}

// closePalette takes b, the top dialog, off l's stack.
func (m *Model) closePalette(l *loop, b *paletteBox) {
	if l.topDialog() == b {
		l.dialogs = l.dialogs[:len(l.dialogs)-1]
	}
	m.refocus()
}

func (b *paletteBox) title() string      { return b.p.Title() }
func (b *paletteBox) width(m *Model) int { return b.p.Width(m.context(), m.width, m.bodyHeight()) }
func (b *paletteBox) resize(m *Model)    { b.p.Resize(m.context(), m.width, m.bodyHeight()) }

func (b *paletteBox) lines(m *Model, _ *loop, w, h int) []string { return b.p.Draw(m.context(), w, h) }

// update hands msg to the palette and carries out its answer: a choice
// closes it and runs, at the place it was opened over, the action (as
// its key would) or the jump; a greyed action's reason goes to the
// footer, and the palette stays.
func (b *paletteBox) update(m *Model, l *loop, msg tea.Msg) step {
	a := b.p.Update(m.context(), msg)
	switch a.Kind {
	case kit.Close:
		m.closePalette(l, b)
	case kit.ShowStatus:
		m.showStatus(a.Status)
	case kit.Invoke:
		m.closePalette(l, b)
		return stay(tea.Batch(a.Cmd, m.invoke(here{m: m, l: l, p: b.from}, a.Name)))
	case kit.Jump:
		m.closePalette(l, b)
		m.jumpTo(l, a.Atom)
	}
	return stay(a.Cmd)
}

// invoke runs the action name at h as its first key in effect would:
// through its binding's Run, or its disabled reason in the footer.
func (m *Model) invoke(h here, name string) tea.Cmd {
	b := bindingNamed(name)
	if b == nil || !b.Applies(h.p) {
		return nil
	}
	if why := b.Why(h); why != "" {
		m.setStatus(why, statusLong)
		return nil
	}
	keys := b.keys(&m.keys).Keys()
	if len(keys) == 0 {
		return nil
	}
	return m.do(b.Run(h, keyPress(keys[0])))
}

// keyPress is the key press Bubble Tea names s (its String() is s): the
// key a handler is given when its action runs from the palette, so that
// a handler that asks which of its keys was pressed gets an answer.
func keyPress(s string) tea.KeyPressMsg {
	var mod tea.KeyMod
	rest := s
	for _, p := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"alt+", tea.ModAlt}, {"shift+", tea.ModShift}, {"meta+", tea.ModMeta},
		{"super+", tea.ModSuper}, {"hyper+", tea.ModHyper}} {
		if r, ok := strings.CutPrefix(rest, p.prefix); ok && r != "" {
			rest, mod = r, mod|p.mod
		}
	}
	if code, ok := namedCodes[rest]; ok {
		msg := tea.KeyPressMsg{Code: code, Mod: mod}
		if code == tea.KeySpace && mod == 0 {
			msg.Text = " "
		}
		return msg
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(rest, "f")); err == nil && n >= 1 && n <= 63 && rest == "f"+strconv.Itoa(n) {
		return tea.KeyPressMsg{Code: tea.KeyF1 + rune(n-1), Mod: mod}
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: rest}
}

// namedCodes are the keys a keys file names (validKey) by their codes.
var namedCodes = map[string]rune{
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace, "backspace": tea.KeyBackspace,
	"delete": tea.KeyDelete, "insert": tea.KeyInsert, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
	"right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
}
