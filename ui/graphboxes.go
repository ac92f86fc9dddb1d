package ui

import "github.com/aot-loop/aot-tui/dagdraw"

// The drawing's box size: the widest the pane allows for the graph's
// widest layer, then, after each layout, one more pass when the result
// does not suit the pane (narrower boxes, wider ones, more rows of text).

// maxBoxWidth is the widest a box of the drawing gets. The atom
// descriptions of the demo (nine atoms) and of the seeds' examples (six)
// run from 12 to 39 cells, 20 on the median: a box of 48 shows the longest
// of them whole beside an id of three characters (marker, glyph and a
// blank, the id, a blank, 39 cells of description and the border:
// 3+3+1+39+2). Boxes are only as wide as the widest title needs
// (dagdraw's FitTitles).
const maxBoxWidth = 48

// nodeWidth picks the widest the drawing's boxes may be in the pane: up to
// maxBoxWidth, as far as the widest layer (top-down), or every layer
// (left-right), then fits the pane without panning. Where even the
// narrowest readable boxes do not fit, top-down keeps dagdraw.NodeWidthFor
// the pane (and pans), left-right the narrowest (its titles wrap).
func (g *graphView) nodeWidth() int {
	if g.layout == nil {
		return dagdraw.NodeWidthFor(g.width)
	}
	readable := dagdraw.MinNodeWidth + 4
	if g.lay.opt.Orientation == dagdraw.LeftRight {
		// Each layer is a column: a box and the edges' lanes beside it.
		fit := (g.width-2)/max(1, g.layout.layers) - 8
		return min(maxBoxWidth, max(readable, fit))
	}
	fit := (g.width-2)/max(1, g.layout.widest) - 4
	if fit >= readable {
		return min(maxBoxWidth, fit)
	}
	return dagdraw.NodeWidthFor(g.width)
}

// adjustJob lays the drawing out again when the layout just installed
// does not suit the pane: narrower boxes when it is wider than the pane,
// else more rows of text in the boxes when titles are cut and the drawing
// has the height for them (fewer when it has not).
func (g *graphView) adjustJob() *layoutJob {
	if job := g.shrinkJob(); job != nil {
		return job
	}
	return g.rowsJob()
}

// shrinkJob lays the drawing out again with narrower boxes when the one
// just installed is wider than the pane and narrower boxes would still
// read (a few tries at most: each is a full layout); or once with wider
// boxes when it leaves part of the pane empty while it cuts titles (the
// widest layer guessed from the atoms' depths is narrower in the drawing:
// collapsed parts, layers that interleave).
func (g *graphView) shrinkJob() *layoutJob {
	l := &g.lay
	lay := l.gv.Layout()
	if lay == nil || g.st == nil || l.shrinks >= 2 {
		return nil
	}
	bw, pw := lay.Bounds().W, g.width
	nw := lay.NodeWidth()
	if wider := min(maxBoxWidth, nw*pw/max(1, bw)); bw < pw && !l.grown && lay.TitleWidth() > nw && wider > nw {
		l.grown = true
		l.opt.NodeWidth = wider
		return g.jobFor(lay)
	}
	if bw <= pw || nw <= dagdraw.MinNodeWidth+4 {
		return nil
	}
	next := max(dagdraw.MinNodeWidth+4, nw*pw/bw-1)
	if next >= nw {
		return nil
	}
	l.shrinks++
	l.opt.NodeWidth = next
	return g.jobFor(lay)
}

// rowsJob gives the boxes the rows of text their titles need (up to
// dagdraw.MaxTitleLines) when the installed layout cuts titles and the
// drawing still fits the pane's height with the rows added; it takes rows
// away when fewer hold every title, or when the drawing no longer fits
// (then no more are tried until the pane or the boxes change). Only
// drawings that fit the pane get more rows, so the cost of counting the
// titles' rows stays small.
func (g *graphView) rowsJob() *layoutJob {
	l := &g.lay
	lay := l.gv.Layout()
	if lay == nil || g.st == nil || l.pending != 0 {
		return nil
	}
	least := 1 // the rows a box has anyway: two in left-right
	if lay.Orientation() == dagdraw.LeftRight {
		least = 2
	}
	room := g.height - 1 // the position line
	cur := lay.TitleLines()
	h, cost := lay.Bounds().H, lay.RowCost()
	rows := cur
	switch {
	case h > room:
		if cur > least {
			rows = cur - 1
			l.rowCap = rows
		}
	case cur == least && lay.TitleWidth() <= lay.NodeWidth():
		// every title fits one row
	default:
		most := dagdraw.MaxTitleLines
		if l.rowCap > 0 {
			most = l.rowCap
		}
		need := max(least, min(most, lay.TitleRows(l.g, dagdraw.MaxTitleLines)))
		rows = min(cur, need)
		for rows < need && h+(rows+1-cur)*cost <= room {
			rows++
		}
	}
	if rows == cur {
		return nil
	}
	l.opt.TitleLines = rows
	return g.jobFor(lay)
}

// jobFor is the layout job for the options now, seeded from lay.
func (g *graphView) jobFor(lay *dagdraw.Layout) *layoutJob {
	l := &g.lay
	key := l.layoutKey(g.st)
	l.pending = key
	return &layoutJob{old: lay, g: l.jobGraph(), opt: l.opt, key: key}
}
