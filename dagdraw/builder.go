package dagdraw

import (
	"slices"

	"github.com/aot-loop/aot-tui/internal/termtext"
)

// Builder collects a Graph a piece at a time. The zero value is ready to
// use and each method returns the builder, so calls chain:
//
//	var b dagdraw.Builder
//	b.Node("a", "Fetch", dagdraw.Resolved).Node("b", "Build", dagdraw.Pending)
//	b.Edge("a", "b").Ready("b")
//	g := b.Graph()
//
// Nodes keep the order they are added in (the drawing breaks ties by it).
// Ids that edges, groups or decompositions name but no Node adds are drawn
// as dashed "missing" nodes.
type Builder struct {
	g     Graph
	index map[string]int // node id → its index in g.Nodes
	group map[string]int // OR group name → its index in g.ORGroups
	edges map[Edge]bool  // the edges added
}

// Node adds a node. Its label is made safe to draw: line breaks become ↵,
// control characters and escape sequences are shown escaped, never sent to
// the terminal. A second Node with an id already added changes nothing:
// the first one stands.
func (b *Builder) Node(id, label string, s Status) *Builder {
	if _, ok := b.index[id]; ok {
		return b
	}
	if b.index == nil {
		b.index = map[string]int{}
	}
	b.index[id] = len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, Node{ID: id, Label: termtext.Line(label), Status: s})
	return b
}

// Ready marks nodes as ready to run now: they are drawn with ▸. Ids not
// added (yet) are ignored.
func (b *Builder) Ready(ids ...string) *Builder {
	for _, id := range ids {
		if i, ok := b.index[id]; ok {
			b.g.Nodes[i].Executable = true
		}
	}
	return b
}

// Flag flags nodes (FlagError: !, FlagWarning: ⚠); a node keeps the most
// serious flag given it. Ids not added (yet) are ignored.
func (b *Builder) Flag(f Flag, ids ...string) *Builder {
	for _, id := range ids {
		if i, ok := b.index[id]; ok && b.g.Nodes[i].Flag < f {
			b.g.Nodes[i].Flag = f
		}
	}
	return b
}

// Edge adds an edge: to depends on from. from is drawn above to (left of
// it, left to right) and the arrowhead is at to. An edge added before is
// not added twice.
func (b *Builder) Edge(from, to string) *Builder {
	e := Edge{From: from, To: to}
	if b.edges[e] {
		return b
	}
	if b.edges == nil {
		b.edges = map[Edge]bool{}
	}
	b.edges[e] = true
	b.g.Edges = append(b.g.Edges, e)
	return b
}

// Alternatives adds a named group of nodes of which one is to be chosen
// (an AoT loop's OR group): they are drawn side by side in a frame
// labelled with the name. Alternatives with a name added before adds the
// choices to that group.
func (b *Builder) Alternatives(name string, choices ...string) *Builder {
	if i, ok := b.group[name]; ok {
		o := &b.g.ORGroups[i]
		o.Choices = append(slices.Clip(o.Choices), choices...)
		return b
	}
	if b.group == nil {
		b.group = map[string]int{}
	}
	b.group[name] = len(b.g.ORGroups)
	b.g.ORGroups = append(b.g.ORGroups, ORGroup{Name: name, Choices: slices.Clone(choices)})
	return b
}

// Choose records which alternative of the group name was chosen and which
// were tried and failed: the chosen one's border is marked, the failed
// ones' labels struck out. A name no Alternatives added is ignored.
func (b *Builder) Choose(name, chosen string, failed ...string) *Builder {
	if i, ok := b.group[name]; ok {
		o := &b.g.ORGroups[i]
		o.Selected = chosen
		o.Failed = slices.Clone(failed)
	}
	return b
}

// Parts records that parent was split into children (an AoT loop's
// decomposition): the parent is drawn as a frame around its children when
// they can share a layer, otherwise as a box with dotted "part of" links
// from each child.
func (b *Builder) Parts(parent string, children ...string) *Builder {
	b.g.Decomps = append(b.g.Decomps, Decomp{Parent: parent, Children: slices.Clone(children)})
	return b
}

// Graph returns the graph built so far. It shares nothing with the
// builder: later calls do not change it.
func (b *Builder) Graph() Graph {
	g := Graph{
		Nodes:    slices.Clone(b.g.Nodes),
		Edges:    slices.Clone(b.g.Edges),
		ORGroups: slices.Clone(b.g.ORGroups),
		Decomps:  slices.Clone(b.g.Decomps),
	}
	for i := range g.ORGroups {
		g.ORGroups[i].Choices = slices.Clone(g.ORGroups[i].Choices)
		g.ORGroups[i].Failed = slices.Clone(g.ORGroups[i].Failed)
	}
	for i := range g.Decomps {
		g.Decomps[i].Children = slices.Clone(g.Decomps[i].Children)
	}
	return g
}

// Draw lays g out and paints all of it with nothing selected: the whole
// drawing at once, for output that does not scroll (a report, a file).
// Canvas.Plain gives it as text; Canvas.Render(s) with the styles of s.
// For a pane that scrolls and follows a selection, use a View.
func Draw(g Graph, opt Options) *Canvas {
	l := NewLayout(g, opt)
	return l.Paint(l.Decorate(g), l.Bounds(), "")
}
