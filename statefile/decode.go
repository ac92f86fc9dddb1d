package statefile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// decoder walks the yaml.Node tree once and fills model types directly:
// yaml.v3's reflection decoder would walk it a second time and would drop
// both unknown fields and line numbers.
type decoder struct {
	// lines turns node lines (counted by yaml.v3 from the first YAML line)
	// into the file's lines.
	lines    yamltext.LineMap
	problems []model.Problem
	// aliasBudget bounds alias expansion so an alias bomb ends in an error:
	// following an alias costs the size of the subtree it names, because
	// that is the work decoding it again takes (one alias of a 100,000-item
	// list, repeated 10,000 times, is a bomb of 10^9 nodes).
	aliasBudget int
	// anchorSize holds the node count of every anchored subtree, computed
	// on the first alias met (files without aliases never pay for it).
	anchorSize map[*yaml.Node]int
	root       *yaml.Node

	// memo records what the next Reparse needs (nil: Parse records
	// nothing); prev is the Document whose decoded entries are taken
	// where their text did not change (nil: none).
	memo *docMemo
	prev *Document
	// stubMissed is set when an entry the parse took from prev's memo (a
	// fastyaml.Stub, see reused) could not be taken from prev's decoded
	// entries: the state is then wrong, and parse starts over without prev.
	stubMissed bool

	// halves is the number of atoms from which Parse decodes the list in
	// two halves at once; half marks the decoder of a half (half.go).
	halves int
	half   bool
}

// maxAliasExpansions bounds how many nodes the decoder reaches through
// aliases; legitimate reuse (a shared list of ids) is far below it.
const maxAliasExpansions = 100000

// maxNesting bounds how deep checklists and unknown values may nest.
const maxNesting = 200

type aliasBombError struct{ line int }

func (e aliasBombError) Error() string { return "the document expands too many aliases" }

func (d *decoder) line(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return d.lines.File(n.Line)
}

func (d *decoder) problem(n *yaml.Node, path, format string, args ...any) {
	d.problems = append(d.problems, model.Problem{Line: d.line(n), Path: path, Message: fmt.Sprintf(format, args...)})
}

// resolve follows an alias, charging the alias budget with the size of the
// subtree it names.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		if d.half {
			panic(errHalfAlias)
		}
		if d.anchorSize == nil {
			d.anchorSize = map[*yaml.Node]int{}
			countNodes(d.root, d.anchorSize)
		}
		d.aliasBudget -= max(d.anchorSize[n.Alias], 1)
		if d.aliasBudget < 0 {
			panic(aliasBombError{line: d.line(n)})
		}
		n = n.Alias
	}
	return n
}

// countNodes returns the number of nodes under n, not following aliases,
// and records it in sizes for every anchored node.
func countNodes(n *yaml.Node, sizes map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	total := 1
	for _, c := range n.Content {
		total += countNodes(c, sizes)
	}
	if n.Anchor != "" {
		sizes[n] = total
	}
	return total
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int":
			return "the number " + n.Value
		case "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		case "!!null":
			return "null"
		}
		return strconv.Quote(n.Value)
	}
	return "an unexpected node"
}

// str reads a scalar as text; null is "". Numbers and booleans are kept as
// written (an id of 7 is "7").
func (d *decoder) str(n *yaml.Node, path string) string {
	n = d.resolve(n)
	if isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.problem(n, path, "%s should be text, not %s", path, kindName(n))
		return ""
	}
	return n.Value
}

func (d *decoder) integer(n *yaml.Node, path string) int {
	n = d.resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		if v, err := strconv.Atoi(n.Value); err == nil {
			return v
		}
		var v int
		if err := n.Decode(&v); err == nil {
			return v
		}
	}
	d.problem(n, path, "%s should be an integer, not %s", path, kindName(n))
	return 0
}

func (d *decoder) number(n *yaml.Node, path string) float64 {
	n = d.resolve(n)
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		var v float64
		if err := n.Decode(&v); err == nil {
			return v
		}
	}
	d.problem(n, path, "%s should be a number, not %s", path, kindName(n))
	return 0
}

func (d *decoder) boolean(n *yaml.Node, path string) bool {
	n = d.resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		var v bool
		if err := n.Decode(&v); err == nil {
			return v
		}
	}
	d.problem(n, path, "%s should be true or false, not %s", path, kindName(n))
	return false
}

// strList reads a list of scalars in flow or block style; null is empty.
func (d *decoder) strList(n *yaml.Node, path string) []string {
	n = d.resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.problem(n, path, "%s should be a list, not %s", path, kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		c = d.resolve(c)
		if c.Kind != yaml.ScalarNode || isNull(c) {
			d.problem(c, path, "%s[%d] should be text, not %s", path, i, kindName(c))
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

// mapping iterates over the entries of a mapping. known handles a key and
// reports whether it knew it; unknown keys go to the returned Extra. It also
// returns the line of every key present.
func (d *decoder) mapping(n *yaml.Node, path string, known func(key string, k, v *yaml.Node) bool) (model.Extra, model.Lines, bool) {
	n = d.resolve(n)
	if isNull(n) {
		return nil, model.Lines{}, false
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n, path, "%s should be a mapping of fields, not %s", path, kindName(n))
		return nil, model.Lines{}, false
	}
	var extra model.Extra
	lines := make(model.Lines, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := d.resolve(n.Content[i]), n.Content[i+1]
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			d.problem(k, path, "%s has a key that is not text", path)
			continue
		}
		if _, dup := lines[key]; dup {
			d.problem(k, path, "%s has the key %q twice", path, key)
		}
		lines[key] = d.line(k)
		if !known(key, k, v) {
			extra = append(extra, model.Field{Key: key, Value: d.generic(v, 0), Line: d.line(k)})
		}
	}
	return extra, lines, true
}

// generic decodes any value for display (unknown fields).
func (d *decoder) generic(n *yaml.Node, depth int) any {
	n = d.resolve(n)
	if depth > maxNesting {
		return "…"
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b
			}
		case "!!int":
			if v, err := strconv.Atoi(n.Value); err == nil {
				return v
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil {
				return f
			}
		}
		return n.Value
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, d.generic(c, depth+1))
		}
		return out
	case yaml.MappingNode:
		var out model.Extra
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := d.resolve(n.Content[i])
			out = append(out, model.Field{Key: k.Value, Value: d.generic(n.Content[i+1], depth+1), Line: d.line(k)})
		}
		return out
	}
	return nil
}

// itemCount is the number of items of a list or entries of a mapping, to
// size what is decoded from it (no alias budget is charged: it reads one
// slice length).
func itemCount(n *yaml.Node) int {
	if n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case n == nil:
		return 0
	case n.Kind == yaml.SequenceNode:
		return len(n.Content)
	case n.Kind == yaml.MappingNode:
		return len(n.Content) / 2
	}
	return 0
}

// seq iterates over the items of a list; null is empty.
func (d *decoder) seq(n *yaml.Node, path string, each func(i int, item *yaml.Node)) bool {
	n = d.resolve(n)
	if isNull(n) {
		return false
	}
	if n.Kind != yaml.SequenceNode {
		d.problem(n, path, "%s should be a list, not %s", path, kindName(n))
		return false
	}
	for i, c := range n.Content {
		each(i, c)
	}
	return true
}

// seqEntries decodes the top-level list key, value v, entry by entry with
// decode, taking an entry from old (the previous version's, moved by
// shift) where its text did not change (see entry).
func seqEntries[T any](d *decoder, key string, v *yaml.Node, old []T, shift func(T, int) T, decode func(*yaml.Node, int) T) []T {
	out := make([]T, 0, itemCount(v))
	r := d.list(key, v)
	d.seq(v, key, func(i int, item *yaml.Node) {
		out = append(out, entry(d, r, i, item, old, shift, func() T { return decode(item, i) }))
	})
	r.done(d)
	return out
}

// mapEntries is seqEntries for a top-level mapping (or_groups,
// bindings): decode is given each entry's key text and nodes.
func mapEntries[T any](d *decoder, key string, v *yaml.Node, old []T, shift func(T, int) T, decode func(name string, k, v *yaml.Node) T) []T {
	out := make([]T, 0, itemCount(v))
	r := d.list(key, v)
	d.mapping(v, key, func(name string, k, val *yaml.Node) bool {
		out = append(out, entry(d, r, len(out), val, old, shift, func() T { return decode(name, k, val) }))
		return true
	})
	r.done(d)
	return out
}

// decodeState fills a model.State from the frontmatter's root mapping.
func (d *decoder) decodeState(root *yaml.Node) *model.State {
	s := &model.State{}
	prev := d.prevState()
	if prev == nil {
		prev = &model.State{}
	}
	s.Extra, s.Lines, _ = d.mapping(root, "frontmatter", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "objective":
			s.Objective = d.objective(v)
		case "control":
			s.Control = d.control(v)
		// A section given twice is reported by mapping; the later one
		// wins, as in YAML readers, so lists start over rather than grow.
		case "atoms":
			if atoms, ok := d.atomsInHalves(v); ok {
				s.Atoms = atoms
				break
			}
			s.Atoms = seqEntries(d, key, v, prev.Atoms, shiftAtom, d.atom)
		case "decompositions":
			s.Decompositions = seqEntries(d, key, v, prev.Decompositions, shiftDecomposition, d.decomposition)
		case "or_groups":
			s.ORGroups = mapEntries(d, key, v, prev.ORGroups, shiftORGroup, d.orGroup)
		case "bindings":
			s.Bindings = mapEntries(d, key, v, prev.Bindings, shiftBinding, d.binding)
		case "trail":
			s.Trail = seqEntries(d, key, v, prev.Trail, shiftTrail, d.trail)
		case "corrections":
			s.Corrections = seqEntries(d, key, v, prev.Corrections, shiftCorrection, d.correction)
		default:
			return false
		}
		return true
	})
	return s
}

func (d *decoder) objective(n *yaml.Node) model.Objective {
	var o model.Objective
	o.Extra, o.Lines, _ = d.mapping(n, "objective", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "goal":
			o.Goal = d.str(v, "objective.goal")
		case "base_case":
			o.BaseCase = d.baseCase(v)
		case "background_intent":
			o.BackgroundIntent = d.str(v, "objective.background_intent")
		case "deliverables":
			o.Deliverables = d.str(v, "objective.deliverables")
		case "definition_of_done":
			o.DefinitionOfDone = d.str(v, "objective.definition_of_done")
		case "constraints":
			o.Constraints = d.constraints(v)
		default:
			return false
		}
		return true
	})
	return o
}

func (d *decoder) constraints(n *yaml.Node) model.Constraints {
	var c model.Constraints
	c.Extra, c.Lines, _ = d.mapping(n, "objective.constraints", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "max_iterations":
			c.MaxIterations = d.integer(v, "constraints.max_iterations")
		case "max_parallel_agents":
			c.MaxParallelAgents = d.integer(v, "constraints.max_parallel_agents")
		case "max_stall_count":
			c.MaxStallCount = d.integer(v, "constraints.max_stall_count")
		default:
			return false
		}
		return true
	})
	return c
}

func (d *decoder) baseCase(n *yaml.Node) model.BaseCase {
	b := model.BaseCase{Line: d.line(n)}
	n = d.resolve(n)
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		// A bare string is an informal legacy assertion; keep it readable.
		b.Legacy = &model.Check{Type: model.CheckAssertion, Value: n.Value, Line: d.line(n)}
		d.problem(n, "objective.base_case", "objective.base_case should be a mapping ({type, value} or checklist), not %s", kindName(n))
		return b
	}
	legacy := model.Check{Lines: model.Lines{}}
	var sawLegacy bool
	b.Extra, _, _ = d.mapping(n, "objective.base_case", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "checklist":
			b.IsChecklist = true
			b.Checklist = d.checklist(v, "base_case.checklist", 0)
		case "type", "value", "rubric", "criteria", "pass_threshold", "scope":
			sawLegacy = true
			legacy.Lines[key] = d.line(k)
			d.checkField(&legacy, key, v, "objective.base_case")
		default:
			return false
		}
		return true
	})
	if sawLegacy {
		legacy.Line = d.line(n)
		b.Legacy = &legacy
	}
	return b
}

func (d *decoder) checklist(n *yaml.Node, path string, depth int) []model.ChecklistItem {
	if depth > maxNesting {
		d.problem(d.resolve(n), path, "%s nests more than %d levels deep", path, maxNesting)
		return nil
	}
	var items []model.ChecklistItem
	d.seq(n, path, func(i int, item *yaml.Node) {
		p := fmt.Sprintf("%s[%d]", path, i)
		ci := model.ChecklistItem{Line: d.line(d.resolve(item))}
		ci.Extra, _, _ = d.mapping(item, p, func(key string, k, v *yaml.Node) bool {
			switch key {
			case "item":
				ci.Item = d.str(v, p+".item")
			case "check":
				ci.Check = d.check(v, p+".check")
			case "group":
				ci.IsGroup = true
				ci.Group = d.checklist(v, p+".group", depth+1)
			case "any_of":
				ci.IsAnyOf = true
				ci.AnyOf = d.checklist(v, p+".any_of", depth+1)
			default:
				return false
			}
			return true
		})
		items = append(items, ci)
	})
	return items
}

func (d *decoder) check(n *yaml.Node, path string) *model.Check {
	c := &model.Check{Line: d.line(d.resolve(n))}
	c.Extra, c.Lines, _ = d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "type", "value", "rubric", "criteria", "pass_threshold", "scope":
			d.checkField(c, key, v, path)
			return true
		}
		return false
	})
	return c
}

func (d *decoder) checkField(c *model.Check, key string, v *yaml.Node, path string) {
	switch key {
	case "type":
		c.Type = model.CheckType(d.str(v, path+".type"))
	case "value":
		c.Value = d.str(v, path+".value")
	case "criteria":
		c.Criteria = d.str(v, path+".criteria")
	case "scope":
		c.Scope = d.str(v, path+".scope")
	case "pass_threshold":
		c.PassThreshold = d.number(v, path+".pass_threshold")
		c.HasThreshold = true
	case "rubric":
		d.seq(v, path+".rubric", func(i int, item *yaml.Node) {
			p := fmt.Sprintf("%s.rubric[%d]", path, i)
			r := model.RubricCriterion{Line: d.line(d.resolve(item))}
			r.Extra, _, _ = d.mapping(item, p, func(key string, k, v *yaml.Node) bool {
				switch key {
				case "criterion":
					r.Criterion = d.str(v, p+".criterion")
				case "description":
					r.Description = d.str(v, p+".description")
				case "weight":
					r.Weight = d.number(v, p+".weight")
				case "levels":
					r.Levels = d.levels(v, p+".levels")
				default:
					return false
				}
				return true
			})
			c.Rubric = append(c.Rubric, r)
		})
	}
}

func (d *decoder) levels(n *yaml.Node, path string) []model.RubricLevel {
	var out []model.RubricLevel
	d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		score, err := strconv.Atoi(key)
		if err != nil {
			d.problem(k, path, "%s has the level %q; levels are scores such as 1, 3, 5", path, key)
		}
		out = append(out, model.RubricLevel{Score: score, Text: d.str(v, path+"."+key)})
		return true
	})
	return out
}

func (d *decoder) control(n *yaml.Node) model.Control {
	var c model.Control
	c.Extra, c.Lines, _ = d.mapping(n, "control", func(key string, k, v *yaml.Node) bool {
		switch key {
		case "status":
			c.Status = model.LoopStatus(d.str(v, "control.status"))
		case "iteration":
			c.Iteration = d.integer(v, "control.iteration")
		case "stall_count":
			c.StallCount = d.integer(v, "control.stall_count")
		case "prev_pending_count":
			c.PrevPendingCount = d.integer(v, "control.prev_pending_count")
		case "stop_requested":
			c.StopRequested = d.boolean(v, "control.stop_requested")
		case "stop_reason":
			c.StopReason = d.str(v, "control.stop_reason")
		case "redirect_requested":
			c.RedirectRequested = d.boolean(v, "control.redirect_requested")
		default:
			return false
		}
		return true
	})
	if !c.Lines.Has("prev_pending_count") {
		c.PrevPendingCount = -1 // the hook's default: first iteration
	}
	return c
}

func (d *decoder) atom(n *yaml.Node, i int) model.Atom {
	path := "atoms[" + strconv.Itoa(i) + "]"
	a := model.Atom{Line: d.line(d.resolve(n))}
	a.Extra, a.Lines, _ = d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "id":
			a.ID = d.str(v, path+".id")
		case "description":
			a.Description = d.str(v, path+".description")
		case "status":
			a.Status = model.AtomStatus(d.str(v, path+".status"))
		case "depends_on":
			a.DependsOn = d.strList(v, path+".depends_on")
		case "or_group":
			a.ORGroup = d.str(v, path+".or_group")
		default:
			return false
		}
		return true
	})
	return a
}

func (d *decoder) decomposition(n *yaml.Node, i int) model.Decomposition {
	path := fmt.Sprintf("decompositions[%d]", i)
	dc := model.Decomposition{Line: d.line(d.resolve(n))}
	dc.Extra, _, _ = d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "parent":
			dc.Parent = d.str(v, path+".parent")
		case "children":
			dc.Children = d.strList(v, path+".children")
		case "reason":
			dc.Reason = d.str(v, path+".reason")
		default:
			return false
		}
		return true
	})
	return dc
}

func (d *decoder) orGroup(name string, k, v *yaml.Node) model.ORGroup {
	path := "or_groups." + name
	g := model.ORGroup{Name: name, Line: d.line(k)}
	g.Extra, g.Lines, _ = d.mapping(v, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "choices":
			g.Choices = d.strList(v, path+".choices")
		case "selected":
			g.Selected = d.str(v, path+".selected")
		case "failed":
			g.Failed = d.strList(v, path+".failed")
		default:
			return false
		}
		return true
	})
	return g
}

func (d *decoder) binding(id string, k, v *yaml.Node) model.Binding {
	path := "bindings." + id
	b := model.Binding{AtomID: id, Line: d.line(k)}
	b.Extra, b.Lines, _ = d.mapping(v, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "summary":
			b.Summary = strings.TrimRight(d.str(v, path+".summary"), "\n")
		case "artifacts":
			b.Artifacts = d.strList(v, path+".artifacts")
		default:
			return false
		}
		return true
	})
	return b
}

func (d *decoder) trail(n *yaml.Node, i int) model.TrailEntry {
	path := fmt.Sprintf("trail[%d]", i)
	t := model.TrailEntry{Line: d.line(d.resolve(n))}
	t.Extra, _, _ = d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "type":
			t.Type = d.str(v, path+".type")
		case "or_group":
			t.ORGroup = d.str(v, path+".or_group")
		case "selected":
			t.Selected = d.str(v, path+".selected")
		case "reason":
			t.Reason = d.str(v, path+".reason")
		case "timestamp":
			t.Timestamp = d.str(v, path+".timestamp")
		default:
			return false
		}
		return true
	})
	return t
}

func (d *decoder) correction(n *yaml.Node, i int) model.Correction {
	path := fmt.Sprintf("corrections[%d]", i)
	c := model.Correction{Line: d.line(d.resolve(n))}
	c.Extra, _, _ = d.mapping(n, path, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "timestamp":
			c.Timestamp = d.str(v, path+".timestamp")
		case "type":
			c.Type = model.CorrectionType(d.str(v, path+".type"))
		case "description":
			c.Description = d.str(v, path+".description")
		case "trail_cleared":
			c.TrailCleared = d.boolean(v, path+".trail_cleared")
		default:
			return false
		}
		return true
	})
	return c
}
