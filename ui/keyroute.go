package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/ui/graph"
	"github.com/aot-loop/aot-tui/ui/termtext"
)

// onKey routes a key press: an open filter or help screen first, then the
// global keys, then the current view.
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if m.redirect.dlg != dlgNone {
		return m.onDialogKey(msg)
	}
	if m.filtering {
		switch msg.String() {
		case "esc":
			m.filtering = false
			m.filterInput.Blur()
			m.applyFilter("")
			return nil
		case "enter":
			m.filtering = false
			m.filterInput.Blur()
			return nil
		}
		var cmd tea.Cmd
		m.filterInput, cmd = m.filterInput.Update(msg)
		m.applyFilter(m.filterInput.Value())
		return cmd
	}
	if m.jumping {
		switch msg.String() {
		case "esc":
			m.jumping = false
			m.jumpInput.Blur()
			return nil
		case "enter":
			m.jumping = false
			m.jumpInput.Blur()
			m.jumpTo(strings.TrimSpace(m.jumpInput.Value()))
			return nil
		}
		var cmd tea.Cmd
		m.jumpInput, cmd = m.jumpInput.Update(msg)
		return cmd
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Help), key.Matches(msg, k.Back), msg.String() == "q":
			m.showHelp = false
		case key.Matches(msg, k.Down):
			m.helpText.scroll(1)
		case key.Matches(msg, k.Up):
			m.helpText.scroll(-1)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp = true
		m.helpText.top = 0
		return nil
	case key.Matches(msg, k.NextLoop) && len(m.loops) > 1:
		m.switchLoop(m.loop.idx + 1)
		return nil
	case key.Matches(msg, k.PrevLoop) && len(m.loops) > 1:
		m.switchLoop(m.loop.idx - 1)
		return nil
	}
	if m.phase != nil {
		if _, ok := m.matchWriteKey(msg); ok || key.Matches(msg, k.Redirect) || key.Matches(msg, k.Undo) {
			m.setStatus("phase loops are read-only: the seed defines no redirect for them", statusShort)
			return nil
		}
		m.phaseKeys(msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.NextView):
		m.setView((m.view + 1) % numViews)
		return nil
	case key.Matches(msg, k.PrevView):
		m.setView((m.view + numViews - 1) % numViews)
		return nil
	case key.Matches(msg, k.Filter):
		m.filtering = true
		m.filterInput.SetValue(m.filters[m.view])
		m.filterInput.CursorEnd()
		return m.filterInput.Focus()
	case key.Matches(msg, k.Back):
		switch {
		case m.showDetails:
			m.showDetails = false
		case m.filters[m.view] != "":
			m.applyFilter("")
		}
		return nil
	}
	for i, b := range k.Views {
		if key.Matches(msg, b) {
			m.setView(viewID(i))
			return nil
		}
	}
	for _, b := range k.writeKeys() {
		if key.Matches(msg, b) {
			return m.writeKey(msg)
		}
	}
	if m.st == nil {
		return nil
	}
	switch m.view {
	case viewGraph:
		return m.graphKeys(msg)
	case viewBindings:
		tableKeys(&m.bindings, msg, k)
	case viewTrail:
		tableKeys(&m.trail, msg, k)
	case viewCorrections:
		tableKeys(&m.corrections, msg, k)
	case viewObjective:
		textKeys(&m.objective, msg, k)
	case viewPrompt:
		textKeys(&m.prompt, msg, k)
	}
	return nil
}

// writeKey handles a key that would change the file.
func (m *Model) writeKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.readOnly {
		m.setStatus("read-only ("+m.readOnlyWhy+"): corrections are disabled", statusShort)
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Redirect):
		return m.openMenu()
	case key.Matches(msg, m.keys.Undo):
		return m.undoCmd()
	}
	if kind, ok := m.matchWriteKey(msg); ok {
		return m.openForm(kind, nil)
	}
	return nil
}

// quit leaves the TUI, clearing the handshake flag first when a redirect
// form of this session set it.
func (m *Model) quit() tea.Cmd {
	var cmds []tea.Cmd
	for _, l := range m.loops {
		if l.redirect.flagOurs {
			m.withLoop(l.idx, func() {
				m.redirect.flagOurs = false
				m.redirect.dlg = dlgNone
				cmds = append(cmds, m.setFlagCmd(false))
			})
		}
	}
	if len(cmds) == 0 {
		return tea.Quit
	}
	return tea.Sequence(tea.Batch(cmds...), tea.Quit)
}

// switchLoop shows another watched loop (wrapping around).
func (m *Model) switchLoop(i int) {
	n := len(m.loops)
	m.loop = m.loops[((i%n)+n)%n]
	m.unseen = false
	m.filtering = false
	m.layout()
}

func (m *Model) setView(v viewID) {
	m.view = v
	m.showDetails = false
	if m.filtering {
		m.filterInput.SetValue(m.filters[v])
	}
}

func (m *Model) applyFilter(f string) {
	m.filters[m.view] = f
	switch m.view {
	case viewGraph:
		m.graph.setFilter(f)
		m.refreshDetails()
	case viewBindings:
		m.bindings.setFilter(f)
	case viewTrail:
		m.trail.setFilter(f)
	case viewCorrections:
		m.corrections.setFilter(f)
	case viewObjective:
		m.objective.setFilter(f)
	case viewPrompt:
		m.prompt.setFilter(f)
	}
}

func (m *Model) graphKeys(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	g := &m.graph
	prev := g.sel
	g.lay.center = false // the person has taken over the view
	// Keys of the drawing that apply in both layouts.
	relayout := func(what string) tea.Cmd {
		if !g.isLayered() {
			m.setStatus(what+" — applies to the graph drawing (v shows it)", statusShort)
		}
		return m.layoutCmd(g.relayoutJob())
	}
	switch {
	case key.Matches(msg, k.ToggleLayout):
		g.toggleLayered()
		if g.isLayered() && g.sel != "" {
			g.lay.gv.Select(g.sel)
		} else {
			g.scrollToSel() // the selection may have moved in the drawing
		}
		return m.layoutCmd(g.forcedJob())
	case key.Matches(msg, k.Orientation):
		if g.lay.opt.Orientation == graph.TopDown {
			g.lay.opt.Orientation = graph.LeftRight
		} else {
			g.lay.opt.Orientation = graph.TopDown
		}
		return relayout("orientation")
	case key.Matches(msg, k.CollapseResolved):
		g.lay.opt.CollapseResolved = !g.lay.opt.CollapseResolved
		return relayout("collapse of resolved atoms")
	case key.Matches(msg, k.Collapse):
		if len(m.facts.ChildrenOf[g.sel]) == 0 && (g.lay.opt.Collapsed == nil || !g.lay.opt.Collapsed[g.sel]) {
			m.setStatus("space collapses a decomposed atom; "+termtext.Line(g.sel)+" has no parts", statusShort)
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
		m.jumping = true
		m.jumpInput.SetValue("")
		return m.jumpInput.Focus()
	}
	if !m.showDetails && m.paneKey(msg) {
		if g.sel != prev {
			m.details.top = 0
			m.refreshDetails()
		}
		return nil
	}
	if g.isLayered() && !m.showDetails {
		m.layeredKeys(msg)
		if g.sel != prev {
			m.details.top = 0
			m.refreshDetails()
		}
		return nil
	}
	if m.showDetails {
		switch {
		case key.Matches(msg, k.Down):
			m.details.scroll(1)
		case key.Matches(msg, k.Up):
			m.details.scroll(-1)
		case key.Matches(msg, k.PageDown):
			m.details.scroll(m.details.height - 1)
		case key.Matches(msg, k.PageUp):
			m.details.scroll(-(m.details.height - 1))
		case key.Matches(msg, k.Details):
			m.showDetails = false
		case key.Matches(msg, k.Dependency):
			g.toDependency()
		case key.Matches(msg, k.Dependent):
			g.toDependent()
		}
		if g.sel != prev {
			m.details.top = 0
			m.refreshDetails()
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
		m.details.top = 0
		m.refreshDetails()
	}
	return nil
}

// paneKey handles the graph pane's keys that work the same in the list and
// the drawing: follow, details, and scrolling the details pane.
func (m *Model) paneKey(msg tea.KeyPressMsg) bool {
	k := m.keys
	g := &m.graph
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
			m.showDetails = true
			m.details.top = 0
		}
	case msg.String() == "J":
		m.details.scroll(1)
	case msg.String() == "K":
		m.details.scroll(-1)
	default:
		return false
	}
	return true
}

// layeredKeys moves around the drawing: h/j/k/l and arrows spatially, [ ]
// along edges (repeated presses visit each neighbour), g/G to the first and
// last layer, pgup/pgdn and H/L pan.
func (m *Model) layeredKeys(msg tea.KeyPressMsg) {
	k := m.keys
	g := &m.graph
	v := g.lay.gv
	follows := g.lay.followDeps + g.lay.followDependents
	moved := true
	switch {
	case key.Matches(msg, k.Down):
		moved = v.Move(graph.Down)
	case key.Matches(msg, k.Up):
		moved = v.Move(graph.Up)
	case key.Matches(msg, k.Left):
		moved = v.Move(graph.Left)
	case key.Matches(msg, k.Right):
		moved = v.Move(graph.Right)
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
	case msg.String() == "L":
		v.Scroll(max(1, g.width/2), 0)
	case msg.String() == "H":
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

func (m *Model) phaseKeys(msg tea.KeyPressMsg) {
	textKeys(&m.phaseText, msg, m.keys)
}

// onWheel scrolls what is under the pointer (the current view).
func (m *Model) onWheel(msg tea.MouseWheelMsg) {
	m.graph.lay.center = false
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
	case m.showHelp:
		m.helpText.scroll(d)
	case m.phase != nil:
		m.phaseText.scroll(d)
	case m.view == viewGraph && m.wide && msg.X > m.graph.width:
		m.details.scroll(d)
	case m.view == viewGraph && m.showDetails:
		m.details.scroll(d)
	case m.view == viewGraph:
		m.graph.scroll(d)
	case m.view == viewBindings:
		m.bindings.move(d)
	case m.view == viewTrail:
		m.trail.move(d)
	case m.view == viewCorrections:
		m.corrections.move(d)
	case m.view == viewObjective:
		m.objective.scroll(d)
	case m.view == viewPrompt:
		m.prompt.scroll(d)
	}
}

// shortHelp is the footer's key hints for the current view.
func (m *Model) shortHelp(room int) string {
	s := m.styles
	var parts []string
	for _, b := range m.keys.shortHelp(m.view, m.phase != nil) {
		h := b.Help()
		st := s.Key
		desc := s.Muted
		if m.readOnly && isWriteKey(m.keys, b) {
			st, desc = s.Muted, s.Muted.Strikethrough(!s.NoColor)
		}
		parts = append(parts, st.Render(h.Key)+" "+desc.Render(h.Desc))
	}
	out := ""
	for _, p := range parts {
		next := out
		if next != "" {
			next += "  "
		}
		next += p
		if lipgloss.Width(next) > room && out != "" {
			break
		}
		out = next
	}
	return out
}

func isWriteKey(k KeyMap, b key.Binding) bool {
	for _, w := range k.writeKeys() {
		if strings.Join(w.Keys(), ",") == strings.Join(b.Keys(), ",") {
			return true
		}
	}
	return false
}

// renderHelp draws the help screen for the current view; write keys are
// greyed out when the TUI is read-only.
func (m *Model) renderHelp() string {
	s := m.styles
	title := "help — " + viewNames[m.view]
	if m.phase != nil {
		title = "help — phase loop"
	}
	// Each group is a block; blocks flow into as many columns as fit.
	var blocks [][]string
	for _, g := range m.keys.helpFor(m.view, m.phase != nil, len(m.loops) > 1) {
		head := g.Title
		if g.Write && m.readOnly {
			head += " (read-only: " + m.readOnlyWhy + ")"
		}
		block := []string{s.Bold.Render(head)}
		for _, b := range g.Keys {
			h := b.Help()
			ks, ds := s.Key, s.Base
			if g.Write && m.readOnly {
				ks, ds = s.Muted, s.Muted
			}
			block = append(block, "  "+ks.Render(padTo(h.Key, 10))+" "+ds.Render(h.Desc))
		}
		blocks = append(blocks, block)
	}
	const colW = 36
	ncols := max(1, min(len(blocks), m.width/colW))
	cols := make([][]string, ncols)
	for _, b := range blocks {
		// The shortest column takes the next block.
		c := 0
		for k := range cols {
			if len(cols[k]) < len(cols[c]) {
				c = k
			}
		}
		if len(cols[c]) > 0 {
			cols[c] = append(cols[c], "")
		}
		cols[c] = append(cols[c], b...)
	}
	lines := []string{s.Title.Render(title), ""}
	for r := 0; ; r++ {
		more := false
		row := ""
		for c := range cols {
			cell := ""
			if r < len(cols[c]) {
				cell, more = cols[c][r], true
			}
			if ncols > 1 && c < ncols-1 {
				cell = padTo(truncate(cell, colW-1), colW)
			}
			row += cell
		}
		if !more {
			break
		}
		lines = append(lines, row)
	}
	lines = append(lines, "")
	if m.view == viewGraph && m.phase == nil {
		for _, l := range wrap("J/K scroll the details pane · pgup/pgdn and H/L pan the drawing · mouse wheel scrolls · 1–6 switch views", max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(l))
		}
	}
	lines = append(lines, s.Muted.Render("? or esc closes this help · j/k scroll"))
	m.helpText.set(lines)
	out := strings.Split(m.helpText.view(), "\n")
	for len(out) < m.height {
		out = append(out, "")
	}
	for i := range out {
		out[i] = padTo(out[i], m.width)
	}
	return strings.Join(out[:m.height], "\n")
}

// jumpTo selects an atom by id (exact, then case-insensitive, then the only
// id with that prefix), as k9s's ':' prompt does for resources.
func (m *Model) jumpTo(q string) {
	if q == "" || m.st == nil {
		return
	}
	id := ""
	if _, ok := m.facts.Index[q]; ok {
		id = q
	} else {
		var prefixed []string
		for _, a := range m.st.Atoms {
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
		m.setStatus("no atom "+termtext.Line(q), statusShort)
		return
	}
	m.setView(viewGraph)
	g := &m.graph
	g.follow = false
	g.selectID(id)
	if g.lay.gv != nil && g.lay.gv.Layout() != nil {
		g.lay.gv.Select(id)
	}
	m.details.top = 0
	m.refreshDetails()
}
