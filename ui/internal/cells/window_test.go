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
