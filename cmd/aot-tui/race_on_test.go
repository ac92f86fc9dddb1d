//go:build race

package main

// raceEnabled shrinks the concurrency stress test under the race detector,
// which slows both processes about tenfold.
const raceEnabled = true
