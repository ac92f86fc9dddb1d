package dagdraw

import (
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

// polished is an order polished ahead (see runStarts): start k's order
// after polish, with its crossings, and its layout when w.finishAhead
// made one. k is -1 when none was.
type polished struct {
	k    int
	c    int
	snap orderSnapshot
	lay  *Layout
}

// runStarts runs starts 0..e.starts-1 from the order in start (see
// minimizeWith) and returns their outcomes, indexed by start, up to the
// first that ends without crossings.
//
// Starting orders are independent: each runs its sweeps on a fork of the
// work (its own order, sharing the read-only structure), on up to
// Options.Workers goroutines (GOMAXPROCS by default), and the caller takes
// the results in start order, so the outcome does not depend on the
// schedule. With one start there is nothing to share: it runs on w itself.
//
// A goroutine that finds no start left to begin while another still runs
// would wait. When the graph is one part (bp nil), the order the caller
// goes on with is the best start's, polished (see minimizeWith), so it
// polishes the best of the starts that have ended, on a fork, lays that
// out too for a fresh layout (w.finishAhead), and returns it as ahead:
// the caller takes it when that start is still the best once all have
// ended, and does the work itself otherwise. Polishing and laying out
// depend on the order alone, so the outcome is the same either way.
func (w *work) runStarts(e effort, start *orderSnapshot, bp *bestParts) (runs []startRun, ahead *polished) {
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
	runs = make([]startRun, e.starts)
	ahead = &polished{k: -1}
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
		if f != w {
			f.releaseFork()
		}
	}
	// A start that ends without crossings is the best the caller can
	// take (it takes the first least in start order), so the later
	// starts need not run: none is begun once one before it has ended so.
	workers := min(e.starts, w.opt.workers())
	if workers <= 1 {
		for k := range runs {
			if run(k); runs[k].c == 0 {
				return runs[:k+1], ahead
			}
		}
		return runs, ahead
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next, end := 0, len(runs)
	done := make([]bool, len(runs))
	polishing := false
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				stop := k >= end
				if stop {
					// the best start that has ended, if one still runs
					best, running := -1, false
					for j := range end {
						switch {
						case !done[j]:
							running = true
						case best < 0 || runs[j].c < runs[best].c:
							best = j
						}
					}
					if polishing || bp != nil || e.rounds == 0 || !running || best < 0 || runs[best].c == 0 {
						mu.Unlock()
						return
					}
					polishing = true
					mu.Unlock()
					w.polishAhead(e, best, &runs[best], ahead)
					return
				}
				mu.Unlock()
				run(k)
				mu.Lock()
				done[k] = true
				if runs[k].c == 0 {
					end = min(end, k+1)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// the starts before the first without crossings all ran
	for k := range runs {
		if runs[k].c == 0 {
			return runs[:k+1], ahead
		}
	}
	return runs, ahead
}

// polishAhead polishes start k's order (its outcome r) on a fork, as
// minimizeWith would, into p, and with w.finishAhead lays it out as
// minimizeCrossings and layout would go on: the fork takes its own copy
// of the items and segments, whose coordinates and ports it sets.
func (w *work) polishAhead(e effort, k int, r *startRun, p *polished) {
	f := w.fork(nil)
	f.restore(&r.snap)
	f.chainWindow = e.window
	c := f.polish(r.c, e.rounds, e.sift)
	f.snapshotInto(&p.snap)
	if w.finishAhead != nil {
		if c > 0 {
			f.exactSmall(c)
		}
		f.items, f.segs = slices.Clone(f.items), slices.Clone(f.segs)
		p.lay = w.finishAhead(f)
	}
	p.k, p.c = k, c
	f.releaseFork()
}

// fork returns a work with its own copy of w's order (block lists and
// positions) and its own scratch, sharing w's layered graph, which the
// ordering only reads; with bp, it judges parts on its own (see
// bestParts.fork). Its buffers come from workPool: releaseFork returns
// them.
func (w *work) fork(bp *bestParts) *work {
	f, _ := workPool.Get().(*work)
	if f == nil {
		f = new(work)
	}
	old := *f
	*f = work{layered: w.layered, spare: old.layered, scratch: old.scratch, chain: old.chain, coord: old.coord, route: old.route, buf: old.buf}
	sc := &f.scratch
	sc.layerChg, sc.siftSeen, sc.chainSeen = sc.layerChg[:0], sc.siftSeen[:0], sc.chainSeen[:0]
	f.pos = append(old.pos[:0], w.pos...)
	f.upPos, f.downPos = resize(old.upPos, len(w.upPos)), resize(old.downPos, len(w.downPos))
	// each layer's order and root list carved from two arrays, as in
	// newWork
	orders, roots := resize(f.buf.orders, len(w.items)), resize(f.buf.roots, len(w.items))
	f.buf.orders, f.buf.roots = orders, roots
	f.order, f.roots = resize(old.order, len(w.order)), resize(old.roots, len(w.roots))
	a := 0
	for l, o := range w.order {
		z := a + len(o)
		f.order[l] = append(orders[a:a:z], o...)
		f.roots[l] = append(roots[a:a:z], w.roots[l]...)
		a = z
	}
	f.clusters = append(old.clusters[:0], w.clusters...)
	for i := range f.clusters {
		f.clusters[i].kids = slices.Clone(f.clusters[i].kids)
	}
	if bp != nil {
		f.bp = bp.fork()
	}
	return f
}

// releaseFork returns a fork's buffers to workPool. It keeps nothing of
// the layered graph it shared, whose arrays are w's: the pooled work gets
// back the arrays of its own it came with (spare).
func (f *work) releaseFork() {
	f.layered, f.spare = f.spare, layered{}
	f.bp = nil
	workPool.Put(f)
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
