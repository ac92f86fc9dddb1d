package dagdraw

import "slices"

// bundle is a star of segments in one channel sharing a hub port: a fan-out
// (hub above) or a fan-in (hub below). Different bundles never share a
// cell except where they cross at right angles, so every junction glyph
// means "same source" or "same target".
type bundle struct {
	channel int
	hub     int // item
	segs    []int
	hubPort int
	track   int // -1 when straight
	// dogleg halves: link is the other half, vcol the column they meet at
	link  int
	vcol  int
	hubUp bool
	kind  edgeKind
	rev   bool
	first bool // upper half of a dogleg
}

// formBundles groups each channel's segments into stars.
func (w *work) formBundles() []bundle {
	n := w.nReal // dummies are never hubs: only boxes and ports have keys
	// key of an item side and an edge kind/direction: (item, kind, rev),
	// and in at also whether the item is the upper end
	key := func(it int, e ledge) int {
		k := it*4 + int(e.kind)*2
		if e.rev {
			k++
		}
		return k
	}
	out := make([]int32, 4*n) // segments leaving each (item, kind, rev) downwards
	in := make([]int32, 4*n)  // entering from above
	for _, sg := range w.segs {
		e := w.rk.edges[sg.edge]
		if sg.up < n {
			out[key(sg.up, e)]++
		}
		if sg.down < n {
			in[key(sg.down, e)]++
		}
	}
	atUp := make([]int32, 4*n) // bundle of a fan-out key, -1 before it exists
	atDown := make([]int32, 4*n)
	for i := range atUp {
		atUp[i], atDown[i] = -1, -1
	}
	bs := slices.Grow(w.buf.bundles[:0], len(w.segs)+len(w.segs)/8) // room for doglegs
	count := slices.Grow(w.buf.counts[:0], len(w.segs))
	for l := range w.order {
		for _, it := range w.order[l] {
			for _, s := range w.downSegs(it) {
				sg := &w.segs[s]
				e := w.rk.edges[sg.edge]
				var nOut, nIn int32
				ku, kd := key(sg.up, e), key(sg.down, e)
				if sg.up < n {
					nOut = out[ku]
				}
				if sg.down < n {
					nIn = in[kd]
				}
				var at []int32
				var k, hub int
				var hubUp bool
				switch {
				case nOut >= 2 && nOut >= nIn:
					at, k, hub, hubUp = atUp, ku, sg.up, true
				case nIn >= 2:
					at, k, hub, hubUp = atDown, kd, sg.down, false
				default:
					sg.bundle = len(bs)
					bs = append(bs, bundle{channel: l, hubUp: true, hub: sg.up, kind: e.kind, rev: e.rev, track: -1, link: -1})
					count = append(count, 1)
					continue
				}
				bi := at[k]
				if bi < 0 {
					bi = int32(len(bs))
					at[k] = bi
					bs = append(bs, bundle{channel: l, hubUp: hubUp, hub: hub, kind: e.kind, rev: e.rev, track: -1, link: -1})
					count = append(count, 0)
				}
				count[bi]++
				sg.bundle = int(bi)
			}
		}
	}
	w.buf.counts = count
	// Segment lists carved from one array, filled in the same order.
	backing := resize(w.buf.bundleSegs, len(w.segs))
	w.buf.bundleSegs = backing
	off := 0
	for bi := range bs {
		c := int(count[bi])
		bs[bi].segs = backing[off : off : off+c]
		off += c
	}
	for l := range w.order {
		for _, it := range w.order[l] {
			for _, s := range w.downSegs(it) {
				b := &bs[w.segs[s].bundle]
				b.segs = append(b.segs, int(s))
			}
		}
	}
	return bs
}

// sideBundles lists the distinct bundles on one side of an item (into
// buf, which it returns).
func (w *work) sideBundles(it int, up bool, buf []int) []int {
	segs := w.downSegs(it)
	if up {
		segs = w.upSegs(it)
	}
	b := buf[:0]
	for _, s := range segs {
		if !slices.Contains(b, w.segs[s].bundle) {
			b = append(b, w.segs[s].bundle)
		}
	}
	return b
}

// portRange is the span of minor coordinates where an item can have ports.
func (w *work) portRange(it int) (lo, hi int) {
	i := &w.items[it]
	if i.dummy() || i.plead {
		return i.x, i.x + i.size - 1
	}
	return i.x + 1, i.x + i.size - 2
}

// assignPorts chooses the port column of every segment end and bundle hub.
func (w *work) assignPorts(bs []bundle) {
	// other-end centre of a bundle seen from item it
	otherCenter := func(b *bundle, it int) float64 {
		if b.hub != it {
			return w.center(b.hub)
		}
		sum := 0.0
		for _, s := range b.segs {
			o := w.segs[s].down
			if !b.hubUp {
				o = w.segs[s].up
			}
			sum += w.center(o)
		}
		return sum / float64(len(b.segs))
	}
	set := func(b *bundle, it int, up bool, col int) {
		if b.hub == it && b.hubUp == !up {
			b.hubPort = col
		}
		for _, s := range b.segs {
			sg := &w.segs[s]
			if up && sg.down == it {
				sg.downPort = col
			}
			if !up && sg.up == it {
				sg.upPort = col
			}
		}
	}
	var sb []int
	var cs []float64
	for it := range w.items {
		for _, up := range [2]bool{true, false} {
			sb = w.sideBundles(it, up, sb)
			if len(sb) == 0 {
				continue
			}
			lo, hi := w.portRange(it)
			k := len(sb)
			if k == 1 {
				set(&bs[sb[0]], it, up, w.alignedPort(&bs[sb[0]], it, up, lo, hi))
				continue
			}
			// by the other ends' centre, stably
			cs = cs[:0]
			for _, b := range sb {
				cs = append(cs, otherCenter(&bs[b], it))
			}
			for a := 1; a < k; a++ {
				for z := a; z > 0 && cs[z] < cs[z-1]; z-- {
					cs[z], cs[z-1] = cs[z-1], cs[z]
					sb[z], sb[z-1] = sb[z-1], sb[z]
				}
			}
			n := hi - lo + 1
			sp := 1
			if 2*k-1 <= n {
				sp = 2
			}
			start := lo + (n-((k-1)*sp+1))/2
			for j, b := range sb {
				set(&bs[b], it, up, min(hi, start+j*sp))
			}
		}
	}
	// A hub straight above one leaf with leaves on both sides would draw a
	// four-way junction, which reads like a crossing: step the hub aside.
	var used []int
	for bi := range bs {
		b := &bs[bi]
		if len(b.segs) < 3 {
			continue
		}
		var left, right, same bool
		for _, s := range b.segs {
			c := w.leafCol(b, s)
			switch {
			case c < b.hubPort:
				left = true
			case c > b.hubPort:
				right = true
			default:
				same = true
			}
		}
		if !(left && right && same) {
			continue
		}
		lo, hi := w.portRange(b.hub)
		used = used[:0]
		sb = w.sideBundles(b.hub, !b.hubUp, sb)
		for _, ob := range sb {
			if ob != bi {
				used = append(used, w.portOf(&bs[ob], b.hub, !b.hubUp))
			}
		}
		for _, d := range [4]int{1, -1, 2, -2} {
			c := b.hubPort + d
			if c < lo || c > hi || slices.Contains(used, c) || w.isLeafCol(b, c) {
				continue
			}
			w.moveHub(b, c)
			break
		}
	}
}

// alignedPort picks the port of an item's only bundle on one side: in line
// with a single partner when their ranges overlap (a straight edge),
// otherwise the middle.
func (w *work) alignedPort(b *bundle, it int, up bool, lo, hi int) int {
	mid := lo + (hi-lo)/2
	if len(b.segs) != 1 {
		return mid
	}
	sg := w.segs[b.segs[0]]
	o := sg.up
	if !up {
		o = sg.down
	}
	olo, ohi := w.portRange(o)
	if w.sideBundleCount(o, !up) != 1 {
		return mid
	}
	a, z := max(lo, olo), min(hi, ohi)
	if a > z {
		return mid
	}
	// Prefer the partner's middle when it lies in range.
	om := olo + (ohi-olo)/2
	if om >= a && om <= z {
		if mid >= a && mid <= z && ohi-olo > hi-lo {
			return mid
		}
		return om
	}
	if mid >= a && mid <= z {
		return mid
	}
	return a + (z-a)/2
}

// sideBundleCount is the number of distinct bundles on one side of an
// item, counted up to 2.
func (w *work) sideBundleCount(it int, up bool) int {
	segs := w.downSegs(it)
	if up {
		segs = w.upSegs(it)
	}
	if len(segs) == 0 {
		return 0
	}
	first := w.segs[segs[0]].bundle
	for _, s := range segs[1:] {
		if w.segs[s].bundle != first {
			return 2
		}
	}
	return 1
}

func (w *work) leafCol(b *bundle, s int) int {
	if b.hubUp {
		return w.segs[s].downPort
	}
	return w.segs[s].upPort
}

func (w *work) isLeafCol(b *bundle, c int) bool {
	for _, s := range b.segs {
		if w.leafCol(b, s) == c {
			return true
		}
	}
	return false
}

// portOf is the column where bundle b touches item it on the given side
// (up: the item's upper side).
func (w *work) portOf(b *bundle, it int, up bool) int {
	for _, s := range b.segs {
		sg := w.segs[s]
		if up && sg.down == it {
			return sg.downPort
		}
		if !up && sg.up == it {
			return sg.upPort
		}
	}
	return b.hubPort
}

func (w *work) moveHub(b *bundle, c int) {
	b.hubPort = c
	for _, s := range b.segs {
		if b.hubUp {
			w.segs[s].upPort = c
		} else {
			w.segs[s].downPort = c
		}
	}
}

// bundleCols appends to upper and lower the columns where b meets the
// channel's upper and lower boundary.
func (w *work) bundleCols(b *bundle, upper, lower []int) ([]int, []int) {
	if b.hubUp {
		upper = append(upper, b.hubPort)
		for _, s := range b.segs {
			lower = append(lower, w.segs[s].downPort)
		}
	} else {
		lower = append(lower, b.hubPort)
		for _, s := range b.segs {
			upper = append(upper, w.segs[s].upPort)
		}
	}
	return upper, lower
}

// colMap maps columns to small values for one channel at a time: reset
// forgets every entry at once.
type colMap struct {
	lo    int
	val   []int32
	stamp []uint32
	gen   uint32
}

func (m *colMap) reset() {
	m.gen++
	if m.gen == 0 {
		clear(m.stamp)
		m.gen = 1
	}
}

func (m *colMap) get(c int) (int, bool) {
	i := c - m.lo
	if i < 0 || i >= len(m.val) || m.stamp[i] != m.gen {
		return 0, false
	}
	return int(m.val[i]), true
}

func (m *colMap) has(c int) bool {
	_, ok := m.get(c)
	return ok
}

func (m *colMap) set(c, v int) {
	m.cover(c, c)
	i := c - m.lo
	m.val[i], m.stamp[i] = int32(v), m.gen
}

func (m *colMap) del(c int) {
	if i := c - m.lo; i >= 0 && i < len(m.val) {
		m.stamp[i] = 0
	}
}

// cover makes room for the columns a..b.
func (m *colMap) cover(a, b int) {
	if m.gen == 0 {
		m.gen = 1
	}
	hi := m.lo + len(m.val)
	if len(m.val) > 0 && a >= m.lo && b < hi {
		return
	}
	nlo, nhi := a-64, b+64
	if len(m.val) > 0 {
		nlo, nhi = min(nlo, m.lo), max(nhi, hi)
		nhi = max(nhi, nlo+2*len(m.val)) // grow geometrically
	}
	val := make([]int32, nhi-nlo)
	stamp := make([]uint32, nhi-nlo)
	if len(m.val) > 0 {
		copy(val[m.lo-nlo:], m.val)
		copy(stamp[m.lo-nlo:], m.stamp)
	}
	m.lo, m.val, m.stamp = nlo, val, stamp
}

// routeScratch holds the buffers of channel routing.
type routeScratch struct {
	upperAt, lowerAt colMap // column → info (routeChannel) or end (separatePorts)
	info             []chanInfo
	cols             []int
	preds            [][]int
	track            []int
	rem, next        []int
	infoOf           []int32 // bundle → info, -1 elsewhere
	ends             []portEndAt
	upper, lower     []int
}

// chanInfo is a bundle as routeChannel sees it: its columns on the
// channel's upper and lower boundary (cols[u0:l0] and cols[l0:end]).
type chanInfo struct {
	id          int
	lo, hi      int
	u0, l0, end int
	need        bool
}

// routeChannel assigns tracks to the bundles of one channel: left-edge
// packing under vertical constraints (a bundle whose vertical comes down at
// column c must turn above the bundle whose vertical leaves downwards at c),
// with doglegs to break constraint cycles. It returns the number of tracks.
func (w *work) routeChannel(bs *[]bundle, ids []int) int {
	w.separatePorts(*bs, ids)
	rs := &w.route
	cols := rs.cols[:0]
	in := rs.info[:0]
	for _, id := range ids {
		b := &(*bs)[id]
		u0 := len(cols)
		var l0 int
		switch {
		case b.link >= 0 && b.first:
			cols, rs.lower = w.bundleCols(b, cols, rs.lower[:0])
			l0 = len(cols)
			cols = append(cols, b.vcol)
		case b.link >= 0:
			cols = append(cols, b.vcol)
			l0 = len(cols)
			rs.upper, cols = w.bundleCols(b, rs.upper[:0], cols)
		default:
			rs.upper, rs.lower = w.bundleCols(b, rs.upper[:0], rs.lower[:0])
			cols = append(cols, rs.upper...)
			l0 = len(cols)
			cols = append(cols, rs.lower...)
		}
		lo, hi := 1<<30, -1<<30
		for _, c := range cols[u0:] {
			lo, hi = min(lo, c), max(hi, c)
		}
		in = append(in, chanInfo{id: id, lo: lo, hi: hi, u0: u0, l0: l0, end: len(cols), need: lo < hi || b.link >= 0})
	}
	rs.cols, rs.info = cols, in
	upperAt, lowerAt := &rs.upperAt, &rs.lowerAt
	upperAt.reset()
	lowerAt.reset()
	for i, x := range in {
		for _, c := range cols[x.u0:x.l0] {
			upperAt.set(c, i)
		}
		for _, c := range cols[x.l0:x.end] {
			lowerAt.set(c, i)
		}
	}
	// Constraints.
	rs.preds = resize(rs.preds, len(in))
	preds := rs.preds
	for i := range preds {
		preds[i] = preds[i][:0]
	}
	addPred := func(a, b int) { // a above b
		if !slices.Contains(preds[b], a) {
			preds[b] = append(preds[b], a)
		}
	}
	for _, x := range in {
		for _, c := range cols[x.u0:x.l0] {
			a, _ := upperAt.get(c)
			if b, ok := lowerAt.get(c); ok && a != b && in[a].need && in[b].need {
				addPred(a, b)
			}
		}
	}
	if len(rs.infoOf) < len(*bs) {
		rs.infoOf = make([]int32, len(*bs)+len(*bs)/4+16)
		for i := range rs.infoOf {
			rs.infoOf[i] = -1
		}
	}
	for i, x := range in {
		rs.infoOf[x.id] = int32(i)
	}
	for i, x := range in {
		b := &(*bs)[x.id]
		if b.link >= 0 && b.first && b.link < len(rs.infoOf) {
			if j := rs.infoOf[b.link]; j >= 0 {
				addPred(i, int(j))
			}
		}
	}
	for _, x := range in {
		rs.infoOf[x.id] = -1
	}
	for i := range preds {
		slices.Sort(preds[i])
	}
	track := resize(rs.track, len(in))
	rs.track = track
	for i := range track {
		track[i] = -1
	}
	rem := rs.rem[:0]
	for i, x := range in {
		if x.need {
			rem = append(rem, i)
		}
	}
	slices.SortStableFunc(rem, func(a, b int) int { return in[a].lo - in[b].lo })
	next := rs.next[:0]
	defer func() { rs.rem, rs.next = rem, next }()
	t := 0
	for len(rem) > 0 {
		last := -1 << 30
		next = next[:0]
		progressed := false
		for _, i := range rem {
			ok := in[i].lo > last
			for _, p := range preds[i] {
				if track[p] < 0 || track[p] >= t {
					ok = false
					break
				}
			}
			if ok {
				track[i] = t
				last = in[i].hi
				progressed = true
			} else {
				next = append(next, i)
			}
		}
		if !progressed {
			// A cycle of constraints: split a single-segment bundle on it
			// into two halves that meet at a free column, then start over.
			for _, i := range findCycle(next[0], preds, track) {
				if w.dogleg(bs, in[i].id, upperAt, lowerAt) {
					return -1
				}
			}
			track[next[0]] = t
			copy(next, next[1:])
			next = next[:len(next)-1]
		}
		rem, next = next, rem
		t++
	}
	for i, x := range in {
		(*bs)[x.id].track = track[i]
	}
	return t
}

// findCycle walks unplaced predecessors from start until one repeats and
// returns the cycle's members.
func findCycle(start int, preds [][]int, track []int) []int {
	var path []int
	v := start
	for {
		if k := slices.Index(path, v); k >= 0 {
			return path[k:]
		}
		path = append(path, v)
		next := -1
		for _, p := range preds[v] {
			if track[p] < 0 {
				next = p
				break
			}
		}
		if next < 0 {
			return nil
		}
		v = next
	}
}

// dogleg splits the single-segment bundle id into two halves that meet at
// a free column; it reports whether it could.
func (w *work) dogleg(bs *[]bundle, id int, upperAt, lowerAt *colMap) bool {
	b := &(*bs)[id]
	if b.link >= 0 || len(b.segs) != 1 {
		return false
	}
	u, l := b.hubPort, w.segs[b.segs[0]].downPort
	if !b.hubUp {
		u, l = w.segs[b.segs[0]].upPort, b.hubPort
	}
	if u == l {
		return false
	}
	mid := (u + l) / 2
	free := -1
	for d := 0; d < 1<<12 && free < 0; d++ {
		for _, c := range [2]int{mid + d, mid - d} {
			if !upperAt.has(c) && !lowerAt.has(c) {
				free = c
				break
			}
		}
	}
	nb := *b
	nb.first = false
	b.first = true
	b.link = len(*bs)
	b.vcol = free
	nb.link = id
	nb.vcol = free
	*bs = append(*bs, nb)
	return true
}

// portEnd is one end of a bundle at a channel boundary.
type portEnd struct {
	bundle int
	item   int
	seg    int // -1 for the hub
}

type portEndAt struct {
	col int
	up  bool
	e   portEnd
}

// separatePorts moves box ports so that no column of the channel has a
// vertical coming down from one bundle and another leaving downwards from a
// different bundle: such pairs constrain the track order and can form
// cycles. Dummies cannot move; their conflicts are left to the tracks.
func (w *work) separatePorts(bs []bundle, ids []int) {
	rs := &w.route
	upper, lower := &rs.upperAt, &rs.lowerAt // column → index in ends
	upper.reset()
	lower.reset()
	ends := rs.ends[:0]
	add := func(col int, up bool, e portEnd) {
		if up {
			upper.set(col, len(ends))
		} else {
			lower.set(col, len(ends))
		}
		ends = append(ends, portEndAt{col, up, e})
	}
	for _, id := range ids {
		b := &bs[id]
		if b.link >= 0 {
			continue
		}
		if b.hubUp {
			add(b.hubPort, true, portEnd{id, b.hub, -1})
			for _, s := range b.segs {
				add(w.segs[s].downPort, false, portEnd{id, w.segs[s].down, s})
			}
		} else {
			add(b.hubPort, false, portEnd{id, b.hub, -1})
			for _, s := range b.segs {
				add(w.segs[s].upPort, true, portEnd{id, w.segs[s].up, s})
			}
		}
	}
	rs.ends = ends
	// columns taken by an item side's ports
	taken := func(it int, up bool, col int) bool {
		m := lower
		if up {
			m = upper
		}
		k, ok := m.get(col)
		return ok && ends[k].e.item == it
	}
	for _, en := range ends {
		if !en.up {
			continue
		}
		uk, ok := upper.get(en.col)
		if !ok || ends[uk].e != en.e {
			continue // moved already
		}
		u := ends[uk].e
		lk, ok := lower.get(en.col)
		if !ok || ends[lk].e.bundle == u.bundle {
			continue
		}
		// try the lower end, then the upper one
		for _, cand := range [2]struct {
			k  int
			up bool
		}{{lk, false}, {uk, true}} {
			ce := ends[cand.k].e
			if w.items[ce.item].dummy() {
				continue
			}
			lo, hi := w.portRange(ce.item)
			free := -1
			for d := 1; d <= hi-lo && free < 0; d++ {
				for _, c := range [2]int{en.col + d, en.col - d} {
					if c < lo || c > hi {
						continue
					}
					if !upper.has(c) && !lower.has(c) && !taken(ce.item, cand.up, c) {
						free = c
						break
					}
				}
			}
			if free < 0 {
				continue
			}
			b := &bs[ce.bundle]
			if ce.seg < 0 {
				w.moveHub(b, free)
			} else if cand.up {
				w.segs[ce.seg].upPort = free
			} else {
				w.segs[ce.seg].downPort = free
			}
			if cand.up {
				upper.del(en.col)
				upper.set(free, cand.k)
			} else {
				lower.del(en.col)
				lower.set(free, cand.k)
			}
			break
		}
	}
}
