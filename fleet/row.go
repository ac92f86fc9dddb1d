package fleet

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// Attention says why a loop needs a person. The values are in the order
// the table sorts them: a loop whose session waits for a person first,
// then one about to stop, one that has stopped, one waiting for a
// redirect, one whose file is broken.
type Attention int

// Attention levels.
const (
	// AttentionNone: running, pending, completed, or not there yet.
	AttentionNone Attention = iota
	// AttentionNeedsYou: the loop's Claude Code session waits for a person
	// (a permission or idle prompt the hook recorded, or a question tool
	// waiting for its answer in the transcript: agent.NeedsYou), whatever
	// its state file says.
	AttentionNeedsYou
	// AttentionNearLimit: the next stop-hook decision may stop the loop
	// (stall_count at MAX-1, the iteration limit next, a stop requested),
	// or a phase loop at its phase, global or fix-cycle limit.
	AttentionNearLimit
	// AttentionStopped: the loop stopped (a phase loop: it used up
	// max_iterations without shipping).
	AttentionStopped
	// AttentionRedirect: redirect_requested is set; the loop is paused
	// until a person applies or cancels a correction.
	AttentionRedirect
	// AttentionInvalid: the file does not parse, cannot be read, or breaks
	// the state contract (validation errors).
	AttentionInvalid
)

var attentionNames = map[Attention]string{
	AttentionNone:      "",
	AttentionNeedsYou:  "needs_you",
	AttentionNearLimit: "near_limit",
	AttentionStopped:   "stopped",
	AttentionRedirect:  "redirect",
	AttentionInvalid:   "invalid",
}

// String is the stable name `status --scan --json` reports ("" for none).
func (a Attention) String() string { return attentionNames[a] }

// Label is a short human label for the table.
func (a Attention) Label() string {
	switch a {
	case AttentionNeedsYou:
		return "needs you"
	case AttentionNearLimit:
		return "near limit"
	case AttentionStopped:
		return "stopped"
	case AttentionRedirect:
		return "redirect pending"
	case AttentionInvalid:
		return "invalid"
	}
	return ""
}

// MarshalText makes Attention a JSON string.
func (a Attention) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// File states of a row.
const (
	FileOK      = "ok"      // parsed
	FileInvalid = "invalid" // does not parse (the last good values, if any, are kept)
	FileError   = "error"   // cannot be read (permissions, size limit)
)

// Row is one loop of the fleet as the table shows it and `status --scan
// --json` prints it. Strings come from the file as they are: sanitise them
// before they reach a terminal. The JSON keys are stable; those shared
// with `status --json` mean the same.
type Row struct {
	// Path is the state file; Project the directory holding its .claude/;
	// Name the project as the table shows it (relative to the scanned
	// directory it was found under).
	Path    string `json:"path"`
	Project string `json:"project"`
	Name    string `json:"name"`
	// Host is the remote host the loop is on ("" for this machine);
	// HostState how the link to it stands as the table shows it ("live",
	// "stale", "lost", …; "" for this machine).
	Host      string `json:"host,omitempty"`
	HostState string `json:"-"`
	// Kind is "aot-loop" or "phase-loop".
	Kind string `json:"kind"`
	// File is FileOK, FileInvalid or FileError; Error says what is wrong.
	File  string `json:"file"`
	Error string `json:"error,omitempty"`

	// Status is control.status for an AoT loop (pending, running, stopped,
	// completed); for a phase loop "running", "completed" (shipped) or
	// "stopped" (max_iterations used up). Phase is the phase loop's phase.
	Status string `json:"status"`
	Phase  string `json:"phase,omitempty"`
	// Goal is objective.goal (a phase loop: its feature).
	Goal string `json:"goal"`
	// Iteration / MaxIterations: control.iteration (a phase loop: its
	// global_iteration). StallCount / MaxStallCount: control.stall_count
	// (a phase loop: phase_iteration against max_phase_iterations, the
	// iterations spent in one phase).
	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`
	StallCount    int `json:"stall_count"`
	MaxStallCount int `json:"max_stall_count"`
	// Summary counts atoms as status --json does (zero for a phase loop).
	Summary model.Counts `json:"summary"`
	// PhasesDone of PhasesTotal: a phase loop's phases_completed.
	PhasesDone  int `json:"phases_done,omitempty"`
	PhasesTotal int `json:"phases_total,omitempty"`
	// Progress is the progress class (AoT loops).
	Progress          string `json:"progress,omitempty"`
	RedirectRequested bool   `json:"redirect_requested"`
	StopRequested     bool   `json:"stop_requested"`
	StopReason        string `json:"stop_reason,omitempty"`
	// Outlook is the stop hook's next decision, in words (AoT loops).
	Outlook string `json:"outlook,omitempty"`
	// LoopTools counts the warnings on what the loop's own hook and
	// scripts will read otherwise than aot-tui (AoT loops); LoopTool is
	// the first of them ("line 65: the stop hook reads …").
	LoopTools int    `json:"loop_tools,omitempty"`
	LoopTool  string `json:"loop_tool,omitempty"`
	// Attention and Reason: why the loop needs a person, if it does.
	Attention Attention `json:"attention"`
	Reason    string    `json:"reason,omitempty"`
	// Changed is when the file last changed (its modification time).
	Changed time.Time `json:"changed"`
	// Activity is what the loop's Claude Code sessions show, in brief (as
	// `status --json` prints it): whether one waits for a person, what
	// runs now, the tokens and estimated cost since the loop began. Nil
	// when it is not read (Options.Activity unset: --no-activity; a phase
	// loop) or not read yet. Its strings are sanitised already.
	Activity *agent.Report `json:"activity"`

	// Gone marks a loop that went away (its file or project was removed);
	// only Watcher.Changes reports such rows.
	Gone bool `json:"-"`

	// near is why a running loop is near its limit ("" when it is not),
	// and stateAttention, stateReason the attention its state file alone
	// gives: what Attention falls back to when no session waits.
	near           string
	stateAttention Attention
	stateReason    string
}

// NeedsAttention reports whether the row needs a person.
func (r Row) NeedsAttention() bool { return r.Attention != AttentionNone }

// rowFrom builds the row of loop l from a watch event; prev is the row
// before it (its values stay on an invalid or unreadable file).
func rowFrom(l Loop, ev statefile.Event, prev *Row) Row {
	r := Row{}
	if prev != nil {
		r = *prev
	}
	r.Path, r.Project, r.Name, r.Kind = l.Target.Path, l.Project, l.Name, l.Target.Kind.String()
	r.Error, r.Gone = "", false
	if !ev.ModTime.IsZero() {
		r.Changed = ev.ModTime
	} else if r.Changed.IsZero() {
		r.Changed = ev.At
	}
	near := ""
	switch ev.Kind {
	case statefile.EventLoaded:
		r.File = FileOK
		if ev.Phase != nil {
			near = fillPhase(&r, ev.Phase)
		} else {
			near = fillAoT(&r, ev.Doc.State, ev.Facts)
		}
	case statefile.EventInvalid:
		r.File = FileInvalid
		r.Error = oneLine(ev.Err)
	default:
		r.File = FileError
		r.Error = oneLine(ev.Err)
	}
	r.near = near
	r.Attention, r.Reason = attentionOf(&r)
	return r
}

// WithActivity is r with the activity a (nil: none known), its attention
// classified again: a session that waits for a person comes first.
func WithActivity(r Row, a *agent.Report) Row {
	r.Activity = a
	r.Attention, r.Reason = attentionOf(&r)
	return r
}

// NeedsYou is the wait of the loop's session for a person (nil: none).
func (r Row) NeedsYou() *agent.NeedsYou {
	if r.Activity == nil {
		return nil
	}
	return r.Activity.NeedsYou
}

// needsYouReason is the reason of a row whose session waits: "needs you:
// Claude needs your permission to use Bash" (the message is sanitised by
// agent; an inferred wait says so).
func needsYouReason(n *agent.NeedsYou) string {
	msg := n.Message
	if msg == "" {
		msg = strings.ReplaceAll(n.Kind, "_", " ")
	}
	if n.Inferred {
		msg += " (read from the transcript; aot-tui hook install gives exact answers)"
	}
	return "needs you: " + msg
}

func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return textfmt.OneLine(err.Error())
}

// fillAoT fills r from an AoT state; it returns why a running loop is near
// its limit ("" when it is not).
func fillAoT(r *Row, st *model.State, f *model.Facts) (near string) {
	c := st.Control
	cons := st.Objective.Constraints
	r.Status = string(c.Status)
	r.Phase, r.PhasesDone, r.PhasesTotal = "", 0, 0
	r.Goal = st.Objective.Goal
	r.Iteration, r.MaxIterations = c.Iteration, cons.EffectiveMaxIterations()
	r.StallCount, r.MaxStallCount = c.StallCount, cons.EffectiveMaxStallCount()
	r.Summary = f.Counts
	r.Progress = string(f.Progress)
	r.RedirectRequested, r.StopRequested, r.StopReason = c.RedirectRequested, c.StopRequested, c.StopReason
	o := model.PredictOutlook(st, f)
	r.Outlook = o.Text
	v := model.ValidateWith(st, f)
	if !v.Valid {
		r.File = FileInvalid
		r.Error = fmt.Sprintf("%s: %s", textfmt.Plural(len(v.Errors), "validation error"), v.Errors[0])
	}
	r.LoopTools, r.LoopTool = 0, ""
	for _, p := range v.Problems {
		if p.Kind == model.LoopToolsKind {
			if r.LoopTools == 0 {
				r.LoopTool = model.Problem{Line: p.Line, Message: p.Message}.String()
			}
			r.LoopTools++
		}
	}
	// The hook's next decision is a stop while the loop runs: act now.
	if c.Status == model.LoopRunning && o.Decision == model.DecisionStop {
		return o.Text
	}
	return ""
}

// fillPhase fills r from a phase loop; it returns why a running loop is
// near a limit ("" when it is not).
func fillPhase(r *Row, p *model.PhaseLoop) (near string) {
	r.Phase = p.Phase
	r.Goal = p.Feature
	r.Iteration, r.MaxIterations = p.GlobalIteration, p.EffectiveMaxIterations()
	r.StallCount, r.MaxStallCount = p.PhaseIteration, p.EffectiveMaxPhaseIterations()
	r.Summary = model.Counts{}
	r.PhasesDone, r.PhasesTotal = len(p.PhasesCompleted), len(model.Phases)
	r.Progress, r.Outlook, r.StopReason, r.LoopTools, r.LoopTool = "", "", "", 0, ""
	r.RedirectRequested, r.StopRequested = false, false
	switch {
	case p.Shipped():
		r.Status = string(model.LoopCompleted)
	case p.GlobalIteration >= p.EffectiveMaxIterations():
		r.Status = string(model.LoopStopped)
		r.StopReason = fmt.Sprintf("max_iterations reached (%d/%d) in phase %s", p.GlobalIteration, p.EffectiveMaxIterations(), p.Phase)
	default:
		r.Status = string(model.LoopRunning)
	}
	if v := model.ValidatePhaseLoop(p); !v.Valid {
		r.File = FileInvalid
		r.Error = fmt.Sprintf("%s: %s", textfmt.Plural(len(v.Errors), "validation error"), v.Errors[0])
	}
	if r.Status != string(model.LoopRunning) {
		return ""
	}
	fix, maxFix := p.FixReviewCycles, p.EffectiveMaxFixCycles()
	switch {
	case p.GlobalIteration >= p.EffectiveMaxIterations()-1:
		return fmt.Sprintf("iteration %d/%d: the last one", p.GlobalIteration, p.EffectiveMaxIterations())
	case p.PhaseIteration > 0 && p.PhaseIteration >= p.EffectiveMaxPhaseIterations()-1:
		return fmt.Sprintf("phase %s at iteration %d/%d of its limit", p.Phase, p.PhaseIteration, p.EffectiveMaxPhaseIterations())
	case fix >= maxFix:
		return fmt.Sprintf("fix/review cycles %d/%d", fix, maxFix)
	}
	return ""
}

// attentionOf classifies a filled row: a session waiting for a person
// first, else what its state file says (stateAttentionOf), which it keeps
// in r.
func attentionOf(r *Row) (Attention, string) {
	r.stateAttention, r.stateReason = stateAttentionOf(r, r.near)
	if n := r.NeedsYou(); n != nil {
		return AttentionNeedsYou, needsYouReason(n)
	}
	return r.stateAttention, r.stateReason
}

// stateAttentionOf classifies a filled row by its state file; near is why
// a running loop is near its limit. A file that does not parse, cannot be
// read or breaks the contract is invalid whatever its last good values
// said.
func stateAttentionOf(r *Row, near string) (Attention, string) {
	switch {
	case r.File == "":
		return AttentionNone, ""
	case r.File != FileOK:
		return AttentionInvalid, r.Error
	case r.Status == string(model.LoopRunning) && (near != "" || (r.Kind == statefile.KindAoT.String() && r.StallCount > 0 && r.StallCount >= r.MaxStallCount-1)):
		if near == "" {
			near = fmt.Sprintf("stall %d/%d: one more stalled iteration stops the loop", r.StallCount, r.MaxStallCount)
		}
		return AttentionNearLimit, near
	case r.Status == string(model.LoopStopped):
		reason := strings.TrimSpace(r.StopReason)
		if reason == "" {
			reason = "no reason recorded"
		}
		return AttentionStopped, "stopped: " + reason
	case r.RedirectRequested:
		return AttentionRedirect, "paused: redirect_requested is set (a correction is open, or was left set)"
	}
	return AttentionNone, ""
}

// Less orders rows as the table does: loops that need attention first
// (waiting for a person, near a limit, stopped, redirect pending, invalid,
// in that order), then
// the most recently changed, then by path.
func Less(a, b Row) bool {
	ra, rb := rank(a.Attention), rank(b.Attention)
	if ra != rb {
		return ra < rb
	}
	if !a.Changed.Equal(b.Changed) {
		return a.Changed.After(b.Changed)
	}
	return a.Path < b.Path
}

func rank(a Attention) int {
	if a == AttentionNone {
		return int(AttentionInvalid) + 1
	}
	return int(a)
}

// Sort orders rows with Less.
func Sort(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool { return Less(rows[i], rows[j]) })
}

// Summary counts a fleet's loops.
type Summary struct {
	Loops          int `json:"loops"`
	Running        int `json:"running"`
	NeedsAttention int `json:"needs_attention"`
	// NeedsYou counts the loops whose session waits for a person (among
	// those that need attention).
	NeedsYou  int `json:"needs_you"`
	Pending   int `json:"pending"`
	Completed int `json:"completed"`
	Stopped   int `json:"stopped"`
	Invalid   int `json:"invalid"`
}

// Summarize counts rows by status and attention.
func Summarize(rows []Row) Summary {
	s := Summary{Loops: len(rows)}
	for _, r := range rows {
		if r.NeedsAttention() {
			s.NeedsAttention++
		}
		if r.Attention == AttentionNeedsYou {
			s.NeedsYou++
		}
		if r.File != FileOK {
			// A file that does not read says nothing about the loop's
			// status: it is counted as invalid, not as running.
			s.Invalid++
			continue
		}
		switch r.Status {
		case string(model.LoopRunning):
			s.Running++
		case string(model.LoopPending):
			s.Pending++
		case string(model.LoopCompleted):
			s.Completed++
		case string(model.LoopStopped):
			s.Stopped++
		}
	}
	return s
}

// String is the one-line summary the window title and the alerts show:
// "50 loops · 3 running · 1 needs attention".
func (s Summary) String() string {
	parts := []string{textfmt.Plural(s.Loops, "loop"), fmt.Sprintf("%d running", s.Running)}
	switch s.NeedsAttention {
	case 0:
	case 1:
		parts = append(parts, "1 needs attention")
	default:
		parts = append(parts, fmt.Sprintf("%d need attention", s.NeedsAttention))
	}
	if s.Completed > 0 {
		parts = append(parts, fmt.Sprintf("%d completed", s.Completed))
	}
	return strings.Join(parts, " · ")
}

// AlertReason says why a change of a loop's row deserves an alert (the
// bell and a desktop notification), or "": its session began to wait for
// a person (once per wait: a new wait alerts again, the same one never),
// it completed, it started to need attention by its state file, or the
// reason it does changed kind. A wait that ends alerts nothing: the
// attention under it is the one there was.
func AlertReason(prev, cur Row) string {
	if prev.File == "" || cur.Gone {
		return "" // first sight, or gone: nothing a person missed
	}
	if n := cur.NeedsYou(); n != nil {
		if p := prev.NeedsYou(); p == nil || !p.Since.Equal(n.Since) || p.Session != n.Session {
			return cur.Reason
		}
	}
	ca, pa := cur.underWait(), prev.underWait()
	switch {
	case cur.Status != prev.Status && cur.Status == string(model.LoopCompleted):
		return "completed"
	case ca != AttentionNone && ca != pa:
		return cur.stateReasonOr()
	}
	return ""
}

// underWait is the attention the row's state file gives it (under a
// session's wait, when there is one).
func (r Row) underWait() Attention {
	a, _ := r.UnderWait()
	return a
}

func (r Row) stateReasonOr() string {
	_, why := r.UnderWait()
	return why
}

// UnderWait is the attention, and its reason, that the row's state file
// gives it: Attention and Reason, unless a session waits for a person —
// then what they would be without the wait (AttentionNone: nothing).
func (r Row) UnderWait() (Attention, string) {
	if r.Attention == AttentionNeedsYou {
		return r.stateAttention, r.stateReason
	}
	return r.Attention, r.Reason
}
