package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/charmbracelet/x/ansi"
)

// column of a table: a fixed width, or flexible (Width 0) sharing what is
// left; MinWidth below which a flexible column is dropped.
type column struct {
	Title    string
	Width    int
	MinWidth int
	// Optional fixed columns give way first when the pane is narrow.
	Optional bool
}

// tableView is a scrollable, filterable table with a selection and a
// preview of the selected row underneath. Cells are produced on demand for
// the visible rows only.
type tableView struct {
	cols []column
	n    int
	// cell returns the (unsanitised) text of row r, column c.
	cell func(r, c int) string
	// match reports whether row r passes the filter.
	match func(r int, filter string) bool
	// preview renders the selected row in full, for the bottom pane.
	preview func(r int, width int) []string
	empty   string

	width, height int
	sel, top      int
	filter        string
	visible       []int
	// shownTop and shownRows are the rows view drew last: visible[shownTop:]
	// on the shownRows lines under the header (mouse.go).
	shownTop, shownRows int
}

func (t *tableView) setRows(n int) {
	t.n = n
	t.refilter()
}

func (t *tableView) setFilter(f string) {
	t.filter = f
	t.refilter()
}

func (t *tableView) refilter() {
	t.visible = t.visible[:0]
	for r := 0; r < t.n; r++ {
		if t.filter == "" || t.match == nil || t.match(r, t.filter) {
			t.visible = append(t.visible, r)
		}
	}
	t.sel = min(max0(t.sel), max0(len(t.visible)-1))
	t.clamp()
}

func (t *tableView) setSize(w, h int) {
	t.width, t.height = w, h
	t.clamp()
}

// previewHeight is how many lines the preview takes.
func (t *tableView) previewHeight() int {
	if t.preview == nil || t.height < 10 {
		return 0
	}
	return min(6, t.height/3)
}

func (t *tableView) bodyHeight() int { return max0(t.height - 1 - t.previewHeight()) }

func (t *tableView) clamp() {
	h := t.bodyHeight()
	if h <= 0 {
		return
	}
	if t.sel < t.top {
		t.top = t.sel
	}
	if t.sel >= t.top+h {
		t.top = t.sel - h + 1
	}
	t.top = min(max0(t.top), max0(len(t.visible)-h))
}

func (t *tableView) move(d int) {
	t.sel = min(max0(t.sel+d), max0(len(t.visible)-1))
	t.clamp()
}

func (t *tableView) home() { t.sel = 0; t.clamp() }
func (t *tableView) end()  { t.sel = max0(len(t.visible) - 1); t.clamp() }

// widths resolves column widths for the table width: fixed columns keep
// their width, flexible ones share the rest; when a flexible column would
// fall below its minimum, optional fixed columns are dropped first, then
// columns from the right.
func (t *tableView) widths() []int {
	drop := make([]bool, len(t.cols))
	compute := func() ([]int, bool) {
		w := make([]int, len(t.cols))
		fixed, flex := 0, 0
		for i, c := range t.cols {
			switch {
			case drop[i]:
			case c.Width > 0:
				w[i] = c.Width
				fixed += c.Width + 1
			default:
				flex++
			}
		}
		short := false
		if flex > 0 {
			per := max0(t.width-fixed) / flex
			for i, c := range t.cols {
				if c.Width == 0 && !drop[i] {
					w[i] = per
					if per < c.MinWidth {
						w[i], short = 0, true
					}
				}
			}
		}
		return w, short
	}
	w, short := compute()
	for i := len(t.cols) - 1; i >= 0 && short; i-- {
		if t.cols[i].Optional {
			drop[i] = true
			w, short = compute()
		}
	}
	total := 0
	for _, x := range w {
		if x > 0 {
			total += x + 1
		}
	}
	for i := len(w) - 1; i > 0 && total-1 > t.width; i-- {
		if w[i] > 0 {
			total -= w[i] + 1
			w[i] = 0
		}
	}
	return w
}

func (t *tableView) view(s Styles) string {
	if t.height <= 0 || t.width <= 0 {
		return ""
	}
	var lines []string
	ws := t.widths()
	var head []string
	for i, c := range t.cols {
		if ws[i] > 0 {
			head = append(head, padTo(ansi.Truncate(c.Title, ws[i], "…"), ws[i]))
		}
	}
	lines = append(lines, s.Muted.Bold(true).Render(padTo(strings.Join(head, " "), t.width)))
	h := t.bodyHeight()
	t.shownTop, t.shownRows = t.top, 0
	if len(t.visible) == 0 {
		msg := t.empty
		if t.filter != "" {
			msg = fmt.Sprintf("nothing matches %q", termtext.Line(t.filter))
		}
		for _, l := range wrap(msg, t.width) {
			if len(lines) <= h {
				lines = append(lines, s.Muted.Render(padTo(l, t.width)))
			}
		}
	}
	for k := t.top; k < len(t.visible) && k < t.top+h; k++ {
		r := t.visible[k]
		var cells []string
		for i := range t.cols {
			if ws[i] == 0 {
				continue
			}
			txt := termtext.Line(t.cell(r, i))
			cells = append(cells, padTo(ansi.Truncate(txt, ws[i], "…"), ws[i]))
		}
		line := padTo(strings.Join(cells, " "), t.width)
		if k == t.sel {
			line = s.Selected.Render(line)
		}
		lines = append(lines, line)
		t.shownRows++
	}
	for len(lines) < 1+h {
		lines = append(lines, strings.Repeat(" ", t.width))
	}
	if ph := t.previewHeight(); ph > 0 {
		lines = append(lines, s.Border.Render(strings.Repeat("─", t.width)))
		var pv []string
		if len(t.visible) > 0 {
			pv = wrapLines(t.preview(t.visible[t.sel], t.width), t.width)
		}
		if len(pv) > ph-1 {
			// The rest of the row does not fit under the table: say so.
			pv = pv[:ph-1]
			pv[ph-2] = cells.Cut(pv[ph-2], t.width-2) + s.Muted.Render(" …")
		}
		for k := 0; k < ph-1; k++ {
			l := ""
			if k < len(pv) {
				l = pv[k]
			}
			lines = append(lines, padTo(ansi.Truncate(l, t.width, "…"), t.width))
		}
	}
	return strings.Join(lines[:min(len(lines), t.height)], "\n")
}

// wrapLines wraps (styled) lines wider than width at blanks, hyphens and
// slashes, keeping their styles.
func wrapLines(lines []string, width int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, max(4, width), " -/"), "\n")...)
	}
	return out
}

// parseTime reads an ISO 8601 timestamp.
func parseTime(ts string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.TrimSpace(ts)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// shortTime renders a timestamp as "2025-01-15 10:00" (UTC), or as written.
func shortTime(ts string) string {
	if t, ok := parseTime(ts); ok {
		return t.UTC().Format("2006-01-02 15:04")
	}
	if ts == "" {
		return "—"
	}
	return termtext.Line(ts)
}

// relTime renders a timestamp relative to now ("3m ago"), or "".
func relTime(ts string, now time.Time) string {
	t, ok := parseTime(ts)
	if !ok {
		return ""
	}
	d := now.Sub(t)
	if d < 0 {
		return "in " + textfmt.Ago(-d)
	}
	return textfmt.Ago(d) + " ago"
}
