package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds the keys in effect for every action of keyTable (a keys
// file can rebind any of them: LoadKeyMap). What each does, where, and
// its help are declared once in keyTable (bindings.go). Keys follow
// k9s/lazygit habits.
type KeyMap struct {
	Quit, ForceQuit, Help, NextView, PrevView, Filter, Back, Submit key.Binding
	// NextLoop and PrevLoop switch between watched loops.
	NextLoop, PrevLoop key.Binding
	Views              [numViews]key.Binding
	// OpenLoop opens the selected loop of the fleet table (--scan).
	OpenLoop key.Binding

	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right key.Binding
	Dependency, Dependent, Details, Follow               key.Binding
	// ShowInGraph shows the atom a bindings or trail row names in the
	// graph, selected.
	ShowInGraph key.Binding
	// DetailsDown/Up scroll the details pane beside the graph; PanLeft and
	// PanRight pan the drawing by half a pane.
	DetailsDown, DetailsUp, PanLeft, PanRight key.Binding

	// Graph layout keys.
	Orientation, Collapse, CollapseResolved, ToggleLayout, Minimap key.Binding

	// Palette opens the command palette (every action that applies, and
	// :A7 to jump to an atom); PaletteUp and PaletteDown choose in it
	// (not j and k: those are typed). NextMatch and PrevMatch step
	// through the matches of a / filter.
	Palette, PaletteUp, PaletteDown, NextMatch, PrevMatch key.Binding
	// CopyID and CopyText copy the selected atom's id and description
	// (CopyText: a fleet row's path) to the clipboard: the mouse is the
	// TUI's, so the terminal's own selection needs shift.
	CopyID, CopyText key.Binding

	// Write keys: disabled (greyed in help) when read-only.
	Redirect, AddAtom, DeleteAtom, ForceOR, Constraints, Objective, Binding, Stop, MoreIterations, Undo, Editor key.Binding

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
	// Problems lists validate's findings on the version on screen.
	Problems key.Binding
	// SortCost sorts the activity view's tokens-and-cost tables by the
	// next column (cost, tokens, name).
	SortCost key.Binding
}

// DefaultKeyMap returns the key bindings keyTable declares.
func DefaultKeyMap() KeyMap {
	var k KeyMap
	for i := range keyTable {
		b := &keyTable[i]
		*b.key(&k) = key.NewBinding(key.WithKeys(b.Keys...), key.WithHelp(b.label(), b.Help))
	}
	return k
}
