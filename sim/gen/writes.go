package gen

import (
	"strconv"
	"strings"
)

// LoopWrites returns the versions a run of the loop writes over base, as
// the benchmarks, tests and scripts/perf replay them: each call (the n-th,
// from 0) flips the status of one atom between pending and in_progress —
// a different atom each time, so the graph keeps its shape — and sets
// control.iteration to 100+n, or to base's iteration+1+n when base is at
// 100 or beyond: a value base does not show, so that each version's
// iteration is new on screen (scripts/perf times until it appears). A file with no
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
	first := 100
	if iter >= 0 {
		if v, err := strconv.Atoi(strings.TrimPrefix(lines[iter], "  iteration: ")); err == nil && v >= first {
			first = v + 1
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
			lines[iter] = "  iteration: " + strconv.Itoa(first+n)
		}
		return []byte(strings.Join(lines, "\n"))
	}
}
