package textdiff

import "strings"

// Align returns ops, a diff of a and b as [Diff] gives it, with each run of
// lines only inserted or only deleted moved to where it reads as a whole.
//
// Such a run can often sit in several places: inserting an entry after one
// that ends with the same line as the new one ("    trail_cleared: false"),
// a minimal diff may show that line of the old entry as inserted and the
// new entry's last line as kept. Align slides the run up and down over the
// lines equal to those it passes and keeps the place whose two edges look
// most like the edges of a whole block: the run's first line and the line
// after it indented least (a YAML sequence item "  - …", a top-level key,
// the end of the file), a blank line counting as indented most. Among
// equal places it keeps the one the diff had. The result is still a
// minimal diff of a and b with Diff's invariants; only where the runs
// sit changes.
func Align(a, b []string, ops []Op) []Op {
	// Between empty Equal runs at both ends, every change that can slide
	// has an Equal run on each side to give and take lines.
	out := make([]Op, 0, len(ops)+2)
	out = append(out, Op{Kind: Equal})
	out = append(out, ops...)
	out = append(out, Op{Kind: Equal, A0: len(a), A1: len(a), B0: len(b), B1: len(b)})
	for k := 1; k < len(out)-1; k++ {
		op := out[k]
		// A replacement (a Delete next to an Insert) cannot slide.
		if op.Kind == Equal || out[k-1].Kind != Equal || out[k+1].Kind != Equal {
			continue
		}
		lines, s, e := b, op.B0, op.B1
		if op.Kind == Delete {
			lines, s, e = a, op.A0, op.A1
		}
		// How far the run may go up and down: over lines equal to the
		// ones it leaves, keeping at least one line of an Equal run that
		// separates it from another change (so changes never meet).
		upRoom, downRoom := out[k-1].A1-out[k-1].A0, out[k+1].A1-out[k+1].A0
		if k >= 2 && out[k-2].Kind != Equal {
			upRoom--
		}
		if k+2 < len(out) && out[k+2].Kind != Equal {
			downRoom--
		}
		up := 0
		for up < upRoom && lines[s-1-up] == lines[e-1-up] {
			up++
		}
		down := 0
		for down < downRoom && lines[s+down] == lines[e+down] {
			down++
		}
		best, bestScore := 0, edgeScore(lines, s, e)
		for d := -up; d <= down; d++ {
			if sc := edgeScore(lines, s+d, e+d); sc < bestScore {
				best, bestScore = d, sc
			}
		}
		if best != 0 {
			shift(out, k, best)
		}
	}
	// The Equal runs left empty go.
	kept := out[:0]
	for _, op := range out {
		if op.A0 < op.A1 || op.B0 < op.B1 {
			kept = append(kept, op)
		}
	}
	return kept
}

// shift moves the change ops[k] by d lines (negative: up), the Equal runs
// on either side of it giving and taking the lines it passes.
func shift(ops []Op, k, d int) {
	ops[k].A0 += d
	ops[k].A1 += d
	ops[k].B0 += d
	ops[k].B1 += d
	ops[k-1].A1 += d
	ops[k-1].B1 += d
	ops[k+1].A0 += d
	ops[k+1].B0 += d
}

// edgeScore rates lines[s:e] as a block: the weight of its first line and
// of the line after it (none at the end of the file). Lower is better.
func edgeScore(lines []string, s, e int) int {
	sc := lineWeight(lines[s])
	if e < len(lines) {
		sc += lineWeight(lines[e])
	}
	return sc
}

// blankWeight is a blank line's weight: more than any indentation, since
// a block that starts with one, or has one after it where it could have
// it before, splits what the blank line separates.
const blankWeight = 1 << 20

// lineWeight is how far a line is indented (spaces and tabs), or
// blankWeight for a blank one.
func lineWeight(line string) int {
	text := strings.TrimRight(line, "\r\n")
	n := len(text) - len(strings.TrimLeft(text, " \t"))
	if n == len(text) {
		return blankWeight
	}
	return n
}
