package statefile

import (
	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/model"
)

// docMemo is what Reparse keeps of a Document for the next one.
type docMemo struct {
	// yaml remembers the parse: where each entry of the top-level lists
	// is, and which entry of the previous version it was taken from.
	yaml *fastyaml.Memo
	// spans holds, for each top-level list decoded entry by entry, the
	// problems each entry gave: State.Problems[spans[2i]:spans[2i+1]]. An
	// entry taken from this Document takes them along. (Problems of the
	// list itself, such as a key given twice, are outside every span.)
	spans map[string][]int32
	// loopTools is what reading each entry as the loop's own tools do
	// gave (looptools.EntryRead), for the next version.
	loopTools *entries
	// top holds, for each top-level key, the problems its value gave:
	// State.Problems[top[key][0]:top[key][1]] ({-1, -1}: the key is given
	// twice). See noteTop.
	top map[string][2]int32
}

// entries are the entries of the top-level lists and mappings the memo
// knows, in file order, for looptools.ReadEntries: where each is in the
// file, and the reading of the entry it was taken from.
type entries struct {
	secs []entrySection
	n    int
	// base is where the YAML starts in the file, firstLine the file
	// line of its first line.
	base, firstLine int
	// read are the readings of all the entries, in order.
	read []looptools.EntryRead
}

type entrySection struct {
	key   string
	sec   fastyaml.Section
	first int // the index of its first entry among all
	// prev are the readings of the same section's entries in the version
	// before (nil: none).
	prev []looptools.EntryRead
}

// loopEntries lists the entries of the lean sections memo m knows, in
// file order, with the readings of the entries of prev they were taken
// from; the YAML starts at yamlStart in the file, on line firstLine.
func loopEntries(m *docMemo, prev *Document, yamlStart, firstLine int) *entries {
	e := &entries{base: yamlStart, firstLine: firstLine}
	var old *entries
	if prev != nil && prev.memo != nil {
		old = prev.memo.loopTools
	}
	for _, key := range m.yaml.LeanKeys() {
		sec := m.yaml.Lean(key)
		es := entrySection{key: key, sec: sec, first: e.n}
		if old != nil {
			es.prev = old.section(key)
		}
		e.secs = append(e.secs, es)
		e.n += sec.Len()
	}
	return e
}

// forget lets go of the version before's readings, once read: each
// version keeps its own only.
func (e *entries) forget() {
	for k := range e.secs {
		e.secs[k].prev = nil
	}
}

// section returns the readings of the entries under key (nil: none).
func (e *entries) section(key string) []looptools.EntryRead {
	for k, s := range e.secs {
		if s.key != key {
			continue
		}
		end := e.n
		if k+1 < len(e.secs) {
			end = e.secs[k+1].first
		}
		if len(e.read) >= end {
			return e.read[s.first:end]
		}
	}
	return nil
}

// Len is the number of entries.
func (e *entries) Len() int { return e.n }

// Entry is entry i: where it is in the file, and the reading of the entry
// of the version before it was taken from.
func (e *entries) Entry(i int) (start, end, line int, prev *looptools.EntryRead) {
	k := len(e.secs) - 1
	for k > 0 && e.secs[k].first > i {
		k--
	}
	s := &e.secs[k]
	j := i - s.first
	a, b, _ := s.sec.Span(j)
	if from, _, ok := s.sec.Origin(j); ok && from >= 0 && from < len(s.prev) {
		prev = &s.prev[from]
	}
	return e.base + a, e.base + b, e.firstLine + s.sec.Line(j), prev
}

// listRec records the problems of the entries of one top-level list while
// it is decoded; nil when there is no memo to record in.
type listRec struct {
	key   string
	sec   fastyaml.Section
	spans []int32
	// prevSpans are the spans of the same list in the previous version
	// (nil: none known).
	prevSpans []int32
}

// list starts recording the entries of coll, the value of the top-level
// key, when the memo knows them all.
func (d *decoder) list(key string, coll val) *listRec {
	if d.memo == nil {
		return nil
	}
	var sec fastyaml.Section
	if coll.n != nil {
		sec = d.memo.yaml.Section(key, coll.n)
	} else if d.r != nil {
		sec = d.memo.yaml.Lean(key) // the text read directly (MemoOf)
	}
	n := sec.Len()
	if n == 0 || n != d.itemCount(coll) {
		return nil
	}
	r := &listRec{key: key, sec: sec, spans: make([]int32, 0, 2*n)}
	if len(d.pending) > 0 {
		d.moved = append(d.moved, movedRec{key: key, list: true})
	}
	if d.prev != nil {
		r.prevSpans = d.prev.memo.spans[key]
	}
	return r
}

// done stores what was recorded, when every entry was decoded.
func (r *listRec) done(d *decoder) {
	if r != nil && len(r.spans) == 2*r.sec.Len() {
		d.memo.spans[r.key] = r.spans
	}
}

// entry decodes entry i of the list r records, whose value is node:
// taken from the previous version when its text did not change (old are
// that version's decoded entries of the list, shift moves one by a number
// of lines), else with decode. A node the parse took from the previous
// version (the fastyaml.Stub) has nothing to decode: when the entry
// cannot be taken, d.stubMissed says so.
func entry[T any](d *decoder, r *listRec, i int, node val, old []T, shift func(T, int) T, decode func() T) T {
	start := len(d.problems)
	v, ok := reused(d, r, i, old, shift)
	if ok && d.r != nil {
		_, end, _ := r.sec.Span(i)
		d.skipTo = end
	}
	if !ok {
		if fastyaml.IsStub(node.n) {
			d.stubMissed = true
		} else {
			v = decode()
		}
	}
	if r != nil {
		r.spans = append(r.spans, int32(start), int32(len(d.problems)))
	}
	return v
}

// reused returns entry i of the list r records, decoded from the previous
// version, when its text did not change. Its problems come along; an
// entry with problems is decoded again when its index changed, since
// their paths may name the index.
func reused[T any](d *decoder, r *listRec, i int, old []T, shift func(T, int) T) (T, bool) {
	var zero T
	if r == nil || d.prev == nil {
		return zero, false
	}
	from, delta, ok := r.sec.Origin(i)
	if !ok || from < 0 || from >= len(old) {
		return zero, false
	}
	spans := r.prevSpans
	if len(spans) != 2*len(old) {
		return zero, false
	}
	probs := d.prev.State.Problems[spans[2*from]:spans[2*from+1]]
	if len(probs) > 0 && from != i {
		return zero, false
	}
	// Lines in the file: the entry moved by delta in the frontmatter, and
	// the frontmatter may have moved in the file.
	delta += d.lines.Offset() - d.prev.lines.Offset()
	for _, p := range probs {
		p.Line = shiftLine(p.Line, delta)
		d.problems = append(d.problems, p)
	}
	return shift(old[from], delta), true
}

// prevState is the state entries are taken from (nil: none).
func (d *decoder) prevState() *model.State {
	if d.prev == nil {
		return nil
	}
	return d.prev.State
}

func shiftLine(l, delta int) int {
	if l > 0 {
		return l + delta
	}
	return l
}

func shiftLines(ls model.Lines, delta int) model.Lines {
	if ls == nil {
		return nil
	}
	out := make(model.Lines, len(ls))
	for i, kl := range ls {
		out[i] = model.KeyLine{Key: kl.Key, Line: shiftLine(kl.Line, delta)}
	}
	return out
}

func shiftExtra(e model.Extra, delta int) model.Extra {
	if e == nil {
		return nil
	}
	out := make(model.Extra, len(e))
	for i, f := range e {
		out[i] = model.Field{Key: f.Key, Value: shiftValue(f.Value, delta), Line: shiftLine(f.Line, delta)}
	}
	return out
}

// shiftValue moves the lines inside a value decoded by generic.
func shiftValue(v any, delta int) any {
	switch v := v.(type) {
	case model.Extra:
		return shiftExtra(v, delta)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = shiftValue(x, delta)
		}
		return out
	}
	return v
}

// shiftParts moves what every decoded entry has by delta lines: its line,
// its unknown fields and, when it has them (lines non-nil), the lines of
// its keys.
func shiftParts(delta int, line *int, extra *model.Extra, lines *model.Lines) {
	if delta == 0 {
		return
	}
	*line, *extra = shiftLine(*line, delta), shiftExtra(*extra, delta)
	if lines != nil {
		*lines = shiftLines(*lines, delta)
	}
}

func shiftAtom(a model.Atom, delta int) model.Atom {
	shiftParts(delta, &a.Line, &a.Extra, &a.Lines)
	return a
}

func shiftDecomposition(dc model.Decomposition, delta int) model.Decomposition {
	shiftParts(delta, &dc.Line, &dc.Extra, nil)
	return dc
}

func shiftORGroup(g model.ORGroup, delta int) model.ORGroup {
	shiftParts(delta, &g.Line, &g.Extra, &g.Lines)
	return g
}

func shiftBinding(b model.Binding, delta int) model.Binding {
	shiftParts(delta, &b.Line, &b.Extra, &b.Lines)
	return b
}

func shiftTrail(t model.TrailEntry, delta int) model.TrailEntry {
	shiftParts(delta, &t.Line, &t.Extra, nil)
	return t
}

func shiftCorrection(c model.Correction, delta int) model.Correction {
	shiftParts(delta, &c.Line, &c.Extra, nil)
	return c
}
