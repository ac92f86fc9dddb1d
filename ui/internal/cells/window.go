package cells

import (
	"fmt"
	"strings"
)

// Window draws the height lines of lines in sight from top, each padded
// to width, blank lines filling what the text does not (a scrolled view;
// "" when height is not positive).
func Window(lines []string, top, width, height int) string {
	if height <= 0 {
		return ""
	}
	end := min(len(lines), top+height)
	var b strings.Builder
	for k := top; k < end; k++ {
		if k > top {
			b.WriteByte('\n')
		}
		b.WriteString(Pad(lines[k], width))
	}
	for k := end - top; k < height; k++ {
		if k > 0 || end > top {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", width))
	}
	return b.String()
}

// WindowHint says where in n lines a window of height lines from top is
// ("3–12 of 40"; "" when all of them are in sight).
func WindowHint(n, top, height int) string {
	if n <= height {
		return ""
	}
	return fmt.Sprintf("%d–%d of %d", top+1, min(n, top+height), n)
}

// ScrollMark says that a list or text of n lines (rows, atoms) shows only
// those from top, height at a time: "↓ 1–16 of 40" (↑ at the end, ↕ in
// the middle); "" when all of it is in sight.
func ScrollMark(n, top, height int) string {
	hint := WindowHint(n, top, height)
	switch {
	case hint == "":
		return ""
	case top <= 0:
		return "↓ " + hint
	case top+height >= n:
		return "↑ " + hint
	}
	return "↕ " + hint
}
