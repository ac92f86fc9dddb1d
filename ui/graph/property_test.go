package graph

import (
	"testing"
)

// propertySizes spans 1–500 nodes; -short keeps the small ones.
func propertyCases(t *testing.T) []int {
	sizes := []int{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 500}
	if testing.Short() {
		sizes = sizes[:9]
	}
	return sizes
}

func TestRandomDAGsKeepDrawingRules(t *testing.T) {
	for _, n := range propertyCases(t) {
		for seed := uint64(1); seed <= 3; seed++ {
			o := genOpts{extras: seed%2 == 1, statuses: true, window: []int{4, 16, 40}[seed%3]}
			g := genGraph(seed*1000+uint64(n), n, o)
			orient := TopDown
			if seed == 2 {
				orient = LeftRight
			}
			l := NewLayout(g, Options{Orientation: orient, NodeWidth: 12 + int(seed)*6})
			if l.Len() < n {
				t.Errorf("n=%d seed=%d: %d nodes drawn", n, seed, l.Len())
			}
			for _, e := range checkLayout(l, g) {
				t.Errorf("n=%d seed=%d %s: %s", n, seed, orient, e)
			}
		}
	}
}
