// Package cells holds the cell-width text helpers the TUI's root model and
// its component packages share: pad, cut and wrap text to a number of
// terminal cells, match a / filter, fill a meter.
package cells

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/charmbracelet/x/ansi"
)

// Pad pads s with spaces to exactly w cells (cutting it if longer).
func Pad(s string, w int) string {
	sw := lipgloss.Width(s)
	if sw > w {
		return ansi.Truncate(s, w, "")
	}
	return s + strings.Repeat(" ", w-sw)
}

// Cut shortens s to w cells, with … where it was cut.
func Cut(s string, w int) string { return ansi.Truncate(s, max(0, w), "…") }

// Wrap wraps sanitised text to width cells (at least 4), keeping line
// breaks.
func Wrap(text string, width int) []string {
	if width < 4 {
		width = 4
	}
	out := strings.Split(ansi.Wrap(termtext.Block(text), width, " -/"), "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	return out
}

// HasWords reports whether text holds every word of filter, ignoring
// case: the rule of / in the tables and the text views.
func HasWords(text, filter string) bool {
	hay := strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// MeterFilled is how many of a meter's cells n/maxN fills: at least one
// when n > 0, at most cells.
func MeterFilled(n, maxN, cells int) int {
	f := n * cells / max(1, maxN)
	if n > 0 && f == 0 {
		f = 1
	}
	return min(max(0, f), cells)
}
