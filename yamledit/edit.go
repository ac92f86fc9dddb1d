// Package yamledit edits YAML text in place: it applies a plan of
// semantic edits (yamlpatch.Edit: replace, remove, add at a path) to the text
// of a YAML document so that every byte outside the edited spans stays as
// it was — comments, blank lines, quoting, key order, unknown fields, line
// endings, and whatever surrounds the YAML in the file. It needs the text
// and the yaml.v3 node tree parsed from it (whose positions say where each
// value is written); statefile.ApplyEdits supplies both for a state file,
// and the error messages, made for aot-tui's users, call the document "the
// frontmatter".
package yamledit

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/yamlpatch"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// Errors wrapped by the *Error values Apply returns, for errors.Is.
var (
	// ErrNotFound: the path names a key or item the document lacks.
	ErrNotFound = errors.New("no such key or item")
	// ErrExists: an add names a key the mapping already has.
	ErrExists = errors.New("the key already exists")
	// ErrConflict: two edits change the same text.
	ErrConflict = errors.New("edits overlap")
	// ErrType: the edit does not fit what is at the path (adding to a
	// scalar, appending to a mapping, a value of an unsupported Go type).
	ErrType = errors.New("the edit does not fit the value at its path")
	// ErrUnsupported: the text there is YAML this engine does not
	// rewrite (anchors, aliases on the path, tags, explicit keys, or text
	// it could not locate exactly). Edit such a file by hand.
	ErrUnsupported = errors.New("the YAML there cannot be edited safely")
)

// Error says why one edit of a plan cannot be applied. It reads as one
// line: "cannot remove atoms[7]: atoms has 5 items (line 75)".
type Error struct {
	// Edit is the edit that failed and Index its place in the plan (-1
	// when the document as a whole cannot be edited).
	Edit  yamlpatch.Edit
	Index int
	// Line is the file line the problem is on (see Input.FileLine), 0
	// when unknown.
	Line int
	// Msg says what is wrong; Err is one of the Err… values above.
	Msg string
	Err error
}

// Error returns the one-line message.
func (e *Error) Error() string {
	s := "cannot " + e.Edit.String() + ": " + e.Msg
	if e.Index < 0 {
		s = "cannot edit: " + e.Msg
	}
	if e.Line > 0 {
		s += " (line " + strconv.Itoa(e.Line) + ")"
	}
	return s
}

// Unwrap returns Err, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// Input is the YAML document Apply edits: the text and the tree yaml.v3
// parsed from it.
type Input struct {
	// Data holds the YAML text, possibly inside more (a state file's
	// delimiters and Markdown body), which Apply copies unchanged.
	Data []byte
	// Start and End delimit the YAML text in Data.
	Start, End int
	// Root is the root node of Data[Start:End] as yaml.v3 parses it (the
	// document's content, not the DocumentNode), with yaml.v3's positions:
	// line 1 is the line at Start, columns count characters.
	Root *yaml.Node
	// CRLF asks that the lines Apply writes end in \r\n.
	CRLF bool
	// FileLine turns a node's line into the line errors name; nil leaves
	// node lines as they are.
	FileLine func(nodeLine int) int
}

// Apply applies a plan of semantic edits to the YAML text of in and
// returns the new Data. Every byte outside the edited spans stays as it
// was: comments, blank lines, quoting, key order, unknown fields, what
// surrounds the YAML, line endings and a byte order mark.
//
// All edits refer to the document as read (paths and indexes into the
// original); they are applied together, and several appends to one
// collection keep their order. An edit that names nothing, adds a key that
// exists, overlaps another edit or meets YAML that cannot be rewritten
// safely fails the whole plan with an *Error; in is never modified.
//
// How values are written:
//   - strings keep the quoting of the value they replace; new strings follow
//     the same key in sibling items (the descriptions of the other atoms),
//     else are plain when they are identifiers (A7, in_progress) and quoted
//     as the file quotes its prose otherwise (double quotes by default).
//     Anything YAML would read as another type (timestamps, numbers, yes) is
//     quoted. Multi-line strings are written double-quoted with \n escapes
//     on one line, so the loop's line-based tools never see a stray line,
//     except when they replace a literal block scalar (|), which stays one.
//   - yamlpatch.Flow is written on one line ([A1, A4]); yamlpatch.Map and []any in
//     block style, indented like the file's own collections.
//   - new keys go at the end of their mapping and new items after the last
//     item, with the indentation and blank-line spacing of the siblings.
//   - removing an entry or item removes its lines, its own comments (the
//     comment lines right above it at its indentation, those below it that
//     are indented deeper, and those on its lines) and one run of the blank
//     lines that separated it; an emptied collection becomes [] or {}.
func Apply(in Input, edits []yamlpatch.Edit) ([]byte, error) {
	if in.Root == nil {
		return nil, errors.New("cannot edit: no parsed document")
	}
	if in.Start < 0 || in.Start > in.End || in.End > len(in.Data) {
		return nil, errors.New("cannot edit: the YAML text is not inside the data")
	}
	bad, ascii := yamltext.BadChar(in.Data[in.Start:in.End])
	if bad >= 0 {
		// yaml.v3 misses some bad bytes depending on where its read buffer
		// falls; shifted by an edit, the text might no longer parse.
		return nil, &Error{Index: -1, Msg: "the frontmatter holds invalid UTF-8 or control characters", Err: ErrUnsupported}
	}
	e := newEditor(in, ascii)
	if err := e.plan(edits); err != nil {
		return nil, err
	}
	return e.splice()
}

// editor holds one Apply call's state.
type editor struct {
	in   Input
	text *yamlText
	nl   string
	// res are the resolved edits, in plan order.
	res     []*target
	patches []patch
	colls   map[*yaml.Node]*collInfo
	style   *docStyle
}

// patch replaces data[a:b] with text. Zero-width patches at one offset are
// ordered by depth, deepest first, so that a key added to the last atom
// lands before an atom appended after it.
type patch struct {
	a, b  int
	text  string
	depth int
	edit  int
	// align asks that a comment after the edited value on the same line
	// keep its column; tail is where that value ends when it is not b (the
	// closing bracket of a flow list whose item changed).
	align bool
	tail  int
}

// target is an edit resolved against the original tree.
type target struct {
	i     int
	edit  yamlpatch.Edit
	chain []*yaml.Node // root … the node at edit.Path
	node  *yaml.Node   // the node at edit.Path
	// For a node inside a collection: its parent and position. For a
	// mapping, index is the index of the value in parent.Content.
	parent *yaml.Node
	index  int
}

func newEditor(in Input, ascii bool) *editor {
	nl := "\n"
	if in.CRLF {
		nl = "\r\n"
	}
	return &editor{
		in:    in,
		text:  newYAMLText(in.Data, in.Start, in.End, ascii),
		nl:    nl,
		colls: map[*yaml.Node]*collInfo{},
	}
}

// fileLine is the file line of a node.
func (e *editor) fileLine(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return 0
	}
	if e.in.FileLine == nil {
		return n.Line
	}
	return e.in.FileLine(n.Line)
}

func (e *editor) fail(t *target, n *yaml.Node, err error, format string, args ...any) *Error {
	return &Error{Edit: t.edit, Index: t.i, Line: e.fileLine(n), Msg: fmt.Sprintf(format, args...), Err: err}
}

// locateErr turns a text-location error into an Error.
func (e *editor) locateErr(t *target, n *yaml.Node, err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		return err
	}
	return e.fail(t, n, ErrUnsupported, "the YAML text there could not be located exactly; edit it by hand")
}

// plan resolves every edit, checks that they do not collide and turns them
// into patches.
func (e *editor) plan(edits []yamlpatch.Edit) error {
	for i, ed := range edits {
		t, err := e.resolve(i, ed)
		if err != nil {
			return err
		}
		e.res = append(e.res, t)
	}
	if err := e.checkConflicts(); err != nil {
		return err
	}
	// Adds and removes are grouped by the collection they change; the
	// groups keep plan order.
	groups := map[*yaml.Node]*group{}
	var order []*group
	for _, t := range e.res {
		var c *yaml.Node
		var g *group
		switch t.edit.Op {
		case yamlpatch.OpReplace:
			if err := e.replace(t); err != nil {
				return err
			}
			continue
		case yamlpatch.OpRemove:
			c = t.parent
		case yamlpatch.OpAdd:
			c = t.node
		}
		if g = groups[c]; g == nil {
			g = &group{coll: c, removed: map[int]*target{}}
			groups[c] = g
			order = append(order, g)
		}
		switch t.edit.Op {
		case yamlpatch.OpRemove:
			g.removed[e.itemIndex(c, t.index)] = t
			g.removedChain = t.chain[:len(t.chain)-1]
		case yamlpatch.OpAdd:
			if t.edit.Key != "" {
				for _, a := range g.adds {
					if a.edit.Key == t.edit.Key {
						return e.fail(t, t.node, ErrExists, "%s is added twice by this plan", t.edit.Path.Child(t.edit.Key))
					}
				}
			}
			g.adds = append(g.adds, t)
			g.addChain = t.chain
		}
	}
	for _, g := range order {
		if err := e.applyGroup(g); err != nil {
			return err
		}
	}
	return nil
}

// itemIndex turns a position in Content into an item index.
func (e *editor) itemIndex(c *yaml.Node, contentIndex int) int {
	if c.Kind == yaml.MappingNode {
		return contentIndex / 2
	}
	return contentIndex
}

// resolve finds the node an edit's path names and checks the edit fits it.
func (e *editor) resolve(i int, ed yamlpatch.Edit) (*target, error) {
	t := &target{i: i, edit: ed, chain: []*yaml.Node{e.in.Root}, index: -1}
	switch ed.Op {
	case yamlpatch.OpReplace, yamlpatch.OpRemove, yamlpatch.OpAdd:
	default:
		return nil, e.fail(t, nil, ErrType, "unknown edit operation %d", int(ed.Op))
	}
	if ed.Op != yamlpatch.OpRemove {
		if err := checkValue(ed.Value, 0); err != nil {
			return nil, e.fail(t, nil, ErrType, "%v", err)
		}
	}
	if len(ed.Path) == 0 && ed.Op != yamlpatch.OpAdd {
		return nil, e.fail(t, nil, ErrType, "the frontmatter itself cannot be replaced or removed")
	}
	cur := e.in.Root
	for si, step := range ed.Path {
		here := ed.Path[:si]
		if err := e.checkPassable(t, cur, here); err != nil {
			return nil, err
		}
		if step.IsIndex {
			if cur.Kind != yaml.SequenceNode {
				return nil, e.fail(t, cur, ErrNotFound, "%s is %s, not a list", pathName(here), nodeKind(cur))
			}
			if step.Index < 0 || step.Index >= len(cur.Content) {
				return nil, e.fail(t, cur, ErrNotFound, "%s has %d items, so there is no item %d", pathName(here), len(cur.Content), step.Index)
			}
			t.parent, t.index = cur, step.Index
			cur = cur.Content[step.Index]
		} else {
			if cur.Kind != yaml.MappingNode {
				return nil, e.fail(t, cur, ErrNotFound, "%s is %s, not a mapping", pathName(here), nodeKind(cur))
			}
			at := -1
			for k := 0; k+1 < len(cur.Content); k += 2 {
				kn := cur.Content[k]
				if kn.Kind == yaml.ScalarNode && kn.Value == step.Key {
					if at >= 0 {
						return nil, e.fail(t, kn, ErrUnsupported, "%s has the key %q twice", pathName(here), step.Key)
					}
					at = k + 1
				}
			}
			if at < 0 {
				return nil, e.fail(t, cur, ErrNotFound, "%s has no key %q", pathName(here), step.Key)
			}
			t.parent, t.index = cur, at
			cur = cur.Content[at]
		}
		t.chain = append(t.chain, cur)
	}
	t.node = cur
	switch ed.Op {
	case yamlpatch.OpAdd:
		if err := e.checkPassable(t, cur, ed.Path); err != nil {
			return nil, err
		}
		switch {
		case ed.Key != "":
			if cur.Kind != yaml.MappingNode && !isNullNode(cur) {
				return nil, e.fail(t, cur, ErrType, "%s is %s; a key can only be added to a mapping", pathName(ed.Path), nodeKind(cur))
			}
			for k := 0; k+1 < len(cur.Content); k += 2 {
				if kn := cur.Content[k]; kn.Kind == yaml.ScalarNode && kn.Value == ed.Key {
					return nil, e.fail(t, kn, ErrExists, "%s already has the key %q", pathName(ed.Path), ed.Key)
				}
			}
		default:
			if cur.Kind != yaml.SequenceNode && !isNullNode(cur) {
				return nil, e.fail(t, cur, ErrType, "%s is %s; only a list can be appended to (a mapping needs a key)", pathName(ed.Path), nodeKind(cur))
			}
		}
	default:
		if t.parent == nil {
			return nil, e.fail(t, cur, ErrType, "the frontmatter itself cannot be replaced or removed")
		}
		if t.parent.Style&yaml.TaggedStyle != 0 {
			return nil, e.fail(t, t.parent, ErrUnsupported, "%s carries a YAML tag; edit it by hand", pathName(ed.Path[:len(ed.Path)-1]))
		}
		if n := findAnchor(cur, 0); n != nil {
			return nil, e.fail(t, n, ErrUnsupported, "%s holds the anchor &%s that aliases may refer to; edit it by hand", pathName(ed.Path), n.Anchor)
		}
		if t.parent.Kind == yaml.MappingNode {
			if k := t.parent.Content[t.index-1]; k.Kind != yaml.ScalarNode || k.Style&yaml.TaggedStyle != 0 || k.Anchor != "" {
				return nil, e.fail(t, k, ErrUnsupported, "the key of %s is not plain text; edit it by hand", pathName(ed.Path))
			}
		}
	}
	return t, nil
}

// checkPassable refuses to edit inside anchored, aliased or tagged nodes:
// a change there would also change, or break, what refers to them.
func (e *editor) checkPassable(t *target, n *yaml.Node, p yamlpatch.Path) error {
	switch {
	case n.Kind == yaml.AliasNode:
		return e.fail(t, n, ErrUnsupported, "%s is an alias (*%s); edit the anchored value by hand", pathName(p), n.Value)
	case n.Anchor != "":
		return e.fail(t, n, ErrUnsupported, "%s carries the anchor &%s; edit it by hand", pathName(p), n.Anchor)
	case n.Style&yaml.TaggedStyle != 0:
		return e.fail(t, n, ErrUnsupported, "%s carries the YAML tag %s; edit it by hand", pathName(p), n.Tag)
	}
	return nil
}

// findAnchor returns a node of n's subtree that carries an anchor.
func findAnchor(n *yaml.Node, depth int) *yaml.Node {
	if n.Anchor != "" {
		return n
	}
	if depth > 10000 {
		return n
	}
	for _, c := range n.Content {
		if a := findAnchor(c, depth+1); a != nil {
			return a
		}
	}
	return nil
}

func pathName(p yamlpatch.Path) string {
	if len(p) == 0 {
		return "the frontmatter"
	}
	return p.String()
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if isNullNode(n) {
		return "null"
	}
	return "a single value"
}

// checkConflicts refuses plans where one edit replaces or removes a node
// that another edit changes or reaches through.
func (e *editor) checkConflicts() error {
	killed := map[*yaml.Node]*target{}
	for _, t := range e.res {
		if t.edit.Op == yamlpatch.OpReplace || t.edit.Op == yamlpatch.OpRemove {
			if o := killed[t.node]; o != nil {
				return e.conflict(t, o)
			}
			killed[t.node] = t
		}
	}
	for _, t := range e.res {
		for _, n := range t.chain {
			if o := killed[n]; o != nil && o != t {
				return e.conflict(t, o)
			}
		}
	}
	return nil
}

func (e *editor) conflict(t, o *target) error {
	return e.fail(t, t.node, ErrConflict, "it overlaps edit %d (%s) of the same plan", o.i+1, o.edit)
}

// group gathers the adds and removes that change one collection.
type group struct {
	coll         *yaml.Node
	removed      map[int]*target // by item index
	adds         []*target
	addChain     []*yaml.Node
	removedChain []*yaml.Node
}

func (g *group) chain() []*yaml.Node {
	if g.addChain != nil {
		return g.addChain
	}
	return g.removedChain
}

func (g *group) first() *target {
	var f *target
	for _, t := range g.adds {
		if f == nil || t.i < f.i {
			f = t
		}
	}
	for _, t := range g.removed {
		if f == nil || t.i < f.i {
			f = t
		}
	}
	return f
}

// applyGroup turns the adds and removes of one collection into patches.
func (e *editor) applyGroup(g *group) error {
	c := g.coll
	t := g.first()
	chain := g.chain()
	depth := len(chain)
	n := 0
	if c.Kind == yaml.MappingNode {
		n = len(c.Content) / 2
	} else if c.Kind == yaml.SequenceNode {
		n = len(c.Content)
	}
	if isNullNode(c) || n == 0 || len(g.removed) == n {
		return e.rebuild(g, t, chain)
	}
	ci, err := e.coll(c, chain)
	if err != nil {
		return e.locateErr(t, c, err)
	}
	if c.Style&yaml.FlowStyle != 0 {
		return e.flowGroup(g, ci, depth)
	}
	return e.blockGroup(g, ci, depth)
}

// rebuild handles a null or empty collection, or one losing every item:
// the collection is replaced by one made of the added items.
func (e *editor) rebuild(g *group, t *target, chain []*yaml.Node) error {
	c := g.coll
	if len(chain) < 2 {
		return e.fail(t, c, ErrType, "the frontmatter cannot lose all of its sections")
	}
	parent := chain[len(chain)-2]
	index := -1
	for i, x := range parent.Content {
		if x == c && (parent.Kind != yaml.MappingNode || i%2 == 1) {
			index = i
		}
	}
	if index < 0 {
		return e.locateErr(t, c, errLocate)
	}
	isMap := c.Kind == yaml.MappingNode || (isNullNode(c) && len(g.adds) > 0 && g.adds[0].edit.Key != "")
	var v any
	if isMap {
		m := yamlpatch.Map{}
		for _, a := range g.adds {
			if a.edit.Key == "" {
				return e.fail(a, c, ErrType, "%s would be both a list and a mapping", pathName(a.edit.Path))
			}
			m = append(m, yamlpatch.KV{Key: a.edit.Key, Value: a.edit.Value})
		}
		v = m
	} else {
		flow := c.Kind != yaml.SequenceNode || c.Style&yaml.FlowStyle != 0
		items := make([]any, 0, len(g.adds))
		for _, a := range g.adds {
			if a.edit.Key != "" {
				return e.fail(a, c, ErrType, "%s would be both a list and a mapping", pathName(a.edit.Path))
			}
			if needsBlock(a.edit.Value) {
				flow = false
			}
			items = append(items, a.edit.Value)
		}
		if flow {
			v = yamlpatch.Flow(items)
		} else {
			v = items
		}
	}
	// The old items (even removed) and the analogous collections of
	// sibling items show how the new ones should look.
	return e.replaceWith(t, chain, parent, index, c, v, append(exemplar{c}, e.cousins(chain)...))
}

// cousins are the nodes analogous to chain's last node in the sibling
// items of its parent, nearest first: for atoms[3].depends_on, the
// depends_on of the atoms around atoms[3]; for atoms[3], the other atoms.
// They show how a new value should be written.
func (e *editor) cousins(chain []*yaml.Node) exemplar {
	if len(chain) < 2 {
		return nil
	}
	node, parent := chain[len(chain)-1], chain[len(chain)-2]
	if parent.Kind == yaml.SequenceNode {
		return nearest(parent.Content, node, func(n *yaml.Node) *yaml.Node { return n })
	}
	if parent.Kind != yaml.MappingNode || len(chain) < 3 {
		return nil
	}
	key := ""
	for i := 1; i < len(parent.Content); i += 2 {
		if parent.Content[i] == node {
			key = parent.Content[i-1].Value
		}
	}
	return e.keyCousins(chain[:len(chain)-1], key)
}

// keyCousins are the values of key in the mappings analogous to the one at
// the end of chain (its siblings), showing how a new value for key looks.
func (e *editor) keyCousins(chain []*yaml.Node, key string) exemplar {
	if len(chain) < 2 {
		return nil
	}
	m, parent := chain[len(chain)-1], chain[len(chain)-2]
	sibs := parent.Content
	if parent.Kind == yaml.MappingNode {
		sibs = values(parent)
	}
	return nearest(sibs, m, func(n *yaml.Node) *yaml.Node { return mapValue(n, key) })
}

// nearest applies f to the siblings of node in sibs, nearest first, and
// keeps up to maxExemplars results that are not nil.
func nearest(sibs []*yaml.Node, node *yaml.Node, f func(*yaml.Node) *yaml.Node) exemplar {
	at := slices.Index(sibs, node)
	var out exemplar
	for d := 1; len(out) < maxExemplars && d <= 4*maxExemplars && (at-d >= 0 || at+d < len(sibs)); d++ {
		for _, j := range []int{at - d, at + d} {
			if j >= 0 && j < len(sibs) && j != at {
				if v := f(sibs[j]); v != nil {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// mapValue is the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// collInfo describes a non-empty collection's items as text.
type collInfo struct {
	node *yaml.Node
	// owner is the line of the key or dash that holds the collection, -1
	// for the root; head comments are never looked for above it.
	owner int
	items []*item
}

// item is one mapping entry or sequence item as text.
type item struct {
	key, val *yaml.Node
	// start is the offset of the key or dash (for a flow item, of its
	// text); end is just past its value.
	start, end int
	// line and last are the lines of start and of the value's end.
	line, last  int
	lineStarted bool
	col         int
}

func (e *editor) coll(c *yaml.Node, chain []*yaml.Node) (*collInfo, error) {
	if ci := e.colls[c]; ci != nil {
		return ci, nil
	}
	ci := &collInfo{node: c, owner: -1}
	if c.Kind == yaml.MappingNode {
		ci.items = make([]*item, len(c.Content)/2)
	} else {
		ci.items = make([]*item, len(c.Content))
	}
	if len(chain) >= 2 {
		p := chain[len(chain)-2]
		// The owner is the key before c, or the dash of the item c is.
		if p.Kind == yaml.MappingNode {
			for i := 1; i < len(p.Content); i += 2 {
				if p.Content[i] == c {
					ci.owner = p.Content[i-1].Line - 1
				}
			}
		} else if p.Kind == yaml.SequenceNode && c.Style&yaml.FlowStyle == 0 {
			start, err := e.text.nodeStart(c)
			if err != nil {
				return nil, err
			}
			dash, err := e.dashBefore(p, start, c)
			if err != nil {
				return nil, err
			}
			ci.owner = e.text.lineOf(dash)
		}
	}
	e.colls[c] = ci
	return ci, nil
}

// item returns item i of the collection, computing it on first use.
func (e *editor) item(ci *collInfo, i int) (*item, error) {
	if it := ci.items[i]; it != nil {
		return it, nil
	}
	c := ci.node
	flow := c.Style&yaml.FlowStyle != 0
	it := &item{}
	var err error
	if c.Kind == yaml.MappingNode {
		it.key, it.val = c.Content[2*i], c.Content[2*i+1]
		if it.start, err = e.text.nodeStart(it.key); err != nil {
			return nil, err
		}
		if e.explicitKey(it.start) {
			return nil, fmt.Errorf("%w: an explicit key (?)", ErrUnsupported)
		}
		if it.end, err = e.text.nodeEnd(it.val, c.Column-1, flow); err != nil {
			return nil, err
		}
		if it.end < it.start {
			return nil, errLocate
		}
	} else {
		it.val = c.Content[i]
		vs, err := e.text.nodeStart(it.val)
		if err != nil {
			return nil, err
		}
		it.start = vs
		if !flow {
			if it.start, err = e.dashBefore(c, vs, it.val); err != nil {
				return nil, err
			}
		}
		if it.end, err = e.text.nodeEnd(it.val, c.Column-1, flow); err != nil {
			return nil, err
		}
	}
	it.line = e.text.lineOf(it.start)
	it.last = e.text.lineOf(max(it.start, it.end-1))
	it.lineStarted = e.text.onlySpacesBefore(it.start)
	it.col = e.text.column(it.start)
	ci.items[i] = it
	return it, nil
}

// explicitKey reports a '?' before a key on its line.
func (e *editor) explicitKey(keyStart int) bool {
	d := e.text.data
	for p := keyStart - 1; p >= e.text.lines[e.text.lineOf(keyStart)]; p-- {
		switch d[p] {
		case ' ', '\t':
			continue
		case '?':
			return true
		}
		return false
	}
	return false
}

// dashBefore finds the '-' of the block sequence item whose value starts
// at vs: on the same line, or alone on an earlier line.
func (e *editor) dashBefore(seq *yaml.Node, vs int, val *yaml.Node) (int, error) {
	t := e.text
	d := t.data
	col := seq.Column - 1
	if isEmptyNull(val) {
		if vs > t.start && d[vs-1] == '-' {
			return vs - 1, nil
		}
		return 0, errLocate
	}
	ls := t.lines[t.lineOf(vs)]
	for p := vs - 1; p >= ls; p-- {
		if d[p] == ' ' || d[p] == '\t' {
			continue
		}
		if d[p] == '-' && t.column(p) == col {
			return p, nil
		}
		return 0, errLocate
	}
	// The dash stands alone on an earlier line.
	for l := t.lineOf(vs) - 1; l >= 0; l-- {
		if t.isBlank(l) || t.isComment(l) {
			continue
		}
		s := t.trimmed(l)
		if len(s) >= 1 && s[0] == '-' && (len(s) == 1 || s[1] == ' ' || s[1] == '\t') && t.indent(l) == col {
			rest := bytes.TrimLeft(s[1:], " \t")
			if len(rest) == 0 || rest[0] == '#' {
				return t.lines[l] + col, nil
			}
		}
		break
	}
	return 0, errLocate
}

// headLine is the first line of the comments right above a line-started
// item at its own indentation (its head comment), or the item's line.
func (e *editor) headLine(ci *collInfo, i int) (int, error) {
	it, err := e.item(ci, i)
	if err != nil {
		return 0, err
	}
	if !it.lineStarted {
		return it.line, nil
	}
	floor := ci.owner
	if i > 0 {
		prev, err := e.item(ci, i-1)
		if err != nil {
			return 0, err
		}
		floor = prev.last
	}
	l := it.line
	for l-1 > floor && e.text.isComment(l-1) && e.text.indent(l-1) == it.col {
		l--
	}
	return l, nil
}

// footLine is the last line of an item with the comment lines right below
// it that are indented deeper than it (its foot comment).
func (e *editor) footLine(ci *collInfo, i int) (int, error) {
	it, err := e.item(ci, i)
	if err != nil {
		return 0, err
	}
	ceil := e.text.nlines()
	if i+1 < len(ci.items) {
		next, err := e.item(ci, i+1)
		if err != nil {
			return 0, err
		}
		ceil = next.line
	}
	l := it.last
	for l+1 < ceil && e.text.isComment(l+1) && e.text.indent(l+1) > it.col {
		l++
	}
	return l, nil
}

// blockGroup patches a block collection that keeps some of its items.
func (e *editor) blockGroup(g *group, ci *collInfo, depth int) error {
	n := len(ci.items)
	t := e.text
	for i := 0; i < n; i++ {
		if g.removed[i] == nil {
			continue
		}
		j := i
		for j+1 < n && g.removed[j+1] != nil {
			j++
		}
		rt := g.removed[i]
		first, err := e.item(ci, i)
		if err != nil {
			return e.locateErr(rt, rt.node, err)
		}
		if !first.lineStarted {
			// The first entry of a compact item ("- id: A1"): the next
			// entry moves up into its place.
			next, err := e.item(ci, j+1)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			e.add(patch{a: first.start, b: next.start, depth: depth, edit: rt.i})
			i = j
			continue
		}
		from, err := e.headLine(ci, i)
		if err != nil {
			return e.locateErr(rt, rt.node, err)
		}
		to, err := e.footLine(ci, j)
		if err != nil {
			return e.locateErr(rt, rt.node, err)
		}
		if j+1 < n {
			// Take the blank lines that separated it from the next item.
			next, err := e.headLine(ci, j+1)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			for to+1 < next && t.isBlank(to+1) {
				to++
			}
		} else if i > 0 {
			// The last item: take the blank lines above it instead.
			prevFoot, err := e.footLine(ci, i-1)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			for from-1 > prevFoot && t.isBlank(from-1) {
				from--
			}
		}
		e.add(patch{a: t.lineStart(from), b: t.lineStart(to + 1), depth: depth, edit: rt.i})
		i = j
	}
	if len(g.adds) == 0 {
		return nil
	}
	last, err := e.item(ci, n-1)
	if err != nil {
		return e.locateErr(g.adds[0], g.coll, err)
	}
	foot, err := e.footLine(ci, n-1)
	if err != nil {
		return e.locateErr(g.adds[0], g.coll, err)
	}
	// Copy the blank lines that separate the last two items.
	sep := 0
	if n >= 2 {
		pf, err := e.footLine(ci, n-2)
		if err != nil {
			return e.locateErr(g.adds[0], g.coll, err)
		}
		lh, err := e.headLine(ci, n-1)
		if err != nil {
			return e.locateErr(g.adds[0], g.coll, err)
		}
		for l := pf + 1; l < lh && sep < 2; l++ {
			if t.isBlank(l) {
				sep++
			}
		}
	}
	var b strings.Builder
	for _, a := range g.adds {
		b.WriteString(strings.Repeat("\n", sep))
		if g.coll.Kind == yaml.MappingNode {
			ex := e.keyCousins(a.chain, a.edit.Key)
			if needsBlock(a.edit.Value) {
				ex = append(ex, values(g.coll)...)
			}
			if err := e.writeEntry(&b, a.edit.Key, a.edit.Value, last.col, ex, false); err != nil {
				return e.fail(a, g.coll, ErrType, "%v", err)
			}
			continue
		}
		gap := 2
		if last.val != nil && !isEmptyNull(last.val) {
			vs, err := t.nodeStart(last.val)
			if err == nil && t.lineOf(vs) == last.line {
				gap = t.column(vs) - last.col
			}
		}
		ex := e.itemExemplar(g.coll)
		if err := e.writeItem(&b, a.edit.Value, last.col, gap, ex, false); err != nil {
			return e.fail(a, g.coll, ErrType, "%v", err)
		}
	}
	e.add(patch{a: t.lineStart(foot + 1), b: t.lineStart(foot + 1), text: b.String(), depth: depth, edit: g.adds[0].i})
	return nil
}

// itemExemplar is the items of a sequence, last first.
func (e *editor) itemExemplar(seq *yaml.Node) exemplar {
	var out exemplar
	for i := len(seq.Content) - 1; i >= 0 && len(out) < maxExemplars; i-- {
		out = append(out, seq.Content[i])
	}
	return out
}

// flowGroup patches a flow collection that keeps some of its items.
func (e *editor) flowGroup(g *group, ci *collInfo, depth int) error {
	n := len(ci.items)
	tail := e.flowTail(g.chain())
	for i := 0; i < n; i++ {
		if g.removed[i] == nil {
			continue
		}
		j := i
		for j+1 < n && g.removed[j+1] != nil {
			j++
		}
		rt := g.removed[i]
		var a, b int
		if j+1 < n {
			first, err := e.item(ci, i)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			next, err := e.item(ci, j+1)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			a, b = first.start, next.start
		} else {
			prev, err := e.item(ci, i-1)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			last, err := e.item(ci, j)
			if err != nil {
				return e.locateErr(rt, rt.node, err)
			}
			a, b = prev.end, last.end
		}
		e.add(patch{a: a, b: b, depth: depth, edit: rt.i, align: true, tail: tail})
		i = j
	}
	if len(g.adds) == 0 {
		return nil
	}
	last, err := e.item(ci, n-1)
	if err != nil {
		return e.locateErr(g.adds[0], g.coll, err)
	}
	sep := ", "
	if n >= 2 {
		prev, err := e.item(ci, n-2)
		if err == nil {
			s := string(e.text.data[prev.end:last.start])
			if strings.Trim(s, " \t\r\n") == "," {
				sep = strings.ReplaceAll(s, "\r\n", "\n")
			}
		}
	}
	var b strings.Builder
	for _, a := range g.adds {
		if needsBlock(a.edit.Value) {
			return e.fail(a, g.coll, ErrType, "%s is written in flow style ([…] or {…}) and cannot hold a block value", pathName(a.edit.Path))
		}
		var ex exemplar
		if g.coll.Kind == yaml.SequenceNode {
			ex = e.itemExemplar(g.coll)
		} else {
			ex = e.keyCousins(a.chain, a.edit.Key)
		}
		s, err := e.inline(a.edit.Value, ex, true)
		if err != nil {
			return e.fail(a, g.coll, ErrType, "%v", err)
		}
		b.WriteString(sep)
		if g.coll.Kind == yaml.MappingNode {
			b.WriteString(e.keyText(a.edit.Key) + ": ")
		}
		b.WriteString(s)
	}
	e.add(patch{a: last.end, b: last.end, text: b.String(), depth: depth, edit: g.adds[0].i, align: true, tail: tail})
	return nil
}

// flowTail is where the outermost flow collection around the end of chain
// ends: a comment after it keeps its column when an item inside changes.
// It is 0 when that cannot be found.
func (e *editor) flowTail(chain []*yaml.Node) int {
	j := len(chain) - 1
	for j > 0 && chain[j-1].Style&yaml.FlowStyle != 0 {
		j--
	}
	if chain[j].Style&yaml.FlowStyle == 0 {
		return 0
	}
	end, err := e.text.nodeEnd(chain[j], 0, true)
	if err != nil {
		return 0
	}
	return end
}

// add records a patch, converting its line breaks to the file's.
func (e *editor) add(p patch) {
	if e.nl != "\n" && strings.Contains(p.text, "\n") {
		p.text = strings.ReplaceAll(p.text, "\n", e.nl)
	}
	e.patches = append(e.patches, p)
}

func sortPatches(ps []patch) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].a != ps[j].a {
			return ps[i].a < ps[j].a
		}
		if ps[i].b != ps[j].b {
			return ps[i].b < ps[j].b
		}
		return ps[i].depth > ps[j].depth
	})
}

// splice checks that the patches do not overlap and applies them.
func (e *editor) splice() ([]byte, error) {
	ps := e.patches
	sortPatches(ps)
	for i, last := 1, 0; i < len(ps); i++ {
		if ps[last].b > ps[i].a {
			return nil, e.conflict(e.res[ps[i].edit], e.res[ps[last].edit])
		}
		if ps[i].b >= ps[last].b {
			last = i
		}
	}
	e.alignComments()
	ps = e.patches
	sortPatches(ps)
	data := e.in.Data
	size := len(data)
	for _, p := range ps {
		size += len(p.text) - (p.b - p.a)
	}
	out := make([]byte, 0, size+2)
	prev := 0
	for i, p := range ps {
		if p.a < e.text.start || p.b > e.text.end {
			return nil, e.locateErr(e.res[p.edit], nil, errLocate)
		}
		out = append(out, data[prev:p.a]...)
		out = append(out, p.text...)
		prev = p.b
		// yaml.v3 reads "[]#" as [] and a comment; "null#" would be text.
		if p.b < len(data) && data[p.b] == '#' && (i+1 == len(ps) || ps[i+1].a > p.b) && len(out) > 0 {
			if c := out[len(out)-1]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				out = append(out, ' ')
			}
		}
	}
	out = append(out, data[prev:]...)
	// The closing '---' must stay at the start of a line, which for the
	// splitter means after a \n (yaml.v3 also breaks lines at a lone \r,
	// NEL, LS and PS, so a deleted last line can expose one of those).
	if end := len(out) - (len(data) - e.text.end); end > e.text.start && out[end-1] != '\n' {
		nl := e.nl
		if out[end-1] == '\r' {
			nl = "\n"
		}
		out = append(out[:end], append([]byte(nl), out[end:]...)...)
	}
	return out, nil
}

// alignComments keeps a trailing comment in its column when one-line
// patches change the length of what precedes it ("status: pending   # …"
// → "status: in_progress # …"), if it was set apart by two or more spaces.
func (e *editor) alignComments() {
	t := e.text
	byLine := map[int][]int{}
	for i, p := range e.patches {
		if e.wholeLines(p) {
			continue
		}
		for l := t.lineOf(p.a); l <= t.lineOf(max(p.a, p.b-1)); l++ {
			byLine[l] = append(byLine[l], i)
		}
	}
	var extra []patch
	for l, idx := range byLine {
		tail, delta, ok := 0, 0, true
		for _, i := range idx {
			p := e.patches[i]
			if !p.align || strings.ContainsAny(p.text, "\r\n") || t.lineOf(p.a) != l || t.lineOf(max(p.a, p.b-1)) != l || p.b > t.lineEnd(l) {
				ok = false
				break
			}
			tl := p.tail
			if tl < p.b {
				tl = p.b
			}
			tail = max(tail, tl)
			delta += utf8.RuneCountInString(p.text) - utf8.RuneCount(t.data[p.a:p.b])
		}
		if !ok || delta == 0 {
			continue
		}
		end := t.lineEnd(l)
		pad := 0
		for tail+pad < end && t.data[tail+pad] == ' ' {
			pad++
		}
		if pad < 2 || tail+pad >= end || t.data[tail+pad] != '#' {
			continue
		}
		if newPad := max(1, pad-delta); newPad != pad {
			extra = append(extra, patch{a: tail, b: tail + pad, text: strings.Repeat(" ", newPad), edit: e.patches[idx[0]].edit})
		}
	}
	e.patches = append(e.patches, extra...)
}

// wholeLines reports a patch that removes or inserts whole lines, which
// moves no column on the lines around it.
func (e *editor) wholeLines(p patch) bool {
	t := e.text
	atStart := func(off int) bool { return off == t.end || t.lines[t.lineOf(off)] == off }
	return atStart(p.a) && atStart(p.b) && (p.text == "" || strings.HasSuffix(p.text, "\n"))
}
