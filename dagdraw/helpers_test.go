package dagdraw

import (
	"fmt"
	"strconv"
	"testing"
)

// loops turns the repository's AoT loops into graphs: a state file under
// testdata/ (loadSeed) and the simulator's loop (simGraph). The conversion
// is internal/loopgraph's, which imports this package, so this package's
// own test files cannot call it: loops_test.go, in package dagdraw_test,
// sets these in its init through SetLoops (export_test.go).
var loops struct {
	file func(path string) (Graph, error)
	sim  func(seed uint64, n int) (Graph, error)
}

// rng is splitmix64: generated graphs must be identical on every machine
// and Go version, so the test does not depend on math/rand's algorithms.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

var words = []string{"parse", "config", "loader", "auth", "token", "cache", "index", "schema", "migrate",
	"render", "header", "router", "queue", "worker", "retry", "logging", "metrics", "tests", "docs",
	"release", "client", "server", "session", "storage", "search", "export", "import", "validate"}

type genOpts struct {
	window   int  // dependencies mostly among the previous window atoms
	maxDeps  int  // at most this many dependencies per atom
	extras   bool // OR groups, decompositions, a missing id
	statuses bool // a realistic spread of statuses instead of all pending
}

// genGraph makes a random DAG shaped like a work graph: atoms depend on
// recent atoms, a few reach far back.
func genGraph(seed uint64, n int, o genOpts) Graph {
	r := &rng{s: seed}
	if o.window == 0 {
		o.window = 16
	}
	if o.maxDeps == 0 {
		o.maxDeps = 3
	}
	var g Graph
	for i := 0; i < n; i++ {
		id := "A" + strconv.Itoa(i+1)
		st := Pending
		if o.statuses {
			switch f := float64(i) / float64(n); {
			case f < 0.4 || r.intn(10) == 0 && f < 0.6:
				st = Resolved
			case f < 0.5 || r.intn(8) == 0:
				st = InProgress
			}
		}
		label := words[r.intn(len(words))] + " " + words[r.intn(len(words))]
		g.Nodes = append(g.Nodes, Node{ID: id, Label: label, Status: st})
		if i == 0 {
			continue
		}
		// few atoms start a new strand; most depend on one to three others
		k := 1
		switch x := r.intn(100); {
		case x < 3:
			k = 0
		case x < 43:
			k = 1
		case x < 78:
			k = 2
		default:
			k = 3
		}
		k = min(k, o.maxDeps)
		seen := map[int]bool{}
		for j := 0; j < k; j++ {
			var d int
			if r.intn(20) == 0 {
				d = max(0, i-1-r.intn(4*o.window)) // an occasional far reach
			} else {
				d = max(0, i-1-r.intn(o.window))
			}
			if seen[d] {
				continue
			}
			seen[d] = true
			g.Edges = append(g.Edges, Edge{From: "A" + strconv.Itoa(d+1), To: id})
		}
	}
	if o.extras && n >= 20 {
		for k := 0; k < n/40+1; k++ {
			a := 5 + r.intn(n-10)
			b := a + 1
			g.ORGroups = append(g.ORGroups, ORGroup{Name: "choice_" + strconv.Itoa(k+1),
				Choices: []string{g.Nodes[a].ID, g.Nodes[b].ID}, Selected: g.Nodes[a].ID, Failed: []string{g.Nodes[b].ID}})
		}
		for k := 0; k < n/50+1; k++ {
			p := 3 + r.intn(n-8)
			g.Decomps = append(g.Decomps, Decomp{Parent: g.Nodes[p].ID,
				Children: []string{g.Nodes[p+1].ID, g.Nodes[p+2].ID}})
		}
		g.Edges = append(g.Edges, Edge{From: "X_missing", To: g.Nodes[n-1].ID})
	}
	markExecutable(&g)
	return g
}

// markExecutable sets Executable as model.Derive would (without OR/decomp
// subtleties): pending with every dependency resolved.
func markExecutable(g *Graph) {
	st := map[string]Status{}
	for _, n := range g.Nodes {
		st[n.ID] = n.Status
	}
	ready := map[string]bool{}
	for _, n := range g.Nodes {
		ready[n.ID] = n.Status == Pending
	}
	for _, e := range g.Edges {
		if s, ok := st[e.From]; !ok || s != Resolved {
			ready[e.To] = false
		}
	}
	for _, d := range g.Decomps {
		for _, c := range d.Children {
			if st[c] != Resolved {
				ready[d.Parent] = false
			}
		}
	}
	for i := range g.Nodes {
		g.Nodes[i].Executable = ready[g.Nodes[i].ID]
	}
}

func loadSeed(t testing.TB, name string) Graph {
	t.Helper()
	if loops.file == nil {
		t.Fatal("no loops to read: loops_test.go sets them")
	}
	g, err := loops.file("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func chainGraph() Graph {
	g := Graph{}
	labels := []string{"Define the schema", "Parse the state file", "Validate invariants", "Render the header", "Ship it"}
	for i, l := range labels {
		st := Resolved
		if i == 2 {
			st = InProgress
		} else if i > 2 {
			st = Pending
		}
		g.Nodes = append(g.Nodes, Node{ID: fmt.Sprintf("A%d", i+1), Label: l, Status: st})
		if i > 0 {
			g.Edges = append(g.Edges, Edge{From: fmt.Sprintf("A%d", i), To: fmt.Sprintf("A%d", i+1)})
		}
	}
	markExecutable(&g)
	return g
}

func diamondGraph() Graph {
	g := Graph{
		Nodes: []Node{
			{ID: "A1", Label: "Set up the repository", Status: Resolved},
			{ID: "A2", Label: "Write the parser", Status: Resolved},
			{ID: "A3", Label: "Write the renderer", Status: InProgress},
			{ID: "A4", Label: "Integrate parser and renderer", Status: Pending},
		},
		Edges: []Edge{{"A1", "A2"}, {"A1", "A3"}, {"A2", "A4"}, {"A3", "A4"}},
	}
	markExecutable(&g)
	return g
}

func fanGraph() Graph {
	g := Graph{Nodes: []Node{{ID: "A1", Label: "Plan the release", Status: Resolved}}}
	for i := 2; i <= 7; i++ {
		id := fmt.Sprintf("A%d", i)
		st := Pending
		if i%3 == 0 {
			st = Resolved
		}
		g.Nodes = append(g.Nodes, Node{ID: id, Label: "Port module " + words[i], Status: st})
		g.Edges = append(g.Edges, Edge{"A1", id}, Edge{id, "A8"})
	}
	g.Nodes = append(g.Nodes, Node{ID: "A8", Label: "Run the full test suite", Status: Pending})
	g.Edges = append(g.Edges, Edge{"A1", "A8"})
	markExecutable(&g)
	return g
}

func orGraph() Graph {
	g := Graph{
		Nodes: []Node{
			{ID: "A1", Label: "User model", Status: Resolved},
			{ID: "A2", Label: "JWT tokens", Status: Pending, Executable: false},
			{ID: "A3", Label: "Server-side sessions", Status: InProgress},
			{ID: "A4", Label: "OAuth via provider", Status: Pending},
			{ID: "A5", Label: "Login endpoint", Status: Pending},
		},
		Edges:    []Edge{{"A1", "A2"}, {"A1", "A3"}, {"A1", "A4"}, {"A2", "A5"}, {"A3", "A5"}, {"A4", "A5"}},
		ORGroups: []ORGroup{{Name: "token_method", Choices: []string{"A2", "A3", "A4"}, Selected: "A3", Failed: []string{"A2"}}},
	}
	return g
}

func decompGraph() Graph {
	g := Graph{
		Nodes: []Node{
			{ID: "A1", Label: "Requirements", Status: Resolved},
			{ID: "A2", Label: "Build the data layer", Status: Pending},
			{ID: "A3", Label: "Tables and indexes", Status: Resolved},
			{ID: "A4", Label: "Repository API", Status: InProgress},
			{ID: "A5", Label: "Migrations", Status: Pending},
			{ID: "A6", Label: "Wire the HTTP handlers", Status: Pending},
		},
		Edges:   []Edge{{"A1", "A2"}, {"A1", "A3"}, {"A1", "A4"}, {"A1", "A5"}, {"A2", "A6"}},
		Decomps: []Decomp{{Parent: "A2", Children: []string{"A3", "A4", "A5"}}},
	}
	markExecutable(&g)
	return g
}

// decompLinksGraph has a decomposition whose children depend on each
// other, so they cannot share a layer: the parent is drawn as a box with
// dotted part-of links from its children.
func decompLinksGraph() Graph {
	g := Graph{
		Nodes: []Node{
			{ID: "A1", Label: "Design the API", Status: Resolved},
			{ID: "A2", Label: "Implement the API", Status: Pending},
			{ID: "A3", Label: "Handlers", Status: Resolved},
			{ID: "A4", Label: "Middleware on handlers", Status: InProgress},
			{ID: "A5", Label: "Publish the SDK", Status: Pending},
		},
		Edges:   []Edge{{"A1", "A2"}, {"A1", "A3"}, {"A3", "A4"}, {"A2", "A5"}},
		Decomps: []Decomp{{Parent: "A2", Children: []string{"A3", "A4"}}},
	}
	markExecutable(&g)
	return g
}

// fixtures are the small graphs every check runs on.
func fixtures(t testing.TB) map[string]Graph {
	return map[string]Graph{
		"chain":         chainGraph(),
		"diamond":       diamondGraph(),
		"fan":           fanGraph(),
		"or-failed":     orGraph(),
		"decomposition": decompGraph(),
		"decomp-links":  decompLinksGraph(),
		"seed-complete": loadSeed(t, "seed-complete.md"),
	}
}

var fixtureNames = []string{"chain", "diamond", "fan", "or-failed", "decomposition", "decomp-links", "seed-complete"}
