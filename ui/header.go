package ui

import (
	"fmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// paceLevel grades how long the file has been quiet against the loop's own
// recent pace.
type paceLevel int

const (
	paceNormal paceLevel = iota
	paceSlow             // amber: quieter than usual
	paceStuck            // red: far quieter than usual
)

// headerData is what the header shows; the root fills it.
type headerData struct {
	State   *model.State
	Facts   *model.Facts
	Outlook model.Outlook
	// Problems is validate's report on State, loop-tools warnings
	// included: the header counts its errors and warnings (nil: none).
	Problems *model.Report
	// Changed is when the file's content last changed (zero: unknown).
	Changed time.Time
	Now     time.Time
	Pace    paceLevel
	// Resume says how a stopped loop resumes, after the outlook ("" for
	// one that is not stopped).
	Resume string
	// Pause says who holds the loop paused, after the outlook ("" for
	// nothing to add).
	Pause string
	// Doing is what the loop's sessions do now, NeedsYou that they wait
	// for a person ("": nothing known; ui/activity.go).
	Doing, NeedsYou string
}

// segment is a piece of a header line with a full and a compact form.
type segment struct {
	full, compact string
	// priority: lower numbers are dropped last.
	priority int
}

// fitSegments joins segments with sep into at most width cells: it first
// switches the least important segments to their compact form one by one,
// then drops them, least important first.
func fitSegments(segs []segment, sep string, width int) string {
	compact := make([]bool, len(segs))
	drop := make([]bool, len(segs))
	join := func() string {
		var parts []string
		for i, s := range segs {
			if drop[i] {
				continue
			}
			p := s.full
			if compact[i] && s.compact != "" {
				p = s.compact
			}
			if p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, sep)
	}
	// Least important first; stable for equal priorities (rightmost first).
	order := make([]int, len(segs))
	for i := range order {
		order[i] = len(segs) - 1 - i
	}
	sort.SliceStable(order, func(a, b int) bool { return segs[order[a]].priority > segs[order[b]].priority })
	if out := join(); lipgloss.Width(out) <= width {
		return out
	}
	for _, i := range order {
		if segs[i].compact == "" {
			continue
		}
		compact[i] = true
		if out := join(); lipgloss.Width(out) <= width {
			return out
		}
	}
	for _, i := range order {
		if segs[i].priority == 0 {
			continue
		}
		drop[i] = true
		if out := join(); lipgloss.Width(out) <= width {
			return out
		}
	}
	return ansi.Truncate(join(), width, "…")
}

// meter draws n/max as a bar of cells.
func meter(n, max, cells int, full, empty lipgloss.Style) string {
	f := meterFilled(n, max, cells)
	return full.Render(strings.Repeat("█", f)) + empty.Render(strings.Repeat("░", cells-f))
}

// meterFilled is how many of a meter's cells n/maxN fills: at least one
// when n > 0, at most cells.
func meterFilled(n, maxN, width int) int { return cells.MeterFilled(n, maxN, width) }

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// stallMeter draws stall_count as pips that turn warning, then danger as
// the count nears the limit.
func stallMeter(stall, max int, s Styles) (string, lipgloss.Style) {
	st := s.OK
	switch {
	case stall >= max-1 && stall > 0:
		st = s.Danger.Bold(true)
	case stall > 0:
		st = s.Warn
	}
	pips := min(max, 10)
	filled := stall
	if max > pips {
		filled = stall * pips / max
	}
	filled = min(filled, pips)
	return st.Render(strings.Repeat("▮", filled)) + s.Muted.Render(strings.Repeat("▯", pips-filled)), st
}

// renderHeader draws the two header lines and the outlook line, each at
// most width cells.
func renderHeader(h headerData, width int, s Styles) []string {
	st, f := h.State, h.Facts
	c := st.Control
	cons := st.Objective.Constraints
	maxIter, maxStall := cons.EffectiveMaxIterations(), cons.EffectiveMaxStallCount()

	badge := s.Loop(c.Status).Render(loopword.LoopGlyph(c.Status) + " " + termtext.Line(loopword.StatusText(c.Status)))
	iterFull := fmt.Sprintf("iteration %d/%d ", c.Iteration, maxIter) + meter(c.Iteration, maxIter, 10, s.BarFull, s.BarEmpty)
	iterCompact := fmt.Sprintf("it %d/%d", c.Iteration, maxIter)
	pips, stallStyle := stallMeter(c.StallCount, maxStall, s)
	stallFull := stallStyle.Render(fmt.Sprintf("stall %d/%d", c.StallCount, maxStall)) + " " + pips
	stallCompact := stallStyle.Render(fmt.Sprintf("stall %d/%d", c.StallCount, maxStall))
	pf, pc := loopword.ProgressLabel(f.Progress)
	progStyle := s.Base
	switch f.Progress {
	case model.ProgressShrinking:
		progStyle = s.OK
	case model.ProgressStalled, model.ProgressExpanding:
		progStyle = s.Warn
	}
	glyph := func(st model.AtomStatus) string { return s.Atom(st).Render(loopword.AtomGlyph(st)) }
	counts := fmt.Sprintf("%s %d pending  %s %d in progress  %s %d resolved",
		glyph(model.StatusPending), f.Counts.Pending,
		glyph(model.StatusInProgress), f.Counts.InProgress,
		glyph(model.StatusResolved), f.Counts.Resolved)
	countsCompact := fmt.Sprintf("%s%d %s%d %s%d",
		glyph(model.StatusPending), f.Counts.Pending,
		glyph(model.StatusInProgress), f.Counts.InProgress,
		glyph(model.StatusResolved), f.Counts.Resolved)
	changed := ""
	if !h.Changed.IsZero() {
		ch := "changed " + textfmt.Ago(h.Now.Sub(h.Changed)) + " ago"
		switch h.Pace {
		case paceSlow:
			changed = s.Warn.Render(ch)
		case paceStuck:
			changed = s.Danger.Bold(true).Render(ch)
		default:
			changed = s.Muted.Render(ch)
		}
	}
	line1 := fitSegments([]segment{
		{full: badge, priority: 0},
		{full: iterFull, compact: iterCompact, priority: 1},
		{full: stallFull, compact: stallCompact, priority: 1},
		{full: progStyle.Render(pf), compact: progStyle.Render(pc), priority: 3},
		{full: counts, compact: countsCompact, priority: 2},
		{full: changed, compact: strings.Replace(changed, "changed ", "", 1), priority: 4},
	}, s.Muted.Render(" │ "), width)

	// Line 2: flags, goal, next batch.
	var flags []string
	if c.RedirectRequested {
		flags = append(flags, s.Flag.Render(" REDIRECT "))
	}
	if c.StopRequested {
		flags = append(flags, s.Flag.Render(" STOP "))
	}
	if badge := problemBadge(h.Problems, width, s); badge != "" {
		// What validate finds, the loop-tools warnings among them: !
		// lists them.
		flags = append(flags, badge)
	}
	left := strings.Join(flags, " ")
	if left != "" {
		left += " "
	}
	next := ""
	switch {
	case c.Status == model.LoopStopped || c.Status == model.LoopCompleted: // an ended loop runs nothing next
	case h.Doing != "":
		next = s.Atom(model.StatusInProgress).Render(h.Doing)
	case len(f.NextBatch) > 0:
		next = s.Executable.Render("next ▶ " + termtext.Line(strings.Join(f.NextBatch, " ")))
	case f.Counts.InProgress > 0:
		var ids []string
		for _, a := range st.Atoms {
			if a.Status == model.StatusInProgress && len(ids) < 4 {
				ids = append(ids, a.ID)
			}
		}
		next = s.Atom(model.StatusInProgress).Render(loopword.AtomGlyph(model.StatusInProgress) + " working on " + termtext.Line(strings.Join(ids, " ")))
	case c.Status == model.LoopRunning && f.Counts.Unresolved() > 0:
		next = s.Warn.Render("nothing executable")
	}
	var goal string
	if c.Status == model.LoopStopped && c.StopReason != "" {
		goal = s.Danger.Render("stopped: " + termtext.Line(c.StopReason))
	} else {
		goal = s.Bold.Render("goal ") + termtext.Line(st.Objective.Goal)
	}
	room := width - lipgloss.Width(left) - lipgloss.Width(next) - 2
	if room < 12 && next != "" {
		next = ""
		room = width - lipgloss.Width(left)
	}
	goal = ansi.Truncate(goal, max0(room), "…")
	line2 := left + goal
	if next != "" {
		pad := width - lipgloss.Width(line2) - lipgloss.Width(next)
		line2 += strings.Repeat(" ", max0(pad)) + next
	}

	o := h.Outlook
	ost := s.Muted
	switch {
	case o.Decision == model.DecisionStop:
		ost = s.Danger
	case o.Warning:
		ost = s.Warn
	case o.Decision == model.DecisionDone:
		ost = s.OK
	case o.Decision == model.DecisionPause:
		ost = s.Warn
	}
	text := "» " + o.Text
	if h.NeedsYou != "" {
		text = "» " + h.NeedsYou + " — " + o.Text
		ost = s.Warn
	}
	if h.Pause != "" && o.Decision == model.DecisionPause {
		text += " " + h.Pause
	}
	if h.Resume != "" {
		text += " — " + h.Resume
	}
	// The outlook carries ids and the stop reason from the file, the pause
	// a lease file's facts: both are sanitised.
	line3 := ansi.Truncate(ost.Render(termtext.Line(text)), width, "…")
	return []string{ansi.Truncate(line1, width, "…"), ansi.Truncate(line2, width, "…"), line3}
}

// windowTitle mirrors status and progress for a background tab. Like
// every string put inside an OSC string (the window title, the OSC 9 and
// 777 notifications), it goes through termtext.Line: every control
// character, which could end or extend the OSC (BEL, ESC \, the C1 ST),
// and every bidi control, which would reorder it, is shown escaped.
func windowTitle(st *model.State) string {
	c := st.Control
	goal := termtext.Line(st.Objective.Goal)
	goal = ansi.Truncate(goal, 40, "…")
	return termtext.Line(fmt.Sprintf("%s %s %d/%d — %s", loopword.LoopGlyph(c.Status), c.Status, c.Iteration,
		st.Objective.Constraints.EffectiveMaxIterations(), goal))
}
