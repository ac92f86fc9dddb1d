package dagdraw

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// nodeKind tells atoms from the nodes the layout adds.
type nodeKind uint8

const (
	kindAtom    nodeKind = iota
	kindMissing          // referenced but not defined: a dashed box
	kindSummary          // a collapsed set of resolved atoms
)

// edgeKind tells dependencies from decomposition links.
type edgeKind uint8

const (
	edgeDep    edgeKind = iota
	edgePartOf          // child ⇢ parent when the parent cannot be a frame
)

// snode is a node of the structure actually drawn.
type snode struct {
	id   string
	kind nodeKind
	src  int // index in Graph.Nodes for atoms, -1 otherwise
	// folded are the ids drawn inside this node: a collapsed parent's
	// descendants, or a summary's members.
	folded []string
}

type sedge struct {
	from, to int
}

type sgroup struct {
	gi      int // index in Graph.ORGroups
	name    string
	members []int
}

type sdecomp struct {
	parent   int
	children []int
}

// structure is everything layout depends on, resolved from a Graph and
// Options; key is its canonical encoding, compared to decide whether a new
// graph needs a new layout.
type structure struct {
	nodes   []snode
	index   map[string]int // drawn node id → index
	repOf   map[string]int // every known id → the node that draws it
	edges   []sedge
	groups  []sgroup
	decomps []sdecomp
	orient  Orientation
	width   int
	lines   int // rows of text in a top-down box
	title   int // the box width the widest title needs on one row (FitTitles)
	key     []byte
}

func buildStructure(g *Graph, opt Options) *structure {
	sb := structBuild{g: g, opt: opt, st: &structure{orient: opt.Orientation, width: opt.nodeWidth(), lines: opt.titleLines()}}
	sb.collectNodes()
	sb.decompTree()
	sb.collapse()
	var summary map[int]bool
	if opt.CollapseResolved {
		summary = sb.foldHistory()
	}
	sb.drawnNodes(summary)
	sb.addEdges()
	sb.addGroups()
	sb.addDecomps()
	st := sb.st
	if opt.FitTitles {
		st.fitTitles(g)
	}
	st.key = st.encode()
	return st
}

// fitTitles narrows the boxes to the widest title of a node drawn as a
// box (a decomposition parent's title is on its frame's border).
func (st *structure) fitTitles(g *Graph) {
	frame := make(map[int]bool, len(st.decomps))
	for _, d := range st.decomps {
		frame[d.parent] = true
	}
	widest := 0
	for i := range st.nodes {
		if !frame[i] {
			widest = max(widest, titleWidth(&st.nodes[i], g))
		}
	}
	st.title = widest + 3 // the borders, and a blank before the right one as the marker cell gives the left
	st.width = max(MinNodeWidth, min(st.width, st.title))
}

// titleWidth is the cells of a node's title as nodeTitle writes it:
// marker, status glyph, a blank, the id, the folded count, a blank and
// the label.
func titleWidth(n *snode, g *Graph) int {
	w := 3 + textWidth(n.id)
	if n.kind == kindAtom && len(n.folded) > 0 {
		w += 4 + len(strconv.Itoa(len(n.folded)))
	}
	label := ""
	switch n.kind {
	case kindAtom:
		label = g.Nodes[n.src].Label
	case kindMissing:
		label = missingLabel
	case kindSummary:
		label = summaryLabel(n)
	}
	if label != "" {
		w += 1 + textWidth(label)
	}
	return w
}

// titleRows is how many rows a title takes in a box whose inside is inner
// cells wide, wrapping as the painter does (a word that does not fit moves
// to the next row, one too long for a row breaks where the row ends,
// wrapped rows start under the id without a leading blank), counting at
// most limit+1.
func titleRows(n *snode, label string, inner, limit int) int {
	const wrapX = 3 // marker, glyph and a blank come first
	x, rows, blanks := wrapX, 1, 0
	word := func(w string) {
		ww := textWidth(w)
		if ww == 0 {
			return
		}
		for ; blanks > 0; blanks-- { // the blanks before it, as the painter lays them
			switch {
			case x == wrapX && rows > 1: // no leading blank on a wrapped row
			case x+1 <= inner:
				x++
			default:
				rows++
				x = wrapX
			}
		}
		switch {
		case x+ww <= inner:
			x += ww
		case x > wrapX && wrapX+ww <= inner:
			rows++
			x = wrapX + ww
		default:
			for ; x+ww > inner && rows <= limit; rows++ {
				ww -= max(0, inner-x)
				x = wrapX
			}
			x += ww
		}
	}
	blank := func() { blanks++ }
	word(n.id)
	if n.kind == kindAtom && len(n.folded) > 0 {
		blank()
		word("[+" + strconv.Itoa(len(n.folded)) + "]")
	}
	if label != "" {
		for _, w := range strings.Split(label, " ") {
			blank()
			word(w)
			if rows > limit {
				break
			}
		}
	}
	return min(rows, limit+1)
}

// textWidth is s's width in cells (its length for ASCII text).
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// tnode is an id of the graph: an atom or a missing id.
type tnode struct {
	id   string
	kind nodeKind
	src  int
}

// structBuild holds the steps of buildStructure.
type structBuild struct {
	g      *Graph
	opt    Options
	st     *structure
	tn     []tnode
	tidx   map[string]int // id → tn index
	parent []int          // decomposition parent in tn, or -1
	rep    []int          // the tn node that draws each
	final  []int          // tn index → st.nodes index
}

// collectNodes lists the atoms (first of duplicate ids) and missing ids,
// in reference order.
func (sb *structBuild) collectNodes() {
	g := sb.g
	sb.tidx = make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		if _, dup := sb.tidx[n.ID]; dup {
			continue
		}
		sb.tidx[n.ID] = len(sb.tn)
		sb.tn = append(sb.tn, tnode{n.ID, kindAtom, i})
	}
	ref := func(id string) {
		if _, ok := sb.tidx[id]; !ok {
			sb.tidx[id] = len(sb.tn)
			sb.tn = append(sb.tn, tnode{id, kindMissing, -1})
		}
	}
	for _, e := range g.Edges {
		ref(e.From)
		ref(e.To)
	}
	for _, o := range g.ORGroups {
		for _, c := range o.Choices {
			ref(c)
		}
	}
	for _, d := range g.Decomps {
		ref(d.Parent)
		for _, c := range d.Children {
			ref(c)
		}
	}
}

// decompTree makes the decomposition tree: the first parent of a child
// wins; links that would make the tree cyclic are ignored.
func (sb *structBuild) decompTree() {
	parent := make([]int, len(sb.tn))
	for i := range parent {
		parent[i] = -1
	}
	for _, d := range sb.g.Decomps {
		p := sb.tidx[d.Parent]
		for _, c := range d.Children {
			ci := sb.tidx[c]
			if ci == p || parent[ci] >= 0 {
				continue
			}
			cyc := false
			for a := p; a >= 0; a = parent[a] {
				if a == ci {
					cyc = true
					break
				}
			}
			if !cyc {
				parent[ci] = p
			}
		}
	}
	sb.parent = parent
}

// collapse hides the descendants of collapsed parents: rep is the topmost
// collapsed ancestor.
func (sb *structBuild) collapse() {
	sb.rep = make([]int, len(sb.tn))
	for i := range sb.tn {
		sb.rep[i] = i
		for a := sb.parent[i]; a >= 0; a = sb.parent[a] {
			if sb.opt.Collapsed[sb.tn[a].id] {
				sb.rep[i] = a
			}
		}
	}
}

// foldHistory folds resolved history into summaries.
func (sb *structBuild) foldHistory() map[int]bool {
	status := make([]Status, len(sb.tn))
	for i, t := range sb.tn {
		status[i] = Unknown
		if t.src >= 0 {
			status[i] = sb.g.Nodes[t.src].Status
		}
	}
	return foldResolved(sb.g, status, sb.rep, sb.tidx)
}

// drawnNodes makes the drawn nodes in first-member order.
func (sb *structBuild) drawnNodes(summary map[int]bool) {
	st, tn := sb.st, sb.tn
	final := make([]int, len(tn)) // tn index → st.nodes index
	for i := range final {
		final[i] = -1
	}
	for i := range tn {
		r := sb.rep[i]
		if final[r] < 0 {
			final[r] = len(st.nodes)
			st.nodes = append(st.nodes, snode{id: tn[r].id, kind: tn[r].kind, src: tn[r].src})
		}
		final[i] = final[r]
		if r != i {
			n := &st.nodes[final[r]]
			n.folded = append(n.folded, tn[i].id)
		}
	}
	// A summary is named after its first member, which it also folds.
	for i := range st.nodes {
		n := &st.nodes[i]
		if summary[sb.tidx[n.id]] {
			n.kind = kindSummary
			n.folded = append([]string{n.id}, n.folded...)
			n.id = "+" + n.id
		}
	}
	st.index = make(map[string]int, len(st.nodes))
	for i, n := range st.nodes {
		st.index[n.id] = i
	}
	st.repOf = make(map[string]int, len(tn))
	for i, t := range tn {
		st.repOf[t.id] = final[i]
	}
	sb.final = final
}

// addEdges adds the edges between drawn nodes, deduplicated.
func (sb *structBuild) addEdges() {
	seen := make(map[[2]int]bool, len(sb.g.Edges))
	for _, e := range sb.g.Edges {
		a, b := sb.final[sb.tidx[e.From]], sb.final[sb.tidx[e.To]]
		if a == b || seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		sb.st.edges = append(sb.st.edges, sedge{from: a, to: b})
	}
}

// addGroups adds the OR groups over members drawn as themselves.
func (sb *structBuild) addGroups() {
	st, final := sb.st, sb.final
	for gi, o := range sb.g.ORGroups {
		sg := sgroup{gi: gi, name: o.Name}
		in := map[int]bool{}
		for _, c := range o.Choices {
			ti := sb.tidx[c]
			if sb.rep[ti] != ti || in[final[ti]] || st.nodes[final[ti]].kind == kindSummary {
				continue
			}
			in[final[ti]] = true
			sg.members = append(sg.members, final[ti])
		}
		if len(sg.members) > 0 {
			st.groups = append(st.groups, sg)
		}
	}
}

// addDecomps adds the decompositions whose parent is drawn expanded.
// Several entries for one parent are merged.
func (sb *structBuild) addDecomps() {
	st, final, rep := sb.st, sb.final, sb.rep
	done := map[int]bool{}
	at := map[int]int{}
	for _, d := range sb.g.Decomps {
		pi := sb.tidx[d.Parent]
		if rep[pi] != pi || sb.opt.Collapsed[d.Parent] || st.nodes[final[pi]].kind == kindSummary {
			continue
		}
		p := final[pi]
		var kids []int
		for _, c := range d.Children {
			ci := sb.tidx[c]
			if sb.parent[ci] != pi || rep[ci] != ci || done[final[ci]] || st.nodes[final[ci]].kind == kindSummary {
				continue
			}
			done[final[ci]] = true
			kids = append(kids, final[ci])
		}
		if len(kids) == 0 {
			continue
		}
		if j, ok := at[p]; ok {
			st.decomps[j].children = append(st.decomps[j].children, kids...)
			continue
		}
		at[p] = len(st.decomps)
		st.decomps = append(st.decomps, sdecomp{parent: p, children: kids})
	}
}

// foldResolved points rep of every atom in a resolved set of two or more at
// the set's first member. A set is a connected group of drawn nodes that are
// resolved and whose dependencies are all in the set: closed under
// dependencies, so folding it cannot create a cycle. It returns the
// representatives of the sets.
func foldResolved(g *Graph, status []Status, rep []int, tidx map[string]int) map[int]bool {
	n := len(rep)
	deps := make([][]int, n)
	outs := make([][]int, n)
	indeg := make([]int, n)
	for _, e := range g.Edges {
		a, b := rep[tidx[e.From]], rep[tidx[e.To]]
		if a == b {
			continue
		}
		deps[b] = append(deps[b], a)
		outs[a] = append(outs[a], b)
		indeg[b]++
	}
	// Kahn order over drawn nodes; nodes on cycles never qualify.
	in := make([]bool, n)
	queue := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if rep[i] == i && indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		ok := status[v] == Resolved
		for _, d := range deps[v] {
			if !in[d] {
				ok = false
				break
			}
		}
		in[v] = ok
		for _, w := range outs[v] {
			indeg[w]--
			if indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	uf := newUnionFind(n)
	for v := 0; v < n; v++ {
		if !in[v] {
			continue
		}
		for _, d := range deps[v] {
			uf.union(d, v)
		}
	}
	size := make([]int, n)
	first := make([]int, n)
	for i := range first {
		first[i] = -1
	}
	for v := 0; v < n; v++ {
		if in[v] {
			r := uf.find(v)
			size[r]++
			if first[r] < 0 {
				first[r] = v
			}
		}
	}
	reps := map[int]bool{}
	for i := 0; i < n; i++ {
		r := rep[i]
		if !in[r] {
			continue
		}
		c := uf.find(r)
		if size[c] < 2 {
			continue
		}
		rep[i] = first[c]
		reps[first[c]] = true
	}
	return reps
}

type unionFind struct{ p []int }

func newUnionFind(n int) *unionFind {
	u := &unionFind{p: make([]int, n)}
	for i := range u.p {
		u.p[i] = i
	}
	return u
}

func (u *unionFind) find(x int) int {
	for u.p[x] != x {
		u.p[x] = u.p[u.p[x]]
		x = u.p[x]
	}
	return x
}

// union joins the sets of a and b; the smaller index becomes the root so
// results do not depend on call order.
func (u *unionFind) union(a, b int) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if b < a {
		a, b = b, a
	}
	u.p[b] = a
}

func (st *structure) encode() []byte {
	b := make([]byte, 0, 64+len(st.nodes)*12+len(st.edges)*6)
	b = append(b, byte(st.orient))
	b = binary.AppendUvarint(b, uint64(st.width))
	b = binary.AppendUvarint(b, uint64(st.lines))
	b = binary.AppendUvarint(b, uint64(st.title))
	b = binary.AppendUvarint(b, uint64(len(st.nodes)))
	for _, n := range st.nodes {
		b = append(b, byte(n.kind))
		b = binary.AppendUvarint(b, uint64(len(n.id)))
		b = append(b, n.id...)
		b = binary.AppendUvarint(b, uint64(len(n.folded)))
	}
	b = binary.AppendUvarint(b, uint64(len(st.edges)))
	for _, e := range st.edges {
		b = binary.AppendUvarint(b, uint64(e.from))
		b = binary.AppendUvarint(b, uint64(e.to))
	}
	b = binary.AppendUvarint(b, uint64(len(st.groups)))
	for _, g := range st.groups {
		b = append(b, g.name...)
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(g.members)))
		for _, m := range g.members {
			b = binary.AppendUvarint(b, uint64(m))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(st.decomps)))
	for _, d := range st.decomps {
		b = binary.AppendUvarint(b, uint64(d.parent))
		b = binary.AppendUvarint(b, uint64(len(d.children)))
		for _, c := range d.children {
			b = binary.AppendUvarint(b, uint64(c))
		}
	}
	return b
}

// missingLabel is what the box of a referenced but undefined id says.
const missingLabel = "not defined"

// summaryLabel is what a summary node says.
func summaryLabel(n *snode) string {
	return strconv.Itoa(len(n.folded)) + " resolved"
}
