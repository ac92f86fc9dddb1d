package ui

import (
	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the TUI. Keys follow k9s/lazygit habits.
type KeyMap struct {
	Quit, Help, NextView, PrevView, Filter, Back key.Binding
	// NextLoop and PrevLoop switch between watched loops.
	NextLoop, PrevLoop key.Binding
	Views              [6]key.Binding

	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right key.Binding
	Dependency, Dependent, Details, Follow               key.Binding

	// Graph layout keys.
	Orientation, Collapse, CollapseResolved, Jump, ToggleLayout, Minimap key.Binding

	// Write keys: disabled (greyed in help) when read-only.
	Redirect, AddAtom, DeleteAtom, ForceOR, Constraints, Objective, Binding, Stop, Undo key.Binding
}

// DefaultKeyMap returns the key bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		NextView: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		PrevView: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back / clear filter")),
		NextLoop: key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "next loop")),
		PrevLoop: key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "previous loop")),

		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:     key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Left:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left (pans the list)")),
		Right:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right (pans the list)")),
		Dependency: key.NewBinding(key.WithKeys("[", "shift+up"), key.WithHelp("[", "to a dependency")),
		Dependent:  key.NewBinding(key.WithKeys("]", "shift+down"), key.WithHelp("]", "to a dependent")),
		Details:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "details")),
		Follow:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow in-progress")),

		Orientation:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "top-down / left-right")),
		Collapse:         key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "collapse decomposition")),
		CollapseResolved: key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "collapse resolved")),
		Jump:             key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "jump to atom")),
		ToggleLayout:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "graph drawing / list")),
		Minimap:          key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "minimap on/off")),

		Redirect:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "redirect menu")),
		AddAtom:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add atom")),
		DeleteAtom:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete atom")),
		ForceOR:     key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "force OR choice")),
		Constraints: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "constraints")),
		Objective:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "objective")),
		Binding:     key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "override binding")),
		Stop:        key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "stop loop")),
		Undo:        key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last correction")),
	}
	names := []string{"graph", "bindings", "trail", "corrections", "objective", "prompt"}
	for i := range k.Views {
		d := string(rune('1' + i))
		k.Views[i] = key.NewBinding(key.WithKeys(d), key.WithHelp(d, names[i]))
	}
	return k
}

// writeKeys are the bindings that change the file.
func (k KeyMap) writeKeys() []key.Binding {
	return []key.Binding{k.Redirect, k.AddAtom, k.DeleteAtom, k.ForceOR, k.Constraints, k.Objective, k.Binding, k.Stop, k.Undo}
}

// helpGroup is one titled column of the help screen.
type helpGroup struct {
	Title string
	Keys  []key.Binding
	// Write marks write keys (greyed when read-only).
	Write bool
}

// helpFor returns the help groups for a view.
func (k KeyMap) helpFor(v viewID, phase, multi bool) []helpGroup {
	groups := k.helpForView(v, phase)
	if multi {
		groups = append(groups, helpGroup{Title: "loops", Keys: []key.Binding{k.NextLoop, k.PrevLoop}})
	}
	return groups
}

func (k KeyMap) helpForView(v viewID, phase bool) []helpGroup {
	nav := helpGroup{Title: "move", Keys: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
	general := helpGroup{Title: "general", Keys: []key.Binding{k.NextView, k.PrevView, k.Views[0], k.Filter, k.Back, k.Help, k.Quit}}
	if phase {
		return []helpGroup{{Title: "move", Keys: []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
			{Title: "general", Keys: []key.Binding{k.Help, k.Quit}}}
	}
	var groups []helpGroup
	switch v {
	case viewGraph:
		groups = append(groups,
			helpGroup{Title: "graph", Keys: []key.Binding{k.Up, k.Down, k.Left, k.Right, k.Dependency, k.Dependent, k.Top, k.Bottom, k.Details, k.Follow, k.Jump}},
			helpGroup{Title: "drawing", Keys: []key.Binding{k.ToggleLayout, k.Orientation, k.Collapse, k.CollapseResolved, k.Minimap}},
			helpGroup{Title: "redirect", Keys: k.writeKeys(), Write: true})
	default:
		groups = append(groups, nav, helpGroup{Title: "redirect", Keys: []key.Binding{k.Redirect, k.Constraints, k.Objective, k.Stop, k.Undo}, Write: true})
	}
	return append(groups, general)
}

// shortHelp is the footer's hint line for a view.
func (k KeyMap) shortHelp(v viewID, phase bool) []key.Binding {
	if phase {
		return []key.Binding{k.Up, k.Down, k.Help, k.Quit}
	}
	switch v {
	case viewGraph:
		return []key.Binding{k.Details, k.Filter, k.Redirect, k.Help, k.Quit, k.Follow, k.AddAtom, k.Stop, k.NextView}
	}
	return []key.Binding{k.Filter, k.Redirect, k.Help, k.Quit, k.Up, k.Down, k.NextView}
}
