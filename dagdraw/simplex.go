package dagdraw

import "math"

// Layering by network simplex. The layering Gansner, Koutsofios, North
// and Vo give dot ("A technique for drawing directed graphs", 1993) is the
// linear programme
//
//	minimise Σ weight(e)·(rank(head e) − rank(tail e))
//	subject to rank(head e) − rank(tail e) ≥ 1 for every edge e,
//
// the total length of the edges, so the number of dummies the ordering
// and the drawing must carry. Its dual is an uncapacitated min-cost flow:
// each node supplies (weight out − weight in) units, every edge carries
// flow at cost −1; the optimal potentials are the ranks (negated).
//
// dot solves it with the dual network simplex: a tree of tight edges,
// cut values, a tree edge with a negative cut value leaves and the least
// slack edge across its cut enters. Finding that edge means going through
// one side of the cut, and on work graphs with long edges the sides are
// large: it took seconds at 10,000 atoms. This is the primal network
// simplex instead, as LEMON implements it (Kovács, "Minimum-cost flow
// algorithms: an experimental evaluation", 2015): a spanning tree with an
// artificial root, kept as parent, thread and subtree-size arrays, so a
// pivot costs the length of the cycle it closes and the size of the
// subtree it moves; block search picks the entering edge (the most
// violated of a block of √m edges); the leaving one keeps the tree
// strongly feasible, so the method does not cycle. It reaches the same
// optimum (total edge length) as dot's.
//
// Then, as dot does: each connected component is normalised to start at
// rank 0, and nodes with as much weight in as out move to the least
// crowded rank they may take (balancing), which changes no total length.
type simplex struct {
	n, m int // nodes and edges; node n is the root, arcs m.. are artificial
	src  []int32
	dst  []int32
	cost []int32
	flow []int32
	tree []bool
	pi   []int32

	parent    []int32
	pred      []int32 // the arc to the parent
	predUp    []bool  // pred points from the node to its parent
	thread    []int32 // preorder, a ring through the root
	revThread []int32
	succNum   []int32 // size of the subtree
	lastSucc  []int32 // last node of the subtree in thread order

	block int // edges per block of the entering search
	next  int // where the next search starts
	dirty []int32

	// the pivot in progress
	in, join, uIn, vIn, uOut int32
	delta                    int32

	// the problem as given, for balancing
	tail, head, weight, size []int32
}

// newSimplex makes the problem for n nodes and edges tail[i] → head[i]
// of weight weight[i]; size[v] is how many drawn nodes v stands for.
func newSimplex(n int, tail, head, weight, size []int32) *simplex {
	m := len(tail)
	s := &simplex{n: n, m: m, tail: tail, head: head, weight: weight, size: size}
	arcs := m + n
	s.src = make([]int32, arcs)
	s.dst = make([]int32, arcs)
	s.cost = make([]int32, arcs)
	s.flow = make([]int32, arcs)
	s.tree = make([]bool, arcs)
	copy(s.src, tail)
	copy(s.dst, head)
	supply := make([]int32, n+1)
	for e := range m {
		s.cost[e] = -1
		supply[tail[e]] += weight[e]
		supply[head[e]] -= weight[e]
	}
	nodes := n + 1
	s.pi = make([]int32, nodes)
	s.parent = make([]int32, nodes)
	s.pred = make([]int32, nodes)
	s.predUp = make([]bool, nodes)
	s.thread = make([]int32, nodes)
	s.revThread = make([]int32, nodes)
	s.succNum = make([]int32, nodes)
	s.lastSucc = make([]int32, nodes)
	// The first basis: every node hangs from the root by its artificial
	// arc, which carries the node's supply out (cost 0) or its demand in
	// (a cost above any path's, so the arcs empty).
	root := int32(n)
	art := int32(n + 2)
	s.parent[root], s.pred[root] = -1, -1
	s.thread[root], s.revThread[0] = 0, root
	s.succNum[root] = int32(nodes)
	s.lastSucc[root] = root - 1
	for u := range int32(n) {
		e := int32(m) + u
		s.parent[u], s.pred[u] = root, e
		s.thread[u], s.revThread[u+1] = u+1, u
		s.succNum[u], s.lastSucc[u] = 1, u
		s.tree[e] = true
		if supply[u] >= 0 {
			s.predUp[u] = true
			s.src[e], s.dst[e] = u, root
			s.flow[e] = supply[u]
		} else {
			s.pi[u] = art
			s.src[e], s.dst[e] = root, u
			s.flow[e] = -supply[u]
			s.cost[e] = art
		}
	}
	if n == 0 {
		s.thread[root] = root
		s.revThread[root] = root
	}
	s.block = max(10, int(math.Sqrt(float64(m))))
	return s
}

// solve ranks the nodes: least total edge length, each component from 0,
// balanced. maxPivots bounds the work; if it runs out, the ranks are made
// feasible by pushing heads below tails (never needed on work graphs).
func (s *simplex) solve(maxPivots int) []int32 {
	done := false
	for p := 0; p < maxPivots; p++ {
		if s.in = s.entering(); s.in < 0 {
			done = true
			break
		}
		s.findJoin()
		if !s.leaving() {
			break // unbounded: impossible on a DAG
		}
		s.augment()
		s.retree()
		s.repotential()
	}
	rank := make([]int32, s.n)
	for v := range rank {
		rank[v] = -s.pi[v]
	}
	if !done {
		makeFeasible(rank, s.tail, s.head)
	}
	normalizeComponents(rank, s.tail, s.head)
	balanceRanks(rank, s.tail, s.head, s.weight, s.size)
	return rank
}

// entering finds an edge whose constraint the potentials violate (a
// negative reduced cost): the most violated of the first block of edges
// that has one, going round from where the last search stopped; -1 when
// none is (the ranks are optimal).
func (s *simplex) entering() int32 {
	best, least := int32(-1), int32(0)
	cnt := s.block
	for k, e := 0, s.next; k < s.m; k++ {
		if !s.tree[e] {
			if c := s.cost[e] + s.pi[s.src[e]] - s.pi[s.dst[e]]; c < least {
				best, least = int32(e), c
			}
		}
		if e++; e == s.m {
			e = 0
		}
		if cnt--; cnt == 0 {
			if best >= 0 {
				s.next = e
				return best
			}
			cnt = s.block
		}
	}
	return best
}

// findJoin finds the top of the cycle the entering arc closes.
func (s *simplex) findJoin() {
	u, v := s.src[s.in], s.dst[s.in]
	for u != v {
		if s.succNum[u] < s.succNum[v] {
			u = s.parent[u]
		} else {
			v = s.parent[v]
		}
	}
	s.join = u
}

// leaving finds the arc that leaves: of the cycle's arcs against its
// direction (the entering arc's), the one with the least flow, the last
// such from the entering arc's head round (which keeps the tree strongly
// feasible). It sets delta, uOut (the node below the leaving arc), uIn
// (the entering arc's end on uOut's side) and vIn.
func (s *simplex) leaving() bool {
	first, second := s.src[s.in], s.dst[s.in]
	const inf = math.MaxInt32
	s.delta = inf
	result := 0
	for u := first; u != s.join; u = s.parent[u] {
		if s.predUp[u] {
			if d := s.flow[s.pred[u]]; d < s.delta {
				s.delta, s.uOut, result = d, u, 1
			}
		}
	}
	for u := second; u != s.join; u = s.parent[u] {
		if !s.predUp[u] {
			if d := s.flow[s.pred[u]]; d <= s.delta {
				s.delta, s.uOut, result = d, u, 2
			}
		}
	}
	if result == 1 {
		s.uIn, s.vIn = first, second
	} else {
		s.uIn, s.vIn = second, first
	}
	return result != 0
}

// augment sends delta round the cycle.
func (s *simplex) augment() {
	if d := s.delta; d > 0 {
		s.flow[s.in] += d
		for u := s.src[s.in]; u != s.join; u = s.parent[u] {
			if s.predUp[u] {
				s.flow[s.pred[u]] -= d
			} else {
				s.flow[s.pred[u]] += d
			}
		}
		for u := s.dst[s.in]; u != s.join; u = s.parent[u] {
			if s.predUp[u] {
				s.flow[s.pred[u]] += d
			} else {
				s.flow[s.pred[u]] -= d
			}
		}
	}
	s.tree[s.in] = true
	s.tree[s.pred[s.uOut]] = false
}

// retree hangs the subtree below the leaving arc from the entering one:
// the stem (uIn up to uOut) turns round, and thread, parents, subtree
// sizes and last successors change along it and up to the join.
func (s *simplex) retree() {
	uIn, vIn, uOut := s.uIn, s.vIn, s.uOut
	oldRevThread := s.revThread[uOut]
	oldSuccNum := s.succNum[uOut]
	oldLastSucc := s.lastSucc[uOut]
	vOut := s.parent[uOut]
	if uIn == uOut {
		s.parent[uIn] = vIn
		s.pred[uIn] = s.in
		s.predUp[uIn] = uIn == s.src[s.in]
		if s.thread[vIn] != uOut {
			after := s.thread[oldLastSucc]
			s.link(oldRevThread, after)
			after = s.thread[vIn]
			s.link(vIn, uOut)
			s.link(oldLastSucc, after)
		}
	} else {
		s.turnStem(oldRevThread, oldLastSucc)
		s.succNum[uIn] = oldSuccNum
	}
	upLimitOut := int32(-1)
	if s.lastSucc[s.join] == vIn {
		upLimitOut = s.join
	}
	lastSuccOut := s.lastSucc[uOut]
	for u := vIn; u != -1 && s.lastSucc[u] == vIn; u = s.parent[u] {
		s.lastSucc[u] = lastSuccOut
	}
	switch {
	case s.join != oldRevThread && vIn != oldRevThread:
		for u := vOut; u != upLimitOut && s.lastSucc[u] == oldLastSucc; u = s.parent[u] {
			s.lastSucc[u] = oldRevThread
		}
	case lastSuccOut != oldLastSucc:
		for u := vOut; u != upLimitOut && s.lastSucc[u] == oldLastSucc; u = s.parent[u] {
			s.lastSucc[u] = lastSuccOut
		}
	}
	for u := vIn; u != s.join; u = s.parent[u] {
		s.succNum[u] += oldSuccNum
	}
	for u := vOut; u != s.join; u = s.parent[u] {
		s.succNum[u] -= oldSuccNum
	}
}

// link makes b follow a in thread order.
func (s *simplex) link(a, b int32) {
	s.thread[a] = b
	s.revThread[b] = a
}

// turnStem re-hangs the stem from uIn to uOut (uIn ≠ uOut) below vIn:
// each stem node's subtree moves, in thread order, after the subtree of
// the stem node below it, and parent arcs turn round.
func (s *simplex) turnStem(oldRevThread, oldLastSucc int32) {
	uIn, vIn, uOut := s.uIn, s.vIn, s.uOut
	threadContinue := s.thread[vIn]
	if oldRevThread == vIn {
		threadContinue = s.thread[oldLastSucc]
	}
	stem, parStem := uIn, vIn
	last := s.lastSucc[uIn]
	after := s.thread[last]
	s.thread[vIn] = uIn
	dirty := append(s.dirty[:0], vIn)
	for stem != uOut {
		next := s.parent[stem]
		s.thread[last] = next
		dirty = append(dirty, last)
		s.link(s.revThread[stem], after)
		s.parent[stem] = parStem
		parStem, stem = stem, next
		if s.lastSucc[stem] == s.lastSucc[parStem] {
			last = s.revThread[parStem]
		} else {
			last = s.lastSucc[stem]
		}
		after = s.thread[last]
	}
	s.parent[uOut] = parStem
	s.link(last, threadContinue)
	s.lastSucc[uOut] = last
	if oldRevThread != vIn {
		s.link(oldRevThread, after)
	}
	for _, u := range dirty {
		s.revThread[s.thread[u]] = u
	}
	s.dirty = dirty
	sc, ls := int32(0), s.lastSucc[uOut]
	for u, p := uOut, s.parent[uOut]; u != uIn; u, p = p, s.parent[p] {
		s.pred[u] = s.pred[p]
		s.predUp[u] = !s.predUp[p]
		sc += s.succNum[u] - s.succNum[p]
		s.succNum[u] = sc
		s.lastSucc[p] = ls
	}
	s.pred[uIn] = s.in
	s.predUp[uIn] = uIn == s.src[s.in]
}

// repotential shifts the potentials of the moved subtree so the entering
// arc's reduced cost is 0, or the others' the other way when they are
// fewer (only differences of potentials matter).
func (s *simplex) repotential() {
	c := s.cost[s.in]
	if !s.predUp[s.uIn] {
		c = -c
	}
	sigma := s.pi[s.vIn] - s.pi[s.uIn] - c
	end := s.thread[s.lastSucc[s.uIn]]
	if 2*int(s.succNum[s.uIn]) <= s.n+1 {
		for u := s.uIn; u != end; u = s.thread[u] {
			s.pi[u] += sigma
		}
		return
	}
	for u := end; u != s.uIn; u = s.thread[u] {
		s.pi[u] -= sigma
	}
}

// makeFeasible pushes heads below their tails, in topological order.
func makeFeasible(rank, tail, head []int32) {
	n := len(rank)
	off, out := csr(n, tail)
	indeg := make([]int32, n)
	for _, h := range head {
		indeg[h]++
	}
	queue := make([]int32, 0, n)
	for v := range int32(n) {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		for _, e := range out[off[v]:off[v+1]] {
			w := head[e]
			rank[w] = max(rank[w], rank[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
}

// csr lists the edges by end: edges[off[v]:off[v+1]] are those with
// end[e] == v, in edge order.
func csr(n int, end []int32) (off, edges []int32) {
	off = make([]int32, n+1)
	for _, v := range end {
		off[v+1]++
	}
	for v := range n {
		off[v+1] += off[v]
	}
	edges = make([]int32, len(end))
	fill := make([]int32, n)
	for e, v := range end {
		edges[off[v]+fill[v]] = int32(e)
		fill[v]++
	}
	return off, edges
}

// normalizeComponents shifts each connected component so its smallest
// rank is 0.
func normalizeComponents(rank, tail, head []int32) {
	uf := newUnionFind(len(rank))
	for e := range tail {
		uf.union(int(tail[e]), int(head[e]))
	}
	lo := make([]int32, len(rank))
	for v := range lo {
		lo[v] = math.MaxInt32
	}
	for v, r := range rank {
		c := uf.find(v)
		lo[c] = min(lo[c], r)
	}
	for v := range rank {
		rank[v] -= lo[uf.find(v)]
	}
}

// balanceRanks moves each node with as much weight in as out (so its rank
// changes no length) to the least crowded rank it may take, as dot does;
// of equally crowded ranks it keeps its own, else takes the first. Nodes
// without edges stay where they are.
func balanceRanks(rank, tail, head, weight, size []int32) {
	n := len(rank)
	maxR := int32(0)
	for _, r := range rank {
		maxR = max(maxR, r)
	}
	count := make([]int32, maxR+1)
	for v, r := range rank {
		count[r] += size[v]
	}
	outOff, outE := csr(n, tail)
	inOff, inE := csr(n, head)
	for v := range n {
		ins, outs := inE[inOff[v]:inOff[v+1]], outE[outOff[v]:outOff[v+1]]
		if len(ins) == 0 && len(outs) == 0 {
			continue
		}
		lo, hi := int32(0), maxR
		win, wout := int32(0), int32(0)
		for _, e := range ins {
			win += weight[e]
			lo = max(lo, rank[tail[e]]+1)
		}
		for _, e := range outs {
			wout += weight[e]
			hi = min(hi, rank[head[e]]-1)
		}
		if win != wout || lo >= hi {
			continue
		}
		count[rank[v]] -= size[v]
		choice := rank[v]
		for r := lo; r <= hi; r++ {
			if count[r] < count[choice] {
				choice = r
			}
		}
		count[choice] += size[v]
		rank[v] = choice
	}
}
