package yamledit

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// yamlText locates yaml.v3 node positions in the file's bytes. yaml.v3 gives
// only where a node starts, as a 1-based line counted from the first YAML
// line and a 1-based column counted in characters; where a node ends is
// found here by reading the text, and every span found is checked against
// what the parser saw, so an edit is refused rather than misplaced.
type yamlText struct {
	data []byte
	// start and end delimit the YAML text in data.
	start, end int
	// lines[i] is the offset in data of YAML line i (0-based); a last entry
	// equal to end closes the final line.
	lines []int
	// bomSkip is set when the YAML text itself begins with a byte order
	// mark, which yaml.v3's reader drops without counting a column.
	bomSkip bool
}

// errLocate is wrapped by errors that mean the text did not look as the
// parser said it would: the edit is refused instead of guessed.
var errLocate = fmt.Errorf("%w: the text around it could not be located exactly", ErrUnsupported)

func newYAMLText(data []byte, start, end int, ascii bool) *yamlText {
	t := &yamlText{data: data, start: start, end: end}
	y := data[start:end]
	t.bomSkip = bytes.HasPrefix(y, yamltext.BOM)
	// yaml.v3 breaks lines at \n, \r\n, a lone \r, NEL, LS and PS. The
	// common case has only \n and \r\n: index those with IndexByte.
	simple := yamltext.SimpleBreaks(y, ascii)
	t.lines = make([]int, 0, len(y)/24+2)
	t.lines = append(t.lines, start)
	if simple {
		for off := 0; ; {
			i := bytes.IndexByte(y[off:], '\n')
			if i < 0 {
				break
			}
			off += i + 1
			if off < len(y) {
				t.lines = append(t.lines, start+off)
			}
		}
	} else {
		for i := 0; i < len(y); {
			n := yamltext.BreakLen(y, i)
			if n == 0 {
				i++
				continue
			}
			i += n
			if i < len(y) {
				t.lines = append(t.lines, start+i)
			}
		}
	}
	t.lines = append(t.lines, end)
	return t
}

// nlines is the number of YAML lines.
func (t *yamlText) nlines() int { return len(t.lines) - 1 }

// lineStart is the offset of line i; nlines() gives the end of the text.
func (t *yamlText) lineStart(i int) int {
	if i >= len(t.lines) {
		return t.end
	}
	return t.lines[i]
}

// lineEnd is the offset of the line break that ends line i (or of the end
// of the text when the line has none).
func (t *yamlText) lineEnd(i int) int {
	next := t.lineStart(i + 1)
	s := t.lines[i]
	// The break is the last 1–3 bytes before next.
	for n := 3; n >= 1; n-- {
		j := next - n
		if j >= s && yamltext.BreakLen(t.data[:next], j) == n {
			return j
		}
	}
	return next
}

// lineOf is the line holding offset off.
func (t *yamlText) lineOf(off int) int {
	i := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	if i < 0 {
		return 0
	}
	if i >= t.nlines() {
		return t.nlines() - 1
	}
	return i
}

// offset converts a yaml.v3 position (1-based line, 1-based column in
// characters) to an offset in data.
func (t *yamlText) offset(line, col int) (int, bool) {
	if line < 1 || line > t.nlines() || col < 1 {
		return 0, false
	}
	pos := t.lines[line-1]
	if line == 1 && t.bomSkip {
		pos += len(yamltext.BOM)
	}
	end := t.lineEnd(line - 1)
	for c := 1; c < col; c++ {
		if pos >= end {
			return 0, false
		}
		if t.data[pos] < utf8.RuneSelf {
			pos++
			continue
		}
		_, n := utf8.DecodeRune(t.data[pos:end])
		pos += n
	}
	return pos, true
}

// column is the 0-based column, in characters, of offset off.
func (t *yamlText) column(off int) int {
	return utf8.RuneCount(t.data[t.lines[t.lineOf(off)]:off])
}

// indent counts the spaces that start line i.
func (t *yamlText) indent(i int) int {
	n := 0
	for p := t.lines[i]; p < t.end && t.data[p] == ' '; p++ {
		n++
	}
	return n
}

// trimmed is line i without leading and trailing blanks and its break.
func (t *yamlText) trimmed(i int) []byte {
	return bytes.Trim(t.data[t.lines[i]:t.lineEnd(i)], " \t")
}

// isBlank reports whether line i holds only blanks.
func (t *yamlText) isBlank(i int) bool { return len(t.trimmed(i)) == 0 }

// isComment reports whether line i holds only a comment.
func (t *yamlText) isComment(i int) bool {
	s := t.trimmed(i)
	return len(s) > 0 && s[0] == '#'
}

// onlySpacesBefore reports whether only spaces precede off on its line.
func (t *yamlText) onlySpacesBefore(off int) bool {
	for p := t.lines[t.lineOf(off)]; p < off; p++ {
		if t.data[p] != ' ' {
			return false
		}
	}
	return true
}

// restIsBlank reports whether only blanks follow off up to its line's end.
func (t *yamlText) restIsBlank(off int) bool {
	end := t.lineEnd(t.lineOf(off))
	return len(bytes.Trim(t.data[off:end], " \t")) == 0
}

// nodeStart is the offset where n's text starts (its properties included).
func (t *yamlText) nodeStart(n *yaml.Node) (int, error) {
	off, ok := t.offset(n.Line, n.Column)
	if !ok {
		return 0, errLocate
	}
	return off, nil
}

// isNull reports an empty or spelled-out null scalar.
func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// isEmptyNull reports a null written as nothing at all ("key:" or "-").
// yaml.v3 places it right after its indicator.
func isEmptyNull(n *yaml.Node) bool {
	return isNullNode(n) && n.Value == "" && n.Style&yaml.TaggedStyle == 0 && n.Anchor == ""
}

// isBlock reports a block collection (one that cannot sit on one line).
func isBlock(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && n.Style&yaml.FlowStyle == 0
}

// skipProps skips a node's anchor and tag (and the blanks, breaks and
// comments after them) and returns where its content starts.
func (t *yamlText) skipProps(off int) int {
	d := t.data
	for off < t.end && (d[off] == '&' || d[off] == '!') {
		for off < t.end && d[off] != ' ' && d[off] != '\t' && yamltext.BreakLen(d[:t.end], off) == 0 {
			off++
		}
		off = t.skipSpace(off, true)
	}
	return off
}

// skipSpace skips blanks, and with breaks also line breaks and comments.
func (t *yamlText) skipSpace(off int, breaks bool) int {
	d := t.data[:t.end]
	for off < len(d) {
		switch {
		case d[off] == ' ' || d[off] == '\t':
			off++
		case breaks && yamltext.BreakLen(d, off) > 0:
			off += yamltext.BreakLen(d, off)
		case breaks && d[off] == '#' && (off == 0 || d[off-1] == ' ' || d[off-1] == '\t' || yamltext.BreakLen(d, off-1) > 0 || d[off-1] == '\n'):
			off = t.lineEnd(t.lineOf(off))
		default:
			return off
		}
	}
	return off
}

// nodeEnd is the offset just past the last character of n's text (for an
// empty null, its start). parentIndent is the indentation of the block that
// holds n (-1 at the top), which block scalars need.
func (t *yamlText) nodeEnd(n *yaml.Node, parentIndent int, flow bool) (int, error) {
	end, err := t.rawEnd(n, parentIndent, flow)
	if err != nil {
		return 0, err
	}
	// What follows a value is a blank, a break, a comment or, in a flow
	// collection, an indicator; yaml.v3 lets "[0]0" through.
	if end < t.end {
		switch c := t.data[end]; {
		case c == ' ' || c == '\t' || c == '#' || yamltext.BreakLen(t.data[:t.end], end) > 0:
		case flow && (c == ',' || c == ']' || c == '}' || c == ':'):
		default:
			if !isEmptyNull(n) {
				return 0, errLocate
			}
		}
	}
	return end, nil
}

func (t *yamlText) rawEnd(n *yaml.Node, parentIndent int, flow bool) (int, error) {
	for isBlock(n) {
		if len(n.Content) == 0 {
			return 0, errLocate
		}
		parentIndent = n.Column - 1
		n = n.Content[len(n.Content)-1]
	}
	start, err := t.nodeStart(n)
	if err != nil {
		return 0, err
	}
	switch n.Kind {
	case yaml.AliasNode:
		end := start + 1 + len(n.Value)
		if end > t.end || t.data[start] != '*' || string(t.data[start+1:end]) != n.Value {
			return 0, errLocate
		}
		return end, nil
	case yaml.MappingNode, yaml.SequenceNode:
		return t.flowEnd(n, start)
	case yaml.ScalarNode:
		if isEmptyNull(n) {
			// "key: !" is an empty null too, with a tag yaml.v3 drops.
			if start < t.end && (t.data[start] == '!' || t.data[start] == '&') {
				return 0, errLocate
			}
			return start, nil
		}
		return t.scalarEnd(n, t.skipProps(start), parentIndent, flow)
	}
	return 0, errLocate
}

// flowEnd finds the closing bracket of a flow collection.
func (t *yamlText) flowEnd(n *yaml.Node, start int) (int, error) {
	open := t.skipProps(start)
	if open >= t.end {
		return 0, errLocate
	}
	var closer byte
	switch t.data[open] {
	case '[':
		closer = ']'
	case '{':
		closer = '}'
	default:
		// A single pair inside a flow sequence ([a: 1]) has no brackets.
		if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
			return t.nodeEnd(n.Content[1], 0, true)
		}
		return 0, errLocate
	}
	pos := open + 1
	if len(n.Content) > 0 {
		var err error
		if pos, err = t.nodeEnd(n.Content[len(n.Content)-1], 0, true); err != nil {
			return 0, err
		}
	}
	for pos < t.end {
		pos = t.skipSpace(pos, true)
		if pos >= t.end {
			break
		}
		switch t.data[pos] {
		case ',':
			pos++
			continue
		case closer:
			return pos + 1, nil
		}
		break
	}
	return 0, errLocate
}

// scalarEnd finds where a scalar's text ends, starting at its content.
func (t *yamlText) scalarEnd(n *yaml.Node, pos, parentIndent int, flow bool) (int, error) {
	d := t.data[:t.end]
	if pos >= len(d) {
		return 0, errLocate
	}
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0 || n.Style&yaml.SingleQuotedStyle != 0:
		q := d[pos]
		if q != '"' && q != '\'' {
			return 0, errLocate
		}
		i := pos + 1
		for i < len(d) {
			c := d[i]
			if q == '"' && c == '\\' {
				i += 2
				continue
			}
			if c == q {
				if q == '\'' && i+1 < len(d) && d[i+1] == '\'' {
					i += 2
					continue
				}
				end := i + 1
				if !sameScalar(d[pos:end], n.Value) {
					return 0, errLocate
				}
				return end, nil
			}
			i++
		}
		return 0, errLocate
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return t.blockScalarEnd(n, pos, parentIndent)
	}
	return t.plainEnd(n, pos, flow)
}

// sameScalar reports whether text, read alone as YAML, is a scalar whose
// value is want.
func sameScalar(text []byte, want string) bool {
	var n yaml.Node
	if err := yaml.Unmarshal(text, &n); err != nil || len(n.Content) != 1 {
		return false
	}
	c := n.Content[0]
	return c.Kind == yaml.ScalarNode && c.Value == want
}

// plainEnd finds the end of a plain scalar. A one-line plain scalar's text
// is its value; a multi-line one is folded line by line until it matches.
func (t *yamlText) plainEnd(n *yaml.Node, pos int, flow bool) (int, error) {
	d := t.data[:t.end]
	v := n.Value
	if v == "" {
		return 0, errLocate
	}
	if pos+len(v) <= len(d) && string(d[pos:pos+len(v)]) == v {
		return pos + len(v), nil
	}
	// Multi-line: fold the lines as YAML does and compare.
	cut := func(s []byte) []byte {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '#' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				return s[:i]
			}
			if flow && (c == ',' || c == ']' || c == '}' || c == '[' || c == '{') {
				return s[:i]
			}
			if c == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || (flow && bytes.IndexByte([]byte(",[]{}"), s[i+1]) >= 0)) {
				return s[:i]
			}
		}
		return s
	}
	// got counts how much of v the lines read so far account for.
	line := t.lineOf(pos)
	first := bytes.TrimRight(cut(d[pos:t.lineEnd(line)]), " \t")
	if !strings.HasPrefix(v, string(first)) {
		return 0, errLocate
	}
	got := len(first)
	blanks := 0
	for l := line + 1; l < t.nlines(); l++ {
		s := t.lines[l]
		raw := d[s:t.lineEnd(l)]
		lead := len(raw) - len(bytes.TrimLeft(raw, " \t"))
		text := bytes.TrimRight(cut(raw[lead:]), " \t")
		if len(bytes.Trim(raw, " \t")) == 0 {
			blanks++
			continue
		}
		if len(text) == 0 || text[0] == '#' {
			return 0, errLocate
		}
		// Lines fold into one space, or into the breaks of blank lines.
		sep := " "
		if blanks > 0 {
			sep = strings.Repeat("\n", blanks)
		}
		blanks = 0
		if !strings.HasPrefix(v[got:], sep) || !strings.HasPrefix(v[got+len(sep):], string(text)) {
			return 0, errLocate
		}
		got += len(sep) + len(text)
		if got == len(v) {
			return s + lead + len(text), nil
		}
	}
	return 0, errLocate
}

// blockHeader reads a block scalar header (| or > with its indicators) at
// pos and returns the header's end, the explicit indentation (0 if none)
// and whether the chomping keeps trailing line breaks.
func blockHeader(d []byte, pos int) (end, explicit int, keep bool, ok bool) {
	if pos >= len(d) || (d[pos] != '|' && d[pos] != '>') {
		return 0, 0, false, false
	}
	i := pos + 1
	for i < len(d) {
		switch c := d[i]; {
		case c == '+':
			keep = true
		case c == '-':
		case c >= '1' && c <= '9':
			explicit = int(c - '0')
		default:
			return i, explicit, keep, true
		}
		i++
	}
	return i, explicit, keep, true
}

// blockScalarEnd finds the end of a literal or folded scalar's last content
// line (for keep chomping, of its last trailing blank line).
func (t *yamlText) blockScalarEnd(n *yaml.Node, pos, parentIndent int) (int, error) {
	d := t.data[:t.end]
	hend, explicit, keep, ok := blockHeader(d, pos)
	if !ok {
		return 0, errLocate
	}
	header := t.lineOf(pos)
	contentIndent := 0
	if explicit > 0 {
		if parentIndent >= 0 {
			contentIndent = parentIndent + explicit
		} else {
			contentIndent = explicit
		}
	}
	last, lastBlank := -1, -1
	for l := header + 1; l < t.nlines(); l++ {
		if t.isBlank(l) {
			lastBlank = l
			continue
		}
		ind := t.indent(l)
		if contentIndent == 0 {
			if ind <= parentIndent || ind == 0 {
				break
			}
			contentIndent = ind
		}
		if ind < contentIndent {
			break
		}
		last = l
	}
	end := hend
	if last >= 0 {
		end = t.lineEnd(last)
	}
	if keep && lastBlank > last {
		end = t.lineEnd(lastBlank)
	}
	if end < hend {
		end = hend
	}
	// Read alone, the text must give the same value; the appended break
	// stands for the one that ends the last line.
	text := append(append([]byte(nil), d[pos:end]...), '\n')
	if !sameScalar(text, n.Value) {
		return 0, errLocate
	}
	return end, nil
}
