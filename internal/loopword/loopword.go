// Package loopword holds the glyphs and words a loop's state is shown
// with wherever both the CLI (status, scan) and the TUI show it, so that
// the two read alike: a loop's and an atom's status glyph, the progress
// class with its arrow, the phase pipeline's marks and the atom counts.
// The words are plain text with no styling (the TUI colours them) and
// are not sanitised: a caller passes what comes from a file through
// termtext before it draws or prints it.
package loopword

import (
	"fmt"

	"github.com/aot-loop/aot-tui/model"
)

// LoopGlyph is the glyph of a loop status ("?" for one the seed does not
// define).
func LoopGlyph(st model.LoopStatus) string {
	switch st {
	case model.LoopPending:
		return "○"
	case model.LoopRunning:
		return "▶"
	case model.LoopStopped:
		return "■"
	case model.LoopCompleted:
		return "✓"
	}
	return "?"
}

// StatusText is the loop's status as written in the file, or "unknown"
// when the file gives none.
func StatusText(st model.LoopStatus) string {
	if st == "" {
		return "unknown"
	}
	return string(st)
}

// AtomGlyph is the glyph of an atom status ("?" for one the seed does
// not define).
func AtomGlyph(st model.AtomStatus) string {
	switch st {
	case model.StatusPending:
		return "○"
	case model.StatusInProgress:
		return "◐"
	case model.StatusResolved:
		return "●"
	}
	return "?"
}

// AtomCounts is the compact count of a loop's atoms by status, each
// after its glyph: "○3 ◐1 ●5".
func AtomCounts(c model.Counts) string {
	return fmt.Sprintf("%s%d %s%d %s%d",
		AtomGlyph(model.StatusPending), c.Pending,
		AtomGlyph(model.StatusInProgress), c.InProgress,
		AtomGlyph(model.StatusResolved), c.Resolved)
}

// ProgressLabel names a progress class with its arrow, in full and
// compact forms (the arrow carries the meaning without colour).
func ProgressLabel(p model.Progress) (full, compact string) {
	switch p {
	case model.ProgressShrinking:
		return "↓ shrinking", "↓"
	case model.ProgressStalled:
		return "→ stalled", "→"
	case model.ProgressExpanding:
		return "↑ expanding", "↑"
	}
	return "· first iteration", "·"
}

// PhaseGlyph marks a phase of the phase loop's pipeline: done, the
// current one, or one still ahead.
func PhaseGlyph(done, current bool) string {
	switch {
	case done:
		return "✓"
	case current:
		return "▶"
	}
	return "·"
}

// PhaseCount is how far a phase loop is through its pipeline: "2/7 phases".
func PhaseCount(done, total int) string {
	return fmt.Sprintf("%d/%d phases", done, total)
}

// Resume says how a stopped loop resumes ("" for a loop that is not
// stopped): with the loop's own /enter-recursion, which runs only when the
// gate (check_gate.py; model.Gate) passes, and what the gate finds in the
// way when it does not.
func Resume(s *model.State) string {
	if s == nil || s.Control.Status != model.LoopStopped {
		return ""
	}
	return ResumeWith(s, model.Validate(s))
}

// ResumeWith is Resume with the state's validation report already made
// (the TUI validates every version it shows).
func ResumeWith(s *model.State, r model.Report) string {
	if s == nil || s.Control.Status != model.LoopStopped {
		return ""
	}
	g := model.GateWith(s, r)
	if g.Ready {
		return "/enter-recursion resumes it (the gate passes)"
	}
	why := g.Missing[0]
	if n := len(g.Missing) - 1; n > 0 {
		why += fmt.Sprintf(" and %d more", n)
	}
	return "/enter-recursion resumes it once the gate passes (it fails: " + why + ")"
}
