package dagdraw

import (
	"slices"
	"strconv"
	"testing"
)

// TestStableSortBlocks checks the sweeps' sort against the library's
// stable sort, on lists short and long, random and nearly sorted, with
// many equal values.
func TestStableSortBlocks(t *testing.T) {
	r := &rng{s: 7}
	var tmp []blockVal
	for trial := 0; trial < 2000; trial++ {
		n := r.intn(300)
		a := make([]blockVal, n)
		for i := range a {
			a[i] = blockVal{i, float64(r.intn(1+n/3)) / 2}
			if trial%2 == 1 {
				a[i].v = float64(i/3) + float64(r.intn(4))/4
			}
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y blockVal) int {
			switch {
			case x.v < y.v:
				return -1
			case x.v > y.v:
				return 1
			}
			return 0
		})
		tmp = stableSortBlocks(a, tmp)
		if !slices.Equal(a, want) {
			t.Fatalf("trial %d (n %d): got %v, want %v", trial, n, a, want)
		}
	}
}

// transposeMarkingAll is transpose as it was before markSwapped: a swap
// marks every neighbour of the two items dirty.
func (w *work) transposeMarkingAll(maxPasses int, equal bool) {
	L := len(w.roots)
	sc := &w.scratch
	cand := resize(sc.cand, L)
	next := resize(sc.next, L)
	defer func() { sc.cand, sc.next = cand, next }()
	w.markMoved(equal, cand)
	dirty := sc.dirty
	for pass := 0; pass < maxPasses; pass++ {
		gained := false
		clear(next)
		for l := 0; l < L; l++ {
			if !cand[l] {
				continue
			}
			changed := false
			order := w.order[l]
			for _, kids := range w.siblingLists(l) {
				for i := 0; i+1 < len(kids); i++ {
					a, b := kids[i], kids[i+1]
					if a < 0 || b < 0 || dirty[a]|dirty[b] == 0 {
						continue
					}
					au, ad := w.onePos(a)
					bu, bd := w.onePos(b)
					keep, sw := w.pairCross(a, b, au, ad, bu, bd)
					if sw < keep || equal && keep > 0 && sw == keep {
						kids[i], kids[i+1] = b, a
						pa, pb := w.pos[a], w.pos[b]
						w.pos[a], w.pos[b] = pb, pa
						order[pb] = a
						order[pa] = b
						sc.tpos[a], sc.tpos[b] = pb, pa
						w.markNeighbours(a, 1)
						w.markNeighbours(b, 1)
						dirty[a] |= 2
						dirty[b] |= 2
						changed = true
						gained = gained || sw < keep
					}
				}
			}
			for _, it := range order {
				dirty[it] >>= 1
			}
			if changed {
				next[max(0, l-1)] = true
				next[l] = true
				next[min(L-1, l+1)] = true
			}
		}
		if !gained {
			return
		}
		cand, next = next, cand
	}
}

// A swap marks dirty only the pairs of the next layers whose order of
// neighbours it changed (markSwapped): transposition leaves every layer
// as when a swap marked every neighbour of the two items, from random
// orders, with and without equal swaps, and through sweeps that move many
// items between calls. pairCross, which takes a short way for an item
// with one neighbour on a side, counts as all pairs of neighbours do.
func TestTransposeMarksWhatASwapChanges(t *testing.T) {
	r := &rng{s: 3}
	for trial := 0; trial < 80; trial++ {
		n := 20 + r.intn(200)
		g := genGraph(uint64(100+trial), n, genOpts{window: []int{4, 8, 16, 40}[trial%4], extras: trial%3 == 0})
		st := buildStructure(&g, Options{})
		w := newWork(st, rankNodes(st, nil), Options{})
		perm := make([]float64, len(w.items))
		for i := range perm {
			perm[i] = float64(r.intn(1000))
		}
		w.initOrder(func(it int) float64 { return perm[it] })
		ref := w.fork(nil)
		val := make([]float64, len(w.items))
		for call := 0; call < 6; call++ {
			equal := call%2 == 1
			w.transpose(8, equal)
			ref.transposeMarkingAll(8, equal)
			for l := range w.order {
				if !slices.Equal(w.order[l], ref.order[l]) {
					t.Fatalf("trial %d, call %d, layer %d: %v, marking every neighbour: %v", trial, call, l, w.order[l], ref.order[l])
				}
				// pairCross against all pairs of neighbours
				for _, a := range w.order[l] {
					for _, b := range w.order[l] {
						au, ad := w.onePos(a)
						bu, bd := w.onePos(b)
						keep, sw := w.pairCross(a, b, au, ad, bu, bd)
						k1, s1 := crossPairs(w.pos, w.upNb[w.upOff[a]:w.upOff[a+1]], w.upNb[w.upOff[b]:w.upOff[b+1]])
						k2, s2 := crossPairs(w.pos, w.downNb[w.downOff[a]:w.downOff[a+1]], w.downNb[w.downOff[b]:w.downOff[b+1]])
						if keep != k1+k2 || sw != s1+s2 {
							t.Fatalf("pairCross(%d, %d) = %d, %d; counting all pairs: %d, %d", a, b, keep, sw, k1+k2, s1+s2)
						}
					}
				}
			}
			// a sweep moves many items before the next call
			down := call%2 == 0
			for l := range w.order {
				if down && l > 0 || !down && l+1 < len(w.order) {
					w.sweepLayer(l, down, val, false)
					ref.sweepLayer(l, down, val, false)
				}
			}
		}
	}
}

// Both ways of counting a layer pair's crossings — bit planes for a lower
// layer of at most 64 items, the accumulator tree for any — count what
// comparing every pair of segments counts, from random orders of
// generated graphs with narrow and wide layers and items with several
// neighbours on a side.
func TestCrossingsCountEveryPair(t *testing.T) {
	r := &rng{s: 9}
	narrow, wide := 0, 0
	for trial := 0; trial < 40; trial++ {
		n := 20 + r.intn(60)
		if trial%4 == 3 {
			n = 70 + r.intn(100) // for wideGraph: layers wider than 64 items
		}
		g := genGraph(uint64(300+trial), n, genOpts{window: []int{4, 8, 16, 40}[trial%4], maxDeps: 1 + trial%5, extras: trial%3 == 0})
		if trial%4 == 3 {
			g = wideGraph(r, n)
		}
		st := buildStructure(&g, Options{})
		w := newWork(st, rankNodes(st, nil), Options{})
		for try := 0; try < 5; try++ {
			w.initOrder(func(int) float64 { return float64(r.intn(1000)) })
			for l := 0; l+1 < len(w.order); l++ {
				want := 0
				for _, a := range w.order[l] {
					for _, b := range w.order[l] {
						if w.pos[a] < w.pos[b] {
							k, _ := crossPairs(w.pos, w.downNb[w.downOff[a]:w.downOff[a+1]], w.downNb[w.downOff[b]:w.downOff[b+1]])
							want += k
						}
					}
				}
				if got := w.crossingsTree(l); got != want {
					t.Fatalf("trial %d, layer %d: the tree counts %d crossings, every pair %d", trial, l, got, want)
				}
				if len(w.order[l+1]) > 64 {
					wide++
				} else if got := w.crossingsNarrow(l); got != want {
					t.Fatalf("trial %d, layer %d: the bit planes count %d crossings, every pair %d", trial, l, got, want)
				} else {
					narrow++
				}
				if got := w.crossings(l); got != want {
					t.Fatalf("trial %d, layer %d: %d crossings, every pair %d", trial, l, got, want)
				}
			}
		}
	}
	if narrow == 0 || wide == 0 {
		t.Fatalf("%d narrow and %d wide layer pairs: the test compared too little", narrow, wide)
	}
}

// wideGraph has three layers of n atoms each: each atom of the second and
// third depends on one to three atoms of the layer above.
func wideGraph(r *rng, n int) Graph {
	var g Graph
	id := func(l, i int) string { return "W" + strconv.Itoa(l) + "-" + strconv.Itoa(i) }
	for l := 0; l < 3; l++ {
		for i := 0; i < n; i++ {
			g.Nodes = append(g.Nodes, Node{ID: id(l, i)})
			if l == 0 {
				continue
			}
			for d := 1 + r.intn(3); d > 0; d-- {
				g.Edges = append(g.Edges, Edge{From: id(l-1, r.intn(n)), To: id(l, i)})
			}
		}
	}
	return g
}
