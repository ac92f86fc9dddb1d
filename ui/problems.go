package ui

import (
	"fmt"
	"strings"

	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopgraph"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
)

// The problems of the version on screen are what `aot-tui validate`
// reports on it (model.ValidateWith, loop-tools warnings included): the
// header counts them (problemBadge), ! lists them in a panel with their
// lines (openProblems), the graph flags the atoms they are about
// (loopgraph.Flags: ! an error, ⚠ only warnings) and the details of an
// atom list its own.

// The marks of the two levels, in the badge, the panel and the details.
const (
	errorMark   = "✗"
	warningMark = "⚠"
)

// atomFlags are the atoms r's findings are about, with their flag.
func atomFlags(r *model.Report) map[string]dagdraw.Flag { return loopgraph.FlagsOf(r) }

// problemBadge is the header's count of errors and warnings ("" for
// none): "✗ 2 errors ⚠ 1 warning", or "✗2 ⚠1" under 80 columns.
func problemBadge(r *model.Report, width int, s Styles) string {
	if r == nil {
		return ""
	}
	ne, nw := len(r.Errors), len(r.Warnings)
	var parts []string
	if ne > 0 {
		text := errorMark + " " + textfmt.Plural(ne, "error")
		if width < 80 {
			text = fmt.Sprintf("%s%d", errorMark, ne)
		}
		parts = append(parts, s.Danger.Bold(true).Render(text))
	}
	if nw > 0 {
		text := warningMark + " " + textfmt.Plural(nw, "warning")
		if width < 80 {
			text = fmt.Sprintf("%s%d", warningMark, nw)
		}
		parts = append(parts, s.Warn.Render(text))
	}
	return strings.Join(parts, " ")
}

// problemLines lists r's findings for a pane w cells wide: the level's
// mark and the line, then the message, wrapped under itself (beside the
// line where the pane is wide, below it where it is narrow); errors in
// the danger colour, warnings in the warning one; loop-tools warnings
// say so.
func problemLines(r *model.Report, w int, s Styles) []string {
	var out []string
	for _, p := range r.Problems {
		mark, st := warningMark, s.Warn
		if p.Severity == "error" {
			mark, st = errorMark, s.Danger
		}
		line := ""
		if p.Line > 0 {
			line = fmt.Sprintf("line %d", p.Line)
		}
		msg := termtext.Line(p.Message)
		if p.Kind == model.LoopToolsKind {
			msg = "(loop tools) " + msg
		}
		if w < 60 {
			// Narrow: the mark and line, the message below them.
			out = append(out, strings.TrimSpace(st.Render(mark)+" "+s.Muted.Render(line)))
			for _, l := range wrap(msg, max(10, w-2)) {
				out = append(out, "  "+l)
			}
			continue
		}
		const pad = 12 // "✗ line 1234 "
		for i, l := range wrap(msg, w-pad) {
			if i == 0 {
				out = append(out, st.Render(mark)+" "+s.Muted.Render(fmt.Sprintf("%-9s", line))+" "+l)
			} else {
				out = append(out, strings.Repeat(" ", pad)+l)
			}
		}
	}
	return out
}

// openProblems shows the problems of the version on screen.
func (m *Model) openProblems() {
	m.panel = panelView{kind: panelProblems}
	m.buildProblems(m.cur)
	m.focus = focusPanel
}

// buildProblems lays out l's problems in the panel.
func (m *Model) buildProblems(l *loop) {
	s := m.styles
	p := &m.panel
	p.text.width, p.text.height = m.width, m.panelHeight()
	p.builtFor, p.from = m.width, l.doc
	r := &l.report
	p.title = "problems — " + textfmt.Plural(len(r.Errors), "error") + ", " + textfmt.Plural(len(r.Warnings), "warning") +
		" (aot-tui validate)"
	if h := l.hist; h.inPast() {
		p.title += fmt.Sprintf(" — version %d of %d", h.current()+1, h.tl.Len())
	}
	lines := problemLines(r, max(20, m.width), s)
	if l.st == nil {
		lines = []string{s.Muted.Render("no state read yet")}
	} else if len(lines) == 0 {
		lines = []string{s.Muted.Render("no problems: validate finds no errors or warnings in this version")}
	} else {
		lines = append(lines, "", s.Muted.Render("the graph flags the atoms they are about: ! an error, ⚠ a warning"))
	}
	p.text.set(lines)
	p.text.top = 0
}

// atomProblems are the lines of the details about atom id's own findings
// (none when it has none).
func atomProblems(r *model.Report, id string, w int, s Styles) []string {
	var mine model.Report
	for _, p := range r.Problems {
		for _, a := range p.Atoms {
			if a == id {
				mine.Problems = append(mine.Problems, p)
				break
			}
		}
	}
	if len(mine.Problems) == 0 {
		return nil
	}
	return append([]string{"", s.Title.Render(fmt.Sprintf("problems (%d)", len(mine.Problems)))}, problemLines(&mine, w, s)...)
}

// moreHint marks a text longer than its pane, with the keys that scroll
// it: "↓ more (j/k) · 1–17 of 40" while lines are below the pane, "↑ more
// (k) · 24–40 of 40" once at the end; "" when it all shows.
func (m *Model) moreHint(t *scrollText) string {
	where := t.scrollHint()
	if where == "" {
		return ""
	}
	last := func(ks []string) string {
		if len(ks) == 0 {
			return "?"
		}
		return ks[len(ks)-1]
	}
	down, up := last(m.keys.Down.Keys()), last(m.keys.Up.Keys())
	if t.top+t.height < len(t.lines) {
		return "↓ more (" + down + "/" + up + ") · " + where
	}
	return "↑ more (" + up + ") · " + where
}
