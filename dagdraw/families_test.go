package dagdraw

import (
	"strconv"
	"testing"
)

// longEdgeGraph makes a work graph with long edges: a loop that keeps
// opening strands. Most atoms continue one of the last six; one in 25
// starts a new strand with no dependencies; one in three also depends on a
// much earlier atom (20 to 300 back). A longest-path layering puts every
// new strand at the top, so its edges into the main line span most of the
// drawing and the dummies grow with the square of the size (660,000 at
// 10,000 atoms); the shortest layering needs about seven per atom.
func longEdgeGraph(seed uint64, n int) Graph {
	r := &rng{s: seed}
	var g Graph
	for i := 0; i < n; i++ {
		id := "A" + strconv.Itoa(i+1)
		g.Nodes = append(g.Nodes, Node{ID: id, Label: words[r.intn(len(words))] + " " + words[r.intn(len(words))]})
		if i == 0 || r.intn(25) == 0 {
			continue
		}
		dep := func(d int) { g.Edges = append(g.Edges, Edge{From: "A" + strconv.Itoa(d+1), To: id}) }
		dep(i - 1 - r.intn(min(i, 6)))
		if r.intn(3) == 0 && i > 20 {
			dep(i - 20 - r.intn(min(i-20, 280)))
		}
	}
	return g
}

// simGraph is the simulator's loop of n atoms (sim/gen, as `aot-tui sim
// --atoms n` and the UI's benchmarks make it), as the UI draws it.
func simGraph(tb testing.TB, seed uint64, n int) Graph {
	tb.Helper()
	if loops.sim == nil {
		tb.Fatal("no simulator loops: loops_test.go sets them")
	}
	g, err := loops.sim(seed, n)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}
