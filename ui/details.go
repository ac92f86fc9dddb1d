package ui

import (
	"fmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"sort"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// wrap wraps sanitised text to width cells, keeping line breaks.
func wrap(text string, width int) []string { return cells.Wrap(text, width) }

// atomRef renders "● A1 description" for lists of related atoms, after
// lead and within width cells: a description longer than the line wraps
// at words, its further lines under its first word.
func atomRef(st *model.State, f *model.Facts, id string, s Styles, lead string, width int) []string {
	i, ok := f.Index[id]
	if !ok {
		return []string{lead + s.Danger.Render("? "+termtext.Line(id)) + s.Muted.Render(" (not an atom)")}
	}
	a := st.Atoms[i]
	head := lead + s.Atom(a.Status).Render(loopword.AtomGlyph(a.Status)) + " " + s.Bold.Render(termtext.Line(a.ID)) + " "
	return hanging(head, a.Description, width)
}

// hanging wraps text at words to width cells after head, its further
// lines indented as far as head reaches (a hanging indent).
func hanging(head, text string, width int) []string {
	hw := ansi.StringWidth(head)
	lines := wrap(text, max(10, width-hw))
	out := make([]string, len(lines))
	for k, l := range lines {
		if k == 0 {
			out[k] = head + l
		} else {
			out[k] = strings.Repeat(" ", hw) + l
		}
	}
	return out
}

// renderDetails lays out everything known about one atom, what validate
// reports about it (r) first.
func renderDetails(st *model.State, f *model.Facts, r *model.Report, id string, width int, s Styles) []string {
	i, ok := f.Index[id]
	if !ok {
		return []string{s.Muted.Render("no atom selected")}
	}
	a := st.Atoms[i]
	w := max(width, 10)
	var out []string
	add := func(lines ...string) { out = append(out, lines...) }
	section := func(title string) {
		add("", s.Title.Render(title))
	}
	status := s.Atom(a.Status).Render(loopword.AtomGlyph(a.Status) + " " + termtext.Line(string(a.Status)))
	head := s.Bold.Render(termtext.Line(a.ID)) + "  " + status
	for _, e := range f.Executable {
		if e == a.ID {
			head += "  " + s.Executable.Render("▶ executable")
		}
	}
	add(ansi.Truncate(head, w, "…"))
	for _, l := range wrap(a.Description, w) {
		add(l)
	}
	add(atomProblems(r, a.ID, w, s)...)
	if len(a.DependsOn) > 0 {
		section(fmt.Sprintf("depends on (%d)", len(a.DependsOn)))
		for _, d := range a.DependsOn {
			add(atomRef(st, f, d, s, "  ", w)...)
		}
	}
	if deps := f.Dependents()[a.ID]; len(deps) > 0 {
		section(fmt.Sprintf("dependents (%d)", len(deps)))
		for _, d := range deps {
			add(atomRef(st, f, d, s, "  ", w)...)
		}
	}
	if gname := f.ORGroupOf[a.ID]; gname != "" {
		if g, ok := st.ORGroup(gname); ok {
			role := "a choice"
			switch {
			case g.Selected == a.ID:
				role = "the selected choice ★"
			case contains(g.Failed, a.ID):
				role = "a failed choice ✗"
			}
			section("OR group " + termtext.Line(g.Name))
			add("  " + role)
			for _, c := range g.Choices {
				mark := "  "
				switch {
				case c == g.Selected:
					mark = "★ "
				case contains(g.Failed, c):
					mark = "✗ "
				}
				add(atomRef(st, f, c, s, "  "+mark, w)...)
			}
			for _, x := range g.Extra {
				add("  " + s.Muted.Render(termtext.Line(fmt.Sprintf("%s: %v", x.Key, showValue(x.Value)))))
			}
		}
	}
	if p, ok := f.ParentOf[a.ID]; ok {
		section("part of " + termtext.Line(p))
		add(atomRef(st, f, p, s, "  ", w)...)
		for _, d := range st.Decompositions {
			if d.Parent == p && d.Reason != "" {
				for _, l := range wrap("reason: "+d.Reason, w-2) {
					add("  " + s.Muted.Render(l))
				}
			}
		}
	}
	if kids := f.ChildrenOf[a.ID]; len(kids) > 0 {
		section(fmt.Sprintf("decomposed into (%d)", len(kids)))
		for _, c := range kids {
			add(atomRef(st, f, c, s, "  ", w)...)
		}
	}
	if b, ok := st.Binding(a.ID); ok {
		section("binding")
		for _, l := range wrap(b.Summary, w-2) {
			add("  " + l)
		}
		if len(b.Artifacts) > 0 {
			add("  " + s.Muted.Render("artifacts"))
			for _, art := range b.Artifacts {
				add(hanging("  • ", termtext.Line(art), w)...)
			}
		}
	}
	var trail []string
	for _, t := range st.Trail {
		if t.Selected == a.ID || strings.Contains(t.Reason, a.ID) {
			line := fmt.Sprintf("%s  %s", shortTime(t.Timestamp), trailWhat(t))
			trail = append(trail, wrap(line, w-2)...)
		}
	}
	if len(trail) > 0 {
		section("trail")
		for _, l := range trail {
			add("  " + l)
		}
	}
	if len(a.Extra) > 0 {
		section("other fields")
		keys := make([]string, 0, len(a.Extra))
		for _, x := range a.Extra {
			keys = append(keys, termtext.Line(fmt.Sprintf("%s: %v", x.Key, showValue(x.Value))))
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(hanging("  ", k, w)...)
		}
	}
	add("", s.Muted.Render(fmt.Sprintf("line %d of the state file", a.Line)))
	for k := range out {
		out[k] = ansi.Truncate(out[k], w, "…")
	}
	return out
}

// trailWhat describes a trail entry in one line.
func trailWhat(t model.TrailEntry) string {
	var parts []string
	if t.Type != "" {
		parts = append(parts, "["+t.Type+"]")
	}
	if t.ORGroup != "" || t.Selected != "" {
		parts = append(parts, t.ORGroup+" → "+t.Selected)
	}
	if t.Reason != "" {
		parts = append(parts, t.Reason)
	}
	return strings.Join(parts, " ")
}

// showValue renders an unknown field's value briefly.
func showValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case model.Extra:
		var parts []string
		for _, f := range x {
			parts = append(parts, f.Key+": "+showValue(f.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, showValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// scrollText is a scrollable block of pre-rendered lines.
type scrollText struct {
	lines         []string
	top           int
	width, height int
	// all is the whole text; with a filter, lines holds the lines of it
	// that contain its every word (containsWords, ignoring colours), and
	// none is set when there is none (lines then says so).
	all    []string
	filter string
	none   bool
	// mark is 1 + the line n or N stepped to (0: none), drawn in
	// markStyle (match.go).
	mark      int
	markStyle lipgloss.Style
}

func (t *scrollText) set(lines []string) {
	t.all = lines
	t.refilter()
}

// setFilter shows only the lines holding every word of f (all for "").
func (t *scrollText) setFilter(f string) {
	t.filter = f
	t.top, t.mark = 0, 0
	t.refilter()
}

func (t *scrollText) refilter() {
	t.lines, t.none = t.all, false
	if t.filter != "" {
		t.lines = nil
		for _, l := range t.all {
			if containsWords(ansi.Strip(l), t.filter) {
				t.lines = append(t.lines, l)
			}
		}
		if len(t.lines) == 0 {
			t.lines, t.none = []string{"  no line contains " + strconv.Quote(t.filter) + " (esc clears the filter)"}, true
		}
	}
	if t.mark > t.matches() {
		t.mark = 0
	}
	t.clamp()
}

func (t *scrollText) clamp() { t.top = min(max0(t.top), max0(len(t.lines)-t.height)) }

func (t *scrollText) scroll(d int) { t.top += d; t.clamp() }

func (t *scrollText) view() string {
	k := t.mark - 1 - t.top
	if t.mark == 0 || k < 0 || k >= t.height {
		return cells.Window(t.lines, t.top, t.width, t.height)
	}
	sight := append([]string(nil), t.lines[t.top:min(len(t.lines), t.top+t.height)]...)
	sight[k] = t.markStyle.Render(cells.Pad(ansi.Strip(sight[k]), t.width))
	return cells.Window(sight, 0, t.width, t.height)
}

// scrollHint says where in a long text the view is.
func (t *scrollText) scrollHint() string { return cells.WindowHint(len(t.lines), t.top, t.height) }

// renderFolded describes a node of the drawing that stands for several
// atoms: a summary of resolved history (z) or a collapsed decomposition.
func renderFolded(st *model.State, f *model.Facts, id string, folded []string, summary bool, width int, s Styles) []string {
	w := max(width, 10)
	title := fmt.Sprintf("%s  %d atoms folded into this node", termtext.Line(id), len(folded))
	hint := "space expands a collapsed decomposition"
	if summary {
		title = fmt.Sprintf("%d resolved atoms of the loop's history", len(folded))
		hint = "z shows them again"
	}
	out := []string{s.Bold.Render(truncate(title, w)), s.Muted.Render(truncate(hint, w)), ""}
	for _, a := range folded {
		out = append(out, atomRef(st, f, a, s, "  ", w)...)
	}
	return out
}
