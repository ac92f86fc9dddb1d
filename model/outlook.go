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
	// DecisionStop: the hook lets the loop end: it marks it stopped, or
	// (reading the file otherwise than aot-tui) ends it as it is.
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
// the stall limit; an empty work graph; otherwise the next iteration. When
// the hook would continue but nothing can run (work is left, none of it
// executable, none in progress) the outlook says so, names what blocks it
// and when the stall limit will stop the loop: the hook continues, but
// only into stalled iterations.
//
// When s was read from a file (s.LoopRead), the prediction follows what the
// hook itself reads from the bytes where that differs from aot-tui's
// parse, and says why ("the stop hook reads control.status as
// 'running   # …' (inline comment, line 65): the loop will end").
func PredictOutlook(s *State, f *Facts) Outlook {
	return predictOutlook(s, f, StuckAtoms)
}

// PredictOutlook returns model.PredictOutlook(s, f), taking from the last
// states m was given what their stuck atoms tell of this one's (see
// stuckMemo): for the successive states of one loop, on one goroutine.
func (m *Validator) PredictOutlook(s *State, f *Facts) Outlook {
	return predictOutlook(s, f, m.stuck.atoms)
}

// predictOutlook is PredictOutlook with the stuck atoms found by stuck.
func predictOutlook(s *State, f *Facts, stuck func(*State, *Facts) Stuck) Outlook {
	o := predictParsed(s, f, stuck)
	if s.LoopRead != nil {
		o = followHook(s, f, o)
	}
	return o
}

// predictParsed is the outlook on the values aot-tui parsed.
func predictParsed(s *State, f *Facts, stuckAtoms func(*State, *Facts) Stuck) Outlook {
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
			Text: fmt.Sprintf("stops: no progress, %s (unresolved %d, was %d)", stallAfter(next, maxStall), unresolved, c.PrevPendingCount)}
	}
	if unresolved == 0 && f.Counts.Resolved == 0 {
		return Outlook{Decision: DecisionStop, Text: "stops: no atoms in the work graph", Warning: true, NextStall: next}
	}
	o := Outlook{Decision: DecisionContinue, NextStall: next}
	stuck := stuckAtoms(s, f)
	switch {
	case f.Outstanding > 0 && f.Counts.InProgress == 0 && len(f.Executable) == 0:
		// Deadlocked: the hook continues, but no worker can start, the
		// unresolved count cannot change and every later iteration
		// stalls, until the stall limit (or the iteration limit) stops
		// the loop.
		o.Warning = true
		more := min(maxStall-next, maxIter-c.Iteration)
		o.Text = fmt.Sprintf("stalls: nothing can run — %s; unless corrected, the loop stops after %s (%s)",
			stuck.Cause, iterations(more), stallAfter(next, maxStall))
	case next == maxStall-1 && next > 0:
		o.Text = fmt.Sprintf("%s; at %d/%d the loop stops", stallAfter(next, maxStall), maxStall, maxStall)
		o.Warning = true
	case len(stuck.IDs) > 0:
		// The hook continues and the other work runs, but the loop can
		// never complete: the coordinator completes only when every atom
		// is resolved.
		o.Warning = true
		o.Text = cannotFinish(stuck)
	case c.PrevPendingCount < 0:
		o.Text = fmt.Sprintf("continues: first iteration, unresolved %d", unresolved)
	case next == 0:
		o.Text = fmt.Sprintf("continues: unresolved %d → %d", c.PrevPendingCount, unresolved)
	default:
		o.Text = fmt.Sprintf("continues, %s (unresolved %d, was %d)", stallAfter(next, maxStall), unresolved, c.PrevPendingCount)
		o.Warning = true
	}
	if c.Iteration+1 >= maxIter {
		o.Text += fmt.Sprintf("; the next iteration is the last (%d/%d)", c.Iteration+1, maxIter)
		o.Warning = true
	}
	return o
}

// stallAfter is the stall count the hook would write, said as what it is:
// the count after this iteration, one more than the header's count when
// the iteration stalls ("stall 2/3 after this iteration" beside the
// header's "stall 1/3").
func stallAfter(n, maxStall int) string {
	return fmt.Sprintf("stall %d/%d after this iteration", n, maxStall)
}

func iterations(n int) string {
	if n == 1 {
		return "one more iteration"
	}
	return fmt.Sprintf("%d more iterations", n)
}

// cannotFinish is the outlook of a loop with stuck atoms: it names why the
// first can never run and how many cannot, and never says the loop
// continues, though its hook does: only the rest of the work runs.
func cannotFinish(st Stuck) string {
	return fmt.Sprintf("cannot finish: %s (%s never run); the rest runs, then the loop stalls — correct the graph",
		st.Cause, atomsCan(len(st.IDs)))
}

func atomsCan(n int) string {
	if n == 1 {
		return "1 atom can"
	}
	return fmt.Sprintf("%d atoms can", n)
}
