//go:build !unix

package ui

import "time"

// processCPU reports no CPU time where getrusage is not at hand: the
// benchmarks then report wall times only.
func processCPU() (time.Duration, bool) { return 0, false }
