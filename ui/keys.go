package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every key binding of the TUI, in one place: the views, the
// dialogs and the help are built from it, and a keys file can rebind any
// of it (LoadKeyMap). Keys follow k9s/lazygit habits.
type KeyMap struct {
	Quit, ForceQuit, Help, NextView, PrevView, Filter, Back, Submit key.Binding
	// NextLoop and PrevLoop switch between watched loops.
	NextLoop, PrevLoop key.Binding
	Views              [6]key.Binding
	// OpenLoop opens the selected loop of the fleet table (--scan).
	OpenLoop key.Binding

	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right key.Binding
	Dependency, Dependent, Details, Follow               key.Binding
	// DetailsDown/Up scroll the details pane beside the graph; PanLeft and
	// PanRight pan the drawing by half a pane.
	DetailsDown, DetailsUp, PanLeft, PanRight key.Binding

	// Graph layout keys.
	Orientation, Collapse, CollapseResolved, Jump, ToggleLayout, Minimap key.Binding

	// Write keys: disabled (greyed in help) when read-only.
	Redirect, AddAtom, DeleteAtom, ForceOR, Constraints, Objective, Binding, Stop, Undo key.Binding

	// Dialog keys: the preview's apply, edit and cancel; the stale-flag
	// question's yes and no. Interrupt answers the preview's question
	// before a correction that touches an in-progress atom: a key that is
	// none of apply's, so that pressing apply twice never interrupts a
	// worker.
	Apply, Edit, Cancel, Yes, No, Interrupt key.Binding

	// Verify runs the base_case's checks now (after a confirmation that
	// takes the preview's keys: apply runs, cancel does not).
	Verify key.Binding
	// Timeline keys (timeline.go): step through the versions seen, jump
	// between changes of structure, what changed, play; the message log.
	OlderVersion, NewerVersion, PrevChange, NextChange, WhatChanged, Play, Faster, Slower, Messages key.Binding
}

// DefaultKeyMap returns the key bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := KeyMap{
		Quit:      b("q", "quit", "q"),
		ForceQuit: b("ctrl+c", "quit from anywhere", "ctrl+c"),
		Help:      b("?", "help", "?"),
		NextView:  b("tab", "next view", "tab"),
		PrevView:  b("shift+tab", "previous view", "shift+tab"),
		Filter:    b("/", "filter", "/"),
		Back:      b("esc", "back / clear filter", "esc"),
		Submit:    b("enter", "done (filter, jump)", "enter"),
		NextLoop:  b(">", "next loop", ">"),
		PrevLoop:  b("<", "previous loop", "<"),
		OpenLoop:  b("enter", "open the loop", "enter"),

		Up:          b("↑/k", "up", "up", "k"),
		Down:        b("↓/j", "down", "down", "j"),
		PageUp:      b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:    b("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:         b("g", "top", "g", "home"),
		Bottom:      b("G", "bottom", "G", "end"),
		Left:        b("←/h", "left (pans the list)", "left", "h"),
		Right:       b("→/l", "right (pans the list)", "right", "l"),
		Dependency:  b("[", "to a dependency", "[", "shift+up"),
		Dependent:   b("]", "to a dependent", "]", "shift+down"),
		Details:     b("enter", "details", "enter"),
		Follow:      b("f", "follow in-progress", "f"),
		DetailsDown: b("J", "scroll details down", "J"),
		DetailsUp:   b("K", "scroll details up", "K"),
		PanLeft:     b("H", "pan the drawing left", "H"),
		PanRight:    b("L", "pan the drawing right", "L"),

		Orientation:      b("t", "top-down / left-right", "t"),
		Collapse:         b("space", "collapse decomposition", "space"),
		CollapseResolved: b("z", "collapse resolved", "z"),
		Jump:             b(":", "jump to atom", ":"),
		ToggleLayout:     b("v", "graph drawing / list", "v"),
		Minimap:          b("m", "minimap on/off", "m"),

		Redirect:    b("r", "redirect menu", "r"),
		AddAtom:     b("a", "add atom", "a"),
		DeleteAtom:  b("d", "delete atom", "d"),
		ForceOR:     b("o", "force OR choice", "o"),
		Constraints: b("c", "constraints", "c"),
		Objective:   b("e", "objective", "e"),
		Binding:     b("b", "override binding", "b"),
		Stop:        b("S", "stop loop", "S"),
		Undo:        b("u", "undo last correction", "u"),

		Apply:  b("enter", "apply", "enter", "y", "a"),
		Edit:   b("e", "edit", "e"),
		Cancel: b("esc", "cancel", "esc", "n", "c", "q"),
		Yes:    b("y", "yes", "y", "Y"),
		No:     b("n", "no (default)", "n", "N", "esc", "enter"),

		Interrupt: b("i", "interrupt the worker and apply", "i"),

		Verify:       b("V", "verify base_case now", "V"),
		OlderVersion: b(",", "older version", ","),
		NewerVersion: b(".", "newer version", "."),
		PrevChange:   b("{", "previous change", "{"),
		NextChange:   b("}", "next change", "}"),
		WhatChanged:  b("w", "what changed", "w"),
		Play:         b("p", "play / pause", "p"),
		Faster:       b("+", "play faster", "+", "="),
		Slower:       b("-", "play slower", "-"),
		Messages:     b("M", "message log", "M"),
	}
	names := []string{"graph", "bindings", "trail", "corrections", "objective", "prompt"}
	for i := range k.Views {
		d := string(rune('1' + i))
		k.Views[i] = b(d, names[i], d)
	}
	return k
}

// writeKeys are the bindings that change the file.
func (k KeyMap) writeKeys() []key.Binding {
	return []key.Binding{k.Redirect, k.AddAtom, k.DeleteAtom, k.ForceOR, k.Constraints, k.Objective, k.Binding, k.Stop, k.Undo}
}

// isWriteKey reports whether msg is one of the write keys.
func isWriteKey(k KeyMap, msg tea.KeyPressMsg) bool {
	return key.Matches(msg, k.writeKeys()...)
}

// isWriteBinding reports whether b is one of the write keys.
func isWriteBinding(k KeyMap, b key.Binding) bool {
	for _, w := range k.writeKeys() {
		if sameKeys(w, b) {
			return true
		}
	}
	return false
}

func sameKeys(a, b key.Binding) bool {
	ak, bk := a.Keys(), b.Keys()
	if len(ak) != len(bk) {
		return false
	}
	for i := range ak {
		if ak[i] != bk[i] {
			return false
		}
	}
	return true
}

// helpGroup is one titled column of the help screen.
type helpGroup struct {
	Title string
	Keys  []key.Binding
	// Write marks write keys (greyed when read-only).
	Write bool
}

// viewKeys are the keys that apply in one view: a help.KeyMap, so that ?
// and the footer show what works here.
type viewKeys struct {
	k     KeyMap
	view  viewID
	phase bool
	multi bool
	// fleet: the fleet table is on screen; inFleet: a loop opened from it.
	fleet, inFleet bool
}

// ShortHelp is the footer's hint line for the view (help.KeyMap).
func (v viewKeys) ShortHelp() []key.Binding {
	k := v.k
	if v.fleet {
		return []key.Binding{k.OpenLoop, k.Filter, k.Up, k.Down, k.Help, k.Quit}
	}
	if v.phase {
		return []key.Binding{k.Up, k.Down, k.Help, k.Quit}
	}
	if v.view == viewGraph {
		return []key.Binding{k.Details, k.Filter, k.Redirect, k.Help, k.Quit, k.Follow, k.AddAtom, k.Stop, k.NextView}
	}
	return []key.Binding{k.Filter, k.Redirect, k.Help, k.Quit, k.Up, k.Down, k.NextView}
}

// FullHelp is the help screen's columns (help.KeyMap).
func (v viewKeys) FullHelp() [][]key.Binding {
	var out [][]key.Binding
	for _, g := range v.groups() {
		out = append(out, g.Keys)
	}
	return out
}

// groups are FullHelp's columns with their titles.
func (v viewKeys) groups() []helpGroup {
	k := v.k
	nav := helpGroup{Title: "move", Keys: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
	general := helpGroup{Title: "general", Keys: []key.Binding{k.NextView, k.PrevView, k.Views[0], k.Filter, k.Back, k.Help, k.Quit}}
	var groups []helpGroup
	switch {
	case v.fleet:
		return fleetHelpGroups(k, nav)
	case v.phase:
		groups = []helpGroup{nav, {Title: "general", Keys: []key.Binding{k.Help, k.Quit}}}
	case v.view == viewGraph:
		groups = append(groups,
			helpGroup{Title: "graph", Keys: []key.Binding{k.Up, k.Down, k.Left, k.Right, k.Dependency, k.Dependent, k.Top, k.Bottom, k.Details, k.Follow, k.Jump}},
			helpGroup{Title: "drawing", Keys: []key.Binding{k.ToggleLayout, k.Orientation, k.Collapse, k.CollapseResolved, k.Minimap}},
			helpGroup{Title: "redirect", Keys: k.writeKeys(), Write: true}, general)
	default:
		groups = append(groups, nav, helpGroup{Title: "redirect", Keys: []key.Binding{k.Redirect, k.Constraints, k.Objective, k.Stop, k.Undo}, Write: true}, general)
	}
	if v.view == viewObjective && !v.phase {
		groups = append(groups, helpGroup{Title: "base_case", Keys: []key.Binding{k.Verify, k.Details}})
	}
	if v.multi && !v.inFleet {
		groups = append(groups, helpGroup{Title: "loops", Keys: []key.Binding{k.NextLoop, k.PrevLoop}})
	}
	if v.inFleet {
		groups = append(groups, fleetLoopHelp(k))
	}
	if !v.phase {
		groups = append(groups, timelineHelp(k))
	}
	return groups
}

func (m *Model) viewKeys() viewKeys {
	return viewKeys{k: m.keys, view: m.cur.view, phase: m.cur.phase != nil, multi: len(m.loops) > 1,
		fleet: m.fleetShown(), inFleet: m.fleet != nil && !m.fleet.shown}
}
