package dagdraw

import (
	"slices"
	"testing"
)

// TestStableSortBlocks checks the sweeps' sort against the library's
// stable sort, on lists short and long, random and nearly sorted, with
// many equal values.
func TestStableSortBlocks(t *testing.T) {
	r := &rng{s: 7}
	var tmp []blockVal
	for trial := 0; trial < 2000; trial++ {
		n := r.intn(300)
		a := make([]blockVal, n)
		for i := range a {
			a[i] = blockVal{i, float64(r.intn(1+n/3)) / 2}
			if trial%2 == 1 {
				a[i].v = float64(i/3) + float64(r.intn(4))/4
			}
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, func(x, y blockVal) int {
			switch {
			case x.v < y.v:
				return -1
			case x.v > y.v:
				return 1
			}
			return 0
		})
		tmp = stableSortBlocks(a, tmp)
		if !slices.Equal(a, want) {
			t.Fatalf("trial %d (n %d): got %v, want %v", trial, n, a, want)
		}
	}
}
