package statefile

import (
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// Parse reads the frontmatter straight into the model when it can: a
// fastyaml.Reader gives the decoder each value as the text holds it, and
// no node tree is built (about twenty times the file's size; building it
// was most of a one-shot `status`). The Reader takes exactly what the
// fast parser takes — the block-style subset state files are written in —
// and gives up on anything else; Parse then reads the file through the
// tree, as before. Both run the same decoder (decode.go), and
// TestDirectMatchesTree and FuzzParse check that they give the same
// Document, errors included.
//
// Nothing but the text edits needs the tree: ApplyEdits parses again
// through it (parseTree) when given a Document without one, and the write
// protocol (prepare) parses the file it edits that way from the start.
// Reparse reads the same way (readMemo) and records its memo without a
// tree too (fastyaml.MemoOf).

// readDirect decodes the frontmatter yml, whose LineMap is lines, with a
// fastyaml.Reader: the state, with its problems, or nil when the Reader
// gave up. From halves atoms on (and on more than one core) the atoms list
// is read in two parts at once (readInHalves). With record, it also makes
// the memo the next Reparse needs (fastyaml.MemoOf, and the problems of
// each entry and top-level value); nil when it cannot (see joinHalves).
// An entry of a lean list whose text is that of an entry of prev (non-nil
// only with record) is not read again: it is taken from prev's State
// (reused), moved to its line, and the Reader skips its text (SkipTo).
func readDirect(yml []byte, lines yamltext.LineMap, halves int, record bool, prev *Document) (*model.State, *docMemo) {
	r := fastyaml.NewReader(yml, lines)
	if r == nil {
		return nil, nil
	}
	root := r.Root()
	if r.Failed() {
		return nil, nil
	}
	d := &decoder{lines: lines, halves: halves, r: r}
	if record {
		var pm *fastyaml.Memo
		if prev != nil && prev.memo != nil {
			pm = prev.memo.yaml
			d.prev = prev
		}
		d.memo = &docMemo{yaml: fastyaml.MemoOf(yml, leanSection, pm), spans: map[string][]int32{}}
	}
	st := d.decodeState(val{v: root})
	d.joinHalves()
	if !r.Finish() {
		return nil, nil
	}
	st.Problems = d.problems
	return st, d.memo
}

// half is the second part of an atoms list, read by a decoder of its own
// on another goroutine (readInHalves); at is where its problems go among
// those of the decoder that cut the list.
type half struct {
	d    *decoder
	at   int
	done chan bool
	// rec records the problems of each atom (nil: no memo); the second
	// part's, counted from its own first problem, are in spans.
	rec   *listRec
	spans []int32
}

// readInHalves is atomsInHalves for a text read directly: the Reader cuts
// the atoms list x (fastyaml.Reader.Cut), a second decoder with a Reader
// of its own decodes the atoms from the cut on while this one decodes
// those before it and then goes on with the sections after the list; the
// cut is placed so that the two have about as much text to read.
// joinHalves waits for the second decoder and puts its problems after
// those of the first part, as reading the list in one piece orders them.
// readInHalves declines (false) for a list that is not a block sequence of
// at least d.halves atoms, and on one core. If the parts did not meet
// where the cut said (text the Reader would not take), the Reader gives
// up: what it read of the file is thrown away.
func (d *decoder) readInHalves(x val) ([]model.Atom, bool) {
	if d.halves <= 0 || d.prev != nil || x.n != nil || x.v.Kind != yaml.SequenceNode || runtime.GOMAXPROCS(0) < 2 {
		return nil, false
	}
	c := x.v
	second, rest, n, from, ok := d.r.Cut(&c, d.halves)
	if !ok {
		return nil, false
	}
	out := make([]model.Atom, n)
	h := &half{d: &decoder{lines: d.lines, half: true, r: second}, done: make(chan bool, 1)}
	var spans *[]int32
	if h.rec = d.list("atoms", x); h.rec != nil {
		spans, h.spans = &h.rec.spans, make([]int32, 0, 2*(n-from))
	}
	go func() {
		var sp *[]int32
		if spans != nil {
			sp = &h.spans
		}
		h.done <- h.d.readAtoms(&rest, from, n, out, sp)
	}()
	if !d.readAtoms(&c, 0, from, out, spans) {
		d.r.Fail("the first part of the atoms list does not hold the atoms the cut counted")
	}
	d.r.Leave(second)
	h.at = len(d.problems)
	d.pending = append(d.pending, h)
	return out, true
}

// joinHalves waits for the second parts of the lists readInHalves cut,
// checks that each ended where its list does, and puts their problems
// where reading the lists in one piece puts them.
//
// With a memo, the problems of the atoms are recorded part by part, and
// what was recorded after the cut (the end of the atoms' own problems and
// everything of the sections after them) moves by the second part's
// problems; a memo of a file cut twice (a second atoms key) is dropped.
func (d *decoder) joinHalves() {
	if d.memo != nil && len(d.pending) > 1 {
		d.memo = nil
	}
	for k := len(d.pending) - 1; k >= 0; k-- {
		h := d.pending[k]
		if !<-h.done {
			d.r.Fail("the second part of the atoms list does not hold the atoms the cut counted")
		}
		d.r.Join(h.d.r)
		d.problems = slices.Insert(d.problems, h.at, h.d.problems...)
		if d.memo != nil {
			d.afterCut(h)
		}
	}
	d.pending = nil
	d.moved = nil
}

// afterCut puts the problems recorded for the memo where they are once
// the second part h's are in: those of its atoms after the first part's,
// and what was recorded after the cut moved by as many.
func (d *decoder) afterCut(h *half) {
	n := int32(len(h.d.problems))
	for _, m := range d.moved {
		if m.list {
			for k := range d.memo.spans[m.key] {
				d.memo.spans[m.key][k] += n
			}
			continue
		}
		if t, ok := d.memo.top[m.key]; ok && t[0] >= 0 {
			if m.start {
				t[0] += n
			}
			t[1] += n
			d.memo.top[m.key] = t
		}
	}
	if h.rec != nil {
		for _, v := range h.spans {
			h.rec.spans = append(h.rec.spans, int32(h.at)+v)
		}
		h.rec.done(d)
	}
}

// movedRec is something recorded for the memo after a cut whose second
// part's problems are not yet in (see afterCut): the spans of a list, or
// the problems of a top-level value (start: from its start on).
type movedRec struct {
	key         string
	list, start bool
}

// readAtoms decodes the entries of the atoms list c, which must be the
// atoms from to to, into out[from:to].
// With spans, it appends where each atom's problems are among d's.
func (d *decoder) readAtoms(c *fastyaml.Value, from, to int, out []model.Atom, spans *[]int32) bool {
	for i := from; ; i++ {
		_, item, ok := d.r.Next(c)
		if !ok {
			return i == to && !d.r.Failed()
		}
		if i >= to {
			return false
		}
		start := len(d.problems)
		out[i] = d.atom(val{v: item}, i)
		if spans != nil {
			*spans = append(*spans, int32(start), int32(len(d.problems)))
		}
		d.r.Skip(item)
	}
}

// textArena holds the strings the decoder keeps of a text read directly.
// A value of the Reader is a part of the file's bytes, which the model must
// not share (a caller may reuse them); each kept string is copied into a
// chunk of the arena instead of an allocation of its own. Only the
// values are copied, a third of a state file or less, where the tree's
// nodes share one copy of the whole text.
type textArena struct {
	buf  []byte
	size int // the size of the last chunk
}

const (
	minArenaChunk = 1 << 10
	maxArenaChunk = 64 << 10
)

// keep returns a copy of s that the model may keep.
func (a *textArena) keep(s string) string {
	if s == "" {
		return ""
	}
	if c, ok := commonText(s); ok {
		return c
	}
	if len(s) > cap(a.buf)-len(a.buf) {
		if len(s) > maxArenaChunk/8 {
			return strings.Clone(s)
		}
		a.size = min(max(2*a.size, minArenaChunk), maxArenaChunk)
		a.buf = make([]byte, 0, a.size)
	}
	start := len(a.buf)
	a.buf = append(a.buf, s...)
	return unsafe.String(&a.buf[start], len(s))
}

// commonText returns the decoder's own copy of the values most state file
// entries hold, which then cost nothing to keep.
func commonText(s string) (string, bool) {
	switch s {
	case "pending":
		return "pending", true
	case "in_progress":
		return "in_progress", true
	case "resolved":
		return "resolved", true
	case "running":
		return "running", true
	case "command":
		return "command", true
	case "file":
		return "file", true
	}
	return "", false
}

// knownKey returns the decoder's own copy of a key it knows, so that the
// Lines and Extra of each entry do not keep one of their own.
func knownKey(s string) (string, bool) {
	switch s {
	case "objective":
		return "objective", true
	case "control":
		return "control", true
	case "atoms":
		return "atoms", true
	case "decompositions":
		return "decompositions", true
	case "or_groups":
		return "or_groups", true
	case "bindings":
		return "bindings", true
	case "trail":
		return "trail", true
	case "corrections":
		return "corrections", true
	case "goal":
		return "goal", true
	case "base_case":
		return "base_case", true
	case "background_intent":
		return "background_intent", true
	case "deliverables":
		return "deliverables", true
	case "definition_of_done":
		return "definition_of_done", true
	case "constraints":
		return "constraints", true
	case "max_iterations":
		return "max_iterations", true
	case "max_parallel_agents":
		return "max_parallel_agents", true
	case "max_stall_count":
		return "max_stall_count", true
	case "checklist":
		return "checklist", true
	case "item":
		return "item", true
	case "check":
		return "check", true
	case "group":
		return "group", true
	case "any_of":
		return "any_of", true
	case "type":
		return "type", true
	case "value":
		return "value", true
	case "rubric":
		return "rubric", true
	case "criteria":
		return "criteria", true
	case "pass_threshold":
		return "pass_threshold", true
	case "scope":
		return "scope", true
	case "criterion":
		return "criterion", true
	case "weight":
		return "weight", true
	case "levels":
		return "levels", true
	case "status":
		return "status", true
	case "iteration":
		return "iteration", true
	case "stall_count":
		return "stall_count", true
	case "prev_pending_count":
		return "prev_pending_count", true
	case "stop_requested":
		return "stop_requested", true
	case "stop_reason":
		return "stop_reason", true
	case "redirect_requested":
		return "redirect_requested", true
	case "id":
		return "id", true
	case "description":
		return "description", true
	case "depends_on":
		return "depends_on", true
	case "or_group":
		return "or_group", true
	case "parent":
		return "parent", true
	case "children":
		return "children", true
	case "reason":
		return "reason", true
	case "choices":
		return "choices", true
	case "selected":
		return "selected", true
	case "failed":
		return "failed", true
	case "summary":
		return "summary", true
	case "artifacts":
		return "artifacts", true
	case "timestamp":
		return "timestamp", true
	case "trail_cleared":
		return "trail_cleared", true
	}
	return "", false
}
