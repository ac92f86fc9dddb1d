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

// diff is textdiff.Diff(a.strings(), b.strings()) — the same ops — without
// making strings of either: lines are compared in place. It runs the
// search textdiff.Diff starts with (Myers' greedy forward search, within
// the same bound on its trace), which is the whole of it for the few
// lines a loop's write changes; only when that gives up does it hand the
// lines as strings to textdiff.Diff.
func diff(a, b *text) []textdiff.Op {
	n, m := a.lines(), b.lines()
	pre := 0
	for pre < n && pre < m && bytes.Equal(a.line(pre), b.line(pre)) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && bytes.Equal(a.line(n-1-suf), b.line(m-1-suf)) {
		suf++
	}
	g := greedy{a: a, b: b, alo: pre, blo: pre, achg: make([]bool, n-pre-suf), bchg: make([]bool, m-pre-suf)}
	if !g.run(maxTraceD(traceBudget(n + m))) {
		return textdiff.Diff(a.strings(), b.strings())
	}
	achg, bchg := g.achg, g.bchg

	// From here on as textdiff.Diff: unchanged lines pair up in order.
	var ops []textdiff.Op
	add := func(k textdiff.Kind, a0, a1, b0, b1 int) {
		if a0 < a1 || b0 < b1 {
			ops = append(ops, textdiff.Op{Kind: k, A0: a0, A1: a1, B0: b0, B1: b1})
		}
	}
	i, j := 0, 0
	for first := true; ; first = false {
		i0, j0 := i, j
		for i < len(achg) && j < len(bchg) && !achg[i] && !bchg[j] {
			i++
			j++
		}
		if first {
			i0, j0 = -pre, -pre // the common prefix
		}
		if i == len(achg) && j == len(bchg) {
			add(textdiff.Equal, pre+i0, n, pre+j0, m) // and the suffix
			break
		}
		add(textdiff.Equal, pre+i0, pre+i, pre+j0, pre+j)
		i0, j0 = i, j
		for i < len(achg) && achg[i] {
			i++
		}
		for j < len(bchg) && bchg[j] {
			j++
		}
		if i == i0 && j == j0 {
			panic("history: unchanged lines do not pair up")
		}
		add(textdiff.Delete, pre+i0, pre+i, pre+j0, pre+j0)
		add(textdiff.Insert, pre+i, pre+i, pre+j0, pre+j)
	}
	return ops
}

// traceBudget and maxTraceD are textdiff's bound on the greedy search's
// trace (int32 values for inputs of n lines in all), so that diff gives
// up, and hands over to textdiff.Diff, exactly where textdiff.Diff would
// leave its own greedy search.
func traceBudget(n int) int { return 1<<16 + 4*n }

func maxTraceD(budget int) int {
	d := -1
	for (d+2)*(d+3)/2 <= budget {
		d++
	}
	return d
}

// greedy is textdiff's first search on lines a[alo:alo+len(achg)] and
// b[blo:blo+len(bchg)]: it marks in achg and bchg the lines a minimal diff
// changes, taking the deletion on a tie as textdiff does.
type greedy struct {
	a, b       *text
	alo, blo   int
	achg, bchg []bool
}

// run reports false, marking nothing, when the edit distance is over
// limit.
func (g *greedy) run(limit int) bool {
	n, m := len(g.achg), len(g.bchg)
	if n == 0 || m == 0 {
		for i := range g.achg {
			g.achg[i] = true
		}
		for j := range g.bchg {
			g.bchg[j] = true
		}
		return true
	}
	eq := func(x, y int) bool { return bytes.Equal(g.a.line(g.alo+x), g.b.line(g.blo+y)) }
	limit = min(limit, n+m)
	var tr []int32 // layer d holds d+1 diagonals
	for d := 0; d <= limit; d++ {
		prev := tr[len(tr)-d:] // layer d-1: diagonals -(d-1), -(d-1)+2, …, d-1
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
				x = 0
			case k == -d || (k != d && prev[(k-1+d-1)/2] < prev[(k+1+d-1)/2]):
				x = int(prev[(k+1+d-1)/2])
			default:
				x = int(prev[(k-1+d-1)/2]) + 1
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			tr = append(tr, int32(x))
			if x >= n && y >= m {
				g.backtrack(tr, d)
				return true
			}
		}
	}
	return false
}

// backtrack walks the trace back from the end, found at layer d, and
// marks the changes on the path.
func (g *greedy) backtrack(tr []int32, d int) {
	x, y := len(g.achg), len(g.bchg)
	for ; d > 0; d-- {
		prev := tr[(d-1)*d/2 : d*(d+1)/2]
		k := x - y
		var pk int
		if k == -d || (k != d && prev[(k-1+d-1)/2] < prev[(k+1+d-1)/2]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := int(prev[(pk+d-1)/2])
		py := px - pk
		snake := min(x-px, y-py)
		x, y = x-snake, y-snake
		if x == px {
			y--
			g.bchg[y] = true
		} else {
			x--
			g.achg[x] = true
		}
	}
}
