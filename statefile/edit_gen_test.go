package statefile

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/model"
	"go.yaml.in/yaml/v3"
)

// layout is a way to write a state file, as the loop's tools or people do.
type layout struct {
	name      string
	col0      bool // lists at their key's column ("atoms:\n- id: A1")
	blockDeps bool // depends_on as a block list
	crlf      bool
	bom       bool
	comments  bool // head, foot and aligned trailing comments, banners
	blanks    bool // blank lines between atoms and sections
	quote     byte // 0 plain where possible, '"' or '\''
	indent    int  // mapping indentation: 2 or 4
	unknown   bool // unknown fields at every level
}

var layouts = []layout{
	{name: "template", quote: '"', indent: 2, comments: true, blanks: true},
	{name: "template-bare", quote: '"', indent: 2},
	{name: "col0-plain", col0: true, blockDeps: true, indent: 2},
	{name: "col0-single", col0: true, quote: '\'', indent: 2, comments: true, unknown: true},
	{name: "block-deps", blockDeps: true, quote: '"', indent: 2, comments: true},
	{name: "crlf", crlf: true, quote: '"', indent: 2, comments: true, blanks: true},
	{name: "indent4", indent: 4, quote: '"', unknown: true, blanks: true},
	{name: "bom-crlf-col0", bom: true, crlf: true, col0: true, indent: 2, comments: true},
}

// templateLayouts are the loop's template, with and without its trailing
// comments (which the loop's line-based tools read as part of the values).
var templateLayouts = []layout{layouts[0], layouts[1]}

var sentences = []string{
	"Set up the database", "Write the migration", "Add the login endpoint", "Hash passwords with bcrypt",
	"Document the API", "Refactor the session store", "Measure latency", "Cache the lookups",
	"Wire up the CLI", "Handle retries",
}

// genState writes a valid state file with n atoms.
func genState(r *rand.Rand, n int, lay layout) []byte {
	var b strings.Builder
	u := strings.Repeat(" ", lay.indent)
	gap := 2
	if lay.indent == 4 {
		gap = 4
	}
	// Quoted with the standard library rather than the editor's own
	// quoting, which is what these files test; for the printable ASCII
	// written here the two agree byte for byte.
	q := func(s string) string {
		switch {
		case lay.quote == '\'':
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		case lay.quote == 0 && isPlainSentence(s):
			return s
		}
		return strconv.Quote(s)
	}
	blank := func() {
		if lay.blanks {
			b.WriteString("\n")
		}
	}
	banner := func(s string) {
		if lay.comments {
			b.WriteString("# === " + s + " ===\n")
		}
	}
	comment := func(line, c string) string {
		if !lay.comments || r.Intn(3) != 0 {
			return line + "\n"
		}
		pad := 44 - len(line)
		if pad < 2 {
			pad = 2
		}
		return line + strings.Repeat(" ", pad) + "# " + c + "\n"
	}
	// dash: the indentation of list items under a key at col.
	dash := func(col int) string {
		if lay.col0 {
			return strings.Repeat(" ", col)
		}
		return strings.Repeat(" ", col+lay.indent)
	}
	item := "-" + strings.Repeat(" ", gap-1)

	b.WriteString("---\n")
	banner("Objective")
	b.WriteString("objective:\n")
	b.WriteString(u + "goal: " + q("Ship "+sentences[r.Intn(len(sentences))]) + "\n")
	b.WriteString(u + "base_case:\n")
	b.WriteString(u + u + "type: command\n")
	b.WriteString(u + u + "value: " + q("make test") + "\n")
	b.WriteString(u + "background_intent: " + q("Users asked for it") + "\n")
	b.WriteString(u + "deliverables: " + q("The feature and its tests") + "\n")
	b.WriteString(u + "definition_of_done: " + q("All tests pass") + "\n")
	if lay.unknown {
		b.WriteString(u + "owner: alice\n")
	}
	b.WriteString(u + "constraints:\n")
	b.WriteString(comment(u+u+"max_iterations: 20", "hard stop"))
	b.WriteString(u + u + "max_parallel_agents: 3\n")
	b.WriteString(u + u + "max_stall_count: 3\n")
	blank()
	banner("Execution Control")
	b.WriteString("control:\n")
	b.WriteString(comment(u+"status: running", "pending | running | stopped | completed"))
	fmt.Fprintf(&b, "%siteration: %d\n", u, r.Intn(20))
	b.WriteString(u + "stall_count: 0\n")
	fmt.Fprintf(&b, "%sprev_pending_count: %d\n", u, r.Intn(n+1))
	b.WriteString(u + "stop_requested: false\n")
	if r.Intn(2) == 0 {
		b.WriteString(u + "stop_reason: null\n")
	} else {
		b.WriteString(u + "stop_reason:\n")
	}
	b.WriteString(u + "redirect_requested: false\n")
	if lay.unknown {
		b.WriteString(u + "heartbeat: " + q("2025-01-15T09:00:00Z") + "\n")
	}
	blank()
	banner("Work Graph")
	b.WriteString("atoms:\n")
	statuses := []string{"pending", "in_progress", "resolved"}
	resolved := []int{}
	d := dash(0)
	f := d + strings.Repeat(" ", gap)
	for i := 1; i <= n; i++ {
		if i > 1 && lay.blanks {
			b.WriteString("\n")
		}
		if lay.comments && r.Intn(6) == 0 {
			fmt.Fprintf(&b, "%s# about A%d\n", d, i)
		}
		fmt.Fprintf(&b, "%s%sid: A%d\n", d, item, i)
		b.WriteString(f + "description: " + q(sentences[r.Intn(len(sentences))]) + "\n")
		st := statuses[r.Intn(3)]
		if st == "resolved" {
			resolved = append(resolved, i)
		}
		b.WriteString(comment(f+"status: "+st, "pending | in_progress | resolved"))
		var deps []string
		for j := 1; j < i && len(deps) < 3; j++ {
			if r.Intn(i) < 2 {
				deps = append(deps, "A"+strconv.Itoa(j))
			}
		}
		switch {
		case len(deps) == 0:
			b.WriteString(f + "depends_on: []\n")
		case lay.blockDeps:
			b.WriteString(f + "depends_on:\n")
			for _, dd := range deps {
				b.WriteString(dash(len(f)) + item + dd + "\n")
			}
		default:
			b.WriteString(comment(f+"depends_on: ["+strings.Join(deps, ", ")+"]", "AND dependency"))
		}
		if r.Intn(8) == 0 {
			b.WriteString(f + "or_group: g1\n")
		}
		if lay.unknown && r.Intn(3) == 0 {
			fmt.Fprintf(&b, "%sestimate: %d\n", f, r.Intn(8))
		}
		if lay.comments && r.Intn(8) == 0 {
			fmt.Fprintf(&b, "%s# A%d needs review\n", f, i)
		}
	}
	blank()
	banner("Decompositions")
	if n >= 3 && r.Intn(2) == 0 {
		b.WriteString("decompositions:\n")
		b.WriteString(dash(0) + item + "parent: A1\n")
		b.WriteString(f + "children: [A2, A3]\n")
		b.WriteString(f + "reason: " + q("Split it") + "\n")
	} else {
		b.WriteString("decompositions: []\n")
	}
	blank()
	if r.Intn(2) == 0 {
		b.WriteString("or_groups:\n" + u + "g1:\n")
		b.WriteString(u + u + "choices: [A1]\n" + u + u + "selected: A1\n")
		b.WriteString(comment(u+u+"failed: []", "for backtracking"))
	} else {
		b.WriteString("or_groups: {}\n")
	}
	blank()
	banner("Bindings")
	if len(resolved) == 0 {
		b.WriteString("bindings: {}\n")
	} else {
		b.WriteString("bindings:\n")
		for _, i := range resolved {
			fmt.Fprintf(&b, "%sA%d:\n", u, i)
			b.WriteString(u + u + "summary: " + q("Done: "+sentences[r.Intn(len(sentences))]) + "\n")
			fmt.Fprintf(&b, "%s%sartifacts: [%s]\n", u, u, q(fmt.Sprintf("src/a%d.go", i)))
		}
	}
	blank()
	if r.Intn(2) == 0 {
		b.WriteString("trail:\n")
		b.WriteString(dash(0) + item + "or_group: g1\n" + f + "selected: A1\n")
		b.WriteString(f + "reason: " + q("It is simpler") + "\n" + f + "timestamp: " + q("2025-01-15T10:00:00Z") + "\n")
	} else {
		b.WriteString("trail: []\n")
	}
	blank()
	banner("Corrections")
	b.WriteString("corrections: []\n")
	if lay.unknown {
		b.WriteString("x_metrics:\n" + u + "tokens: 1200\n" + u + "runs:\n" + dash(len(u)) + item + "1\n")
	}
	b.WriteString("---\n\n# Original Prompt\n\nDo it.\n\n---\n\nMore body after a rule.\n")
	s := b.String()
	if lay.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	if lay.bom {
		s = "\ufeff" + s
	}
	return []byte(s)
}

// isPlainSentence: letters, digits and single spaces, starting with a letter.
func isPlainSentence(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') || strings.HasSuffix(s, " ") {
		return false
	}
	for _, c := range s {
		if !(c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// trickyStrings are values that test quoting.
var trickyStrings = []string{
	"plain words", "A7", "in_progress", "", " leading space", "trailing space ", "yes", "No", "null", "~", "true",
	"123", "0x1F", "1.5", "1e3", ".inf", "2025-01-15T10:00:00Z", "2025-01-15", "a: b", "a:b", "key:", "# not a comment",
	"issue #12", "a #b", "-", "- item", "? q", "[x]", "{y}", "a, b", "*star", "&amp", "!bang", "|pipe", ">gt", "'single'",
	"\"double\"", "back\\slash", "line1\nline2", "trailing newline\n", "tab\there", "cr\rhere", "nul\x00byte",
	"bell\a", "日本語", "emoji 🎉", "nbsp\u00a0x", "ls\u2028x", "bom\ufeffx", "%percent", "@at", "`tick", "---", "...",
	"=", "<<", "a  b", "Yes please", "v1.2.3", "./src/main.go", "/abs/path", "http://example.com/x?y=1",
	"long " + strings.Repeat("word ", 40) + "end",
}

func randString(r *rand.Rand) string { return trickyStrings[r.Intn(len(trickyStrings))] }

func randScalar(r *rand.Rand) any {
	switch r.Intn(10) {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return r.Intn(1000) - 100
	case 3:
		return []float64{0.5, 3.5, -2.25, 1e21, 1e-7, 100}[r.Intn(6)]
	}
	return randString(r)
}

func randValue(r *rand.Rand, depth int) any {
	if depth > 2 {
		return randScalar(r)
	}
	switch r.Intn(8) {
	case 0:
		f := model.Flow{}
		for i := r.Intn(4); i > 0; i-- {
			f = append(f, randScalar(r))
		}
		return f
	case 1:
		m := model.Map{}
		for i := r.Intn(4); i > 0; i-- {
			m = append(m, model.KV{Key: fmt.Sprintf("k%d_%d", depth, len(m)), Value: randValue(r, depth+1)})
		}
		return m
	case 2:
		var l []any
		for i := r.Intn(4); i > 0; i-- {
			l = append(l, randValue(r, depth+1))
		}
		if l == nil {
			l = []any{}
		}
		return l
	}
	return randScalar(r)
}

// planner builds a plan of edits that do not collide.
type planner struct {
	edits []model.Edit
}

func isPrefix(p, q model.Path) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

func kills(e model.Edit) bool { return e.Op == model.OpReplace || e.Op == model.OpRemove }

// compatible reports whether e can join the plan: no edit replaces or
// removes what another reaches, no key is added twice.
func (p *planner) compatible(e model.Edit) bool {
	for _, o := range p.edits {
		if kills(o) && isPrefix(o.Path, e.Path) || kills(e) && isPrefix(e.Path, o.Path) {
			return false
		}
		if e.Op == model.OpAdd && o.Op == model.OpAdd && e.Key != "" && e.Key == o.Key && isPrefix(e.Path, o.Path) && isPrefix(o.Path, e.Path) {
			return false
		}
	}
	return true
}

func (p *planner) add(e model.Edit) bool {
	if !p.compatible(e) {
		return false
	}
	p.edits = append(p.edits, e)
	return true
}

// domainEdits plans what corrections do to a state: statuses,
// descriptions, counters, new atoms, dependencies, removals, new keys,
// cleared collections.
func domainEdits(r *rand.Rand, doc *Document, k int) []model.Edit {
	st := doc.State
	n := len(st.Atoms)
	p := &planner{}
	atom := func() int { return r.Intn(n) }
	next := n + 1
	for tries := 0; len(p.edits) < k && tries < 10*k; tries++ {
		switch r.Intn(17) {
		case 0:
			p.add(model.Replace(P("atoms", atom(), "status"), []string{"pending", "in_progress", "resolved"}[r.Intn(3)]))
		case 1:
			p.add(model.Replace(P("atoms", atom(), "description"), randString(r)))
		case 2:
			p.add(model.Replace(P("control", "iteration"), r.Intn(100)))
		case 3:
			m := model.Map{
				{Key: "id", Value: "A" + strconv.Itoa(next)},
				{Key: "description", Value: randString(r)},
				{Key: "status", Value: "pending"},
				{Key: "depends_on", Value: model.Flow{"A" + strconv.Itoa(1+atom())}},
			}
			if r.Intn(4) == 0 {
				m = append(m, model.KV{Key: "notes", Value: randValue(r, 1)})
			}
			if p.add(model.Append(P("atoms"), m)) {
				next++
			}
		case 4:
			i := atom()
			if st.Atoms[i].Lines.Has("depends_on") {
				p.add(model.Append(P("atoms", i, "depends_on"), "A"+strconv.Itoa(1+atom())))
			}
		case 5, 6:
			p.add(model.Remove(P("atoms", atom())))
		case 7:
			if len(st.Bindings) > 0 {
				p.add(model.Remove(P("bindings", st.Bindings[r.Intn(len(st.Bindings))].AtomID)))
			}
		case 8:
			p.add(model.AddKey(P("atoms", atom()), "x_note", randValue(r, 0)))
		case 9:
			i := atom()
			keys := []string{"description", "or_group", "depends_on", "status"}
			if key := keys[r.Intn(len(keys))]; st.Atoms[i].Lines.Has(key) {
				p.add(model.Remove(P("atoms", i, key)))
			}
		case 10:
			switch r.Intn(4) {
			case 0:
				p.add(model.Replace(P("bindings"), model.Map{}))
			case 1:
				p.add(model.Replace(P("trail"), []any{}))
			case 2:
				p.add(model.Replace(P("atoms", atom(), "depends_on"), model.Flow{}))
			case 3:
				p.add(model.Replace(P("atoms"), []any{model.Map{{Key: "id", Value: "A1"}, {Key: "description", Value: "Restart"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{}}}}))
			}
		case 11:
			id := "A" + strconv.Itoa(1+atom())
			has := false
			for _, bd := range st.Bindings {
				has = has || bd.AtomID == id
			}
			if !has {
				p.add(model.AddKey(P("bindings"), id, model.Map{{Key: "summary", Value: randString(r)}, {Key: "artifacts", Value: model.Flow{"src/x.go"}}}))
			}
		case 12:
			if r.Intn(2) == 0 {
				p.add(model.Replace(P("control", "stop_reason"), randString(r)))
			} else {
				p.add(model.Replace(P("control", "stop_reason"), nil))
			}
		case 13:
			i := atom()
			if d := len(st.Atoms[i].DependsOn); d > 0 {
				p.add(model.Remove(P("atoms", i, "depends_on", r.Intn(d))))
			}
		case 14:
			p.add(model.AddKey(P("control"), fmt.Sprintf("x_flag%d", r.Intn(1000)), randScalar(r)))
		case 15:
			p.add(model.Append(P("trail"), model.Map{{Key: "type", Value: "user_correction"}, {Key: "reason", Value: randString(r)}, {Key: "timestamp", Value: "2025-01-15T11:00:00Z"}}))
			p.add(model.Append(P("corrections"), model.Map{{Key: "timestamp", Value: "2025-01-15T11:00:00Z"}, {Key: "type", Value: "dag_adjustment"}, {Key: "description", Value: randString(r)}, {Key: "trail_cleared", Value: false}}))
		case 16:
			p.add(model.Replace(P("atoms", atom(), "depends_on"), []any{"A1", "A2"}))
		}
	}
	return p.edits
}

// badEdit is an edit that must be refused on doc.
func badEdit(r *rand.Rand, doc *Document) model.Edit {
	n := len(doc.State.Atoms)
	switch r.Intn(5) {
	case 0:
		return model.Remove(P("atoms", n+r.Intn(3)))
	case 1:
		return model.AddKey(P("control"), "status", "x")
	case 2:
		return model.Replace(P("control", "no_such_key"), 1)
	case 3:
		return model.Append(P("control"), "x")
	}
	return model.Replace(P("atoms", 0, "status", 0), "x")
}

// pathEntry is a node of a document and the path to it.
type pathEntry struct {
	path model.Path
	node *yaml.Node
	// inFlow: the node sits inside a flow collection.
	inFlow bool
}

// allPaths lists up to limit nodes of the tree, breadth first, not
// descending through aliases.
func allPaths(root *yaml.Node, limit int) []pathEntry {
	out := []pathEntry{{nil, root, false}}
	for i := 0; i < len(out) && len(out) < limit; i++ {
		e := out[i]
		n := e.node
		flow := n.Style&yaml.FlowStyle != 0
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if k := n.Content[j]; k.Kind == yaml.ScalarNode {
					out = append(out, pathEntry{e.path.Child(k.Value), n.Content[j+1], flow})
				}
			}
		case yaml.SequenceNode:
			for j, c := range n.Content {
				out = append(out, pathEntry{e.path.Child(j), c, flow})
			}
		}
	}
	return out
}

// flowValue is a value that fits inside a flow collection.
func flowValue(r *rand.Rand) any {
	switch r.Intn(6) {
	case 0:
		return model.Flow{randScalar(r), randScalar(r)}
	case 1:
		return model.Map{}
	}
	return randScalar(r)
}

// randomEdits plans edits anywhere in any document (for fuzzing): some
// may collide; conflicting reports whether they do.
func randomEdits(r *rand.Rand, root *yaml.Node, k int) (edits []model.Edit, conflicting bool) {
	paths := allPaths(root, 3000)
	p := &planner{}
	for i := 0; i < k; i++ {
		e := paths[r.Intn(len(paths))]
		var ed model.Edit
		switch r.Intn(3) {
		case 0:
			if len(e.path) == 0 {
				continue
			}
			v := randValue(r, 0)
			if e.inFlow {
				v = flowValue(r)
			}
			ed = model.Replace(e.path, v)
		case 1:
			if len(e.path) == 0 {
				continue
			}
			ed = model.Remove(e.path)
		default:
			v := randValue(r, 0)
			if e.inFlow || e.node.Style&yaml.FlowStyle != 0 && len(e.node.Content) > 0 {
				v = flowValue(r)
			}
			switch {
			case e.node.Kind == yaml.MappingNode || (isNull(nodeVal(e.node)) && r.Intn(2) == 0):
				ed = model.AddKey(e.path, fmt.Sprintf("new%d", r.Intn(5)), v)
			case e.node.Kind == yaml.SequenceNode || isNull(nodeVal(e.node)):
				ed = model.Append(e.path, v)
			default:
				continue
			}
		}
		if !p.compatible(ed) {
			conflicting = true
		}
		p.edits = append(p.edits, ed)
	}
	return p.edits, conflicting
}
