package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

// binding is one key action of the TUI: its declaration and its field of
// KeyMap, which holds the keys in effect (a keys file may rebind them).
type binding struct {
	kit.Binding[here]
	key func(*KeyMap) *key.Binding
}

// keys are the binding's keys in effect in k.
func (b *binding) keys(k *KeyMap) key.Binding { return *b.key(k) }

// label is how help shows the default keys.
func (b *binding) label() string {
	if b.Label != "" {
		return b.Label
	}
	return b.Keys[0]
}

// keyTable is every key of the TUI, once, in the order aot-tui keys lists
// them. Dispatch (onKey), the help screen and footer (help.go), greyed-out
// keys, DefaultKeyMap and the keys file (keyfile.go) are all read from
// it. Adding a key is adding an entry here (and a field to KeyMap).
var keyTable []binding

func init() { keyTable = buildKeyTable() }

// bindingNamed is the binding of an action name (nil for none).
func bindingNamed(name string) *binding {
	for i := range keyTable {
		if keyTable[i].Name == name {
			return &keyTable[i]
		}
	}
	return nil
}

// Help groups, in the order the help screen shows them.
var groupOrder = []string{"move", "graph", "drawing", "base_case", "redirect", "timeline", "this box", "fleet", "loops", "views", "general"}

const (
	everywhere = numPlaces - 1
	quitIn     = inLoop | inWaiting | inFleet | inStale | inHelp | inPanels
	helpIn     = inLoop | inWaiting | inFleet | inPanels | inBoxes | inHelp | inPalette
	backIn     = inViews | inPhase | inWaiting | inFleet | inHelp | inPanels | inMenu | inBusy | inForm | inInput | inPalette
	writeIn    = inLoop | inWaiting | inMenu
	timelineIn = inViews | inWaiting | inChanges
	// paletteIn are the places the command palette opens over: every
	// view of a loop (not the fleet table, which has no loop whose
	// dialogs it could sit among).
	paletteIn = inLoop | inWaiting
	// matchIn are the places where / filters by showing only what
	// matches, one row or line each: n and N step through them.
	matchIn = inGraph | inTables | inObjective | inPrompt
)

func buildKeyTable() []binding {
	type kb = kit.Binding[here]
	f := func(get func(*KeyMap) *key.Binding, b kb) binding { return binding{b, get} }
	closes := []kit.Use{{In: inHelp, Help: "close this help"}, {In: inPanels, Help: "close"}}
	t := []binding{
		f(func(k *KeyMap) *key.Binding { return &k.Quit }, kb{Name: "quit", Keys: []string{"q"}, Help: "quit", Group: "general",
			In: quitIn, Uses: closes, Run: runQuit}),
		f(func(k *KeyMap) *key.Binding { return &k.ForceQuit }, kb{Name: "force_quit", Keys: []string{"ctrl+c"}, Help: "quit from anywhere",
			Group: "general", In: everywhere, Run: func(here, tea.KeyPressMsg) kit.Action { return kit.Action{Kind: kit.Quit} }}),
		f(func(k *KeyMap) *key.Binding { return &k.Help }, kb{Name: "help", Keys: []string{"?"}, Help: "help", Group: "general",
			In: helpIn, Uses: closes[:1], Run: runHelp}),
		f(func(k *KeyMap) *key.Binding { return &k.NextView }, kb{Name: "next_view", Keys: []string{"tab"}, Help: "next view",
			Group: "views", In: inViews, Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				h.m.setView(h.l, (h.l.view+1)%numViews)
				return kit.Action{}
			}}),
		f(func(k *KeyMap) *key.Binding { return &k.PrevView }, kb{Name: "prev_view", Keys: []string{"shift+tab"}, Help: "previous view",
			Group: "views", In: inViews, Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				h.m.setView(h.l, (h.l.view+numViews-1)%numViews)
				return kit.Action{}
			}}),
		f(func(k *KeyMap) *key.Binding { return &k.Filter }, kb{Name: "filter", Keys: []string{"/"}, Help: "filter", Group: "general",
			In: inViews&^inDetails | inFleet, Run: runFilter}),
		f(func(k *KeyMap) *key.Binding { return &k.NextMatch }, kb{Name: "next_match", Keys: []string{"n"}, Help: "next match",
			Group: "general", In: matchIn, Disabled: matchWhy, Run: runMatch}),
		f(func(k *KeyMap) *key.Binding { return &k.PrevMatch }, kb{Name: "prev_match", Keys: []string{"N"}, Help: "previous match",
			Group: "general", In: matchIn, Disabled: matchWhy, Run: runMatch}),
		f(func(k *KeyMap) *key.Binding { return &k.Palette }, kb{Name: "palette", Keys: []string{":", "ctrl+p"},
			Help: "command palette, :A7", Group: "general", In: paletteIn,
			Run: func(h here, _ tea.KeyPressMsg) kit.Action { return kit.Run(h.m.openPalette(h)) }}),
		f(func(k *KeyMap) *key.Binding { return &k.PaletteUp }, kb{Name: "palette_up", Keys: []string{"up", "ctrl+p"}, Label: "↑/ctrl+p",
			Help: "previous row", Group: "this box", In: inPalette, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.PaletteDown }, kb{Name: "palette_down", Keys: []string{"down", "ctrl+n"}, Label: "↓/ctrl+n",
			Help: "next row", Group: "this box", In: inPalette, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Back }, kb{Name: "back", Keys: []string{"esc"}, Help: "back / clear filter", Group: "general",
			In: backIn, Uses: append(closes, kit.Use{In: inMenu | inBusy, Help: "close"}, kit.Use{In: inForm | inInput, Help: "cancel"},
				kit.Use{In: inPast, Help: "back to live"}, kit.Use{In: inOpened, Group: "fleet", Help: "back to the table"},
				kit.Use{In: inFleet, Help: "clear the filter"}, kit.Use{In: inPalette, Help: "close"}),
			Disabled: backWhy, Run: runBack}),
		f(func(k *KeyMap) *key.Binding { return &k.Submit }, kb{Name: "submit", Keys: []string{"enter"}, Help: "done (filter)",
			Group: "general", In: inInput | inMenu | inPalette, Uses: []kit.Use{{In: inMenu, Group: "this box", Help: "choose"},
				{In: inPalette, Group: "this box", Help: "run / jump"}}, Run: runInput}),
		f(func(k *KeyMap) *key.Binding { return &k.NextLoop }, kb{Name: "next_loop", Keys: []string{">"}, Help: "next loop", Group: "loops",
			In: inLoop | inWaiting, Uses: []kit.Use{{In: inOpened, Group: "fleet", Help: "next loop of the table"}},
			Disabled: loopsWhy, Run: func(h here, _ tea.KeyPressMsg) kit.Action { return h.stepLoop(1) }}),
		f(func(k *KeyMap) *key.Binding { return &k.PrevLoop }, kb{Name: "prev_loop", Keys: []string{"<"}, Help: "previous loop", Group: "loops",
			In: inLoop | inWaiting, Uses: []kit.Use{{In: inOpened, Group: "fleet", Help: "previous loop of the table"}},
			Disabled: loopsWhy, Run: func(h here, _ tea.KeyPressMsg) kit.Action { return h.stepLoop(-1) }}),
		f(func(k *KeyMap) *key.Binding { return &k.Up }, kb{Name: "up", Keys: []string{"up", "k"}, Label: "↑/k", Help: "up", Group: "move",
			In: inScrolls | inMenu, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Down }, kb{Name: "down", Keys: []string{"down", "j"}, Label: "↓/j", Help: "down",
			Group: "move", In: inScrolls | inMenu, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.PageUp }, kb{Name: "page_up", Keys: []string{"pgup", "ctrl+u"}, Label: "pgup",
			Help: "page up", Group: "move", In: inScrolls | inPalette, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.PageDown }, kb{Name: "page_down", Keys: []string{"pgdown", "ctrl+d"}, Label: "pgdn",
			Help: "page down", Group: "move", In: inScrolls | inPalette, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Top }, kb{Name: "top", Keys: []string{"g", "home"}, Help: "top", Group: "move",
			In: inScrolls | inMenu, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Bottom }, kb{Name: "bottom", Keys: []string{"G", "end"}, Help: "bottom", Group: "move",
			In: inScrolls | inMenu, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Left }, kb{Name: "left", Keys: []string{"left", "h"}, Label: "←/h", Help: "left",
			Group: "move", In: inGraph | inDrawing, Uses: []kit.Use{{In: inGraph, Help: "pan the list left"}}, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Right }, kb{Name: "right", Keys: []string{"right", "l"}, Label: "→/l", Help: "right",
			Group: "move", In: inGraph | inDrawing, Uses: []kit.Use{{In: inGraph, Help: "pan the list right"}}, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Dependency }, kb{Name: "to_dependency", Keys: []string{"[", "shift+up"},
			Help: "to a dependency", Group: "graph", In: inGraphs, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Dependent }, kb{Name: "to_dependent", Keys: []string{"]", "shift+down"},
			Help: "to a dependent", Group: "graph", In: inGraphs, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Details }, kb{Name: "details", Keys: []string{"enter"}, Help: "details", Group: "graph",
			In: inGraphs | inObjective, Uses: []kit.Use{{In: inDetails, Help: "close the details"},
				{In: inObjective, Group: "base_case", Help: "to a failed check"}},
			Disabled: detailsWhy, Run: runDetails}),
		f(func(k *KeyMap) *key.Binding { return &k.ShowInGraph }, kb{Name: "show_in_graph", Keys: []string{"enter"},
			Help: "show atom in graph", Group: "views", In: inBindings | inTrail, Disabled: showInGraphWhy, Run: runShowInGraph}),
		f(func(k *KeyMap) *key.Binding { return &k.Follow }, kb{Name: "follow", Keys: []string{"f"}, Help: "follow in-progress",
			Group: "graph", In: inGraph | inDrawing, Run: runFollow}),
		f(func(k *KeyMap) *key.Binding { return &k.DetailsDown }, kb{Name: "details_down", Keys: []string{"J"}, Help: "scroll details down",
			Group: "graph", In: inGraph | inDrawing, Disabled: detailsPaneWhy, Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				h.l.details.scroll(1)
				return kit.Action{}
			}}),
		f(func(k *KeyMap) *key.Binding { return &k.DetailsUp }, kb{Name: "details_up", Keys: []string{"K"}, Help: "scroll details up",
			Group: "graph", In: inGraph | inDrawing, Disabled: detailsPaneWhy, Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				h.l.details.scroll(-1)
				return kit.Action{}
			}}),
		f(func(k *KeyMap) *key.Binding { return &k.PanLeft }, kb{Name: "pan_left", Keys: []string{"H"}, Help: "pan the drawing left",
			Group: "drawing", In: inDrawing, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.PanRight }, kb{Name: "pan_right", Keys: []string{"L"}, Help: "pan the drawing right",
			Group: "drawing", In: inDrawing, Run: runMove}),
		f(func(k *KeyMap) *key.Binding { return &k.Orientation }, kb{Name: "orientation", Keys: []string{"t"}, Help: "top-down / left-right",
			Group: "drawing", In: inGraph | inDrawing, Run: runDrawing}),
		f(func(k *KeyMap) *key.Binding { return &k.Collapse }, kb{Name: "collapse", Keys: []string{"space"}, Help: "collapse decomposition",
			Group: "drawing", In: inGraph | inDrawing, Run: runDrawing}),
		f(func(k *KeyMap) *key.Binding { return &k.CollapseResolved }, kb{Name: "collapse_resolved", Keys: []string{"z"},
			Help: "collapse resolved", Group: "drawing", In: inGraph | inDrawing, Run: runDrawing}),
		f(func(k *KeyMap) *key.Binding { return &k.ToggleLayout }, kb{Name: "toggle_layout", Keys: []string{"v"}, Help: "graph drawing / list",
			Group: "drawing", In: inGraph | inDrawing, Run: runDrawing}),
		f(func(k *KeyMap) *key.Binding { return &k.Minimap }, kb{Name: "minimap", Keys: []string{"m"}, Help: "minimap on/off",
			Group: "drawing", In: inGraph | inDrawing, Run: runDrawing}),
		f(func(k *KeyMap) *key.Binding { return &k.CopyID }, kb{Name: "copy_id", Keys: []string{"y"}, Help: "copy the atom's id",
			Group: "graph", In: inGraphs, Disabled: copyWhy, Run: runCopy}),
		f(func(k *KeyMap) *key.Binding { return &k.CopyText }, kb{Name: "copy_text", Keys: []string{"Y"}, Help: "copy the description",
			Group: "graph", In: inGraphs | inFleet, Uses: []kit.Use{{In: inFleet, Group: "fleet", Help: "copy the loop's path"}},
			Disabled: copyWhy, Run: runCopy}),
		f(func(k *KeyMap) *key.Binding { return &k.Redirect }, kb{Name: "redirect", Keys: []string{"r"}, Help: "redirect menu",
			Group: "redirect", In: inLoop | inWaiting, Disabled: writeWhy, Run: func(h here, _ tea.KeyPressMsg) kit.Action { return kit.Run(h.m.openMenu(h.l)) }}),
		f(func(k *KeyMap) *key.Binding { return &k.AddAtom }, writeKey("add_atom", "a", "add atom", redirect.AddAtom, writeWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.DeleteAtom }, writeKey("delete_atom", "d", "delete atom", redirect.DeleteAtom, selectedWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.ForceOR }, writeKey("force_or", "o", "force OR choice", redirect.ForceOR, writeWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.Constraints }, writeKey("constraints", "c", "constraints", redirect.Constraints, writeWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.Objective }, writeKey("objective", "e", "objective", redirect.Objective, writeWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.Binding }, writeKey("override_binding", "b", "override binding", redirect.Binding, selectedWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.Stop }, writeKey("stop", "S", "stop loop", redirect.Stop, writeWhy)),
		f(func(k *KeyMap) *key.Binding { return &k.Editor }, kb{Name: "open_editor", Keys: []string{"E"},
			Help: "edit in $EDITOR", Group: "redirect", In: inLoop, Disabled: editorWhy,
			Run: func(h here, _ tea.KeyPressMsg) kit.Action { return kit.Run(h.m.openEditor(h.l)) }}),
		f(func(k *KeyMap) *key.Binding { return &k.MoreIterations }, kb{Name: "more_iterations", Keys: []string{"I"},
			Help: fmt.Sprintf("max_iterations +%d", iterationStep), Group: "redirect", In: inLoop | inWaiting, Disabled: writeWhy,
			Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				return kit.Run(h.m.openFlow(h.l, redirect.MoreIterations(h.m.flowLoop(h.l), iterationStep)))
			}}),
		f(func(k *KeyMap) *key.Binding { return &k.Undo }, kb{Name: "undo", Keys: []string{"u"}, Help: "undo last correction",
			Group: "redirect", In: inLoop | inWaiting | inMessages, Disabled: writeWhy,
			Uses: []kit.Use{{In: inMessages, Help: "undo a correction of this session"}}, Run: func(h here, _ tea.KeyPressMsg) kit.Action { return kit.Run(h.m.undo(h.l)) }}),
		f(func(k *KeyMap) *key.Binding { return &k.Apply }, kb{Name: "apply", Keys: []string{"enter", "y", "a"}, Help: "apply",
			Group: "this box", In: inPreview | inVerify, Uses: []kit.Use{{In: inVerify, Help: "run the checks"}}, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Edit }, kb{Name: "edit", Keys: []string{"e"}, Help: "edit", Group: "this box",
			In: inPreview, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Cancel }, kb{Name: "cancel", Keys: []string{"esc", "n", "c", "q"}, Help: "cancel",
			Group: "this box", In: inPreview | inAsk | inVerify | inVerifying,
			Uses: []kit.Use{{In: inAsk, Help: "back to the preview"}, {In: inVerifying, Help: "stop the run"}},
			Disabled: func(h here) string {
				if verifyStopping(h.l) {
					return "the verification is stopping"
				}
				return ""
			}, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Interrupt }, kb{Name: "interrupt", Keys: []string{"i"}, Help: "interrupt the worker and apply",
			Group: "this box", In: inAsk, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Yes }, kb{Name: "yes", Keys: []string{"y", "Y"}, Help: "yes", Group: "this box",
			In: inStale, Uses: []kit.Use{{In: inStale, Help: "clear the flag"}}, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.No }, kb{Name: "no", Keys: []string{"n", "N", "esc", "enter"}, Help: "no (default)",
			Group: "this box", In: inStale, Uses: []kit.Use{{In: inStale, Help: "leave it (default)"}}, Run: runDialog}),
		f(func(k *KeyMap) *key.Binding { return &k.Verify }, kb{Name: "verify", Keys: []string{"V"}, Help: "verify base_case now",
			Group: "base_case", In: inViews | inPhase | inWaiting, Disabled: verifyWhy,
			Run: func(h here, _ tea.KeyPressMsg) kit.Action { return kit.Run(h.m.verifyKey(h.l)) }}),
		f(func(k *KeyMap) *key.Binding { return &k.OlderVersion }, timelineKey("older_version", ",", "older version")),
		f(func(k *KeyMap) *key.Binding { return &k.NewerVersion }, timelineKey("newer_version", ".", "newer version")),
		f(func(k *KeyMap) *key.Binding { return &k.PrevChange }, timelineKey("prev_change", "{", "previous change")),
		f(func(k *KeyMap) *key.Binding { return &k.NextChange }, timelineKey("next_change", "}", "next change")),
		f(func(k *KeyMap) *key.Binding { return &k.WhatChanged }, kb{Name: "what_changed", Keys: []string{"w"}, Help: "what changed",
			Group: "timeline", In: timelineIn, Uses: []kit.Use{{In: inChanges, Help: "close"}}, Disabled: versionsWhy, Run: runTimeline}),
		f(func(k *KeyMap) *key.Binding { return &k.Play }, kb{Name: "play", Keys: []string{"p"}, Help: "play / pause", Group: "timeline",
			In: inViews | inWaiting, Disabled: versionsWhy, Run: runTimeline}),
		f(func(k *KeyMap) *key.Binding { return &k.Faster }, kb{Name: "faster", Keys: []string{"+", "="}, Help: "play faster",
			Group: "timeline", In: inViews | inWaiting, Disabled: versionsWhy, Run: runTimeline}),
		f(func(k *KeyMap) *key.Binding { return &k.Slower }, kb{Name: "slower", Keys: []string{"-"}, Help: "play slower",
			Group: "timeline", In: inViews | inWaiting, Disabled: versionsWhy, Run: runTimeline}),
		f(func(k *KeyMap) *key.Binding { return &k.Messages }, kb{Name: "messages", Keys: []string{"M"}, Help: "message log",
			Group: "timeline", In: inLoop | inWaiting | inMessages, Uses: []kit.Use{{In: inMessages, Help: "close"}},
			Run: func(h here, _ tea.KeyPressMsg) kit.Action {
				if h.p.Has(inMessages) {
					h.m.closePanel()
				} else {
					h.m.openMessages()
				}
				return kit.Action{}
			}}),
	}
	t = append(t, f(func(k *KeyMap) *key.Binding { return &k.SortCost }, kb{Name: "sort_cost", Keys: []string{"s"},
		Help: "sort the cost tables", Group: "views", In: inActivity,
		Run: func(h here, _ tea.KeyPressMsg) kit.Action {
			h.l.costSort = (h.l.costSort + 1) % numCostSorts
			h.m.refreshActivity(h.l)
			return kit.Action{}
		}}))
	t = append(t, f(func(k *KeyMap) *key.Binding { return &k.Problems }, kb{Name: "problems", Keys: []string{"!"}, Help: "problems",
		Group: "views", In: inViews | inProblems, Uses: []kit.Use{{In: inProblems, Help: "close"}},
		Run: func(h here, _ tea.KeyPressMsg) kit.Action {
			if h.p.Has(inProblems) {
				h.m.closePanel()
			} else {
				h.m.openProblems()
			}
			return kit.Action{}
		}}))
	for i, name := range []string{"graph", "bindings", "trail", "corrections", "objective", "prompt", "activity"} {
		d := string(rune('1' + i))
		t = append(t, f(func(k *KeyMap) *key.Binding { return &k.Views[i] }, kb{Name: fmt.Sprintf("view_%d", i+1), Keys: []string{d},
			Help: name, Group: "views", In: inViews,
			Disabled: func(h here) string {
				if h.l.view == viewID(i) && !h.l.showDetails {
					return viewNames[i] + " is the view on screen"
				}
				return ""
			},
			Run: func(h here, _ tea.KeyPressMsg) kit.Action { h.m.setView(h.l, viewID(i)); return kit.Action{} }}))
	}
	return append(t, f(func(k *KeyMap) *key.Binding { return &k.OpenLoop }, kb{Name: "open_loop", Keys: []string{"enter"},
		Help: "open the loop", Group: "fleet", In: inFleet, Disabled: func(h here) string { return h.m.fleet.OpenWhy() },
		Run: func(h here, msg tea.KeyPressMsg) kit.Action { return h.m.fleet.Update(h.m.context(), msg) }}))
}

// iterationStep is how many iterations more_iterations (I) adds.
const iterationStep = 10

// writeKey declares a key that opens a correction's form, from a view or
// from the redirect menu.
func writeKey(name, k, help, kind string, why func(here) string) kit.Binding[here] {
	return kit.Binding[here]{Name: name, Keys: []string{k}, Help: help, Group: "redirect", In: writeIn, Disabled: why,
		Run: func(h here, msg tea.KeyPressMsg) kit.Action {
			if h.p.Has(inMenu) {
				return runDialog(h, msg)
			}
			return kit.Run(h.m.startForm(h.l, kind))
		}}
}

// timelineKey declares a key that steps through the versions, in a view
// and in what changed.
func timelineKey(name, k, help string) kit.Binding[here] {
	return kit.Binding[here]{Name: name, Keys: []string{k}, Help: help, Group: "timeline", In: timelineIn,
		Disabled: versionsWhy, Run: runTimeline}
}
