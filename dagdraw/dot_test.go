package dagdraw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Crossings against Graphviz.
//
// testdata/dot_crossings.json holds, for each recorded graph, the number
// of crossings Graphviz dot's mincross ends with on our layering. The
// graphs: twelve generated 300-node graphs (genGraph), the simulator's
// loop at 1,000, 3,000, 5,000 and 10,000 atoms (simGraph) and loops with
// long edges at 1,000, 3,000, 5,000 and 10,000 atoms (longEdgeGraph), all
// generated here from their seeds. To record (needs `dot` on PATH;
// Debian: apt-get install graphviz; the long-edge graphs of 5,000 and
// 10,000 atoms take dot minutes):
//
//	AOT_RECORD_DOT=1 go test ./dagdraw -run TestRecordDotCrossings -timeout 30m
//
// dot runs with nslimit=0: its last phase, placing nodes within their
// layers by network simplex, then keeps its first feasible placement
// (ranking and mincross are not limited). That placement keeps
// mincross's order, which is all the recorder reads, while the full one
// of the big layered graphs (83,000 nodes at 5,000 long-edge atoms) did
// not end in 20 minutes here.
//
// Method: each graph is ranked by this package and every long edge is split
// into a chain through one dummy node per layer it passes, exactly the
// layered graph our crossing reduction orders. That graph is written as DOT
// with one `{rank=same; …}` subgraph per layer, so dot's ranking reproduces
// our layers (checked from dot's -Tplain positions) and dot orders the very
// same nodes: both start from the same ranks. `dot -v` prints its mincross
// progress; the final "mincross G: N crossings" line is its result. The
// recorder also reads dot's final order from the -Tplain x positions,
// counts it pair by pair and requires the same N, so both numbers measure
// the same thing (segment crossings between adjacent layers,
// Layout.Crossings).
//
// OR groups and decomposition frames (the simulator's graphs have them)
// are kept contiguous in each layer by our ordering. dot is not given them:
// the graphviz here (2.43) loses nodes in mincross when clusters are
// combined with rank=same layers ("merge2: graph G, rank 0 has only 166 <
// 173 nodes"), so its count would not be a valid order. For graphs with
// clusters the test therefore compares dot with our ordering of the same
// layered graph without the clusters (the same problem for both), and logs
// the drawing's own count, which pays for keeping groups together.
//
// Given the original graph instead (long edges as single edges, dot making
// its own virtual chains), dot reports lower numbers on some graphs; those
// cannot be checked with our counter (dot does not output virtual nodes)
// and are recorded as dot_implicit for information only.
//
// The committed test compares against the recorded numbers and does not
// need dot.

type dotCase struct {
	Name string `json:"name"`
	// Family is how the graph is generated: "" genGraph with Window,
	// "sim" the simulator's loop (simGraph), "long" longEdgeGraph.
	Family   string `json:"family,omitempty"`
	Seed     uint64 `json:"seed"`
	Nodes    int    `json:"nodes"`
	Window   int    `json:"window,omitempty"`
	Dot      int    `json:"dot_crossings"`
	Implicit int    `json:"dot_implicit"`
	Ours     int    `json:"ours_when_recorded"`
}

var dotCases = []dotCase{
	{Name: "local-1", Seed: 11, Nodes: 300, Window: 8},
	{Name: "local-2", Seed: 12, Nodes: 300, Window: 8},
	{Name: "medium-1", Seed: 21, Nodes: 300, Window: 16},
	{Name: "medium-2", Seed: 22, Nodes: 300, Window: 16},
	{Name: "wide-1", Seed: 31, Nodes: 300, Window: 40},
	{Name: "wide-2", Seed: 32, Nodes: 300, Window: 40},
	{Name: "mixed-1", Seed: 101, Nodes: 300, Window: 16},
	{Name: "mixed-2", Seed: 102, Nodes: 300, Window: 40},
	{Name: "mixed-3", Seed: 103, Nodes: 300, Window: 16},
	{Name: "mixed-4", Seed: 104, Nodes: 300, Window: 8},
	{Name: "mixed-5", Seed: 105, Nodes: 300, Window: 16},
	{Name: "mixed-6", Seed: 106, Nodes: 300, Window: 40},
	{Name: "sim-1000", Family: "sim", Seed: 1, Nodes: 1000},
	{Name: "sim-1000b", Family: "sim", Seed: 2, Nodes: 1000},
	{Name: "long-1000", Family: "long", Seed: 1, Nodes: 1000},
	{Name: "long-1000b", Family: "long", Seed: 2, Nodes: 1000},
	{Name: "sim-3000", Family: "sim", Seed: 3, Nodes: 3000},
	{Name: "long-3000", Family: "long", Seed: 3, Nodes: 3000},
	{Name: "sim-5000", Family: "sim", Seed: 5, Nodes: 5000},
	{Name: "long-5000", Family: "long", Seed: 5, Nodes: 5000},
	{Name: "sim-10000", Family: "sim", Seed: 1, Nodes: 10000},
	{Name: "long-10000", Family: "long", Seed: 10, Nodes: 10000},
}

func (c dotCase) graph(tb testing.TB) Graph {
	switch c.Family {
	case "sim":
		return simGraph(tb, c.Seed, c.Nodes)
	case "long":
		return longEdgeGraph(c.Seed, c.Nodes)
	}
	return genGraph(c.Seed, c.Nodes, genOpts{window: c.Window})
}

const dotFile = "testdata/dot_crossings.json"

// layeredDot writes the layered graph (with dummies) as DOT and returns
// the node name of each item.
func layeredDot(g Graph) (string, *work) {
	st := buildStructure(&g, Options{})
	rk := rankNodes(st, nil)
	w := newWork(st, rk, Options{})
	w.initOrder(func(it int) float64 { return float64(it) })
	var b strings.Builder
	b.WriteString("digraph G {\n")
	for _, s := range w.segs {
		fmt.Fprintf(&b, "  i%d -> i%d;\n", s.up, s.down)
	}
	for _, layer := range w.order {
		b.WriteString("  { rank=same;")
		for _, it := range layer {
			fmt.Fprintf(&b, " i%d;", it)
		}
		b.WriteString(" }\n")
	}
	b.WriteString("}\n")
	return b.String(), w
}

// toDot writes l's layering with long edges as single edges.
func toDot(l *Layout) string {
	var b strings.Builder
	b.WriteString("digraph G {\n")
	for _, e := range l.edges {
		u, v := e.from, e.to
		if e.rev {
			u, v = v, u
		}
		fmt.Fprintf(&b, "  %q -> %q;\n", l.nodes[u].id, l.nodes[v].id)
	}
	for _, layer := range l.layers {
		b.WriteString("  { rank=same;")
		for _, n := range layer {
			fmt.Fprintf(&b, " %q;", l.nodes[n].id)
		}
		b.WriteString(" }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func runDot(t *testing.T, src string) (crossings int, plain string) {
	path := filepath.Join(t.TempDir(), "g.dot")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dot", "-v", "-Gnslimit=0", "-Tplain", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dot: %v\n%s", err, stderr.String())
	}
	m := mincrossRe.FindAllStringSubmatch(stderr.String(), -1)
	if len(m) == 0 {
		t.Fatalf("no mincross count in dot's output")
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n, stdout.String()
}

var mincrossRe = regexp.MustCompile(`mincross G: (\d+) crossings`)

func TestRecordDotCrossings(t *testing.T) {
	if os.Getenv("AOT_RECORD_DOT") == "" {
		t.Skip("set AOT_RECORD_DOT=1 to run Graphviz dot and record its crossing counts")
	}
	if _, err := exec.LookPath("dot"); err != nil {
		t.Fatal("dot not found: apt-get install graphviz")
	}
	var out []dotCase
	for _, c := range dotCases {
		src, w := layeredDot(c.graph(t))
		n, plain := runDot(t, src)
		checkDotOrder(t, w, plain, n)
		c.Dot = n
		l := NewLayout(c.graph(t), Options{})
		c.Implicit, _ = runDot(t, toDot(l))
		c.Ours = l.Crossings()
		t.Logf("%s: dot %d (implicit chains %d), ours %d", c.Name, c.Dot, c.Implicit, c.Ours)
		out = append(out, c)
	}
	data, _ := json.MarshalIndent(out, "", "  ")
	if err := os.WriteFile(dotFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkDotOrder verifies from dot's plain output that dot kept our layers
// (nodes of one layer share a y, layers go down in order), and that its
// final order, counted by our counter, has the crossings dot reported.
func checkDotOrder(t *testing.T, w *work, plain string, want int) {
	x, y := map[string]float64{}, map[string]string{}
	for _, line := range strings.Split(plain, "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[0] == "node" {
			x[f[1]], _ = strconv.ParseFloat(f[2], 64)
			y[f[1]] = f[3]
		}
	}
	name := func(it int) string { return "i" + strconv.Itoa(it) }
	prev := 1e18
	for li, layer := range w.order {
		ref := y[name(layer[0])]
		for _, it := range layer {
			if y[name(it)] != ref {
				t.Fatalf("dot moved %s out of layer %d", name(it), li)
			}
		}
		f, _ := strconv.ParseFloat(ref, 64)
		if f >= prev {
			t.Fatalf("dot reordered layers at %d", li)
		}
		prev = f
	}
	if got := orderCrossings(w, func(it int) float64 { return x[name(it)] }); got != want {
		t.Fatalf("dot reports %d crossings; its order counts %d here", want, got)
	}
}

// orderCrossings counts the crossings of w's segments with items placed at
// x, pair by pair. Unlike w.totalCrossings it needs no order w could hold:
// dot does not keep OR groups and frames contiguous.
func orderCrossings(w *work, x func(it int) float64) int {
	n := 0
	for i, s := range w.segs {
		for _, t := range w.segs[i+1:] {
			if w.items[s.up].layer != w.items[t.up].layer {
				continue
			}
			if (x(s.up)-x(t.up))*(x(s.down)-x(t.down)) < 0 {
				n++
			}
		}
	}
	return n
}

// unclusteredCrossings orders g's layered graph as NewLayout does from
// scratch, but without keeping OR groups and frames contiguous — the
// problem dot is given — and returns its crossings and whether g's layout
// has such clusters at all.
func unclusteredCrossings(g Graph) (int, bool) {
	st := buildStructure(&g, Options{})
	w := newWork(st, rankNodes(st, nil), Options{})
	if len(w.clusters) == 0 {
		return 0, false
	}
	w.clusters, w.byLayer = nil, nil
	for i := range w.items {
		w.items[i].cl = -1
	}
	w.orderFresh()
	return w.totalCrossings(), true
}

func TestCrossingsNoWorseThanDot(t *testing.T) {
	data, err := os.ReadFile(dotFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec []dotCase
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec) != len(dotCases) {
		t.Fatalf("%s has %d cases, the test %d: re-record", dotFile, len(rec), len(dotCases))
	}
	for i, c := range rec {
		if c.Name != dotCases[i].Name || c.Seed != dotCases[i].Seed {
			t.Fatalf("%s does not match the test's cases: re-record", dotFile)
		}
		g := c.graph(t)
		got := NewLayout(g, Options{}).Crossings()
		if free, clusters := unclusteredCrossings(g); clusters {
			// dot was not given the clusters (see above): compare the
			// same problem, and log the drawing's own count.
			if free > c.Dot {
				t.Errorf("%s: %d crossings without clusters, dot found %d", c.Name, free, c.Dot)
			} else {
				t.Logf("%s: %d crossings without clusters, dot %d (the drawing, keeping OR groups and frames together: %d)", c.Name, free, c.Dot, got)
			}
			continue
		}
		if got > c.Dot {
			t.Errorf("%s: %d crossings, dot found %d", c.Name, got, c.Dot)
		} else {
			t.Logf("%s: %d crossings, dot %d", c.Name, got, c.Dot)
		}
	}
}
