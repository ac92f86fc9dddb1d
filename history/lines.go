package history

import (
	"bytes"
	"math"

	"github.com/aot-loop/aot-tui/textdiff"
)

// text is a version's bytes with where each of its lines ends, the lines
// being those of textdiff.SplitLines: ends[i] is the offset just past
// line i's "\n" (or the end of the bytes for a last line without one).
// Four bytes a line instead of a string's sixteen, and no copy of the
// bytes: a text shares them with whoever gave them, so they must not
// change afterwards.
type text struct {
	data []byte
	ends []int32
}

// maxSplit is the largest text split into lines (the offsets are
// int32). A longer one is kept whole: never diffed, stored in full.
const maxSplit = math.MaxInt32

// split finds the lines of data (nil ends when it is empty or too long).
func split(data []byte) text {
	t := text{data: data}
	if len(data) == 0 || len(data) > maxSplit {
		return t
	}
	n := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		n++
	}
	t.ends = make([]int32, 0, n)
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '\n') + 1
		if i == 0 {
			i = len(data) - off
		}
		off += i
		t.ends = append(t.ends, int32(off))
	}
	return t
}

// unsplit says the text was too long to split into lines.
func (t *text) unsplit() bool { return len(t.data) > maxSplit }

// lines is the number of lines; 0 for an empty text (and one too long
// to split).
func (t *text) lines() int { return len(t.ends) }

// start is where line i starts (i may be lines(): the end).
func (t *text) start(i int) int {
	if i == 0 {
		return 0
	}
	return int(t.ends[i-1])
}

// line is line i with its ending.
func (t *text) line(i int) []byte { return t.data[t.start(i):t.ends[i]] }

// span is lines [i, j) as one run of bytes.
func (t *text) span(i, j int) []byte { return t.data[t.start(i):t.start(j)] }

// strings is textdiff.SplitLines of the text (a copy).
func (t *text) strings() []string { return textdiff.SplitLines(string(t.data)) }

// diff is textdiff.Diff(a.strings(), b.strings()) — the same ops —
// without making strings of either when textdiff's first search finds
// the diff (the few lines a loop's write changes): lines are compared in
// place.
func diff(a, b *text) []textdiff.Op {
	if ops, ok := textdiff.DiffFunc(a.lines(), b.lines(), func(i, j int) bool { return bytes.Equal(a.line(i), b.line(j)) }); ok {
		return ops
	}
	return textdiff.Diff(a.strings(), b.strings())
}
