package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// onKey routes a key press through keyTable: the binding of the key in
// the place it lands runs, or says why it is disabled; a key bound to
// nothing there does nothing, unless it is typed into a form or a prompt.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	h := m.here()
	b := m.bindingFor(h.p, msg)
	var pause tea.Cmd
	if h.p.Has(inRedirect) && !m.closesRedirect(h, b) {
		pause = m.redirectKey(h.l) // first: the loop is paused again before the key acts
	}
	switch {
	case b == nil && h.p.Has(inForm|inPalette):
		return tea.Batch(pause, m.onDialogMsg(msg))
	case b == nil && h.p.Has(inInput):
		return m.typeKey(msg)
	case b == nil:
		return pause
	}
	if why := b.Why(h); why != "" {
		m.setStatus(why, statusLong)
		return pause
	}
	return tea.Batch(pause, m.do(b.Run(h, msg)))
}

// bindingFor is the binding of msg in place p (nil when there is none).
func (m *Model) bindingFor(p kit.Scope, msg tea.KeyPressMsg) *binding {
	for i := range keyTable {
		b := &keyTable[i]
		if b.Applies(p) && key.Matches(msg, b.keys(&m.keys)) {
			return b
		}
	}
	return nil
}

// do carries out what a handler asks.
func (m *Model) do(a kit.Action) tea.Cmd {
	switch a.Kind {
	case kit.Quit:
		return tea.Batch(a.Cmd, m.quit())
	case kit.ShowStatus:
		m.showStatus(a.Status)
	case kit.Close:
		m.cur.dialogs = nil
		m.refocus()
	case kit.Back:
		if m.fleet != nil && !m.fleetShown() {
			return tea.Batch(a.Cmd, m.leaveFleetLoop())
		}
	case kit.OpenLoop:
		if r, ok := m.fleet.Row(a.Loop); ok {
			return tea.Batch(a.Cmd, m.openFleetLoop(r))
		}
	}
	return a.Cmd
}

// typeKey is a key typed into the prompt that has the focus.
func (m *Model) typeKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.fleetShown() && m.fleet.Filtering() {
		return m.toFleet(msg)
	}
	return m.filterKey(msg)
}

// openHelp shows the help screen of place p.
func (m *Model) openHelp(p kit.Scope) {
	m.helpOf, m.helpFrom = p, m.focus
	m.focus = focusHelp
	m.helpText.top = 0
}

// closeHelp goes back to where help was opened.
func (m *Model) closeHelp() {
	m.focus = m.helpFrom
	if m.focus == focusPanel && m.panel.kind == panelNone || m.focus == focusHelp {
		m.focus = focusView
	}
	m.refocus()
}

// closePanel closes the full-screen panel.
func (m *Model) closePanel() {
	m.focus = focusView
	m.panel.kind = panelNone
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

// switchLoop shows another watched loop (wrapping around).
func (m *Model) switchLoop(i int) {
	n := len(m.loops)
	m.cur = m.loops[((i%n)+n)%n]
	m.cur.unseen = false
	if m.focus == focusFilter {
		m.focus = focusView
	}
	m.refocus()
	m.layout()
}

func (m *Model) setView(l *loop, v viewID) {
	l.view = v
	l.showDetails = false
	if v == viewActivity {
		m.refreshActivity(l) // the steps of the atom selected in the graph
	}
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
	case viewActivity:
		l.activityText.setFilter(f)
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
	case l.view == viewActivity:
		l.activityText.scroll(d)
	}
}

// jumpTo selects an atom by id (exact, then case-insensitive, then the only
// id with that prefix), as k9s's ':' prompt does for resources: the
// command palette's choice of an atom, or of an id as typed.
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
	if l.status.Level == kit.Info {
		l.status = statusLine{} // a hint (the last jump's "no atom A99") is stale once a jump lands
	}
	m.showInGraph(l, id)
}

// showInGraph shows l's graph with atom id selected and in view (a jump,
// enter on a row that names it).
func (m *Model) showInGraph(l *loop, id string) {
	m.setView(l, viewGraph)
	g := &l.graph
	g.follow, g.lay.center = false, false
	g.selectID(id)
	if g.lay.gv != nil && g.lay.gv.Layout() != nil {
		g.lay.gv.Select(id)
	}
	l.details.top = 0
	m.refreshDetails(l)
}
