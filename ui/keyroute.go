package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
)

// onKey routes a key press to what has the focus: the open dialog, the
// filter or jump prompt, the help screen, or the view.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	switch m.focus {
	case focusDialog:
		if l := m.cur; isRedirectDialog(l.topDialog()) && !m.closesRedirect(l, msg) {
			pause := m.redirectKey(l) // first: the loop is paused again before the key acts
			return tea.Batch(pause, m.onDialogMsg(msg))
		}
		return m.onDialogMsg(msg)
	case focusFilter:
		return m.filterKey(msg)
	case focusJump:
		return m.jumpKey(msg)
	case focusPanel:
		return m.panelKey(msg)
	case focusHelp:
		switch {
		case key.Matches(msg, k.Help), key.Matches(msg, k.Back), key.Matches(msg, k.Quit):
			m.focus = focusView
		case key.Matches(msg, k.Down):
			m.helpText.scroll(1)
		case key.Matches(msg, k.Up):
			m.helpText.scroll(-1)
		}
		return nil
	}
	return m.viewKey(m.cur, msg)
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.focus = focusView
		m.filterInput.Blur()
		m.applyFilter(m.cur, "")
		return nil
	case key.Matches(msg, m.keys.Submit):
		m.focus = focusView
		m.filterInput.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.filterInput, cmd = m.filterInput.Update(msg)
	m.applyFilter(m.cur, m.filterInput.Value())
	return cmd
}

func (m *Model) jumpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.focus = focusView
		m.jumpInput.Blur()
		return nil
	case key.Matches(msg, m.keys.Submit):
		m.focus = focusView
		m.jumpInput.Blur()
		m.jumpTo(m.cur, strings.TrimSpace(m.jumpInput.Value()))
		return nil
	}
	var cmd tea.Cmd
	m.jumpInput, cmd = m.jumpInput.Update(msg)
	return cmd
}

// viewKey handles a key press in loop l's view: the global keys, the
// write keys, then the view's own.
func (m *Model) viewKey(l *loop, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.focus = focusHelp
		m.helpText.top = 0
		return nil
	case key.Matches(msg, k.NextLoop) && len(m.loops) > 1:
		m.switchLoop(l.idx + 1)
		return nil
	case key.Matches(msg, k.PrevLoop) && len(m.loops) > 1:
		m.switchLoop(l.idx - 1)
		return nil
	case key.Matches(msg, k.Verify):
		return m.verifyKey(l)
	}
	if l.phase != nil {
		if key.Matches(msg, k.Messages) {
			m.openMessages()
			return nil
		}
		if isWriteKey(k, msg) {
			m.setStatus("phase loops are read-only: the seed defines no redirect for them", statusShort)
			return nil
		}
		textKeys(&l.phaseText, msg, k)
		return nil
	}
	if cmd, ok := m.timelineKey(l, msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.NextView):
		m.setView(l, (l.view+1)%numViews)
		return nil
	case key.Matches(msg, k.PrevView):
		m.setView(l, (l.view+numViews-1)%numViews)
		return nil
	case key.Matches(msg, k.Filter):
		m.focus = focusFilter
		m.filterInput.SetValue(l.filters[l.view])
		m.filterInput.CursorEnd()
		return m.filterInput.Focus()
	case key.Matches(msg, k.Back):
		switch {
		case l.lost != "":
			l.lost = ""
			m.layout()
		case l.showDetails:
			l.showDetails = false
		case l.filters[l.view] != "":
			m.applyFilter(l, "")
		}
		return nil
	}
	for i, b := range k.Views {
		if key.Matches(msg, b) {
			m.setView(l, viewID(i))
			return nil
		}
	}
	if isWriteKey(k, msg) {
		return m.writeKey(l, msg)
	}
	if l.st == nil {
		return nil
	}
	switch l.view {
	case viewGraph:
		return m.graphKeys(l, msg)
	case viewBindings:
		tableKeys(&l.bindings, msg, k)
	case viewTrail:
		tableKeys(&l.trail, msg, k)
	case viewCorrections:
		tableKeys(&l.corrections, msg, k)
	case viewObjective:
		if !m.verifyDetailsKey(l, msg) {
			textKeys(&l.objective, msg, k)
		}
	case viewPrompt:
		textKeys(&l.prompt, msg, k)
	}
	return nil
}

// writeKey handles a key that would change the file.
func (m *Model) writeKey(l *loop, msg tea.KeyPressMsg) tea.Cmd {
	if m.refusePastWrite(l) {
		return nil
	}
	if l.readOnly {
		m.setStatus("read-only ("+l.readOnlyWhy+"): corrections are disabled", statusShort)
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Redirect):
		return m.openMenu(l)
	case key.Matches(msg, m.keys.Undo):
		return m.undo(l)
	}
	if kind, ok := m.matchWriteKey(msg); ok {
		return m.startForm(l, kind)
	}
	return nil
}

// switchLoop shows another watched loop (wrapping around).
func (m *Model) switchLoop(i int) {
	n := len(m.loops)
	m.cur = m.loops[((i%n)+n)%n]
	m.cur.unseen = false
	if m.focus == focusFilter || m.focus == focusJump {
		m.focus = focusView
	}
	m.refocus()
	m.layout()
}

func (m *Model) setView(l *loop, v viewID) {
	l.view = v
	l.showDetails = false
	if m.focus == focusFilter {
		m.filterInput.SetValue(l.filters[v])
	}
}

func (m *Model) applyFilter(l *loop, f string) {
	l.filters[l.view] = f
	switch l.view {
	case viewGraph:
		l.graph.setFilter(f)
		m.refreshDetails(l)
	case viewBindings:
		l.bindings.setFilter(f)
	case viewTrail:
		l.trail.setFilter(f)
	case viewCorrections:
		l.corrections.setFilter(f)
	case viewObjective:
		l.objective.setFilter(f)
	case viewPrompt:
		l.prompt.setFilter(f)
	}
}

func (m *Model) graphKeys(l *loop, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	g := &l.graph
	prev := g.sel
	g.lay.center = false // the person has taken over the view
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
		return nil
	case key.Matches(msg, k.Jump):
		m.focus = focusJump
		m.jumpInput.SetValue("")
		return m.jumpInput.Focus()
	}
	if !l.showDetails && m.paneKey(l, msg) {
		if g.sel != prev {
			l.details.top = 0
			m.refreshDetails(l)
		}
		return nil
	}
	if g.isLayered() && !l.showDetails {
		m.layeredKeys(l, msg)
		if g.sel != prev {
			l.details.top = 0
			m.refreshDetails(l)
		}
		return nil
	}
	if l.showDetails {
		switch {
		case key.Matches(msg, k.Down):
			l.details.scroll(1)
		case key.Matches(msg, k.Up):
			l.details.scroll(-1)
		case key.Matches(msg, k.PageDown):
			l.details.scroll(l.details.height - 1)
		case key.Matches(msg, k.PageUp):
			l.details.scroll(-(l.details.height - 1))
		case key.Matches(msg, k.Details):
			l.showDetails = false
		case key.Matches(msg, k.Dependency):
			g.toDependency()
		case key.Matches(msg, k.Dependent):
			g.toDependent()
		}
		if g.sel != prev {
			l.details.top = 0
			m.refreshDetails(l)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Down):
		g.moveBy(1)
	case key.Matches(msg, k.Up):
		g.moveBy(-1)
	case key.Matches(msg, k.PageDown):
		g.moveBy(max(1, g.height-1))
	case key.Matches(msg, k.PageUp):
		g.moveBy(-max(1, g.height-1))
	case key.Matches(msg, k.Top):
		g.home()
	case key.Matches(msg, k.Bottom):
		g.end()
	case key.Matches(msg, k.Left):
		g.pan(-8)
	case key.Matches(msg, k.Right):
		g.pan(8)
	case key.Matches(msg, k.Dependency):
		if !g.toDependency() {
			m.setStatus("no dependency to go to", statusShort)
		}
	case key.Matches(msg, k.Dependent):
		if !g.toDependent() {
			m.setStatus("nothing depends on this atom", statusShort)
		}
	}
	if g.sel != prev {
		l.details.top = 0
		m.refreshDetails(l)
	}
	return nil
}

// paneKey handles the graph pane's keys that work the same in the list and
// the drawing: follow, details, and scrolling the details pane.
func (m *Model) paneKey(l *loop, msg tea.KeyPressMsg) bool {
	k := m.keys
	g := &l.graph
	switch {
	case key.Matches(msg, k.Follow):
		g.toggleFollow()
		if g.follow {
			if g.lay.gv != nil && g.lay.gv.Layout() != nil {
				g.lay.gv.Select(g.sel)
			}
			m.setStatus("follow: the selection tracks the in-progress atom", statusShort)
		}
	case key.Matches(msg, k.Details):
		if !m.wide {
			l.showDetails = true
			l.details.top = 0
		}
	case msg.String() == "J":
		l.details.scroll(1)
	case msg.String() == "K":
		l.details.scroll(-1)
	default:
		return false
	}
	return true
}

// layeredKeys moves around the drawing: h/j/k/l and arrows spatially, [ ]
// along edges (repeated presses visit each neighbour), g/G to the first and
// last layer, pgup/pgdn and H/L pan.
func (m *Model) layeredKeys(l *loop, msg tea.KeyPressMsg) {
	k := m.keys
	g := &l.graph
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

func tableKeys(t *tableView, msg tea.KeyPressMsg, k KeyMap) {
	switch {
	case key.Matches(msg, k.Down):
		t.move(1)
	case key.Matches(msg, k.Up):
		t.move(-1)
	case key.Matches(msg, k.PageDown):
		t.move(max(1, t.bodyHeight()-1))
	case key.Matches(msg, k.PageUp):
		t.move(-max(1, t.bodyHeight()-1))
	case key.Matches(msg, k.Top):
		t.home()
	case key.Matches(msg, k.Bottom):
		t.end()
	}
}

func textKeys(t *scrollText, msg tea.KeyPressMsg, k KeyMap) {
	switch {
	case key.Matches(msg, k.Down):
		t.scroll(1)
	case key.Matches(msg, k.Up):
		t.scroll(-1)
	case key.Matches(msg, k.PageDown):
		t.scroll(max(1, t.height-1))
	case key.Matches(msg, k.PageUp):
		t.scroll(-max(1, t.height-1))
	case key.Matches(msg, k.Top):
		t.top = 0
	case key.Matches(msg, k.Bottom):
		t.top = len(t.lines)
		t.clamp()
	}
}

// onWheel scrolls what is under the pointer (the current view).
func (m *Model) onWheel(msg tea.MouseWheelMsg) {
	l := m.cur
	l.graph.lay.center = false
	d := 0
	switch msg.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return
	}
	switch {
	case m.focus == focusHelp:
		m.helpText.scroll(d)
	case m.focus == focusPanel:
		m.panel.text.scroll(d)
	case l.phase != nil:
		l.phaseText.scroll(d)
	case l.view == viewGraph && m.wide && msg.X > l.graph.width:
		l.details.scroll(d)
	case l.view == viewGraph && l.showDetails:
		l.details.scroll(d)
	case l.view == viewGraph:
		l.graph.scroll(d)
	case l.view == viewBindings:
		l.bindings.move(d)
	case l.view == viewTrail:
		l.trail.move(d)
	case l.view == viewCorrections:
		l.corrections.move(d)
	case l.view == viewObjective:
		l.objective.scroll(d)
	case l.view == viewPrompt:
		l.prompt.scroll(d)
	}
}

// jumpTo selects an atom by id (exact, then case-insensitive, then the only
// id with that prefix), as k9s's ':' prompt does for resources.
func (m *Model) jumpTo(l *loop, q string) {
	if q == "" || l.st == nil {
		return
	}
	id := ""
	if _, ok := l.facts.Index[q]; ok {
		id = q
	} else {
		var prefixed []string
		for _, a := range l.st.Atoms {
			switch {
			case strings.EqualFold(a.ID, q):
				id = a.ID
			case strings.HasPrefix(strings.ToLower(a.ID), strings.ToLower(q)):
				prefixed = append(prefixed, a.ID)
			}
		}
		if id == "" && len(prefixed) == 1 {
			id = prefixed[0]
		}
	}
	if id == "" {
		m.setStatus("no atom "+q, statusShort)
		return
	}
	m.setView(l, viewGraph)
	g := &l.graph
	g.follow = false
	g.selectID(id)
	if g.lay.gv != nil && g.lay.gv.Layout() != nil {
		g.lay.gv.Select(id)
	}
	l.details.top = 0
	m.refreshDetails(l)
}
