package statefile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/textdiff"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// gnode is a plain tree of decoded YAML values: what a reader of the file
// sees, regardless of how it is written. The reference applier below edits
// it the simple way, to say what ApplyEdits' output must decode to.
type gnode struct {
	kind byte // 'm' mapping, 's' list, 'v' scalar
	keys []string
	kids []*gnode
	val  any // nil, bool, int64, float64, string, tagged
	gone bool
}

// tagged is a scalar of another type (a timestamp written unquoted, say):
// never equal to a string.
type tagged struct{ tag, value string }

func fromYAML(n *yaml.Node) *gnode {
	budget := 100000
	var conv func(n *yaml.Node, depth int) *gnode
	conv = func(n *yaml.Node, depth int) *gnode {
		for n.Kind == yaml.AliasNode && budget > 0 {
			budget--
			n = n.Alias
		}
		if depth > 300 || budget <= 0 {
			return &gnode{kind: 'v', val: tagged{"!deep", ""}}
		}
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return &gnode{kind: 'v'}
			}
			return conv(n.Content[0], depth)
		case yaml.MappingNode:
			g := &gnode{kind: 'm'}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				for k.Kind == yaml.AliasNode && k.Alias != nil {
					k = k.Alias
				}
				g.keys = append(g.keys, k.Value)
				g.kids = append(g.kids, conv(n.Content[i+1], depth+1))
			}
			return g
		case yaml.SequenceNode:
			g := &gnode{kind: 's'}
			for _, c := range n.Content {
				g.kids = append(g.kids, conv(c, depth+1))
			}
			return g
		}
		g := &gnode{kind: 'v'}
		switch n.ShortTag() {
		case "!!null":
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				g.val = b
			} else {
				g.val = tagged{"!!bool", n.Value}
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				g.val = i
			} else {
				g.val = tagged{"!!int", n.Value}
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil {
				g.val = f
			} else {
				g.val = tagged{"!!float", n.Value}
			}
		case "!!str":
			g.val = n.Value
		default:
			g.val = tagged{n.ShortTag(), n.Value}
		}
		return g
	}
	return conv(n, 0)
}

func fromValue(v any) *gnode {
	switch x := v.(type) {
	case model.Map:
		g := &gnode{kind: 'm'}
		for _, kv := range x {
			g.keys = append(g.keys, kv.Key)
			g.kids = append(g.kids, fromValue(kv.Value))
		}
		return g
	case model.Flow:
		return fromValue([]any(x))
	case []any:
		g := &gnode{kind: 's'}
		for _, c := range x {
			g.kids = append(g.kids, fromValue(c))
		}
		return g
	case int:
		return &gnode{kind: 'v', val: int64(x)}
	case int64:
		return &gnode{kind: 'v', val: x}
	case float64:
		return &gnode{kind: 'v', val: x}
	}
	return &gnode{kind: 'v', val: v}
}

// expectAfter applies edits to the decoded tree of root the plain way: all
// paths resolved first, against the original.
func expectAfter(root *yaml.Node, edits []model.Edit) (*gnode, error) {
	g := fromYAML(root)
	type slot struct {
		parent *gnode
		index  int
		node   *gnode
	}
	slots := make([]slot, len(edits))
	for i, ed := range edits {
		cur := g
		var s slot
		for _, st := range ed.Path {
			s.parent = cur
			if st.IsIndex {
				if cur.kind != 's' || st.Index < 0 || st.Index >= len(cur.kids) {
					return nil, fmt.Errorf("edit %d: no %s", i, ed.Path)
				}
				s.index = st.Index
			} else {
				at := -1
				for j, k := range cur.keys {
					if k == st.Key && cur.kind == 'm' {
						at = j
					}
				}
				if at < 0 {
					return nil, fmt.Errorf("edit %d: no %s", i, ed.Path)
				}
				s.index = at
			}
			cur = cur.kids[s.index]
		}
		s.node = cur
		slots[i] = s
	}
	for i, ed := range edits {
		s := slots[i]
		switch ed.Op {
		case model.OpReplace:
			nv := fromValue(ed.Value)
			*s.node = *nv
		case model.OpRemove:
			s.node.gone = true
		case model.OpAdd:
			n := s.node
			if n.kind == 'v' {
				if ed.Key != "" {
					n.kind = 'm'
				} else {
					n.kind = 's'
				}
			}
			if ed.Key != "" {
				n.keys = append(n.keys, ed.Key)
			}
			n.kids = append(n.kids, fromValue(ed.Value))
		}
	}
	return g, nil
}

// canonical renders a tree (a *gnode or a *yaml.Node) with types, one
// value per line, for comparison and readable failures.
func canonical(x any) string {
	g, ok := x.(*gnode)
	if !ok {
		g = fromYAML(x.(*yaml.Node))
	}
	var b strings.Builder
	var walk func(g *gnode, indent string)
	walk = func(g *gnode, indent string) {
		switch g.kind {
		case 'm':
			for i, k := range g.keys {
				if g.kids[i].gone {
					continue
				}
				b.WriteString(indent + strconv.Quote(k) + ":")
				if g.kids[i].kind == 'v' {
					b.WriteString(" " + scalarString(g.kids[i].val) + "\n")
					continue
				}
				b.WriteString(" " + string(g.kids[i].kind) + "\n")
				walk(g.kids[i], indent+"  ")
			}
		case 's':
			for _, c := range g.kids {
				if c.gone {
					continue
				}
				if c.kind == 'v' {
					b.WriteString(indent + "- " + scalarString(c.val) + "\n")
					continue
				}
				b.WriteString(indent + "- " + string(c.kind) + "\n")
				walk(c, indent+"  ")
			}
		default:
			b.WriteString(indent + scalarString(g.val) + "\n")
		}
	}
	walk(g, "")
	return b.String()
}

func scalarString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "str " + strconv.Quote(x)
	case float64:
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case tagged:
		return "tag " + x.tag + " " + strconv.Quote(x.value)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// diffOp is one line of a diff: ' ' kept, '-' only in the old text, '+'
// only in the new; old is the line's index in the old text.
type diffOp struct {
	op   byte
	text string
	old  int
}

// diffLines diffs two line lists with textdiff's minimal diff, a line
// per op.
func diffLines(a, b []string) []diffOp {
	var out []diffOp
	for _, o := range textdiff.Diff(a, b) {
		switch o.Kind {
		case textdiff.Equal:
			for i := o.A0; i < o.A1; i++ {
				out = append(out, diffOp{' ', a[i], i})
			}
		case textdiff.Delete:
			for i := o.A0; i < o.A1; i++ {
				out = append(out, diffOp{'-', a[i], i})
			}
		case textdiff.Insert:
			for j := o.B0; j < o.B1; j++ {
				out = append(out, diffOp{'+', b[j], o.A0})
			}
		}
	}
	return out
}

// targetedLines says which lines of the original file the edits may
// change: for each edited node, its lines from its key or dash to the line
// before whatever follows it, with the blank and comment lines around; for
// an add, the lines of the collection's last item and of its key.
func targetedLines(doc *Document, edits []model.Edit) map[int]bool {
	if doc.Root == nil {
		if tree, err := parseTree(doc.Data); err == nil {
			doc = tree
		}
	}
	lines := yamlLines(doc.FM.YAML(doc.Data))
	off := 0 // node lines count YAML lines, as yamlLines does
	// Document order of node start lines, to find where a subtree ends.
	type span struct{ first, next int }
	spans := map[*yaml.Node]span{}
	var order []*yaml.Node
	var walk func(n *yaml.Node, keyLine int)
	walk = func(n *yaml.Node, keyLine int) {
		order = append(order, n)
		first := n.Line
		if keyLine > 0 {
			first = keyLine
		}
		spans[n] = span{first: first}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Line)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, 0)
			}
		}
	}
	walk(doc.Root, 0)
	// next: the first line of the next node that is not inside n.
	endLine := len(lines) + 1
	var fill func(n *yaml.Node, after int)
	fill = func(n *yaml.Node, after int) {
		s := spans[n]
		s.next = after
		spans[n] = s
		kids := []*yaml.Node{}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				kids = append(kids, n.Content[i])
			}
		case yaml.SequenceNode:
			kids = n.Content
		}
		for i, k := range kids {
			a := after
			if i+1 < len(kids) {
				a = spans[kids[i+1]].first
			}
			fill(k, a)
		}
	}
	fill(doc.Root, endLine)
	out := map[int]bool{}
	mark := func(n *yaml.Node, extra int) {
		s := spans[n]
		lo, hi := s.first+off, s.next+off-1+extra
		if hi < lo {
			hi = lo
		}
		// The dash of an item may sit a line above its value.
		lo--
		for lo > 1 && lo-2 < len(lines) {
			t := strings.TrimSpace(lines[lo-2])
			if t != "" && t[0] != '#' {
				break
			}
			lo--
		}
		for l := lo; l <= hi; l++ {
			out[l] = true
		}
	}
	for _, ed := range edits {
		cur := doc.Root
		chain := []*yaml.Node{cur}
		for _, st := range ed.Path {
			if st.IsIndex {
				if cur.Kind != yaml.SequenceNode || st.Index < 0 || st.Index >= len(cur.Content) {
					break
				}
				cur = cur.Content[st.Index]
			} else {
				var nx *yaml.Node
				for i := 0; i+1 < len(cur.Content); i += 2 {
					if cur.Content[i].Value == st.Key {
						nx = cur.Content[i+1]
					}
				}
				if nx == nil {
					break
				}
				cur = nx
			}
			chain = append(chain, cur)
		}
		if ed.Op != model.OpAdd {
			// Removing the first entry of "- id: A1" moves the next up;
			// removing the last item turns "key:" into "key: []".
			mark(cur, 1)
			if len(chain) >= 2 {
				out[spans[chain[len(chain)-2]].first+off] = true
			}
			continue
		}
		// Adds change the key line of the collection and the lines of its
		// last item (where the new ones follow).
		s := spans[cur]
		out[s.first+off] = true
		if cur.Kind != yaml.MappingNode && cur.Kind != yaml.SequenceNode || len(cur.Content) == 0 || cur.Style&yaml.FlowStyle != 0 {
			mark(cur, 0)
			continue
		}
		mark(cur.Content[len(cur.Content)-1], 0)
	}
	return out
}

// yamlLines splits YAML text into lines, breaks included, where yaml.v3
// breaks them: \r\n, \n, a lone \r, NEL, LS and PS.
func yamlLines(b []byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(b); {
		n := yamltext.BreakLen(b, i)
		if n == 0 {
			i++
			continue
		}
		i += n
		out = append(out, string(b[start:i]))
		start = i
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

// untouchedKept checks that every line of the original's YAML outside the
// targeted lines is in the output's, unchanged and in order: those lines
// must form a subsequence of the output's lines. (checkEdited checks the
// delimiters and the body.)
func untouchedKept(doc *Document, edits []model.Edit, out []byte) error {
	fm, err := SplitFrontmatter(out)
	if err != nil {
		return err
	}
	a := yamlLines(doc.FM.YAML(doc.Data))
	b := yamlLines(fm.YAML(out))
	targeted := targetedLines(doc, edits)
	j := 0
	for i, line := range a {
		if targeted[i+1] {
			continue
		}
		for j < len(b) && b[j] != line {
			j++
		}
		if j == len(b) {
			return fmt.Errorf("YAML line %d, which no edit targeted, is missing or out of order: %q", i+1, line)
		}
		j++
	}
	return nil
}
