package dagdraw

// The grid is a bucket index over the layout's primitives so painting a
// viewport touches only what lies under it: its cost depends on the
// viewport's size, not the graph's.

type primKind uint8

const (
	primFrame primKind = iota
	primStroke
	primBox
	primMark
)

type gridEntry struct {
	kind primKind
	idx  int32
}

const (
	bucketW = 32
	bucketH = 16
)

type grid struct {
	x0, y0     int
	cols, rows int
	buckets    [][]gridEntry
}

func buildGrid(l *Layout) grid {
	b := l.bounds
	g := grid{x0: b.X, y0: b.Y, cols: max(1, (b.W+bucketW-1)/bucketW), rows: max(1, (b.H+bucketH-1)/bucketH)}
	g.buckets = make([][]gridEntry, g.cols*g.rows)
	// Two passes over the primitives: count each bucket's entries, then
	// fill buckets carved from one array, in the same order.
	count := make([]int32, len(g.buckets)+1)
	var entries []gridEntry
	fill := false
	add := func(r Rect, e gridEntry) {
		c0, c1, r0, r1, ok := g.span(r)
		if !ok {
			return
		}
		for y := r0; y <= r1; y++ {
			row := count[y*g.cols : (y+1)*g.cols]
			if fill {
				for x := c0; x <= c1; x++ {
					entries[row[x]] = e
					row[x]++
				}
			} else {
				for x := c0; x <= c1; x++ {
					row[x]++
				}
			}
		}
	}
	visit := func() {
		for i, f := range l.frames {
			// only the border is drawn: register the four sides
			r := f.rect
			add(Rect{r.X, r.Y, r.W, 1}, gridEntry{primFrame, int32(i)})
			add(Rect{r.X, r.Y + r.H - 1, r.W, 1}, gridEntry{primFrame, int32(i)})
			add(Rect{r.X, r.Y, 1, r.H}, gridEntry{primFrame, int32(i)})
			add(Rect{r.X + r.W - 1, r.Y, 1, r.H}, gridEntry{primFrame, int32(i)})
		}
		for i := range l.strokes {
			add(l.strokes[i].rect(), gridEntry{primStroke, int32(i)})
		}
		for i, n := range l.nodes {
			if n.frame < 0 && n.rect.W > 0 {
				add(n.rect, gridEntry{primBox, int32(i)})
			}
		}
		for i, m := range l.marks {
			add(Rect{m.x, m.y, 1, 1}, gridEntry{primMark, int32(i)})
		}
	}
	visit()
	// count[i] becomes where bucket i starts; filling moves it to where
	// bucket i ends, so bucket i is entries[end of i-1 : count[i]]
	total := int32(0)
	for i, c := range count {
		count[i] = total
		total += c
	}
	entries = make([]gridEntry, total)
	fill = true
	visit()
	start := int32(0)
	for i := range g.buckets {
		g.buckets[i] = entries[start:count[i]:count[i]]
		start = count[i]
	}
	return g
}

func (s *stroke) rect() Rect {
	if s.vert {
		return Rect{s.fix, s.a, 1, s.b - s.a + 1}
	}
	return Rect{s.a, s.fix, s.b - s.a + 1, 1}
}

// span is the range of buckets r touches.
func (g *grid) span(r Rect) (c0, c1, r0, r1 int, ok bool) {
	if r.W <= 0 || r.H <= 0 {
		return 0, 0, 0, 0, false
	}
	c0 = max(0, floorDiv(r.X-g.x0, bucketW))
	c1 = min(g.cols-1, floorDiv(r.X+r.W-1-g.x0, bucketW))
	r0 = max(0, floorDiv(r.Y-g.y0, bucketH))
	r1 = min(g.rows-1, floorDiv(r.Y+r.H-1-g.y0, bucketH))
	return c0, c1, r0, r1, c0 <= c1 && r0 <= r1
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// eachBucket calls fn for every bucket r touches with the part of r inside
// it. Every cell is in exactly one clip, so drawing clipped primitives
// bucket by bucket draws each cell once per primitive.
func (g *grid) eachBucket(r Rect, fn func(clip Rect, entries []gridEntry)) {
	r = intersect(r, Rect{g.x0, g.y0, g.cols * bucketW, g.rows * bucketH})
	c0, c1, r0, r1, ok := g.span(r)
	if !ok {
		return
	}
	for by := r0; by <= r1; by++ {
		for bx := c0; bx <= c1; bx++ {
			b := Rect{g.x0 + bx*bucketW, g.y0 + by*bucketH, bucketW, bucketH}
			if clip := intersect(b, r); clip.W > 0 && clip.H > 0 {
				fn(clip, g.buckets[by*g.cols+bx])
			}
		}
	}
}

// visit calls fn for the primitives registered in the buckets r touches
// (possibly more than once each).
func (g *grid) visit(r Rect, fn func(k primKind, i int)) {
	g.eachBucket(r, func(_ Rect, es []gridEntry) {
		for _, e := range es {
			fn(e.kind, int(e.idx))
		}
	})
}

func intersect(a, b Rect) Rect {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return Rect{}
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}
