package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/verifyview"
)

// The handlers and disabled reasons of keyTable's bindings.

func runQuit(h here, _ tea.KeyPressMsg) kit.Action {
	switch {
	case h.p.Has(inHelp):
		h.m.closeHelp()
	case h.p.Has(inPanels):
		h.m.closePanel()
	default:
		if st, ok := h.m.quitWarning(); ok {
			return kit.Action{Kind: kit.ShowStatus, Status: st}
		}
		return kit.Action{Kind: kit.Quit}
	}
	return kit.Action{}
}

func runHelp(h here, _ tea.KeyPressMsg) kit.Action {
	if h.p.Has(inHelp) {
		h.m.closeHelp()
	} else {
		h.m.openHelp(h.p)
	}
	return kit.Action{}
}

// runDialog hands the key to the open dialog, which knows what it means
// there.
func runDialog(h here, msg tea.KeyPressMsg) kit.Action { return kit.Run(h.m.onDialogMsg(msg)) }

// runInput hands the key to the prompt being typed in.
func runInput(h here, msg tea.KeyPressMsg) kit.Action {
	switch {
	case h.p.Has(inMenu):
		return runDialog(h, tea.KeyPressMsg{Code: tea.KeyEnter})
	case h.p.Has(inPalette):
		return runDialog(h, msg)
	}
	return kit.Run(h.m.typeKey(msg))
}

func runFilter(h here, msg tea.KeyPressMsg) kit.Action {
	m := h.m
	if h.p.Has(inFleet) {
		return m.fleet.Update(m.context(), msg)
	}
	m.focus = focusFilter
	m.filterInput.SetValue(h.l.filters[h.l.view])
	m.filterInput.CursorEnd()
	return kit.Run(m.filterInput.Focus())
}

// backWhy says when esc has nothing to go back from.
func backWhy(h here) string {
	switch {
	case h.p.Has(inFleet):
		return h.m.fleet.BackWhy()
	case h.p.Has(inLoop | inWaiting):
		if !h.l.escCloses() && !h.p.Has(inPast|inOpened) {
			return "nothing to go back from: esc closes the details, clears a filter, returns from the past"
		}
	}
	return ""
}

func runBack(h here, msg tea.KeyPressMsg) kit.Action {
	m, l := h.m, h.l
	switch {
	case h.p.Has(inHelp):
		m.closeHelp()
	case h.p.Has(inPanels):
		m.closePanel()
	case h.p.Has(inMenu | inBusy | inForm | inPalette):
		return runDialog(h, msg)
	case h.p.Has(inInput):
		return runInput(h, msg)
	case h.p.Has(inFleet):
		return m.fleet.Update(m.context(), msg)
	case l.lost != "":
		l.lost = ""
		m.layout()
	case l.showDetails:
		l.showDetails = false
	case l.phase == nil && l.filters[l.view] != "":
		m.applyFilter(l, "")
	case h.p.Has(inPast):
		return kit.Run(m.toLive(l))
	case h.p.Has(inOpened):
		return kit.Action{Kind: kit.Back}
	}
	return kit.Action{}
}

// loopsWhy says when < and > have no other loop to go to.
func loopsWhy(h here) string {
	if !h.p.Has(inOpened) && len(h.m.loops) < 2 {
		return "one loop is watched: < and > switch between the loops given to aot-tui"
	}
	return ""
}

// stepLoop shows the loop d away: in the fleet's table when the loop was
// opened from it, else among the watched loops.
func (h here) stepLoop(d int) kit.Action {
	if h.p.Has(inOpened) {
		return kit.Run(h.m.stepFleetLoop(d))
	}
	h.m.switchLoop(h.l.idx + d)
	return kit.Action{}
}

// runMove moves in the place: the drawing in space, the graph's list,
// the fleet table, the menu's entries, or whatever the place scrolls.
func runMove(h here, msg tea.KeyPressMsg) kit.Action {
	k := h.m.keys
	switch {
	case h.p.Has(inMenu):
		// huh moves the menu: it is given the key it knows.
		code := tea.KeyUp
		switch {
		case key.Matches(msg, k.Down):
			code = tea.KeyDown
		case key.Matches(msg, k.Top):
			code = tea.KeyHome
		case key.Matches(msg, k.Bottom):
			code = tea.KeyEnd
		}
		return runDialog(h, tea.KeyPressMsg{Code: code})
	case h.p.Has(inPalette):
		return runDialog(h, msg) // the palette pages its rows
	case h.p.Has(inGraphs):
		h.onGraph(func() { h.graphMove(msg) })
	default:
		if s := h.scroller(); s != nil {
			scrollKey(s, msg, k)
		}
	}
	return kit.Action{}
}

// onGraph runs a key of the graph pane: the person takes over the view,
// and a new selection shows its details from the top.
func (h here) onGraph(key func()) {
	l := h.l
	g := &l.graph
	prev := g.sel
	g.lay.center = false
	key()
	if g.sel != prev {
		l.details.top = 0
		h.m.refreshDetails(l)
	}
}

// graphMove is a move key in the graph pane.
func (h here) graphMove(msg tea.KeyPressMsg) {
	m, l, g := h.m, h.l, &h.l.graph
	k := m.keys
	switch {
	case h.p.Has(inDrawing):
		h.layeredKeys(msg)
	case key.Matches(msg, k.Dependency):
		if !g.toDependency() {
			m.setStatus("no dependency to go to", statusShort)
		}
	case key.Matches(msg, k.Dependent):
		if !g.toDependent() {
			m.setStatus("nothing depends on this atom", statusShort)
		}
	case h.p.Has(inDetails):
		scrollKey(&l.details, msg, k)
	case key.Matches(msg, k.Left):
		g.pan(-8)
	case key.Matches(msg, k.Right):
		g.pan(8)
	default:
		scrollKey(g, msg, k)
	}
}

// layeredKeys moves around the drawing: h/j/k/l and arrows spatially, [ ]
// along edges (repeated presses visit each neighbour), g/G to the first and
// last layer, pgup/pgdn and H/L pan.
func (h here) layeredKeys(msg tea.KeyPressMsg) {
	m, k := h.m, h.m.keys
	g := &h.l.graph
	v := g.lay.gv
	follows := g.lay.followDeps + g.lay.followDependents
	moved := true
	switch {
	case key.Matches(msg, k.Down):
		moved = v.Move(dagdraw.Down)
	case key.Matches(msg, k.Up):
		moved = v.Move(dagdraw.Up)
	case key.Matches(msg, k.Left):
		moved = v.Move(dagdraw.Left)
	case key.Matches(msg, k.Right):
		moved = v.Move(dagdraw.Right)
	case key.Matches(msg, k.Dependency):
		if !v.FollowDependency(g.lay.followDeps) {
			m.setStatus("no dependency to go to", statusShort)
		}
		g.lay.followDeps++
		g.lay.followDependents = 0
	case key.Matches(msg, k.Dependent):
		if !v.FollowDependent(g.lay.followDependents) {
			m.setStatus("nothing depends on this atom", statusShort)
		}
		g.lay.followDependents++
		g.lay.followDeps = 0
	case key.Matches(msg, k.Top):
		v.First()
	case key.Matches(msg, k.Bottom):
		v.Last()
	case key.Matches(msg, k.PageDown):
		v.Scroll(0, max(1, g.height-2))
	case key.Matches(msg, k.PageUp):
		v.Scroll(0, -max(1, g.height-2))
	case key.Matches(msg, k.PanRight):
		v.Scroll(max(1, g.width/2), 0)
	case key.Matches(msg, k.PanLeft):
		v.Scroll(-max(1, g.width/2), 0)
	default:
		moved = false
	}
	if g.lay.followDeps+g.lay.followDependents == follows {
		g.lay.followDeps, g.lay.followDependents = 0, 0
	}
	if moved {
		g.follow = false
	}
	if id := v.Selected(); id != "" {
		g.sel = id
	}
}

// detailsWhy says when enter has no details to open.
func detailsWhy(h here) string {
	if h.p.Has(inGraph|inDrawing) && h.m.wide {
		return "the details show beside the graph at this width"
	}
	return ""
}

func runDetails(h here, msg tea.KeyPressMsg) kit.Action {
	m, l := h.m, h.l
	switch {
	case h.p.Has(inObjective):
		m.verifyDetails(l)
	case h.p.Has(inDetails):
		l.showDetails = false
	default:
		l.showDetails = true
		l.details.top = 0
	}
	return kit.Action{}
}

// rowAtom is the atom the selected row of the bindings or trail table
// names: a binding's atom, the choice a trail entry selected ("" for none).
func rowAtom(h here) string {
	l := h.l
	if l.st == nil {
		return ""
	}
	switch t := &l.bindings; {
	case h.p.Has(inBindings) && len(t.visible) > 0:
		return l.st.Bindings[t.visible[t.sel]].AtomID
	}
	switch t := &l.trail; {
	case h.p.Has(inTrail) && len(t.visible) > 0:
		return l.st.Trail[t.visible[t.sel]].Selected
	}
	return ""
}

// showInGraphWhy says when the selected row names no atom to show.
func showInGraphWhy(h here) string {
	id := rowAtom(h)
	switch _, ok := h.l.facts.Index[id]; {
	case id == "":
		return "this row names no atom"
	case !ok:
		return termtext.Line(id) + " is not an atom of this state"
	}
	return ""
}

// runShowInGraph switches to the graph with the row's atom selected and
// scrolled into view.
func runShowInGraph(h here, _ tea.KeyPressMsg) kit.Action {
	h.m.showInGraph(h.l, rowAtom(h))
	return kit.Action{}
}

// detailsPaneWhy says when there is no details pane beside the graph.
func detailsPaneWhy(h here) string {
	if !h.m.wide {
		return "the details pane shows beside the graph on a screen of 100 columns or more; enter opens the details here"
	}
	return ""
}

func runFollow(h here, _ tea.KeyPressMsg) kit.Action {
	m, g := h.m, &h.l.graph
	h.onGraph(func() {
		g.toggleFollow()
		if !g.follow {
			m.setStatus("follow off", statusShort)
			return
		}
		if g.lay.gv != nil && g.lay.gv.Layout() != nil {
			g.lay.gv.Select(g.sel)
		}
		m.setStatus("follow: the selection tracks the in-progress atom", statusShort)
	})
	return kit.Action{}
}

// runDrawing handles the keys that change how the graph is drawn.
func runDrawing(h here, msg tea.KeyPressMsg) kit.Action {
	var cmd tea.Cmd
	h.onGraph(func() { cmd = h.drawingKey(msg) })
	return kit.Run(cmd)
}

func (h here) drawingKey(msg tea.KeyPressMsg) tea.Cmd {
	m, l := h.m, h.l
	k := m.keys
	g := &l.graph
	// Keys of the drawing that apply in both layouts.
	relayout := func(what string) tea.Cmd {
		if !g.isLayered() {
			m.setStatus(what+" — applies to the graph drawing (v shows it)", statusShort)
		}
		return m.layoutCmd(l, g.relayoutJob())
	}
	switch {
	case key.Matches(msg, k.ToggleLayout):
		g.toggleLayered()
		if g.isLayered() && g.sel != "" {
			g.lay.gv.Select(g.sel)
		} else {
			g.scrollToSel() // the selection may have moved in the drawing
		}
		return m.layoutCmd(l, g.forcedJob())
	case key.Matches(msg, k.Orientation):
		if g.lay.opt.Orientation == dagdraw.TopDown {
			g.lay.opt.Orientation = dagdraw.LeftRight
		} else {
			g.lay.opt.Orientation = dagdraw.TopDown
		}
		return relayout("orientation")
	case key.Matches(msg, k.CollapseResolved):
		g.lay.opt.CollapseResolved = !g.lay.opt.CollapseResolved
		return relayout("collapse of resolved atoms")
	case key.Matches(msg, k.Collapse):
		if len(l.facts.ChildrenOf[g.sel]) == 0 && (g.lay.opt.Collapsed == nil || !g.lay.opt.Collapsed[g.sel]) {
			m.setStatus("space collapses a decomposed atom; "+g.sel+" has no parts", statusShort)
			return nil
		}
		c := map[string]bool{}
		for id, on := range g.lay.opt.Collapsed {
			c[id] = on
		}
		c[g.sel] = !c[g.sel]
		g.lay.opt.Collapsed = c
		return relayout("collapse")
	case key.Matches(msg, k.Minimap):
		g.lay.hideMinimap = !g.lay.hideMinimap
		switch {
		case g.lay.hideMinimap:
			m.setStatus("minimap off", statusShort)
		case !g.isLayered():
			m.setStatus("minimap on — it shows on the graph drawing (v)", statusShort)
		case g.width < 60 || g.height < 14:
			m.setStatus(fmt.Sprintf("minimap on — it needs a drawing of at least 60×14; this one is %d×%d", g.width, g.height), statusShort)
		default:
			m.setStatus("minimap on — it shows while the graph is larger than the pane", statusShort)
		}
	}
	return nil
}

// writeWhy says why no correction can be written from here.
func writeWhy(h here) string {
	l := h.l
	switch hist := l.hist; {
	case l.phase != nil:
		return "phase loops are read-only: the seed defines no redirect for them"
	case hist != nil && hist.replay != nil:
		return "a replay is read-only: corrections are written to a live loop"
	case hist.inPast():
		return fmt.Sprintf("version %d of %d is the past, read-only: %s returns to live, where corrections apply",
			hist.idx+1, hist.tl.Len(), h.m.keys.Back.Help().Key)
	case l.readOnly:
		return "read-only (" + l.readOnlyWhy + "): corrections are disabled"
	case l.st == nil:
		return "no state to correct yet"
	}
	return ""
}

// selectedWhy is writeWhy for the keys that act on the selected atom
// (delete, override binding): only where the selection is on screen.
func selectedWhy(h here) string {
	if why := writeWhy(h); why != "" {
		return why
	}
	if h.p.Has(inGraphs) || (h.p.Has(inMenu) && h.l.view == viewGraph) {
		return ""
	}
	return "this acts on the atom selected in the graph: " + h.m.keys.Views[0].Help().Key + " shows it"
}

// verifyWhy says why the base_case cannot be verified ("" when it can).
func verifyWhy(h here) string {
	l := h.l
	if l.remoteHost != "" {
		return "the loop is on " + termtext.Line(l.remoteHost) + ": V runs the checks on this machine"
	}
	return verifyview.Why(l.phase != nil || l.target.Kind == statefile.KindPhaseLoop, l.st)
}

// versionsWhy says when the timeline has nothing to step through.
func versionsWhy(h here) string {
	if h.l.hist == nil || h.l.st == nil {
		return "no versions yet: the timeline starts with the first state read"
	}
	return ""
}

func runTimeline(h here, msg tea.KeyPressMsg) kit.Action {
	m := h.m
	if h.p.Has(inChanges) {
		if key.Matches(msg, m.keys.WhatChanged) {
			m.closePanel()
			return kit.Action{}
		}
		cmd := m.timelineKey(h.l, msg)
		m.buildChanges(h.l)
		return kit.Run(cmd)
	}
	return kit.Run(m.timelineKey(h.l, msg))
}
