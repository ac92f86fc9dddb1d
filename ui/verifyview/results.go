package verifyview

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/verify"
	"github.com/charmbracelet/x/ansi"
)

// OutcomeMark is a verdict's glyph: ✓ pass, ✗ fail, ? not checkable here,
// · not run.
func OutcomeMark(o verify.Outcome, s kit.Styles) string {
	switch o {
	case verify.Pass:
		return s.OK.Render("✓")
	case verify.Fail:
		return s.Danger.Render("✗")
	case verify.NotCheckable:
		return s.Warn.Render("?")
	}
	return s.Muted.Render("·")
}

// resultNote says how a check came out, briefly (unsanitised: the caller
// sanitises).
func resultNote(r *verify.Result) string {
	switch {
	case r.Outcome == verify.NotCheckable:
		return "not checkable here — judged by a person"
	case r.Outcome == verify.NotRun:
		return "not run"
	case r.TimedOut:
		return r.Reason
	case r.Type == model.CheckCommand || r.Type == model.CheckNotCommand:
		if !r.Ran {
			return nonEmpty(r.Reason, r.Evidence)
		}
		note := fmt.Sprintf("exit %d · %s", r.ExitCode, roundDuration(r.Duration))
		if r.NotFound {
			note += " — " + r.Reason
		}
		return note
	case r.Type == model.CheckFile || r.Type == model.CheckNotFile:
		return nonEmpty(r.Reason, r.Evidence)
	}
	return r.Evidence
}

func nonEmpty(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// Results are what the objective view shows of a loop's last run.
type Results struct {
	run *Run
	// byPos are the results by position ("2.1").
	byPos map[string]*verify.Result
	// changed is set when the base_case is no longer the one verified:
	// only the items still the same are marked.
	changed bool
}

// Results is what the objective view shows of the last run (v nil: none)
// against st, the loop's state now (nil: no run, or no state).
func (v *Verifier) Results(st *model.State) *Results {
	if v == nil || v.run == nil || st == nil {
		return nil
	}
	run := v.run
	r := &Results{run: run, changed: verify.ChecksKey(st.Objective.BaseCase) != verify.ChecksKey(run.bc)}
	if run.report != nil {
		r.byPos = map[string]*verify.Result{}
		var walk func(items []*verify.Result)
		walk = func(items []*verify.Result) {
			for _, it := range items {
				r.byPos[it.Pos()] = it
				walk(it.Children)
			}
		}
		walk(run.report.Items)
	}
	return r
}

// Result is the verdict of the item it at pos, when the run had that
// same item there.
func (v *Results) Result(pos string, it model.ChecklistItem) *verify.Result {
	if v == nil || v.byPos == nil {
		return nil
	}
	r := v.byPos[pos]
	if r == nil || r.Item != nonEmptyName(it.Item) {
		return nil
	}
	switch r.Kind {
	case "group":
		if !it.IsGroup {
			return nil
		}
	case "any_of":
		if !it.IsAnyOf || it.IsGroup {
			return nil
		}
	case "check":
		if it.IsGroup || it.IsAnyOf || it.Check == nil || it.Check.Type != r.Type || it.Check.Value != r.Value {
			return nil
		}
	}
	return r
}

// LegacyResult is the legacy base_case's verdict, when it is the same check.
func (v *Results) LegacyResult(c *model.Check) *verify.Result {
	if v == nil || v.byPos == nil || !v.run.report.Legacy || len(v.run.report.Items) != 1 {
		return nil
	}
	if r := v.run.report.Items[0]; r.Type == c.Type && r.Value == c.Value {
		return r
	}
	return nil
}

// nonEmptyName is an item's name as verify reports it.
func nonEmptyName(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

// Header is the line over the tree: the run's verdict, or its progress.
func (v *Results) Header(w int, s kit.Styles) []string {
	run := v.run
	if run.report == nil {
		return []string{"  " + s.Warn.Render(fmt.Sprintf("⋯ verifying now: %d of %d checks done", len(run.done), len(run.plan)))}
	}
	rep := run.report
	c := rep.Counts
	tally := fmt.Sprintf("%d pass · %d fail · %d not checkable here", c.Pass, c.Fail, c.NotCheckable)
	if c.NotRun > 0 {
		tally += fmt.Sprintf(" · %d not run", c.NotRun)
	}
	when := fmt.Sprintf("verified %s (%s)", rep.Started.Format("15:04:05"), roundDuration(rep.Duration))
	var head string
	switch rep.Outcome {
	case verify.Pass:
		head = s.OK.Render("✓ PASS")
	case verify.Fail:
		head = s.Danger.Render("✗ FAIL")
	case verify.NotCheckable:
		head = s.Warn.Render("? nothing here could be checked")
	default:
		head = s.Muted.Render("· stopped")
	}
	out := []string{"  " + head + " " + when + ": " + tally}
	if v.changed {
		for _, t := range cells.Wrap("⚠ the loop has changed the base_case since: only the items still the same are marked (V verifies again)", w-4) {
			out = append(out, "  "+s.Warn.Render(t))
		}
	}
	return out
}

// ResultLine is the line under a check with its verdict.
func (v *Results) ResultLine(r *verify.Result, indent string, w int, s kit.Styles) string {
	note := termtext.Line(resultNote(r))
	if !r.Started.IsZero() {
		note += " · " + r.Started.Format("15:04:05")
	}
	if r.Outcome == verify.Fail && r.Ran && (r.Stdout.Bytes > 0 || r.Stderr.Bytes > 0) {
		note += s.Muted.Render(" — output below (enter)")
	}
	return ansi.Truncate(indent+OutcomeMark(r.Outcome, s)+" "+note, w, "…")
}

// outputHeading starts the output of a failed check in the objective
// view; enter there goes from one to the next.
const outputHeading = "▸ output of "

// OutputSection lists the output of the checks that failed (the last
// lines of each stream).
func (v *Results) OutputSection(w int, s kit.Styles) []string {
	if v == nil || v.run.report == nil {
		return nil
	}
	var out []string
	for _, r := range verify.Leaves(v.run.report.Items) {
		if r.Outcome != verify.Fail || !r.Ran {
			continue
		}
		if len(out) == 0 {
			out = append(out, "", s.Title.Render("failed checks: their output"))
		}
		head := outputHeading + r.Pos() + " " + termtext.Line(r.Item) + " — " + termtext.Line(resultNote(r)) + " · " + r.Started.Format("15:04:05")
		out = append(out, ansi.Truncate(s.Danger.Render(head), w, "…"))
		for i, t := range cells.Wrap(r.Value, max(10, w-4)) {
			lead := "  " + s.Muted.Render("$ ")
			if i > 0 {
				lead = "    "
			}
			out = append(out, lead+t)
		}
		shown := false
		for _, st := range []struct {
			name string
			o    verify.Output
		}{{"stderr", r.Stderr}, {"stdout", r.Stdout}} {
			title, lines := st.o.Tail(st.name, 30)
			if lines == nil {
				continue
			}
			shown = true
			out = append(out, "  "+s.Bold.Render(title))
			for _, line := range lines {
				for _, t := range cells.Wrap(strings.ReplaceAll(line, "\r", ""), max(10, w-4)) {
					out = append(out, "  "+s.Muted.Render("│ ")+t)
				}
			}
		}
		if !shown {
			out = append(out, "  "+s.Muted.Render("(no output)"))
		}
	}
	return out
}

// outputAnchors are the lines of the objective view where a failed
// check's output starts.
func outputAnchors(lines []string) []int {
	var at []int
	for i, line := range lines {
		if strings.HasPrefix(ansi.Strip(line), outputHeading) {
			at = append(at, i)
		}
	}
	return at
}

// Details (nil: no run yet) is enter in the objective view, whose lines are scrolled to
// top and show height of them: the top line of the next failed check's
// output (round again after the last), or, when there is none, the
// footer's word on why.
func (v *Verifier) Details(ctx kit.Context, lines []string, top, height int) (int, kit.Action) {
	at := outputAnchors(lines)
	if len(at) == 0 {
		if v != nil && v.run != nil && v.run.report != nil {
			return top, kit.Say("no failed check has output to show", kit.Info)
		}
		return top, kit.Say(keyName(ctx.Keys.Key("verify"))+" verifies the base_case now; enter then shows what failed", kit.Info)
	}
	next := at[0]
	for _, i := range at {
		// The next heading below the top that the view can still scroll to
		// (near the end it cannot: then round again).
		if i > top && min(i, max(0, len(lines)-height)) > top {
			next = i
			break
		}
	}
	return next, kit.Action{}
}

// keyName is how help names b's keys.
func keyName(b key.Binding) string { return b.Help().Key }
