package graph

import (
	"slices"
	"sort"
)

// bundle is a star of segments in one channel sharing a hub port: a fan-out
// (hub above) or a fan-in (hub below). Different bundles never share a
// cell except where they cross at right angles, so every junction glyph
// means "same source" or "same target".
type bundle struct {
	channel int
	hubUp   bool
	hub     int // item
	kind    edgeKind
	rev     bool
	segs    []int
	hubPort int
	track   int // -1 when straight
	// dogleg halves: link is the other half, vcol the column they meet at
	link  int
	first bool // upper half of a dogleg
	vcol  int
}

type bundleKey struct {
	item int
	up   bool
	kind edgeKind
	rev  bool
}

// formBundles groups each channel's segments into stars.
func (w *work) formBundles() []bundle {
	var bs []bundle
	out := map[bundleKey]int{}
	in := map[bundleKey]int{}
	kindRev := func(s int) (edgeKind, bool) {
		e := w.rk.edges[w.segs[s].edge]
		return e.kind, e.rev
	}
	for s := range w.segs {
		k, r := kindRev(s)
		sg := w.segs[s]
		if !w.items[sg.up].dummy() {
			out[bundleKey{sg.up, true, k, r}]++
		}
		if !w.items[sg.down].dummy() {
			in[bundleKey{sg.down, false, k, r}]++
		}
	}
	at := map[bundleKey]int{}
	for l := range w.order {
		for _, it := range w.order[l] {
			for _, s := range w.items[it].down {
				k, r := kindRev(s)
				sg := &w.segs[s]
				ku := bundleKey{sg.up, true, k, r}
				kd := bundleKey{sg.down, false, k, r}
				var key bundleKey
				switch {
				case out[ku] >= 2 && out[ku] >= in[kd]:
					key = ku
				case in[kd] >= 2:
					key = kd
				default:
					sg.bundle = len(bs)
					bs = append(bs, bundle{channel: l, hubUp: true, hub: sg.up, kind: k, rev: r, segs: []int{s}, track: -1, link: -1})
					continue
				}
				bi, ok := at[key]
				if !ok {
					bi = len(bs)
					at[key] = bi
					bs = append(bs, bundle{channel: l, hubUp: key.up, hub: key.item, kind: k, rev: r, track: -1, link: -1})
				}
				bs[bi].segs = append(bs[bi].segs, s)
				sg.bundle = bi
			}
		}
	}
	return bs
}

// sideBundles lists the distinct bundles on one side of an item.
func (w *work) sideBundles(it int, up bool) []int {
	segs := w.items[it].down
	if up {
		segs = w.items[it].up
	}
	var b []int
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
	for it := range w.items {
		for _, up := range []bool{true, false} {
			sb := w.sideBundles(it, up)
			if len(sb) == 0 {
				continue
			}
			sort.SliceStable(sb, func(a, b int) bool {
				return otherCenter(&bs[sb[a]], it) < otherCenter(&bs[sb[b]], it)
			})
			lo, hi := w.portRange(it)
			k := len(sb)
			if k == 1 {
				set(&bs[sb[0]], it, up, w.alignedPort(&bs[sb[0]], it, up, lo, hi))
				continue
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
		used := map[int]bool{}
		for _, ob := range w.sideBundles(b.hub, !b.hubUp) {
			if ob != bi {
				used[w.portOf(&bs[ob], b.hub, !b.hubUp)] = true
			}
		}
		for _, d := range []int{1, -1, 2, -2} {
			c := b.hubPort + d
			if c < lo || c > hi || used[c] || w.isLeafCol(b, c) {
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
	if len(w.sideBundles(o, !up)) != 1 {
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

// bundleCols returns the columns where b meets the channel's upper and
// lower boundary.
func (w *work) bundleCols(b *bundle) (upper, lower []int) {
	if b.hubUp {
		upper = []int{b.hubPort}
		for _, s := range b.segs {
			lower = append(lower, w.segs[s].downPort)
		}
	} else {
		lower = []int{b.hubPort}
		for _, s := range b.segs {
			upper = append(upper, w.segs[s].upPort)
		}
	}
	return upper, lower
}

func span(cols ...[]int) (lo, hi int) {
	lo, hi = 1<<30, -1<<30
	for _, cs := range cols {
		for _, c := range cs {
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return lo, hi
}

// routeChannel assigns tracks to the bundles of one channel: left-edge
// packing under vertical constraints (a bundle whose vertical comes down at
// column c must turn above the bundle whose vertical leaves downwards at c),
// with doglegs to break constraint cycles. It returns the number of tracks.
func (w *work) routeChannel(bs *[]bundle, ids []int) int {
	type info struct {
		id     int
		lo, hi int
		upper  []int
		lower  []int
		need   bool
	}
	build := func() []info {
		var in []info
		for _, id := range ids {
			b := &(*bs)[id]
			var u, l []int
			if b.link >= 0 {
				if b.first {
					u, _ = w.bundleCols(b)
					l = []int{b.vcol}
				} else {
					_, l = w.bundleCols(b)
					u = []int{b.vcol}
				}
			} else {
				u, l = w.bundleCols(b)
			}
			lo, hi := span(u, l)
			in = append(in, info{id: id, lo: lo, hi: hi, upper: u, lower: l, need: lo < hi || b.link >= 0})
		}
		return in
	}
	w.separatePorts(*bs, ids)
	in := build()
	upperAt := map[int]int{}
	lowerAt := map[int]int{}
	for i, x := range in {
		for _, c := range x.upper {
			upperAt[c] = i
		}
		for _, c := range x.lower {
			lowerAt[c] = i
		}
	}
	// Constraints.
	preds := make([][]int, len(in))
	addPred := func(a, b int) { // a above b
		if !slices.Contains(preds[b], a) {
			preds[b] = append(preds[b], a)
		}
	}
	for c, a := range upperAt {
		if b, ok := lowerAt[c]; ok && a != b && in[a].need && in[b].need {
			addPred(a, b)
		}
	}
	for i, x := range in {
		b := &(*bs)[x.id]
		if b.link >= 0 && b.first {
			for j, y := range in {
				if y.id == b.link {
					addPred(i, j)
				}
			}
		}
	}
	for i := range preds {
		slices.Sort(preds[i])
	}
	track := make([]int, len(in))
	for i := range track {
		track[i] = -1
	}
	var rem []int
	for i, x := range in {
		if x.need {
			rem = append(rem, i)
		}
	}
	sort.SliceStable(rem, func(a, b int) bool { return in[rem[a]].lo < in[rem[b]].lo })
	t := 0
	for len(rem) > 0 {
		last := -1 << 30
		var next []int
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
			cyc := findCycle(next[0], preds, track)
			for _, i := range cyc {
				if w.dogleg(bs, in[i].id, upperAt, lowerAt) {
					return -1
				}
			}
			track[next[0]] = t
			next = next[1:]
		}
		rem = next
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
	at := map[int]int{}
	var path []int
	v := start
	for {
		if k, ok := at[v]; ok {
			return path[k:]
		}
		at[v] = len(path)
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
func (w *work) dogleg(bs *[]bundle, id int, upperAt, lowerAt map[int]int) bool {
	b := &(*bs)[id]
	if b.link >= 0 || len(b.segs) != 1 {
		return false
	}
	u, l := w.bundleCols(b)
	if u[0] == l[0] {
		return false
	}
	mid := (u[0] + l[0]) / 2
	free := -1
	for d := 0; d < 1<<12 && free < 0; d++ {
		for _, c := range []int{mid + d, mid - d} {
			_, a := upperAt[c]
			_, z := lowerAt[c]
			if !a && !z {
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

// separatePorts moves box ports so that no column of the channel has a
// vertical coming down from one bundle and another leaving downwards from a
// different bundle: such pairs constrain the track order and can form
// cycles. Dummies cannot move; their conflicts are left to the tracks.
func (w *work) separatePorts(bs []bundle, ids []int) {
	upper := map[int]portEnd{}
	lower := map[int]portEnd{}
	var ends []struct {
		col int
		up  bool
		e   portEnd
	}
	add := func(col int, up bool, e portEnd) {
		if up {
			upper[col] = e
		} else {
			lower[col] = e
		}
		ends = append(ends, struct {
			col int
			up  bool
			e   portEnd
		}{col, up, e})
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
	// columns taken by an item side's ports
	taken := func(it int, up bool, col int) bool {
		if up {
			e, ok := upper[col]
			return ok && e.item == it
		}
		e, ok := lower[col]
		return ok && e.item == it
	}
	for _, en := range ends {
		if !en.up {
			continue
		}
		u := upper[en.col]
		if u != en.e {
			continue // moved already
		}
		l, ok := lower[en.col]
		if !ok || l.bundle == u.bundle {
			continue
		}
		// try the lower end, then the upper one
		for _, cand := range []struct {
			e  portEnd
			up bool
		}{{l, false}, {u, true}} {
			it := &w.items[cand.e.item]
			if it.dummy() {
				continue
			}
			lo, hi := w.portRange(cand.e.item)
			free := -1
			for d := 1; d <= hi-lo && free < 0; d++ {
				for _, c := range []int{en.col + d, en.col - d} {
					if c < lo || c > hi {
						continue
					}
					_, a := upper[c]
					_, z := lower[c]
					if !a && !z && !taken(cand.e.item, cand.up, c) {
						free = c
						break
					}
				}
			}
			if free < 0 {
				continue
			}
			b := &bs[cand.e.bundle]
			if cand.e.seg < 0 {
				w.moveHub(b, free)
			} else if cand.up {
				w.segs[cand.e.seg].upPort = free
			} else {
				w.segs[cand.e.seg].downPort = free
			}
			if cand.up {
				delete(upper, en.col)
				upper[free] = cand.e
			} else {
				delete(lower, en.col)
				lower[free] = cand.e
			}
			break
		}
	}
}
