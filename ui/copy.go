package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Copying: the TUI captures the mouse (clicks select, the wheel
// scrolls), so the terminal's own selection needs shift in most
// terminals; y and Y copy what a person most often wants, through the
// terminal (OSC 52), with a footer line that says what was copied.

// copyWhy says when there is nothing to copy: no atom selected (the
// drawing may select a summary of resolved atoms, which is none). The
// fleet table answers for itself.
func copyWhy(h here) string {
	if h.p.Has(inFleet) || h.l.graph.selected() != nil {
		return ""
	}
	return "no atom selected to copy"
}

// runCopy copies the selected atom's id (copy_id) or description
// (copy_text); in the fleet table, the selected loop's path.
func runCopy(h here, msg tea.KeyPressMsg) kit.Action {
	if h.p.Has(inFleet) {
		return h.m.fleet.Update(h.m.context(), msg)
	}
	a := h.l.graph.selected()
	id := termtext.Line(a.ID)
	switch {
	case key.Matches(msg, h.m.keys.CopyID):
		return kit.Copy(id, id)
	case a.Description == "":
		return kit.Say(id+" has no description to copy", kit.Info)
	}
	return kit.Copy(a.Description, id+"'s description")
}
