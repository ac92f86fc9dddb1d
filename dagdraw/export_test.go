package dagdraw

// SetLoops gives this package's tests the repository's loops as graphs
// (see loops in helpers_test.go): file reads a state file, sim makes the
// simulator's loop of n atoms.
func SetLoops(file func(path string) (Graph, error), sim func(seed uint64, n int) (Graph, error)) {
	loops.file, loops.sim = file, sim
}
