package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
)

// setupFleetTable wires the table's filter and preview to the rows; the
// rows themselves are drawn by renderFleetRows, with colour.
func (m *Model) setupFleetTable() {
	f := m.fleet
	f.table = tableView{
		empty: "no loops found yet — a .claude/aot-loop-state.md or .claude/autonomous-loop.json appears here as soon as it is created",
		match: func(r int, filter string) bool {
			row := f.rows[r]
			return containsWords(strings.Join([]string{row.Name, row.Kind, row.Status, row.Phase, row.Goal,
				row.Attention.Label(), row.Reason}, " "), filter)
		},
		preview: func(r, w int) []string { return m.fleetPreview(f.rows[r], w, 5) },
	}
}

// layoutFleet sizes the table: everything but the title and the footer.
func (m *Model) layoutFleet() {
	m.fleet.table.setSize(m.width, max0(m.height-2))
	m.fleet.input.SetWidth(max0(m.width - 20))
}

// fleetCol is a column of the fleet table at its resolved width.
type fleetCol struct {
	id    string
	title string
	width int
}

// fleetColumns picks the columns that fit width: the attention mark,
// project, status, iteration, stall and changed always (as far as they
// fit); then goal, kind and atom counts as room allows. The project takes
// what its longest name needs, up to half of the flexible room; the goal
// takes the rest.
func fleetColumns(width, longestName int) []fleetCol {
	fixed := []fleetCol{{"mark", "", 1}, {"status", "status", 12}, {"iter", "iteration", 10},
		{"stall", "stall", 10}, {"kind", "kind", 5}, {"atoms", "atoms", 12}, {"changed", "changed", 7}}
	drop := map[string]bool{}
	useGoal := true
	room := func() int {
		n := width
		for _, c := range fixed {
			if !drop[c.id] {
				n -= c.width + 1
			}
		}
		return n
	}
	// Drop the least useful columns until project (and goal) have room.
	for _, id := range []string{"atoms", "kind", "goal", "changed", "stall", "iter"} {
		need := 12
		if useGoal {
			need += 15
		}
		if room() >= need {
			break
		}
		if id == "goal" {
			useGoal = false
		} else {
			drop[id] = true
		}
	}
	flex := max0(room())
	project, goal := flex, 0
	if useGoal {
		project = min(max(12, longestName), max(12, flex/2))
		goal = max0(flex - project - 1)
	}
	var out []fleetCol
	add := func(c fleetCol) {
		if !drop[c.id] && c.width > 0 {
			out = append(out, c)
		}
	}
	add(fixed[0])
	add(fleetCol{"project", "project", project})
	add(fixed[4])
	add(fixed[1])
	if useGoal {
		add(fleetCol{"goal", "goal", goal})
	}
	add(fixed[2])
	add(fixed[3])
	add(fixed[5])
	add(fixed[6])
	return out
}

// renderFleet draws the fleet screen: a title with the summary, the table
// with a preview of the selected loop, the footer.
func (m *Model) renderFleet() string {
	f, s := m.fleet, m.styles
	var summary string
	switch {
	case f.err != "":
		summary = s.Danger.Render("scan failed")
	case !f.ready && len(f.rows) == 0:
		summary = s.Muted.Render("scanning…")
	default:
		summary = m.fleetSummaryText()
	}
	// A narrow pane keeps the summary whole and shortens the name.
	title := summary
	for _, name := range []string{"aot-tui fleet", "fleet"} {
		if len(name)+3+lipgloss.Width(summary) <= m.width {
			title = s.Title.Render(name) + s.Muted.Render(" │ ") + summary
			break
		}
	}
	if lipgloss.Width(title)+8 <= m.width { // where, if some of it fits
		title += s.Muted.Render(fmt.Sprintf(" │ %s · depth %d", termtext.Line(f.where), f.opts.Options.Depth))
	}
	lines := []string{padTo(truncate(title, m.width), m.width)}
	if f.err != "" {
		for _, l := range wrap("⚠ "+termtext.Line(f.err), max(20, m.width-4)) {
			lines = append(lines, padTo(s.Danger.Render("  "+l), m.width))
		}
	} else {
		lines = append(lines, m.renderFleetTable()...) // each exactly m.width wide
	}
	blank := strings.Repeat(" ", m.width)
	for len(lines) < m.height-1 {
		lines = append(lines, blank)
	}
	lines = append(lines[:max(1, m.height-1)], padTo(m.renderFleetFooter(), m.width))
	return strings.Join(lines[:m.height], "\n")
}

// fleetSummaryText is the summary, coloured: attention in the danger
// colour when there is any.
func (m *Model) fleetSummaryText() string {
	s, sum := m.styles, m.fleet.sum
	parts := []string{s.Bold.Render(fmt.Sprintf("%d loop%s", sum.Loops, plural(sum.Loops))),
		s.Loop(model.LoopRunning).Render(fmt.Sprintf("%d running", sum.Running))}
	if sum.NeedsAttention > 0 {
		verb := "need"
		if sum.NeedsAttention == 1 {
			verb = "needs"
		}
		parts = append(parts, s.Danger.Bold(true).Render(fmt.Sprintf("%d %s attention", sum.NeedsAttention, verb)))
	}
	if sum.Completed > 0 {
		parts = append(parts, s.Loop(model.LoopCompleted).Render(fmt.Sprintf("%d completed", sum.Completed)))
	}
	return strings.Join(parts, s.Muted.Render(" · "))
}

// renderFleetTable draws the header, the visible rows and the preview in
// exactly the table's height.
func (m *Model) renderFleetTable() []string {
	f, s := m.fleet, m.styles
	t := &f.table
	longest := f.longest
	cols := fleetColumns(m.width, longest)
	var head []string
	for _, c := range cols {
		head = append(head, padTo(c.title, c.width))
	}
	lines := []string{padTo(s.Muted.Bold(true).Render(strings.Join(head, " ")), m.width)}
	h := t.bodyHeight()
	if len(t.visible) == 0 {
		msg := t.empty
		if t.filter != "" {
			msg = fmt.Sprintf("nothing matches %q — esc clears the filter", termtext.Line(t.filter))
		} else if !f.ready {
			msg = "scanning…"
		}
		for _, l := range wrap(msg, max(20, m.width-2)) {
			lines = append(lines, padTo(s.Muted.Render(l), m.width))
		}
	}
	if layout := (lineLayout{m.width, longest, m.isDark, s.NoColor}); layout != f.linesFor || f.lines == nil {
		f.lines, f.linesFor = map[string]cachedLine{}, layout
	}
	for k := t.top; k < len(t.visible) && k < t.top+h; k++ {
		r := f.rows[t.visible[k]]
		c := cachedLine{row: r, ago: m.agoText(r), selected: k == t.sel}
		if old, ok := f.lines[r.Path]; ok && old.row == c.row && old.ago == c.ago && old.selected == c.selected {
			lines = append(lines, old.line)
			continue
		}
		c.line = m.fleetRowLine(r, cols, c.selected)
		f.lines[r.Path] = c
		lines = append(lines, c.line)
	}
	blank := strings.Repeat(" ", m.width)
	for len(lines) < 1+h {
		lines = append(lines, blank)
	}
	lines = lines[:1+h]
	if ph := t.previewHeight(); ph > 0 {
		lines = append(lines, s.Border.Render(strings.Repeat("─", m.width)))
		var pv []string
		if r, ok := f.selected(); ok {
			pv = m.fleetPreview(r, m.width, ph-1)
		}
		for k := 0; k < ph-1; k++ {
			l := blank
			if k < len(pv) {
				l = padTo(pv[k], m.width)
			}
			lines = append(lines, l)
		}
	}
	return lines
}

// cachedLine is a row's drawn line and what it was drawn from.
type cachedLine struct {
	row      fleet.Row
	ago      string
	selected bool
	line     string
}

// lineLayout is what every cached line depends on beyond its row.
type lineLayout struct {
	width, longest  int
	isDark, noColor bool
}

// agoText is the "changed" column of r.
func (m *Model) agoText(r fleet.Row) string {
	if r.Changed.IsZero() {
		return "—"
	}
	return m.agoNoted(r.Changed)
}

// fleetCell is one cell's text (sanitised) and style.
type fleetCell struct {
	text  string
	style lipgloss.Style
}

// fleetRowLine draws one row; the selected one plain on the selection
// colour (styles inside it would cut the highlight short).
func (m *Model) fleetRowLine(r fleet.Row, cols []fleetCol, selected bool) string {
	var parts []string
	for _, c := range cols {
		cell := m.fleetCell(r, c.id)
		text := padTo(truncate(cell.text, c.width), c.width)
		if !selected {
			text = cell.style.Render(text)
		}
		parts = append(parts, text)
	}
	line := strings.Join(parts, " ")
	if selected {
		return m.styles.Selected.Render(padTo(line, m.width))
	}
	return padTo(line, m.width)
}

// attentionGlyph marks a row that needs a person (not by colour alone).
func attentionGlyph(a fleet.Attention) string {
	switch a {
	case fleet.AttentionNearLimit:
		return "⚠"
	case fleet.AttentionStopped:
		return "■"
	case fleet.AttentionRedirect:
		return "‖"
	case fleet.AttentionInvalid:
		return "✗"
	}
	return " "
}

// fleetCell renders column id of row r. Every string from a file goes
// through termtext before it is drawn.
func (m *Model) fleetCell(r fleet.Row, id string) fleetCell {
	s := m.styles
	switch id {
	case "mark":
		st := s.Danger.Bold(true)
		if r.Attention == fleet.AttentionRedirect {
			st = s.Warn.Bold(true)
		}
		if !r.NeedsAttention() && r.LoopTools > 0 {
			// The loop's own tools read some values otherwise (the
			// preview says which).
			return fleetCell{"≠", s.Warn.Bold(true)}
		}
		return fleetCell{attentionGlyph(r.Attention), st}
	case "project":
		if r.NeedsAttention() {
			return fleetCell{termtext.Line(r.Name), s.Bold}
		}
		return fleetCell{termtext.Line(r.Name), s.Base}
	case "kind":
		if r.Kind == "phase-loop" {
			return fleetCell{"phase", s.Muted}
		}
		return fleetCell{"aot", s.Muted}
	case "status":
		return m.fleetStatusCell(r)
	case "goal":
		return fleetCell{termtext.Line(r.Goal), s.Base}
	case "iter", "stall", "atoms":
		if r.MaxIterations == 0 { // never read: nothing to count
			return fleetCell{"—", s.Muted}
		}
		return m.fleetCountCell(r, id)
	case "changed":
		return fleetCell{m.agoText(r), s.Muted}
	}
	return fleetCell{"", s.Base}
}

// fleetCountCell draws the iteration, stall and atoms columns.
func (m *Model) fleetCountCell(r fleet.Row, id string) fleetCell {
	s := m.styles
	switch id {
	case "iter":
		bar := meterText(r.Iteration, r.MaxIterations, 4)
		return fleetCell{fmt.Sprintf("%d/%d %s", r.Iteration, r.MaxIterations, bar), s.Base}
	case "stall":
		st := s.OK
		switch {
		case r.StallCount > 0 && r.StallCount >= r.MaxStallCount-1:
			st = s.Danger.Bold(true)
		case r.StallCount > 0:
			st = s.Warn
		}
		pips := min(max(1, r.MaxStallCount), 4)
		on := min(pips, r.StallCount*pips/max(1, r.MaxStallCount))
		if r.StallCount > 0 && on == 0 {
			on = 1
		}
		return fleetCell{strings.Repeat("▮", on) + strings.Repeat("▯", pips-on) + fmt.Sprintf(" %d/%d", r.StallCount, r.MaxStallCount), st}
	case "atoms":
		if r.Kind == "phase-loop" {
			return fleetCell{loopword.PhaseCount(r.PhasesDone, r.PhasesTotal), s.Muted}
		}
		return fleetCell{loopword.AtomCounts(r.Summary), s.Muted}
	}
	return fleetCell{"", s.Base}
}

// fleetStatusCell is the status with its glyph: a phase loop's phase, a
// loop paused for a redirect as paused, a file that does not parse as
// invalid.
func (m *Model) fleetStatusCell(r fleet.Row) fleetCell {
	s := m.styles
	st := model.LoopStatus(r.Status)
	switch {
	case r.File != fleet.FileOK:
		return fleetCell{"✗ invalid", s.Danger.Bold(true)}
	case r.RedirectRequested && (st == model.LoopRunning || st == model.LoopPending):
		return fleetCell{"‖ paused", s.Warn.Bold(true)}
	case r.Kind == "phase-loop" && st == model.LoopRunning:
		return fleetCell{"▶ " + termtext.Line(r.Phase), s.Loop(st)}
	case r.Kind == "phase-loop" && st == model.LoopCompleted:
		return fleetCell{"✓ shipped", s.Loop(st)}
	}
	return fleetCell{loopword.LoopGlyph(st) + " " + termtext.Line(loopword.StatusText(st)), s.Loop(st)}
}

// meterText is n/max as cells of █ and ░.
func meterText(n, maxN, cells int) string {
	f := meterFilled(n, maxN, cells)
	return strings.Repeat("█", f) + strings.Repeat("░", cells-f)
}

// fleetPreview describes the selected loop under the table.
func (m *Model) fleetPreview(r fleet.Row, w, n int) []string {
	s := m.styles
	line := termtext.Line
	head := s.Bold.Render(line(r.Name)) + s.Muted.Render(" · "+r.Kind+" · "+line(r.Project))
	out := []string{truncate(head, w)}
	if r.Goal != "" { // an unread file has none to show
		label := "goal "
		if r.Kind == "phase-loop" {
			label = "feature "
		}
		out = append(out, truncate(s.Bold.Render(label)+line(r.Goal), w))
	}
	var why []string // why the loop needs a person, wrapped into the room left
	style := s.Danger
	switch {
	case r.Attention == fleet.AttentionRedirect:
		why, style = []string{attentionGlyph(r.Attention) + " " + line(r.Reason)}, s.Warn
	case r.NeedsAttention():
		why = []string{attentionGlyph(r.Attention) + " " + line(r.Reason)}
	case r.Outlook != "":
		why, style = []string{"» " + line(r.Outlook)}, s.Muted
	case r.Kind == "phase-loop":
		why, style = []string{fmt.Sprintf("» phase %s, %d of %d phases done", line(r.Phase), r.PhasesDone, r.PhasesTotal)}, s.Muted
	}
	if r.Error != "" && r.Attention != fleet.AttentionInvalid {
		why = append(why, "✗ "+line(r.Error))
	}
	if n := r.LoopTools; n > 0 && (r.Error == "" || r.Attention == fleet.AttentionInvalid) {
		// What the loop's own tools will read otherwise (the first of
		// them; enter opens the loop, whose objective view lists all).
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (+%d more)", n-1)
		}
		why = append(why, "⚠ loop tools: "+line(r.LoopTool)+more)
	}
	polled := m.fleetPolled(r.Path)
	reserved := 1 // the path's line comes last, after the polled one
	if polled != "" {
		reserved++
	}
	room := max(len(why), n-len(out)-reserved)
	for i, text := range why {
		// The last one takes what the others leave; each at least a line.
		lines := wrap(text, w)
		if keep := room - (len(why) - 1 - i); len(lines) > keep {
			lines = append(lines[:max(0, keep-1)], truncate(strings.Join(lines[max(0, keep-1):], " "), w))
		}
		for _, l := range lines {
			out = append(out, style.Render(l))
		}
		room -= len(lines)
		if r.Error != "" && i == len(why)-2 {
			style = s.Danger
		}
	}
	rel := r.Path
	if p, err := filepath.Rel(r.Project, r.Path); err == nil {
		rel = p
	}
	if polled != "" {
		out = append(out, s.Warn.Render(truncate(polled, w)))
	}
	out = append(out, s.Muted.Render(truncate(line(rel)+" · enter opens it", w)))
	return out
}

// fleetPolled says why the loop at path is followed by the stat poll
// alone ("" when its .claude directory is watched).
func (m *Model) fleetPolled(path string) string {
	f := m.fleet
	if f.watch == nil {
		return ""
	}
	if rep := f.watch(); rep.IsPolled(path) {
		return "⟳ " + rep.PolledWhy()
	}
	return ""
}

// fleetWatchNote is the help screen's line on how the table watches the
// loops ("" outside the fleet, or before the watcher started).
func (m *Model) fleetWatchNote() string {
	if m.fleet == nil || m.fleet.watch == nil {
		return ""
	}
	return "watch: " + m.fleet.watch().String()
}

func (m *Model) renderFleetFooter() string {
	f, s := m.fleet, m.styles
	if f.filtering {
		return f.input.View()
	}
	right := ""
	if f.table.filter != "" {
		right = s.Accent.Render(fmt.Sprintf("filter: %s (%d of %d)", termtext.Line(f.table.filter), len(f.table.visible), len(f.rows)))
	}
	room := m.width - lipgloss.Width(right) - 1
	if st := m.drawStatus(); st != "" {
		return padTo(truncate(st, room), room) + " " + right
	}
	// The key hints change only with the width (and the filter's room).
	if f.hintsRoom != room || f.hints == "" {
		f.hints, f.hintsRoom = padTo(truncate(m.shortHelp(room), room), room), room
	}
	return f.hints + " " + right
}

// renderFleetBar is the loop bar of a loop opened from the table: the way
// back, where the loop is in the table, and the fleet's summary.
func (m *Model) renderFleetBar() string {
	f, s := m.fleet, m.styles
	l := m.cur
	pos := ""
	for k, r := range f.table.visible {
		if f.rows[r].Path == l.target.Path {
			pos = fmt.Sprintf("%d/%d ", k+1, len(f.table.visible))
		}
	}
	status, glyph := loopStatus(l)
	k := m.keys
	back := s.Muted.Render("◂ fleet ") + s.Key.Render(k.Back.Help().Key) + s.Muted.Render(" "+k.PrevLoop.Help().Key+" "+k.NextLoop.Help().Key+" │ ")
	cur := s.TabActive.Render(pos + termtext.Line(l.name) + " " + glyph + " " + termtext.Line(status))
	return truncate(back+cur+s.Muted.Render(" │ ")+m.fleetSummaryText(), m.width)
}

// fleetTitle mirrors the fleet's summary in the window title: the table's
// title is the summary; a loop's title gets it appended.
func (m *Model) fleetTitle(v *tea.View) {
	sum := m.fleet.sum.String()
	if m.fleet.shown {
		v.WindowTitle = termtext.Line("aot-tui fleet: " + sum)
		v.ProgressBar = nil
		return
	}
	v.WindowTitle += termtext.Line(" │ " + termtext.Line(m.cur.name) + " │ fleet: " + sum)
}
