package statefile

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// decoder fills model types directly, in one walk, from either the
// yaml.Node tree or a fastyaml.Reader reading the text (Parse's direct
// reading, direct.go): yaml.v3's reflection decoder would walk the tree a
// second time and would drop both unknown fields and line numbers. Both
// ways run the same code below, on vals.
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
	// skipTo is where the text of the entry just taken from prev ends,
	// for the reader to skip to (0: none).
	skipTo int

	// halves is the number of atoms from which Parse decodes the list in
	// two halves at once; half marks the decoder of a half (half.go).
	halves int
	half   bool

	// r is the reader the values come from when the text is read
	// directly (nil: the tree is decoded), and text keeps the strings
	// taken from it (direct.go).
	r    *fastyaml.Reader
	text textArena
	// lineArena keeps the keys of the mappings decoded (mapping),
	// listArena the lists of text read directly (strList).
	lineArena sliceArena[model.KeyLine]
	listArena sliceArena[string]
	// pending are the second parts of the atoms lists the reader cut,
	// being read on other goroutines (readInHalves); moved is what was
	// recorded for the memo since (afterCut).
	pending []*half
	moved   []movedRec
}

// val is a value being decoded: a node of the tree, or a value the
// reader returned (n is nil then; neither is set for no value at all).
type val struct {
	n *yaml.Node
	v fastyaml.Value
}

func nodeVal(n *yaml.Node) val { return val{n: n} }

// none reports whether x is no value at all.
func (x val) none() bool { return x.n == nil && x.v.Kind == 0 }

func (x val) kind() yaml.Kind {
	if x.n != nil {
		return x.n.Kind
	}
	return x.v.Kind
}

// is reports whether x is a scalar with tag t.
func (x val) is(t fastyaml.Tag) bool {
	if x.n != nil {
		return x.n.Kind == yaml.ScalarNode && x.n.ShortTag() == t.String()
	}
	return x.v.Kind == yaml.ScalarNode && x.v.Tag == t
}

// raw is a scalar's value, as the tree or the text holds it (see keep).
func (x val) raw() string {
	if x.n != nil {
		return x.n.Value
	}
	return x.v.Text
}

// maxAliasExpansions bounds how many nodes the decoder reaches through
// aliases; legitimate reuse (a shared list of ids) is far below it.
const maxAliasExpansions = 100000

// maxNesting bounds how deep checklists and unknown values may nest.
const maxNesting = 200

type aliasBombError struct{ line int }

func (e aliasBombError) Error() string { return "the document expands too many aliases" }

func (d *decoder) line(x val) int {
	switch {
	case x.n != nil:
		return d.lines.File(x.n.Line)
	case x.v.Kind != 0:
		return d.lines.File(int(x.v.Line))
	}
	return 0
}

func (d *decoder) problem(x val, path, format string, args ...any) {
	d.problems = append(d.problems, model.Problem{Line: d.line(x), Path: path, Message: fmt.Sprintf(format, args...)})
}

// path names a decoded value in its problems, and is made into text only
// for one: "atoms[12].status" is the list "atoms", entry 12, field
// "status"; "bindings.A3.summary" the mapping "bindings", key "A3".
type path struct {
	base  string
	index int // the entry base[index]; -1: none
	key   string
	keyed bool // the entry base.key
	field string
}

// pathOf is the path s, as written.
func pathOf(s string) path { return path{base: s, index: -1} }

// entryPath is entry i of the list base.
func entryPath(base string, i int) path { return path{base: base, index: i} }

// keyPath is the entry key of the mapping base.
func keyPath(base, key string) path { return path{base: base, index: -1, key: key, keyed: true} }

func (p path) String() string {
	s := p.base
	if p.index >= 0 {
		s += "[" + strconv.Itoa(p.index) + "]"
	}
	if p.keyed {
		s += "." + p.key
	}
	if p.field != "" {
		s += "." + p.field
	}
	return s
}

// dot is the field f of p.
func (p path) dot(f string) path {
	if p.field != "" {
		return path{base: p.String() + "." + f, index: -1}
	}
	p.field = f
	return p
}

// resolve follows an alias, charging the alias budget with the size of the
// subtree it names (small enough to be inlined where there is none).
func (d *decoder) resolve(x val) val {
	if x.n == nil || x.n.Kind != yaml.AliasNode {
		return x
	}
	return d.follow(x.n)
}

// follow is resolve for the alias n.
func (d *decoder) follow(n *yaml.Node) val {
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
			panic(aliasBombError{line: d.line(nodeVal(n))})
		}
		n = n.Alias
	}
	return nodeVal(n)
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

func isNull(x val) bool {
	return x.none() || x.is(fastyaml.NullTag)
}

func kindName(x val) string {
	switch x.kind() {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch {
		case x.is(fastyaml.IntTag), x.is(fastyaml.FloatTag):
			return "the number " + x.raw()
		case x.is(fastyaml.BoolTag):
			return "the boolean " + x.raw()
		case x.is(fastyaml.NullTag):
			return "null"
		}
		return strconv.Quote(x.raw())
	}
	return "an unexpected node"
}

// keep returns the scalar x's value to keep in the model: the tree's
// string, or a copy of the text's (see textArena).
func (d *decoder) keep(x val) string {
	if x.n != nil || x.v.Fresh {
		return x.raw()
	}
	return d.text.keep(x.v.Text)
}

// keepText is keep for a scalar the reader returned.
func (d *decoder) keepText(v fastyaml.Value) string {
	if v.Fresh {
		return v.Text
	}
	return d.text.keep(v.Text)
}

// readStr is str for a value the reader returned, at the field f of p:
// a scalar other than null is kept as it is, without the path that only
// a problem needs.
func (d *decoder) readStr(v fastyaml.Value, p *path, f string) string {
	if v.Kind == yaml.ScalarNode && v.Tag != fastyaml.NullTag {
		return d.keepText(v)
	}
	return d.str(val{v: v}, p.dot(f))
}

// field is str for the value v of the field f of p (the path is only
// made for a problem).
func (d *decoder) field(v val, p *path, f string) string {
	if v.n == nil {
		return d.readStr(v.v, p, f)
	}
	return d.str(v, p.dot(f))
}

// key returns the key k's text to keep in the model (known keys share the
// decoder's own strings: see knownKey).
func (d *decoder) key(k val) string {
	if k.n != nil {
		return k.n.Value
	}
	if s, ok := knownKey(k.v.Text); ok {
		return s
	}
	return d.keep(k)
}

// str reads a scalar as text; null is "". Numbers and booleans are kept as
// written (an id of 7 is "7").
func (d *decoder) str(x val, p path) string {
	if x.n == nil && x.v.Kind == yaml.ScalarNode && x.v.Tag != fastyaml.NullTag {
		return d.keepText(x.v) // as below, without the checks
	}
	x = d.resolve(x)
	if isNull(x) {
		return ""
	}
	if x.kind() != yaml.ScalarNode {
		ps := p.String()
		d.problem(x, ps, "%s should be text, not %s", ps, kindName(x))
		return ""
	}
	return d.keep(x)
}

// boolOf, intOf and floatOf are a scalar's value as yaml.v3 decodes it (ok
// false when it does not).
func boolOf(x val) (bool, bool) {
	if x.n != nil {
		var b bool
		return b, x.n.Decode(&b) == nil
	}
	switch x.v.Text {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

func floatOf(x val) (float64, bool) {
	if x.n != nil {
		var f float64
		return f, x.n.Decode(&f) == nil
	}
	if x.v.Tag == fastyaml.IntTag {
		i, err := strconv.Atoi(x.v.Text)
		return float64(i), err == nil
	}
	f, err := strconv.ParseFloat(x.v.Text, 64)
	return f, err == nil
}

func (d *decoder) integer(x val, p path) int {
	x = d.resolve(x)
	if x.is(fastyaml.IntTag) {
		if v, err := strconv.Atoi(x.raw()); err == nil {
			return v
		}
		var v int
		if x.n != nil && x.n.Decode(&v) == nil {
			return v
		}
	}
	ps := p.String()
	d.problem(x, ps, "%s should be an integer, not %s", ps, kindName(x))
	return 0
}

func (d *decoder) number(x val, p path) float64 {
	x = d.resolve(x)
	if x.is(fastyaml.IntTag) || x.is(fastyaml.FloatTag) {
		if v, ok := floatOf(x); ok {
			return v
		}
	}
	ps := p.String()
	d.problem(x, ps, "%s should be a number, not %s", ps, kindName(x))
	return 0
}

func (d *decoder) boolean(x val, p path) bool {
	x = d.resolve(x)
	if x.is(fastyaml.BoolTag) {
		if v, ok := boolOf(x); ok {
			return v
		}
	}
	ps := p.String()
	d.problem(x, ps, "%s should be true or false, not %s", ps, kindName(x))
	return false
}

// strList reads a list of scalars in flow or block style; null is empty.
func (d *decoder) strList(x val, p path) []string {
	x = d.resolve(x)
	if isNull(x) {
		return nil
	}
	if x.kind() != yaml.SequenceNode {
		ps := p.String()
		d.problem(x, ps, "%s should be a list, not %s", ps, kindName(x))
		return nil
	}
	item := func(i int, c val) (string, bool) {
		c = d.resolve(c)
		if c.kind() != yaml.ScalarNode || isNull(c) {
			ps := p.String()
			d.problem(c, ps, "%s[%d] should be text, not %s", ps, i, kindName(c))
			return "", false
		}
		return d.keep(c), true
	}
	if x.n != nil {
		out := make([]string, 0, len(x.n.Content))
		for i, c := range x.n.Content {
			if s, ok := item(i, nodeVal(c)); ok {
				out = append(out, s)
			}
		}
		return out
	}
	// The reader's list is gathered on the stack as it is read, then
	// kept in d.listArena.
	var buf [16]string
	out := buf[:0]
	c := x.v
	for i := 0; ; i++ {
		_, v, ok := d.r.Next(&c)
		if !ok {
			break
		}
		if v.Kind == yaml.ScalarNode && v.Tag != fastyaml.NullTag {
			out = append(out, d.keepText(v)) // item's answer, without its checks
		} else if s, ok := item(i, val{v: v}); ok {
			out = append(out, s)
		}
		d.skip(v)
	}
	return d.listArena.keep(out)
}

// entries calls each with the key and value of every entry of the mapping
// x, or with the zero val and every item of the sequence x, in order.
// Entries the reader returned and each did not read are skipped.
func (d *decoder) entries(x val, each func(k, v val)) {
	if x.n != nil {
		if x.n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(x.n.Content); i += 2 {
				each(nodeVal(x.n.Content[i]), nodeVal(x.n.Content[i+1]))
			}
			return
		}
		for _, c := range x.n.Content {
			each(val{}, nodeVal(c))
		}
		return
	}
	c := x.v
	for {
		k, v, ok := d.r.Next(&c)
		if !ok {
			return
		}
		each(val{v: k}, val{v: v})
		d.skip(v)
	}
}

// skip moves the reader past v, the value just decoded: to where the
// entry ends when it was taken from the previous version (d.skipTo, set
// by entry), else past what was not read of it.
func (d *decoder) skip(v fastyaml.Value) {
	if d.skipTo > 0 {
		d.r.SkipTo(d.skipTo)
		d.skipTo = 0
		return
	}
	d.r.Skip(v)
}

// items calls each with every item of the sequence x.
func (d *decoder) items(x val, each func(i int, item val)) {
	if x.n != nil {
		for i, c := range x.n.Content {
			each(i, nodeVal(c))
		}
		return
	}
	c := x.v
	for i := 0; ; i++ {
		_, v, ok := d.r.Next(&c)
		if !ok {
			return
		}
		each(i, val{v: v})
		d.skip(v)
	}
}

// mapping iterates over the entries of a mapping. known handles a key and
// reports whether it knew it; unknown keys go to the returned Extra. It also
// returns the line of every key present.
func (d *decoder) mapping(x val, p path, known func(key string, k, v val) bool) (model.Extra, model.Lines, bool) {
	return d.mapOf(x, p, true, known)
}

// fields is mapping for an entry that keeps no Lines: the keys are
// still checked (a key twice is a problem) but not kept.
func (d *decoder) fields(x val, p path, known func(key string, k, v val) bool) (model.Extra, bool) {
	extra, _, ok := d.mapOf(x, p, false, known)
	return extra, ok
}

// mapOf is mapping, which returns the Lines only when keep is set.
func (d *decoder) mapOf(x val, p path, keep bool, known func(key string, k, v val) bool) (model.Extra, model.Lines, bool) {
	x = d.resolve(x)
	if isNull(x) {
		return nil, model.Lines{}, false
	}
	if x.kind() != yaml.MappingNode {
		ps := p.String()
		d.problem(x, ps, "%s should be a mapping of fields, not %s", ps, kindName(x))
		return nil, model.Lines{}, false
	}
	var extra model.Extra
	// The keys are gathered on keys, in file order, and then kept sorted
	// in d.lineArena: one allocation for many entries instead of a map
	// for each. keys starts on the stack, where the GC does not watch
	// its writes (a state file's entries are read while it marks). The
	// entries come from the tree or the reader in one loop (no closure
	// per entry: a state file has about one key per line).
	var buf [manyKeys]model.KeyLine
	keys := buf[:0]
	var index map[string]int // from manyKeys keys on: key → its place on keys
	c := x.v
	for i := 0; ; i += 2 {
		var k, v val
		if x.n != nil {
			if i+1 >= len(x.n.Content) {
				break
			}
			k, v = d.resolve(nodeVal(x.n.Content[i])), nodeVal(x.n.Content[i+1])
		} else {
			kv, vv, ok := d.r.Next(&c)
			if !ok {
				break
			}
			k, v = val{v: kv}, val{v: vv}
		}
		if k.kind() != yaml.ScalarNode {
			ps := p.String()
			d.problem(k, ps, "%s has a key that is not text", ps)
		} else {
			key, line := d.key(k), d.line(k)
			keys, index = d.noteKey(keys, index, keep, x, k, &p, key, line)
			if !known(key, k, v) {
				extra = append(extra, model.Field{Key: key, Value: d.generic(v, 0), Line: line})
			}
		}
		if x.n == nil {
			d.skip(v.v)
		}
	}
	var lines model.Lines
	if keep {
		lines = d.keepSorted(keys)
	}
	return extra, lines, true
}

// noteKey adds key, the key k on line, to those of the mapping x (at
// p) read so far: keys, in file order (only while there are fewer than
// manyKeys when keep is false), and from manyKeys keys on index, which
// maps each to its place. A key given twice is a problem, and keeps the
// later line.
func (d *decoder) noteKey(keys []model.KeyLine, index map[string]int, keep bool, x, k val, p *path, key string, line int) ([]model.KeyLine, map[string]int) {
	if at := keyAt(keys, index, key); at >= 0 {
		if keep {
			// The last one's line, as a map would keep.
			keys[at].Line = line
		}
		ps := p.String()
		d.problem(k, ps, "%s has the key %q twice", ps, key)
		return keys, index
	}
	if index != nil {
		// Without keep, the index alone has the keys.
		n := len(index)
		index[key] = n
		if keep {
			keys = append(keys, model.KeyLine{Key: key, Line: line})
		}
		return keys, index
	}
	keys = append(keys, model.KeyLine{Key: key, Line: line})
	if n := len(keys); n == manyKeys {
		index = make(map[string]int, max(2*n, d.itemCount(x)))
		for i, kl := range keys {
			index[kl.Key] = i
		}
		if !keep {
			keys = keys[:0]
		}
	}
	return keys, index
}

// keepSorted returns the keys of one mapping kept as Lines, sorted as
// model.SortLines sorts them (each key is there once, so any sort gives
// the same order). The few keys of an entry are ordered by insertion on
// their indexes, then written once where they are kept: no key is moved
// twice (while the collector marks, each move of a string is recorded).
func (d *decoder) keepSorted(kl []model.KeyLine) model.Lines {
	if len(kl) > manyKeys {
		model.SortLines(kl)
		return d.lineArena.keep(kl)
	}
	var order [manyKeys]uint8
	for i := range kl {
		j := i
		for ; j > 0 && kl[i].Key < kl[order[j-1]].Key; j-- {
			order[j] = order[j-1]
		}
		order[j] = uint8(i)
	}
	out := d.lineArena.take(len(kl))
	for j := range out {
		out[j] = kl[order[j]]
	}
	return out
}

// manyKeys is the number of keys from which mapping finds a key by a map
// rather than by looking at each key before it.
const manyKeys = 16

// keyAt is the place of key among keys (index, when not nil, maps each of
// them to it), or -1.
func keyAt(keys []model.KeyLine, index map[string]int, key string) int {
	if index != nil {
		if i, ok := index[key]; ok {
			return i
		}
		return -1
	}
	for i := range keys {
		if keys[i].Key == key {
			return i
		}
	}
	return -1
}

// sliceArena holds the slices a decoder keeps of the entries it decodes
// — their model.Lines, the lists of text read directly (an atom's
// depends_on) — in chunks, so that each entry costs no allocation of its
// own. A chunk lives as long as one of its entries does (Reparse keeps
// unchanged entries of the last read); the chunks start small so that an
// entry re-decoded on its own keeps little.
type sliceArena[T any] struct {
	buf  []T
	size int // the size of the last chunk
}

// A chunk holds from minChunk entries up to maxChunkBytes.
const (
	minChunk      = 16
	maxChunkBytes = 32 << 10
)

// keep returns a copy of s (empty, not nil, for an empty s): a part of a
// chunk that nothing else uses (its capacity ends with it, so that
// model.Lines.With or append copy).
func (a *sliceArena[T]) keep(s []T) []T {
	out := a.take(len(s))
	copy(out, s)
	return out
}

// take returns n zero entries as keep returns a copy of n, for the
// caller to fill.
func (a *sliceArena[T]) take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if n > cap(a.buf)-len(a.buf) {
		var zero T
		most := maxChunkBytes / int(unsafe.Sizeof(zero))
		if n > most/8 {
			return make([]T, n)
		}
		a.size = min(max(2*a.size, minChunk, n), most)
		a.buf = make([]T, 0, a.size)
	}
	start := len(a.buf)
	a.buf = a.buf[:start+n]
	return a.buf[start : start+n : start+n]
}

// generic decodes any value for display (unknown fields).
func (d *decoder) generic(x val, depth int) any {
	x = d.resolve(x)
	if depth > maxNesting {
		return "…"
	}
	switch x.kind() {
	case yaml.ScalarNode:
		switch {
		case x.is(fastyaml.NullTag):
			return nil
		case x.is(fastyaml.BoolTag):
			if b, ok := boolOf(x); ok {
				return b
			}
		case x.is(fastyaml.IntTag):
			if v, err := strconv.Atoi(x.raw()); err == nil {
				return v
			}
		case x.is(fastyaml.FloatTag):
			if f, ok := floatOf(x); ok {
				return f
			}
		}
		return d.keep(x)
	case yaml.SequenceNode:
		out := make([]any, 0, d.itemCount(x))
		d.items(x, func(_ int, c val) {
			out = append(out, d.generic(c, depth+1))
		})
		return out
	case yaml.MappingNode:
		var out model.Extra
		d.entries(x, func(k, v val) {
			k = d.resolve(k)
			out = append(out, model.Field{Key: d.key(k), Value: d.generic(v, depth+1), Line: d.line(k)})
		})
		return out
	}
	return nil
}

// itemCount is the number of items of a list or entries of a mapping, to
// size what is decoded from it (no alias budget is charged: it reads one
// slice length; the reader counts lines).
func (d *decoder) itemCount(x val) int {
	n := x.n
	if n == nil {
		if x.v.Kind == 0 {
			return 0
		}
		return d.r.Len(x.v)
	}
	if n.Kind == yaml.AliasNode {
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
func (d *decoder) seq(x val, p path, each func(i int, item val)) bool {
	x = d.resolve(x)
	if isNull(x) {
		return false
	}
	if x.kind() != yaml.SequenceNode {
		ps := p.String()
		d.problem(x, ps, "%s should be a list, not %s", ps, kindName(x))
		return false
	}
	d.items(x, each)
	return true
}

// seqEntries decodes the top-level list key, value v, entry by entry with
// decode, taking an entry from old (the previous version's, moved by
// shift) where its text did not change (see entry).
func seqEntries[T any](d *decoder, key string, v val, old []T, shift func(T, int) T, decode func(val, int) T) []T {
	out := make([]T, 0, d.itemCount(v))
	r := d.list(key, v)
	d.seq(v, pathOf(key), func(i int, item val) {
		out = append(out, entry(d, r, i, item, old, shift, func() T { return decode(item, i) }))
	})
	r.done(d)
	return out
}

// mapEntries is seqEntries for a top-level mapping (or_groups,
// bindings): decode is given each entry's key text and nodes.
func mapEntries[T any](d *decoder, key string, v val, old []T, shift func(T, int) T, decode func(name string, k, v val) T) []T {
	out := make([]T, 0, d.itemCount(v))
	r := d.list(key, v)
	d.fields(v, pathOf(key), func(name string, k, val val) bool {
		out = append(out, entry(d, r, len(out), val, old, shift, func() T { return decode(name, k, val) }))
		return true
	})
	r.done(d)
	return out
}

// decodeState fills a model.State from the frontmatter's root mapping.
func (d *decoder) decodeState(root val) *model.State {
	s := &model.State{}
	prev := d.prevState()
	if prev == nil {
		prev = &model.State{}
	}
	s.Extra, s.Lines, _ = d.mapping(root, pathOf("frontmatter"), func(key string, k, v val) bool {
		defer d.noteTop(key, len(d.problems), len(d.pending) > 0)
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

func (d *decoder) objective(x val) model.Objective {
	var o model.Objective
	o.Extra, o.Lines, _ = d.mapping(x, pathOf("objective"), func(key string, k, v val) bool {
		switch key {
		case "goal":
			o.Goal = d.str(v, pathOf("objective.goal"))
		case "base_case":
			o.BaseCase = d.baseCase(v)
		case "background_intent":
			o.BackgroundIntent = d.str(v, pathOf("objective.background_intent"))
		case "deliverables":
			o.Deliverables = d.str(v, pathOf("objective.deliverables"))
		case "definition_of_done":
			o.DefinitionOfDone = d.str(v, pathOf("objective.definition_of_done"))
		case "constraints":
			o.Constraints = d.constraints(v)
		default:
			return false
		}
		return true
	})
	return o
}

func (d *decoder) constraints(x val) model.Constraints {
	var c model.Constraints
	c.Extra, c.Lines, _ = d.mapping(x, pathOf("objective.constraints"), func(key string, k, v val) bool {
		switch key {
		case "max_iterations":
			c.MaxIterations = d.integer(v, pathOf("constraints.max_iterations"))
		case "max_parallel_agents":
			c.MaxParallelAgents = d.integer(v, pathOf("constraints.max_parallel_agents"))
		case "max_stall_count":
			c.MaxStallCount = d.integer(v, pathOf("constraints.max_stall_count"))
		default:
			return false
		}
		return true
	})
	return c
}

func (d *decoder) baseCase(x val) model.BaseCase {
	b := model.BaseCase{Line: d.line(x)}
	x = d.resolve(x)
	if x.kind() == yaml.ScalarNode && !isNull(x) {
		// A bare string is an informal legacy assertion; keep it readable.
		b.Legacy = &model.Check{Type: model.CheckAssertion, Value: d.keep(x), Line: d.line(x)}
		d.problem(x, "objective.base_case", "objective.base_case should be a mapping ({type, value} or checklist), not %s", kindName(x))
		return b
	}
	legacy := model.Check{Lines: model.Lines{}}
	var sawLegacy bool
	b.Extra, _ = d.fields(x, pathOf("objective.base_case"), func(key string, k, v val) bool {
		switch key {
		case "checklist":
			b.IsChecklist = true
			b.Checklist = d.checklist(v, "base_case.checklist", 0)
		case "type", "value", "rubric", "criteria", "pass_threshold", "scope":
			sawLegacy = true
			legacy.Lines = legacy.Lines.With(key, d.line(k))
			d.checkField(&legacy, key, v, "objective.base_case")
		default:
			return false
		}
		return true
	})
	if sawLegacy {
		legacy.Line = d.line(x)
		b.Legacy = &legacy
	}
	return b
}

func (d *decoder) checklist(x val, path string, depth int) []model.ChecklistItem {
	if depth > maxNesting {
		d.problem(d.resolve(x), path, "%s nests more than %d levels deep", path, maxNesting)
		return nil
	}
	var items []model.ChecklistItem
	d.seq(x, pathOf(path), func(i int, item val) {
		p := fmt.Sprintf("%s[%d]", path, i)
		ci := model.ChecklistItem{Line: d.line(d.resolve(item))}
		ci.Extra, _ = d.fields(item, pathOf(p), func(key string, k, v val) bool {
			switch key {
			case "item":
				ci.Item = d.str(v, pathOf(p+".item"))
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

func (d *decoder) check(x val, path string) *model.Check {
	c := &model.Check{Line: d.line(d.resolve(x))}
	c.Extra, c.Lines, _ = d.mapping(x, pathOf(path), func(key string, k, v val) bool {
		switch key {
		case "type", "value", "rubric", "criteria", "pass_threshold", "scope":
			d.checkField(c, key, v, path)
			return true
		}
		return false
	})
	return c
}

func (d *decoder) checkField(c *model.Check, key string, v val, path string) {
	switch key {
	case "type":
		c.Type = model.CheckType(d.str(v, pathOf(path+".type")))
	case "value":
		c.Value = d.str(v, pathOf(path+".value"))
	case "criteria":
		c.Criteria = d.str(v, pathOf(path+".criteria"))
	case "scope":
		c.Scope = d.str(v, pathOf(path+".scope"))
	case "pass_threshold":
		c.PassThreshold = d.number(v, pathOf(path+".pass_threshold"))
		c.HasThreshold = true
	case "rubric":
		d.seq(v, pathOf(path+".rubric"), func(i int, item val) {
			p := fmt.Sprintf("%s.rubric[%d]", path, i)
			r := model.RubricCriterion{Line: d.line(d.resolve(item))}
			r.Extra, _ = d.fields(item, pathOf(p), func(key string, k, v val) bool {
				switch key {
				case "criterion":
					r.Criterion = d.str(v, pathOf(p+".criterion"))
				case "description":
					r.Description = d.str(v, pathOf(p+".description"))
				case "weight":
					r.Weight = d.number(v, pathOf(p+".weight"))
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

func (d *decoder) levels(x val, path string) []model.RubricLevel {
	var out []model.RubricLevel
	d.fields(x, pathOf(path), func(key string, k, v val) bool {
		score, err := strconv.Atoi(key)
		if err != nil {
			d.problem(k, path, "%s has the level %q; levels are scores such as 1, 3, 5", path, key)
		}
		out = append(out, model.RubricLevel{Score: score, Text: d.str(v, pathOf(path+"."+key))})
		return true
	})
	return out
}

func (d *decoder) control(x val) model.Control {
	var c model.Control
	c.Extra, c.Lines, _ = d.mapping(x, pathOf("control"), func(key string, k, v val) bool {
		switch key {
		case "status":
			c.Status = model.LoopStatus(d.str(v, pathOf("control.status")))
		case "iteration":
			c.Iteration = d.integer(v, pathOf("control.iteration"))
		case "stall_count":
			c.StallCount = d.integer(v, pathOf("control.stall_count"))
		case "prev_pending_count":
			c.PrevPendingCount = d.integer(v, pathOf("control.prev_pending_count"))
		case "stop_requested":
			c.StopRequested = d.boolean(v, pathOf("control.stop_requested"))
		case "stop_reason":
			c.StopReason = d.str(v, pathOf("control.stop_reason"))
		case "redirect_requested":
			c.RedirectRequested = d.boolean(v, pathOf("control.redirect_requested"))
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

func (d *decoder) atom(x val, i int) model.Atom {
	if x.n == nil && x.v.Kind == yaml.MappingNode {
		return d.readAtom(x.v, i)
	}
	p := entryPath("atoms", i)
	a := model.Atom{Line: d.line(d.resolve(x))}
	a.Extra, a.Lines, _ = d.mapping(x, p, func(key string, k, v val) bool {
		switch key {
		case "id":
			a.ID = d.field(v, &p, "id")
		case "description":
			a.Description = d.field(v, &p, "description")
		case "status":
			a.Status = model.AtomStatus(d.field(v, &p, "status"))
		case "depends_on":
			a.DependsOn = d.strList(v, p.dot("depends_on"))
		case "or_group":
			a.ORGroup = d.field(v, &p, "or_group")
		default:
			return false
		}
		return true
	})
	return a
}

func (d *decoder) decomposition(x val, i int) model.Decomposition {
	p := entryPath("decompositions", i)
	dc := model.Decomposition{Line: d.line(d.resolve(x))}
	dc.Extra, _ = d.fields(x, p, func(key string, k, v val) bool {
		switch key {
		case "parent":
			dc.Parent = d.field(v, &p, "parent")
		case "children":
			dc.Children = d.strList(v, p.dot("children"))
		case "reason":
			dc.Reason = d.field(v, &p, "reason")
		default:
			return false
		}
		return true
	})
	return dc
}

func (d *decoder) orGroup(name string, k, x val) model.ORGroup {
	p := keyPath("or_groups", name)
	g := model.ORGroup{Name: name, Line: d.line(k)}
	g.Extra, g.Lines, _ = d.mapping(x, p, func(key string, k, v val) bool {
		switch key {
		case "choices":
			g.Choices = d.strList(v, p.dot("choices"))
		case "selected":
			g.Selected = d.field(v, &p, "selected")
		case "failed":
			g.Failed = d.strList(v, p.dot("failed"))
		default:
			return false
		}
		return true
	})
	return g
}

func (d *decoder) binding(id string, k, x val) model.Binding {
	p := keyPath("bindings", id)
	b := model.Binding{AtomID: id, Line: d.line(k)}
	b.Extra, b.Lines, _ = d.mapping(x, p, func(key string, k, v val) bool {
		switch key {
		case "summary":
			b.Summary = strings.TrimRight(d.field(v, &p, "summary"), "\n")
		case "artifacts":
			b.Artifacts = d.strList(v, p.dot("artifacts"))
		default:
			return false
		}
		return true
	})
	return b
}

func (d *decoder) trail(x val, i int) model.TrailEntry {
	p := entryPath("trail", i)
	t := model.TrailEntry{Line: d.line(d.resolve(x))}
	t.Extra, _ = d.fields(x, p, func(key string, k, v val) bool {
		switch key {
		case "type":
			t.Type = d.field(v, &p, "type")
		case "or_group":
			t.ORGroup = d.field(v, &p, "or_group")
		case "selected":
			t.Selected = d.field(v, &p, "selected")
		case "reason":
			t.Reason = d.field(v, &p, "reason")
		case "timestamp":
			t.Timestamp = d.field(v, &p, "timestamp")
		default:
			return false
		}
		return true
	})
	return t
}

func (d *decoder) correction(x val, i int) model.Correction {
	p := entryPath("corrections", i)
	c := model.Correction{Line: d.line(d.resolve(x))}
	c.Extra, _ = d.fields(x, p, func(key string, k, v val) bool {
		switch key {
		case "timestamp":
			c.Timestamp = d.field(v, &p, "timestamp")
		case "type":
			c.Type = model.CorrectionType(d.field(v, &p, "type"))
		case "description":
			c.Description = d.field(v, &p, "description")
		case "trail_cleared":
			c.TrailCleared = d.boolean(v, p.dot("trail_cleared"))
		default:
			return false
		}
		return true
	})
	return c
}

// readAtom is atom for a mapping the reader returned: mapping's loop
// (mapOf) with the atom's fields switched on in it, rather than in a
// closure called for each key — the atoms are most of a state file, and
// this is most of the time Parse takes to decode them. It must decode
// what atom does through mapping: TestDirectMatchesTree and FuzzParse
// compare it with the tree's atoms, which atom decodes that way.
func (d *decoder) readAtom(x fastyaml.Value, i int) model.Atom {
	p := entryPath("atoms", i)
	a := model.Atom{Line: d.lines.File(int(x.Line))}
	var buf [manyKeys]model.KeyLine
	keys := buf[:0]
	var index map[string]int
	c := x
	for {
		kv, vv, ok := d.r.Next(&c)
		if !ok {
			break
		}
		k, v := val{v: kv}, val{v: vv}
		if kv.Kind != yaml.ScalarNode {
			ps := p.String()
			d.problem(k, ps, "%s has a key that is not text", ps)
			d.skip(vv)
			continue
		}
		key, line := d.key(k), d.lines.File(int(kv.Line))
		keys, index = d.noteKey(keys, index, true, val{v: x}, k, &p, key, line)
		switch key {
		case "id":
			a.ID = d.readStr(vv, &p, "id")
		case "description":
			a.Description = d.readStr(vv, &p, "description")
		case "status":
			a.Status = model.AtomStatus(d.readStr(vv, &p, "status"))
		case "depends_on":
			a.DependsOn = d.strList(v, p.dot("depends_on"))
		case "or_group":
			a.ORGroup = d.readStr(vv, &p, "or_group")
		default:
			a.Extra = append(a.Extra, model.Field{Key: key, Value: d.generic(v, 0), Line: line})
		}
		d.skip(vv)
	}
	a.Lines = d.keepSorted(keys)
	return a
}
