package dagdraw

import (
	"reflect"
	"testing"
)

// decorateRef is Decorate as it was before it kept the slots of the
// graph last decorated: a map of g's ids built for every call.
func decorateRef(l *Layout, g Graph) *Decoration {
	n := len(l.nodes)
	d := &Decoration{status: make([]Status, n), label: make([]string, n), exec: make([]bool, n),
		chosen: make([]bool, n), failed: make([]bool, n), flag: make([]Flag, n), orSel: map[int]string{}}
	byID := make(map[string]int, len(g.Nodes))
	for i := range g.Nodes {
		if _, dup := byID[g.Nodes[i].ID]; !dup {
			byID[g.Nodes[i].ID] = i
		}
	}
	for i, pn := range l.nodes {
		switch pn.kind {
		case kindAtom:
			if j, ok := byID[pn.id]; ok {
				d.status[i] = g.Nodes[j].Status
				d.label[i] = g.Nodes[j].Label
				d.exec[i] = g.Nodes[j].Executable
				d.flag[i] = g.Nodes[j].Flag
			} else {
				d.status[i] = Unknown
			}
		case kindMissing:
			d.status[i] = Unknown
			d.label[i] = missingLabel
		case kindSummary:
			d.status[i] = Resolved
			d.label[i] = summaryLabel(&l.st.nodes[i])
		}
	}
	for gi, o := range g.ORGroups {
		d.orSel[gi] = o.Selected
		if i, ok := l.index[o.Selected]; ok && l.nodes[i].kind != kindSummary {
			d.chosen[i] = true
		}
		for _, f := range o.Failed {
			if i, ok := l.index[f]; ok && l.nodes[i].kind != kindSummary {
				d.failed[i] = true
			}
		}
	}
	return d
}

// Decorate gives what a map of the graph's ids gave, on the graph laid
// out, on each next version of its decoration (the slots kept), and on
// graphs whose nodes come in another order, repeat an id or miss one.
func TestDecorateMatchesReference(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		g := genGraph(seed, 40+int(seed)*25, genOpts{statuses: true, extras: true})
		l := NewLayout(g, Options{})
		check := func(what string, g Graph) {
			t.Helper()
			if got, want := l.Decorate(g), decorateRef(l, g); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s: Decorate differs from the reference", seed, what)
			}
		}
		check("laid out", g)
		r := &rng{s: seed}
		for step := 0; step < 6; step++ {
			g2 := g
			g2.Nodes = append([]Node(nil), g.Nodes...)
			for k := 0; k < 1+len(g2.Nodes)/10; k++ {
				i := r.intn(len(g2.Nodes))
				g2.Nodes[i].Status = Status(r.intn(4))
				g2.Nodes[i].Label += "·"
				g2.Nodes[i].Executable = !g2.Nodes[i].Executable
				g2.Nodes[i].Flag = Flag(r.intn(3))
			}
			check("new statuses", g2)
			g = g2
		}
		moved := g
		moved.Nodes = append([]Node(nil), g.Nodes...)
		i, j := r.intn(len(moved.Nodes)), r.intn(len(moved.Nodes))
		moved.Nodes[i], moved.Nodes[j] = moved.Nodes[j], moved.Nodes[i]
		check("two nodes swapped", moved)
		twice := g
		twice.Nodes = append(append([]Node(nil), g.Nodes...), Node{ID: g.Nodes[3].ID, Label: "again", Status: Resolved})
		twice.Nodes = append([]Node{{ID: g.Nodes[5].ID, Label: "first", Status: InProgress}}, twice.Nodes...)
		check("ids given twice", twice)
		short := g
		short.Nodes = append([]Node(nil), g.Nodes[1:]...)
		check("a node missing", short)
		check("back to the graph", g)
	}
}
