package dagdraw

import "testing"

// TestStepMiddleBruteForce checks the rerouting's middle step (a sweep
// that relies on the cost matrix being Monge) against every pair of
// candidates: the same least costs, the same first minimising rows and
// the same old route's crossings, on random points.
func TestStepMiddleBruteForce(t *testing.T) {
	r := &rng{s: 13}
	for trial := 0; trial < 3000; trial++ {
		nu, nd := 1+r.intn(18), 1+r.intn(18)
		m := 2 + r.intn(30)
		c := chainRoute{sc: &chainScratch{}, m: m, scale: m + 1}
		sc := c.sc
		n := r.intn(4 * (nu + nd))
		for range n {
			sc.px = append(sc.px, int32(r.intn(nu+1)))
			sc.py = append(sc.py, int32(r.intn(nd+1)))
		}
		for range nu {
			sc.prev = append(sc.prev, r.intn(40)*c.scale+r.intn(m))
		}
		oldUp, oldDown := r.intn(nu), r.intn(nd)
		// G[x][y]: the points of rows up to x and columns up to y
		G := func(x, y int) int {
			k := 0
			for i := range sc.px {
				if int(sc.px[i]) <= x && int(sc.py[i]) <= y {
					k++
				}
			}
			return k
		}
		cross := func(ii, jj int) int { return G(ii, nd) - 2*G(ii, jj) + G(nu, jj) }
		sc.cur = resize(sc.cur, nd)
		sc.cOff = append(sc.cOff[:0], 0)
		old := c.stepMiddle(nu, nd, oldUp, oldDown)
		if want := cross(oldUp, oldDown); old != want {
			t.Fatalf("trial %d: old route crosses %d, want %d", trial, old, want)
		}
		for jj := range nd {
			best, arg := 0, -1
			for ii := range nu {
				if v := sc.prev[ii] + cross(ii, jj)*c.scale; arg < 0 || v < best {
					best, arg = v, ii
				}
			}
			if jj != oldDown {
				best++
			}
			if sc.cur[jj] != best || int(sc.choice[jj]) != arg {
				t.Fatalf("trial %d (nu %d nd %d), column %d: cost %d from row %d, want %d from row %d",
					trial, nu, nd, jj, sc.cur[jj], sc.choice[jj], best, arg)
			}
		}
	}
}
