package fastyaml

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// A Memo remembers, of a parse by the fast parser, where the entries of
// the top-level block collections are — the items of atoms, the keys of
// bindings, … — and the nodes built for them. ParseMemo on a later
// version of the text takes an entry whose text has not changed from the
// memo instead of parsing it again: as it is when it is on the same line,
// else a copy moved to its new line. A loop's write usually changes one
// atom or the control block, so the rest of the tree is not built again.
//
// An entry's nodes depend on nothing but its own text and its first line:
// it starts at a line start (so columns do not move), and the fast parser
// reads an entry's lines up to the first line that is neither blank nor a
// comment and is indented no deeper than the entry (in a mapping, lines
// "- " at the key's indentation are still the entry's: an indentless
// sequence), and decides nothing on what follows except that it ends the
// entry. entryEnd finds that line before the entry is parsed; a parsed
// entry that ends elsewhere makes the parse keep no memo. A Memo and the
// nodes it holds are never modified once made.
//
// The entries of a lean section (see ParseMemo) keep no nodes: the caller
// keeps what it made of them instead, and a tree parsed with the memo has
// the Stub node in place of each such entry taken from it — and the key,
// moved to its line, in a mapping. Release, once the tree has been read,
// lets go of the tree, so that a memo of lean sections holds little more
// than where the entries are. MemoOf makes a Memo with no nodes at all,
// from the lines of a text a Reader read.
type Memo struct {
	text []byte
	// sections maps each top-level key to its collection's entries; nil
	// when its value is not a block collection or the key is repeated.
	sections map[string]*memoSection
	// rootIndent is the column of the top-level keys (Edits needs 0).
	rootIndent int
	// nodeless: the memo was made without a parse (MemoOf) and holds no
	// nodes; a parse takes nothing from it.
	nodeless bool
}

type memoSection struct {
	// coll is the collection the entries are in, until Release.
	coll *yaml.Node
	kind yaml.Kind
	lean bool
	// bare: the entries have no nodes (a section Patch edited that is
	// not lean): a parse takes nothing from it.
	bare    bool
	entries []memoEntry
	// nodes are the entries' nodes, by index (nil, or shorter than
	// entries: the entries after have none, as in a lean sequence).
	nodes []entryNodes
	// keys are the keys of a mapping's entries, by index, in a memo made
	// without nodes (MemoOf; nil otherwise).
	keys []string
	// byIndex: entry k was taken from entry k of the previous memo's
	// section, unless it is in fresh (parsed), moved by the dl of the last
	// of shifts at or before k (a section Patch made: its entries' from
	// and delta are not kept).
	byIndex bool
	fresh   []int32
	shifts  []shift
}

type shift struct{ at, dl int32 }

// entryNodes are an entry's nodes; val is nil in a lean section, and key
// there a node of its own (not slab space, which would keep the nodes
// around it).
type entryNodes struct{ key, val *yaml.Node }

// node returns entry k's nodes.
func (s *memoSection) node(k int) entryNodes {
	if k < len(s.nodes) {
		return s.nodes[k]
	}
	return entryNodes{}
}

// key returns the key of entry k of a mapping (false: not known).
func (s *memoSection) key(k int) (string, bool) {
	if k < len(s.keys) {
		return s.keys[k], true
	}
	if n := s.node(k); n.key != nil {
		return n.key.Value, true
	}
	return "", false
}

// keep adds the entry e with its nodes n.
func (s *memoSection) keep(e memoEntry, n entryNodes) {
	s.entries = append(s.entries, e)
	if n.key == nil && n.val == nil && s.nodes == nil {
		return
	}
	for len(s.nodes) < len(s.entries)-1 {
		s.nodes = append(s.nodes, entryNodes{})
	}
	s.nodes = append(s.nodes, n)
}

// memoEntry is where an entry is; it holds no pointers, so that copying
// the entries of a long list (Patch) is a plain copy.
type memoEntry struct {
	start, end int32 // the entry's text in Memo.text, whole lines
	line       int32 // its first line, 0-based
	// from is the entry of the previous memo this one was taken from (-1:
	// parsed), delta the lines it moved.
	from, delta int32
}

// reuser finds entries of the previous memo's section for the entries of
// the section being parsed.
type reuser struct {
	sec    *memoSection // the previous memo's section of the same key
	cursor int          // where the next entry is expected in sec
	misses int          // entries in a row not found near cursor
	index  map[string]int
}

// ParseMemo is Parse that also returns a Memo of the parse for the next
// one, and takes unchanged entries from prev, a Memo of an earlier
// version of the text (nil for none). The tree and the error are what
// Parse returns for yml; memo is nil when the fast parser did not take
// yml. The tree may share nodes with trees of earlier versions: none of
// them may be modified.
//
// The entries of the collection under a top-level key for which lean
// returns true (lean may be nil) are lean: the memo keeps no nodes of
// them, and an entry taken from prev is the Stub node in the tree (with
// its key, in a mapping). That is for a caller that keeps what it decoded
// of each entry, finds which entry of prev's an entry is with
// Section.Origin, and never reads a Stub: one that cannot use what it
// kept for a Stub parses again without prev.
func ParseMemo(yml []byte, lines yamltext.LineMap, prev *Memo, lean func(key string) bool) (root *yaml.Node, memo *Memo, err error) {
	if prev != nil && prev.nodeless {
		prev = nil // nothing to take (MemoOf)
	}
	p := &fastParser{lean: lean}
	if root, _ = p.run(yml, lines, prev, true); root != nil {
		return root, p.memo, nil
	}
	root, err = parseSlow(yml)
	return root, nil, err
}

// A Section is what a Memo knows of the entries of one top-level
// collection (the zero Section knows none).
type Section struct{ s *memoSection }

// Section returns what m knows of the entries of coll, the value of the
// top-level key.
func (m *Memo) Section(key string, coll *yaml.Node) Section {
	if m == nil || coll == nil {
		return Section{}
	}
	if s := m.sections[key]; s != nil && s.coll == coll {
		return Section{s}
	}
	return Section{}
}

// Release lets go of the tree m was recorded with, once it has been read:
// m keeps the nodes of the entries of sections that are not lean, which a
// later parse takes over, and nothing else of the tree. Section knows
// nothing after Release.
func (m *Memo) Release() {
	if m == nil {
		return
	}
	for _, s := range m.sections {
		if s != nil {
			s.coll = nil
		}
	}
}

// Stub stands in a tree parsed by ParseMemo for an entry of a lean
// section taken from the previous memo. Nothing may modify it.
var Stub = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!fastyaml-stub", Value: "an entry taken from the previous version"}

// IsStub reports whether n is the Stub.
func IsStub(n *yaml.Node) bool { return n == Stub }

// Len is the number of entries s knows.
func (s Section) Len() int {
	if s.s == nil {
		return 0
	}
	return len(s.s.entries)
}

// Origin says where entry i came from: the index of the entry of the
// previous memo's collection under the same key it was taken from (-1:
// parsed), and how many lines it moved. ok is false when s does not know
// the entry.
func (s Section) Origin(i int) (from, delta int, ok bool) {
	if s.s == nil || i < 0 || i >= len(s.s.entries) {
		return -1, 0, false
	}
	if s.s.byIndex {
		if slices.Contains(s.s.fresh, int32(i)) {
			return -1, 0, true
		}
		dl := 0
		for _, sh := range s.s.shifts {
			if int(sh.at) > i {
				break
			}
			dl = int(sh.dl)
		}
		return i, dl, true
	}
	e := &s.s.entries[i]
	return int(e.from), int(e.delta), true
}

// Span is where entry i's text is in the text the memo was made of: its
// whole lines from start to end (ok false when s does not know the entry).
func (s Section) Span(i int) (start, end int, ok bool) {
	if s.s == nil || i < 0 || i >= len(s.s.entries) {
		return 0, 0, false
	}
	e := &s.s.entries[i]
	return int(e.start), int(e.end), true
}

// Line is the line entry i starts on, counting from 0 at the first line
// of the text (-1 when s does not know the entry).
func (s Section) Line(i int) int {
	if s.s == nil || i < 0 || i >= len(s.s.entries) {
		return -1
	}
	return int(s.s.entries[i].line)
}

// enterSection notes that the value of the top-level key is parsed next.
func (p *fastParser) enterSection(key string) {
	if p.memo == nil {
		return
	}
	if _, dup := p.memo.sections[key]; dup {
		// A repeated key: which value a reader keeps is the reader's
		// business; remember neither.
		p.memo.sections[key] = nil
		return
	}
	p.memo.sections[key] = nil
	p.sectionKey = key
}

// openSection starts recording the entries of coll when it is the block
// collection of a top-level key; it returns nil otherwise.
func (p *fastParser) openSection(coll *yaml.Node, depth int) *memoSection {
	if p.memo == nil || depth != 1 || p.sectionKey == "" || coll == nil {
		return nil
	}
	sec := &memoSection{coll: coll, kind: coll.Kind, lean: p.lean != nil && p.lean(p.sectionKey)}
	p.memo.sections[p.sectionKey] = sec
	p.reuse = reuser{}
	if p.prev != nil {
		if ps := p.prev.sections[p.sectionKey]; ps != nil && ps.kind == coll.Kind && ps.lean == sec.lean && !ps.bare {
			p.reuse.sec = ps
			sec.entries = make([]memoEntry, 0, len(ps.entries)+8)
			p.stack = slices.Grow(p.stack, 2*len(ps.entries)+16)
		}
	}
	p.sectionKey = ""
	return sec
}

// entry parses (or takes from the previous memo) the entry of sec at the
// current line, whose dash or key is at indent; k is keyEnd of the line
// for a mapping entry, -1 for a sequence entry.
func (p *fastParser) entry(sec *memoSection, indent, k, depth int) {
	i, inMap := p.i, k >= 0
	j := p.entryEnd(i, indent, inMap)
	start, end := p.lines[i].start, len(p.src)
	if j < len(p.lines) {
		end = p.lines[j].start
	}
	if from := p.lookup(p.src[start:end]); from >= 0 {
		old, on := p.reuse.sec.entries[from], p.reuse.sec.node(from)
		delta := i - int(old.line)
		key, val := on.key, on.val
		if delta != 0 {
			key, val = p.clone(key, delta), p.clone(val, delta)
		}
		kept := memoEntry{start: int32(start), end: int32(end), line: int32(i), from: int32(from), delta: int32(delta)}
		kn := entryNodes{key: key, val: val}
		switch {
		case sec.lean:
			val, kn.val = Stub, nil
			if inMap && delta != 0 {
				kn.key = ownTree(key)
			}
		case p.lean != nil && delta != 0:
			kn.key, kn.val = ownTree(key), ownTree(val)
		}
		if inMap {
			p.stack = append(p.stack, key)
		}
		p.stack = append(p.stack, val)
		sec.keep(kept, kn)
		p.taken = append(p.taken, [2]int32{int32(start), int32(end)})
		p.i = j
		return
	}
	l := p.lines[i]
	var key, val *yaml.Node
	if inMap {
		t := p.text(i)
		key = p.node(yaml.ScalarNode, keyTag(t[:k]), t[:k], 0, i, l.start+l.indent)
		p.stack = append(p.stack, key)
		val = p.value(l.start+l.indent+k+1, indent, true, depth)
	} else {
		val = p.value(l.start+l.indent+1, indent, false, depth)
	}
	p.stack = append(p.stack, val)
	if p.bad {
		return
	}
	if p.skipBlank(); p.i != j {
		p.memoOff = true // entryEnd was wrong about this entry: trust no span
	}
	kept := memoEntry{start: int32(start), end: int32(end), line: int32(i), from: -1}
	kn := entryNodes{key: key, val: val}
	if p.lean != nil {
		kn.key, kn.val = ownTree(key), nil
		if !sec.lean {
			kn.val = ownTree(val)
		}
	}
	sec.keep(kept, kn)
}

// ownTree copies the tree n to allocations of its own, for a memo with
// lean sections to keep. Nodes in slab space would keep their chunks, the
// chunks the nodes of the lean entries around them, and those, through
// their Content in the Content slab, the rest of the tree.
func ownTree(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := new(yaml.Node)
	*c = *n
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = ownTree(ch)
		}
	}
	return c
}

// entryEnd returns the line after the entry that starts on line i with its
// dash or key at indent: the first line that is not blank or a comment
// and is indented less, or as much (unless, in a mapping, it starts an
// indentless sequence); len(p.lines) at the end of the text.
func (p *fastParser) entryEnd(i, indent int, inMap bool) int {
	for j := i + 1; j < len(p.lines); j++ {
		if p.blank(j) {
			continue
		}
		switch l := p.lines[j]; {
		case l.indent < indent:
			return j
		case l.indent == indent && !(inMap && isDashEntry(p.text(j))):
			return j
		}
	}
	return len(p.lines)
}

// lookup returns the entry of the previous memo's section whose text is
// text, or -1. Entries are looked for where the last one found leaves off
// (the next one, or the one after it when one was changed or removed);
// after two misses in a row, by an index of them all.
func (p *fastParser) lookup(text string) int {
	r := &p.reuse
	if r.sec == nil {
		return -1
	}
	old := p.prev.text
	for k := r.cursor; k < len(r.sec.entries) && k < r.cursor+2; k++ {
		if e := r.sec.entries[k]; string(old[e.start:e.end]) == text {
			r.cursor, r.misses = k+1, 0
			return k
		}
	}
	if r.misses++; r.misses < 2 {
		return -1
	}
	if r.index == nil {
		r.index = make(map[string]int, len(r.sec.entries))
		for k, e := range r.sec.entries {
			// A view of the previous text, which nothing modifies.
			s := unsafe.String(unsafe.SliceData(old[e.start:e.end]), e.end-e.start)
			if _, dup := r.index[s]; !dup {
				r.index[s] = k
			}
		}
	}
	if k, ok := r.index[text]; ok {
		r.cursor, r.misses = k+1, 0
		return k
	}
	return -1
}

// checkGaps is fastSafeText for a text parsed with entries taken from the
// previous memo, whose text passed it: only the text outside those
// entries (p.taken) is looked at. Entries are whole lines and a character
// or a marker line is a fact of its own line, so the whole text passes
// exactly when what lies between the entries does. Each gap is checked
// with the line break before it, so that a marker line opening it shows.
func (p *fastParser) checkGaps(yml []byte) bool {
	at := 0
	for _, t := range append(p.taken, [2]int32{int32(len(yml)), int32(len(yml))}) {
		if start, end := at, int(t[0]); start < end {
			if start > 0 {
				start-- // the line break before the gap
			}
			if ok, _ := fastSafeText(yml[start:end]); !ok {
				return false
			}
		}
		at = int(t[1])
	}
	return true
}

// isASCII reports whether b holds no byte above 0x7F.
func isASCII(b []byte) bool {
	var acc uint64
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&0x8080808080808080 == 0
}

// clone copies the tree n with every line moved by delta.
func (p *fastParser) clone(n *yaml.Node, delta int) *yaml.Node {
	if n == nil {
		return nil
	}
	c := p.alloc()
	*c = *n
	c.Line += delta
	if len(n.Content) > 0 {
		mark := len(p.stack)
		for _, ch := range n.Content {
			p.stack = append(p.stack, p.clone(ch, delta))
		}
		p.content(c, mark, fastMaxDepth+1) // an entry: slab space
	}
	return c
}
