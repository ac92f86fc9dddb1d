// Package textdiff compares and merges text line by line.
//
// [Diff] finds a minimal line diff (the fewest deleted plus inserted lines)
// with Myers' O(ND) algorithm in linear space, at any input size: there is
// no cut-off and no whole-file fallback. [Unified] prints a diff in unified
// format, and [Merge3] merges two sets of changes made to the same base.
//
// Lines are compared as whole strings with their line endings, as
// [SplitLines] produces them: "a\n", "a\r\n" and a final "a" with no ending
// are three different lines.
package textdiff

import "strings"

// Kind tells what an [Op] does with its lines.
type Kind byte

// The kinds of [Op]. Their values are the characters a unified diff puts
// in front of such lines.
const (
	Equal  Kind = ' ' // the lines are in both a and b
	Delete Kind = '-' // the lines are in a only
	Insert Kind = '+' // the lines are in b only
)

// Op is one run of lines of the same [Kind] in a diff from a to b. It
// covers a[A0:A1] and b[B0:B1]: for Equal both runs hold the same lines,
// for Delete B0 == B1 (the position in b where the lines would have been)
// and for Insert A0 == A1.
type Op struct {
	Kind   Kind
	A0, A1 int
	B0, B1 int
}

// SplitLines splits s after each "\n", so that every line keeps its
// ending ("\n" or "\r\n"); the last line lacks one when s does not end
// with "\n". SplitLines("") is nil. Joining the lines gives s back.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Diff returns a minimal diff from a to b: a list of [Op]s, in order, that
// covers every line of a and of b once, with as few Delete and Insert
// lines as possible. Consecutive Ops never have the same Kind, and a run
// of changes between two Equal Ops (or an end) is at most one Delete
// followed by at most one Insert. Diff of two equal lists is a single
// Equal Op, or nil when both are empty.
//
// Where several minimal diffs exist, Diff picks the one that Myers'
// greedy forward search finds (it prefers deletions to insertions), the
// same alignment as the usual O(ND) implementation, as long as that
// search's trace fits in memory linear in the input size. Past that it
// splits the problem at a middle snake (Myers' linear-space refinement),
// which gives a diff just as small that may align differently.
//
// Memory is O(len(a)+len(b)) and time O((len(a)+len(b))·D), where D is
// the number of deleted plus inserted lines. The common prefix and suffix
// cost one string comparison per line.
func Diff(a, b []string) []Op {
	n, m := len(a), len(b)
	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	var e emitter
	e.add(Equal, 0, pre, 0, pre)
	if pre < n-suf || pre < m-suf {
		am, bm := intern(a[pre:n-suf], b[pre:m-suf])
		s := solver{a: am, b: bm, aOff: pre, bOff: pre, out: &e}
		s.limit = maxTraceD(traceBudget(n + m))
		s.solve(0, len(am), 0, len(bm), -1)
	}
	e.add(Equal, n-suf, n, m-suf, m)
	return e.finish()
}

// traceBudget is how many int32 the greedy search may keep for its trace
// on inputs of n lines in all: a fixed 256 KiB plus 16 bytes a line, so
// memory stays linear in the input. A variable so tests can set it to 0
// and run the divide-and-conquer search alone.
var traceBudget = func(n int) int { return 1<<16 + 4*n }

// intern maps each distinct line of a and b to a small integer so that
// the search compares integers instead of strings.
func intern(a, b []string) (ai, bi []int32) {
	ids := make(map[string]int32, len(a)+len(b))
	conv := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	return conv(a), conv(b)
}

// emitter collects Ops in order, joining runs of the same kind.
type emitter struct {
	ops []Op
}

func (e *emitter) add(k Kind, a0, a1, b0, b1 int) {
	if a0 == a1 && b0 == b1 {
		return
	}
	if n := len(e.ops); n > 0 && e.ops[n-1].Kind == k {
		e.ops[n-1].A1, e.ops[n-1].B1 = a1, b1
		return
	}
	e.ops = append(e.ops, Op{k, a0, a1, b0, b1})
}

// finish returns the Ops with each run of changes between Equal runs
// rewritten as one Delete followed by one Insert. The divide-and-conquer
// search can interleave them; the greedy search never does.
func (e *emitter) finish() []Op {
	ops := e.ops
	out := ops[:0]
	for i := 0; i < len(ops); {
		if ops[i].Kind == Equal {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].Kind != Equal {
			j++
		}
		a0, b0 := ops[i].A0, ops[i].B0
		a1, b1 := ops[j-1].A1, ops[j-1].B1
		if a0 < a1 {
			out = append(out, Op{Delete, a0, a1, b0, b0})
		}
		if b0 < b1 {
			out = append(out, Op{Insert, a1, a1, b0, b1})
		}
		i = j
	}
	return out
}

// solver finds the edit path between a and b (interned lines) and passes
// it to out, with aOff and bOff added to every position.
type solver struct {
	a, b       []int32
	aOff, bOff int
	out        *emitter
	limit      int     // the largest D the greedy search may try
	trace      []int32 // greedy search: layer d holds d+1 diagonals
	path       []Op    // greedy backtrack, last Op first
	fd, bd     []int   // middle snake: furthest x on each diagonal
}

// solve emits the diff of a[alo:ahi] and b[blo:bhi]. d is their edit
// distance when the caller knows it, or -1.
func (s *solver) solve(alo, ahi, blo, bhi, d int) {
	pre := 0
	for alo+pre < ahi && blo+pre < bhi && s.a[alo+pre] == s.b[blo+pre] {
		pre++
	}
	s.emit(Equal, alo, alo+pre, blo, blo+pre)
	alo, blo = alo+pre, blo+pre
	suf := 0
	for alo < ahi-suf && blo < bhi-suf && s.a[ahi-1-suf] == s.b[bhi-1-suf] {
		suf++
	}
	ahi, bhi = ahi-suf, bhi-suf
	switch {
	case alo == ahi:
		s.emit(Insert, alo, alo, blo, bhi)
	case blo == bhi:
		s.emit(Delete, alo, ahi, blo, blo)
	default:
		if (d < 0 || d <= s.limit) && s.greedy(alo, ahi, blo, bhi, s.limit) {
			break
		}
		x, y, dd := s.midSnake(alo, ahi, blo, bhi)
		left := (dd + 1) / 2
		s.solve(alo, x, blo, y, left)
		s.solve(x, ahi, y, bhi, dd-left)
	}
	s.emit(Equal, ahi, ahi+suf, bhi, bhi+suf)
}

func (s *solver) emit(k Kind, a0, a1, b0, b1 int) {
	s.out.add(k, a0+s.aOff, a1+s.aOff, b0+s.bOff, b1+s.bOff)
}

// maxTraceD is the largest D whose greedy trace, layers 0 to D holding
// 1+2+…+(D+1) values, fits in budget values; -1 when none does.
func maxTraceD(budget int) int {
	d := -1
	for (d+2)*(d+3)/2 <= budget {
		d++
	}
	return d
}

// greedy runs Myers' forward search on a[alo:ahi], b[blo:bhi] keeping
// every layer of furthest-reaching x values, and emits the path it finds
// by walking them back. It gives up, emitting nothing, when the edit
// distance is over limit. Its choices are those of the textbook
// algorithm: on a tie it extends the diagonal below (a deletion).
func (s *solver) greedy(alo, ahi, blo, bhi, limit int) bool {
	a, b := s.a[alo:ahi], s.b[blo:bhi]
	n, m := len(a), len(b)
	limit = min(limit, n+m)
	tr := s.trace[:0]
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
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			tr = append(tr, int32(x))
			if x >= n && y >= m {
				s.trace = tr
				s.backtrack(alo, ahi, blo, bhi, d)
				return true
			}
		}
	}
	s.trace = tr
	return false
}

// backtrack walks the greedy trace back from the end of a[alo:ahi],
// b[blo:bhi], found at layer d, and emits the path.
func (s *solver) backtrack(alo, ahi, blo, bhi, d int) {
	tr := s.trace
	x, y := ahi-alo, bhi-blo
	path := s.path[:0]
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
		if snake := min(x-px, y-py); snake > 0 {
			path = append(path, Op{Equal, x - snake, x, y - snake, y})
			x, y = x-snake, y-snake
		}
		if x == px {
			path = append(path, Op{Insert, x, x, y - 1, y})
			y--
		} else {
			path = append(path, Op{Delete, x - 1, x, y, y})
			x--
		}
	}
	path = append(path, Op{Equal, 0, x, 0, y})
	for i := len(path) - 1; i >= 0; i-- {
		op := path[i]
		s.emit(op.Kind, alo+op.A0, alo+op.A1, blo+op.B0, blo+op.B1)
	}
	s.path = path
}

// midSnake finds the middle snake of a[alo:ahi], b[blo:bhi], which must
// both be non-empty, differ in their first and last lines, and so have
// an edit distance dd of at least 2. It returns a point (x, y) on a
// minimal path with (dd+1)/2 edits before it and dd/2 after.
//
// Forward and backward searches run in turn, each keeping only the
// furthest x it reached on every diagonal k = x-y (fd: the largest x from
// the start, bd: the smallest x from the end); they meet after about dd/2
// steps each. Diagonals stay within the rectangle, as in GNU diff.
func (s *solver) midSnake(alo, ahi, blo, bhi int) (x, y, dd int) {
	a, b := s.a[alo:ahi], s.b[blo:bhi]
	n, m := len(a), len(b)
	if len(s.fd) < n+m+3 {
		s.fd = make([]int, n+m+3)
		s.bd = make([]int, n+m+3)
	}
	off := m + 1 // diagonal k is at index k+off, for -m-1 ≤ k ≤ n+1
	fd, bd := s.fd, s.bd
	delta := n - m
	odd := delta&1 != 0
	fmin, fmax := 0, 0
	bmin, bmax := delta, delta
	fd[off] = 0
	bd[delta+off] = n
	const far = int(^uint(0) >> 1)
	for c := 1; ; c++ {
		// One more forward step on each diagonal within reach.
		if fmin > -m {
			fmin--
			fd[fmin-1+off] = -1
		} else {
			fmin++
		}
		if fmax < n {
			fmax++
			fd[fmax+1+off] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[k-1+off], fd[k+1+off]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			fd[k+off] = x
			if odd && bmin <= k && k <= bmax && bd[k+off] <= x {
				return alo + x, blo + y, 2*c - 1
			}
		}
		// One more backward step.
		if bmin > -m {
			bmin--
			bd[bmin-1+off] = far
		} else {
			bmin++
		}
		if bmax < n {
			bmax++
			bd[bmax+1+off] = far
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[k-1+off], bd[k+1+off]
			x := lo
			if lo >= hi {
				x = hi - 1
			}
			y := x - k
			for x > 0 && y > 0 && a[x-1] == b[y-1] {
				x--
				y--
			}
			bd[k+off] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[k+off] {
				return alo + x, blo + y, 2 * c
			}
		}
	}
}
