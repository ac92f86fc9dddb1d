package fastyaml

import (
	"math"
	"runtime"
	"strings"
	"unsafe"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// A Reader reads YAML in the subset the fast parser takes (fast.go) one
// value at a time, without building a node tree: a caller that turns the
// text into values of its own (statefile's decoder) asks for the entries
// of each collection in turn and gets each scalar with the tag, value and
// line the tree's node would have. The tree of a 10,000-atom state file
// is some 26 MB of nodes, about twenty times the file; a Reader allocates
// next to nothing: itself, and the few scalars that are not a part of the
// text (quoted ones with escapes, block scalars).
//
// It takes exactly what the fast parser takes: the same characters,
// lines and constructs, each decided by the same rule (most of them by
// the same functions), and it gives up on the rest. Failed then says so,
// and the caller reads the text the other way (Parse). Verify checks both
// promises against the fast parser and yaml.v3; statefile's FuzzParse
// runs it on every input it tries.
//
// Values are read in document order: Next returns the entries of a
// collection one by one, and a collection returned by Next must be read
// (with Next, to its end) or skipped (Skip) before the entry after it is
// asked for. A Reader works on one goroutine; Cut hands a part of a long
// sequence to a second Reader.
type Reader struct {
	src string
	// cur is the line the reader is at, line its index (from 0).
	cur  rline
	line int
	bad  bool
	why  string
	// whyLine is the line (1-based) on which the reader gave up.
	whyLine int
	// For a Reader made by Cut: where it starts, and where the sequence
	// it reads ends (the start of the line after it, and that line's
	// index).
	cutAt, endAt, endLine int
	// flowRead is where the flow collection last read to its end starts
	// (see Skip).
	flowRead int
	// chars is the check of the text's characters (safeChars) when
	// another goroutine makes it, while the text is read (nil: made).
	chars chan bool
}

// rline is a line of the text: where it starts and ends (without its
// '\n', and the '\r' of a CRLF), where the next one starts, its
// indentation (the columns before its text, which a "- key:" entry moves:
// see value) and whether a '\n' ends it.
type rline struct {
	start, end, next int
	indent           int
	nl               bool
}

// Tag is the tag yaml.v3 gives a value, as yaml.Node's ShortTag.
type Tag uint8

// The tags of the values a Reader reads.
const (
	NoTag Tag = iota // no value
	NullTag
	BoolTag
	IntTag
	FloatTag
	StrTag
	MapTag
	SeqTag
)

var tagNames = [...]string{"", "!!null", "!!bool", "!!int", "!!float", "!!str", "!!map", "!!seq"}

// String is the tag as yaml.v3 writes it ("!!str").
func (t Tag) String() string { return tagNames[t] }

// tagOf is the Tag of a scalar tag the fast parser resolves.
func tagOf(tag string) Tag {
	switch tag {
	case "!!null":
		return NullTag
	case "!!bool":
		return BoolTag
	case "!!int":
		return IntTag
	case "!!float":
		return FloatTag
	}
	return StrTag
}

// A Value is what a Reader read: a scalar whole, or where the entries of a
// mapping or sequence are, for Next to read. It is small, since values
// are passed around by the thousand.
type Value struct {
	// Text is a scalar's value. Unless Fresh, it is a part of the text
	// the Reader reads: keep a copy of it, not it, past that text's life.
	Text string
	// Kind is the kind of node yaml.v3 builds for the value: a scalar, a
	// mapping or a sequence (0 when there is no value: the reader gave up).
	Kind yaml.Kind
	// Line is the line the value starts on, from 1, as yaml.Node's Line
	// (the line of the first key or dash of a block collection, of an
	// empty value's indicator).
	Line  int32
	Tag   Tag
	Fresh bool

	// What Next needs of a collection: whether it is a flow collection,
	// where its entries are (block: the start of its first line; flow:
	// where the next entry is read), the indentation of its keys or
	// dashes (block; flow: where it starts, its '[' or '{') and its depth,
	// where Cut made it stop (block; 0: nowhere), the end of its line and
	// the state of its commas (flow).
	flow   bool
	comma  uint8
	at     int32
	indent int32
	depth  int32
	stop   int32
	end    int32
}

// Depth is how deep the collection v is: 0 for the top-level mapping, 1
// for the value of one of its keys, and so on.
func (v Value) Depth() int { return int(v.depth) }

// The states of a flow collection's comma.
const (
	commaNone  = iota // at the start, or an entry may come
	commaWant         // an entry was read: a comma or the end comes next
	commaAfter        // a comma was read: an entry must come
	commaDone         // the collection was read to its end
)

// NewReader returns a Reader of yml, the frontmatter whose LineMap the
// caller has made (NewLineMap(yml, off) for any off), or nil when yml
// has line breaks outside the subset. The characters the fast parser
// leaves to yaml.v3 (see fastSafeText) make the Reader give up too: a
// directive or document marker when it reads that line, and the others
// at Finish — for a large text, on another core while the text is read
// (checkInParallelFrom). The Reader's values share yml's bytes, which
// must not change while they are used.
func NewReader(yml []byte, lines yamltext.LineMap) *Reader {
	check := checkNow
	if len(yml) >= checkInParallelFrom && runtime.GOMAXPROCS(0) > 1 {
		check = checkAside
	}
	return newReader(yml, lines, check)
}

// checkInParallelFrom is the size of text from which NewReader checks its
// characters on another goroutine. (A Reader reads any bytes without
// harm: FuzzParse reads every input unchecked too, see verifyReader.)
const checkInParallelFrom = 64 << 10

// How newReader checks the characters: before it reads, on another
// goroutine while it reads, or (for tests) not at all.
const (
	checkNow = iota
	checkAside
	checkNot
)

func newReader(yml []byte, lines yamltext.LineMap, check int) *Reader {
	if !lines.SameLines() {
		return nil
	}
	if len(yml) > math.MaxInt32 {
		return nil // positions are kept in 32 bits
	}
	r := &Reader{}
	switch check {
	case checkAside:
		r.chars = make(chan bool, 1)
		go func() {
			ok, _ := safeChars(yml)
			r.chars <- ok
		}()
	case checkNow:
		if ok, _ := safeChars(yml); !ok {
			return nil
		}
	}
	if len(yml) > 0 {
		r.src = unsafe.String(&yml[0], len(yml))
	}
	r.load(0)
	return r
}

// Failed reports whether the reader gave up: the text is outside the
// subset, and what it returned must be thrown away.
func (r *Reader) Failed() bool { return r.bad }

// Why says why the reader gave up, with the line ("" when it did not).
func (r *Reader) Why() string {
	if !r.bad {
		return ""
	}
	return "line " + itoa(r.whyLine) + ": " + r.why
}

// Fail makes the reader give up: its caller found the text is not what it
// can read this way.
func (r *Reader) Fail(why string) { r.fail(why) }

func (r *Reader) fail(why string) {
	if !r.bad {
		r.bad, r.why, r.whyLine = true, why, r.line+1
	}
}

// Root returns the top-level mapping, a zero Value when the text is not a
// block mapping (an empty text included).
func (r *Reader) Root() Value {
	r.skipBlank()
	if r.eof() || keyEnd(r.text()) < 0 {
		r.fail("not a block mapping")
		return Value{}
	}
	return r.open(yaml.MappingNode, r.cur.indent, 0)
}

// Finish checks, once the root's entries have all been read, that nothing
// follows them and that the text's characters are ones the subset has,
// and reports whether the whole text was read (not Failed).
func (r *Reader) Finish() bool {
	if !r.bad {
		r.skipBlank()
		if !r.eof() {
			r.fail("text after the top-level mapping")
		}
	}
	if r.chars != nil {
		if !<-r.chars {
			r.fail("characters outside the subset")
		}
		r.chars = nil
	}
	return !r.bad
}

// Next reads the next entry of the collection c: the key and value of a
// mapping's, the item of a sequence's (key is then the zero Value). ok is
// false after the last entry, and when the reader gave up.
func (r *Reader) Next(c *Value) (key, val Value, ok bool) {
	if r.bad || (c.Kind != yaml.MappingNode && c.Kind != yaml.SequenceNode) {
		return Value{}, Value{}, false
	}
	if c.flow {
		return r.flowNext(c)
	}
	if !r.within(int(c.indent)) || (c.stop > 0 && r.cur.start >= int(c.stop)) {
		return Value{}, Value{}, false
	}
	l := r.cur
	if c.Kind == yaml.MappingNode {
		t := r.text()
		k := keyEnd(t)
		if l.indent > int(c.indent) || k < 0 {
			r.fail("not a key line in a mapping")
			return Value{}, Value{}, false
		}
		key = Value{Kind: yaml.ScalarNode, Tag: tagOf(keyTag(t[:k])), Text: t[:k], Line: int32(r.line + 1)}
		val = r.value(l.start+l.indent+k+1, int(c.indent), true, int(c.depth))
		return key, val, !r.bad
	}
	if l.indent > int(c.indent) {
		r.fail("more indented than the sequence")
		return Value{}, Value{}, false
	}
	if !isDashEntry(r.text()) {
		return Value{}, Value{}, false // the next key of the mapping around an indentless sequence
	}
	val = r.value(l.start+l.indent+1, int(c.indent), false, int(c.depth))
	return Value{}, val, !r.bad
}

// Skip moves past v, a value Next returned, when it is a collection whose
// entries were not read to their end; anything else was read whole by
// Next. (A flow collection is on the line Next left, but is checked
// only as its entries are read.)
func (r *Reader) Skip(v Value) {
	if r.bad || (v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode) {
		return
	}
	if v.flow {
		for r.flowRead != int(v.indent) {
			if _, _, ok := r.flowNext(&v); !ok {
				return
			}
		}
		return
	}
	if r.cur.start != int(v.at) {
		return
	}
	for {
		_, e, ok := r.Next(&v)
		if !ok {
			return
		}
		r.Skip(e)
	}
}

// SkipTo moves the reader to pos, the start of a line at or after the
// one it is on, without reading the text between: for a caller that knows
// that text is the rest of an entry Next just returned, and that it is
// the text of an entry read before in the same place of an earlier
// version (an entry MemoOf found unchanged), which the reader took then.
// The reader gives up when pos is behind it or not at a line's start.
func (r *Reader) SkipTo(pos int) {
	if r.bad {
		return
	}
	if pos < r.cur.start || pos > len(r.src) || pos > 0 && r.src[pos-1] != '\n' {
		r.fail("an entry does not end where its memo says")
		return
	}
	r.line += strings.Count(r.src[r.cur.start:pos], "\n")
	r.load(pos)
}

// Len returns the number of entries of the collection v, which Next
// returned and whose entries have not been read yet, by looking at the
// indentation of its lines; 0 once they are being read. It is exact on
// text the Reader takes, and meant for sizing what is made of v.
func (r *Reader) Len(v Value) int {
	switch {
	case v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode:
		return 0
	case v.flow:
		n := 0
		for c := v; ; n++ {
			if _, _, ok := r.flowNext(&c); !ok {
				return n
			}
		}
	case r.cur.start != int(v.at):
		return 0
	}
	return r.scan(v, false).n
}

// Cut prepares reading the block sequence *v, whose entries have not been
// read yet, in two parts at once: *v now ends before one of its entries,
// which second, a Reader of its own, reads from on as rest, to the
// sequence's end. n is the number of entries of the whole sequence and
// from the index of rest's first. Once r has read *v to that entry, Leave
// takes r past the sequence, to go on with what follows it while second
// reads rest; once second has read rest, Join checks that the two met.
// The cut is placed so that r's part of the text (what precedes it, and
// what follows the sequence) is about as long as second's. ok is false
// (and nothing changed) when v has fewer than least entries.
//
// Within the subset, a line with a dash at the column of the sequence's
// own dashes can only start one of its entries (no scalar spans lines
// but a block scalar, which is indented deeper than its key), so the
// entries from the cut on read the same whether a Reader came to them
// from the entries before or started there.
func (r *Reader) Cut(v *Value, least int) (second *Reader, rest Value, n, from int, ok bool) {
	at := int(v.at)
	if v.flow || v.Kind != yaml.SequenceNode || r.cur.start != at || r.bad {
		return nil, Value{}, 0, 0, false
	}
	all := r.scan(*v, true)
	if all.n < max(least, 2) || len(all.marks) == 0 {
		return nil, Value{}, 0, 0, false
	}
	// The first mark at the target or after it, else the last.
	target := max(at, all.end-len(r.src)/2)
	c := all.marks[len(all.marks)-1]
	for _, m := range all.marks {
		if m.pos >= target {
			c = m
			break
		}
	}
	second = &Reader{src: r.src, line: c.line, cutAt: c.pos, endAt: all.end, endLine: all.endLine}
	second.load(c.pos)
	rest = *v
	rest.at, rest.Line = int32(c.pos), int32(c.line+1)
	v.stop = int32(c.pos)
	return second, rest, all.n, c.index, true
}

// Leave takes r, which has read the first part of a sequence Cut made to
// its end, past the sequence: where second will be once it has read the
// rest. r gives up when it is not where second starts.
func (r *Reader) Leave(second *Reader) {
	switch {
	case r.bad:
	case r.cur.start != second.cutAt:
		r.fail("the parts of a sequence read at once do not meet")
	default:
		r.load(second.endAt)
		r.line = second.endLine
	}
}

// Join checks, once second has read the rest of a sequence Cut made, that
// it read it whole and ended where Leave took r; r gives up otherwise.
func (r *Reader) Join(second *Reader) {
	switch {
	case second.bad:
		r.fail(second.why)
		r.whyLine = second.whyLine
	case second.cur.start != second.endAt || second.line != second.endLine:
		r.fail("the second part of a sequence read at once did not end with it")
	}
}

// scanned is what scan found: the number of entries, where the line
// after them starts and its index, and marks at entries after the first,
// evenly spaced (at most maxMarks).
type scanned struct {
	n            int
	end, endLine int
	marks        []mark
}

// A mark is an entry line: where it starts, its line index and the
// entry's index.
type mark struct{ pos, line, index int }

// maxMarks bounds the marks scan keeps: Cut chooses the cut among them,
// and one within a hundredth of the list of the best is as good.
const maxMarks = 128

// scan looks at the lines of the block collection v from the reader's
// line, the first of v's, on, as Next would read them on text it takes:
// the number of v's entries (the key lines of a mapping, the dash lines of
// a sequence, at its indentation) and where the line after them is; with
// marks, marks at entries.
func (r *Reader) scan(v Value, marks bool) scanned {
	k, seq := int(v.indent), v.Kind == yaml.SequenceNode
	var sc scanned
	stride := 1
	// The first line is v's first entry; its indentation may have been
	// moved (see value).
	n := 1
	line := r.line + 1
	pos := r.cur.next
	for ; pos < len(r.src); line++ {
		e := strings.IndexByte(r.src[pos:], '\n')
		next, lend := len(r.src), len(r.src)
		if e >= 0 {
			lend, next = pos+e, pos+e+1
		}
		i := 0
		for i <= k && pos+i < lend && r.src[pos+i] == ' ' {
			i++
		}
		if i <= k {
			switch t := r.src[pos+i : lend]; {
			case t == "" || t[0] == '#' || t == "\r":
				// blank: neither an entry nor the end
			case i < k, seq && !isDashEntry(t):
				sc.n, sc.end, sc.endLine = n, pos, line
				return sc
			case !seq && isDashEntry(t):
				// an item of an indentless sequence, in an entry
			default:
				if marks && n%stride == 0 {
					if len(sc.marks) == maxMarks {
						// Every other one: the marks stay evenly spaced.
						kept := sc.marks[:0]
						for j := 1; j < len(sc.marks); j += 2 {
							kept = append(kept, sc.marks[j])
						}
						sc.marks, stride = kept, 2*stride
					}
					if n%stride == 0 {
						sc.marks = append(sc.marks, mark{pos: pos, line: line, index: n})
					}
				}
				n++
			}
		}
		pos = next
	}
	sc.n, sc.end, sc.endLine = n, pos, line
	return sc
}

// open starts the block collection whose first entry is at the reader's
// line, with its keys or dashes at column indent; nil past the depth
// limit (as fastParser.openBlock).
func (r *Reader) open(kind yaml.Kind, indent, depth int) Value {
	if depth > fastMaxDepth {
		r.fail("too deep")
		return Value{}
	}
	tag := MapTag
	if kind == yaml.SequenceNode {
		tag = SeqTag
	}
	return Value{Kind: kind, Tag: tag, Line: int32(r.line + 1), at: int32(r.cur.start), indent: int32(indent), depth: int32(depth)}
}

// value reads what follows an indicator — the ':' after a key (inMap) or
// a '-' — whose text continues at byte offset pos of the reader's line;
// indent is the column of the key or dash. It is fastParser.value without
// the nodes: a scalar is read whole and the reader left on the line after
// it, a collection is left for Next on its first line.
func (r *Reader) value(pos, indent int, inMap bool, depth int) Value {
	line := r.line
	l := r.cur
	at := skipSpaces(r.src, pos, l.end)
	lead, rest := at-pos, r.src[at:l.end]
	if rest == "" || rest[0] == '#' {
		if lead == 0 && rest != "" {
			r.fail("\"-#\": not a comment")
			return Value{}
		}
		// The value is on the lines below, or empty.
		r.advance()
		r.skipBlank()
		if !r.eof() {
			nl := r.cur
			t := r.text()
			switch {
			case nl.indent > indent && isDashEntry(t):
				return r.open(yaml.SequenceNode, nl.indent, depth+1)
			case nl.indent > indent && keyEnd(t) > 0:
				return r.open(yaml.MappingNode, nl.indent, depth+1)
			case nl.indent > indent:
				r.fail("a scalar on its own lines")
				return Value{}
			case inMap && nl.indent == indent && isDashEntry(t):
				return r.open(yaml.SequenceNode, indent, depth+1) // indentless
			}
		}
		// yaml.v3 places an empty value just after its indicator.
		return Value{Kind: yaml.ScalarNode, Tag: NullTag, Line: int32(line + 1)}
	}
	if lead == 0 && inMap {
		r.fail("\"key:x\" is not a key")
		return Value{}
	}
	if !inMap {
		// "- key: value" opens a mapping at the key's column; "- - x" a
		// sequence at the inner dash. Treat the dash as indentation.
		if keyEnd(rest) > 0 || isDashEntry(rest) {
			r.cur.indent = at - l.start
			if isDashEntry(rest) {
				return r.open(yaml.SequenceNode, at-l.start, depth+1)
			}
			return r.open(yaml.MappingNode, at-l.start, depth+1)
		}
	}
	var v Value
	switch rest[0] {
	case '|', '>':
		return r.blockScalar(at, indent)
	case '[', '{':
		v = r.flow(at)
	case '"', '\'':
		s, fresh, _, why := quotedScalar(r.src, at, l.end)
		if why != "" {
			r.fail(why)
			return Value{}
		}
		v = Value{Kind: yaml.ScalarNode, Tag: StrTag, Text: s, Fresh: fresh, Line: int32(line + 1)}
	default:
		s, tag, ok := plainScalar(r.src, at, l.end)
		if !ok {
			r.fail("not a plain scalar")
			return Value{}
		}
		v = Value{Kind: yaml.ScalarNode, Tag: tagOf(tag), Text: s, Line: int32(line + 1)}
	}
	if r.bad {
		return Value{}
	}
	// A single-line value: anything more indented below it would continue
	// it (a plain scalar over several lines) or be an error.
	r.advance()
	r.skipBlank()
	if !r.eof() && r.cur.indent > indent {
		r.fail("continued below")
		return Value{}
	}
	return v
}

// flow returns the flow sequence or mapping of scalars at at, which must
// close on its line, for Next: it is read, and checked, entry by entry.
func (r *Reader) flow(at int) Value {
	v := Value{Kind: yaml.SequenceNode, Tag: SeqTag, Line: int32(r.line + 1), flow: true, at: int32(at + 1), indent: int32(at), end: int32(r.cur.end)}
	if r.src[at] == '{' {
		v.Kind, v.Tag = yaml.MappingNode, MapTag
	}
	return v
}

// flowNext reads the next entry of the flow collection c (the loop of
// fastParser.flow, one entry at a time); at its end it checks that only
// a comment follows.
func (r *Reader) flowNext(c *Value) (key, val Value, ok bool) {
	closer := byte(']')
	if c.Kind == yaml.MappingNode {
		closer = '}'
	}
	end := int(c.end)
	for !r.bad && c.comma != commaDone {
		k := skipSpaces(r.src, int(c.at), end)
		if k >= end {
			r.fail("flow: not closed on its line")
			break
		}
		if r.src[k] == closer {
			if c.comma == commaAfter {
				r.fail("flow: a trailing comma")
			}
			c.at, c.comma = int32(k+1), commaDone
			if !restIsComment(r.src[k+1 : end]) {
				r.fail("flow: text after it")
			}
			r.flowRead = int(c.indent)
			break
		}
		if c.comma == commaWant {
			if r.src[k] != ',' {
				r.fail("flow: no comma")
				break
			}
			c.comma, c.at = commaAfter, int32(k+1)
			continue
		}
		c.comma = commaWant
		if c.Kind == yaml.MappingNode {
			start := k
			key = r.flowScalar(&k, end, ':', c.Line)
			if r.bad || k+1 >= end || r.src[k] != ':' || r.src[k+1] != ' ' || k-start > maxKeyLen {
				r.fail("flow: not key: value")
				break
			}
			k = skipSpaces(r.src, k+1, end)
		}
		val = r.flowScalar(&k, end, closer, c.Line)
		c.at = int32(k)
		return key, val, !r.bad
	}
	return Value{}, Value{}, false
}

// flowScalar reads the quoted or plain scalar of a flow collection at *k,
// which ends before a ',' or stop, and moves *k past it (as
// fastParser.flowScalar); line is the collection's line, which the reader
// may have left by the time its entries are read.
func (r *Reader) flowScalar(k *int, end int, stop byte, line int32) Value {
	at := *k
	if at < end && (r.src[at] == '"' || r.src[at] == '\'') {
		close := closingQuote(r.src, at, end)
		if close < 0 {
			r.fail("flow: a quote not closed")
			return Value{}
		}
		s, fresh, _, why := quotedScalar(r.src, at, close+1)
		if why != "" {
			r.fail(why)
			return Value{}
		}
		*k = close + 1
		return Value{Kind: yaml.ScalarNode, Tag: StrTag, Text: s, Fresh: fresh, Line: line}
	}
	s, tag, next, why := flowPlain(r.src, at, end, stop)
	if why != "" {
		r.fail(why)
		return Value{}
	}
	*k = next
	return Value{Kind: yaml.ScalarNode, Tag: tagOf(tag), Text: s, Line: line}
}

// blockScalar reads a literal (|) or folded (>) block scalar whose header
// is at at; indent is the column of the key or dash that owns it. It
// takes what fastParser.blockScalar takes and builds the same value.
func (r *Reader) blockScalar(at, indent int) Value {
	line := r.line
	end := r.cur.end
	folded := r.src[at] == '>'
	k := at + 1
	strip := false
	if k < end && r.src[k] == '-' {
		strip = true
		k++
	}
	if k < end && r.src[k] != ' ' || !restIsComment(r.src[k:end]) {
		r.fail("keep (+), an indentation digit, or text after the header")
		return Value{}
	}
	// The content: lines indented more than the owner, up to the first
	// line with text indented less than the first content line.
	first := r.lineAt(r.cur.next)
	if first.start >= len(r.src) || first.indent <= indent || first.start+first.indent == first.end {
		r.fail("empty, or starts with a blank line")
		return Value{}
	}
	ci := first.indent
	last, lastLine := first, line+1
	for l, n := first, line+1; l.start < len(r.src); l, n = r.lineAt(l.next), n+1 {
		if l.end == l.start {
			continue
		}
		if l.start+l.indent == l.end {
			r.fail("a line of spaces only: left to yaml.v3")
			return Value{}
		}
		if l.indent < ci {
			break
		}
		if folded && l.indent > ci {
			r.fail("more-indented lines fold differently")
			return Value{}
		}
		last, lastLine = l, n
	}
	if !last.nl {
		r.fail("block scalar at EOF without newline")
		return Value{}
	}
	var b strings.Builder
	b.Grow(last.end - first.start)
	prevEmpty := false
	for l := first; ; l = r.lineAt(l.next) {
		s := ""
		if l.end > l.start {
			s = r.src[l.start+ci : l.end]
		}
		if l.start > first.start {
			switch {
			case !folded, s == "":
				b.WriteByte('\n')
			case !prevEmpty:
				b.WriteByte(' ')
			}
		}
		b.WriteString(s)
		prevEmpty = s == ""
		if l.start == last.start {
			break
		}
	}
	if !strip {
		b.WriteByte('\n')
	}
	r.load(last.next)
	r.line = lastLine + 1
	return Value{Kind: yaml.ScalarNode, Tag: StrTag, Text: b.String(), Fresh: true, Line: int32(line + 1)}
}

// load makes the line starting at pos the reader's line. The reader
// loads every line of the text it reads once (a block scalar's lines
// other than the first are never at column 0): a directive or document
// marker line makes it give up, as it makes fastSafeText refuse the text.
func (r *Reader) load(pos int) {
	r.lineInto(&r.cur, pos)
	if pos < len(r.src) && r.cur.indent == 0 {
		if c := r.src[pos]; (c == '-' || c == '.' || c == '%') && isMarkerText(r.src[pos:r.cur.end]) {
			r.fail("a directive or document marker line")
		}
	}
}

// isMarkerText is isMarkerLine for a string.
func isMarkerText(line string) bool {
	return strings.HasPrefix(line, "---") || strings.HasPrefix(line, "...") || strings.HasPrefix(line, "%")
}

// lineAt returns the line starting at pos (one past the text's end at
// the end: there is no line there).
func (r *Reader) lineAt(pos int) rline {
	var l rline
	r.lineInto(&l, pos)
	return l
}

// lineInto sets *l to lineAt(pos): the reader's own line is set in place,
// once per line read. The indentation is counted first and the line's
// end looked for after it (a space is neither '\r' nor '\n').
func (r *Reader) lineInto(l *rline, pos int) {
	src := r.src
	if pos >= len(src) {
		*l = rline{start: len(src), end: len(src), next: len(src)}
		return
	}
	i := pos
	for i < len(src) && src[i] == ' ' {
		i++
	}
	l.start, l.indent = pos, i-pos
	if k := strings.IndexByte(src[i:], '\n'); k >= 0 {
		l.end, l.next, l.nl = i+k, i+k+1, true
		if l.end > pos && src[l.end-1] == '\r' {
			l.end-- // CRLF
		}
		return
	}
	l.end, l.next, l.nl = len(src), len(src), false
}

// eof reports whether the reader is past the last line.
func (r *Reader) eof() bool { return r.cur.start >= len(r.src) }

// advance moves to the next line.
func (r *Reader) advance() {
	if !r.eof() {
		r.load(r.cur.next)
		r.line++
	}
}

// text is the reader's line from its indentation on.
func (r *Reader) text() string { return r.src[r.cur.start+r.cur.indent : r.cur.end] }

// skipBlank moves past blank and comment lines.
func (r *Reader) skipBlank() {
	for !r.eof() {
		if t := r.text(); t != "" && t[0] != '#' {
			return
		}
		r.advance()
	}
}

// within moves past blank lines and reports whether the next line belongs
// to the collection at indent (it is not indented less), while all is well.
func (r *Reader) within(indent int) bool {
	if r.bad {
		return false
	}
	r.skipBlank()
	return !r.eof() && r.cur.indent >= indent
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
