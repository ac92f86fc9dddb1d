package dagdraw

import (
	"reflect"
	"strings"
	"testing"
)

// TestBuilderMakesTheFixtures builds two of the golden fixtures with the
// Builder: the graphs are the ones the struct literals give, so the
// drawings are the goldens'.
func TestBuilderMakesTheFixtures(t *testing.T) {
	var or Builder
	or.Node("A1", "User model", Resolved).
		Node("A2", "JWT tokens", Pending).
		Node("A3", "Server-side sessions", InProgress).
		Node("A4", "OAuth via provider", Pending).
		Node("A5", "Login endpoint", Pending)
	for _, e := range orGraph().Edges {
		or.Edge(e.From, e.To)
	}
	or.Alternatives("token_method", "A2", "A3").Alternatives("token_method", "A4").Choose("token_method", "A3", "A2")
	if got, want := or.Graph(), orGraph(); !reflect.DeepEqual(got, want) {
		t.Errorf("OR fixture:\n got %+v\nwant %+v", got, want)
	}

	var d Builder
	d.Node("A1", "Requirements", Resolved).
		Node("A2", "Build the data layer", Pending).
		Node("A3", "Tables and indexes", Resolved).
		Node("A4", "Repository API", InProgress).
		Node("A5", "Migrations", Pending).
		Node("A6", "Wire the HTTP handlers", Pending).
		Edge("A1", "A2").Edge("A1", "A3").Edge("A1", "A4").Edge("A1", "A5").Edge("A2", "A6").
		Parts("A2", "A3", "A4", "A5").
		Ready("A5")
	if got, want := d.Graph(), decompGraph(); !reflect.DeepEqual(got, want) {
		t.Errorf("decomposition fixture:\n got %+v\nwant %+v", got, want)
	}
	if got, want := Draw(d.Graph(), Options{}).Plain(), Draw(decompGraph(), Options{}).Plain(); got != want {
		t.Errorf("drawings differ:\n%s\n\n%s", got, want)
	}
}

// TestBuilderKeepsTheFirst: a node id or an edge given twice is added once,
// the first node standing; ids not added are not made ready.
func TestBuilderKeepsTheFirst(t *testing.T) {
	var b Builder
	b.Node("a", "first", Resolved).Node("b", "b", Pending).Node("a", "second", Pending).
		Edge("a", "b").Edge("a", "b").Ready("b", "nobody")
	want := Graph{
		Nodes: []Node{{ID: "a", Label: "first", Status: Resolved}, {ID: "b", Label: "b", Status: Pending, Executable: true}},
		Edges: []Edge{{From: "a", To: "b"}},
	}
	if got := b.Graph(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestBuilderGraphSharesNothing: what the builder does after Graph does
// not change the graph it returned.
func TestBuilderGraphSharesNothing(t *testing.T) {
	var b Builder
	b.Node("a", "a", Pending).Node("b", "b", Pending).Alternatives("g", "a").Parts("p", "a")
	g := b.Graph()
	before := b.Graph()
	b.Ready("a").Choose("g", "a", "b").Alternatives("g", "b").Node("c", "c", Pending).Edge("a", "b").Parts("p", "b")
	g.Decomps[0].Children = append(g.Decomps[0].Children, "x")
	g.ORGroups[0].Choices = append(g.ORGroups[0].Choices, "y")
	if b2 := b.Graph(); len(b2.Decomps[0].Children) != 1 || !reflect.DeepEqual(b2.ORGroups[0].Choices, []string{"a", "b"}) {
		t.Errorf("appending to a returned graph changed the builder: %+v", b2)
	}
	g = before
	if g.Nodes[0].Executable || g.ORGroups[0].Selected != "" || len(g.ORGroups[0].Choices) != 1 || len(g.Nodes) != 2 || len(g.Edges) != 0 {
		t.Errorf("the builder changed a graph it returned: %+v", g)
	}
}

// TestBuilderLabelsAreSafe: a label with escape sequences, control
// characters and line breaks is drawn escaped, on one line: nothing in
// the drawing drives the terminal.
func TestBuilderLabelsAreSafe(t *testing.T) {
	var b Builder
	b.Node("a", "\x1b]0;owned\x07title\nsecond\x1b[2J", Pending)
	g := b.Graph()
	if l := g.Nodes[0].Label; strings.ContainsAny(l, "\x1b\x07\n") {
		t.Fatalf("label kept control characters: %q", l)
	}
	out := Draw(g, Options{NodeWidth: MaxNodeWidth * 2}).Plain()
	for _, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f {
			t.Fatalf("drawing holds control character %U:\n%q", r, out)
		}
	}
	if !strings.Contains(out, `\x1b]0;owned\x07title↵second`) {
		t.Errorf("the label is not shown escaped:\n%s", out)
	}
}
