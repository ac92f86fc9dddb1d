package ui

import (
	"fmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// graphView shows the work graph and keeps the selection. It paints a
// layout: the compact list here; the layered drawing plugs in behind the
// same selection, filter and follow logic.
type graphView struct {
	st     *model.State
	facts  *model.Facts
	layout *compactLayout

	width, height int
	// sel is the selected atom id ("" when there are no atoms).
	sel string
	// top is the first visible row of the filtered list; xoff pans.
	top, xoff int
	filter    string
	// visible lists the rows (indexes into layout.order) that pass the filter.
	visible []int
	follow  bool
	// placed is set once the first state has chosen the selection;
	// settle asks the next scroll to put it a third of the way down, so
	// the work ahead of it shows too.
	placed, settle bool
	// exec is the set of executable atom ids; flags the atoms validation
	// findings are about (! an error, ⚠ only warnings).
	exec  map[string]bool
	flags map[string]dagdraw.Flag
	// lay is the layered drawing, shown when it fits (else this list).
	lay layered
	// shown is what view drew last (mouse.go).
	shown graphShown
}

// setState gives the view a new state and what validate reports on it
// (the atoms its findings name are flagged); layouts are rebuilt only
// when the graph's structure changed (the layered one in the background:
// the job it returns, if any).
func (g *graphView) setState(st *model.State, f *model.Facts, r *model.Report) *layoutJob {
	if next, gone := g.nearestRemaining(f); gone {
		// The selected atom went (a correction or the loop deleted it):
		// its neighbour takes its place, so the atom keys keep working.
		g.sel = next
	}
	g.st, g.facts = st, f
	g.lay.noteShape(st, f)
	// The set is emptied and filled again, not made anew: at 10,000 atoms
	// a new map for thousands of executable atoms was a tenth of a
	// millisecond of every write.
	if g.exec == nil {
		g.exec = make(map[string]bool, len(f.Executable))
	}
	clear(g.exec)
	for _, id := range f.Executable {
		g.exec[id] = true
	}
	g.flags = atomFlags(r)
	if g.layout == nil || g.layout.key != g.lay.structure(st) {
		g.layout = buildCompact(st, f)
	}
	g.refilter()
	if g.follow {
		g.followInProgress()
	}
	if !g.placed && len(st.Atoms) > 0 {
		// Opened on a running loop, start where the work is rather than
		// at its first, long-resolved atom.
		g.placed = true
		if id := g.frontier(); id != "" && g.sel == "" {
			g.sel, g.settle, g.lay.center = id, true, true
		}
	}
	if _, ok := f.Index[g.sel]; !ok || g.sel == "" {
		if g.lay.gv == nil || g.lay.gv.Layout() == nil || !g.isLayered() {
			g.selectRow(0)
		}
	}
	g.scrollToSel()
	job := g.lay.refresh(st, f, r, g.nodeWidth())
	if g.lay.gv.Layout() != nil && g.sel != "" {
		g.lay.selectNode(g.sel)
	}
	return job
}

// isLayered reports whether the pane shows the layered drawing: the person
// prefers it (v), no filter is active (a filter lists its matches), it has
// a layout, the pane is big enough and the graph not too big.
func (g *graphView) isLayered() bool {
	ok, _ := g.layeredWhy()
	return ok
}

// layeredWhy also says why the list is shown instead, for the footer.
func (g *graphView) layeredWhy() (bool, string) {
	l := &g.lay
	prefer := l.prefer
	if !l.chosen {
		prefer = g.width >= autoLayeredWidth
	}
	switch {
	case l.gv == nil || !prefer:
		return false, ""
	case g.filter != "":
		return false, "filtered: the matches as a list"
	case g.st != nil && len(g.st.Atoms) > maxLayered && !l.forced:
		return false, fmt.Sprintf("%d atoms: the list (v draws the graph anyway)", len(g.st.Atoms))
	}
	if ok, why := dagdraw.Fits(g.width, g.height-1, l.opt.Orientation); !ok {
		return false, why
	}
	if l.gv.Layout() == nil {
		return false, "laying out the graph…"
	}
	return true, ""
}

// toggleLayered switches between the drawing and the list (v).
func (g *graphView) toggleLayered() {
	l := &g.lay
	if l.gv == nil {
		return
	}
	showing := g.isLayered()
	l.chosen = true
	if showing {
		l.prefer = false
		return
	}
	l.prefer = true
	if g.st != nil && len(g.st.Atoms) > maxLayered {
		l.forced = true
	}
}

// forcedJob starts the layout of a big graph the person asked to draw.
func (g *graphView) forcedJob() *layoutJob {
	l := &g.lay
	if !l.forced || g.st == nil || l.gv.Layout() != nil || l.pending != 0 {
		return nil
	}
	l.pending = l.layoutKey(g.st)
	return &layoutJob{old: nil, g: l.jobGraph(), opt: l.opt, key: l.pending}
}

func (g *graphView) setSize(w, h int) {
	if h != g.height {
		g.lay.rowCap = 0 // another height: the rows may fit again
	}
	g.width, g.height = w, h
	g.scrollToSel()
	if g.lay.gv != nil {
		g.lay.gv.SetSize(w, max(1, h-1))
		if g.lay.center && g.lay.gv.Layout() != nil && g.sel != "" {
			g.lay.selectNode(g.sel)
		}
	}
}

// relayoutJob returns a layout job when the node width the pane calls for,
// the rows of text it has room for, or the options, changed since the
// installed layout.
func (g *graphView) relayoutJob() *layoutJob {
	l := &g.lay
	if l.gv == nil || g.st == nil || g.facts == nil {
		return nil
	}
	l.want(g.nodeWidth())
	key := l.layoutKey(g.st)
	if key == l.key {
		return g.rowsJob() // the same boxes: the pane's height may call for more rows, or fewer
	}
	if l.opt.NodeWidth != l.wanted {
		// Other options (orientation, collapse) make another shape: the
		// boxes start again from the width the pane calls for.
		l.opt.NodeWidth, l.opt.TitleLines, l.shrinks, l.grown, l.rowCap = l.wanted, 0, 0, false, 0
		key = l.layoutKey(g.st)
	}
	if key == l.pending || (len(g.st.Atoms) > maxLayered && !l.forced) {
		return nil
	}
	l.pending = key
	return &layoutJob{old: l.gv.Layout(), g: l.jobGraph(), opt: l.opt, key: key}
}

func (g *graphView) setFilter(f string) {
	g.filter = f
	g.refilter()
	if g.rowOfSel() < 0 && len(g.visible) > 0 {
		g.selectRow(0)
	}
	g.scrollToSel()
}

func (g *graphView) refilter() {
	g.visible = g.visible[:0]
	if g.layout == nil {
		return
	}
	for r, i := range g.layout.order {
		if g.filter == "" || atomMatches(&g.st.Atoms[i], g.filter) {
			g.visible = append(g.visible, r)
		}
	}
}

// rowOfSel is the selection's index in visible, or -1.
func (g *graphView) rowOfSel() int {
	if g.layout == nil {
		return -1
	}
	r, ok := g.layout.row[g.sel]
	if !ok {
		return -1
	}
	for k, v := range g.visible {
		if v == r {
			return k
		}
	}
	return -1
}

func (g *graphView) selectRow(k int) {
	if len(g.visible) == 0 {
		g.sel = ""
		return
	}
	k = min(max0(k), len(g.visible)-1)
	g.sel = g.st.Atoms[g.layout.order[g.visible[k]]].ID
}

func (g *graphView) moveBy(d int) {
	g.follow = false
	k := g.rowOfSel()
	if k < 0 {
		// Nothing selected: any move selects the first atom in sight.
		g.selectRow(g.top)
		g.scrollToSel()
		return
	}
	g.selectRow(k + d)
	g.scrollToSel()
}

// nearestRemaining is what to select when the selected atom is not in the
// state f describes (gone is false while it is, or nothing was selected):
// the atom after it in the order on screen (the drawing's reading order,
// or the list's), else the one before it, else "".
func (g *graphView) nearestRemaining(f *model.Facts) (next string, gone bool) {
	if g.sel == "" || g.facts == nil || g.layout == nil {
		return "", false
	}
	if _, was := g.facts.Index[g.sel]; !was {
		return "", false // a summary or a collapsed parent's node: the drawing's
	}
	if _, still := f.Index[g.sel]; still {
		return "", false
	}
	alive := func(id string) bool { _, ok := f.Index[id]; return ok }
	if g.isLayered() {
		if lay := g.lay.gv.Layout(); lay != nil {
			if id, ok := lay.Nearest(g.sel, alive); ok {
				return id, true
			}
		}
	}
	k := g.rowOfSel()
	if k < 0 {
		return "", true
	}
	for _, r := range g.visible[k+1:] {
		if id := g.st.Atoms[g.layout.order[r]].ID; alive(id) {
			return id, true
		}
	}
	for i := k - 1; i >= 0; i-- {
		if id := g.st.Atoms[g.layout.order[g.visible[i]]].ID; alive(id) {
			return id, true
		}
	}
	return "", true
}

func (g *graphView) home() { g.follow = false; g.selectRow(0); g.scrollToSel() }
func (g *graphView) end()  { g.follow = false; g.selectRow(len(g.visible) - 1); g.scrollToSel() }

// selectID selects an atom by id (clearing a filter that hides it).
func (g *graphView) selectID(id string) bool {
	if g.layout == nil {
		return false
	}
	if _, ok := g.layout.row[id]; !ok {
		return false
	}
	g.sel = id
	if g.rowOfSel() < 0 {
		g.setFilter("")
	}
	g.scrollToSel()
	return true
}

// toDependency selects the nearest dependency above the selection;
// toDependent the nearest dependent below it.
func (g *graphView) toDependency() bool {
	a := g.selected()
	if a == nil || len(a.DependsOn) == 0 {
		return false
	}
	ids := g.layout.sortedIDs(a.DependsOn)
	g.follow = false
	return g.selectID(ids[len(ids)-1])
}

func (g *graphView) toDependent() bool {
	a := g.selected()
	if a == nil || len(g.facts.Dependents()[a.ID]) == 0 {
		return false
	}
	g.follow = false
	return g.selectID(g.layout.sortedIDs(g.facts.Dependents()[a.ID])[0])
}

// frontier is the first in-progress atom in display order, else the first
// atom of the next batch, else "".
func (g *graphView) frontier() string {
	for _, r := range g.visible {
		if a := &g.st.Atoms[g.layout.order[r]]; a.Status == model.StatusInProgress {
			return a.ID
		}
	}
	if len(g.facts.NextBatch) > 0 {
		return g.facts.NextBatch[0]
	}
	return ""
}

// followInProgress selects the first in-progress atom in display order.
func (g *graphView) followInProgress() {
	for _, r := range g.visible {
		a := &g.st.Atoms[g.layout.order[r]]
		if a.Status == model.StatusInProgress {
			g.sel = a.ID
			return
		}
	}
}

func (g *graphView) toggleFollow() {
	g.follow = !g.follow
	if g.follow {
		g.followInProgress()
		g.scrollToSel()
	}
}

func (g *graphView) selected() *model.Atom {
	if g.st == nil || g.facts == nil {
		return nil
	}
	i, ok := g.facts.Index[g.sel]
	if !ok {
		return nil
	}
	return &g.st.Atoms[i]
}

// scrollToSel keeps the selection in view with a margin of two rows.
func (g *graphView) scrollToSel() {
	h := g.height
	if h <= 0 {
		return
	}
	k := g.rowOfSel()
	if k < 0 {
		g.top = min(g.top, max0(len(g.visible)-h))
		return
	}
	if g.settle {
		g.settle = false
		g.top = k - h/3
	}
	margin := min(2, (h-1)/2)
	if k < g.top+margin {
		g.top = k - margin
	}
	if k > g.top+h-1-margin {
		g.top = k - h + 1 + margin
	}
	g.top = min(max0(g.top), max0(len(g.visible)-h))
}

func (g *graphView) scroll(d int) {
	g.top = min(max0(g.top+d), max0(len(g.visible)-g.height))
}

func (g *graphView) pan(d int) { g.xoff = max0(g.xoff + d) }

// view paints the pane: the layered drawing or the list, both painting
// only what is visible, so the cost does not grow with the graph.
func (g *graphView) view(s Styles, st dagdraw.Styler) string {
	g.shown = graphShown{rows: g.shown.rows[:0]}
	if g.height <= 0 || g.width <= 0 {
		return ""
	}
	if g.isLayered() {
		g.shown.layered = true
		return g.lay.view(g.width, g.height, st, s)
	}
	if g.layout == nil || len(g.st.Atoms) == 0 {
		return s.Muted.Render(padTo("no atoms", g.width))
	}
	if len(g.visible) == 0 {
		return s.Muted.Render(padTo(fmt.Sprintf("no atom matches %q", termtext.Line(g.filter)), g.width))
	}
	lines := make([]string, 0, g.height)
	for k := g.top; k < len(g.visible) && len(lines) < g.height; k++ {
		i := g.layout.order[g.visible[k]]
		lines = append(lines, g.row(i, s))
		g.shown.rows = append(g.shown.rows, g.st.Atoms[i].ID)
	}
	return strings.Join(lines, "\n")
}

// row renders one atom: cursor, executable mark, indentation by depth,
// status glyph, id, description and hints (dependencies, OR group,
// decomposition), cut to the pane with the horizontal pan applied. The
// description comes first: hints that do not fit after it are left out
// (the details list them all), and it is cut only where it alone is wider
// than the pane.
func (g *graphView) row(i int, s Styles) string {
	a := &g.st.Atoms[i]
	selected := a.ID == g.sel
	cursor := " "
	if selected {
		cursor = markCursor.String()
	}
	exec := " "
	switch {
	case g.flags[a.ID] == dagdraw.FlagError:
		exec = s.Danger.Bold(true).Render(string(dagdraw.FlagError.Glyph()))
	case g.flags[a.ID] == dagdraw.FlagWarning:
		exec = s.Warn.Render(string(dagdraw.FlagWarning.Glyph()))
	case g.exec[a.ID]:
		exec = s.Executable.Render(markReady.String())
	}
	depth := g.layout.depth[i]
	maxIndent := max0(g.width/3) / 2
	indent := strings.Repeat("  ", min(depth, maxIndent))
	if depth > maxIndent {
		indent = indent[:max0(len(indent)-2)] + markDeep.String() + " "
	}
	glyph := s.Atom(a.Status).Render(loopword.AtomGlyph(a.Status))
	id := s.Bold.Render(termtext.Line(a.ID))
	head := cursor + exec + indent + glyph + " " + id + " "
	desc := termtext.Line(a.Description)
	hints := g.hints(a)
	var full string
	if g.xoff > 0 {
		full = head + desc
		if len(hints) > 0 {
			full += "  " + s.Muted.Render(strings.Join(hints, "  "))
		}
		full = ansi.Cut(full, g.xoff, g.xoff+g.width)
	} else {
		room := g.width - lipgloss.Width(head)
		used := lipgloss.Width(desc)
		var shown []string
		for _, h := range hints {
			if used+2+lipgloss.Width(h) > room {
				break
			}
			shown = append(shown, h)
			used += 2 + lipgloss.Width(h)
		}
		full = head + cells.Cut(desc, room)
		if len(shown) > 0 {
			full += "  " + s.Muted.Render(strings.Join(shown, "  "))
		}
	}
	line := padTo(cells.Cut(full, g.width), g.width)
	if selected {
		return s.Selected.Render(line)
	}
	return line
}

// hints are an atom's relations for its row, most telling first:
// dependencies, OR group, parts, parent.
func (g *graphView) hints(a *model.Atom) []string {
	f := g.facts
	var parts []string
	if len(a.DependsOn) > 0 {
		deps := a.DependsOn
		txt := strings.Join(deps, " ")
		if len(deps) > 3 {
			txt = strings.Join(deps[:3], " ") + fmt.Sprintf(" +%d", len(deps)-3)
		}
		parts = append(parts, markDeps.String()+" "+termtext.Line(txt))
	}
	if grp := f.ORGroupOf[a.ID]; grp != "" {
		mark := ""
		if g2, ok := g.st.ORGroup(grp); ok {
			switch {
			case g2.Selected == a.ID:
				mark = markChosen.String()
			case contains(g2.Failed, a.ID):
				mark = markFailed.String()
			}
		}
		parts = append(parts, markOR.String()+" "+termtext.Line(grp)+mark)
	}
	if kids := f.ChildrenOf[a.ID]; len(kids) > 0 {
		parts = append(parts, fmt.Sprintf("%s %d parts", markParts, len(kids)))
	}
	if p, ok := f.ParentOf[a.ID]; ok {
		parts = append(parts, markPartOf.String()+" "+termtext.Line(p))
	}
	return parts
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// padTo pads s with spaces to exactly w cells (truncating if longer).
func padTo(s string, w int) string { return cells.Pad(s, w) }
