package yamledit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/yamlpatch"
	"go.yaml.in/yaml/v3"
)

// replace applies an OpReplace: the old value and the same key in sibling
// items show how the new value should be written.
func (e *editor) replace(t *target) error {
	ex := append(exemplar{t.node}, e.cousins(t.chain)...)
	return e.replaceWith(t, t.chain, t.parent, t.index, t.node, t.edit.Value, ex)
}

// replaceWith replaces the value old (the end of chain), held by parent at
// index (a value's index in Content), with v.
func (e *editor) replaceWith(t *target, chain []*yaml.Node, parent *yaml.Node, index int, old *yaml.Node, v any, ex exemplar) error {
	tx := e.text
	depth := len(chain)
	block := needsBlock(v)
	if old.Style&yaml.TaggedStyle != 0 && isBlock(old) {
		return e.fail(t, old, ErrUnsupported, "%s carries the YAML tag %s; edit it by hand", pathName(t.edit.Path), old.Tag)
	}
	if parent.Style&yaml.FlowStyle != 0 {
		if block {
			return e.fail(t, old, ErrType, "%s sits in a flow collection ([…] or {…}) and cannot hold a block value", pathName(t.edit.Path))
		}
		if isEmptyNull(old) {
			return e.fail(t, old, ErrUnsupported, "%s is an empty value inside a flow collection; edit it by hand", pathName(t.edit.Path))
		}
		start, err := tx.nodeStart(old)
		if err != nil {
			return e.locateErr(t, old, err)
		}
		end, err := tx.nodeEnd(old, 0, true)
		if err != nil {
			return e.locateErr(t, old, err)
		}
		s, err := e.inline(v, ex, true)
		if err != nil {
			return e.fail(t, old, ErrType, "%v", err)
		}
		e.add(patch{a: start, b: end, text: s, depth: depth, edit: t.i, align: true, tail: e.flowTail(chain)})
		return nil
	}
	if s, ok := v.(string); ok && old.Kind == yaml.ScalarNode && old.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		done, err := e.replaceBlockScalar(t, parent, old, s, depth)
		if done || err != nil {
			return err
		}
	}
	start, err := tx.nodeStart(old)
	if err != nil {
		return e.locateErr(t, old, err)
	}
	end, err := tx.nodeEnd(old, parent.Column-1, false)
	if err != nil {
		return e.locateErr(t, old, err)
	}
	oldBlock := isBlock(old)
	if parent.Kind == yaml.MappingNode {
		key := parent.Content[index-1]
		keyStart, err := tx.nodeStart(key)
		if err != nil {
			return e.locateErr(t, key, err)
		}
		colon, err := e.colonAfter(key, keyStart)
		if err != nil {
			return e.locateErr(t, key, err)
		}
		keyCol := tx.column(keyStart)
		keyLine := tx.lineOf(keyStart)
		switch {
		case !oldBlock && !block:
			s, err := e.inline(v, ex, false)
			if err != nil {
				return e.fail(t, old, ErrType, "%v", err)
			}
			e.add(e.inlinePatch(start, end, old, s, depth, t.i))
		case !oldBlock && block:
			// "key: []  # c" → "key:  # c" and the block on the lines below.
			var b strings.Builder
			if err := e.writeBlockValue(&b, v, keyCol, ex); err != nil {
				return e.fail(t, old, ErrType, "%v", err)
			}
			last := tx.lineOf(max(colon, end-1))
			if tx.restIsBlank(end) {
				e.add(patch{a: colon, b: tx.lineEnd(last), depth: depth, edit: t.i})
			} else if end > colon {
				e.add(patch{a: colon, b: end, depth: depth, edit: t.i, align: true})
			}
			at := tx.lineStart(last + 1)
			e.add(patch{a: at, b: at, text: b.String(), depth: depth, edit: t.i})
		case oldBlock && !block:
			// "key:\n  - …" → "key: []", the old lines go.
			s, err := e.inline(v, ex, false)
			if err != nil {
				return e.fail(t, old, ErrType, "%v", err)
			}
			foot := e.footAfter(end, keyCol)
			e.add(patch{a: colon, b: colon, text: " " + s, depth: depth, edit: t.i, align: true})
			e.add(patch{a: tx.lineStart(keyLine + 1), b: tx.lineStart(foot + 1), depth: depth, edit: t.i})
		default:
			// A block for a block, in the old one's place and column; a
			// mapping may not sit at its key's column as a list may.
			oldCol := tx.column(start)
			col := oldCol
			if _, isMap := v.(yamlpatch.Map); isMap && col <= keyCol {
				col = keyCol + e.docStyle().mapIndent
			}
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", col-oldCol))
			if err := e.writeBlockAt(&b, v, col, e.gapOf(old), ex); err != nil {
				return e.fail(t, old, ErrType, "%v", err)
			}
			e.add(patch{a: start, b: end, text: strings.TrimSuffix(b.String(), "\n"), depth: depth, edit: t.i})
		}
		return nil
	}
	// A block sequence item.
	dash, err := e.dashBefore(parent, start, old)
	if err != nil {
		return e.locateErr(t, old, err)
	}
	dashCol := tx.column(dash)
	a, prefix, contentCol := start, "", tx.column(start)
	if isEmptyNull(old) || tx.lineOf(start) != tx.lineOf(dash) {
		a, prefix, contentCol = dash+1, " ", dashCol+2
	}
	b := end
	if isEmptyNull(old) && tx.restIsBlank(end) {
		b = tx.lineEnd(tx.lineOf(end))
	}
	if !block {
		s, err := e.inline(v, ex, false)
		if err != nil {
			return e.fail(t, old, ErrType, "%v", err)
		}
		e.add(patch{a: a, b: b, text: prefix + s, depth: depth, edit: t.i, align: true})
		return nil
	}
	var sb strings.Builder
	sb.WriteString(prefix)
	if err := e.writeBlockAt(&sb, v, contentCol, e.docStyle().gap, ex); err != nil {
		return e.fail(t, old, ErrType, "%v", err)
	}
	e.add(patch{a: a, b: b, text: strings.TrimSuffix(sb.String(), "\n"), depth: depth, edit: t.i})
	return nil
}

// inlinePatch replaces a one-line (or multi-line scalar) value in a block
// mapping. An empty null ("key:") gets a space before the new value.
func (e *editor) inlinePatch(start, end int, old *yaml.Node, s string, depth, edit int) patch {
	if isEmptyNull(old) {
		if e.text.restIsBlank(start) {
			return patch{a: start, b: e.text.lineEnd(e.text.lineOf(start)), text: " " + s, depth: depth, edit: edit}
		}
		return patch{a: start, b: start, text: " " + s, depth: depth, edit: edit, align: true}
	}
	return patch{a: start, b: end, text: s, depth: depth, edit: edit, align: true}
}

// colonAfter is the offset just past the ':' that follows a key.
func (e *editor) colonAfter(key *yaml.Node, keyStart int) (int, error) {
	tx := e.text
	end, err := tx.scalarEnd(key, keyStart, -1, false)
	if err != nil {
		return 0, err
	}
	end = tx.skipSpace(end, false)
	if end >= tx.end || tx.data[end] != ':' {
		return 0, errLocate
	}
	return end + 1, nil
}

// footAfter is the last line of a value ending at end, with the comment
// lines right after it indented deeper than col.
func (e *editor) footAfter(end, col int) int {
	tx := e.text
	l := tx.lineOf(max(tx.start, end-1))
	for l+1 < tx.nlines() && tx.isComment(l+1) && tx.indent(l+1) > col {
		l++
	}
	return l
}

// gapOf is the distance from a block sequence's dash to its first item's
// text ("- id" → 2), or the file's usual one.
func (e *editor) gapOf(n *yaml.Node) int {
	if n.Kind == yaml.SequenceNode && isBlock(n) && len(n.Content) > 0 && !isEmptyNull(n.Content[0]) {
		tx := e.text
		ds, err1 := tx.nodeStart(n)
		vs, err2 := tx.nodeStart(n.Content[0])
		if err1 == nil && err2 == nil && tx.lineOf(ds) == tx.lineOf(vs) {
			if g := tx.column(vs) - tx.column(ds); g >= 2 && g <= 8 {
				return g
			}
		}
	}
	return e.docStyle().gap
}

// replaceBlockScalar replaces a literal (|) or folded (>) scalar's content
// in place, keeping its style and its header's comment. It reports false
// when the new value cannot be written in that style.
func (e *editor) replaceBlockScalar(t *target, parent, old *yaml.Node, s string, depth int) (bool, error) {
	tx := e.text
	if old.Style&yaml.TaggedStyle != 0 || old.Anchor != "" {
		return false, nil
	}
	start, err := tx.nodeStart(old)
	if err != nil {
		return false, e.locateErr(t, old, err)
	}
	hend, explicit, _, ok := blockHeader(tx.data[:tx.end], start)
	if !ok || explicit > 0 {
		return false, nil
	}
	end, err := tx.nodeEnd(old, parent.Column-1, false)
	if err != nil {
		return false, e.locateErr(t, old, err)
	}
	header := tx.lineOf(start)
	first := -1
	for l := header + 1; l <= tx.lineOf(end) && l < tx.nlines(); l++ {
		if !tx.isBlank(l) {
			first = l
			break
		}
	}
	if first < 0 || end <= hend {
		return false, nil
	}
	indent := strings.Repeat(" ", tx.indent(first))
	literal := tx.data[start] == '|'
	v := s
	h := "|-"
	if !literal {
		h = ">-"
	}
	if strings.HasSuffix(v, "\n") {
		h = h[:1]
		v = v[:len(v)-1]
	}
	if v == "" || strings.HasSuffix(v, "\n") {
		return false, nil
	}
	lines := strings.Split(v, "\n")
	if !literal && len(lines) > 1 {
		return false, nil
	}
	var b strings.Builder
	seen := false
	for i, l := range lines {
		for _, r := range l {
			if r != '\t' && !unicode.IsPrint(r) {
				return false, nil
			}
		}
		if l != "" && !seen {
			if l[0] == ' ' || l[0] == '\t' {
				return false, nil
			}
			seen = true
		}
		if !literal && l != strings.TrimSpace(l) {
			return false, nil
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		if l != "" {
			b.WriteString(indent + l)
		}
	}
	e.add(patch{a: start, b: hend, text: h, depth: depth, edit: t.i})
	e.add(patch{a: tx.lineStart(header + 1), b: end, text: b.String(), depth: depth, edit: t.i})
	return true, nil
}

// exemplar lists existing nodes analogous to a value being written, most
// relevant first: the value it replaces, the same key in sibling items.
type exemplar []*yaml.Node

// maxExemplars bounds how many analogous nodes are consulted.
const maxExemplars = 16

// child is the exemplar for the value under key.
func (x exemplar) child(key string) exemplar {
	var out exemplar
	for _, n := range x {
		if v := mapValue(n, key); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// items is the exemplar for the items of a list, last items first.
func (x exemplar) items() exemplar {
	var out exemplar
	for _, n := range x {
		if n.Kind != yaml.SequenceNode {
			continue
		}
		for i := len(n.Content) - 1; i >= 0 && len(out) < maxExemplars; i-- {
			out = append(out, n.Content[i])
		}
	}
	return out
}

// values is the exemplar made of a mapping's own values, last first: how
// the entries of a dictionary such as bindings look.
func values(m *yaml.Node) exemplar {
	var out exemplar
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := len(m.Content) - 1; i > 0 && len(out) < maxExemplars; i -= 2 {
		out = append(out, m.Content[i])
	}
	return out
}

// strStyle is the style of the first string among the nodes.
func (x exemplar) strStyle() (yaml.Style, bool) {
	for _, n := range x {
		if n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle == 0 && n.ShortTag() == "!!str" {
			return n.Style, true
		}
	}
	return 0, false
}

// docStyle is what the file as a whole does, looked up once when a value
// has no analogous node to copy.
type docStyle struct {
	// prose is how strings with spaces are written: 0 (plain),
	// yaml.DoubleQuotedStyle or yaml.SingleQuotedStyle.
	prose yaml.Style
	// single: the file quotes with ' rather than ".
	single bool
	// mapIndent: how much deeper a nested mapping's keys sit.
	mapIndent int
	// seqIndent: how much deeper than its key a block list's dashes sit
	// (2 in the template, 0 for lists at the key's column); gap: from the
	// dash to the item's text.
	seqIndent, gap int
}

func (e *editor) docStyle() *docStyle {
	if e.style != nil {
		return e.style
	}
	s := &docStyle{prose: yaml.DoubleQuotedStyle, mapIndent: 2, seqIndent: 2, gap: 2}
	e.style = s
	root := e.in.Root
	// Quoting: count the styles of the first strings found.
	var plain, dq, sq, quotedD, quotedS, seen int
	stack := []*yaml.Node{root}
	for len(stack) > 0 && seen < 20000 && plain+dq+sq < 64 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		seen++
		switch n.Kind {
		case yaml.MappingNode:
			for i := len(n.Content) - 1; i > 0; i -= 2 {
				stack = append(stack, n.Content[i])
			}
		case yaml.SequenceNode:
			for i := len(n.Content) - 1; i >= 0; i-- {
				stack = append(stack, n.Content[i])
			}
		case yaml.ScalarNode:
			if n.ShortTag() != "!!str" || n.Style&yaml.TaggedStyle != 0 {
				continue
			}
			switch {
			case n.Style&yaml.DoubleQuotedStyle != 0:
				quotedD++
			case n.Style&yaml.SingleQuotedStyle != 0:
				quotedS++
			}
			if !strings.Contains(n.Value, " ") {
				continue
			}
			switch {
			case n.Style&yaml.DoubleQuotedStyle != 0:
				dq++
			case n.Style&yaml.SingleQuotedStyle != 0:
				sq++
			case n.Style == 0:
				plain++
			}
		}
	}
	s.single = quotedS > quotedD
	switch {
	case plain > dq && plain > sq:
		s.prose = 0
	case sq > dq:
		s.prose = yaml.SingleQuotedStyle
	}
	// Indentation, from the root's sections.
	tx := e.text
	rootCol := root.Column - 1
	found := false
	for i := 1; i < len(root.Content) && !found; i += 2 {
		if v := root.Content[i]; v.Kind == yaml.MappingNode && isBlock(v) {
			if d := v.Column - 1 - rootCol; d > 0 && d <= 8 {
				s.mapIndent, found = d, true
			}
		}
	}
	var seq, seqKey *yaml.Node
	for i := 1; i < len(root.Content); i += 2 {
		if v := root.Content[i]; v.Kind == yaml.SequenceNode && isBlock(v) && (seq == nil || root.Content[i-1].Value == "atoms") {
			seq, seqKey = v, root.Content[i-1]
		}
	}
	if seq != nil {
		if d := seq.Column - seqKey.Column; d >= 0 && d <= 8 {
			s.seqIndent = d
		}
		if len(seq.Content) > 0 && !isEmptyNull(seq.Content[0]) {
			ds, err1 := tx.nodeStart(seq)
			vs, err2 := tx.nodeStart(seq.Content[0])
			if err1 == nil && err2 == nil && tx.lineOf(ds) == tx.lineOf(vs) {
				if g := tx.column(vs) - tx.column(ds); g >= 2 && g <= 8 {
					s.gap = g
				}
			}
		}
	}
	return s
}

// needsBlock reports a value that must be written in block style.
func needsBlock(v any) bool {
	switch x := v.(type) {
	case yamlpatch.Map:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return false
}

// checkValue refuses values the engine cannot write.
func checkValue(v any, depth int) error {
	if depth > 64 {
		return errors.New("the value nests too deeply")
	}
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return nil
	case string:
		if !utf8.ValidString(x) {
			return errors.New("the text is not valid UTF-8")
		}
		return nil
	case yamlpatch.Flow:
		for _, c := range x {
			if err := checkValue(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, c := range x {
			if err := checkValue(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	case yamlpatch.Map:
		seen := map[string]bool{}
		for _, kv := range x {
			if kv.Key == "" || !utf8.ValidString(kv.Key) {
				return errors.New("a mapping key is empty or not valid UTF-8")
			}
			if seen[kv.Key] {
				return fmt.Errorf("the mapping has the key %q twice", kv.Key)
			}
			seen[kv.Key] = true
			if err := checkValue(kv.Value, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("values of type %T cannot be written (use string, int, float64, bool, nil, yamlpatch.Flow, []any or yamlpatch.Map)", v)
}

// inline writes v on one line. Inside flow collections (flow) mappings and
// lists are written in flow style too.
func (e *editor) inline(v any, ex exemplar, flow bool) (string, error) {
	switch x := v.(type) {
	case yamlpatch.Flow:
		return e.flowList(x, ex, flow)
	case []any:
		if len(x) == 0 {
			return "[]", nil
		}
		if !flow {
			return "", errors.New("a block list cannot be written on one line")
		}
		return e.flowList(x, ex, flow)
	case yamlpatch.Map:
		if len(x) == 0 {
			return "{}", nil
		}
		if !flow {
			return "", errors.New("a block mapping cannot be written on one line")
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			s, err := e.inline(kv.Value, ex.child(kv.Key), true)
			if err != nil {
				return "", err
			}
			b.WriteString(e.flowKeyText(kv.Key) + ": " + s)
		}
		b.WriteByte('}')
		return b.String(), nil
	}
	return e.scalar(v, ex, flow)
}

func (e *editor) flowList(items []any, ex exemplar, _ bool) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	iex := ex.items()
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		s, err := e.inline(it, iex, true)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// scalar writes a scalar value.
func (e *editor) scalar(v any, ex exemplar, flow bool) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int8:
		return strconv.FormatInt(int64(x), 10), nil
	case int16:
		return strconv.FormatInt(int64(x), 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint8:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint16:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint32:
		return strconv.FormatUint(uint64(x), 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float32:
		return formatFloat(float64(x), 32), nil
	case float64:
		return formatFloat(x, 64), nil
	case string:
		return e.str(x, ex, flow), nil
	}
	return "", fmt.Errorf("values of type %T cannot be written", v)
}

// formatFloat writes a float that YAML 1.1 and 1.2 both read as a float.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if strings.ContainsRune(s, '.') {
		return s
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		return s[:i] + ".0" + s[i:]
	}
	return s + ".0"
}

// str writes a string: in the style of the nodes it stands in for, else
// plain for identifiers and in the file's prose style otherwise.
func (e *editor) str(s string, ex exemplar, flow bool) string {
	if style, ok := ex.strStyle(); ok {
		switch {
		case style&yaml.DoubleQuotedStyle != 0:
			return doubleQuoted(s)
		case style&yaml.SingleQuotedStyle != 0:
			if singleOK(s) {
				return singleQuoted(s)
			}
			return doubleQuoted(s)
		}
		if plainOK(s, flow) {
			return s
		}
		return e.quoted(s)
	}
	if isIdentifier(s) && plainOK(s, flow) {
		return s
	}
	switch e.docStyle().prose {
	case 0:
		if plainOK(s, flow) {
			return s
		}
		return e.quoted(s)
	case yaml.SingleQuotedStyle:
		if singleOK(s) {
			return singleQuoted(s)
		}
	}
	return doubleQuoted(s)
}

// quoted quotes s the way the file mostly quotes.
func (e *editor) quoted(s string) string {
	if e.docStyle().single && singleOK(s) {
		return singleQuoted(s)
	}
	return doubleQuoted(s)
}

// isIdentifier: A7, token_method, in_progress, dag_adjustment.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9') || c == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// yaml11Words are plain words YAML 1.1 (the loop's PyYAML) or 1.2 read as
// something other than a string.
var yaml11Words = map[string]bool{
	"null": true, "~": true, "true": true, "false": true, "yes": true, "no": true,
	"on": true, "off": true, "y": true, "n": true, ".inf": true, ".nan": true, "=": true, "<<": true,
}

// plainOK reports whether s can be written without quotes and read back,
// by yaml.v3 and by YAML 1.1 readers, as the same string. It errs on the
// side of quoting: a '#' anywhere is quoted, since line-based readers may
// cut at it.
func plainOK(s string, flow bool) bool {
	if !plainSyntaxOK(s) || yaml11Words[strings.ToLower(s)] {
		return false
	}
	c := s[0]
	if (c >= '0' && c <= '9') || c == '+' || (c == '.' && len(s) > 1 && s[1] >= '0' && s[1] <= '9') || strings.HasPrefix(s, "...") {
		return false
	}
	if strings.ContainsAny(s, "#") || (flow && strings.ContainsAny(s, ",[]{}:")) {
		return false
	}
	return resolvesToStr(s, flow)
}

// plainSyntaxOK checks what any plain scalar or key must satisfy.
func plainSyntaxOK(s string) bool {
	if s == "" || len(s) > 1000 || strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`~") {
		return false
	}
	if s != strings.TrimSpace(s) || strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	for _, r := range s {
		if r == '\t' || r == '\uFEFF' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// resolvesToStr asks yaml.v3 itself how it reads s unquoted.
func resolvesToStr(s string, flow bool) bool {
	src := "k: " + s
	if flow {
		src = "[" + s + "]"
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil || len(n.Content) != 1 {
		return false
	}
	c := n.Content[0]
	if flow {
		if c.Kind != yaml.SequenceNode || len(c.Content) != 1 {
			return false
		}
		c = c.Content[0]
	} else {
		if c.Kind != yaml.MappingNode || len(c.Content) != 2 {
			return false
		}
		c = c.Content[1]
	}
	return c.Kind == yaml.ScalarNode && c.Style == 0 && c.ShortTag() == "!!str" && c.Value == s
}

// keyText writes a mapping key: plain when it can be, else double-quoted.
// Numbers stay plain (rubric levels are written "1:").
func (e *editor) keyText(k string) string {
	if plainSyntaxOK(k) && !yaml11Words[strings.ToLower(k)] && !strings.ContainsAny(k, ",[]{}#") {
		return k
	}
	return doubleQuoted(k)
}

func (e *editor) flowKeyText(k string) string {
	if plainOK(k, true) {
		return k
	}
	return doubleQuoted(k)
}

// singleOK reports whether s can be single-quoted on one line.
func singleOK(s string) bool {
	for _, r := range s {
		if r == '\t' || r == '\uFEFF' || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func singleQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// doubleQuoted writes s as a YAML double-quoted scalar on one line.
func doubleQuoted(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\0`)
		default:
			switch {
			case r != '\uFEFF' && unicode.IsPrint(r):
				b.WriteRune(r)
			case r <= 0xFF:
				fmt.Fprintf(&b, `\x%02X`, r)
			case r <= 0xFFFF:
				fmt.Fprintf(&b, `\u%04X`, r)
			default:
				fmt.Fprintf(&b, `\U%08X`, r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeBlockValue writes a non-empty Map or []any on the lines below a key
// at keyCol.
func (e *editor) writeBlockValue(b *strings.Builder, v any, keyCol int, ex exemplar) error {
	st := e.docStyle()
	switch x := v.(type) {
	case yamlpatch.Map:
		return e.writeMap(b, x, keyCol+st.mapIndent, ex, false)
	case []any:
		return e.writeSeq(b, x, keyCol+st.seqIndent, st.gap, ex, false)
	}
	return fmt.Errorf("%T is not a block value", v)
}

// writeBlockAt writes a non-empty Map or []any at col, its first line
// without indentation (the caller has put it in place).
func (e *editor) writeBlockAt(b *strings.Builder, v any, col, gap int, ex exemplar) error {
	switch x := v.(type) {
	case yamlpatch.Map:
		return e.writeMap(b, x, col, ex, true)
	case []any:
		return e.writeSeq(b, x, col, gap, ex, true)
	}
	return fmt.Errorf("%T is not a block value", v)
}

// writeMap writes block mapping entries with their keys at col.
func (e *editor) writeMap(b *strings.Builder, m yamlpatch.Map, col int, ex exemplar, firstInline bool) error {
	for i, kv := range m {
		if err := e.writeEntry(b, kv.Key, kv.Value, col, ex.child(kv.Key), firstInline && i == 0); err != nil {
			return err
		}
	}
	return nil
}

// writeEntry writes "key: value" at col; ex stands for the value.
func (e *editor) writeEntry(b *strings.Builder, key string, v any, col int, ex exemplar, firstInline bool) error {
	if !firstInline {
		b.WriteString(strings.Repeat(" ", col))
	}
	b.WriteString(e.keyText(key))
	b.WriteByte(':')
	if needsBlock(v) {
		b.WriteByte('\n')
		return e.writeBlockValue(b, v, col, ex)
	}
	s, err := e.inline(v, ex, false)
	if err != nil {
		return err
	}
	b.WriteString(" " + s + "\n")
	return nil
}

// writeSeq writes block list items with their dashes at dashCol.
func (e *editor) writeSeq(b *strings.Builder, s []any, dashCol, gap int, ex exemplar, firstInline bool) error {
	iex := ex.items()
	for i, v := range s {
		if err := e.writeItem(b, v, dashCol, gap, iex, firstInline && i == 0); err != nil {
			return err
		}
	}
	return nil
}

// writeItem writes one block list item; ex stands for the item.
func (e *editor) writeItem(b *strings.Builder, v any, dashCol, gap int, ex exemplar, firstInline bool) error {
	if !firstInline {
		b.WriteString(strings.Repeat(" ", dashCol))
	}
	b.WriteString("-" + strings.Repeat(" ", gap-1))
	switch x := v.(type) {
	case yamlpatch.Map:
		if len(x) > 0 {
			return e.writeMap(b, x, dashCol+gap, ex, true)
		}
	case []any:
		if len(x) > 0 {
			return e.writeSeq(b, x, dashCol+gap, gap, ex, true)
		}
	}
	s, err := e.inline(v, ex, false)
	if err != nil {
		return err
	}
	b.WriteString(s + "\n")
	return nil
}
