package fleettable

// cursor is the selection, scrolling and / filter over the table's rows:
// visible are the indexes of the rows that pass the filter, sel the
// selected one of them, top the first on screen.
type cursor struct {
	n       int
	match   func(r int, filter string) bool
	height  int
	sel     int
	top     int
	filter  string
	visible []int
}

func (c *cursor) setRows(n int) {
	c.n = n
	c.refilter()
}

func (c *cursor) setFilter(f string) {
	c.filter = f
	c.refilter()
}

func (c *cursor) refilter() {
	c.visible = c.visible[:0]
	for r := 0; r < c.n; r++ {
		if c.filter == "" || c.match(r, c.filter) {
			c.visible = append(c.visible, r)
		}
	}
	c.sel = min(max(0, c.sel), max(0, len(c.visible)-1))
	c.clamp()
}

func (c *cursor) setHeight(h int) {
	c.height = h
	c.clamp()
}

// previewHeight is how many lines the preview under the rows takes (its
// rule included).
func (c *cursor) previewHeight() int {
	if c.height < 10 {
		return 0
	}
	return min(6, c.height/3)
}

// bodyHeight is how many rows show: the height less the header and the
// preview.
func (c *cursor) bodyHeight() int { return max(0, c.height-1-c.previewHeight()) }

func (c *cursor) clamp() {
	h := c.bodyHeight()
	if h <= 0 {
		return
	}
	if c.sel < c.top {
		c.top = c.sel
	}
	if c.sel >= c.top+h {
		c.top = c.sel - h + 1
	}
	c.top = min(max(0, c.top), max(0, len(c.visible)-h))
}

func (c *cursor) move(d int) {
	c.sel = min(max(0, c.sel+d), max(0, len(c.visible)-1))
	c.clamp()
}

func (c *cursor) home() { c.sel = 0; c.clamp() }
func (c *cursor) end()  { c.sel = max(0, len(c.visible)-1); c.clamp() }
