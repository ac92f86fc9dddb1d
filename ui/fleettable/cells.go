package fleettable

import (
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// fleetCol is a column of the fleet table at its resolved width.
type fleetCol struct {
	id    string
	title string
	width int
}

// fleetColumns picks the columns that fit width: the attention mark,
// project, status, iteration, stall and changed always (as far as they
// fit); then goal, kind and atom counts as room allows, and — when the
// loops' sessions are read (activity) — the estimated cost and the tokens,
// the first to go when room is short (the tokens before the cost). The
// project takes what its longest name needs, up to half of the flexible
// room; the goal takes the rest.
//
// With remote hosts (hostW > 0), a host column of hostW cells comes first
// after the mark, and stays: which machine a loop is on is part of its
// name.
func fleetColumns(width, longestName int, activity bool, hostW int) []fleetCol {
	fixed := []fleetCol{{"mark", "", 1}, {"status", "status", 12}, {"iter", "iteration", 10},
		{"stall", "stall", 10}, {"kind", "kind", 5}, {"atoms", "atoms", 12}, {"changed", "changed", 7},
		{"cost", costTitle, 7}, {"tokens", "tokens", 6}, {"host", "host", hostW}}
	drop := map[string]bool{}
	if !activity {
		drop["cost"], drop["tokens"] = true, true
	}
	if hostW <= 0 {
		drop["host"] = true
	}
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
	for _, id := range []string{"tokens", "cost", "atoms", "kind", "goal", "changed", "stall", "iter"} {
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
	flex := max(0, room())
	project, goal := flex, 0
	if useGoal {
		project = min(max(12, longestName), max(12, flex/2))
		goal = max(0, flex-project-1)
	}
	var out []fleetCol
	add := func(c fleetCol) {
		if !drop[c.id] && c.width > 0 {
			out = append(out, c)
		}
	}
	add(fixed[0])
	add(fixed[9])
	add(fleetCol{"project", "project", project})
	add(fixed[4])
	add(fixed[1])
	if useGoal {
		add(fleetCol{"goal", "goal", goal})
	}
	add(fixed[2])
	add(fixed[3])
	add(fixed[5])
	add(fixed[7])
	add(fixed[8])
	add(fixed[6])
	return out
}

// costTitle heads the cost column: "≈" says it is an estimate (the help
// says from which prices).
const costTitle = "≈cost"

// fleetCell is one cell's text (sanitised) and style.
type fleetCell struct {
	text  string
	style lipgloss.Style
}

// rowHead draws one row's cells but its last "changed" one (cols without
// it), joined: what does not change with the time alone. The selected
// row's are plain, for the selection colour rowLine lays over the line
// (styles inside it would cut the highlight short).
func rowHead(s kit.Styles, r fleet.Row, cols []fleetCol, selected bool) string {
	parts := make([]string, 0, len(cols))
	for _, c := range cols {
		cell := rowCell(s, r, c.id)
		text := cells.Pad(cells.Cut(cell.text, c.width), c.width)
		if !selected {
			text = cell.style.Render(text)
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " ")
}

// rowLine is a row's line of width cells: its head (rowHead, headWidth
// cells) and its "changed" text in a column of agoWidth cells (0: no
// such column), drawn by agoCell. Only the text is measured: the head's
// width is known.
func rowLine(s kit.Styles, head string, headWidth int, ago string, agoWidth, width int, selected bool, agoCell func(string) string) string {
	line, w := head, headWidth
	if agoWidth > 0 {
		text := cells.Pad(cells.Cut(ago, agoWidth), agoWidth)
		if !selected {
			text = agoCell(text)
		}
		if w > 0 {
			line += " "
			w++
		}
		line += text
		w += agoWidth
	}
	if w < width {
		line += strings.Repeat(" ", width-w)
	}
	if selected {
		return s.Selected.Render(cells.Pad(line, width))
	}
	return line
}

// attentionGlyph marks a row that needs a person (not by colour alone).
func attentionGlyph(a fleet.Attention) string {
	switch a {
	case fleet.AttentionNeedsYou:
		return "?"
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

// rowCell renders column id of row r. Every string from a file goes
// through termtext before it is drawn.
func rowCell(s kit.Styles, r fleet.Row, id string) fleetCell {
	switch id {
	case "host":
		if r.Host == "" {
			return fleetCell{"local", s.Muted}
		}
		text, st := termtext.Line(r.Host), s.Base
		switch r.HostState {
		case "", remote.Live.String():
		case remote.Connecting.String():
			text, st = text+" …", s.Muted
		case remote.Stale.String():
			text, st = text+" ⌛", s.Warn
		default: // lost, version mismatch: the values are as of then
			text, st = text+" ✗", s.Danger
		}
		return fleetCell{text, st}
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
		return statusCell(s, r)
	case "goal":
		if r.Attention == fleet.AttentionNeedsYou {
			// What the session asks comes before the goal (the status
			// cell says "needs you"; the preview keeps the goal).
			return fleetCell{termtext.Line(strings.TrimPrefix(r.Reason, "needs you: ")), s.Danger}
		}
		return fleetCell{termtext.Line(r.Goal), s.Base}
	case "cost", "tokens":
		return activityCell(s, r, id)
	case "iter", "stall", "atoms":
		if r.MaxIterations == 0 { // never read: nothing to count
			return fleetCell{"—", s.Muted}
		}
		return countCell(s, r, id)
	}
	return fleetCell{"", s.Base}
}

// activityCell draws the cost and tokens columns: "—" while the loop's
// sessions are not read (a phase loop, or not yet) or none was found.
func activityCell(s kit.Styles, r fleet.Row, id string) fleetCell {
	a := r.Activity
	if a == nil || (!a.Found && a.Responses == 0) {
		return fleetCell{"—", s.Muted}
	}
	if id == "tokens" {
		return fleetCell{textfmt.Count(a.Tokens.Total), s.Muted}
	}
	return fleetCell{textfmt.USD(a.Cost.USD), s.Base}
}

// countCell draws the iteration, stall and atoms columns.
func countCell(s kit.Styles, r fleet.Row, id string) fleetCell {
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

// statusCell is the status with its glyph: a phase loop's phase, a
// loop paused for a redirect as paused, a file that does not parse as
// invalid.
func statusCell(s kit.Styles, r fleet.Row) fleetCell {
	st := model.LoopStatus(r.Status)
	switch {
	case r.Attention == fleet.AttentionNeedsYou:
		return fleetCell{"? needs you", s.Danger.Bold(true)}
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

// activityLine is the preview's word on the loop's sessions: what runs
// now and the estimated cost with the tokens ("" while they are not
// read). Its strings are sanitised by agent.
func activityLine(r fleet.Row) string {
	a := r.Activity
	if a == nil {
		return ""
	}
	if !a.Found && a.Responses == 0 {
		return "no Claude Code transcripts of this project found"
	}
	text := fmt.Sprintf("%s estimated · %s tokens · %s", textfmt.USD(a.Cost.USD), textfmt.Count(a.Tokens.Total), textfmt.Plural(a.Sessions, "session"))
	if n := a.Now; n != nil {
		who := n.Agent
		if n.Atom != "" && !strings.Contains(who, n.Atom) {
			who = n.Atom + " " + who
		}
		line := n.Tool
		if n.Summary != "" {
			line += " " + n.Summary
		}
		text = "◐ " + who + ": " + line + " · " + text
	}
	return termtext.Line(text)
}

// meterText is n/max as cells of █ and ░.
func meterText(n, maxN, width int) string {
	f := cells.MeterFilled(n, maxN, width)
	return strings.Repeat("█", f) + strings.Repeat("░", width-f)
}

// preview describes the selected loop under the table in w cells and
// about n lines; polled says why the loop is left to the stat poll ("":
// it is not).
func preview(s kit.Styles, r fleet.Row, polled string, w, n int) []string {
	line := termtext.Line
	where := line(r.Project)
	if r.Host != "" {
		where = "on " + line(r.Host) + ": " + where
	}
	head := s.Bold.Render(line(r.Name)) + s.Muted.Render(" · "+r.Kind+" · "+where)
	out := []string{cells.Cut(head, w)}
	if r.Goal != "" { // an unread file has none to show
		label := "goal "
		if r.Kind == "phase-loop" {
			label = "feature "
		}
		out = append(out, cells.Cut(s.Bold.Render(label)+line(r.Goal), w))
	}
	var why []string // why the loop needs a person, wrapped into the room left
	style := s.Danger
	switch {
	case r.Attention == fleet.AttentionNeedsYou:
		why = []string{attentionGlyph(r.Attention) + " " + line(r.Reason)}
		if a, reason := r.UnderWait(); a != fleet.AttentionNone {
			why = append(why, attentionGlyph(a)+" "+line(reason))
		}
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
	reserved := 1 // the path's line comes last, after the polled one
	if polled != "" {
		reserved++
	}
	if act := activityLine(r); act != "" && n-len(out)-reserved-len(why) >= 1 {
		out = append(out, s.Muted.Render(cells.Cut(act, w)))
	}
	room := max(len(why), n-len(out)-reserved)
	for i, text := range why {
		// The last one takes what the others leave; each at least a line.
		lines := cells.Wrap(text, w)
		if keep := room - (len(why) - 1 - i); len(lines) > keep {
			lines = append(lines[:max(0, keep-1)], cells.Cut(strings.Join(lines[max(0, keep-1):], " "), w))
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
		out = append(out, s.Warn.Render(cells.Cut(polled, w)))
	}
	out = append(out, s.Muted.Render(cells.Cut(line(rel)+" · enter opens it", w)))
	return out
}
