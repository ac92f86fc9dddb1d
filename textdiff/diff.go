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
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	lines := make([]string, 0, n)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
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
// search's trace fits in memory linear in the input size: up to D = 400
// or so for inputs of a few thousand lines, about 1,000 at 120,000. Past
// that it first sets aside the lines that only one side has (they are
// changes in every diff), then splits what is left at a middle snake
// (Myers' linear-space refinement), again and again until the parts are
// small enough for the greedy search. That gives a diff just as small
// that may align differently.
//
// Memory is O(len(a)+len(b)) and time O((len(a)+len(b))·D), where D is
// the number of deleted plus inserted lines. The common prefix and suffix
// cost one string comparison per line.
func Diff(a, b []string) []Op {
	n, m := len(a), len(b)
	pre, suf := commonEnds(n, m, func(i, j int) bool { return a[i] == b[j] })
	achg, bchg := make([]bool, n-pre-suf), make([]bool, m-pre-suf)
	markChanges(a[pre:n-suf], b[pre:m-suf], achg, bchg, maxTraceD(traceBudget(n+m)))
	return pairUp(pre, n, m, achg, bchg)
}

// DiffFunc is Diff of n lines a and m lines b that eq compares (eq(i, j):
// line i of a equals line j of b), for lines the caller keeps in a form of
// its own, when Diff's first search finds the diff: when few lines
// changed, as in a loop's write. ok is false when Diff would go on to its
// other searches; the caller then calls Diff on the lines as strings,
// which gives the same diff whenever DiffFunc gives one.
func DiffFunc(n, m int, eq func(i, j int) bool) (ops []Op, ok bool) {
	pre, suf := commonEnds(n, m, eq)
	achg, bchg := make([]bool, n-pre-suf), make([]bool, m-pre-suf)
	if len(achg) == 0 || len(bchg) == 0 {
		markAll(achg, bchg)
	} else {
		tr, d, found := greedySearch(len(achg), len(bchg), maxTraceD(traceBudget(n+m)), func(x, y int) bool { return eq(pre+x, pre+y) }, nil)
		if !found {
			return nil, false
		}
		walkBack(tr, len(achg), len(bchg), d, func(i int) { achg[i] = true }, func(j int) { bchg[j] = true })
	}
	return pairUp(pre, n, m, achg, bchg), true
}

// commonEnds is the length of the common prefix of n lines a and m lines
// b, and of their common suffix after it.
func commonEnds(n, m int, eq func(i, j int) bool) (pre, suf int) {
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	return pre, suf
}

// markAll marks every line changed: one side is empty.
func markAll(achg, bchg []bool) {
	for i := range achg {
		achg[i] = true
	}
	for j := range bchg {
		bchg[j] = true
	}
}

// pairUp turns the changes marked between a common prefix of pre lines
// and a common suffix (achg of a's n lines, bchg of b's m) into Ops:
// unchanged lines of a and b pair up in order.
func pairUp(pre, n, m int, achg, bchg []bool) []Op {
	var ops []Op
	add := func(k Kind, a0, a1, b0, b1 int) {
		if a0 < a1 || b0 < b1 {
			ops = append(ops, Op{k, a0, a1, b0, b1})
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
			add(Equal, pre+i0, n, pre+j0, m) // and the suffix
			break
		}
		add(Equal, pre+i0, pre+i, pre+j0, pre+j)
		i0, j0 = i, j
		for i < len(achg) && achg[i] {
			i++
		}
		for j < len(bchg) && bchg[j] {
			j++
		}
		if i == i0 && j == j0 {
			panic("textdiff: unchanged lines do not pair up")
		}
		add(Delete, pre+i0, pre+i, pre+j0, pre+j0)
		add(Insert, pre+i, pre+i, pre+j0, pre+j)
	}
	return ops
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

// markChanges marks in achg and bchg the lines of a and b that a
// minimal diff changes. Only the greedy search's trace may use more than
// O(len(a)+len(b)) memory, and it stops at limit.
func markChanges(a, b []string, achg, bchg []bool, limit int) {
	if len(a) == 0 || len(b) == 0 {
		markAll(achg, bchg)
		return
	}
	// A first try on the strings themselves: when few lines changed,
	// interning them would cost more than the search.
	gs := solver[string]{a: a, b: b, achg: achg, bchg: bchg, limit: limit}
	if gs.greedy(0, len(a), 0, len(b), limit) {
		return
	}
	s := solver[int32]{achg: achg, bchg: bchg, limit: limit, trace: gs.trace, mapped: true}
	ai, bi := intern(a, b)
	s.a, s.b, s.aIdx, s.bIdx = discard(ai, bi, achg, bchg)
	s.solve(0, len(s.a), 0, len(s.b), -1)
}

// discard marks the lines of a that are nowhere in b as changed, and
// those of b nowhere in a, and returns the others with their indexes. No
// common subsequence has such lines, so a minimal diff of what is left
// is one of the whole, and often a much smaller problem: when all lines
// change their endings, nothing is left.
func discard(a, b []int32, achg, bchg []bool) (ka, kb, aIdx, bIdx []int32) {
	var nids int32
	for _, id := range a {
		nids = max(nids, id+1)
	}
	for _, id := range b {
		nids = max(nids, id+1)
	}
	inA, inB := make([]bool, nids), make([]bool, nids)
	for _, id := range a {
		inA[id] = true
	}
	for _, id := range b {
		inB[id] = true
	}
	keep := func(lines []int32, in []bool, chg []bool) (kept, idx []int32) {
		for i, id := range lines {
			if in[id] {
				kept = append(kept, id)
				idx = append(idx, int32(i))
			} else {
				chg[i] = true
			}
		}
		return kept, idx
	}
	ka, aIdx = keep(a, inB, achg)
	kb, bIdx = keep(b, inA, bchg)
	return ka, kb, aIdx, bIdx
}

// solver finds which lines of a and b a minimal diff changes: lines as
// strings for a first greedy try, interned after that.
type solver[T comparable] struct {
	a, b       []T
	achg, bchg []bool  // the lines of the original a and b that change
	mapped     bool    // a and b are what discard kept, so
	aIdx, bIdx []int32 // a[i] is achg[aIdx[i]] and b[j] bchg[bIdx[j]]
	limit      int     // the largest D the greedy search may try
	trace      []int32 // greedy search: layer d holds d+1 diagonals
	fd, bd     []int   // middle snake: furthest x on each diagonal
}

// changeA marks a[i] as changed, and changeB b[j].
func (s *solver[T]) changeA(i int) {
	if s.mapped {
		i = int(s.aIdx[i])
	}
	s.achg[i] = true
}

func (s *solver[T]) changeB(j int) {
	if s.mapped {
		j = int(s.bIdx[j])
	}
	s.bchg[j] = true
}

// solve marks the changes between a[alo:ahi] and b[blo:bhi]. d is their
// edit distance when the caller knows it, or -1.
func (s *solver[T]) solve(alo, ahi, blo, bhi, d int) {
	for alo < ahi && blo < bhi && s.a[alo] == s.b[blo] {
		alo++
		blo++
	}
	for alo < ahi && blo < bhi && s.a[ahi-1] == s.b[bhi-1] {
		ahi--
		bhi--
	}
	switch {
	case alo == ahi:
		for j := blo; j < bhi; j++ {
			s.changeB(j)
		}
	case blo == bhi:
		for i := alo; i < ahi; i++ {
			s.changeA(i)
		}
	case (d < 0 || d <= s.limit) && s.greedy(alo, ahi, blo, bhi, s.limit):
	default:
		x, y, dd := s.midSnake(alo, ahi, blo, bhi)
		left := (dd + 1) / 2
		s.solve(alo, x, blo, y, left)
		s.solve(x, ahi, y, bhi, dd-left)
	}
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

// greedy runs Myers' forward search on a[alo:ahi], b[blo:bhi] (see
// greedySearch) and marks the changes on the path it finds. It gives up,
// marking nothing, when the edit distance is over limit.
func (s *solver[T]) greedy(alo, ahi, blo, bhi, limit int) bool {
	a, b := s.a[alo:ahi], s.b[blo:bhi]
	tr, d, ok := greedySearch(len(a), len(b), limit, func(x, y int) bool { return a[x] == b[y] }, s.trace[:0])
	s.trace = tr
	if ok {
		walkBack(tr, len(a), len(b), d, func(i int) { s.changeA(alo + i) }, func(j int) { s.changeB(blo + j) })
	}
	return ok
}

// greedySearch runs Myers' forward search on n lines a and m lines b
// (eq(x, y): line x of a equals line y of b), keeping every layer of
// furthest-reaching x values in tr (appended to; returned), until it
// reaches the end at layer d (ok) or passes limit. Its choices are those
// of the textbook algorithm, and of statefile's diff before this package:
// on a tie between the two diagonals it could come from, it takes the
// deletion.
func greedySearch(n, m, limit int, eq func(x, y int) bool, tr []int32) (_ []int32, d int, ok bool) {
	limit = min(limit, n+m)
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
				return tr, d, true
			}
		}
	}
	return tr, 0, false
}

// walkBack walks greedySearch's trace tr back from the end of n lines a
// and m lines b, found at layer d, and marks the changes on the path.
func walkBack(tr []int32, n, m, d int, changeA, changeB func(int)) {
	x, y := n, m
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
			changeB(y)
		} else {
			x--
			changeA(x)
		}
	}
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
func (s *solver[T]) midSnake(alo, ahi, blo, bhi int) (x, y, dd int) {
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
