package model

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// What an undo writes back: the entries a correction removed (an atom, a
// binding, a decomposition, trail entries, base_case items) as yamlpatch
// values, with their unknown fields, in their keys' order in the file
// where the model knows it. They are written anew, not byte for byte:
// comments that were inside a removed entry do not come back.

// kvAt is a key, its value and the line it was on (0: unknown).
type kvAt struct {
	key   string
	value any
	line  int
}

// ordered builds a mapping from known keys (those present, by their line
// when known, else in the order given) and unknown fields (by line).
func ordered(known []kvAt, extra Extra) Map {
	all := make([]kvAt, 0, len(known)+len(extra))
	all = append(all, known...)
	for _, f := range extra {
		all = append(all, kvAt{key: f.Key, value: extraValue(f.Value), line: f.Line})
	}
	// By line, where an entry whose line is unknown (0) keeps its place
	// after the entry before it.
	at := make([]int, len(all))
	for i, kv := range all {
		switch {
		case kv.line > 0:
			at[i] = kv.line
		case i > 0:
			at[i] = at[i-1]
		}
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return at[a] - at[b] })
	sorted := make([]kvAt, len(all))
	for i, j := range idx {
		sorted[i] = all[j]
	}
	all = sorted
	m := make(Map, 0, len(all))
	for _, kv := range all {
		m = append(m, KV{Key: kv.key, Value: kv.value})
	}
	return m
}

// extraValue turns a decoded unknown field's value into a yamlpatch value.
func extraValue(v any) any {
	switch x := v.(type) {
	case Extra:
		m := make(Map, 0, len(x))
		for _, f := range x {
			m = append(m, KV{Key: f.Key, Value: extraValue(f.Value)})
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = extraValue(e)
		}
		return out
	}
	return v
}

func present(lines Lines, key string, value any, known *[]kvAt) {
	if lines.Has(key) {
		*known = append(*known, kvAt{key: key, value: value, line: lines.Line(key)})
	}
}

// nullable is s, or YAML null when empty.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// atomValue is atom a as the file had it, with status.
func atomValue(a Atom, status AtomStatus) Map {
	var known []kvAt
	known = append(known, kvAt{key: "id", value: a.ID, line: a.Lines.Line("id")})
	present(a.Lines, "description", a.Description, &known)
	known = append(known, kvAt{key: "status", value: string(status), line: a.Lines.Line("status")})
	present(a.Lines, "depends_on", toFlow(a.DependsOn), &known)
	present(a.Lines, "or_group", nullable(a.ORGroup), &known)
	return ordered(known, a.Extra)
}

// bindingValue is binding b's mapping.
func bindingValue(b Binding) Map {
	var known []kvAt
	present(b.Lines, "summary", b.Summary, &known)
	present(b.Lines, "artifacts", toFlow(b.Artifacts), &known)
	return ordered(known, b.Extra)
}

// decompValue is decomposition record d.
func decompValue(d Decomposition) Map {
	known := []kvAt{{key: "parent", value: d.Parent}, {key: "children", value: toFlow(d.Children)}}
	if d.Reason != "" {
		known = append(known, kvAt{key: "reason", value: d.Reason})
	}
	return ordered(known, d.Extra)
}

// trailValue is trail entry t: the schema's four fields in its order (and
// an old aot-tui entry's type first).
func trailValue(t TrailEntry) Map {
	var known []kvAt
	if t.Type != "" {
		known = append(known, kvAt{key: "type", value: t.Type})
	}
	for _, kv := range []kvAt{{key: "or_group", value: t.ORGroup}, {key: "selected", value: t.Selected},
		{key: "reason", value: t.Reason}, {key: "timestamp", value: t.Timestamp}} {
		if kv.value != "" || t.Type == "" {
			known = append(known, kv)
		}
	}
	return ordered(known, t.Extra)
}

// number is a float as the file most likely wrote it: 3, not 3.0.
func number(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int(f)
	}
	return f
}

func checkValue(c *Check) Map {
	var known []kvAt
	present(c.Lines, "type", string(c.Type), &known)
	present(c.Lines, "value", c.Value, &known)
	present(c.Lines, "criteria", c.Criteria, &known)
	if c.Lines.Has("rubric") {
		items := make([]any, len(c.Rubric))
		for i, r := range c.Rubric {
			items[i] = rubricValue(r)
		}
		known = append(known, kvAt{key: "rubric", value: items, line: c.Lines.Line("rubric")})
	}
	present(c.Lines, "pass_threshold", number(c.PassThreshold), &known)
	present(c.Lines, "scope", c.Scope, &known)
	return ordered(known, c.Extra)
}

func rubricValue(r RubricCriterion) Map {
	known := []kvAt{{key: "criterion", value: r.Criterion}}
	if r.Description != "" {
		known = append(known, kvAt{key: "description", value: r.Description})
	}
	known = append(known, kvAt{key: "weight", value: number(r.Weight)})
	if len(r.Levels) > 0 {
		levels := make(Map, len(r.Levels))
		for i, l := range r.Levels {
			levels[i] = KV{Key: strconv.Itoa(l.Score), Value: l.Text}
		}
		known = append(known, kvAt{key: "levels", value: levels})
	}
	return ordered(known, r.Extra)
}

func itemValue(it ChecklistItem) Map {
	known := []kvAt{{key: "item", value: it.Item}}
	switch {
	case it.Check != nil:
		known = append(known, kvAt{key: "check", value: checkValue(it.Check)})
	case it.IsGroup:
		known = append(known, kvAt{key: "group", value: itemsValue(it.Group)})
	case it.IsAnyOf:
		known = append(known, kvAt{key: "any_of", value: itemsValue(it.AnyOf)})
	}
	return ordered(known, it.Extra)
}

func itemsValue(items []ChecklistItem) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = itemValue(it)
	}
	return out
}

// baseValue is the whole base_case.
func baseValue(b BaseCase) Map {
	var known []kvAt
	switch {
	case b.IsChecklist:
		known = append(known, kvAt{key: "checklist", value: itemsValue(b.Checklist)})
	case b.Legacy != nil:
		for _, kv := range checkValue(b.Legacy) {
			known = append(known, kvAt{key: kv.Key, value: kv.Value, line: b.Legacy.Lines.Line(kv.Key)})
		}
	}
	return ordered(known, b.Extra)
}

// restoreBase plans putting the base_case back from after (which the file
// holds) to before: the fields of a check that changed, items appended
// removed, items removed appended again when they were last, and
// otherwise the list (or the base_case) written anew.
func (p *planner) restoreBase(before, after BaseCase) {
	base := P("objective", "base_case")
	switch {
	case canon(before.Extra) != canon(after.Extra) || before.IsChecklist != after.IsChecklist:
		p.edit(Replace(base, baseValue(before)))
	case before.IsChecklist:
		p.restoreItems(base.Child("checklist"), before.Checklist, after.Checklist)
	case before.Legacy != nil && after.Legacy != nil:
		if !p.restoreCheck(base, before.Legacy, after.Legacy) {
			p.edit(Replace(base, baseValue(before)))
		}
	default:
		p.edit(Replace(base, baseValue(before)))
	}
}

func sameKinds(a, b []ChecklistItem) bool {
	for i := range a {
		if a[i].Kind() != b[i].Kind() || canon(a[i].Extra) != canon(b[i].Extra) {
			return false
		}
	}
	return true
}

func (p *planner) restoreItems(path Path, before, after []ChecklistItem) {
	if canon(before) == canon(after) {
		return
	}
	n := len(before)
	switch {
	case len(after) >= n && sameKinds(before, after[:n]):
		for i := range before {
			p.restoreItem(path.Child(i), before[i], after[i])
		}
		for i := n; i < len(after); i++ {
			p.removeOnce(path.Child(i))
		}
		return
	case len(after) < n && canon(before[:len(after)]) == canon(after):
		for _, it := range before[len(after):] {
			p.edit(Append(path, itemValue(it)))
		}
		return
	}
	p.edit(Replace(path, itemsValue(before)))
}

func (p *planner) restoreItem(path Path, before, after ChecklistItem) {
	if canon(before) == canon(after) {
		return
	}
	if before.Item != after.Item {
		p.edit(Replace(path.Child("item"), before.Item))
	}
	switch {
	case before.Check != nil:
		if !p.restoreCheck(path.Child("check"), before.Check, after.Check) {
			p.edit(Replace(path.Child("check"), checkValue(before.Check)))
		}
	case before.IsGroup:
		p.restoreItems(path.Child("group"), before.Group, after.Group)
	case before.IsAnyOf:
		p.restoreItems(path.Child("any_of"), before.AnyOf, after.AnyOf)
	}
}

// restoreCheck plans the check at path back from after to before, key by
// key, and reports whether it could (false: more than its type, value,
// criteria and pass_threshold differ).
func (p *planner) restoreCheck(path Path, before, after *Check) bool {
	if canon(before.Rubric) != canon(after.Rubric) || before.Scope != after.Scope || canon(before.Extra) != canon(after.Extra) ||
		before.Lines.Has("rubric") != after.Lines.Has("rubric") || before.Lines.Has("scope") != after.Lines.Has("scope") {
		return false
	}
	for _, k := range []string{"type", "value", "criteria", "pass_threshold"} {
		bv, av := checkField(before, k), checkField(after, k)
		bh, ah := before.Lines.Has(k), after.Lines.Has(k)
		switch {
		case bh == ah && bv == av:
		case bh && ah:
			p.edit(Replace(path.Child(k), bv))
		case bh:
			p.edit(AddKey(path, k, bv))
		default:
			p.edit(Remove(path.Child(k)))
		}
	}
	return true
}

func checkField(c *Check, key string) any {
	switch key {
	case "type":
		return string(c.Type)
	case "value":
		return c.Value
	case "criteria":
		return c.Criteria
	}
	return number(c.PassThreshold)
}

var linesType = reflect.TypeFor[Lines]()

// canon is a canonical text of a model value for comparing: every field
// but the line numbers (Line), and of Lines only which keys are present.
func canon(v any) string {
	var b strings.Builder
	writeCanon(&b, reflect.ValueOf(v))
	return b.String()
}

func writeCanon(b *strings.Builder, v reflect.Value) {
	if v.IsValid() && v.Type() == linesType {
		keys := make([]string, v.Len())
		for i, kl := range v.Interface().(Lines) {
			keys[i] = kl.Key
		}
		slices.Sort(keys)
		b.WriteByte('[')
		for _, k := range keys {
			fmt.Fprintf(b, "%q,", k)
		}
		b.WriteByte(']')
		return
	}
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		writeCanon(b, v.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		t := v.Type()
		for i := range v.NumField() {
			f := t.Field(i)
			if f.Name == "Line" || !f.IsExported() {
				continue
			}
			b.WriteString(f.Name)
			b.WriteByte(':')
			writeCanon(b, v.Field(i))
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			writeCanon(b, v.Index(i))
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := v.MapKeys()
		text := make([]string, len(keys))
		for i, k := range keys {
			text[i] = fmt.Sprint(k.Interface())
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(text[a], text[b]) })
		b.WriteByte('{')
		for _, i := range order {
			fmt.Fprintf(b, "%q:", text[i])
			writeCanon(b, v.MapIndex(keys[i]))
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprintf(b, "%v", v.Interface())
	}
}
