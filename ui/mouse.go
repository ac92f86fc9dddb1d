package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
)

// The mouse: the wheel scrolls what is under the pointer (onWheel), a
// left click selects what the last frame drew under it. A click is read
// against the geometry the render kept — where the tabs were, which rows
// of a list or table were on screen, the drawing's layout and viewport —
// never against a layout worked out again, which could differ from the
// picture the person clicked on.

// shownFrame is where the last frame of a loop drew its tabs and body.
type shownFrame struct {
	// tabsY is the screen row of the tab bar, bodyY the body's first.
	tabsY, bodyY int
	// tabs are the tabs' cells on that row (none when the bar shows the
	// current view alone, or a phase loop's title).
	tabs []tabSpan
	body shownBody
}

// tabSpan is the cells x to x+w-1 of the tab bar, the tab of view.
type tabSpan struct {
	x, w int
	view viewID
}

// shownBody is what the body showed, for which loop, in how many rows.
type shownBody struct {
	loop   *loop
	height int
	// graph is the graph pane's width when it was drawn (0: not drawn;
	// on a wide screen the details follow it); table the table drawn.
	graph int
	table *tableView
}

// onClick acts on a left click in the view on screen: a tab shows its
// view, a row of the graph's list or a box of the drawing selects that
// atom, a row of the bindings, trail or corrections selects it. A click
// while a prompt, a dialog, the help or a panel is in front does nothing
// (the fleet table takes its own clicks: fleettable.Table.Update).
func (m *Model) onClick(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || m.focus != focusView || m.cur == nil {
		return nil
	}
	h := m.here()
	f := &m.shown
	if !h.p.Has(inViews) || f.body.loop != h.l {
		return nil
	}
	if msg.Y == f.tabsY {
		for _, t := range f.tabs {
			if msg.X >= t.x && msg.X < t.x+t.w {
				m.setView(h.l, t.view)
			}
		}
		return nil
	}
	y := msg.Y - f.bodyY
	if y < 0 || y >= f.body.height {
		return nil
	}
	switch b := f.body; {
	case b.graph > 0 && msg.X < b.graph:
		g := &h.l.graph
		if id, ok := g.at(msg.X, y); ok {
			h.onGraph(func() { g.click(id) })
		}
	case b.table != nil:
		b.table.click(y)
	}
	return nil
}

// graphShown is what the graph pane last drew: the rows of the list (atom
// ids, top to bottom), or the drawing (the layered's own shownDrawing).
type graphShown struct {
	layered bool
	rows    []string
}

// at is the atom (or node of the drawing) drawn at the pane's cell (x, y).
func (g *graphView) at(x, y int) (string, bool) {
	if g.shown.layered {
		return g.lay.at(x, y)
	}
	if y < len(g.shown.rows) {
		return g.shown.rows[y], true
	}
	return "", false
}

// click selects id, clicked in the list or the drawing: the person takes
// over, so follow stops.
func (g *graphView) click(id string) {
	g.follow = false
	if g.shown.layered {
		if g.lay.gv.Select(id) {
			g.sel = g.lay.gv.Selected()
		}
		return
	}
	g.selectID(id)
}

// shownDrawing is what the drawing last painted: the layout and the
// viewport it painted (rows of them: the last row of the pane is the
// position line) and the minimap over its corner (W 0: none).
type shownDrawing struct {
	lay  *dagdraw.Layout
	vp   dagdraw.Viewport
	rows int
	mini dagdraw.Rect
}

// at is the node drawn at the pane's cell (x, y): nothing on the position
// line or under the minimap, which hides the boxes beneath it.
func (l *layered) at(x, y int) (string, bool) {
	s := l.shown
	if s.lay == nil || y >= s.rows || x >= s.vp.W || s.mini.Contains(x, y) {
		return "", false
	}
	return s.lay.NodeAt(s.vp.X+x, s.vp.Y+y)
}

// click selects the row drawn y rows under the table's header.
func (t *tableView) click(y int) {
	k := t.shownTop + y - 1
	if y < 1 || y > t.shownRows || k >= len(t.visible) {
		return
	}
	t.sel = k
	t.clamp()
}
