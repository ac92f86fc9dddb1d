package textdiff

// The unified diff statefile/diff.go printed before this package existed,
// copied verbatim (names prefixed with ref) as the reference that
// Unified's output is checked against. It gives up on more than 4,000
// lines between the common prefix and suffix, so the tests keep below
// that.

import (
	"fmt"
	"strings"
)

// refUnifiedDiff returns a unified diff (3 lines of context) between two
// versions of a file, or "" when they are equal. Lines keep their endings
// out of the comparison but CR is shown as it matters for CRLF files.
func refUnifiedDiff(name string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := refSplitDiffLines(string(a)), refSplitDiffLines(string(b))
	ops := refDiffLineOps(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (corrected)\n", name, name)
	const ctx = 3
	// Group edits into hunks with context.
	type hunk struct{ a0, b0 int }
	i := 0
	for i < len(ops) {
		// Find the next change.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// Run of equal lines: does another change follow within 2*ctx?
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j < len(ops) && j-end <= 2*ctx {
				end = j
				continue
			}
			end = min(len(ops), end+ctx)
			break
		}
		var h hunk
		h.a0, h.b0 = ops[start].ai, ops[start].bi
		na, nb := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				na++
			}
			if op.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", refRangeStr(h.a0, na), refRangeStr(h.b0, nb))
		for _, op := range ops[start:end] {
			line := op.text
			out.WriteByte(op.kind)
			out.WriteString(strings.TrimSuffix(line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func refRangeStr(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func refSplitDiffLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type refLineOp struct {
	kind   byte // ' ', '-', '+'
	text   string
	ai, bi int // positions in a and b before this op
}

// refDiffLineOps computes a line diff with Myers' O(ND) algorithm, after
// trimming the common prefix and suffix (corrections touch few lines of
// large files).
func refDiffLineOps(a, b []string) []refLineOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	mid := refMyersDiff(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)
	ops := make([]refLineOp, 0, pre+len(mid)+suf)
	for i := 0; i < pre; i++ {
		ops = append(ops, refLineOp{' ', a[i], i, i})
	}
	ops = append(ops, mid...)
	da := len(a) - suf
	db := len(b) - suf
	for k := 0; k < suf; k++ {
		ops = append(ops, refLineOp{' ', a[da+k], da + k, db + k})
	}
	return ops
}

func refMyersDiff(a, b []string, off int) []refLineOp {
	n, m := len(a), len(b)
	if n+m > 4000 {
		// Too different to diff cheaply: show it as a replacement.
		ops := make([]refLineOp, 0, n+m)
		for i := range a {
			ops = append(ops, refLineOp{'-', a[i], off + i, off})
		}
		for j := range b {
			ops = append(ops, refLineOp{'+', b[j], off + n, off + j})
		}
		return ops
	}
	maxD := n + m
	v := make([]int, 2*maxD+2)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		vc := make([]int, len(v))
		copy(vc, v)
		trace = append(trace, vc)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[maxD+k-1] < v[maxD+k+1]) {
				x = v[maxD+k+1]
			} else {
				x = v[maxD+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[maxD+k] = x
			if x >= n && y >= m {
				return refMyersBacktrack(trace, a, b, d, maxD, off)
			}
		}
	}
	return nil
}

func refMyersBacktrack(trace [][]int, a, b []string, d, maxD, off int) []refLineOp {
	x, y := len(a), len(b)
	var rev []refLineOp
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && v[maxD+k-1] < v[maxD+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[maxD+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, refLineOp{' ', a[x], off + x, off + y})
		}
		if x == px {
			y--
			rev = append(rev, refLineOp{'+', b[y], off + x, off + y})
		} else {
			x--
			rev = append(rev, refLineOp{'-', a[x], off + x, off + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, refLineOp{' ', a[x], off + x, off + y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
