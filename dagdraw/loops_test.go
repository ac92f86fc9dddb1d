package dagdraw_test

import (
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopgraph"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// The fixtures and families of this package's tests include real AoT
// loops: a state file of the repository (testdata/seed-complete.md) and
// the simulator's loop (sim/gen, as `aot-tui sim --atoms n` and the UI's
// benchmarks make it), drawn as the UI draws them, through
// loopgraph.FromState. That package imports dagdraw, so only a test in
// package dagdraw_test may import it; this one hands the loops over.
func init() {
	dagdraw.SetLoops(stateFileGraph, simulatorGraph)
}

func stateFileGraph(path string) (dagdraw.Graph, error) {
	doc, err := statefile.Load(path, 0)
	if err != nil {
		return dagdraw.Graph{}, err
	}
	return loopgraph.FromState(doc.State, nil), nil
}

func simulatorGraph(seed uint64, n int) (dagdraw.Graph, error) {
	data := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 25, Decompositions: n / 40})
	doc, err := statefile.Parse(data)
	if err != nil {
		return dagdraw.Graph{}, err
	}
	return loopgraph.FromState(doc.State, nil), nil
}
