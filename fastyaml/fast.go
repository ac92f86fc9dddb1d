package fastyaml

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// fastParse parses the block-style YAML that state files are written in —
// block mappings and sequences, "- key: value" entries, single-line plain
// and quoted scalars, one-line flow sequences and mappings of scalars,
// literal and folded block scalars, comments — straight into the
// yaml.Node tree yaml.v3 would build, without yaml.v3's token and event
// machinery. It is about three times as fast and makes a few hundred
// allocations where yaml.v3 makes tens of thousands; on a small machine
// that was most of the cost of reading a file.
//
// It returns nil whenever the text uses anything outside that subset
// (anchors, aliases, tags, multi-line flow or quoted scalars, plain
// scalars over several lines, tabs, lone CRs, numbers other than plain
// decimals, …) or is not valid YAML; the caller then parses with yaml.v3,
// which also reports any error. Accepted input gives the tree yaml.v3
// gives — kinds, tags, values, styles, lines, columns — apart from
// comments, which nothing reads. Verify (which statefile's FuzzParse runs)
// and TestFastParseRandom check this against yaml.v3.
func fastParse(yml []byte) *yaml.Node {
	root, _ := fastParseWhy(yml, yamltext.NewLineMap(yml, 0))
	return root
}

// fastParseWhy is fastParse that also says why it gave up, with the line;
// lines is yml's LineMap, which Parse's caller has already made.
func fastParseWhy(yml []byte, lines yamltext.LineMap) (*yaml.Node, string) {
	return fastParseMemo(yml, lines, nil, false)
}

// fastParseMemo is fastParseWhy that, when record is set, also keeps a
// Memo of the parse in p.memo, taking unchanged entries from prev (see
// ParseMemo).
func fastParseMemo(yml []byte, lines yamltext.LineMap, prev *Memo, record bool) (*yaml.Node, string) {
	return (&fastParser{}).run(yml, lines, prev, record)
}

func (p *fastParser) run(yml []byte, lines yamltext.LineMap, prev *Memo, record bool) (*yaml.Node, string) {
	if !lines.SameLines() {
		return nil, "characters or lines outside the subset"
	}
	incremental := record && prev != nil
	var ascii bool
	if incremental {
		// The characters are checked after the parse, outside the
		// entries taken from prev (see checkGaps).
		ascii = isASCII(yml)
	} else {
		var ok bool
		if ok, ascii = fastSafeText(yml); !ok {
			return nil, "characters or lines outside the subset"
		}
	}
	if !incremental || len(yml) == 0 {
		p.src = string(yml)
	} else {
		// The nodes built here live beside nodes of earlier versions and
		// may outlive this text by many versions: each value gets a string
		// of its own rather than pinning the whole text (see node). The
		// text is read through a view of yml, which is not modified while
		// it is parsed.
		p.src, p.copyValues = unsafe.String(&yml[0], len(yml)), true
	}
	if record {
		p.memo = &Memo{text: yml, sections: map[string]*memoSection{}}
		p.prev = prev
	}
	if buf, _ := linePool.Get().(*[]fastLine); buf != nil {
		p.lines = (*buf)[:0]
	}
	defer func() {
		if cap(p.lines) <= maxPooledLines {
			buf := p.lines[:0]
			linePool.Put(&buf)
		}
	}()
	p.splitLines(ascii)
	p.skipBlank()
	if p.i >= len(p.lines) || keyEnd(p.text(p.i)) < 0 {
		return nil, "not a block mapping"
	}
	if p.memo != nil {
		p.memo.rootIndent = p.lines[p.i].indent
	}
	root := p.blockMapping(p.lines[p.i].indent, 0)
	if !p.bad {
		p.skipBlank()
		if p.i < len(p.lines) {
			p.fail("text after the top-level mapping")
		}
	}
	if p.bad {
		return nil, "line " + strconv.Itoa(p.whyLine) + ": " + p.why
	}
	if incremental && !p.checkGaps(yml) {
		return nil, "characters or lines outside the subset"
	}
	if p.memoOff {
		if p.lean != nil && len(p.taken) > 0 {
			// The tree may hold Stubs, which only the memo explains.
			return nil, "an entry ended where its end was not expected"
		}
		p.memo = nil
	}
	return root, ""
}

// fastMaxDepth bounds nesting; deeper input goes to yaml.v3, which reports
// its own limit.
const fastMaxDepth = 100

type fastLine struct {
	start, end int // byte offsets of the line in src, without the '\n'
	indent     int // leading spaces (bytes; a line starts with ASCII)
	ascii      bool
	nl         bool // the line ends with '\n'
}

type fastParser struct {
	src     string
	lines   []fastLine
	i       int  // the current line
	bad     bool // the input is outside the subset: give up
	why     string
	whyLine int

	nodes []yaml.Node  // slab the nodes are carved from
	ptrs  []*yaml.Node // slab Content slices are carved from
	stack []*yaml.Node // children of the collections being built

	// copyValues gives every node value a string of its own (src is then
	// a view of bytes the nodes must not keep).
	copyValues bool
	// The memo being recorded (nil: none) and what it reuses (memo.go).
	memo       *Memo
	prev       *Memo
	memoOff    bool // the memo turned out unusable: keep none
	lean       func(key string) bool
	sectionKey string // the top-level key whose value is being parsed
	reuse      reuser
	taken      [][2]int32 // the text of the entries taken from prev, in order

	// halfAt overrides halfMin when set (tests); joined counts the halves
	// taken (half.go).
	halfAt int
	joined int
}

// fastSafeText reports whether yml has only what the fast parser handles
// at the character level: safeChars, and no directive or document marker
// lines. (Line breaks other than LF and CRLF show in the LineMap: see
// fastParseWhy.) ascii says yml is all ASCII.
func fastSafeText(yml []byte) (ok, ascii bool) {
	if ok, ascii = safeChars(yml); !ok {
		return false, false
	}
	if isMarkerLine(yml) {
		return false, false
	}
	for _, m := range []string{"\n---", "\n...", "\n%"} { // isMarkerLine on every other line
		if bytes.Contains(yml, []byte(m)) {
			return false, false
		}
	}
	return true, ascii
}

// safeChars reports whether yml's characters are all ones the fast
// parser handles: text yaml.v3 accepts (yamltext.BadChar), no tab and no
// BOM. ascii says yml is all ASCII.
func safeChars(yml []byte) (ok, ascii bool) {
	if bytes.IndexByte(yml, '\t') >= 0 || bytes.Contains(yml, []byte("\uFEFF")) {
		return false, false
	}
	bad, ascii := yamltext.BadChar(yml)
	return bad < 0, ascii
}

// fail marks the input as outside the subset; why is for debugging.
func (p *fastParser) fail(why string) {
	if !p.bad {
		p.bad, p.why, p.whyLine = true, why, p.i+1
	}
}

// linePool keeps line tables between parses: a watcher parses each new
// version of a large file, and its table of lines is garbage as soon as
// the tree is built. maxPooledLines bounds what is kept.
var linePool sync.Pool

const maxPooledLines = 1 << 20

// splitLines finds the lines of src; ascii says src is all ASCII, which
// spares looking at every byte again.
func (p *fastParser) splitLines(ascii bool) {
	if n := strings.Count(p.src, "\n") + 1; cap(p.lines) < n {
		p.lines = make([]fastLine, 0, n)
	}
	for pos := 0; pos <= len(p.src); {
		end := strings.IndexByte(p.src[pos:], '\n')
		nl := end >= 0
		if nl {
			end += pos
		} else {
			end = len(p.src)
		}
		next := end + 1
		if nl && end > pos && p.src[end-1] == '\r' {
			end-- // CRLF
		}
		l := fastLine{start: pos, end: end, nl: nl, ascii: true}
		for l.indent < end-pos && p.src[pos+l.indent] == ' ' {
			l.indent++
		}
		for k := pos; !ascii && k < end; k++ {
			if p.src[k] >= 0x80 {
				l.ascii = false
				break
			}
		}
		if nl || end > pos {
			p.lines = append(p.lines, l)
		}
		pos = next
	}
}

// text is line i from its indentation on.
func (p *fastParser) text(i int) string {
	l := p.lines[i]
	return p.src[l.start+l.indent : l.end]
}

// blank reports whether line i holds only spaces or a comment.
func (p *fastParser) blank(i int) bool {
	t := p.text(i)
	return t == "" || t[0] == '#'
}

// skipBlank moves past blank and comment lines.
func (p *fastParser) skipBlank() {
	for p.i < len(p.lines) && p.blank(p.i) {
		p.i++
	}
}

// col is the 1-based column (in characters, as yaml.v3 counts) of byte
// offset off on line i.
func (p *fastParser) col(i, off int) int {
	l := p.lines[i]
	if l.ascii {
		return off - l.start + 1
	}
	return utf8.RuneCountInString(p.src[l.start:off]) + 1
}

func (p *fastParser) node(kind yaml.Kind, tag, value string, style yaml.Style, line, off int) *yaml.Node {
	if p.copyValues {
		value = strings.Clone(value)
	}
	n := p.alloc()
	*n = yaml.Node{Kind: kind, Tag: tag, Value: value, Style: style, Line: line + 1, Column: p.col(line, off)}
	return n
}

// ownAlloc says whether a block collection at depth gets a node and a
// Content slice of its own rather than slab space: when a memo is
// recorded, for the root and the top-level collections — the nodes whose
// Content holds entries a later version may take over. Slab space lives
// as long as any node carved from it: a root or a list of 10,000 atoms
// sharing a chunk with a changed entry that the next versions keep would
// keep its Content, and through it the entries of its own version, whose
// chunks hold the root of the version before, and so on — every version
// read would stay in memory.
func (p *fastParser) ownAlloc(depth int) bool { return p.memo != nil && depth <= 1 }

// alloc returns a zero node carved from the slab.
func (p *fastParser) alloc() *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		// Chunks grow with the file, so that a small file allocates
		// little and a large one makes few allocations.
		p.nodes = make([]yaml.Node, 0, min(max(64, 2*cap(p.nodes)), 4096))
	}
	p.nodes = append(p.nodes, yaml.Node{})
	return &p.nodes[len(p.nodes)-1]
}

// content moves the children pushed since mark into n.Content, a slice
// whose capacity is its length so that an append elsewhere copies it.
func (p *fastParser) content(n *yaml.Node, mark int, depth int) {
	kids := p.stack[mark:]
	if len(kids) > 0 && p.ownAlloc(depth) {
		n.Content = slices.Clone(kids)
	} else if len(kids) > 0 {
		if cap(p.ptrs)-len(p.ptrs) < len(kids) {
			p.ptrs = make([]*yaml.Node, 0, max(min(max(64, 2*cap(p.ptrs)), 8192), len(kids)))
		}
		a := len(p.ptrs)
		p.ptrs = append(p.ptrs, kids...)
		n.Content = p.ptrs[a:len(p.ptrs):len(p.ptrs)]
	}
	clear(kids)
	p.stack = p.stack[:mark]
}

// keyEnd returns the length of the plain key t starts with when t is
// "key:" followed by a space or the end of the line, else -1. Keys are
// kept to names (a letter or _, then letters, digits, _ . -) that yaml.v3
// resolves to strings, and to decimal integers (a rubric's levels).
func keyEnd(t string) int {
	k := 0
	digits := t != "" && t[0] >= '0' && t[0] <= '9'
	for k < len(t) {
		c := t[k]
		if digits && c >= '0' && c <= '9' ||
			!digits && (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-')) {
			k++
			continue
		}
		break
	}
	if k == 0 || k >= len(t) || t[k] != ':' || (k+1 < len(t) && t[k+1] != ' ') || k > maxKeyLen {
		return -1
	}
	if digits {
		if tag, _ := numberTag(t[:k]); tag != "!!int" {
			return -1
		}
	}
	switch t[:k] {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return -1
	}
	return k
}

// maxKeyLen keeps keys well under yaml.v3's limit: the ':' of a simple key
// must come within 1024 characters of the key's start.
const maxKeyLen = 1000

// keyTag is the tag of a key keyEnd accepted.
func keyTag(key string) string {
	if key[0] >= '0' && key[0] <= '9' {
		return "!!int"
	}
	return "!!str"
}

// openBlock starts a block collection at the current line (nil past the
// depth limit) and returns the mark its children are pushed after.
func (p *fastParser) openBlock(kind yaml.Kind, tag string, depth int) (*yaml.Node, int) {
	if depth > fastMaxDepth {
		p.fail("too deep")
		return nil, 0
	}
	first := p.lines[p.i]
	if p.ownAlloc(depth) {
		return &yaml.Node{Kind: kind, Tag: tag, Line: p.i + 1, Column: p.col(p.i, first.start+first.indent)}, len(p.stack)
	}
	return p.node(kind, tag, "", 0, p.i, first.start+first.indent), len(p.stack)
}

// within moves past blank lines and reports whether the next line belongs
// to the collection at indent (it is not indented less), while all is well.
func (p *fastParser) within(indent int) bool {
	if p.bad {
		return false
	}
	p.skipBlank()
	return p.i < len(p.lines) && p.lines[p.i].indent >= indent
}

// blockMapping parses the block mapping whose keys start at column
// indent, beginning at the current line.
func (p *fastParser) blockMapping(indent, depth int) *yaml.Node {
	m, mark := p.openBlock(yaml.MappingNode, "!!map", depth)
	sec := p.openSection(m, depth)
	for m != nil && p.within(indent) {
		l := p.lines[p.i]
		t := p.text(p.i)
		k := keyEnd(t)
		if l.indent > indent || k < 0 {
			p.fail("not a key line in a mapping")
			break
		}
		if sec != nil {
			p.entry(sec, indent, k, depth)
			continue
		}
		key := p.node(yaml.ScalarNode, keyTag(t[:k]), t[:k], 0, p.i, l.start+l.indent)
		p.stack = append(p.stack, key)
		if depth == 0 {
			p.enterSection(key.Value)
		}
		v := p.value(l.start+l.indent+k+1, indent, true, depth)
		p.sectionKey = ""
		p.stack = append(p.stack, v)
	}
	if m != nil {
		p.content(m, mark, depth)
	}
	return m
}

// blockSequence parses the block sequence whose dashes are at column
// indent, beginning at the current line.
func (p *fastParser) blockSequence(indent, depth int) *yaml.Node {
	s, mark := p.openBlock(yaml.SequenceNode, "!!seq", depth)
	sec := p.openSection(s, depth)
	var h *half
	if s != nil && sec == nil && depth == 1 && p.memo == nil {
		h = p.startHalf(indent, depth)
	}
	for s != nil && p.within(indent) {
		if h != nil && p.i >= h.cut {
			if p.i == h.cut {
				p.joinHalf(h)
				break
			}
			h = nil // the cut was inside an entry: go on alone
		}
		l := p.lines[p.i]
		if l.indent > indent {
			p.fail("more indented than the sequence")
			break
		}
		if !isDashEntry(p.text(p.i)) {
			break // the next key of the mapping around an indentless sequence
		}
		if sec != nil {
			p.entry(sec, indent, -1, depth)
			continue
		}
		p.stack = append(p.stack, p.value(l.start+l.indent+1, indent, false, depth))
	}
	if s != nil {
		p.content(s, mark, depth)
	}
	return s
}

// seqEntries parses the entries of the block sequence at indent from the
// current line on, as blockSequence's loop does, onto p.stack.
func (p *fastParser) seqEntries(indent, depth int) {
	for p.within(indent) {
		l := p.lines[p.i]
		if l.indent > indent {
			p.fail("more indented than the sequence")
			return
		}
		if !isDashEntry(p.text(p.i)) {
			return
		}
		p.stack = append(p.stack, p.value(l.start+l.indent+1, indent, false, depth))
	}
}

// value parses what follows an indicator — the ':' after a key (inMap) or
// a '-' — whose text continues at byte offset pos of the current line;
// indent is the column of the key or dash. It leaves the current line on
// the first line after the value.
func (p *fastParser) value(pos, indent int, inMap bool, depth int) *yaml.Node {
	i := p.i
	l := p.lines[i]
	rest := p.src[pos:l.end]
	lead := len(rest) - len(strings.TrimLeft(rest, " "))
	rest = rest[lead:]
	at := pos + lead
	if rest == "" || rest[0] == '#' {
		if lead == 0 && rest != "" {
			p.fail("\"-#\": not a comment")
			return nil
		}
		// The value is on the lines below, or empty.
		p.i++
		p.skipBlank()
		if p.i < len(p.lines) {
			nl := p.lines[p.i]
			t := p.text(p.i)
			switch {
			case nl.indent > indent && isDashEntry(t):
				return p.blockSequence(nl.indent, depth+1)
			case nl.indent > indent && keyEnd(t) > 0:
				return p.blockMapping(nl.indent, depth+1)
			case nl.indent > indent:
				p.fail("a scalar on its own lines")
				return nil
			case inMap && nl.indent == indent && isDashEntry(t):
				return p.blockSequence(indent, depth+1) // indentless
			}
		}
		// yaml.v3 places an empty value just after its indicator.
		return p.node(yaml.ScalarNode, "!!null", "", 0, i, pos)
	}
	if lead == 0 && inMap {
		p.fail("\"key:x\" is not a key")
		return nil
	}
	if !inMap {
		// "- key: value" opens a mapping at the key's column; "- - x" a
		// sequence at the inner dash. Treat the dash as indentation.
		if keyEnd(rest) > 0 || isDashEntry(rest) {
			p.lines[i].indent = at - l.start
			if isDashEntry(rest) {
				return p.blockSequence(at-l.start, depth+1)
			}
			return p.blockMapping(at-l.start, depth+1)
		}
	}
	var n *yaml.Node
	switch rest[0] {
	case '|', '>':
		return p.blockScalar(at, indent)
	case '[', '{':
		n = p.flow(at)
	case '"', '\'':
		n = p.quoted(at, l.end)
	default:
		n = p.plain(at, l.end)
	}
	if p.bad {
		return nil
	}
	// A single-line value: anything more indented below it would continue
	// it (a plain scalar over several lines) or be an error.
	p.i++
	p.skipBlank()
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		p.fail("continued below")
		return nil
	}
	return n
}

// restIsComment reports whether s is blank or blanks and then a comment.
func restIsComment(s string) bool {
	t := strings.TrimLeft(s, " ")
	return t == "" || (t[0] == '#' && len(t) < len(s))
}

// plain parses a plain scalar from at to the end of the line (or to a
// comment).
func (p *fastParser) plain(at, end int) *yaml.Node {
	s, tag, ok := plainScalar(p.src, at, end)
	if !ok {
		p.fail("not a plain scalar")
		return nil
	}
	return p.node(yaml.ScalarNode, tag, s, 0, p.i, at)
}

// plainScalar reads the plain scalar of a block value in src from at to
// end (the end of its line), up to any comment: its text and tag, ok false
// when it is not one the parsers are sure of (see plainTag).
func plainScalar(src string, at, end int) (s, tag string, ok bool) {
	s = src[at:end]
	if k := strings.Index(s, " #"); k >= 0 {
		s = s[:k]
	}
	s = strings.TrimRight(s, " ")
	tag, ok = plainTag(s, false)
	return s, tag, ok
}

// plainTag returns the tag yaml.v3 resolves the plain scalar s to, and
// false when s is not a plain scalar this parser is sure of (in a flow
// collection when flow is true).
func plainTag(s string, flow bool) (string, bool) {
	if s == "" {
		return "", false
	}
	switch s[0] {
	case '-':
		return numberTag(s[1:])
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '+', '<', '=', '~', ' ':
		if s == "~" {
			return "!!null", true
		}
		return "", false
	case '.':
		if len(s) == 1 || s[1] >= '0' && s[1] <= '9' {
			return "", false
		}
		switch s {
		case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
			return "", false
		}
	}
	// One pass for what would end the scalar or make it something else:
	// ": " or a ':' at the end, and in a flow any ':' and the flow
	// indicators ('?' is a key indicator in a flow).
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if flow || i+1 == len(s) || s[i+1] == ' ' {
				return "", false
			}
		case ',', '[', ']', '{', '}', '#', '?':
			if flow {
				return "", false
			}
		}
	}
	if c := s[0]; c >= '0' && c <= '9' {
		return numberTag(s)
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool", true
	case "null", "Null", "NULL":
		return "!!null", true
	}
	return "!!str", true
}

// numberTag resolves a plain decimal number (after any minus sign):
// digits without a leading zero, then optionally '.' and digits. Anything
// else that starts like a number (exponents, octal, hex, underscores,
// timestamps) is left to yaml.v3.
func numberTag(s string) (string, bool) {
	k := 0
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == 0 || k > 18 || (s[0] == '0' && k > 1) {
		return "", false
	}
	if k == len(s) {
		return "!!int", true
	}
	if s[k] != '.' || k+1 == len(s) {
		return "", false
	}
	for _, c := range s[k+1:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return "!!float", true
}

// quoted parses a single-line double- or single-quoted scalar at at and
// checks that only blanks or a comment follow it.
func (p *fastParser) quoted(at, end int) *yaml.Node {
	v, _, style, why := quotedScalar(p.src, at, end)
	if why != "" {
		p.fail(why)
		return nil
	}
	return p.node(yaml.ScalarNode, "!!str", v, style, p.i, at)
}

// quotedScalar reads the single-line double- or single-quoted scalar at
// at in src, which only blanks or a comment may follow up to end: its
// value, whether that is a string of its own (it had escapes) rather than
// a part of src, and its style; why says why it is not one the parsers are
// sure of ("" when it is).
func quotedScalar(src string, at, end int) (v string, fresh bool, style yaml.Style, why string) {
	q := src[at]
	style = yaml.DoubleQuotedStyle
	if q == '\'' {
		style = yaml.SingleQuotedStyle
	}
	// Most values have no escape: the closing quote, with no backslash
	// before it (and, single-quoted, no second quote after it).
	if k := strings.IndexByte(src[at+1:end], q) + at + 1; k > at {
		plain := q == '"' && strings.IndexByte(src[at+1:k], '\\') < 0 || q == '\'' && (k+1 >= end || src[k+1] != '\'')
		if plain {
			if !restIsComment(src[k+1 : end]) {
				return "", false, 0, "not closed on this line, or followed by more than a comment"
			}
			return src[at+1 : k], false, style, ""
		}
	}
	var b strings.Builder
	escaped := false
	k := at + 1
	for ; k < end; k++ {
		c := src[k]
		if c == q {
			if q == '\'' && k+1 < end && src[k+1] == '\'' {
				if !escaped {
					b.WriteString(src[at+1 : k])
					escaped = true
				}
				b.WriteByte('\'')
				k++
				continue
			}
			break
		}
		if q == '"' && c == '\\' {
			if !escaped {
				b.WriteString(src[at+1 : k])
				escaped = true
			}
			r, n := unescape(src[k+1 : end])
			if n == 0 {
				return "", false, 0, "an escape left to yaml.v3"
			}
			b.WriteRune(r)
			k += n
			continue
		}
		if escaped {
			b.WriteByte(c)
		}
	}
	if k >= end || !restIsComment(src[k+1:end]) {
		return "", false, 0, "not closed on this line, or followed by more than a comment"
	}
	v = src[at+1 : k]
	if escaped {
		v = b.String()
	}
	return v, escaped, style, ""
}

// unescape decodes the double-quoted escape that s starts with (after the
// backslash) and returns the rune and the bytes used, or 0 bytes for an
// escape this parser leaves to yaml.v3.
func unescape(s string) (rune, int) {
	if s == "" {
		return 0, 0
	}
	switch s[0] {
	case '\\':
		return '\\', 1
	case '"':
		return '"', 1
	case 'n':
		return '\n', 1
	case 't':
		return '\t', 1
	case 'r':
		return '\r', 1
	case '0':
		return 0, 1
	case 'u':
		if len(s) < 5 {
			return 0, 0
		}
		var r rune
		for _, c := range s[1:5] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | (c - '0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | (c - 'a' + 10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | (c - 'A' + 10)
			default:
				return 0, 0
			}
		}
		if r >= 0xD800 && r <= 0xDFFF {
			return 0, 0
		}
		return r, 5
	}
	return 0, 0
}

// flow parses a flow sequence or mapping of scalars that closes on its
// line.
func (p *fastParser) flow(at int) *yaml.Node {
	end := p.lines[p.i].end
	kind, tag, closer := yaml.SequenceNode, "!!seq", byte(']')
	if p.src[at] == '{' {
		kind, tag, closer = yaml.MappingNode, "!!map", '}'
	}
	n := p.node(kind, tag, "", yaml.FlowStyle, p.i, at)
	mark := len(p.stack)
	k := at + 1
	afterComma, needComma := false, false
	for !p.bad {
		k = skipSpaces(p.src, k, end)
		if k >= end {
			p.fail("flow: not closed on its line")
			break
		}
		if p.src[k] == closer {
			if afterComma {
				p.fail("flow: a trailing comma")
			}
			k++
			break
		}
		if needComma {
			if p.src[k] != ',' {
				p.fail("flow: no comma")
				break
			}
			afterComma, needComma = true, false
			k++
			continue
		}
		afterComma, needComma = false, true
		if kind == yaml.MappingNode {
			start := k
			key := p.flowScalar(&k, end, ':')
			if p.bad || k+1 >= end || p.src[k] != ':' || p.src[k+1] != ' ' || k-start > maxKeyLen {
				p.fail("flow: not key: value")
				break
			}
			p.stack = append(p.stack, key)
			k = skipSpaces(p.src, k+1, end)
		}
		v := p.flowScalar(&k, end, closer)
		if p.bad {
			break
		}
		p.stack = append(p.stack, v)
	}
	if !p.bad && !restIsComment(p.src[k:end]) {
		p.fail("flow: text after it")
	}
	p.content(n, mark, fastMaxDepth+1) // no entry is ever taken into a flow collection: slab space
	return n
}

// flowScalar parses the quoted or plain scalar of a flow collection at
// *k, which ends before a ',' or stop, and moves *k past it.
func (p *fastParser) flowScalar(k *int, end int, stop byte) *yaml.Node {
	at := *k
	if at < end && (p.src[at] == '"' || p.src[at] == '\'') {
		close := closingQuote(p.src, at, end)
		if close < 0 {
			p.fail("flow: a quote not closed")
			return nil
		}
		*k = close + 1
		return p.quoted(at, close+1)
	}
	v, tag, next, why := flowPlain(p.src, at, end, stop)
	if why != "" {
		p.fail(why)
		return nil
	}
	*k = next
	return p.node(yaml.ScalarNode, tag, v, 0, p.i, at)
}

// flowPlain reads the plain scalar of a flow collection at at in src,
// which ends before a ',' or stop (or end): its text, its tag and where it
// ends; why says why it is not one the parsers are sure of ("" when it is).
func flowPlain(src string, at, end int, stop byte) (v, tag string, next int, why string) {
	if at >= end {
		return "", "", at, "flow: no scalar"
	}
	e := at
	for e < end && src[e] != ',' && src[e] != stop {
		e++
	}
	v = strings.TrimRight(src[at:e], " ")
	tag, ok := plainTag(v, true)
	if !ok {
		return "", "", at, "flow: not a plain scalar"
	}
	return v, tag, e, ""
}

func skipSpaces(s string, k, end int) int {
	for k < end && s[k] == ' ' {
		k++
	}
	return k
}

// closingQuote returns the offset of the quote that closes the quoted
// scalar at k in src, or -1.
func closingQuote(src string, k, end int) int {
	q := src[k]
	for j := k + 1; j < end; j++ {
		switch c := src[j]; {
		case q == '"' && c == '\\':
			j++
		case c == q && q == '\'' && j+1 < end && src[j+1] == '\'':
			j++
		case c == q:
			return j
		}
	}
	return -1
}

// blockScalar parses a literal (|) or folded (>) block scalar whose header
// is at at; indent is the column of the key or dash that owns it.
func (p *fastParser) blockScalar(at, indent int) *yaml.Node {
	i := p.i
	end := p.lines[i].end
	style := yaml.LiteralStyle
	if p.src[at] == '>' {
		style = yaml.FoldedStyle
	}
	k := at + 1
	strip := false
	if k < end && p.src[k] == '-' {
		strip = true
		k++
	}
	if k < end && p.src[k] != ' ' || !restIsComment(p.src[k:end]) {
		p.fail("keep (+), an indentation digit, or text after the header")
		return nil
	}
	// The content: lines indented more than the owner, up to the first
	// line with text indented less than the first content line.
	j := i + 1
	if j >= len(p.lines) || p.lines[j].indent <= indent || p.text(j) == "" {
		p.fail("empty, or starts with a blank line")
		return nil
	}
	ci := p.lines[j].indent
	var parts []string
	last := j
	for ; j < len(p.lines); j++ {
		l := p.lines[j]
		if l.end == l.start {
			parts = append(parts, "")
			continue
		}
		if p.text(j) == "" {
			p.fail("a line of spaces only: left to yaml.v3")
			return nil
		}
		if l.indent < ci {
			break
		}
		if style == yaml.FoldedStyle && l.indent > ci {
			p.fail("more-indented lines fold differently")
			return nil
		}
		parts = append(parts, p.src[l.start+ci:l.end])
		last = j
	}
	parts = parts[:last-i]
	if !p.lines[last].nl {
		p.fail("block scalar at EOF without newline")
		return nil
	}
	var b strings.Builder
	for n, s := range parts {
		if n > 0 {
			switch {
			case style == yaml.LiteralStyle:
				b.WriteByte('\n')
			case s == "":
				b.WriteByte('\n')
			case parts[n-1] != "":
				b.WriteByte(' ')
			}
		}
		b.WriteString(s)
	}
	if !strip {
		b.WriteByte('\n')
	}
	p.i = last + 1
	return p.node(yaml.ScalarNode, "!!str", b.String(), style, i, at)
}
