package dagdraw

import "runtime"

// Orientation is the direction dependencies flow in.
type Orientation uint8

// Orientations: dependencies above their dependents, or left of them.
const (
	TopDown Orientation = iota
	LeftRight
)

// String names the orientation.
func (o Orientation) String() string {
	if o == LeftRight {
		return "left-right"
	}
	return "top-down"
}

// Node width limits, in cells including the border.
const (
	MinNodeWidth     = 12
	MaxNodeWidth     = 32
	DefaultNodeWidth = 24
)

// Options are the structural choices of a layout: changing any of them
// re-runs layout (seeded from the previous one); decoration never does.
type Options struct {
	Orientation Orientation
	// NodeWidth is the width of a node box in cells, border included;
	// 0 means DefaultNodeWidth. NodeWidthFor picks one from a pane width.
	NodeWidth int
	// Collapsed holds decomposition parents drawn collapsed: their children
	// (and descendants) are hidden and their edges re-attached to the parent.
	Collapsed map[string]bool
	// CollapseResolved replaces each connected set of resolved atoms whose
	// dependencies are all resolved (the finished "history" of the loop) by
	// one summary node. Statuses then become structure: a status change that
	// changes those sets re-runs layout.
	CollapseResolved bool
	// FitTitles makes NodeWidth the most a box takes: boxes are only as
	// wide as the widest title needs (marker, status glyph, id and label on
	// one row; at least MinNodeWidth), so short labels leave no boxes half
	// empty. Labels' widths then take part in structure: a label change
	// that changes the widest title re-runs layout.
	FitTitles bool
	// TitleLines is how many rows of text a box holds, up to
	// MaxTitleLines: in top-down from 1 (also for 0), in left-right from 2
	// (boxes there are also as tall as their edges need). A title longer
	// than a row wraps at a word.
	TitleLines int
	// Workers is the most goroutines a layout keeps busy at once (its
	// starting orders run side by side); 0 means GOMAXPROCS. It changes
	// how soon a layout is done, never the layout.
	Workers int
}

// workers is Workers, GOMAXPROCS for 0.
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// MaxTitleLines is the most rows of text a top-down box holds.
const MaxTitleLines = 3

// NodeWidthFor picks a node width for a pane of paneW cells: about three
// tenths of the pane, so two or three boxes sit side by side in a split
// pane and descriptions still read.
func NodeWidthFor(paneW int) int {
	return max(MinNodeWidth, min(MaxNodeWidth, paneW*3/10))
}

// titleLines is the rows of text a box holds at least: 1 to MaxTitleLines
// in top-down, 2 to MaxTitleLines in left-right.
func (o Options) titleLines() int {
	if o.Orientation == LeftRight {
		return max(2, min(MaxTitleLines, o.TitleLines))
	}
	return max(1, min(MaxTitleLines, o.TitleLines))
}

func (o Options) nodeWidth() int {
	if o.NodeWidth <= 0 {
		return DefaultNodeWidth
	}
	return max(MinNodeWidth, min(MaxNodeWidth*4, o.NodeWidth))
}
