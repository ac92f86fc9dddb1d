//go:build !race

package dagdraw

const raceEnabled = false
