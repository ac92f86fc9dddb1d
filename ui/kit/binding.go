package kit

import tea "charm.land/bubbletea/v2"

// Scope is a set of places where keys land (a view, a dialog, the fleet
// table…), one bit a place; the TUI names its places.
type Scope uint64

// Has reports whether s and o share a place.
func (s Scope) Has(o Scope) bool { return s&o != 0 }

// Use is how a binding reads in some of its places where it does
// something other than its default says (esc closes the help screen).
type Use struct {
	In    Scope
	Group string
	Help  string
}

// Binding declares one key action once: its name in a keys file, its
// default keys, where it applies, its help, why it is disabled and what
// it does. Dispatch, the help screen, greyed-out keys and the keys file
// are all read from a table of them, so they cannot drift apart. T is
// what the handlers are given: where the key landed, as the component
// that declares the binding knows it.
type Binding[T any] struct {
	// Name is the action's name in a keys file (add_atom).
	Name string
	// Keys are the default keys, as Bubble Tea names them.
	Keys []string
	// Label is how help shows the keys ("↑/k"); the first key when empty.
	Label string
	// Help says what the key does, in a few words (help screen, footer,
	// aot-tui keys).
	Help string
	// Group is the help screen's column the key is listed in.
	Group string
	// In is where the key applies: anywhere else it does nothing and is
	// not listed.
	In Scope
	// Uses are other group or help texts in some places of In.
	Uses []Use
	// Disabled says why the key cannot act now ("" when it can); a
	// disabled key is greyed in help and says this when pressed. Nil: never.
	Disabled func(T) string
	// Run does what the key does.
	Run func(T, tea.KeyPressMsg) Action
}

// Applies reports whether the binding applies in place p.
func (b *Binding[T]) Applies(p Scope) bool { return b.In.Has(p) }

// HelpIn is the binding's group and help text in place p.
func (b *Binding[T]) HelpIn(p Scope) (group, help string) {
	group, help = b.Group, b.Help
	for _, u := range b.Uses {
		if u.In.Has(p) {
			if u.Group != "" {
				group = u.Group
			}
			if u.Help != "" {
				help = u.Help
			}
			break
		}
	}
	return group, help
}

// Why is the reason the binding is disabled at t ("" when it is not).
func (b *Binding[T]) Why(t T) string {
	if b.Disabled == nil {
		return ""
	}
	return b.Disabled(t)
}
