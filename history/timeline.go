// Package history keeps the versions of a state file: in memory as a
// Timeline (each version a line diff against the one before, with full
// snapshots now and then for fast seeking), on disk as a Journal that
// survives crashes and is shared safely by several aot-tui processes, and
// read back from git. Compare says in words what changed between two
// versions. The TUI's timeline, aot-tui replay and aot-tui report use it.
package history

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/textdiff"
)

// Version is one distinct version of a state file.
type Version struct {
	// At is the version's time: the file's modification time when it was
	// read (else when it was seen), as the journal recorded it, or a
	// commit's time.
	At time.Time
	// Data is the file's bytes.
	Data []byte
	// Marks say what kind of step the version is (MarksOf of Compare with
	// the version before); zero when not known.
	Marks Mark
	// File is the state file the version is of, when its journal names
	// it (read back only: JournalOptions.StateFile names it on write).
	File string
}

// TimelineOptions tune a Timeline. The zero value is sensible.
type TimelineOptions struct {
	// SnapshotEvery stores a full copy every this many versions (default
	// 64), so that any version is at most that many diffs away from one.
	SnapshotEvery int
	// MaxBytes bounds the memory the versions take (default 64 MiB); past
	// it the oldest versions are dropped, a snapshot's run at a time.
	MaxBytes int64
}

// Timeline holds the distinct versions of one file in the order they were
// seen. Each version is stored as a line diff against the one before
// (copied runs of the previous version's lines plus inserted text), every
// SnapshotEvery-th one in full, compressed (flate at its fastest: some 7
// ms and a seventh of the size for a 10,000-atom file). Reading version k applies at most
// SnapshotEvery diffs to the snapshot before it, as lists of runs of the
// stored texts' lines, and copies the bytes once; stepping forward from
// the last version read starts from it. A Timeline is not safe for
// concurrent use.
type Timeline struct {
	opts    TimelineOptions
	entries []entry
	// dropped is how many of the oldest versions were let go.
	dropped int
	size    int64
	// head is the last version: the bytes appended (not a copy) and
	// where their lines end, to diff the next version against.
	head      text
	sinceSnap int
	// cache is the last version read (index into entries) as runs of
	// lines; snap the lines of the snapshot it was read from (index
	// into entries).
	cacheIdx int
	cache    []piece
	snapIdx  int
	snap     *text
}

type entry struct {
	at    time.Time
	marks Mark
	// snap is set for a snapshot (the whole version, flate-compressed
	// when packed); ops otherwise.
	snap   []byte
	isSnap bool
	packed bool
	ops    []op
	n      int // the version's length in bytes
}

// op is a copy of the previous version's lines [a0, a1) or, when
// a0 == a1, inserted text (whole lines, our own copy).
type op struct {
	a0, a1 int32
	text   []byte
}

// piece is lines [l0, l1) of a stored text: a version being read is a
// list of them.
type piece struct {
	src    *text
	l0, l1 int32
}

// entry overheads counted against MaxBytes, beyond the text itself.
const (
	entryOverhead = 96
	opOverhead    = 32
)

// NewTimeline returns an empty Timeline.
func NewTimeline(opts TimelineOptions) *Timeline {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 64
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 64 << 20
	}
	return &Timeline{opts: opts, cacheIdx: -1, snapIdx: -1}
}

// Append adds v after the last version, unless it has the same bytes
// (then it reports false). It returns v's index.
//
// The timeline keeps v.Data itself, not a copy (as the last version, and
// as a snapshot too small to compress): the caller must not change those
// bytes afterwards. The TUI's versions are the bytes the watcher read,
// which its parsed Document holds as well.
func (t *Timeline) Append(v Version) (int, bool) {
	if len(t.entries) > 0 && bytes.Equal(v.Data, t.head.data) {
		return t.Len() - 1, false
	}
	cur := split(v.Data)
	e := entry{at: v.At, marks: v.Marks, n: len(v.Data)}
	if len(t.entries) > 0 && t.sinceSnap+1 < t.opts.SnapshotEvery && !t.head.unsplit() && !cur.unsplit() {
		var inserted int
		for _, o := range diff(&t.head, &cur) {
			switch o.Kind {
			case textdiff.Equal:
				e.ops = append(e.ops, op{a0: int32(o.A0), a1: int32(o.A1)})
			case textdiff.Insert:
				// A copy: a slice would keep the whole version alive.
				b := bytes.Clone(cur.span(o.B0, o.B1))
				inserted += len(b)
				e.ops = append(e.ops, op{a0: int32(o.A0), a1: int32(o.A0), text: b})
			}
		}
		if inserted > len(v.Data)/2 {
			e.ops = nil // as big as the text: store it whole
		}
	}
	if e.ops == nil {
		e.snap, e.packed = pack(v.Data)
		e.isSnap = true
		t.sinceSnap = 0
	} else {
		t.sinceSnap++
	}
	t.entries = append(t.entries, e)
	t.size += e.bytes()
	t.head = cur
	t.trim()
	return t.Len() - 1, true
}

func (e *entry) bytes() int64 {
	n := int64(entryOverhead + len(e.snap))
	for _, o := range e.ops {
		n += int64(opOverhead + len(o.text))
	}
	return n
}

// trim drops the oldest versions, up to the second snapshot, while the
// timeline is over its memory bound and the last version stays.
func (t *Timeline) trim() {
	for t.size > t.opts.MaxBytes {
		next := -1
		for i := 1; i < len(t.entries); i++ {
			if t.entries[i].isSnap {
				next = i
				break
			}
		}
		if next < 0 {
			return
		}
		for _, e := range t.entries[:next] {
			t.size -= e.bytes()
		}
		t.entries = append([]entry(nil), t.entries[next:]...)
		t.dropped += next
		t.cacheIdx, t.cache, t.snapIdx, t.snap = -1, nil, -1, nil
	}
}

// Len is the number of versions appended, counting those dropped.
func (t *Timeline) Len() int { return t.dropped + len(t.entries) }

// First is the index of the oldest version still held (versions before
// it were dropped to stay within MaxBytes).
func (t *Timeline) First() int { return t.dropped }

// Bytes is roughly the memory the versions take.
func (t *Timeline) Bytes() int64 { return t.size }

func (t *Timeline) entry(i int) (*entry, bool) {
	j := i - t.dropped
	if j < 0 || j >= len(t.entries) {
		return nil, false
	}
	return &t.entries[j], true
}

// Time is when version i was seen (zero if it is not held).
func (t *Timeline) Time(i int) time.Time {
	if e, ok := t.entry(i); ok {
		return e.at
	}
	return time.Time{}
}

// Marks are version i's marks.
func (t *Timeline) Marks(i int) Mark {
	if e, ok := t.entry(i); ok {
		return e.marks
	}
	return 0
}

// SetMarks sets version i's marks (when they are worked out later).
func (t *Timeline) SetMarks(i int, m Mark) {
	if e, ok := t.entry(i); ok {
		e.marks = m
	}
}

// Next is the nearest version after i (dir > 0) or before it (dir < 0)
// with any of the marks in mask; false when there is none.
func (t *Timeline) Next(i, dir int, mask Mark) (int, bool) {
	step := 1
	if dir < 0 {
		step = -1
	}
	for j := i + step; j >= t.First() && j < t.Len(); j += step {
		if t.Marks(j)&mask != 0 {
			return j, true
		}
	}
	return i, false
}

// Data returns version i's bytes (a copy).
func (t *Timeline) Data(i int) ([]byte, error) {
	j := i - t.dropped
	if j < 0 || j >= len(t.entries) {
		if i >= 0 && i < t.dropped {
			return nil, fmt.Errorf("version %d is no longer held (the oldest %d were dropped to bound memory)", i+1, t.dropped)
		}
		return nil, fmt.Errorf("no version %d (there are %d)", i+1, t.Len())
	}
	e := &t.entries[j]
	b := make([]byte, 0, e.n)
	switch {
	case j == len(t.entries)-1:
		b = append(b, t.head.data...)
	case e.isSnap:
		snap, err := t.snapshot(j)
		if err != nil {
			return nil, err
		}
		b = append(b, snap.data...)
	default:
		ps, err := t.pieces(j)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			b = append(b, p.src.span(int(p.l0), int(p.l1))...)
		}
	}
	return b, nil
}

// Version returns version i whole.
func (t *Timeline) Version(i int) (Version, error) {
	data, err := t.Data(i)
	if err != nil {
		return Version{}, err
	}
	e, _ := t.entry(i)
	return Version{At: e.at, Data: data, Marks: e.marks}, nil
}

// pieces is entries[j] as runs of lines of the snapshot before it and of
// the text the diffs since inserted.
func (t *Timeline) pieces(j int) ([]piece, error) {
	s := j
	for !t.entries[s].isSnap {
		s--
	}
	var ps []piece
	start := s
	if t.cacheIdx >= s && t.cacheIdx <= j {
		ps, start = t.cache, t.cacheIdx
	} else {
		snap, err := t.snapshot(s)
		if err != nil {
			return nil, err
		}
		ps = appendPiece(nil, piece{src: snap, l0: 0, l1: int32(snap.lines())})
	}
	for k := start + 1; k <= j; k++ {
		ps = apply(ps, t.entries[k].ops)
	}
	t.cacheIdx, t.cache = j, ps
	return ps, nil
}

// snapshot is the snapshot entries[s], uncompressed, with its lines: the
// last one read is kept.
func (t *Timeline) snapshot(s int) (*text, error) {
	if t.snapIdx == s {
		return t.snap, nil
	}
	data, err := unpack(&t.entries[s])
	if err != nil {
		return nil, fmt.Errorf("version %d: %w", t.dropped+s+1, err)
	}
	snap := split(data)
	t.snapIdx, t.snap = s, &snap
	return t.snap, nil
}

// packMin is the smallest snapshot compressed.
const packMin = 4 << 10

// pack compresses a snapshot, unless it is small or it would save less
// than a tenth: then it is data itself.
func pack(data []byte) ([]byte, bool) {
	if len(data) < packMin {
		return data, false
	}
	var z bytes.Buffer
	z.Grow(len(data) / 4)
	w, _ := flate.NewWriter(&z, flate.BestSpeed)
	w.Write(data) // a bytes.Buffer takes it all
	w.Close()
	if z.Len() > len(data)/10*9 {
		return data, false
	}
	return bytes.Clone(z.Bytes()), true // no spare capacity kept
}

// unpack is a snapshot entry's version.
func unpack(e *entry) ([]byte, error) {
	if !e.packed {
		return e.snap, nil
	}
	data := make([]byte, e.n)
	r := flate.NewReader(bytes.NewReader(e.snap))
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("uncompressing a snapshot: %w", err)
	}
	return data, nil
}

// apply builds a version from the one before and its ops.
func apply(prev []piece, ops []op) []piece {
	out := make([]piece, 0, len(prev)+len(ops))
	// prev[pi] holds the previous version's lines from base on.
	pi, base := 0, 0
	for _, o := range ops {
		if o.a1 == o.a0 {
			ins := split(o.text)
			out = appendPiece(out, piece{src: &ins, l0: 0, l1: int32(ins.lines())})
			continue
		}
		a0, a1 := int(o.a0), int(o.a1)
		if a0 < base {
			pi, base = 0, 0
		}
		for a0 < a1 {
			p := prev[pi]
			n := int(p.l1 - p.l0)
			if a0 >= base+n {
				pi, base = pi+1, base+n
				continue
			}
			from, to := int(p.l0)+a0-base, int(p.l0)+min(a1, base+n)-base
			out = appendPiece(out, piece{src: p.src, l0: int32(from), l1: int32(to)})
			a0 += to - from
		}
	}
	return out
}

// appendPiece appends p, joined to the last piece when it follows on.
func appendPiece(ps []piece, p piece) []piece {
	if p.l0 == p.l1 {
		return ps
	}
	if n := len(ps); n > 0 && ps[n-1].src == p.src && ps[n-1].l1 == p.l0 {
		ps[n-1].l1 = p.l1
		return ps
	}
	return append(ps, p)
}

// Build makes a Timeline of versions, oldest first, working out each
// version's marks (when it has none) by comparing it with the last one
// before it that parsed.
func Build(versions []Version, opts TimelineOptions) *Timeline {
	t := NewTimeline(opts)
	var prev *model.State
	for _, v := range versions {
		if doc, err := statefile.Parse(v.Data); err == nil {
			if v.Marks == 0 {
				v.Marks = MarksOf(Compare(prev, doc.State))
			}
			prev = doc.State
		}
		t.Append(v)
	}
	return t
}
