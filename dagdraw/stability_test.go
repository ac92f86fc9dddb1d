package dagdraw

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// A status change keeps the layout (same pointer) and changes no cell but
// status glyphs, markers and classes.
func TestStatusChangeMovesNoCell(t *testing.T) {
	for _, n := range []int{1, 5, 40, 200} {
		g := genGraph(uint64(n)*31, n, genOpts{extras: true, statuses: true})
		l := NewLayout(g, Options{})
		before := l.Paint(l.Decorate(g), l.Bounds(), "")
		g2 := g
		g2.Nodes = slices.Clone(g.Nodes)
		for i := range g2.Nodes {
			if i%3 == 0 {
				g2.Nodes[i].Status = (g2.Nodes[i].Status + 1) % 3
				g2.Nodes[i].Executable = !g2.Nodes[i].Executable
			}
		}
		if l2 := l.Update(g2, Options{}); l2 != l {
			t.Fatalf("n=%d: a status change re-ran layout", n)
		}
		after := l.Paint(l.Decorate(g2), l.Bounds(), "")
		status := map[rune]bool{'○': true, '◐': true, '●': true, '?': true, '▸': true, '✗': true, ' ': true}
		for i := range before.Cells {
			a, b := before.Cells[i], after.Cells[i]
			if a.Rune != b.Rune && !(status[a.Rune] && status[b.Rune]) {
				t.Fatalf("n=%d: cell %d changed %q → %q", n, i, a.Rune, b.Rune)
			}
			if a.Width != b.Width {
				t.Fatalf("n=%d: cell %d changed width", n, i)
			}
		}
	}
}

// Same input, same bytes.
func TestDeterministic(t *testing.T) {
	for _, n := range []int{12, 150} {
		for _, o := range []Orientation{TopDown, LeftRight} {
			g := genGraph(uint64(n)+7, n, genOpts{extras: true, statuses: true})
			a := NewLayout(g, Options{Orientation: o})
			b := NewLayout(g, Options{Orientation: o})
			pa := a.Paint(a.Decorate(g), a.Bounds(), "A3").Render(nil)
			pb := b.Paint(b.Decorate(g), b.Bounds(), "A3").Render(nil)
			if pa != pb {
				t.Fatalf("n=%d %s: two layouts of one graph differ", n, o)
			}
		}
	}
}

func withAtom(g Graph, r *rng) (Graph, string) {
	id := "N" + strconv.Itoa(len(g.Nodes)+1)
	g2 := Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges), ORGroups: g.ORGroups, Decomps: g.Decomps}
	g2.Nodes = append(g2.Nodes, Node{ID: id, Label: "new atom"})
	for k := 0; k < 1+r.intn(2); k++ {
		d := g.Nodes[len(g.Nodes)/2+r.intn((len(g.Nodes)+1)/2)].ID
		if !slices.Contains(g2.Edges, Edge{d, id}) {
			g2.Edges = append(g2.Edges, Edge{From: d, To: id})
		}
	}
	return g2, id
}

func withoutAtom(g Graph, r *rng) (Graph, string) {
	id := g.Nodes[r.intn(len(g.Nodes))].ID
	g2 := Graph{ORGroups: g.ORGroups, Decomps: g.Decomps}
	for _, n := range g.Nodes {
		if n.ID != id {
			g2.Nodes = append(g2.Nodes, n)
		}
	}
	for _, e := range g.Edges {
		if e.From != id && e.To != id {
			g2.Edges = append(g2.Edges, e)
		}
	}
	return g2, id
}

// Adding or removing one atom keeps the other nodes' order in each layer
// and at least 90% of them on their row and column; the selection keeps
// its screen row.
func TestOneAtomChangeIsStable(t *testing.T) {
	sizes := []int{20, 60, 150, 300, 500}
	if raceEnabled || testing.Short() {
		sizes = sizes[:3]
	}
	r := &rng{s: 99}
	for _, n := range sizes {
		for trial := 0; trial < 4; trial++ {
			g := genGraph(uint64(n*10+trial), n, genOpts{statuses: true, extras: trial%2 == 0})
			var g2 Graph
			var changed string
			if trial%2 == 0 {
				g2, changed = withAtom(g, r)
			} else {
				g2, changed = withoutAtom(g, r)
			}
			v := NewView(80, 30)
			v.SetGraph(g)
			l := v.Layout()
			sel := l.nodes[r.intn(l.Len())].id
			if sel == changed {
				sel = l.nodes[0].id
			}
			v.Select(sel)
			before := v.Viewport().Anchor(l, sel)
			v.SetGraph(g2)
			l2 := v.Layout()
			if l2 == l {
				t.Fatalf("n=%d: structure change kept the layout", n)
			}
			after := v.Viewport().Anchor(l2, sel)
			if before.DY != after.DY || before.DX != after.DX {
				t.Errorf("n=%d trial %d: selection moved on screen from %d,%d to %d,%d", n, trial, before.DX, before.DY, after.DX, after.DY)
			}
			same, total := 0, 0
			for _, id := range l.IDs() {
				if id == changed {
					continue
				}
				a, ok1 := l.Node(id)
				b, ok2 := l2.Node(id)
				if !ok1 || !ok2 {
					continue
				}
				total++
				if a.X == b.X && a.Y == b.Y {
					same++
				}
			}
			if same*10 < total*9 {
				t.Errorf("n=%d trial %d: only %d of %d nodes kept row and column", n, trial, same, total)
			}
			// relative order within layers, for nodes that kept their layer
			for li, layer := range l.Layers() {
				var kept []string
				for _, id := range layer {
					if lay2, _, ok := l2.Layer(id); ok && lay2 == li && id != changed {
						kept = append(kept, id)
					}
				}
				for k := 1; k < len(kept); k++ {
					_, p1, _ := l2.Layer(kept[k-1])
					_, p2, _ := l2.Layer(kept[k])
					if p1 >= p2 {
						t.Errorf("n=%d trial %d: %s and %s swapped in layer %d", n, trial, kept[k-1], kept[k], li)
					}
				}
			}
			for _, e := range checkLayout(l2, g2) {
				t.Errorf("n=%d trial %d after the change: %s", n, trial, e)
			}
		}
	}
}

// Update never modifies the layout it starts from: the UI computes
// old.Update on a background goroutine while it paints old. The painting
// goroutine also reads every field of old (a full dump), so the race
// detector (go test -race) flags any write Update makes to it; and the
// dump and the painted cells must come out the same before, during and
// after.
func TestUpdateLeavesOldLayoutAlone(t *testing.T) {
	n := 300
	if raceEnabled || testing.Short() {
		n = 120
	}
	dump := func(l *Layout) string { return fmt.Sprintf("%v\n%v", *l, *l.st) }
	r := &rng{s: 7}
	for trial := 0; trial < 4; trial++ {
		g := genGraph(uint64(n+trial), n, genOpts{statuses: true, extras: true})
		old := NewLayout(g, Options{})
		paint := func() string { return old.Paint(old.Decorate(g), old.Bounds(), g.Nodes[0].ID).Plain() }
		before, state := paint(), dump(old)
		var g2 Graph
		if trial%2 == 0 {
			g2, _ = withAtom(g, r)
		} else {
			g2, _ = withoutAtom(g, r)
		}
		done := make(chan *Layout)
		go func() {
			l := old.Update(g2, Options{})
			l.Update(g, Options{}) // and back, seeded from the new one
			done <- l
		}()
		var updated *Layout
		for reads := 0; updated == nil || reads < 2; reads++ {
			if paint() != before || dump(old) != state {
				t.Fatalf("trial %d: the old layout changed while it was updated", trial)
			}
			select {
			case updated = <-done:
			default:
			}
		}
		if updated == old {
			t.Fatalf("trial %d: a structure change kept the layout", trial)
		}
		if paint() != before || dump(old) != state {
			t.Errorf("trial %d: Update changed the old layout", trial)
		}
	}
}

// Layouts recycle their working buffers (workPool): a layout must not
// depend on which graphs were laid out before it.
func TestLayoutsIndependentOfEachOther(t *testing.T) {
	type job struct {
		g   Graph
		opt Options
	}
	var jobs []job
	for _, n := range []int{3, 89, 377, 34, 500} {
		for seed := uint64(1); seed <= 2; seed++ {
			g := genGraph(seed*77+uint64(n), n, genOpts{extras: seed%2 == 1, statuses: true, window: []int{16, 40}[seed%2]})
			o := Options{}
			if seed == 2 {
				o.Orientation = LeftRight
			}
			jobs = append(jobs, job{g, o})
		}
	}
	paint := func(j job) string {
		l := NewLayout(j.g, j.opt)
		g2, _ := withAtom(j.g, &rng{s: 3})
		l2 := l.Update(g2, j.opt)
		return l.Paint(l.Decorate(j.g), l.Bounds(), "").Plain() + l2.Paint(l2.Decorate(g2), l2.Bounds(), "").Plain()
	}
	first := make([]string, len(jobs))
	for i, j := range jobs {
		first[i] = paint(j)
	}
	for i := len(jobs) - 1; i >= 0; i-- {
		if paint(jobs[i]) != first[i] {
			t.Errorf("graph %d lays out differently after other graphs", i)
		}
	}
}

// aheadOf lays g out from scratch as runStarts does ahead: the ordering
// starts one after another, then the best start's order polished and
// laid out on a fork (polishAhead). It returns nil for a graph polishAhead
// is not used on (several parts, or no crossings).
func aheadOf(g Graph, opt Options) *Layout {
	st := buildStructure(&g, opt)
	w := newWork(st, rankNodes(st, nil), opt)
	geo := geometryFor(st.orient, st.width, st.lines)
	w.finishAhead = func(f *work) *Layout { return f.finish(opt, geo, nil, nil) }
	first := make([]float64, len(w.items)) // as orderFresh
	for i, it := range w.items {
		first[i] = float64(it.node)
		if it.dummy() {
			e := w.rk.edges[it.edge]
			first[i] = float64(min(e.from, e.to)) + 0.5
		}
	}
	w.initOrder(func(it int) float64 { return first[it] })
	w.initialSweep()
	if w.newBestParts() != nil {
		return nil
	}
	e := w.effort(false)
	w.snapshotInto(&w.scratch.start)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // the starts one after another
	runs, _ := w.runStarts(e, &w.scratch.start, nil)
	best := 0
	for k := range runs {
		if runs[k].c < runs[best].c {
			best = k
		}
	}
	if runs[best].c == 0 || e.rounds == 0 {
		return nil
	}
	p := &polished{k: -1}
	w.polishAhead(e, best, &runs[best], p)
	return p.lay
}

// A layout polished and laid out ahead, on a goroutine that had no
// ordering start left to run (see runStarts), is the layout made after
// all starts: the same cells, crossings and seeds for the next update,
// as on one processor, where nothing is done ahead. The test makes the
// ahead layout of each graph itself (aheadOf), and then lays the graphs
// out on four processors, where some are made ahead.
func TestLaidOutAheadOrNot(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	same := func(k int, what string, g Graph, opt Options, got, want *Layout) {
		t.Helper()
		if got.Crossings() != want.Crossings() || !slices.Equal(got.nodeSeed, want.nodeSeed) ||
			!slices.Equal(got.dum, want.dum) || !slices.Equal(got.channels, want.channels) {
			t.Fatalf("graph %d, %s: %d crossings, seeds differ or not; on one processor %d", k, what, got.Crossings(), want.Crossings())
		}
		if a, b := got.Paint(got.Decorate(g), got.Bounds(), "A3").Render(nil), want.Paint(want.Decorate(g), want.Bounds(), "A3").Render(nil); a != b {
			t.Fatalf("graph %d, %s: the cells differ from the layout made on one processor", k, what)
		}
		g2, _ := withAtom(g, &rng{s: uint64(k)})
		u, v := got.Update(g2, opt), want.Update(g2, opt)
		if a, b := u.Paint(u.Decorate(g2), u.Bounds(), "").Render(nil), v.Paint(v.Decorate(g2), v.Bounds(), "").Render(nil); a != b {
			t.Fatalf("graph %d, %s: the next update differs", k, what)
		}
	}
	made, ahead := 0, 0
	for k := 0; k < 12; k++ {
		n := 60 + 40*k
		g := genGraph(uint64(500+k), n, genOpts{window: []int{8, 16, 40}[k%3], extras: k%2 == 0, statuses: true})
		opt := Options{Orientation: []Orientation{TopDown, LeftRight}[k%2], FitTitles: k%3 == 0}
		runtime.GOMAXPROCS(1)
		want := NewLayout(g, opt)
		if lay := aheadOf(g, opt); lay != nil {
			made++
			same(k, "laid out ahead by the test", g, opt, lay, want)
		}
		runtime.GOMAXPROCS(4)
		for try := 0; try < 2; try++ {
			got := NewLayout(g, opt)
			if got.ahead {
				ahead++
			}
			same(k, fmt.Sprintf("four processors, ahead %v", got.ahead), g, opt, got, want)
		}
		// Options.Workers bounds the goroutines (the TUI keeps the event
		// loop a processor of its own); the layout stays the same.
		for _, workers := range []int{1, 3} {
			o := opt
			o.Workers = workers
			got := NewLayout(g, o)
			same(k, fmt.Sprintf("four processors, %d workers, ahead %v", workers, got.ahead), g, o, got, want)
			if workers == 1 && got.ahead {
				t.Fatalf("graph %d: one worker laid a layout out ahead (a second goroutine ran)", k)
			}
		}
	}
	if made < 8 || ahead == 0 {
		t.Fatalf("%d graphs laid out ahead by the test, %d layouts ahead on four processors: the test compared too little", made, ahead)
	}
	t.Logf("%d graphs laid out ahead by the test; %d of 24 layouts ahead on four processors", made, ahead)
}

// Layouts made at once on several goroutines, whose works (and the forks
// the ordering starts run on) come from and go back to one pool, are the
// layouts made one at a time.
func TestLayoutsAtOnce(t *testing.T) {
	var graphs []Graph
	var want []string
	for k := 0; k < 8; k++ {
		g := genGraph(uint64(700+k), 80+30*k, genOpts{window: []int{8, 16, 40}[k%3], extras: k%2 == 0, statuses: true})
		l := NewLayout(g, Options{})
		graphs = append(graphs, g)
		want = append(want, l.Paint(l.Decorate(g), l.Bounds(), "").Render(nil))
	}
	errs := make(chan string, 64)
	var wg sync.WaitGroup
	for gr := 0; gr < 4; gr++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 2; round++ {
				for k := range graphs {
					k := (k + gr) % len(graphs)
					l := NewLayout(graphs[k], Options{})
					if l.Paint(l.Decorate(graphs[k]), l.Bounds(), "").Render(nil) != want[k] {
						errs <- fmt.Sprintf("graph %d, goroutine %d: the cells differ", k, gr)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
