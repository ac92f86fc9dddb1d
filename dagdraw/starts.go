package dagdraw

import (
	"runtime"
	"slices"
	"sync"
)

// startRun is the outcome of one start: the crossings and order its
// sweeps ended with, and its parts' best orders.
type startRun struct {
	c    int
	snap orderSnapshot
	bp   *bestParts
}

// runStarts runs starts 0..e.starts-1 from the order in start (see
// minimizeWith) and returns their outcomes, indexed by start, up to the
// first that ends without crossings.
//
// Starting orders are independent: each runs its sweeps on a fork of the
// work (its own order, sharing the read-only structure), on up to
// GOMAXPROCS goroutines, and the caller takes the results in start order,
// so the outcome does not depend on the schedule. With one start there is
// nothing to share: it runs on w itself.
func (w *work) runStarts(e effort, start *orderSnapshot, bp *bestParts) []startRun {
	var dfs [2][]float64
	if e.starts > 1 {
		dfs[0] = w.dfsValues(false)
	}
	if e.starts > 2 {
		dfs[1] = w.dfsValues(true)
	}
	if len(w.roots) > 0 {
		w.layerClusters(0) // forks share byLayer: build it first
	}
	runs := make([]startRun, e.starts)
	run := func(k int) {
		f := w
		if e.starts == 1 {
			w.bp = bp // the only start: it judges parts in bp itself
		} else {
			f = w.fork(bp)
		}
		switch k % 3 {
		case 0:
			f.restore(start)
		default:
			v := dfs[k%3-1]
			f.initOrder(func(it int) float64 { return v[it] })
		}
		f.bary = k >= 3
		r := &runs[k]
		r.c = f.medianSweeps(e.iters, e.quit)
		f.snapshotInto(&r.snap)
		if f.bp != nil {
			f.bp.offer(f)
		}
		r.bp = f.bp
	}
	// A start that ends without crossings is the best the caller can
	// take (it takes the first least in start order), so the later
	// starts need not run: none is begun once one before it has ended so.
	workers := min(e.starts, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for k := range runs {
			if run(k); runs[k].c == 0 {
				return runs[:k+1]
			}
		}
		return runs
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next, end := 0, len(runs)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				stop := k >= end
				mu.Unlock()
				if stop {
					return
				}
				run(k)
				if runs[k].c == 0 {
					mu.Lock()
					end = min(end, k+1)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	// the starts before the first without crossings all ran
	for k := range runs {
		if runs[k].c == 0 {
			return runs[:k+1]
		}
	}
	return runs
}

// fork returns a work with its own copy of w's order (block lists and
// positions) and fresh scratch, sharing w's layered graph, which the
// ordering only reads; with bp, it judges parts on its own (see
// bestParts.fork).
func (w *work) fork(bp *bestParts) *work {
	f := &work{layered: w.layered}
	f.pos = slices.Clone(w.pos)
	f.order = make([][]int, len(w.order))
	for l, o := range w.order {
		f.order[l] = slices.Clone(o)
	}
	f.roots = make([][]int, len(w.roots))
	for l, r := range w.roots {
		f.roots[l] = slices.Clone(r)
	}
	f.clusters = slices.Clone(w.clusters)
	for i := range f.clusters {
		f.clusters[i].kids = slices.Clone(f.clusters[i].kids)
	}
	if bp != nil {
		f.bp = bp.fork()
	}
	return f
}

// fork returns a bestParts for the same parts with no offers yet.
func (b *bestParts) fork() *bestParts {
	n, items := b.nparts, len(b.part)
	f := &bestParts{part: b.part, nparts: n, start: b.start, best: make([]int, n), cr: make([]int, n),
		local: make([]int32, n), ins: make([]int32, n), slot: make([]int32, items),
		better: make([]bool, n), pos: make([]float64, items)}
	for i := range f.best {
		f.best[i] = -1
	}
	return f
}

// merge takes o's best order of every part where o crossed less than b
// (b's offers count as earlier); merging b into itself changes nothing.
func (b *bestParts) merge(o *bestParts) {
	for p, c := range o.best {
		if c >= 0 && (b.best[p] < 0 || c < b.best[p]) {
			b.best[p] = c
			b.better[p] = true
		}
	}
	for it, p := range b.part {
		if b.better[p] {
			b.pos[it] = o.pos[it]
		}
	}
	clear(b.better)
}
