// Package correction carries out corrections of an AoT loop's state file,
// from the /redirect handshake to the guard after the write, for both the
// command line and the TUI (which only draws what it is told):
//
//   - Run plans a correction, writes it and guards it for a while (the CLI);
//   - a Session is one person's corrections of one loop in the TUI: the
//     handshake flag (redirect_requested) with its writes kept in order,
//     a preview planned once on the bytes the person sees, apply of
//     exactly those bytes (or a new preview when the loop wrote
//     meanwhile), the guard for a bounded while after the write, and undo.
//
// The guard is there because the loop's own tools do not lock: a script
// that read the file before our write and writes after it puts back what
// it read, and the correction is gone. The guard notices (every correction
// is recognised by its corrections[] entry, see model.Mark) and applies it
// again on what the script wrote; when that is no longer possible it says
// so (ErrLost). It applies it again only on the loop's own work on our
// version (model.Lineage): a new loop, an older version or — once the
// loop's scripts have had their time (loopWindow) — the bytes from before
// the correction at the same path end the guard (ErrStoodDown). It
// also checks what the correction meant (model.Intent): a loop write that
// carries the entry and undoes the intent is reported like a lost
// correction. Loop writes that land in the instant before our write, or
// into the file our write replaced, are merged in by statefile.
//
// It sits between the TUI and statefile: cmd → ui → correction →
// statefile → model.
package correction

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// ErrLost is wrapped by the error of a correction that was written, then
// overwritten by a loop writer, and could not be applied again — or that
// the loop's next writes undid while carrying it (a defeated intent).
var ErrLost = errors.New("lost")

// LostError says why a written correction is no longer in the file, or no
// longer holds.
type LostError struct {
	// Summary names the correction ("added A9").
	Summary string
	// Reason says why it could not be applied again, or, Defeated, what
	// the loop's write undid.
	Reason string
	// Defeated: the file carries the correction's entry, and a loop write
	// undid what it meant (an atom it reset came back resolved).
	Defeated bool
}

func (e *LostError) Error() string {
	if e.Defeated {
		return fmt.Sprintf("lost: %s — the loop's next write undid it: %s", e.Summary, e.Reason)
	}
	return fmt.Sprintf("lost: %s — the loop wrote over it and it could not be applied again: %s", e.Summary, e.Reason)
}

// Unwrap makes errors.Is(err, ErrLost) true.
func (e *LostError) Unwrap() error { return ErrLost }

// ErrStoodDown is wrapped by the error of a guard that met, at the state
// file's path, a file that does not descend from the version the
// correction was written on: a new loop, an older version of this one, or
// the version from before the correction. The correction is not carried
// over to it, and is not in effect.
var ErrStoodDown = errors.New("not carried over")

// StandDownKind says what the guard met instead of the loop's own work.
type StandDownKind string

// Kinds of stand-down.
const (
	StandDownNewLoop      StandDownKind = "new_loop"
	StandDownOlderVersion StandDownKind = "older_version"
	StandDownRevert       StandDownKind = "revert"
)

// StandDownError says why a guard stood down.
type StandDownError struct {
	// Summary names the correction ("max_iterations 12 → 99").
	Summary string
	Kind    StandDownKind
	// Reason is what told the file apart (empty for a revert).
	Reason string
	// Written: the correction had been written (a guard stood down);
	// otherwise the file was replaced while it was being written.
	Written bool
	// behind: the file lacks only the corrections written just before
	// ours (model.Break.Behind): their writers may put them back.
	behind bool
}

func (e *StandDownError) Error() string {
	var what string
	switch e.Kind {
	case StandDownRevert:
		what = "the file went back to the version before the correction (a revert?)"
	case StandDownOlderVersion:
		what = "the file went back to an older version of this loop (a git checkout or a restore?)"
	default:
		what = "the file was replaced by a new loop"
	}
	if !e.Written {
		what = strings.Replace(what, "the file ", "the file changed while the correction was being written: it ", 1)
		return fmt.Sprintf("%s: the correction %q was not written", what, e.Summary) + e.because()
	}
	return fmt.Sprintf("%s: the correction %q was not carried over", what, e.Summary) + e.because()
}

func (e *StandDownError) because() string {
	if e.Reason == "" {
		return ""
	}
	return " (" + e.Reason + ")"
}

// Unwrap makes errors.Is(err, ErrStoodDown) true.
func (e *StandDownError) Unwrap() error { return ErrStoodDown }

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
	// Elsewhere, for a Session, is the machine the file is on when it is
	// not this one (elsewhere.go): previews are planned on the versions
	// streamed from there and applied there. nil: the file is here.
	Elsewhere Elsewhere
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// loopWindow is how long after one of our writes the bytes it replaced
// are still taken for the loop's own work rather than someone's revert.
// A loop script that read the file before our write writes back what it
// read, changed or not: the plugin's scripts write even when nothing
// changes (update_atom.py A1 with A1's status, set_status.py running), and
// such a write puts back exactly the bytes from before the correction.
// Each script reads, changes and writes the file in one short run (the
// Python scripts with read_text and write_text, the stop hook with sed and
// mv): 0.5 ms from read to write on a small state and under 40 ms at
// 10,000 atoms, about 0.1 s for the whole python3 run, measured on a busy
// 2-core machine. A second leaves a wide margin; past it, those bytes at
// the path were put there by someone on purpose (a revert).
const loopWindow = time.Second

// DefaultGuard is how long the CLI watches the file after a write: the
// loop window, longer than the loop's scripts take from reading the file
// to writing it back.
const DefaultGuard = loopWindow

// maxReapply bounds how often one correction is applied again.
const maxReapply = 5

// planner plans req (and, with clearFlag, sets redirect_requested back to
// false in the same write) on each document statefile reads; the plan made
// last is kept.
//
// Once a plan was made, the planner plans again only on a document that
// descends from one it planned on (see model.Lineage; one that lacks only
// that version's last corrections[] entries does within loopWindow of the
// plan), and not on the bytes one of its writes replaced once loopWindow
// has passed since that write (a revert; before, they are a loop script's
// write that changed nothing): anything else at the path is not the
// loop's work on our version, and the correction is not carried over to
// it (a *StandDownError).
//
// The workers a correction interrupts are agreed to once, on its first
// plan: the preview the person saw (and confirmed), or the plan the
// command first made (--interrupt). A later plan — on the loop's write
// before ours, the guard's re-apply, a merge — that would interrupt the
// worker on any other atom is refused (see interruptsAgreed).
type planner struct {
	req       model.Request
	ctx       model.PlanContext
	clearFlag bool
	// expect, until the first write lands, is the sha256 of the only
	// version the correction may be planned on (RunOptions.ExpectSHA256).
	expect *[sha256.Size]byte
	// undoes is the Session's number of the correction req undoes (0:
	// req is not an undo of the session's).
	undoes int

	plan *model.Plan
	// agreed are the in-progress atoms of the first plan: the only ones
	// a later plan may touch.
	agreed []string
	// flagCleared: the last plan also clears the flag.
	flagCleared bool
	// marks recognise every plan made so far in a later state of the file
	// (an earlier one may be what a loop write carries).
	marks []model.Mark
	// refs are the versions plans were made on; replaced the versions our
	// writes replaced.
	refs     []plannedOn
	replaced []replacedVersion
	// intent is what the last written plan means to hold (its
	// post-conditions).
	intent model.Intent
}

func (p *planner) planFunc() statefile.PlanFunc {
	return func(doc *statefile.Document) (*model.Plan, error) {
		if p.expect != nil {
			// Checked on the very bytes this plan is made on, inside the
			// write: statefile writes only while the file still holds them,
			// and plans again (here, refused) on whatever replaced them.
			if got := sha256.Sum256(doc.Data); got != *p.expect {
				return nil, &NotPreviewedError{Want: *p.expect, Got: got}
			}
			planHook(doc.Data)
		}
		if err := p.descends(doc); err != nil {
			return nil, err
		}
		// The write: the correction's plan, and the flag cleared with it;
		// written on any file only when both are (model.WritePolicy).
		write := &model.Plan{AnyFile: true}
		var plan *model.Plan
		if p.req != nil {
			ctx, later := p.ctx, len(p.refs) > 0
			if later {
				ctx.Interrupt = true // what it may interrupt was agreed on the first plan
			}
			pl, err := model.PlanCorrection(doc.State, p.req, ctx)
			if err != nil {
				return nil, err
			}
			if !later {
				for _, in := range pl.Interrupts {
					p.agreed = append(p.agreed, in.Atom)
				}
			} else if err := p.interruptsAgreed(pl); err != nil {
				return nil, err
			}
			plan = pl
			write.Edits, write.AnyFile = append(write.Edits, pl.Edits...), pl.AnyFile
		}
		cleared := false
		if p.clearFlag {
			if f, err := flagPlan(doc.State, false); err == nil && f != nil {
				write.Edits, write.AnyFile, cleared = append(write.Edits, f.Edits...), write.AnyFile && f.AnyFile, true
			}
		}
		p.plan, p.flagCleared = plan, cleared
		if plan != nil {
			p.marks = append(p.marks, model.MarkOf(doc.State, p.req, plan))
			p.refs = append(p.refs, plannedOn{lineage: model.LineageOf(doc.State), at: time.Now()})
		}
		return write, nil
	}
}

// interruptsAgreed refuses pl, a later plan, when it touches an atom in
// progress that the first plan did not: that atom went in progress after
// the correction was agreed to, and interrupting its worker was not. The
// refusal says so in words that fit after the write (the guard reports
// the correction lost), never the model's "add --interrupt".
func (p *planner) interruptsAgreed(pl *model.Plan) error {
	var ids []string
	for _, in := range pl.Interrupts {
		if !slices.Contains(p.agreed, in.Atom) {
			ids = append(ids, in.Atom)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	names, its := ids[0], "its worker"
	if len(ids) > 1 {
		names, its = strings.Join(ids[:len(ids)-1], ", ")+" and "+ids[len(ids)-1], "their workers"
	}
	if len(p.replaced) == 0 {
		return &model.Refusal{Rule: model.RuleInProgress, Reason: fmt.Sprintf(
			"%s went in progress while the correction was being written; writing it now would interrupt %s; nothing was written", names, its)}
	}
	return &model.Refusal{Rule: model.RuleInProgress, Reason: fmt.Sprintf(
		"%s went in progress after the correction was made; applying it again would interrupt %s", names, its)}
}

// plannedOn is a version a plan was made on: its lineage, and when.
type plannedOn struct {
	lineage model.Lineage
	at      time.Time
}

// replacedVersion is a version one of our writes replaced: its hash, and
// when the write was made.
type replacedVersion struct {
	sum [sha256.Size]byte
	at  time.Time
}

// descends returns a *StandDownError unless doc may be the loop's work on
// a version this planner planned on (nil before the first plan).
func (p *planner) descends(doc *statefile.Document) error {
	if len(p.refs) == 0 {
		return nil
	}
	if p.reverted(doc.Data) {
		return &StandDownError{Summary: p.summary(), Kind: StandDownRevert, Written: true}
	}
	// The newest version planned on says best what changed; one that the
	// file is only behind of may come back.
	var brk *model.Break
	for _, r := range p.refs {
		b := r.lineage.Check(doc.State)
		if b == nil || (b.Behind > 0 && time.Since(r.at) < loopWindow) {
			// Lacking only that version's last corrections[] entries,
			// within loopWindow of planning on it, the file is a loop
			// script's write that read it before them (they were there
			// when we planned): the loop's work, whether or not their
			// writers put them back — one that gave up (exit 3) or whose
			// guard ended never will.
			return nil
		}
		if brk == nil || b.Behind > 0 || brk.Behind == 0 {
			brk = b
		}
	}
	kind := StandDownNewLoop
	if brk.Kind == model.BreakOlderVersion {
		kind = StandDownOlderVersion
	}
	return &StandDownError{Summary: p.summary(), Kind: kind, Reason: brk.Reason, Written: len(p.replaced) > 0, behind: brk.Behind > 0}
}

// reverted reports whether data are bytes one of our writes replaced, and
// loopWindow has passed since the last write that replaced them: a script
// that read them before that write would have written them back by now.
// Within the window they are taken for the loop's work (Lineage accepts
// them: they are a version planned on), and the correction is applied
// again.
func (p *planner) reverted(data []byte) bool {
	sum := sha256.Sum256(data)
	var last time.Time
	for _, r := range p.replaced {
		if r.sum == sum && r.at.After(last) {
			last = r.at
		}
	}
	return !last.IsZero() && time.Since(last) >= loopWindow
}

// wrote notes a write of the last plan: res.Before is what it replaced
// (a return to those bytes after loopWindow is a revert), and the intent
// is its own.
func (p *planner) wrote(res *statefile.UpdateResult) {
	if res == nil || !res.Wrote || res.Doc == nil || res.NewDoc == nil || bytes.Equal(res.Before, res.After) {
		return // nothing written, or our bytes a loop write built on
	}
	p.replaced = append(p.replaced, replacedVersion{sum: sha256.Sum256(res.Before), at: time.Now()})
	if p.req != nil {
		p.intent = model.IntentOf(res.Doc.State, res.NewDoc.State)
	}
}

// defeated returns why doc, which carries the correction, undoes what it
// meant ("" when it does not).
func (p *planner) defeated(doc *statefile.Document) string {
	return p.intent.Defeated(doc.State)
}

func (p *planner) summary() string {
	if p.plan != nil {
		return p.plan.Summary
	}
	if p.req != nil {
		return p.req.Kind()
	}
	return "redirect_requested"
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

// flagPlan is the plan that sets redirect_requested to v in st (nil when
// it already is v).
func flagPlan(st *model.State, v bool) (*model.Plan, error) {
	p, err := model.PlanCorrection(st, model.SetRedirect{Requested: v}, model.PlanContext{})
	var ref *model.Refusal
	if errors.As(err, &ref) && ref.Rule == model.RuleNoChange {
		return nil, nil // already as wanted
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// ErrNotPreviewed is wrapped by the error of a correction refused because
// the file is no longer the version it was previewed on
// (RunOptions.ExpectSHA256): nothing was written.
var ErrNotPreviewed = errors.New("not the previewed version")

// NotPreviewedError says which version a correction was previewed on and
// which the file holds instead.
type NotPreviewedError struct {
	// Want is the sha256 of the version previewed, Got of the one the
	// write found.
	Want, Got [sha256.Size]byte
}

func (e *NotPreviewedError) Error() string {
	return fmt.Sprintf("the file is no longer the version previewed (sha256 %x…, it holds %x… now): it was written since; nothing was written — preview the correction again on what it holds now",
		e.Want[:6], e.Got[:6])
}

// Unwrap makes errors.Is(err, ErrNotPreviewed) true.
func (e *NotPreviewedError) Unwrap() error { return ErrNotPreviewed }

// testPlanHook, when set (by tests), is called with the bytes a
// correction with RunOptions.ExpectSHA256 is being planned on, once they
// passed the check: tests land a loop write there, inside the write.
var testPlanHook func(data []byte)

func planHook(data []byte) {
	if testPlanHook != nil {
		testPlanHook(data)
	}
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
	// Interrupt is the person's yes (--interrupt) to interrupting the
	// workers on the in-progress atoms the correction touches as first
	// planned (model.PlanContext.Interrupt); it covers no atom that goes
	// in progress later (see planner).
	Interrupt bool
	// ExpectSHA256, when set, is the sha256 of the version the correction
	// was previewed on: it is written only on that version. The check is
	// made inside the write, on the bytes the plan is made on, so a loop
	// write at any moment before the exchange refuses it (a
	// *NotPreviewedError, ErrNotPreviewed) rather than having it planned
	// again on the loop's bytes. The guard's re-applies after the write
	// are not held to it.
	ExpectSHA256 *[sha256.Size]byte
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
// merged in. A file at the path that does not descend from the version
// the correction was written on (a new loop, an older version, a revert:
// see planner) ends the guard: the correction is not carried over. The
// error is a *model.Refusal (the correction breaks a rule), wraps
// statefile.ErrConflict (the file kept changing), ErrLost (it was undone
// and could not be applied again, or the loop's next write undid what it
// meant), ErrStoodDown (a *StandDownError) or ErrNotPreviewed (a
// *NotPreviewedError: the file is not the version o.ExpectSHA256 names),
// or is an I/O or parse error.
func Run(path string, req model.Request, o RunOptions) (*Outcome, error) {
	pl := &planner{req: req, ctx: model.PlanContext{Now: o.now(), Note: o.Note, Interrupt: o.Interrupt}, expect: o.ExpectSHA256}
	res, err := pl.update(path, statefile.UpdateOptions{MaxSize: o.MaxSize, DryRun: o.DryRun,
		Carried: pl.carried, KeepDisplaced: o.Guard > 0})
	pl.expect = nil // written (or not): the guard re-applies on the loop's writes
	out := &Outcome{Plan: pl.plan, Result: res}
	if res != nil {
		out.Merged = res.Merged
	}
	if err == nil && !o.DryRun {
		pl.wrote(res)
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
