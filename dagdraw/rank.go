package dagdraw

// ledge is an edge as laid out: between drawn nodes, with rev set when it
// runs against the layer direction (it closes a cycle, or it is a
// decomposition link whose parent is an ancestor of the child).
type ledge struct {
	from, to int // dependency → dependent (part-of: child → parent)
	kind     edgeKind
	rev      bool
}

// upper and lower are the edge's ends in layer order.
func (e ledge) upper() int {
	if e.rev {
		return e.to
	}
	return e.from
}

func (e ledge) lower() int {
	if e.rev {
		return e.from
	}
	return e.to
}

// frameInfo is a decomposition drawn as a frame: parent's edges attach to the
// frame, children sit inside it, all in the parent's layer.
type frameInfo struct {
	parent   int
	children []int
}

// ranking is the result of layering.
type ranking struct {
	edges  []ledge
	rank   []int
	frames []frameInfo
	// frameOf maps a frame parent's node to its index in frames, or -1.
	frameOf []int
	// adopted maps a missing OR choice with no edges to the member whose
	// layer (and frame) it shares, or -1.
	adopted []int
	layers  int
}

// rankNodes breaks cycles, decides which decompositions can be frames,
// adds part-of links for the others and assigns layers. A fresh layout
// (prevRank nil) takes the layering with the least total edge length
// (network simplex, see simplex.go), so long edges are as short as the
// dependencies allow. With prevRank (each node's layer in a previous
// layout, -1 for new nodes) nodes keep their old layer unless a
// dependency pushes them down (longest path seeded by the old layers).
func rankNodes(st *structure, prevRank []int) *ranking {
	n := len(st.nodes)
	rk := &ranking{rank: make([]int, n), frameOf: make([]int, n), adopted: make([]int, n)}
	for i := range rk.frameOf {
		rk.frameOf[i] = -1
		rk.adopted[i] = -1
	}
	rev := breakCycles(st)
	parts := 0
	for _, d := range st.decomps {
		parts += len(d.children)
	}
	rk.edges = make([]ledge, len(st.edges), len(st.edges)+parts)
	for i, e := range st.edges {
		rk.edges[i] = ledge{from: e.from, to: e.to, kind: edgeDep, rev: rev[i]}
	}
	uf := rk.adoptChoices(st)
	uf, accepted := rk.contractFrames(st, uf)
	rk.linkParts(st, uf, accepted)

	// Each set of nodes that share a layer (a frame, a choice and its
	// adoptees) is ranked as one node, its smallest member.
	set := make([]int, n)
	for i := range set {
		set[i] = uf.find(i)
	}
	var r []int
	if prevRank == nil {
		r = rk.simplexLayers(set)
	} else {
		r = rk.longestPathLayers(set, prevRank)
	}
	for i := range n {
		rk.rank[i] = r[set[i]]
		rk.layers = max(rk.layers, rk.rank[i]+1)
	}
	if prevRank == nil {
		rk.compact()
	}
	return rk
}

// breakCycles reverses the back edges of a depth-first search in node
// order and reports, per edge of st, whether it was reversed.
func breakCycles(st *structure) []bool {
	n := len(st.nodes)
	// out[outOff[v]:outOff[v+1]] are v's edges, in edge order.
	outOff := make([]int32, n+1)
	for _, e := range st.edges {
		outOff[e.from+1]++
	}
	for v := 0; v < n; v++ {
		outOff[v+1] += outOff[v]
	}
	out := make([]int32, len(st.edges))
	fill := make([]int32, n)
	for i, e := range st.edges {
		out[outOff[e.from]+fill[e.from]] = int32(i)
		fill[e.from]++
	}
	rev := make([]bool, len(st.edges))
	state := make([]uint8, n) // 0 new, 1 on stack, 2 done
	type frame struct{ v, i int }
	var stack []frame
	for s := 0; s < n; s++ {
		if state[s] != 0 {
			continue
		}
		state[s] = 1
		stack = append(stack[:0], frame{s, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i == int(outOff[top.v+1]-outOff[top.v]) {
				state[top.v] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			ei := out[int(outOff[top.v])+top.i]
			top.i++
			w := st.edges[ei].to
			switch state[w] {
			case 0:
				state[w] = 1
				stack = append(stack, frame{w, 0})
			case 1:
				rev[ei] = true
			}
		}
	}
	return rev
}

// adoptChoices gives each missing OR choice without edges the layer of its
// group's first defined member (recorded in adopted) and returns the
// union-find of the nodes that must share a layer so far.
func (rk *ranking) adoptChoices(st *structure) *unionFind {
	n := len(st.nodes)
	degree := make([]int, n)
	for _, e := range rk.edges {
		degree[e.from]++
		degree[e.to]++
	}
	uf := newUnionFind(n)
	for _, g := range st.groups {
		anchor := -1
		for _, m := range g.members {
			if st.nodes[m].kind != kindMissing {
				anchor = m
				break
			}
		}
		if anchor < 0 {
			continue
		}
		for _, m := range g.members {
			if st.nodes[m].kind == kindMissing && degree[m] == 0 && rk.adopted[m] < 0 {
				rk.adopted[m] = anchor
				uf.union(anchor, m)
			}
		}
	}
	return uf
}

// contractFrames decides which decompositions are drawn as frames:
// parent, children (and the children's adoptees) contracted into one
// layer, kept only if no edge joins two nodes of one set and the
// contracted graph stays acyclic. It returns the union-find with the
// frames' sets joined and which decompositions became frames.
//
// Decompositions are tried in order, each on the sets the accepted ones
// left. A contraction can only close a cycle, or put an edge inside a
// set, within the weakly connected parts of the graph its members are
// in, so each try looks at those parts only (frameTrier); the simulator's
// loops have hundreds of small parts, and checking the whole graph for
// every decomposition made this quadratic.
func (rk *ranking) contractFrames(st *structure, uf *unionFind) (*unionFind, []bool) {
	n := len(st.nodes)
	adoptees := map[int][]int{}
	for m, a := range rk.adopted {
		if a >= 0 {
			adoptees[a] = append(adoptees[a], m)
		}
	}
	accepted := make([]bool, len(st.decomps))
	var cs contractScratch
	if len(st.decomps) == 0 || !contractedOK(uf, rk.edges, n, &cs) {
		// no contraction undoes an edge inside a set or a cycle
		return uf, accepted
	}
	t := newFrameTrier(uf, rk.edges, n)
	for di, d := range st.decomps {
		members := append([]int{d.parent}, d.children...)
		for _, c := range d.children {
			members = append(members, adoptees[c]...)
		}
		if !t.try(members) {
			continue
		}
		accepted[di] = true
		t.join(members)
		fi := frameInfo{parent: d.parent}
		fi.children = append(fi.children, members[1:]...)
		rk.frameOf[d.parent] = len(rk.frames)
		rk.frames = append(rk.frames, fi)
	}
	return uf, accepted
}

// frameTrier tries contractions part by part (see contractFrames). The
// parts are the weakly connected components of the graph whose nodes are
// uf's sets: part is a union-find of the nodes, and each part's nodes and
// edges are linked lists (by its root: first, last; next per node or
// edge), which joining parts splices. Once uf's contracted graph has no
// edge inside a set and no cycle (contractFrames checks that first),
// joining sets keeps it so unless the parts the sets are in come to have
// one.
type frameTrier struct {
	uf    *unionFind
	edges []ledge
	part  *unionFind
	// lists: nodes (nFirst, nLast, nNext) and edges (eFirst, eLast, eNext);
	// size, the nodes of each part
	nFirst, nLast, nNext []int32
	eFirst, eLast, eNext []int32
	size                 []int32
	// a try whose parts hold most nodes checks the whole graph on a copy
	// of uf (whole), which costs less than walking the lists
	whole *unionFind
	cs    contractScratch
	// try's scratch: each set root's node in the part's contracted graph
	// (valid where stamp is the round's), its adjacency and in-degrees
	id, stamp         []int32
	round             int32
	head, next, to    []int32
	indeg, queue, rts []int32
}

func newFrameTrier(uf *unionFind, edges []ledge, n int) *frameTrier {
	t := &frameTrier{uf: uf, edges: edges, part: newUnionFind(n), id: make([]int32, n), stamp: make([]int32, n)}
	for v := range n {
		t.part.union(v, uf.find(v))
	}
	for _, e := range edges {
		t.part.union(e.from, e.to)
	}
	t.nFirst, t.nLast, t.nNext = listOf(n, n, func(v int) int { return t.part.find(v) })
	t.eFirst, t.eLast, t.eNext = listOf(n, len(edges), func(i int) int { return t.part.find(edges[i].from) })
	t.size = make([]int32, n)
	for v := range n {
		t.size[t.part.find(v)]++
	}
	return t
}

// listOf links the m elements into one list per key (0..n-1), in element
// order: first and last element of each key (-1 for none), and the next
// of each element (-1 at the end).
func listOf(n, m int, key func(i int) int) (first, last, next []int32) {
	first, last, next = make([]int32, n), make([]int32, n), make([]int32, m)
	for k := range first {
		first[k], last[k] = -1, -1
	}
	for i := range m {
		k := key(i)
		next[i] = -1
		if last[k] < 0 {
			first[k] = int32(i)
		} else {
			next[last[k]] = int32(i)
		}
		last[k] = int32(i)
	}
	return first, last, next
}

// try reports whether contracting the sets of members into one leaves no
// edge inside a set and no cycle.
func (t *frameTrier) try(members []int) bool {
	t.round++
	rts := t.rts[:0] // the parts the members are in
	for _, m := range members {
		r := int32(t.part.find(m))
		if t.stamp[r] != -t.round {
			t.stamp[r] = -t.round
			rts = append(rts, r)
		}
	}
	t.rts = rts
	nodes := 0
	for _, r := range rts {
		nodes += int(t.size[r])
	}
	if n := len(t.size); nodes*2 > n {
		if t.whole == nil {
			t.whole = &unionFind{p: make([]int, n)}
		}
		copy(t.whole.p, t.uf.p)
		for _, m := range members[1:] {
			t.whole.union(members[0], m)
		}
		return contractedOK(t.whole, t.edges, n, &t.cs)
	}
	// number the sets of those parts, the members' sets all 0
	k := int32(1)
	for _, m := range members {
		s := t.uf.find(m)
		t.stamp[s], t.id[s] = t.round, 0
	}
	for _, r := range rts {
		for v := t.nFirst[r]; v >= 0; v = t.nNext[v] {
			if s := t.uf.find(int(v)); t.stamp[s] != t.round {
				t.stamp[s], t.id[s] = t.round, k
				k++
			}
		}
	}
	head := resize(t.head, int(k))
	indeg := resize(t.indeg, int(k))
	for i := range head {
		head[i], indeg[i] = -1, 0
	}
	next, to := t.next[:0], t.to[:0]
	for _, r := range rts {
		for ei := t.eFirst[r]; ei >= 0; ei = t.eNext[ei] {
			e := t.edges[ei]
			u, v := t.id[t.uf.find(e.upper())], t.id[t.uf.find(e.lower())]
			if u == v {
				return false
			}
			next = append(next, head[u])
			to = append(to, v)
			head[u] = int32(len(to) - 1)
			indeg[v]++
		}
	}
	queue := t.queue[:0]
	for s := range k {
		if indeg[s] == 0 {
			queue = append(queue, s)
		}
	}
	for q := 0; q < len(queue); q++ {
		for e := head[queue[q]]; e >= 0; e = next[e] {
			if indeg[to[e]]--; indeg[to[e]] == 0 {
				queue = append(queue, to[e])
			}
		}
	}
	t.head, t.indeg, t.next, t.to, t.queue = head, indeg, next, to, queue
	return len(queue) == int(k)
}

// join contracts the sets of members into one and their parts into one.
func (t *frameTrier) join(members []int) {
	for _, m := range members[1:] {
		t.uf.union(members[0], m)
		a, b := t.part.find(members[0]), t.part.find(m)
		if a == b {
			continue
		}
		t.part.union(a, b)
		r := t.part.find(a)
		o := a + b - r
		splice(t.nFirst, t.nLast, t.nNext, r, o)
		splice(t.eFirst, t.eLast, t.eNext, r, o)
		t.size[r], t.size[o] = t.size[r]+t.size[o], 0
	}
}

// splice appends list o to list r and empties o.
func splice(first, last, next []int32, r, o int) {
	switch {
	case first[o] < 0:
	case first[r] < 0:
		first[r], last[r] = first[o], last[o]
	default:
		next[last[r]] = first[o]
		last[r] = last[o]
	}
	first[o], last[o] = -1, -1
}

// linkParts adds part-of links (child ⇢ parent) for the decompositions
// that are not frames, reversed where the parent is an ancestor of the
// child.
func (rk *ranking) linkParts(st *structure, uf *unionFind, accepted []bool) {
	cg := newContracted(uf, rk.edges, len(st.nodes))
	for di, d := range st.decomps {
		if accepted[di] {
			continue
		}
		for _, c := range d.children {
			if uf.find(c) == uf.find(d.parent) {
				continue
			}
			e := ledge{from: c, to: d.parent, kind: edgePartOf}
			if cg.reaches(d.parent, c) {
				e.rev = true
			}
			rk.edges = append(rk.edges, e)
			cg.add(e)
		}
	}
}

// simplexLayers ranks the contracted graph (sets given by set, each
// represented by its smallest member) by network simplex and returns each
// representative's layer.
func (rk *ranking) simplexLayers(set []int) []int {
	n := len(set)
	idx := make([]int32, n) // representative → simplex node
	var size []int32
	for i := range n {
		if set[i] == i {
			idx[i] = int32(len(size))
			size = append(size, 0)
		}
	}
	for i := range n {
		size[idx[set[i]]]++
	}
	// edges between sets, parallel ones merged into one of their weight
	m := len(size)
	off := make([]int32, m+1)
	for _, e := range rk.edges {
		if u, v := set[e.upper()], set[e.lower()]; u != v {
			off[idx[u]+1]++
		}
	}
	for u := range m {
		off[u+1] += off[u]
	}
	to := make([]int32, off[m])
	fill := make([]int32, m)
	for _, e := range rk.edges {
		if u, v := set[e.upper()], set[e.lower()]; u != v {
			a := idx[u]
			to[off[a]+fill[a]] = idx[v]
			fill[a]++
		}
	}
	var tail, head, weight []int32
	at := make([]int32, m) // simplex edge of (u, v) for the current u, if marked
	mark := make([]int32, m)
	for v := range mark {
		mark[v] = -1
	}
	for u := range int32(m) {
		for _, v := range to[off[u]:off[u+1]] {
			if mark[v] == u {
				weight[at[v]]++
				continue
			}
			mark[v], at[v] = u, int32(len(tail))
			tail, head, weight = append(tail, u), append(head, v), append(weight, 1)
		}
	}
	ranks := newSimplex(m, tail, head, weight, size).solve(simplexMaxPivots(m))
	r := make([]int, n)
	for i := range n {
		if set[i] == i {
			r[i] = int(ranks[idx[i]])
		}
	}
	return r
}

// simplexMaxPivots bounds network simplex's pivots: ten times what it
// takes on work graphs (three or four per node), so only a pathological
// graph stops early, with a feasible if not shortest layering.
func simplexMaxPivots(n int) int { return 40*n + 1000 }

// longestPathLayers ranks the contracted graph by longest path from the
// sources, each node starting from its previous layer (prevRank, -1 for
// new nodes): old nodes keep their layer unless a dependency pushes them
// down. A new atom with no dependencies sits just above its first
// dependent rather than at the top.
func (rk *ranking) longestPathLayers(set, prevRank []int) []int {
	n := len(set)
	init := make([]int, n)
	for i := range prevRank {
		if r := prevRank[i]; r >= 0 && r > init[set[i]] {
			init[set[i]] = r
		}
	}
	// cout[coutOff[u]:coutOff[u+1]]: the contracted graph's edges, in
	// edge order
	coutOff := make([]int32, n+1)
	indeg := make([]int, n)
	for _, e := range rk.edges {
		if u, v := set[e.upper()], set[e.lower()]; u != v {
			coutOff[u+1]++
			indeg[v]++
		}
	}
	for v := 0; v < n; v++ {
		coutOff[v+1] += coutOff[v]
	}
	coutAll := make([]int, coutOff[n])
	fill := make([]int32, n)
	for _, e := range rk.edges {
		if u, v := set[e.upper()], set[e.lower()]; u != v {
			coutAll[coutOff[u]+fill[u]] = v
			fill[u]++
		}
	}
	cout := func(u int) []int { return coutAll[coutOff[u]:coutOff[u+1]] }
	queue := make([]int, 0, n)
	hasIn := make([]bool, n)
	for i := range n {
		if set[i] == i && indeg[i] == 0 {
			queue = append(queue, i)
		}
		hasIn[i] = indeg[i] > 0
	}
	prevOf := make([]bool, n)
	for i := range prevRank {
		if prevRank[i] >= 0 {
			prevOf[set[i]] = true
		}
	}
	r := make([]int, n)
	copy(r, init)
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		for _, w := range cout(v) {
			if r[v]+1 > r[w] {
				r[w] = r[v] + 1
			}
			indeg[w]--
			if indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	for _, v := range queue {
		if hasIn[v] || len(cout(v)) == 0 || prevOf[v] {
			continue
		}
		m := -1
		for _, w := range cout(v) {
			if m < 0 || r[w] < m {
				m = r[w]
			}
		}
		r[v] = max(r[v], m-1)
	}
	return r
}

// compact removes empty layers (a fresh layout has none; seeded ones may).
func (rk *ranking) compact() {
	used := make([]bool, rk.layers)
	for _, r := range rk.rank {
		used[r] = true
	}
	shift := make([]int, rk.layers)
	k := 0
	for l := range used {
		shift[l] = k
		if used[l] {
			k++
		}
	}
	for i, r := range rk.rank {
		rk.rank[i] = shift[r]
	}
	rk.layers = k
}

// contractScratch holds contractedOK's arrays between calls.
type contractScratch struct {
	find, head, next, to, indeg, queue []int
}

// contractedOK reports whether contracting the sets of uf leaves no edge
// inside a set and no cycle.
func contractedOK(uf *unionFind, edges []ledge, n int, cs *contractScratch) bool {
	find := resize(cs.find, n)
	head := resize(cs.head, n)
	indeg := resize(cs.indeg, n)
	next := resize(cs.next, len(edges))
	to := resize(cs.to, len(edges))
	cs.find, cs.head, cs.indeg, cs.next, cs.to = find, head, indeg, next, to
	for i := range find {
		find[i] = uf.find(i)
		head[i] = -1
		indeg[i] = 0
	}
	for i, e := range edges {
		u, v := find[e.upper()], find[e.lower()]
		if u == v {
			return false
		}
		to[i], next[i], head[u] = v, head[u], i
		indeg[v]++
	}
	seen, total := 0, 0
	queue := cs.queue[:0]
	for i := range n {
		if find[i] == i {
			total++
			if indeg[i] == 0 {
				queue = append(queue, i)
			}
		}
	}
	for q := 0; q < len(queue); q++ {
		seen++
		for e := head[queue[q]]; e >= 0; e = next[e] {
			w := to[e]
			indeg[w]--
			if indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	cs.queue = queue
	return seen == total
}

// contracted is the layer-direction adjacency of the contracted graph,
// grown as part-of links are added: lists of edges (head, next) ending
// at to.
type contracted struct {
	uf    *unionFind
	head  []int32
	next  []int32
	to    []int32
	seen  []int
	mark  int
	stack []int
}

func newContracted(uf *unionFind, edges []ledge, n int) *contracted {
	c := &contracted{uf: uf, head: make([]int32, n), seen: make([]int, n),
		next: make([]int32, 0, len(edges)), to: make([]int32, 0, len(edges))}
	for i := range c.head {
		c.head[i] = -1
	}
	for _, e := range edges {
		c.add(e)
	}
	return c
}

func (c *contracted) add(e ledge) {
	u, v := c.uf.find(e.upper()), c.uf.find(e.lower())
	if u != v {
		c.next = append(c.next, c.head[u])
		c.to = append(c.to, int32(v))
		c.head[u] = int32(len(c.to) - 1)
	}
}

// reaches reports whether from reaches to.
func (c *contracted) reaches(from, to int) bool {
	c.mark++
	target := c.uf.find(to)
	stack := append(c.stack[:0], c.uf.find(from))
	defer func() { c.stack = stack }()
	c.seen[stack[0]] = c.mark
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == target {
			return true
		}
		for k := c.head[v]; k >= 0; k = c.next[k] {
			if w := int(c.to[k]); c.seen[w] != c.mark {
				c.seen[w] = c.mark
				stack = append(stack, w)
			}
		}
	}
	return false
}
