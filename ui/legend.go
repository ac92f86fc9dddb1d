package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// The help screen of the graph ends with a legend of what the graph shows
// on screen: the drawing's glyphs and box styles from dagdraw.LegendOf (the
// painter's own definitions), the list's from listMarks and the status and
// flag glyphs the list draws with. TestLegendCoversTheList draws lists of
// every feature and fails on a glyph no legend line explains.

// listMark is a glyph of the graph's list (graphView.row and hints).
type listMark int

const (
	markCursor listMark = iota
	markReady
	markDeps
	markOR
	markChosen
	markFailed
	markParts
	markPartOf
	markDeep
	numListMarks
)

// listMarks are the list's glyphs and what they mean.
var listMarks = [numListMarks]struct{ glyph, meaning string }{
	markCursor: {"›", "the selected atom"},
	markReady:  {"▶", "ready to run now"},
	markDeps:   {"←", "depends on"},
	markOR:     {"⎇", "an OR group's choice"},
	markChosen: {"★", "the group selects it"},
	markFailed: {"✗", "a failed OR choice"},
	markParts:  {"⊃", "decomposed into parts"},
	markPartOf: {"⊂", "a part of that atom"},
	markDeep:   {"┄", "nested deeper"},
}

// String is the mark's glyph.
func (k listMark) String() string { return listMarks[k].glyph }

// legendRow is one line of a legend: a sample, styled, and its meaning.
type legendRow struct{ sample, meaning string }

// listLegend are the legend lines of the list's glyphs that text (the
// list as drawn) shows, statuses and flags first.
func listLegend(text string, s Styles) []legendRow {
	var out []legendRow
	add := func(glyph, meaning string, st lipgloss.Style) {
		if strings.Contains(text, glyph) {
			out = append(out, legendRow{st.Render(glyph), meaning})
		}
	}
	for _, st := range []model.AtomStatus{model.StatusPending, model.StatusInProgress, model.StatusResolved, "?"} {
		meaning := strings.ReplaceAll(string(st), "_", " ")
		if st == "?" {
			meaning = "unknown status"
		}
		add(loopword.AtomGlyph(st), meaning, s.Atom(st))
	}
	add(string(dagdraw.FlagError.Glyph()), "an error about it", s.Danger.Bold(true))
	add(string(dagdraw.FlagWarning.Glyph()), "a warning about it", s.Warn)
	for k := listMark(0); k < numListMarks; k++ {
		st := s.Muted
		switch k {
		case markReady:
			st = s.Executable
		case markCursor:
			st = s.Base
		}
		add(k.String(), listMarks[k].meaning, st)
	}
	return out
}

// drawingLegend are the legend lines of what the canvases of the drawing
// show, styled as the drawing styles them (st; nil: plain).
func drawingLegend(st dagdraw.Styler, canvases ...*dagdraw.Canvas) []legendRow {
	var out []legendRow
	for _, e := range dagdraw.LegendOf(canvases...) {
		sample := e.Sample
		if st != nil {
			pre, suf := st.Style(e.Class)
			sample = pre + sample + suf
		}
		out = append(out, legendRow{sample, e.Meaning})
	}
	return out
}

// legendRows are the legend of what the place p shows: the graph's drawing
// or list (nil elsewhere).
func (m *Model) legendRows(p kit.Scope) []legendRow {
	l := m.cur
	switch {
	case l == nil || l.st == nil:
		return nil
	case p.Has(inDrawing):
		lay := &l.graph.lay
		return drawingLegend(m.gstyler, lay.gv.Canvas(), lay.minimap)
	case p.Has(inGraph):
		return listLegend(ansi.Strip(l.graph.view(m.styles, m.gstyler)), m.styles)
	}
	return nil
}

// legendBlock is the help screen's block of the legend (nil for none).
func (m *Model) legendBlock(p kit.Scope) []string {
	rows := m.legendRows(p)
	if len(rows) == 0 {
		return nil
	}
	block := []string{m.styles.Bold.Render("legend")}
	for _, r := range rows {
		block = append(block, "  "+padTo(r.sample, 10)+" "+r.meaning)
	}
	return block
}
