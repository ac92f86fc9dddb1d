// Package dagdraw draws a directed acyclic graph as layers of boxes in
// box-drawing characters, for a terminal: Sugiyama layering by dependency
// depth, crossing reduction, compact coordinates, orthogonal edge routing,
// groups of alternatives and decompositions as labelled frames, and a
// viewport that paints only the cells on screen. aot-tui draws an AoT
// loop's work graph (the atom DAG) with it.
//
// A Graph goes in (filled directly or with a Builder), cells with style
// classes come out. The package does no I/O, does not import Bubble Tea
// and chooses no colours: the caller maps each Class to a style (Styler),
// or takes the plain text:
//
//	var b dagdraw.Builder
//	b.Node("a", "Fetch", dagdraw.Resolved).Node("b", "Build", dagdraw.Pending).Edge("a", "b")
//	fmt.Println(dagdraw.Draw(b.Graph(), dagdraw.Options{}).Plain())
//
// Structure and decoration are separate. Structure (ids, edges, groups,
// decompositions, collapse state, orientation, node width) decides where
// every cell goes and is laid out by NewLayout / Layout.Update; decoration
// (status, executable, labels' text, OR selection, the cursor) only picks
// glyphs and classes at paint time. A status change therefore never re-runs
// layout and never moves a cell (with Options.FitTitles, the width of the
// widest label is structure too: it sets the boxes' width). A View keeps a
// layout, a viewport and a selection for an interactive pane.
package dagdraw
