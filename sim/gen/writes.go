package gen

import (
	"strconv"
	"strings"
)

// LoopWrites returns the versions a run of the loop writes over base, as
// the benchmarks, tests and scripts/perf replay them: each call (the n-th,
// from 0) flips the status of one atom between pending and in_progress —
// a different atom each time, so the graph keeps its shape — and sets
// control.iteration to 100+n, a value base does not show. A file with no
// such atom or no iteration line changes only in what it has.
func LoopWrites(base []byte) func() []byte {
	lines := strings.Split(string(base), "\n")
	var statuses []int
	iter := -1
	for k, l := range lines {
		switch {
		case iter < 0 && strings.HasPrefix(l, "  iteration: "):
			iter = k
		case l == "    status: pending" || l == "    status: in_progress":
			statuses = append(statuses, k)
		}
	}
	n := -1
	return func() []byte {
		n++
		if len(statuses) > 0 {
			k := statuses[(n*7919)%len(statuses)]
			if lines[k] == "    status: pending" {
				lines[k] = "    status: in_progress"
			} else {
				lines[k] = "    status: pending"
			}
		}
		if iter >= 0 {
			lines[iter] = "  iteration: " + strconv.Itoa(100+n)
		}
		return []byte(strings.Join(lines, "\n"))
	}
}
