//go:build race

package dagdraw

// raceEnabled shrinks the heaviest property tests under the race detector,
// which slows this CPU-bound code about tenfold.
const raceEnabled = true
