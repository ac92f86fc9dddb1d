// Package correction carries out corrections of an AoT loop's state file,
// from the /redirect handshake to the guard after the write, for both the
// command line and the TUI (which only draws what it is told):
//
//   - Run plans a correction, writes it and guards it for a while (the CLI);
//   - a Session is one person's corrections of one loop in the TUI: the
//     handshake flag (redirect_requested) with its writes kept in order,
//     a preview planned once on the bytes the person sees, apply of
//     exactly those bytes (or a new preview when the loop wrote
//     meanwhile), the guard for as long as the session lives, and undo.
//
// The guard is there because the loop's own tools do not lock: a script
// that read the file before our write and writes after it puts back what
// it read, and the correction is gone. The guard notices (every correction
// is recognised by its corrections[] entry, see model.Mark) and applies it
// again on what the script wrote; when that is no longer possible it says
// so (ErrLost). Loop writes that land in the instant before our write, or
// into the file our write replaced, are merged in by statefile.
//
// It sits between the TUI and statefile: cmd → ui → correction →
// statefile → model.
package correction

import (
	"errors"
	"fmt"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// ErrLost is wrapped by the error of a correction that was written, then
// overwritten by a loop writer, and could not be applied again.
var ErrLost = errors.New("lost")

// LostError says why a written correction is no longer in the file.
type LostError struct {
	// Summary names the correction ("added A9").
	Summary string
	// Reason says why it could not be applied again.
	Reason string
}

func (e *LostError) Error() string {
	return fmt.Sprintf("lost: %s — the loop wrote over it and it could not be applied again: %s", e.Summary, e.Reason)
}

// Unwrap makes errors.Is(err, ErrLost) true.
func (e *LostError) Unwrap() error { return ErrLost }

// Options are shared by Run and Session.
type Options struct {
	// MaxSize is the state file size limit (default statefile.DefaultMaxSize).
	MaxSize int64
	// Now is the clock corrections are stamped with (default time.Now).
	Now func() time.Time
	// SoloPause keeps a Session's pause (redirect_requested) to itself:
	// no leases beside the state file, so other aot-tui processes' open
	// forms are not seen — what a session does where file locks are not
	// available (statefile.PauseLeasesSupported). Tests set it to run
	// that path here.
	SoloPause bool
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// DefaultGuard is how long the CLI watches the file after a write: longer
// than the loop's scripts take from reading the file to writing it back.
const DefaultGuard = time.Second

// maxReapply bounds how often one correction is applied again.
const maxReapply = 5

// planner plans req (and, with clearFlag, sets redirect_requested back to
// false in the same write) on each document statefile reads; the plan made
// last is kept.
type planner struct {
	req       model.Request
	ctx       model.PlanContext
	clearFlag bool

	plan *model.Plan
	// flagCleared: the last plan also clears the flag.
	flagCleared bool
	// marks recognise every plan made so far in a later state of the file
	// (an earlier one may be what a loop write carries).
	marks []model.Mark
}

func (p *planner) planFunc() statefile.PlanFunc {
	return func(doc *statefile.Document) ([]model.Edit, error) {
		var edits []model.Edit
		var plan *model.Plan
		if p.req != nil {
			pl, err := model.PlanCorrection(doc.State, p.req, p.ctx)
			if err != nil {
				return nil, err
			}
			plan, edits = pl, append(edits, pl.Edits...)
		}
		cleared := false
		if p.clearFlag {
			if f, err := flagEdits(doc.State, false); err == nil && f != nil {
				edits, cleared = append(edits, f...), true
			}
		}
		p.plan, p.flagCleared = plan, cleared
		if plan != nil {
			p.marks = append(p.marks, model.MarkOf(doc.State, p.req, plan))
		}
		return edits, nil
	}
}

// carried reports whether doc carries any plan made so far.
func (p *planner) carried(doc *statefile.Document) bool {
	for _, m := range p.marks {
		if m.In(doc.State) {
			return true
		}
	}
	return false
}

// flagEdits are the edits that set redirect_requested to v in st (none
// when it already is v).
func flagEdits(st *model.State, v bool) ([]model.Edit, error) {
	p, err := model.PlanCorrection(st, model.SetRedirect{Requested: v}, model.PlanContext{})
	var ref *model.Refusal
	if errors.As(err, &ref) && ref.Rule == model.RuleNoChange {
		return nil, nil // already as wanted
	}
	if err != nil {
		return nil, err
	}
	return p.Edits, nil
}

// RunOptions tune Run.
type RunOptions struct {
	Options
	// Note is added to the correction's description.
	Note string
	// DryRun plans and diffs without writing.
	DryRun bool
	// Guard is how long to watch the file after the write (0: not at all).
	Guard time.Duration
}

// Outcome is what Run did.
type Outcome struct {
	// Plan is the correction as last planned (what the file carries).
	Plan *model.Plan
	// Result is the last write's (or the dry run's) result: Before and
	// After, the documents, the attempts it took.
	Result *statefile.UpdateResult
	// Reapplied counts how often a loop write undid the correction and it
	// was applied again during the guard.
	Reapplied int
	// Merged counts loop writes that landed in the instant before one of
	// our writes, or went into the file it replaced, and were kept.
	Merged int
}

// Run plans req on the file at path, writes it and watches the file for
// o.Guard: a loop writer that read the file before the write and writes
// after it undoes the correction; it is then applied again on what that
// writer wrote (bounded), and a loop write into the file ours replaced is
// merged in. The error is a *model.Refusal (the correction breaks a rule),
// wraps statefile.ErrConflict (the file kept changing) or ErrLost (it was
// undone and could not be applied again), or is an I/O or parse error.
func Run(path string, req model.Request, o RunOptions) (*Outcome, error) {
	pl := &planner{req: req, ctx: model.PlanContext{Now: o.now(), Note: o.Note}}
	res, err := statefile.Update(path, statefile.UpdateOptions{MaxSize: o.MaxSize, DryRun: o.DryRun,
		Carried: pl.carried, KeepDisplaced: o.Guard > 0}, pl.planFunc())
	out := &Outcome{Plan: pl.plan, Result: res}
	if res != nil {
		out.Merged = res.Merged
	}
	if err != nil || o.DryRun || o.Guard <= 0 {
		return out, err
	}
	g := &guard{path: path, opts: o.Options, pl: pl, last: res, installed: res.After}
	if res.Displaced != nil {
		g.displaced = append(g.displaced, res.Displaced)
	}
	err = g.run(o.Guard)
	out.Plan, out.Result, out.Reapplied = pl.plan, g.last, g.reapplied
	out.Merged += g.merged
	return out, err
}
