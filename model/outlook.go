package model

import (
	"fmt"
	"strings"
)

// Decision is what the loop's SubagentStop hook would decide.
type Decision string

// Hook decisions, as the outlook names them.
const (
	// DecisionContinue: the hook blocks the exit and starts the next iteration.
	DecisionContinue Decision = "continue"
	// DecisionStop: the hook lets the loop end and marks it stopped.
	DecisionStop Decision = "stop"
	// DecisionPause: a redirect is in progress; the loop waits.
	DecisionPause Decision = "pause"
	// DecisionDone: the loop completed.
	DecisionDone Decision = "done"
	// DecisionIdle: the loop is not running (pending or stopped).
	DecisionIdle Decision = "idle"
)

// Outlook explains, in one line, the hook's next decision if the current
// iteration ended with the state as it is now.
type Outlook struct {
	Decision Decision `json:"decision"`
	Text     string   `json:"text"`
	// Warning is true when the next decision is, or may soon be, a stop.
	Warning bool `json:"warning"`
	// NextStall is the stall_count the hook would write.
	NextStall int `json:"next_stall"`
}

// PredictOutlook follows the stop hook's rules in their order (seed 003
// §2.4 and the hook script): completed; not running; redirect requested;
// stop requested; iteration limit; progress against prev_pending_count and
// the stall limit; an empty work graph; otherwise the next iteration.
func PredictOutlook(s *State, f *Facts) Outlook {
	c := s.Control
	cons := s.Objective.Constraints
	maxIter, maxStall := cons.EffectiveMaxIterations(), cons.EffectiveMaxStallCount()
	unresolved := f.Counts.Unresolved()
	switch c.Status {
	case LoopCompleted:
		return Outlook{Decision: DecisionDone, Text: "completed: base_case satisfied", NextStall: c.StallCount}
	case LoopStopped:
		reason := strings.TrimSpace(c.StopReason)
		if reason == "" {
			reason = "no reason recorded"
		}
		return Outlook{Decision: DecisionIdle, Text: "stopped: " + reason, NextStall: c.StallCount}
	case LoopPending:
		return Outlook{Decision: DecisionIdle, Text: "not started: /enter-recursion starts the loop", NextStall: c.StallCount}
	case LoopRunning:
	default:
		return Outlook{Decision: DecisionIdle, Text: fmt.Sprintf("status %q is not one the hook acts on", c.Status), Warning: true}
	}
	if c.RedirectRequested {
		return Outlook{Decision: DecisionPause, Text: "paused for redirect", NextStall: c.StallCount}
	}
	if c.StopRequested {
		return Outlook{Decision: DecisionStop, Text: "stops: manual stop requested", Warning: true, NextStall: c.StallCount}
	}
	if c.Iteration >= maxIter {
		return Outlook{Decision: DecisionStop, Text: fmt.Sprintf("stops: max iterations reached (%d/%d)", c.Iteration, maxIter), Warning: true, NextStall: c.StallCount}
	}
	next := c.StallCount + 1
	switch {
	case c.PrevPendingCount < 0, unresolved < c.PrevPendingCount:
		next = 0
	}
	if next >= maxStall {
		return Outlook{Decision: DecisionStop, Warning: true, NextStall: next,
			Text: fmt.Sprintf("stops: no progress, stall %d/%d (unresolved %d, was %d)", next, maxStall, unresolved, c.PrevPendingCount)}
	}
	if unresolved == 0 && f.Counts.Resolved == 0 {
		return Outlook{Decision: DecisionStop, Text: "stops: no atoms in the work graph", Warning: true, NextStall: next}
	}
	o := Outlook{Decision: DecisionContinue, NextStall: next}
	switch {
	case c.PrevPendingCount < 0:
		o.Text = fmt.Sprintf("continues: first iteration, unresolved %d", unresolved)
	case next == 0:
		o.Text = fmt.Sprintf("continues: unresolved %d → %d", c.PrevPendingCount, unresolved)
	case next == maxStall-1:
		o.Text = fmt.Sprintf("one more stalled iteration stops the loop (stall %d/%d)", next, maxStall)
		o.Warning = true
	default:
		o.Text = fmt.Sprintf("continues, stalled: unresolved %d, was %d (stall %d/%d)", unresolved, c.PrevPendingCount, next, maxStall)
		o.Warning = true
	}
	if c.Iteration+1 >= maxIter {
		o.Text += fmt.Sprintf("; the next iteration is the last (%d/%d)", c.Iteration+1, maxIter)
		o.Warning = true
	}
	return o
}
