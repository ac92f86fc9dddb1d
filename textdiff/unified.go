package textdiff

import (
	"strconv"
	"strings"
)

// Unified returns a unified diff from a to b, or "" when they are equal.
//
// It starts with the headers "--- aName" and "+++ bName", then one
// "@@ -a0,na +b0,nb @@" hunk per group of changes, each with up to
// context unchanged lines (0 when context is negative) before and after
// it; changes separated by at most 2·context unchanged lines share a
// hunk. A range is written "start,count" with start counting from 1, as
// "start" alone when count is 1, and as "p,0" for an empty range after
// line p. Every line is printed after its marker (' ', '-' or '+')
// without its "\n" but with any "\r" before it, so that CRLF files show;
// a line with no "\n" is followed by "\ No newline at end of file".
//
// The diff is minimal, as [Diff] finds it, at any file size. With bName
// set to aName+" (corrected)" the output is byte for byte what
// statefile.UnifiedDiff printed whenever that did not give up (more than
// 4,000 lines between the common prefix and suffix) and Diff's greedy
// search did the work; the tests check this on random inputs.
func Unified(aName, bName string, a, b []byte, context int) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := SplitLines(string(a)), SplitLines(string(b))
	return unified(aName, bName, al, bl, Diff(al, bl), context)
}

// UnifiedAligned is [Unified] with the changes placed for a person to read
// ([Align]): a hunk that adds an entry to a list shows the whole entry as
// added, not the previous entry's last line and all of the new one but its
// last. The diff is as small; only where its runs sit may differ.
func UnifiedAligned(aName, bName string, a, b []byte, context int) string {
	if string(a) == string(b) {
		return ""
	}
	al, bl := SplitLines(string(a)), SplitLines(string(b))
	return unified(aName, bName, al, bl, Align(al, bl, Diff(al, bl)), context)
}

// unified prints ops, a diff of the lines al and bl, as Unified does.
func unified(aName, bName string, al, bl []string, ops []Op, context int) string {
	context = max(context, 0)
	var out strings.Builder
	out.WriteString("--- ")
	out.WriteString(aName)
	out.WriteString("\n+++ ")
	out.WriteString(bName)
	out.WriteByte('\n')
	for i := 0; i < len(ops); {
		if ops[i].Kind == Equal {
			i++
			continue
		}
		// ops[i] starts a hunk; it ends before the first Equal run that
		// is the last Op or longer than 2·context.
		j := i
		for j < len(ops) {
			if ops[j].Kind != Equal {
				j++
				continue
			}
			if j+1 < len(ops) && ops[j].A1-ops[j].A0 <= 2*context {
				j++
				continue
			}
			break
		}
		// Lines of context before ops[i] and after ops[j-1].
		before, after := 0, 0
		if i > 0 {
			before = min(context, ops[i-1].A1-ops[i-1].A0)
		}
		if j < len(ops) {
			after = min(context, ops[j].A1-ops[j].A0)
		}
		a0, b0 := ops[i].A0-before, ops[i].B0-before
		a1, b1 := ops[j-1].A1+after, ops[j-1].B1+after
		out.WriteString("@@ -")
		writeRange(&out, a0, a1-a0)
		out.WriteString(" +")
		writeRange(&out, b0, b1-b0)
		out.WriteString(" @@\n")
		writeLines(&out, ' ', al[a0:a0+before])
		for _, op := range ops[i:j] {
			switch op.Kind {
			case Equal:
				writeLines(&out, ' ', al[op.A0:op.A1])
			case Delete:
				writeLines(&out, '-', al[op.A0:op.A1])
			case Insert:
				writeLines(&out, '+', bl[op.B0:op.B1])
			}
		}
		writeLines(&out, ' ', al[a1-after:a1])
		i = j
	}
	return out.String()
}

// writeRange writes a hunk header's range of n lines after line start.
func writeRange(out *strings.Builder, start, n int) {
	switch n {
	case 0:
		out.WriteString(strconv.Itoa(start))
		out.WriteString(",0")
	case 1:
		out.WriteString(strconv.Itoa(start + 1))
	default:
		out.WriteString(strconv.Itoa(start + 1))
		out.WriteByte(',')
		out.WriteString(strconv.Itoa(n))
	}
}

func writeLines(out *strings.Builder, mark byte, lines []string) {
	for _, l := range lines {
		out.WriteByte(mark)
		text, ok := strings.CutSuffix(l, "\n")
		out.WriteString(text)
		out.WriteByte('\n')
		if !ok {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}
