package dagdraw

// NodeAt returns the node drawn at the cell (x, y), in layout coordinates
// (a viewport's X, Y plus the cell's column and row in it): the box that
// covers the cell, or the decomposition parent whose frame border runs
// through it (the innermost one where frames nest). ok is false on an
// empty cell, an edge, or an OR group's frame, which stands for no node.
// It looks only at the primitives in the cell's bucket of the layout's
// grid, so a click costs the same at 10 nodes and at 10,000.
func (l *Layout) NodeAt(x, y int) (string, bool) {
	box, frame := -1, -1
	l.grid.visit(Rect{x, y, 1, 1}, func(k primKind, i int) {
		switch k {
		case primBox:
			if l.nodes[i].rect.Contains(x, y) {
				box = i
			}
		case primFrame:
			f := &l.frames[i]
			if f.node < 0 || !onBorder(f.rect, x, y) {
				return
			}
			if frame < 0 || f.level < l.frames[frame].level {
				frame = i
			}
		}
	})
	switch {
	case box >= 0:
		return l.nodes[box].id, true
	case frame >= 0:
		return l.nodes[l.frames[frame].node].id, true
	}
	return "", false
}

// onBorder reports whether the cell (x, y) is on r's outline.
func onBorder(r Rect, x, y int) bool {
	return r.Contains(x, y) && (x == r.X || x == r.X+r.W-1 || y == r.Y || y == r.Y+r.H-1)
}
