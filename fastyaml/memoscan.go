package fastyaml

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// MemoOf returns the Memo that ParseMemo(yml, lines, prev, lean) records,
// without parsing yml or building any node: one pass over its lines finds
// the top-level keys and the entries of their block collections as the
// fast parser delimits them (entryEnd), and an entry of a lean section
// whose text is that of an entry of prev's section under the same key
// has that entry as its Origin (prev may be nil; its sections that are
// not lean give nothing, since no parse takes nodes from a memo MemoOf
// made). It is for a caller that read yml
// with a Reader, which takes exactly the texts the fast parser takes: on
// a text the Reader refused it means nothing. The Memo keeps no nodes —
// the keys of mapping entries as text, for Edits — so a ParseMemo given it
// as prev takes no entry from it and parses the whole text; Edits and
// Patch work on it as on a memo ParseMemo recorded. verifyReader checks it
// against ParseMemo's on every text the fast parser takes.
func MemoOf(yml []byte, lean func(key string) bool, prev *Memo) *Memo {
	s := &lineScan{src: yml}
	m := &Memo{text: yml, sections: map[string]*memoSection{}, nodeless: true}
	l, ok := s.nonBlank()
	if !ok {
		return m
	}
	root := l.indent
	m.rootIndent = root
	for ok && l.indent == root {
		t := l.text(yml)
		k := keyEnd(string(t))
		if k < 0 {
			break
		}
		key := string(t[:k])
		_, dup := m.sections[key]
		m.sections[key] = nil
		rest := bytes.TrimLeft(t[k+1:], " ")
		s.advance(l)
		if len(rest) > 0 && rest[0] != '#' {
			// A value on the key's line: it ends at the next line that is
			// not more indented than the key.
			for l, ok = s.nonBlank(); ok && l.indent > root; l, ok = s.nonBlank() {
				s.advance(l)
			}
			continue
		}
		if l, ok = s.nonBlank(); !ok {
			break
		}
		var sec *memoSection
		t = l.text(yml)
		switch {
		case l.indent > root && isDashEntry(t):
			sec = &memoSection{kind: yaml.SequenceNode}
		case l.indent > root && keyEnd(string(t)) > 0:
			sec = &memoSection{kind: yaml.MappingNode}
		case l.indent == root && isDashEntry(t):
			sec = &memoSection{kind: yaml.SequenceNode} // indentless
		default:
			continue // an empty value
		}
		sec.lean = lean != nil && lean(key)
		var from *textIndex
		if !dup {
			m.sections[key] = sec
			if ps := prev.section(key); sec.lean && ps != nil && ps.kind == sec.kind && ps.lean && !ps.bare && len(ps.entries) > 0 {
				from = &textIndex{text: prev.text, sec: ps}
				sec.entries = make([]memoEntry, 0, len(ps.entries)+8)
			}
		}
		l, ok = s.entries(sec, l, from)
	}
	return m
}

// lineScan walks the lines of a text as the fast parser splits them.
type lineScan struct {
	src  []byte
	pos  int // where the next line starts
	line int // its index
}

// scanLine is a line of the text: where it starts and ends (without its
// '\n' and a CRLF's '\r'), where the next one starts, its index and its
// indentation.
type scanLine struct {
	start, end, next, i, indent int
}

func (l scanLine) text(src []byte) []byte { return src[l.start+l.indent : l.end] }

// blank is the fast parser's blank: only spaces, or a comment.
func (l scanLine) blank(src []byte) bool {
	t := l.text(src)
	return len(t) == 0 || t[0] == '#'
}

// peek returns the line at s.pos (false at the end of the text).
func (s *lineScan) peek() (scanLine, bool) {
	if s.pos >= len(s.src) {
		return scanLine{}, false
	}
	l := scanLine{start: s.pos, i: s.line}
	if k := bytes.IndexByte(s.src[s.pos:], '\n'); k >= 0 {
		l.end, l.next = s.pos+k, s.pos+k+1
		if l.end > l.start && s.src[l.end-1] == '\r' {
			l.end--
		}
	} else {
		l.end, l.next = len(s.src), len(s.src)
	}
	for l.start+l.indent < l.end && s.src[l.start+l.indent] == ' ' {
		l.indent++
	}
	return l, true
}

// advance moves past the line l, the one at s.pos.
func (s *lineScan) advance(l scanLine) { s.pos, s.line = l.next, l.i+1 }

// nonBlank moves past blank lines and returns the line after them, without
// moving past it.
func (s *lineScan) nonBlank() (scanLine, bool) {
	for {
		l, ok := s.peek()
		if !ok || !l.blank(s.src) {
			return l, ok
		}
		s.advance(l)
	}
}

// entries records the entries of the block collection sec whose first
// entry is on the line first, and returns the line after the collection
// (false at the end of the text).
func (s *lineScan) entries(sec *memoSection, first scanLine, prev *textIndex) (scanLine, bool) {
	indent, inMap := first.indent, sec.kind == yaml.MappingNode
	l, ok := first, true
	for ok && l.indent == indent {
		t := l.text(s.src)
		var key string
		if inMap {
			k := keyEnd(string(t))
			if k < 0 {
				break
			}
			key = strings.Clone(string(t[:k]))
		} else if !isDashEntry(t) {
			break // the next key after an indentless sequence
		}
		start, line := l.start, l.i
		s.advance(l)
		s.entryEnd(indent, inMap)
		l, ok = s.peek()
		end := len(s.src)
		if ok {
			end = l.start
		}
		e := memoEntry{start: int32(start), end: int32(end), line: int32(line), from: -1}
		if k := prev.find(s.src[start:end]); k >= 0 {
			e.from, e.delta = int32(k), int32(line)-prev.sec.entries[k].line
		}
		if len(sec.entries) == cap(sec.entries) {
			// Doubling: append grows a long slice by a quarter, which
			// allocates some five times the entries of a long list.
			sec.entries = slices.Grow(sec.entries, max(len(sec.entries), 64))
		}
		sec.entries = append(sec.entries, e)
		if inMap {
			if len(sec.keys) == cap(sec.keys) {
				sec.keys = slices.Grow(sec.keys, max(len(sec.keys), 64))
			}
			sec.keys = append(sec.keys, key)
		}
	}
	return l, ok
}

// textIndex finds the entries of a section of an earlier memo by their
// text, as fastParser.lookup does: where the last one found leaves off
// (the next one, or the one after it), and after two misses in a row by
// an index of them all.
type textIndex struct {
	text   []byte
	sec    *memoSection
	cursor int
	misses int
	index  map[string]int
}

// find returns the entry whose text is text, or -1 (also for a nil x).
func (x *textIndex) find(text []byte) int {
	if x == nil {
		return -1
	}
	es := x.sec.entries
	for k := x.cursor; k < len(es) && k < x.cursor+2; k++ {
		if e := es[k]; bytes.Equal(x.text[e.start:e.end], text) {
			x.cursor, x.misses = k+1, 0
			return k
		}
	}
	if x.misses++; x.misses < 2 {
		return -1
	}
	if x.index == nil {
		x.index = make(map[string]int, len(es))
		for k, e := range es {
			// A view of the earlier text, which nothing modifies.
			s := unsafe.String(unsafe.SliceData(x.text[e.start:e.end]), e.end-e.start)
			if _, dup := x.index[s]; !dup {
				x.index[s] = k
			}
		}
	}
	if k, ok := x.index[string(text)]; ok {
		x.cursor, x.misses = k+1, 0
		return k
	}
	return -1
}

// section is the section under key (nil: none, or no m).
func (m *Memo) section(key string) *memoSection {
	if m == nil {
		return nil
	}
	return m.sections[key]
}

// entryEnd moves to the line that ends an entry whose dash or key is at
// indent (fastParser.entryEnd): the first line that is not blank and is
// indented less, or as much unless it is a dash line in a mapping; the
// end of the text if none is. Only the first indent+1 bytes of a line
// (and a comment's or a dash's next byte) are looked at.
func (s *lineScan) entryEnd(indent int, inMap bool) {
	src, pos, line := s.src, s.pos, s.line
	for pos < len(src) {
		k := 0
		for k <= indent && pos+k < len(src) && src[pos+k] == ' ' {
			k++
		}
		if k <= indent && pos+k < len(src) {
			switch c := src[pos+k]; {
			case c == '\n' || c == '#':
				// A blank line or a comment.
			case c == '\r' && pos+k+1 < len(src) && src[pos+k+1] == '\n':
				// A blank line of a CRLF text.
			case k == indent && inMap && c == '-' && (pos+k+1 == len(src) || src[pos+k+1] == ' ' || src[pos+k+1] == '\r' || src[pos+k+1] == '\n'):
				// An indentless sequence in the entry.
			default:
				s.pos, s.line = pos, line
				return
			}
		} else if k <= indent {
			break // blanks and the end of the text
		}
		n := bytes.IndexByte(src[pos:], '\n')
		if n < 0 {
			break // the last line
		}
		pos, line = pos+n+1, line+1
	}
	s.pos, s.line = len(src), line
}
