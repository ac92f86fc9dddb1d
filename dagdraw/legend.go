package dagdraw

import "strings"

// LegendEntry explains one glyph or box style of the drawing.
type LegendEntry struct {
	// Sample is how it looks: a glyph or a few, or a box's top corners
	// and side ("╭─╮").
	Sample string
	// Class is the class Sample is drawn in.
	Class Class
	// Meaning says what it stands for, in at most 23 cells (a legend
	// line fits a column of the TUI's help).
	Meaning string

	// classes are the classes it explains (Class first) and runes the
	// glyphs, in those classes; text explains the whole class, whatever
	// its characters (the [+N] of a collapsed node). found, when set, makes
	// LegendOf's sample the glyphs of runes it found, in runes' order
	// (arrowheads point down or right as the drawing's orientation says).
	classes []Class
	runes   string
	text    bool
	found   bool
}

// legend is every entry, in the order a legend lists them. It is built
// from the glyph definitions the painter draws with (Status.Glyph,
// Flag.Glyph, the marks, the border sets, lineGlyph, markGlyph), so a
// glyph is explained where it is defined; TestLegendExplainsEveryGlyph
// paints every feature of the drawing and fails on a glyph it finds no
// entry for.
var legend = buildLegend()

// textClasses are the classes of text, which need no legend: ids, labels,
// frame titles, the position indicator.
var textClasses = []Class{ClassBlank, ClassID, ClassLabel, ClassLabelFailed, ClassLabelResolved,
	ClassFrameLabel, ClassFrameORLabel, ClassIndicator}

func buildLegend() []LegendEntry {
	var out []LegendEntry
	add := func(e LegendEntry) {
		if len(e.classes) == 0 {
			e.classes = []Class{e.Class}
		}
		if e.Sample == "" && !e.found {
			e.Sample = e.runes
		}
		out = append(out, e)
	}
	statuses := map[Status]string{Pending: "pending", InProgress: "in progress", Resolved: "resolved",
		Unknown: "unknown or not defined"}
	for _, st := range []Status{Pending, InProgress, Resolved, Unknown} {
		add(LegendEntry{Class: statusClass(st), runes: string(st.Glyph()), Meaning: statuses[st]})
	}
	add(LegendEntry{Class: ClassReady, runes: string(readyMark), Meaning: "ready to run now"})
	add(LegendEntry{Class: ClassFailedMark, runes: string(failedMark), Meaning: "a failed OR choice"})
	add(LegendEntry{Class: ClassFlagError, runes: string(FlagError.Glyph()), Meaning: "an error about it"})
	add(LegendEntry{Class: ClassFlagWarning, runes: string(FlagWarning.Glyph()), Meaning: "a warning about it"})
	add(LegendEntry{Class: ClassFolded, Sample: "[+N]", text: true, Meaning: "N parts folded inside"})

	box := func(bs borderSet) string { return string(bs[:]) }
	top := func(bs borderSet) string { return string([]rune{bs[0], bs[1], bs[2]}) }
	add(LegendEntry{Class: ClassBorder, Sample: top(borderRound), runes: box(borderRound), Meaning: "an atom"})
	add(LegendEntry{Class: ClassBorderSelected, Sample: top(borderHeavy), runes: box(borderHeavy), Meaning: "the selected atom"})
	add(LegendEntry{Class: ClassBorderChosen, Sample: top(borderDouble), runes: box(borderDouble), Meaning: "its OR group's choice"})
	add(LegendEntry{Class: ClassBorderFailed, Sample: top(borderRound), runes: box(borderRound), Meaning: "a failed choice (dim)"})
	add(LegendEntry{Class: ClassBorderSummary, Sample: top(borderDouble), runes: box(borderDouble), Meaning: "resolved history (+id)"})
	add(LegendEntry{Class: ClassBorderMissing, Sample: top(borderDashed), runes: box(borderDashed), Meaning: "id named, not defined"})
	add(LegendEntry{Class: ClassFrame, Sample: top(borderFrame), runes: box(borderFrame), Meaning: "an atom and its parts"})
	add(LegendEntry{Class: ClassFrameOR, Sample: top(borderFrameO), runes: box(borderFrameO), Meaning: "an OR group's choices"})

	lines := strings.TrimSpace(string(lineGlyph[:]))
	add(LegendEntry{Class: ClassEdge, Sample: "─│", runes: lines, Meaning: "a dependency"})
	add(LegendEntry{Class: ClassEdgeActive, Sample: "─│", runes: lines + "┄┆", Meaning: "the selection's edges"})
	add(LegendEntry{Class: ClassEdgePartOf, Sample: "┄┆", runes: lines + "┄┆", Meaning: "a part to its atom"})
	add(LegendEntry{Class: ClassEdgeCross, Sample: "┼", runes: lines, Meaning: "lines crossing"})
	var heads, tees, hollow []rune
	for _, o := range []Orientation{TopDown, LeftRight} {
		for _, up := range []bool{true, false} {
			heads = append(heads, markGlyph(o, up, true, edgeDep))
			hollow = append(hollow, markGlyph(o, up, true, edgePartOf))
			tees = append(tees, markGlyph(o, up, false, edgeDep), markGlyph(o, up, false, edgePartOf))
		}
	}
	arrows := []Class{ClassArrow, ClassArrowActive}
	add(LegendEntry{Class: ClassArrow, classes: arrows, runes: string(heads), found: true, Meaning: "to the atom that waits"})
	add(LegendEntry{Class: ClassArrow, classes: arrows, runes: string(tees), found: true, Meaning: "from the atom waited on"})
	add(LegendEntry{Class: ClassArrow, classes: arrows, runes: string(hollow), found: true, Meaning: "to a part's atom"})

	add(LegendEntry{Class: ClassMinimapView, runes: string(minimapSeen), Meaning: "minimap: on screen"})
	add(LegendEntry{Class: ClassMinimapView, runes: string(minimapNode), Meaning: "minimap: atom on screen"})
	add(LegendEntry{Class: ClassMinimap, runes: string(minimapOff), Meaning: "minimap: atom elsewhere"})
	return out
}

// Legend is every entry of the legend: each glyph and box style the
// drawing can use, what it means, in the order a legend lists them.
func Legend() []LegendEntry { return append([]LegendEntry(nil), legend...) }

// covers reports whether e explains a cell of class c with rune r.
func (e *LegendEntry) covers(c Class, r rune) bool {
	for _, x := range e.classes {
		if x == c {
			return e.text || strings.ContainsRune(e.runes, r)
		}
	}
	return false
}

// LegendOf is the legend of what the canvases show: the entries of the
// glyphs and box styles found in their cells, in Legend's order.
func LegendOf(canvases ...*Canvas) []LegendEntry {
	type cell struct {
		c Class
		r rune
	}
	seen := map[cell]bool{}
	for _, cv := range canvases {
		if cv == nil {
			continue
		}
		for _, x := range cv.Cells {
			seen[cell{x.Class, x.Rune}] = true
		}
	}
	var out []LegendEntry
	for _, e := range legend {
		var got []rune
		for k := range seen {
			if e.covers(k.c, k.r) {
				got = append(got, k.r)
			}
		}
		if len(got) == 0 {
			continue
		}
		if e.found {
			var b strings.Builder
			for _, r := range e.runes {
				if strings.ContainsRune(string(got), r) && !strings.ContainsRune(b.String(), r) {
					b.WriteRune(r)
				}
			}
			e.Sample = b.String()
		}
		out = append(out, e)
	}
	return out
}
