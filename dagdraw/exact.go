package dagdraw

// exactBudget bounds the dynamic programme of exactSmall: the sum over
// adjacent layers of (orders of one) × (orders of the other).
const exactBudget = 400_000

// exactSmall replaces the heuristic order by an optimal one (for the given
// layering) when the graph is small enough to search: a dynamic programme
// over layers whose state is the order of one layer. It keeps the current
// order unless it finds strictly fewer crossings than have.
func (w *work) exactSmall(have int) {
	if len(w.clusters) > 0 || len(w.order) < 2 {
		return
	}
	L := len(w.order)
	perms := make([][][]int, L)
	total := 0
	for l := 0; l < L; l++ {
		n := len(w.order[l])
		if n > 8 {
			return
		}
		f := 1
		for k := 2; k <= n; k++ {
			f *= k
		}
		if l > 0 {
			total += f * len(perms[l-1])
			if total > exactBudget {
				return
			}
		}
		perms[l] = permutations(w.order[l])
	}
	// position of each item under a given order of its layer
	pos := make([]int, len(w.items))
	setPos := func(p []int) {
		for i, it := range p {
			pos[it] = i
		}
	}
	cross := func(l int, pu, pl []int) int {
		setPos(pu)
		setPos(pl)
		c := 0
		var segs [][2]int
		for _, it := range pu {
			for _, s := range w.downSegs(it) {
				segs = append(segs, [2]int{pos[it], pos[w.segs[s].down]})
			}
		}
		for i := range segs {
			for j := i + 1; j < len(segs); j++ {
				a, b := segs[i], segs[j]
				if (a[0]-b[0])*(a[1]-b[1]) < 0 {
					c++
				}
			}
		}
		return c
	}
	cost := make([][]int, L)
	from := make([][]int, L)
	cost[0] = make([]int, len(perms[0]))
	for l := 1; l < L; l++ {
		cost[l] = make([]int, len(perms[l]))
		from[l] = make([]int, len(perms[l]))
		for j, pl := range perms[l] {
			best, arg := -1, 0
			for i, pu := range perms[l-1] {
				c := cost[l-1][i] + cross(l-1, pu, pl)
				if best < 0 || c < best {
					best, arg = c, i
				}
			}
			cost[l][j], from[l][j] = best, arg
		}
	}
	best, arg := -1, 0
	for j, c := range cost[L-1] {
		if best < 0 || c < best {
			best, arg = c, j
		}
	}
	if best >= have {
		return
	}
	for l := L - 1; l >= 0; l-- {
		copy(w.roots[l], perms[l][arg])
		if l > 0 {
			arg = from[l][arg]
		}
	}
	w.flattenAll()
}

// permutations lists every order of xs, starting with xs itself.
func permutations(xs []int) [][]int {
	var out [][]int
	p := append([]int(nil), xs...)
	var rec func(k int)
	rec = func(k int) {
		if k == len(p) {
			out = append(out, append([]int(nil), p...))
			return
		}
		for i := k; i < len(p); i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
	return out
}
