package dagdraw

// View bundles a layout, its decoration, a viewport and the selection: the
// state the UI's graph pane needs, with the rules that keep it calm while
// the loop runs. It is a plain value holder (no Bubble Tea); the UI calls
// its methods from Update and paints it in View.
type View struct {
	layout   *Layout
	deco     *Decoration
	opt      Options
	vp       Viewport
	selected string
	margin   int
	relaid   int // layouts computed, for tests and the UI's cache keys
}

// NewView returns an empty view of w×h cells.
func NewView(w, h int) *View {
	return &View{vp: Viewport{W: w, H: h}, margin: 2}
}

// SetGraph shows g. The layout is recomputed only when g's structure
// differs from the last graph's; a pure status change only redecorates.
// After a new layout the selected node keeps its place on screen.
func (v *View) SetGraph(g Graph) {
	v.update(g, v.opt)
}

// SetOptions changes orientation, node width or collapse state.
func (v *View) SetOptions(g Graph, opt Options) {
	v.opt = opt
	v.update(g, opt)
}

// Options returns the current options.
func (v *View) Options() Options { return v.opt }

func (v *View) update(g Graph, opt Options) {
	v.Install(v.layout.Update(g, opt), g, opt)
}

// Install adopts nl, a layout computed for g and opt by Layout.Update on
// the view's current Layout() (possibly on another goroutine: layouts are
// not modified once built), and keeps the selection on its screen row.
func (v *View) Install(nl *Layout, g Graph, opt Options) {
	v.opt = opt
	old := v.layout
	var a Anchor
	if old != nil && v.selected != "" {
		a = v.vp.Anchor(old, v.selected)
	}
	if nl != old {
		v.relaid++
	}
	v.layout = nl
	v.deco = nl.Decorate(g)
	if v.selected != "" {
		if rid, ok := nl.Resolve(v.selected); ok {
			v.selected = rid
		} else if _, ok := nl.index[v.selected]; !ok {
			v.selected = ""
		}
	}
	switch {
	case old == nil:
		v.vp = nl.Home(v.vp.W, v.vp.H)
		if id, ok := nl.FirstLayer(); ok && v.selected == "" {
			v.selected = id
		}
		v.ensureVisible()
	case nl != old && a.ok:
		v.vp = a.Restore(nl, v.vp)
	}
}

// SetSize changes the viewport's size, keeping the selection in view.
func (v *View) SetSize(w, h int) {
	v.vp.W, v.vp.H = w, h
	v.ensureVisible()
}

// Layout returns the current layout (nil before SetGraph).
func (v *View) Layout() *Layout { return v.layout }

// Viewport returns the visible rectangle.
func (v *View) Viewport() Viewport { return v.vp }

// Selected returns the selected node's id ("" for none).
func (v *View) Selected() string { return v.selected }

// Select selects id (any id of the graph: hidden or folded ids select the
// node that draws them) and scrolls it into view.
func (v *View) Select(id string) bool {
	if v.layout == nil {
		return false
	}
	rid, ok := v.layout.Resolve(id)
	if !ok {
		if _, ok2 := v.layout.index[id]; !ok2 {
			return false
		}
		rid = id
	}
	v.selected = rid
	v.ensureVisible()
	return true
}

// Center selects id like Select and scrolls so its node sits in the
// middle of the view (as far as the layout's edges allow).
func (v *View) Center(id string) bool {
	if !v.Select(id) {
		return false
	}
	if r, ok := v.layout.Node(v.selected); ok {
		v.vp.X = r.X + r.W/2 - v.vp.W/2
		v.vp.Y = r.Y + r.H/2 - v.vp.H/2
		v.vp = v.vp.Clamp(v.layout)
		v.ensureVisible()
	}
	return true
}

// Move selects the nearest node in direction d (h/j/k/l). With no
// selection (or one no longer drawn) it selects the first node in sight.
func (v *View) Move(d Direction) bool {
	if v.layout == nil {
		return false
	}
	if _, drawn := v.layout.index[v.selected]; !drawn {
		id, ok := v.layout.FirstInSight(v.vp)
		return ok && v.Select(id)
	}
	id, ok := v.layout.Move(v.selected, d)
	if ok {
		v.Select(id)
	}
	return ok
}

// Scroll pans the viewport by dx, dy cells (the selection may leave view).
func (v *View) Scroll(dx, dy int) {
	v.vp.X += dx
	v.vp.Y += dy
	if v.layout != nil {
		v.vp = v.vp.Clamp(v.layout)
	}
}

func (v *View) ensureVisible() {
	if v.layout != nil && v.selected != "" {
		v.vp = v.vp.Follow(v.layout, v.selected, v.margin).Clamp(v.layout).Settle(v.layout, v.selected, v.margin)
	}
}

// Canvas paints the viewport.
func (v *View) Canvas() *Canvas {
	if v.layout == nil {
		return newCanvas(v.vp.W, v.vp.H)
	}
	return v.layout.Paint(v.deco, v.vp.Rect(), v.selected)
}

// Render paints the viewport and renders it with s (nil: plain text).
func (v *View) Render(s Styler) string { return v.Canvas().Render(s) }

// FollowDependency selects the k-th dependency of the selection (in screen
// order, wrapping around), so repeated presses visit each one.
func (v *View) FollowDependency(k int) bool { return v.follow(true, k) }

// FollowDependent selects the k-th dependent of the selection.
func (v *View) FollowDependent(k int) bool { return v.follow(false, k) }

func (v *View) follow(deps bool, k int) bool {
	if v.layout == nil || v.selected == "" {
		return false
	}
	ns := v.layout.neighbours(v.selected, deps)
	if len(ns) == 0 {
		return false
	}
	return v.Select(ns[((k%len(ns))+len(ns))%len(ns)])
}

// First selects the first node of the first layer (g); Last the first of
// the last layer (G).
func (v *View) First() bool { return v.end(true) }

// Last selects the first node of the last layer.
func (v *View) Last() bool { return v.end(false) }

func (v *View) end(first bool) bool {
	if v.layout == nil {
		return false
	}
	id, ok := v.layout.layerEnd(first)
	return ok && v.Select(id)
}

// Relaid counts the layouts this view has computed (not redecorations):
// the UI can key render caches on it.
func (v *View) Relaid() int { return v.relaid }
