package dagdraw

import (
	"testing"
)

// bruteForce returns the fewest crossings over every combination of layer
// orders (for the given layering, dummies included), or -1 when there are
// more than limit combinations.
func bruteForce(w *work, limit int) int {
	L := len(w.order)
	total := 1
	for _, o := range w.order {
		for k := 2; k <= len(o); k++ {
			total *= k
			if total > limit {
				return -1
			}
		}
	}
	perms := make([][][]int, L)
	for l, o := range w.order {
		perms[l] = permutations(o)
	}
	idx := make([]int, L)
	best := -1
	for {
		for l := range w.roots {
			copy(w.roots[l], perms[l][idx[l]])
			w.flatten(l)
		}
		if c := w.totalCrossings(); best < 0 || c < best {
			best = c
		}
		l := 0
		for ; l < L; l++ {
			idx[l]++
			if idx[l] < len(perms[l]) {
				break
			}
			idx[l] = 0
		}
		if l == L {
			return best
		}
	}
}

// denseSmall is a random DAG of n atoms where each pair is an edge with
// probability about 1/3: small graphs with crossings that cannot all go.
func denseSmall(r *rng, n int) Graph {
	var g Graph
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, Node{ID: "A" + itoa(i+1)})
		for j := 0; j < i; j++ {
			if r.intn(3) == 0 {
				g.Edges = append(g.Edges, Edge{From: "A" + itoa(j+1), To: "A" + itoa(i+1)})
			}
		}
	}
	return g
}

// On graphs of up to 12 atoms, crossing reduction finds the optimum.
func TestSmallGraphsReachOptimum(t *testing.T) {
	checked, nonzero := 0, 0
	for seed := uint64(1); seed <= 400 && checked < 150; seed++ {
		r := &rng{s: seed}
		n := 4 + r.intn(9)
		g := denseSmall(r, n)
		l := NewLayout(g, Options{})
		st := buildStructure(&g, Options{})
		w := newWork(st, rankNodes(st, nil), Options{})
		w.initOrder(func(it int) float64 { return float64(it) })
		opt := bruteForce(w, 300_000)
		if opt < 0 {
			continue
		}
		checked++
		if opt > 0 {
			nonzero++
		}
		if l.Crossings() != opt {
			t.Errorf("seed %d (%d atoms, %d items): %d crossings, optimum %d", seed, n, len(w.items), l.Crossings(), opt)
		}
	}
	if checked < 100 || nonzero < 20 {
		t.Fatalf("only %d graphs small enough to brute-force, %d with crossings", checked, nonzero)
	}
	t.Logf("%d graphs, %d with unavoidable crossings", checked, nonzero)
}
