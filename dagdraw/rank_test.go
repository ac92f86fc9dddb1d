package dagdraw

import (
	"slices"
	"strconv"
	"testing"
)

// contractFramesEverywhere is contractFrames as it was first written: each
// decomposition tried on a copy of the union-find, checked over the whole
// graph. TestContractFramesByParts holds the part-by-part check to it.
func (rk *ranking) contractFramesEverywhere(st *structure, uf *unionFind) (*unionFind, []bool) {
	n := len(st.nodes)
	adoptees := map[int][]int{}
	for m, a := range rk.adopted {
		if a >= 0 {
			adoptees[a] = append(adoptees[a], m)
		}
	}
	accepted := make([]bool, len(st.decomps))
	try := &unionFind{p: make([]int, n)}
	var cs contractScratch
	for di, d := range st.decomps {
		copy(try.p, uf.p)
		members := append([]int{d.parent}, d.children...)
		for _, c := range d.children {
			members = append(members, adoptees[c]...)
		}
		for _, m := range members[1:] {
			try.union(d.parent, m)
		}
		if !contractedOK(try, rk.edges, n, &cs) {
			continue
		}
		accepted[di] = true
		uf, try = try, uf
		fi := frameInfo{parent: d.parent}
		fi.children = append(fi.children, members[1:]...)
		rk.frameOf[d.parent] = len(rk.frames)
		rk.frames = append(rk.frames, fi)
	}
	return uf, accepted
}

// framesGraph is a random graph whose decompositions often cannot be
// frames: children joined by an edge, or contractions that close a cycle
// through other nodes, some through other decompositions' frames; some
// children are missing OR choices that adopt a layer. The nodes fall into
// up to eight strands joined by no edge (i joins i-strands, ...), so that
// contractions touch small parts as well as most of the graph.
func framesGraph(r *rng, n int) Graph {
	id := func(i int) string { return "A" + strconv.Itoa(i) }
	strands := 1 + r.intn(8)
	var g Graph
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, Node{ID: id(i)})
		for k := r.intn(3); k > 0 && i >= strands; k-- {
			g.Edges = append(g.Edges, Edge{From: id(i - strands*(1+r.intn(i/strands))), To: id(i)})
		}
	}
	for k := r.intn(n/3 + 1); k >= 0; k-- {
		p := r.intn(n)
		d := Decomp{Parent: id(p)}
		for c := 1 + r.intn(3); c > 0; c-- {
			d.Children = append(d.Children, id(min(n-1, p+1+r.intn(8))))
		}
		if r.intn(4) == 0 {
			d.Children = append(d.Children, "M"+strconv.Itoa(k))
			g.ORGroups = append(g.ORGroups, ORGroup{Name: "g" + strconv.Itoa(k), Choices: []string{id(r.intn(n)), "M" + strconv.Itoa(k)}})
		}
		g.Decomps = append(g.Decomps, d)
	}
	return g
}

// Checking each contraction only in the parts of the graph its members
// are in decides as checking the whole graph did: the same frames, on
// random graphs where many decompositions cannot be frames.
func TestContractFramesByParts(t *testing.T) {
	r := &rng{s: 7}
	frames, refused := 0, 0
	for k := 0; k < 400; k++ {
		g := framesGraph(r, 4+r.intn(60))
		st := buildStructure(&g, Options{})
		rank := func(contract func(*ranking, *structure, *unionFind) (*unionFind, []bool)) (*ranking, []int, []bool) {
			n := len(st.nodes)
			rk := &ranking{rank: make([]int, n), frameOf: make([]int, n), adopted: make([]int, n)}
			for i := range rk.frameOf {
				rk.frameOf[i], rk.adopted[i] = -1, -1
			}
			rev := breakCycles(st)
			for i, e := range st.edges {
				rk.edges = append(rk.edges, ledge{from: e.from, to: e.to, kind: edgeDep, rev: rev[i]})
			}
			uf, accepted := contract(rk, st, rk.adoptChoices(st))
			set := make([]int, n)
			for i := range set {
				set[i] = uf.find(i)
			}
			return rk, set, accepted
		}
		want, wantSet, wantOK := rank((*ranking).contractFramesEverywhere)
		got, gotSet, gotOK := rank((*ranking).contractFrames)
		if !slices.Equal(gotOK, wantOK) || !slices.Equal(gotSet, wantSet) || !slices.Equal(got.frameOf, want.frameOf) {
			t.Fatalf("graph %d: frames %v, sets %v; checking the whole graph: %v, %v", k, gotOK, gotSet, wantOK, wantSet)
		}
		for _, ok := range wantOK {
			if ok {
				frames++
			} else {
				refused++
			}
		}
	}
	if frames < 100 || refused < 100 {
		t.Fatalf("only %d frames and %d refusals: the graphs do not test both", frames, refused)
	}
	t.Logf("%d frames, %d refused", frames, refused)
}
