package fastyaml

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An Edit is a piece of a new version of a memo's text that differs from
// the memo's: one entry of a top-level collection (Entry ≥ 0), or, for a
// collection that is not lean, all its entries (Entry -1: the caller reads
// the whole collection again). Everything outside the edits is the memo's
// text, moved by the bytes and lines the edits before it added.
type Edit struct {
	// Key is the top-level key of the collection; Seq says it is a
	// sequence (else a mapping); Lean is the memo's lean.
	Key       string
	Seq, Lean bool
	Entry     int
	// OldStart and OldEnd are the piece in the memo's text, whole lines;
	// Start and End the piece in the new text.
	OldStart, OldEnd, Start, End int
	// OldLine is the piece's first line in the memo's text, Line in the new
	// text (0-based), and Lines how many more lines it has than before.
	OldLine, Line, Lines int
}

// A unit is what Edits compares: an entry of a lean section, or a whole
// section that is not lean.
type unit struct {
	key        string
	sec        *memoSection
	entry      int // -1: the whole section
	start, end int
	line       int
	indent     int
}

// A place is a section of m in text order, with its key and the column of
// its entries.
type place struct {
	key    string
	sec    *memoSection
	indent int
}

// places are m's sections with entries, in text order; ok is false when m
// does not know its text well enough for Edits (the root mapping not at
// column 0, or sections that overlap).
func (m *Memo) places() ([]place, bool) {
	if m == nil || m.rootIndent != 0 {
		return nil, false
	}
	ps := make([]place, 0, len(m.sections))
	for key, s := range m.sections {
		if s != nil && len(s.entries) > 0 {
			ps = append(ps, place{key: key, sec: s, indent: indentAt(m.text, int(s.entries[0].start))})
		}
	}
	slices.SortFunc(ps, func(a, b place) int { return int(a.sec.entries[0].start) - int(b.sec.entries[0].start) })
	for k := 1; k < len(ps); k++ {
		if ps[k].sec.entries[0].start < ps[k-1].sec.end() {
			return nil, false
		}
	}
	return ps, true
}

// end is where the section's last entry ends.
func (s *memoSection) end() int32 { return s.entries[len(s.entries)-1].end }

// unitAt returns the unit of m's text that holds position pos, from the
// place k on; false when pos is between units.
func unitAt(ps []place, k *int, pos int) (unit, bool) {
	for ; *k < len(ps); *k++ {
		p := ps[*k]
		es := p.sec.entries
		if pos < int(es[0].start) {
			return unit{}, false
		}
		if pos >= int(p.sec.end()) {
			continue
		}
		if !p.sec.lean {
			return unit{key: p.key, sec: p.sec, entry: -1, start: int(es[0].start), end: int(p.sec.end()), line: int(es[0].line), indent: p.indent}, true
		}
		// The last entry that starts at or before pos (entries are whole
		// lines, one after the other).
		i := sort.Search(len(es), func(i int) bool { return int(es[i].start) > pos }) - 1
		if i < 0 || pos >= int(es[i].end) {
			return unit{}, false
		}
		e := es[i]
		return unit{key: p.key, sec: p.sec, entry: i, start: int(e.start), end: int(e.end), line: int(e.line), indent: p.indent}, true
	}
	return unit{}, false
}

func indentAt(b []byte, pos int) int {
	k := 0
	for pos+k < len(b) && b[pos+k] == ' ' {
		k++
	}
	return k
}

// Edits compares text, a new version of the text m was made of, with m's
// and returns the pieces that differ, in text order: at most most of them.
// ok is false when text differs from m's anywhere but inside entries (or
// sections that are not lean) whose new text starts as the old one did —
// the same indentation and dash, or the same key — and ends where the next
// line at that indentation or less begins; or when more pieces differ.
// The caller must check that each new piece reads as one entry (or, Entry
// -1, as the collection). When a piece has more or fewer lines than
// before, no collection that is not lean may follow it: its nodes would
// be on other lines.
func (m *Memo) Edits(text []byte, most int) (edits []Edit, ok bool) {
	ps, ok := m.places()
	if !ok {
		return nil, false
	}
	old := m.text
	i, j, k := 0, 0, 0
	lines := 0 // the lines the edits so far added
	for {
		n := commonPrefix(old[i:], text[j:])
		i, j = i+n, j+n
		if i == len(old) && j == len(text) {
			break
		}
		if len(edits) == most {
			return nil, false
		}
		// An entry that grew or shrank at its end differs from the old
		// text only from the line after it on: the change is the entry's
		// that ends where the differing line starts, when that entry's
		// new text is not its old one.
		var (
			un         unit
			start, end int
			found      bool
		)
		if ls := bytes.LastIndexByte(old[:i], '\n') + 1; ls > 0 && (len(edits) == 0 || edits[len(edits)-1].OldEnd < ls) {
			kk := 0
			if p, ok := unitAt(ps, &kk, ls-1); ok && p.end == ls {
				s := j - (i - p.start)
				if e, ok := unitEnd(text, s, p); ok && !bytes.Equal(text[s:e], old[p.start:p.end]) {
					un, start, end, found = p, s, e, true
				}
			}
		}
		if !found {
			if un, ok = unitAt(ps, &k, i); !ok {
				return nil, false
			}
			start = j - (i - un.start)
			if end, ok = unitEnd(text, start, un); !ok {
				return nil, false
			}
		}
		oldLines := bytes.Count(old[un.start:un.end], nl)
		newLines := bytes.Count(text[start:end], nl)
		edits = append(edits, Edit{Key: un.key, Seq: un.sec.kind == yaml.SequenceNode, Lean: un.sec.lean, Entry: un.entry,
			OldStart: un.start, OldEnd: un.end, Start: start, End: end,
			OldLine: un.line, Line: un.line + lines, Lines: newLines - oldLines})
		lines += newLines - oldLines
		i, j = un.end, end
	}
	// A section that is not lean keeps its nodes, on their lines: none
	// may move unless it was edited.
	at, moved := 0, 0
	for _, p := range ps {
		start := int(p.sec.entries[0].start)
		for at < len(edits) && edits[at].OldEnd <= start {
			moved += edits[at].Lines
			at++
		}
		if p.sec.lean || moved == 0 || at < len(edits) && edits[at].OldStart == start {
			continue
		}
		return nil, false
	}
	return edits, true
}

var nl = []byte{'\n'}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	k := 0
	for k < n {
		c := min(n-k, 4096)
		if bytes.Equal(a[k:k+c], b[k:k+c]) {
			k += c
			continue
		}
		for a[k] == b[k] {
			k++
		}
		return k
	}
	return k
}

// unitEnd finds where the unit un ends in text when it starts at start:
// its first line must start as the old one did, and it ends, as entryEnd
// says, at the first line that is not blank or a comment and is indented
// less than its entries, or (for an entry) as much, unless it is a dash
// line in a mapping.
func unitEnd(text []byte, start int, un unit) (int, bool) {
	first, next := lineAt(text, start)
	t := first[min(un.indent, len(first)):]
	if indentAt(first, 0) != un.indent || un.entry < 0 && un.indent == 0 {
		// (A section at column 0, an indentless sequence, would end only
		// at the next key: the caller reads sections that are mappings.)
		return 0, false
	}
	inMap := un.sec.kind == yaml.MappingNode
	if un.entry >= 0 {
		if inMap {
			k := keyEnd(string(trimCR(t)))
			if key, ok := un.sec.key(un.entry); k < 0 || !ok || string(t[:k]) != key {
				return 0, false
			}
		} else if !isDashEntry(t) {
			return 0, false
		}
	}
	for pos := next; pos < len(text); {
		line, after := lineAt(text, pos)
		ind := indentAt(line, 0)
		if rest := trimCR(line[ind:]); len(rest) > 0 && rest[0] != '#' {
			if ind < un.indent || un.entry >= 0 && ind == un.indent && !(inMap && isDashEntry(rest)) {
				return pos, true
			}
		}
		pos = after
	}
	return len(text), true
}

// lineAt returns the line starting at pos, without its '\n', and where
// the next one starts.
func lineAt(b []byte, pos int) ([]byte, int) {
	if k := bytes.IndexByte(b[pos:], '\n'); k >= 0 {
		return b[pos : pos+k], pos + k + 1
	}
	return b[pos:], len(b)
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// Patch returns the Memo of text, a new version of m's text that differs
// from it by edits (Edits, each checked by the caller), as ParseMemo would
// have recorded it with m as prev: the entries outside the edits are
// taken from m, moved; an edited entry of a lean section is parsed (its
// Origin -1); a section that is not lean and was edited keeps where its
// entries are but no nodes, so that a later ParseMemo parses it again.
// The tree m was recorded with is not needed (m may be Released).
func (m *Memo) Patch(text []byte, edits []Edit) *Memo {
	n := &Memo{text: text, sections: make(map[string]*memoSection, len(m.sections)), rootIndent: m.rootIndent, nodeless: m.nodeless}
	for key, s := range m.sections {
		if s == nil || len(s.entries) == 0 {
			n.sections[key] = s
			continue
		}
		first, last := int(s.entries[0].start), int(s.end())
		// The edits before the section, and those inside it.
		db, dl, at := 0, 0, 0
		for at < len(edits) && edits[at].OldEnd <= first {
			db += edits[at].End - edits[at].Start - (edits[at].OldEnd - edits[at].OldStart)
			dl += edits[at].Lines
			at++
		}
		in := at
		for in < len(edits) && edits[in].OldStart < last {
			in++
		}
		mine := edits[at:in]
		if len(mine) == 0 && db == 0 && dl == 0 && !s.lean {
			// Nodes and places as they were, each entry taken from its own.
			ns := &memoSection{kind: s.kind, bare: s.bare, entries: s.entries, nodes: s.nodes, keys: s.keys, byIndex: true}
			n.sections[key] = ns
			continue
		}
		ns := &memoSection{kind: s.kind, lean: s.lean, bare: s.bare, nodes: s.nodes, keys: s.keys}
		n.sections[key] = ns
		if !s.lean && len(mine) > 0 {
			e := mine[0]
			ns.bare, ns.nodes, ns.keys = true, nil, nil
			ns.entries = []memoEntry{{start: int32(e.Start), end: int32(e.End), line: int32(e.Line), from: -1}}
			continue
		}
		// Entry k was entry k of m's, moved, unless edited (Origin).
		ns.entries = slices.Clone(s.entries)
		ns.byIndex = true
		es := ns.entries
		k := 0
		for _, ed := range append(slices.Clip(mine), Edit{OldStart: last + 1}) {
			// The entries up to the edit move by db, dl.
			if len(ns.shifts) == 0 || ns.shifts[len(ns.shifts)-1].dl != int32(dl) {
				ns.shifts = append(ns.shifts, shift{at: int32(k), dl: int32(dl)})
			}
			for ; k < len(es) && int(s.entries[k].start) < ed.OldStart; k++ {
				if db != 0 || dl != 0 {
					es[k].start += int32(db)
					es[k].end += int32(db)
					es[k].line += int32(dl)
					if dl != 0 {
						ns.moveKey(s, k, dl)
					}
				}
			}
			if k == len(es) || ed.Key != key {
				break
			}
			es[k].start, es[k].end, es[k].line = int32(ed.Start), int32(ed.End), int32(ed.Line)
			ns.fresh = append(ns.fresh, int32(k))
			db += ed.End - ed.Start - (ed.OldEnd - ed.OldStart)
			dl += ed.Lines
			k++
		}
	}
	return n
}

// moveKey gives entry k of ns, which was entry k of s, a key node moved by
// dl lines (the nodes are shared with s until one moves).
func (ns *memoSection) moveKey(s *memoSection, k, dl int) {
	if k >= len(s.nodes) || s.nodes[k].key == nil {
		return
	}
	if len(ns.nodes) > 0 && len(s.nodes) > 0 && &ns.nodes[0] == &s.nodes[0] {
		ns.nodes = slices.Clone(s.nodes)
	}
	key := ownTree(s.nodes[k].key)
	key.Line += dl
	ns.nodes[k].key = key
}

// Lean returns what m knows of the entries of the lean section under the
// top-level key, without the tree m was recorded with (see Section).
func (m *Memo) Lean(key string) Section {
	if m == nil {
		return Section{}
	}
	if s := m.sections[key]; s != nil && s.lean {
		return Section{s}
	}
	return Section{}
}

// LeanKeys are the top-level keys of the lean sections m knows entries
// of, in text order.
func (m *Memo) LeanKeys() []string {
	var keys []string
	for key, s := range m.sections {
		if s != nil && s.lean && len(s.entries) > 0 {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		return int(m.sections[a].entries[0].start) - int(m.sections[b].entries[0].start)
	})
	return keys
}

// Synthetic returns the text of a frontmatter whose one top-level key,
// key, holds the piece e of text: what the caller reads the piece from.
// Its line 2 is the piece's first line.
func Synthetic(text []byte, e Edit) []byte {
	var b strings.Builder
	b.Grow(len(e.Key) + 2 + e.End - e.Start)
	b.WriteString(e.Key)
	b.WriteString(":\n")
	b.Write(text[e.Start:e.End])
	return []byte(b.String())
}
