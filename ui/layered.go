package ui

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopgraph"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// maxLayered is the largest graph drawn as layers by default; bigger ones
// show the list (v draws the graph anyway). A fresh layout of 10,000 atoms
// takes well under a second (BenchmarkLayoutSim10000, ...Long10000 in
// dagdraw).
const maxLayered = 10000

// autoLayeredWidth is the narrowest graph pane that shows the drawing
// before the person picks with v: narrower split panes read better as the
// list.
const autoLayeredWidth = 70

// layered is the graph pane's layered drawing (dagdraw) and what the view
// needs to keep it calm: the layout is recomputed off the UI goroutine and
// only when the structure or the options change.
type layered struct {
	gv  *dagdraw.View
	opt dagdraw.Options
	// g is the graph of the last state; key is the structure the
	// installed layout was made for; pending the one being computed.
	g            dagdraw.Graph
	key, pending uint64
	// prefer is the person's choice (v): the drawing or the list; until
	// they choose, the drawing shows in panes of at least autoLayeredWidth
	// columns and the list in narrower ones.
	prefer, chosen bool
	// forced draws the graph even above maxLayered.
	forced bool
	// follows counts repeated [ / ] presses to visit each neighbour.
	followDeps, followDependents int
	// hideMinimap turns the minimap off (m).
	hideMinimap bool
	// center keeps the view centred on the selection from the first
	// placement (where there is no earlier view to keep) through the
	// relayouts and resizes that follow it, until the person moves.
	center bool
	// wanted is the box width chosen for the pane (graphView.nodeWidth);
	// shrinks counts the narrower relayouts tried for it, grown notes the
	// wider one; rowCap, when set, is the most rows of text that fitted
	// the pane's height.
	wanted, shrinks, rowCap int
	grown                   bool
	// minimap is the minimap drawn last (nil when none was), for the
	// legend.
	minimap *dagdraw.Canvas
	// mini is the last minimap made, with what it was made of: it depends
	// on the layout (immutable) and the viewport alone, so a write that
	// keeps them (a status change) draws it again from it instead of
	// placing every node of the layout on it again.
	mini miniMemo
	// shown is what view painted last (mouse.go).
	shown shownDrawing
	// skey is structureKey(skeyOf), kept: a state's key is asked for by
	// the list, the layout key and each relayout. skeyFacts are
	// skeyOf's facts: a state whose facts share their shape has its key
	// (noteShape).
	skeyOf    *model.State
	skeyFacts *model.Facts
	skey      uint64
	// gkey is the structure g was built for; nodeAtom are the atoms of
	// its nodes (indexes into the state's atoms), nodeOf the node of each
	// atom (-1: none, a repeated id) and desc the descriptions the labels
	// were made from (graphOf).
	gkey     uint64
	nodeAtom []int
	nodeOf   []int
	desc     []string
	// exec are the executable atoms g marks (model.Facts.Executable).
	exec []string
	// spare are the nodes of the graph before g, of g's structure, for
	// graphOf to write the next graph's into (nil: none, or given to a
	// layout job, which may still read them); lent says g's nodes were
	// given to one (jobGraph).
	spare []dagdraw.Node
	lent  bool
	// pad pads the lines view draws.
	pad padMemo
}

// want makes w the boxes' width, when the pane or the graph's shape call
// for another than before: the narrower relayouts and the rows tried for
// the old one start over.
func (l *layered) want(w int) {
	if w == l.wanted {
		return
	}
	l.wanted, l.opt.NodeWidth, l.shrinks, l.rowCap, l.grown = w, w, 0, 0, false
}

// layoutJob is a layout to compute in the background.
type layoutJob struct {
	old *dagdraw.Layout
	g   dagdraw.Graph
	opt dagdraw.Options
	key uint64
}

// layoutMsg delivers a computed layout (in its loop's envelope).
type layoutMsg struct {
	job layoutJob
	nl  *dagdraw.Layout
}

// run computes the layout.
func (j *layoutJob) run() layoutMsg { return j.runOn(0) }

// runOn is run on at most workers goroutines (0: GOMAXPROCS; see
// dagdraw.Options.Workers, which the job's options keep at 0).
func (j *layoutJob) runOn(workers int) layoutMsg {
	opt := j.opt
	opt.Workers = workers
	return layoutMsg{job: *j, nl: j.old.Update(j.g, opt)}
}

// structure is structureKey(st), computed once per state.
func (l *layered) structure(st *model.State) uint64 {
	if st != l.skeyOf {
		l.skeyOf, l.skeyFacts, l.skey = st, nil, structureKey(st)
	}
	return l.skey
}

// noteShape gives structure st's key, st's facts being f: when the
// watcher's Deriver found st of the last state's shape
// (model.Facts.SameShape), the key is the last one's, without hashing the
// graph again.
func (l *layered) noteShape(st *model.State, f *model.Facts) {
	switch {
	case st == l.skeyOf:
	case l.skeyOf != nil && f.SameShape(l.skeyFacts):
		l.skeyOf = st
	default:
		l.skeyOf, l.skey = st, structureKey(st)
	}
	l.skeyFacts = f
}

// layoutKey is layoutKeyOf st with the options now.
func (l *layered) layoutKey(st *model.State) uint64 {
	return layoutKeyOf(l.structure(st), st, l.opt)
}

// layoutKeyOf fingerprints what decides the layout: the graph's structure
// (skey, st's structureKey), the options and, when resolved history is
// collapsed, which atoms are resolved.
func layoutKeyOf(skey uint64, st *model.State, opt dagdraw.Options) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%d|%d|%d|%v|", skey, opt.Orientation, opt.NodeWidth, opt.TitleLines, opt.CollapseResolved)
	var ids []string
	for id, on := range opt.Collapsed {
		if on {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	fmt.Fprint(h, strings.Join(ids, ","), "|")
	if opt.CollapseResolved {
		for _, a := range st.Atoms {
			if a.Status == model.StatusResolved {
				h.Write([]byte(a.ID))
				h.Write([]byte{0})
			}
		}
	}
	return h.Sum64()
}

// refresh gives the drawing a new state: a decoration-only change is
// applied at once; a structure change returns a job to lay out in the
// background (the previous layout stays on screen meanwhile).
func (l *layered) refresh(st *model.State, f *model.Facts, r *model.Report, nodeWidth int) *layoutJob {
	if l.gv == nil {
		l.gv = dagdraw.NewView(1, 1)
	}
	l.g = l.graphOf(st, f, r)
	l.opt.FitTitles = true
	l.want(nodeWidth)
	key := l.layoutKey(st)
	if l.gv.Layout() != nil && key == l.key {
		// The same structure: redecorate the installed layout. SetGraph
		// would rebuild the structure only to find it unchanged (8 ms a
		// write at 10,000 atoms).
		l.gv.Install(l.gv.Layout(), l.g, l.gv.Options())
		return nil
	}
	if key == l.pending {
		return nil
	}
	if len(st.Atoms) > maxLayered && !l.forced {
		return nil // the list shows graphs this big; v asks for the drawing
	}
	l.pending = key
	return &layoutJob{old: l.gv.Layout(), g: l.jobGraph(), opt: l.opt, key: key}
}

// graphOf is the drawing's graph of st: loopgraph.FromState with the
// findings' flags (loopgraph.Flags). A state of the structure of the last
// one (a write that changed statuses, the control block, descriptions or
// OR selections) takes the last graph's edges and decompositions and its
// nodes but for their status, executable mark and flag; a label is made
// again only when its description changed. That keeps a write at 10,000
// atoms from sanitising every description again (issue 26).
func (l *layered) graphOf(st *model.State, f *model.Facts, r *model.Report) dagdraw.Graph {
	skey := l.structure(st)
	old := l.g
	if skey != l.gkey || len(old.Nodes) == 0 || len(l.nodeAtom) != len(old.Nodes) {
		g := loopgraph.FromState(st, f)
		loopgraph.Flags(&g, r)
		l.gkey, l.exec = skey, f.Executable
		l.spare, l.lent = nil, false
		l.nodeAtom, l.desc, l.nodeOf = l.nodeAtom[:0], l.desc[:0], slices.Grow(l.nodeOf[:0], len(st.Atoms))
		for i := range st.Atoms {
			k, ok := f.Index[st.Atoms[i].ID]
			if !ok || k != i {
				l.nodeOf = append(l.nodeOf, -1)
				continue
			}
			l.nodeOf = append(l.nodeOf, len(l.nodeAtom))
			l.nodeAtom = append(l.nodeAtom, i)
			l.desc = append(l.desc, st.Atoms[i].Description)
		}
		return g
	}
	// The nodes are written into those of the graph before the last one
	// (the drawing keeps only what it decorated with them), unless a
	// layout job may read them; the last graph's are the spare for the
	// next write unless a job was given them.
	// A spare of this structure has the nodes' ids already, and mostly
	// their labels: only what differs is written (a string written into
	// the heap costs a write barrier while the collector marks).
	nodes, recycled := l.spare, true
	if len(nodes) != len(old.Nodes) {
		nodes, recycled = make([]dagdraw.Node, len(old.Nodes)), false
	}
	l.spare = old.Nodes
	if l.lent {
		l.spare = nil
	}
	l.lent = false
	g := dagdraw.Graph{Nodes: nodes, Edges: old.Edges, Decomps: old.Decomps}
	for k, i := range l.nodeAtom {
		a := &st.Atoms[i]
		was := &old.Nodes[k]
		label := was.Label
		if a.Description != l.desc[k] {
			label, l.desc[k] = termtext.Line(a.Description), a.Description
		}
		n := &g.Nodes[k]
		if !recycled {
			n.ID = was.ID
		}
		if !recycled || n.Label != label {
			n.Label = label
		}
		n.Status, n.Flag, n.Executable = loopgraph.StatusOf(a.Status), 0, was.Executable
	}
	// What changed of the executable atoms and the flagged ones is looked
	// up, not every node.
	node := func(id string) *dagdraw.Node {
		if i, ok := f.Index[id]; ok && l.nodeOf[i] >= 0 {
			return &g.Nodes[l.nodeOf[i]]
		}
		return nil
	}
	l.markExecutable(l.exec, f.Executable, f.Index, node)
	l.exec = f.Executable
	for id, flag := range loopgraph.FlagsOf(r) {
		if n := node(id); n != nil {
			n.Flag = flag
		}
	}
	for _, o := range st.ORGroups {
		g.ORGroups = append(g.ORGroups, dagdraw.ORGroup{
			Name:     o.Name,
			Choices:  append([]string(nil), o.Choices...),
			Selected: o.Selected,
			Failed:   append([]string(nil), o.Failed...),
		})
	}
	return g
}

// jobGraph is g, for a layout job: its nodes are not written again.
func (l *layered) jobGraph() dagdraw.Graph {
	l.lent = true
	return l.g
}

// markExecutable moves the nodes' executable marks from the atoms was
// lists to those is lists: both list the ids of atoms in file order
// (model.Facts.Executable of two states of one structure), and where they
// differ an id is looked up in index to tell which comes first.
func (l *layered) markExecutable(was, is []string, index map[string]int, node func(string) *dagdraw.Node) {
	set := func(id string, on bool) {
		if n := node(id); n != nil {
			n.Executable = on
		}
	}
	i, j := 0, 0
	for i < len(was) && j < len(is) {
		switch {
		case was[i] == is[j]:
			i, j = i+1, j+1
		case index[was[i]] < index[is[j]]:
			set(was[i], false)
			i++
		default:
			set(is[j], true)
			j++
		}
	}
	for ; i < len(was); i++ {
		set(was[i], false)
	}
	for ; j < len(is); j++ {
		set(is[j], true)
	}
}

// install adopts a computed layout unless a newer one is on its way.
func (l *layered) install(msg layoutMsg, sel string) {
	if msg.job.key != l.pending {
		return
	}
	l.pending = 0
	l.key = msg.job.key
	l.gv.Install(msg.nl, l.g, msg.job.opt)
	if sel != "" {
		l.selectNode(sel)
	}
}

// selectNode selects id in the drawing, centred while center is set.
func (l *layered) selectNode(id string) {
	if l.center && l.gv.Center(id) {
		return
	}
	l.gv.Select(id)
}

// graphStyler maps the drawing's classes to the theme.
func graphStyler(s Styles) dagdraw.Styler {
	if s.NoColor {
		return nil
	}
	var table [64][2]string
	set := func(c dagdraw.Class, st lipgloss.Style) {
		out := st.Render("\uE000")
		i := strings.Index(out, "\uE000")
		if i < 0 {
			return
		}
		table[c] = [2]string{out[:i], out[i+len("\uE000"):]}
	}
	set(dagdraw.ClassEdge, s.Muted)
	set(dagdraw.ClassEdgeActive, s.Accent.Bold(true))
	set(dagdraw.ClassEdgePartOf, s.Muted)
	set(dagdraw.ClassEdgeCross, s.Muted)
	set(dagdraw.ClassArrow, s.Muted)
	set(dagdraw.ClassArrowActive, s.Accent.Bold(true))
	set(dagdraw.ClassBorder, s.Border)
	set(dagdraw.ClassBorderSelected, s.Accent.Bold(true))
	set(dagdraw.ClassBorderMissing, s.Danger)
	set(dagdraw.ClassBorderChosen, s.OK)
	set(dagdraw.ClassBorderFailed, s.Muted)
	set(dagdraw.ClassBorderSummary, s.Muted)
	set(dagdraw.ClassPending, s.Atom(model.StatusPending))
	set(dagdraw.ClassInProgress, s.Atom(model.StatusInProgress))
	set(dagdraw.ClassResolved, s.Atom(model.StatusResolved))
	set(dagdraw.ClassUnknown, s.Danger)
	set(dagdraw.ClassReady, s.Executable)
	set(dagdraw.ClassFailedMark, s.Danger)
	set(dagdraw.ClassFlagError, s.Danger.Bold(true))
	set(dagdraw.ClassFlagWarning, s.Warn)
	set(dagdraw.ClassFolded, s.Bold)
	set(dagdraw.ClassID, s.Bold)
	set(dagdraw.ClassLabel, s.Base)
	set(dagdraw.ClassLabelFailed, s.Muted.Strikethrough(true))
	set(dagdraw.ClassLabelResolved, s.Muted)
	set(dagdraw.ClassFrame, s.Border)
	set(dagdraw.ClassFrameOR, s.Warn)
	set(dagdraw.ClassFrameLabel, s.Muted)
	set(dagdraw.ClassFrameORLabel, s.Warn)
	set(dagdraw.ClassMinimap, s.Muted)
	set(dagdraw.ClassMinimapView, s.Accent)
	set(dagdraw.ClassIndicator, s.Muted)
	return dagdraw.StyleFunc(func(c dagdraw.Class) (string, string) {
		if int(c) < len(table) {
			return table[c][0], table[c][1]
		}
		return "", ""
	})
}

// layeredView paints the drawing in w×h cells: h-1 rows of graph and a
// position line.
func (l *layered) view(w, h int, st dagdraw.Styler, s Styles) string {
	lines := l.gv.Canvas().Lines(st)
	ind := ""
	if lay := l.gv.Layout(); lay != nil {
		ind = lay.Indicator(l.gv.Viewport())
	}
	if l.pending != 0 {
		ind = "laying out… · " + ind
	}
	opts := []string{}
	if l.opt.Orientation == dagdraw.LeftRight {
		opts = append(opts, "left-right")
	}
	if l.opt.CollapseResolved {
		opts = append(opts, "resolved collapsed")
	}
	if len(opts) > 0 {
		ind += " · " + strings.Join(opts, ", ")
	}
	l.minimap = nil
	l.shown = shownDrawing{lay: l.gv.Layout(), vp: l.gv.Viewport(), rows: len(lines)}
	if lay := l.gv.Layout(); lay != nil && !l.hideMinimap {
		lines, l.minimap, l.shown.mini = overlayMinimap(lines, lay, l.gv.Viewport(), l.gv.Selected(), w, st, s, &l.mini)
	}
	lines = append(lines, s.Muted.Render(padTo(truncate(termtext.Line(ind), w), w)))
	l.pad.pad(lines, w)
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines[:h], "\n")
}

// overlayMinimap draws a framed minimap of the whole layout in the
// bottom-right corner of the drawing when the layout is bigger than the
// view (and the pane has room for it) — bottom-left or top-right when the
// selected node is under that corner, and not at all when it is under
// every one of them. It returns the lines, the minimap's canvas (nil when
// it drew none) and the cells it covers (none: W 0).
func overlayMinimap(lines []string, lay *dagdraw.Layout, vp dagdraw.Viewport, sel string, w int, st dagdraw.Styler, s Styles, memo *miniMemo) ([]string, *dagdraw.Canvas, dagdraw.Rect) {
	b := lay.Bounds()
	h := len(lines)
	if (b.W <= vp.W && b.H <= vp.H) || w < 60 || h < 14 {
		return lines, nil, dagdraw.Rect{}
	}
	mw, mh := min(28, w/4), min(7, h/3)
	mini := memo.of(lay, mw-2, mh-2, vp)
	inner := mini.Lines(st)
	box := make([]string, 0, mh)
	box = append(box, s.Border.Render("┌"+strings.Repeat("─", mw-2)+"┐"))
	for _, l := range inner {
		box = append(box, s.Border.Render("│")+l+s.Border.Render("│"))
	}
	box = append(box, s.Border.Render("└"+strings.Repeat("─", mw-2)+"┘"))
	x, y0, ok := minimapCorner(lay, vp, sel, w, h, mw, len(box))
	if !ok {
		return lines, nil, dagdraw.Rect{}
	}
	for i, bl := range box {
		y := y0 + i
		if y < 0 || y >= h {
			continue
		}
		line := padTo(lines[y], w)
		lines[y] = ansi.Cut(line, 0, x) + bl + ansi.Cut(line, x+mw, w)
	}
	return lines, mini, dagdraw.Rect{X: x, Y: y0, W: mw, H: len(box)}
}

// miniMemo is the last minimap made (Layout.Minimap) and what it was made
// of. Its canvas is never modified.
type miniMemo struct {
	lay  *dagdraw.Layout
	w, h int
	vp   dagdraw.Viewport
	c    *dagdraw.Canvas
}

// of returns lay.Minimap(w, h, vp), the last one when it was of these.
func (m *miniMemo) of(lay *dagdraw.Layout, w, h int, vp dagdraw.Viewport) *dagdraw.Canvas {
	if m.c == nil || m.lay != lay || m.w != w || m.h != h || m.vp != vp {
		*m = miniMemo{lay: lay, w: w, h: h, vp: vp, c: lay.Minimap(w, h, vp)}
	}
	return m.c
}

// minimapCorner picks where a mw×mh minimap goes in a w×h drawing: the
// first corner of bottom-right, bottom-left and top-right that does not
// cover the selected node.
func minimapCorner(lay *dagdraw.Layout, vp dagdraw.Viewport, sel string, w, h, mw, mh int) (x, y int, ok bool) {
	r, found := lay.Node(sel)
	for _, c := range [][2]int{{w - mw, h - mh}, {0, h - mh}, {w - mw, 0}} {
		if !found || !r.Intersects(dagdraw.Rect{X: vp.X + c[0], Y: vp.Y + c[1], W: mw, H: mh}) {
			return c[0], c[1], true
		}
	}
	return 0, 0, false
}
