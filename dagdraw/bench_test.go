package dagdraw

import (
	"runtime"
	"testing"
)

func benchLayout(b *testing.B, n int) {
	g := genGraph(uint64(n), n, genOpts{extras: true, statuses: true})
	b.ReportAllocs()
	for b.Loop() {
		NewLayout(g, Options{})
	}
	b.StopTimer()
	// the heap a finished layout keeps alive (two collections empty
	// workPool, whose works the layout does not keep)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	l := NewLayout(g, Options{})
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "live-MB")
	runtime.KeepAlive(l)
}

// BenchmarkLayout300 and friends time a full layout from scratch.
func BenchmarkLayout300(b *testing.B)  { benchLayout(b, 300) }
func BenchmarkLayout1000(b *testing.B) { benchLayout(b, 1000) }
func BenchmarkLayout3000(b *testing.B) { benchLayout(b, 3000) }

// BenchmarkRepaintAfterStatusChange1000 is what the UI does when the loop
// resolves an atom: Update (structure unchanged, so no layout), decorate,
// paint a 160×50 viewport.
func BenchmarkRepaintAfterStatusChange1000(b *testing.B) {
	g := genGraph(1000, 1000, genOpts{extras: true, statuses: true})
	l := NewLayout(g, Options{})
	g2 := g
	g2.Nodes = append([]Node(nil), g.Nodes...)
	view := Rect{l.Bounds().X + 200, l.Bounds().Y + 100, 160, 50}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		k := i % len(g2.Nodes)
		g2.Nodes[k].Status = (g2.Nodes[k].Status + 1) % 3
		i++
		nl := l.Update(g2, Options{})
		if nl != l {
			b.Fatal("a status change re-ran layout")
		}
		nl.Paint(nl.Decorate(g2), view, g2.Nodes[k].ID)
	}
}

// BenchmarkUpdateAddAtom1000 is a structure change while the loop runs:
// one atom added to a 1,000-atom graph, laid out seeded from the previous
// layout (no crossing search, old nodes stay put).
func BenchmarkUpdateAddAtom1000(b *testing.B) {
	g := genGraph(1000, 1000, genOpts{extras: true, statuses: true})
	l := NewLayout(g, Options{})
	g2, _ := withAtom(g, &rng{s: 5})
	b.ReportAllocs()
	for b.Loop() {
		if l.Update(g2, Options{}) == l {
			b.Fatal("no relayout")
		}
	}
}

func benchFamily(b *testing.B, g Graph) { benchFamilyWith(b, g, Options{}) }

func benchFamilyWith(b *testing.B, g Graph, opt Options) {
	b.ReportAllocs()
	for b.Loop() {
		NewLayout(g, opt)
	}
}

// BenchmarkLayoutSim1000 and friends time a full layout of the simulator's
// loop (simGraph) and of a loop with long edges (longEdgeGraph). Targets:
// at most 100 ms at 3,000 atoms and 1 s at 10,000.
func BenchmarkLayoutSim1000(b *testing.B)   { benchFamily(b, simGraph(b, 1, 1000)) }
func BenchmarkLayoutSim3000(b *testing.B)   { benchFamily(b, simGraph(b, 1, 3000)) }
func BenchmarkLayoutSim10000(b *testing.B)  { benchFamily(b, simGraph(b, 1, 10000)) }
func BenchmarkLayoutLong1000(b *testing.B)  { benchFamily(b, longEdgeGraph(1, 1000)) }
func BenchmarkLayoutLong3000(b *testing.B)  { benchFamily(b, longEdgeGraph(1, 3000)) }
func BenchmarkLayoutLong10000(b *testing.B) { benchFamily(b, longEdgeGraph(1, 10000)) }

// BenchmarkNodeAt100 and BenchmarkNodeAt10000 time a click: the node under
// a cell, at cells spread over the whole layout (boxes, edges, empty
// ground), at 100 and 10,000 nodes.
func BenchmarkNodeAt100(b *testing.B)   { benchNodeAt(b, simGraph(b, 1, 100)) }
func BenchmarkNodeAt10000(b *testing.B) { benchNodeAt(b, simGraph(b, 1, 10000)) }

func benchNodeAt(b *testing.B, g Graph) {
	l := NewLayout(g, Options{NodeWidth: 24})
	r := &rng{s: 1}
	bd := l.Bounds()
	cells := make([][2]int, 1024)
	for i := range cells {
		cells[i] = [2]int{bd.X + r.intn(bd.W), bd.Y + r.intn(bd.H)}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := cells[i%len(cells)]
		l.NodeAt(c[0], c[1])
		i++
	}
}

// BenchmarkLayoutSim10000Fit is BenchmarkLayoutSim10000 with the boxes
// fitted to the widest title, as the TUI lays its graphs out: the titles'
// widths are measured on every structure build.
func BenchmarkLayoutSim10000Fit(b *testing.B) {
	benchFamilyWith(b, simGraph(b, 1, 10000), Options{NodeWidth: 48, FitTitles: true})
}
