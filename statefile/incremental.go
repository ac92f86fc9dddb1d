package statefile

import (
	"bytes"
	"slices"
	"sync/atomic"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// Reparse's first way: a new version that differs from the one before
// inside a few entries — a loop's write changes an atom's status and the
// control block — is read by reading those entries alone. The new bytes
// are compared with the version before's (fastyaml.Memo.Edits: the
// frontmatter's frame and the body must be the same bytes, and the YAML
// may differ only inside entries of the top-level lists and mappings, or
// inside the objective and control blocks); each changed piece is read
// from its own text by a fastyaml.Reader and decoded as Parse decodes it;
// everything else is taken from the version before, moved by the lines
// the pieces gained or lost. The problems of the pieces replace theirs,
// and the loop's tools read the bytes with the entries that did not change
// taken from the version before (looptools.ReadEntries), as the other way
// does. Anything the pieces or their surroundings do not settle — a piece
// that is not one entry, a character or line break outside the subset, a
// changed key, a line count that changes above a section whose lines
// nobody moves — makes it give up, and Reparse reads the file as before.
// TestReparseMatchesParse, TestIncrementalReparse and FuzzReparse hold it
// to Parse.

// maxEdits is the most pieces the incremental read reads; more changes
// are read the other way.
const maxEdits = 16

// noteTop records, while a Reparse decodes, the problems the value of the
// top-level key gave (from start): the incremental read replaces them
// when it reads the value again. A key given twice is recorded as unknown.
// cut says that start was recorded after a cut of the atoms list whose
// second part's problems are not in yet (see afterCut).
func (d *decoder) noteTop(key string, start int, cut bool) {
	if d.memo == nil {
		return
	}
	if len(d.pending) > 0 {
		d.moved = append(d.moved, movedRec{key: key, start: cut})
	}
	if d.memo.top == nil {
		d.memo.top = map[string][2]int32{}
	}
	if _, dup := d.memo.top[key]; dup {
		d.memo.top[key] = [2]int32{-1, -1}
		return
	}
	d.memo.top[key] = [2]int32{int32(start), int32(len(d.problems))}
}

// piece is an edit read again: its problems and what it decoded to.
type piece struct {
	e        fastyaml.Edit
	oldLines int // the lines it had (the new count is oldLines + e.Lines)
	probs    []model.Problem
	// at is the range of its problems in the version before's.
	at [2]int32
	// One of these, by e.Key.
	atom    model.Atom
	dc      model.Decomposition
	group   model.ORGroup
	binding model.Binding
	trail   model.TrailEntry
	corr    model.Correction
	obj     model.Objective
	control model.Control
}

// reparseEdits is the incremental read of data, a new version of prev's
// file; nil when it cannot tell (Reparse then reads data the other way).
func reparseEdits(prev *Document, data []byte) *Document {
	pm := prev.memo
	if pm == nil || pm.yaml == nil || pm.top == nil || !prev.lines.SameLines() || prev.State == nil {
		return nil
	}
	fm, old := prev.FM, prev.Data
	tail := len(old) - fm.YAMLEnd
	yamlEnd := len(data) - tail
	if yamlEnd < fm.YAMLStart || !bytes.Equal(data[:fm.YAMLStart], old[:fm.YAMLStart]) || !bytes.Equal(data[yamlEnd:], old[fm.YAMLEnd:]) {
		return nil
	}
	yml, oldYML := data[fm.YAMLStart:yamlEnd], fm.YAML(old)
	edits, ok := pm.yaml.Edits(yml, maxEdits)
	if !ok {
		return nil
	}
	off := prev.lines.Offset()
	pieces := make([]piece, len(edits))
	d := &decoder{}
	for k, e := range edits {
		p := &pieces[k]
		p.e = e
		p.oldLines = bytes.Count(oldYML[e.OldStart:e.OldEnd], []byte{'\n'})
		if !d.readPiece(p, yml, off, pm, prev.State) {
			return nil
		}
	}
	st, ok := patchState(prev, pieces, off)
	if !ok {
		return nil
	}
	nm := pm.yaml.Patch(yml, edits)
	memo := &docMemo{yaml: nm}
	st.Problems, memo.spans, memo.top = patchProblems(prev, pieces, off)
	nfm := fm
	nfm.YAMLEnd, nfm.BodyStart = yamlEnd, fm.BodyStart+yamlEnd-fm.YAMLEnd
	// The loop's tools, with the entries that did not change taken from
	// the version before.
	e := loopEntries(memo, prev, nfm.YAMLStart, nfm.FirstLine)
	frame := looptools.Frame{YAMLStart: nfm.YAMLStart, YAMLEnd: nfm.YAMLEnd,
		BodyStart: nfm.BodyStart, FirstLine: nfm.FirstLine, BOM: nfm.BOM, CRLF: nfm.CRLF}
	st.LoopRead, e.read = looptools.ReadEntries(data, frame, st, e)
	e.forget()
	memo.loopTools = e
	return &Document{Data: data, FM: nfm, State: st, lines: prev.lines, memo: memo}
}

// readPiece reads the edit p.e of yml, the new YAML, from its own text:
// false when that text is not one entry of its list (or, for a section, a
// value of its own) in the subset the Reader takes.
func (d *decoder) readPiece(p *piece, yml []byte, off int, pm *docMemo, prev *model.State) bool {
	e := p.e
	text := yml[e.Start:e.End]
	if isMarkerLine(text) || bytes.Contains(text, []byte("\n---")) || bytes.Contains(text, []byte("\n...")) || bytes.Contains(text, []byte("\n%")) {
		return false
	}
	// Where its problems were.
	if e.Entry < 0 {
		at, ok := pm.top[e.Key]
		if !ok || at[0] < 0 {
			return false
		}
		p.at = at
	} else {
		spans := pm.spans[e.Key]
		if 2*e.Entry+1 >= len(spans) || len(spans) != 2*pm.yaml.Lean(e.Key).Len() {
			return false
		}
		p.at = [2]int32{spans[2*e.Entry], spans[2*e.Entry+1]}
	}
	syn := fastyaml.Synthetic(yml, e)
	// The piece's first line is line 2 of syn, and e.Line+1 of yml.
	lines := yamltext.NewLineMap(syn, off+e.Line-1)
	r := fastyaml.NewReader(syn, lines)
	if r == nil {
		return false
	}
	d.r, d.lines, d.problems = r, lines, nil
	root := r.Root()
	_, v, ok := r.Next(&root)
	if !ok {
		return false
	}
	x := val{v: v}
	switch {
	case e.Entry < 0:
		if v.Kind != yaml.MappingNode {
			return false
		}
		switch e.Key {
		case "objective":
			p.obj = d.objective(x)
		case "control":
			p.control = d.control(x)
		default:
			return false
		}
	case e.Seq:
		if v.Kind != yaml.SequenceNode {
			return false
		}
		_, item, ok := r.Next(&v)
		if !ok {
			return false
		}
		iv, i := val{v: item}, e.Entry
		switch e.Key {
		case "atoms":
			p.atom = d.atom(iv, i)
		case "decompositions":
			p.dc = d.decomposition(iv, i)
		case "trail":
			p.trail = d.trail(iv, i)
		case "corrections":
			p.corr = d.correction(iv, i)
		default:
			return false
		}
		r.Skip(item)
		if _, _, more := r.Next(&v); more {
			return false
		}
	default:
		if v.Kind != yaml.MappingNode {
			return false
		}
		n, outside := 0, 0
		d.fields(x, pathOf(e.Key), func(name string, k, v val) bool {
			n++
			outside += len(d.problems)
			switch e.Key {
			case "or_groups":
				p.group = d.orGroup(name, k, v)
			case "bindings":
				p.binding = d.binding(name, k, v)
			default:
				n = -1
			}
			return true
		})
		if n != 1 || outside != 0 {
			return false
		}
	}
	if _, _, more := r.Next(&root); more || !r.Finish() {
		return false
	}
	p.probs = d.problems
	d.problems = nil
	return true
}

// isMarkerLine reports whether the text starts with a directive or a
// document marker.
func isMarkerLine(b []byte) bool {
	return bytes.HasPrefix(b, []byte("---")) || bytes.HasPrefix(b, []byte("...")) || bytes.HasPrefix(b, []byte("%"))
}

// moves tells how far a file line of the version before moved: by the
// lines the pieces above it gained or lost.
type moves []piece

// by is how far the file line l (of the version before) moved; off is
// what turns a YAML line (from 0) into a file line less one.
func (m moves) by(l, off int) int {
	delta := 0
	for _, p := range m {
		if p.e.Lines != 0 && l > p.e.OldLine+p.oldLines+off {
			delta += p.e.Lines
		}
	}
	return delta
}

// patchState is prev's State with the pieces in place of what they were
// and everything below a piece that gained or lost lines moved; false
// when something would move that cannot be (the objective or control
// read as a whole, or a list whose entries the memo does not know).
func patchState(prev *Document, pieces []piece, off int) (*model.State, bool) {
	ps := prev.State
	st := *ps
	st.LoopRead, st.Problems = nil, nil
	mv := moves(pieces)
	moving := false
	for _, p := range pieces {
		moving = moving || p.e.Lines != 0
	}
	edited := func(key string) bool {
		for _, p := range pieces {
			if p.e.Key == key {
				return true
			}
		}
		return false
	}
	if moving {
		// The top-level keys below a piece that moved lines.
		for _, kl := range ps.Lines {
			if mv.by(kl.Line, off) == 0 {
				continue
			}
			switch kl.Key {
			case "objective", "control":
				if !edited(kl.Key) {
					return nil, false
				}
			}
		}
		st.Lines = make(model.Lines, len(ps.Lines))
		for i, kl := range ps.Lines {
			st.Lines[i] = model.KeyLine{Key: kl.Key, Line: shiftLine(kl.Line, mv.by(kl.Line, off))}
		}
		if ps.Extra != nil {
			st.Extra = make(model.Extra, len(ps.Extra))
			for i, f := range ps.Extra {
				if by := mv.by(f.Line, off); by != 0 {
					f = model.Field{Key: f.Key, Value: shiftValue(f.Value, by), Line: shiftLine(f.Line, by)}
				}
				st.Extra[i] = f
			}
		}
	}
	nm := prev.memo.yaml
	// moved says whether the list under key is below a piece that gained
	// or lost lines.
	moved := func(key string) bool { return moving && mv.by(ps.Lines.Line(key), off) != 0 }
	var ok bool
	if st.Atoms, ok = patchList(ps.Atoms, "atoms", nm, pieces, moved, func(p *piece) model.Atom { return p.atom }, shiftAtom); !ok {
		return nil, false
	}
	if st.Decompositions, ok = patchList(ps.Decompositions, "decompositions", nm, pieces, moved, func(p *piece) model.Decomposition { return p.dc }, shiftDecomposition); !ok {
		return nil, false
	}
	if st.ORGroups, ok = patchList(ps.ORGroups, "or_groups", nm, pieces, moved, func(p *piece) model.ORGroup { return p.group }, shiftORGroup); !ok {
		return nil, false
	}
	if st.Bindings, ok = patchList(ps.Bindings, "bindings", nm, pieces, moved, func(p *piece) model.Binding { return p.binding }, shiftBinding); !ok {
		return nil, false
	}
	if st.Trail, ok = patchList(ps.Trail, "trail", nm, pieces, moved, func(p *piece) model.TrailEntry { return p.trail }, shiftTrail); !ok {
		return nil, false
	}
	if st.Corrections, ok = patchList(ps.Corrections, "corrections", nm, pieces, moved, func(p *piece) model.Correction { return p.corr }, shiftCorrection); !ok {
		return nil, false
	}
	for k := range pieces {
		switch p := &pieces[k]; {
		case p.e.Entry >= 0:
		case p.e.Key == "objective":
			st.Objective = p.obj
		case p.e.Key == "control":
			st.Control = p.control
		}
	}
	return &st, true
}

// patchList is the list under key of the new State: old, the version
// before's, with the pieces' entries (from get) in place and the entries
// below a piece that moved lines moved (shift), using the memo the
// version before was read with (nm: where its entries were).
func patchList[T any](old []T, key string, nm *fastyaml.Memo, pieces []piece, moved func(key string) bool, get func(*piece) T, shift func(T, int) T) ([]T, bool) {
	var mine []int
	for k := range pieces {
		if pieces[k].e.Key == key && pieces[k].e.Entry >= 0 {
			mine = append(mine, k)
		}
	}
	sec := nm.Lean(key)
	if len(old) == 0 {
		return old, len(mine) == 0
	}
	if sec.Len() != len(old) {
		// The memo does not know these entries: they may not change, or
		// move.
		return old, len(mine) == 0 && !moved(key)
	}
	if len(mine) == 0 && !moved(key) {
		return old, true
	}
	out := make([]T, len(old))
	copy(out, old)
	// Each entry moves by the lines of the pieces above it (pieces are in
	// text order).
	delta, at := 0, 0
	for i := range out {
		start, _, _ := sec.Span(i)
		for at < len(pieces) && pieces[at].e.OldEnd <= start {
			delta += pieces[at].e.Lines
			at++
		}
		if at < len(pieces) {
			if p := &pieces[at]; p.e.Key == key && p.e.Entry == i {
				out[i] = get(p)
				continue
			}
		}
		if delta != 0 {
			out[i] = shift(out[i], delta)
		}
	}
	return out, true
}

// patchProblems is the new State's problems: the version before's, with
// each piece's in place of its own and the lines below a piece that moved
// lines moved; and the problem spans of the lists (docMemo.spans) and of
// the top-level values (docMemo.top) in the new list.
func patchProblems(prev *Document, pieces []piece, off int) ([]model.Problem, map[string][]int32, map[string][2]int32) {
	pm, old := prev.memo, prev.State.Problems
	mv := moves(pieces)
	order := make([]int, len(pieces))
	for k := range order {
		order[k] = k
	}
	// In the order of the list: by where their problems were, and for
	// equal places (pieces without problems) by place in the file.
	slices.SortStableFunc(order, func(a, b int) int {
		if c := int(pieces[a].at[0]) - int(pieces[b].at[0]); c != 0 {
			return c
		}
		return pieces[a].e.OldStart - pieces[b].e.OldStart
	})
	changed := false
	for _, p := range pieces {
		changed = changed || len(p.probs) > 0 || p.at[1] > p.at[0]
	}
	moving := false
	for _, p := range pieces {
		moving = moving || p.e.Lines != 0
	}
	if !changed && !moving {
		return old, pm.spans, pm.top
	}
	out := make([]model.Problem, 0, len(old))
	pos := 0
	keep := func(to int) {
		for _, q := range old[pos:to] {
			if by := mv.by(q.Line, off); by != 0 {
				q.Line = shiftLine(q.Line, by)
			}
			out = append(out, q)
		}
		pos = to
	}
	for _, k := range order {
		p := &pieces[k]
		keep(int(p.at[0]))
		out = append(out, p.probs...)
		pos = int(p.at[1])
	}
	keep(len(old))
	if len(out) == 0 {
		out = nil // as the decoder leaves it
	}
	// Where a span starts in the new list: the pieces before it in the
	// file added or removed problems.
	grew := func(pos int, yamlLine bool) int {
		n := 0
		for _, p := range pieces {
			before := p.e.OldStart < pos
			if yamlLine {
				before = p.e.OldLine+off+1 < pos
			}
			if before {
				n += len(p.probs) - int(p.at[1]-p.at[0])
			}
		}
		return n
	}
	spans := make(map[string][]int32, len(pm.spans))
	for key, sp := range pm.spans {
		sec := pm.yaml.Lean(key)
		if 2*sec.Len() != len(sp) {
			continue // no longer known
		}
		ns := make([]int32, len(sp))
		for i := 0; 2*i+1 < len(sp); i++ {
			start, _, _ := sec.Span(i)
			a := sp[2*i] + int32(grew(start, false))
			n := sp[2*i+1] - sp[2*i]
			for _, p := range pieces {
				if p.e.Key == key && p.e.Entry == i {
					n = int32(len(p.probs))
				}
			}
			ns[2*i], ns[2*i+1] = a, a+n
		}
		spans[key] = ns
	}
	top := make(map[string][2]int32, len(pm.top))
	for key, at := range pm.top {
		if at[0] < 0 {
			top[key] = at
			continue
		}
		line := prev.State.Lines.Line(key)
		a := at[0] + int32(grew(line, true))
		n := at[1] - at[0]
		for _, p := range pieces {
			if p.e.Key == key && p.e.Entry < 0 {
				n = int32(len(p.probs))
			}
		}
		top[key] = [2]int32{a, a + n}
	}
	return out, spans, top
}

// incrementalOff turns the incremental read off (tests, to compare the two
// ways).
var incrementalOff atomic.Bool
