package cells

import "testing"

// A window shows exactly height lines of width cells from top, blank
// lines below a short text, and its hint says which lines are in sight.
func TestWindow(t *testing.T) {
	lines := []string{"a", "b", "c", "d"}
	if got := Window(lines, 1, 3, 2); got != "b  \nc  " {
		t.Errorf("lines 2–3: %q", got)
	}
	if got := Window(lines[:1], 0, 2, 3); got != "a \n  \n  " {
		t.Errorf("a short text is filled with blank lines: %q", got)
	}
	if got := Window(lines, 0, 3, 0); got != "" {
		t.Errorf("no height: %q", got)
	}
	if got := WindowHint(len(lines), 1, 2); got != "2–3 of 4" {
		t.Errorf("hint %q", got)
	}
	if got := WindowHint(len(lines), 0, 4); got != "" {
		t.Errorf("all in sight, yet the hint says %q", got)
	}
}

// A scroll mark says which way there is more: below at the top, above at
// the end, both between; nothing when all is in sight.
func TestScrollMark(t *testing.T) {
	for _, c := range []struct {
		n, top, h int
		want      string
	}{{40, 0, 16, "↓ 1–16 of 40"}, {40, 24, 16, "↑ 25–40 of 40"}, {40, 5, 16, "↕ 6–21 of 40"}, {10, 0, 16, ""}} {
		if got := ScrollMark(c.n, c.top, c.h); got != c.want {
			t.Errorf("%d lines from %d, %d in sight: %q, want %q", c.n, c.top, c.h, got, c.want)
		}
	}
}
