package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// renderPhaseHeader is the phase loop's always-visible header (two lines).
func renderPhaseHeader(p *model.PhaseLoop, changed, now time.Time, width int, s Styles) []string {
	idx := model.PhaseIndex(p.Phase)
	badge := s.Loop(model.LoopRunning).Render("▶ " + termtext.Line(p.Phase))
	if p.Shipped() {
		badge = s.Loop(model.LoopCompleted).Render("✓ shipped")
	}
	mpi, mi, mf := p.EffectiveMaxPhaseIterations(), p.EffectiveMaxIterations(), p.EffectiveMaxFixCycles()
	phaseSt := s.Base
	if p.PhaseIteration >= mpi-1 {
		phaseSt = s.Warn
	}
	if p.PhaseIteration >= mpi {
		phaseSt = s.Danger
	}
	fixSt := s.Base
	if p.FixReviewCycles >= mf {
		fixSt = s.Danger
	}
	ch := ""
	if !changed.IsZero() {
		ch = s.Muted.Render("changed " + textfmt.Ago(now.Sub(changed)) + " ago")
	}
	line1 := fitSegments([]segment{
		{full: badge + s.Muted.Render(fmt.Sprintf(" phase %d/%d", idx+1, len(model.Phases))), compact: badge, priority: 0},
		{full: phaseSt.Render(fmt.Sprintf("phase iteration %d/%d ", p.PhaseIteration, mpi)) + meter(p.PhaseIteration, mpi, 8, s.BarFull, s.BarEmpty),
			compact: phaseSt.Render(fmt.Sprintf("ph %d/%d", p.PhaseIteration, mpi)), priority: 1},
		{full: fmt.Sprintf("global %d/%d ", p.GlobalIteration, mi) + meter(p.GlobalIteration, mi, 8, s.BarFull, s.BarEmpty),
			compact: fmt.Sprintf("gl %d/%d", p.GlobalIteration, mi), priority: 1},
		{full: fixSt.Render(fmt.Sprintf("fix cycles %d/%d", p.FixReviewCycles, mf)), compact: fixSt.Render(fmt.Sprintf("fix %d/%d", p.FixReviewCycles, mf)), priority: 2},
		{full: ch, priority: 3},
	}, s.Muted.Render(" │ "), width)
	line2 := s.Bold.Render("feature ") + termtext.Line(p.Feature)
	return []string{ansi.Truncate(line1, width, "…"), ansi.Truncate(line2, width, "…"), s.Muted.Render(ansi.Truncate("» phase loop (read-only: the seed defines no redirect for it)", width, "…"))}
}

// renderPhase lays out the phase loop body: the pipeline, artifacts,
// receipts, checkpoints with failed approaches, and errors (latest first).
func renderPhase(p *model.PhaseLoop, width int, s Styles) []string {
	w := max(width, 20)
	var out []string
	done := map[string]bool{}
	for _, ph := range p.PhasesCompleted {
		done[ph] = true
	}
	out = append(out, s.Title.Render("pipeline"))
	var cells []string
	for i, ph := range model.Phases {
		st := s.Muted
		switch {
		case done[ph]:
			st = s.OK
		case ph == p.Phase:
			st = s.Selected
		}
		c := st.Render(loopword.PhaseGlyph(done[ph], ph == p.Phase) + " " + ph)
		if i < len(model.Phases)-1 {
			c += s.Muted.Render(" →")
		}
		cells = append(cells, c)
	}
	// Flow the pipeline over as many lines as the width needs.
	line := " "
	for _, c := range cells {
		if ansi.StringWidth(line)+1+ansi.StringWidth(c) > w && strings.TrimSpace(line) != "" {
			out = append(out, line)
			line = " "
		}
		line += " " + c
	}
	out = append(out, line, "")

	a := p.Artifacts
	out = append(out, s.Title.Render("artifacts"))
	art := func(name string, v *string) {
		val := s.Muted.Render("—")
		if v != nil && *v != "" {
			val = termtext.Line(*v)
		}
		out = append(out, ansi.Truncate(fmt.Sprintf("  %-22s %s", name, val), w, "…"))
	}
	art("brainstorm_file", a.BrainstormFile)
	art("plan_file", a.PlanFile)
	art("acceptance_tests_file", a.AcceptanceTestsFile)
	art("progress_file", a.ProgressFile)
	art("branch", a.Branch)
	art("pr_url", a.PRURL)
	out = append(out, "")

	out = append(out, s.Title.Render(fmt.Sprintf("receipts (%d)", len(p.Receipts))))
	for _, r := range p.Receipts {
		out = append(out, ansi.Truncate(fmt.Sprintf("  %s %-10s %s %s", shortTime(r.Timestamp), termtext.Line(r.Phase),
			s.Muted.Render(termtext.Line(r.GitSHA)), termtext.Line(r.Artifact)), w, "…"))
	}
	out = append(out, "")

	out = append(out, s.Title.Render(fmt.Sprintf("checkpoints (%d)", len(p.Checkpoints))))
	for _, c := range p.Checkpoints {
		out = append(out, ansi.Truncate(fmt.Sprintf("  %s %s", shortTime(c.Timestamp), s.Bold.Render(termtext.Line(c.Phase))), w, "…"))
		for _, l := range wrap(c.Summary, w-4) {
			out = append(out, "    "+l)
		}
		for _, fa := range c.FailedApproaches {
			for k, l := range wrap(showValue(fa), w-6) {
				if k == 0 {
					out = append(out, "    "+s.Danger.Render("✗ ")+l)
				} else {
					out = append(out, "      "+l)
				}
			}
		}
	}
	out = append(out, "")

	out = append(out, s.Title.Render(fmt.Sprintf("errors (%d, latest first)", len(p.Errors))))
	if len(p.Errors) == 0 {
		out = append(out, "  "+s.Muted.Render("none"))
	}
	for i := len(p.Errors) - 1; i >= 0; i-- {
		e := p.Errors[i]
		out = append(out, ansi.Truncate(fmt.Sprintf("  %s %s iteration %d", shortTime(e.Timestamp), termtext.Line(e.Phase), e.Iteration), w, "…"))
		for _, l := range wrap(e.Message, w-4) {
			out = append(out, "    "+s.Danger.Render(l))
		}
	}
	if p.StartedAt != "" || p.LastUpdated != "" {
		out = append(out, "", s.Muted.Render(fmt.Sprintf("started %s · last updated %s", shortTime(p.StartedAt), shortTime(p.LastUpdated))))
	}
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out
}
