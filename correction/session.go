package correction

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// Session is one person's corrections of one loop in the TUI. Its methods
// are called on the UI goroutine and never block: those that read or write
// the file return a Job, which the caller runs elsewhere (a tea.Cmd) and
// whose Result it hands back to the UI. The session runs its jobs' file
// work one at a time in the order the jobs were made, whatever order the
// caller runs them in: a form opened and cancelled at once writes the flag
// true, then false, never the other way round.
type Session struct {
	path string
	opts Options
	// FlagGuard is how long after this session clears redirect_requested a
	// flag seen true again counts as our clear undone by a loop write (it
	// is cleared again) rather than someone's new /redirect.
	FlagGuard time.Duration
	// Grace is how long files our writes replaced are watched for late
	// in-place loop writes (see statefile.Displaced).
	Grace time.Duration
	// GuardLife bounds how long a correction is guarded after it was last
	// written (see guarded.over).
	GuardLife time.Duration
	// RiskyTime is how long after a correction was written quitting
	// risks it (see Risky).
	RiskyTime time.Duration
	// PauseWait bounds the wait for another aot-tui's pause lock (see
	// pause.go): a process stopped while holding it (ctrl+z) fails our
	// flag write with a message rather than hanging it.
	PauseWait time.Duration

	q queue

	mu sync.Mutex // guards what follows
	// flagWant is the value this session last asked redirect_requested
	// to have; flagOurs is true while a true flag is this session's (a
	// form of ours is open); flagTouched once it has asked for the flag;
	// flagWritten is the value it last wrote (a true in the file that we
	// did not write is someone else's); flagForce clears even theirs.
	flagWant, flagOurs, flagTouched bool
	flagWritten, flagForce          bool
	flagClearedAt                   time.Time
	flagFixes                       int
	// The pause shared with other aot-tui processes (pause.go): shared
	// when leases are used (a form of ours wants the loop paused while
	// flagWant is true); form names it for the lease; lease is ours while
	// held; pause is what the last look saw.
	shared bool
	form   string
	lease  *statefile.PauseLease
	pause  PauseView
	looks  sync.WaitGroup
	// ours are the last contents this session wrote, to tell its own
	// writes from the loop's when the watcher reports them.
	ours    [][]byte
	applied []*applied
	guarded []*guarded
	// closing is closed (under mu) when Close begins (over): what
	// waits on the far side stops, and nothing new starts.
	closing chan struct{}
	// hold is the pause a form holds on the file's machine (elsewhere.go);
	// oursElsewhere the sha256 of what the pause wrote there.
	hold          *holding
	oursElsewhere [][sha256.Size]byte
	// pausedSum is the version the pause's write made there, until a
	// preview has waited for the stream to bring it; holdLost: the pause
	// there ended while a form was open.
	pausedSum string
	holdLost  bool
	// owed is the last version Check skipped a busy guard on (Recheck).
	owed *statefile.Document
}

// Applied is a correction this session wrote, as its message log lists
// it and undo finds it (Session.Applied, Session.PreviewUndo).
type Applied struct {
	// ID numbers the session's corrections from 1, in the order they
	// were written.
	ID int
	// Summary names it ("added A9"); Correction is its corrections[]
	// entry as last written (nil for a stop, which records none).
	Summary    string
	Correction *model.Correction
	// Undoes is the ID of the correction it undoes (0: it is not an
	// undo); UndoneBy the ID of the last undo of it written since (0:
	// none).
	Undoes, UndoneBy int
	// Gone says why it is no longer in effect ("" while it is): the
	// guard reported it lost, or not carried over to the file at the
	// path.
	Gone string
}

// applied is an Applied with what undoing it needs.
type applied struct {
	Applied
	g *guarded
	// inv undoes it, as last written (model.Inverse of the versions
	// before and after that write); invErr when it could not be made.
	inv    *model.Undo
	invErr error
	// elsewhere: it was not carried over (the file at the path is not
	// the loop it was written on): it is not undone on that file.
	elsewhere bool
}

// guarded is a correction this session applied, watched until its guard
// ends (see over), it stands down or it is lost.
type guarded struct {
	pl      *planner
	first   *model.Plan
	summary string
	// installed is what our last write of it put in the file.
	installed []byte
	// busy counts the jobs queued or running that use its planner (a
	// re-apply, a merge, a report): Check leaves it alone meanwhile.
	busy      int
	reapplied int
	// written is when it was last written; iterEnd the iteration at which
	// its guard ends; running whether the loop was running then.
	written time.Time
	iterEnd int
	running bool
}

// noteWrite starts the guard's life again at a write of the correction
// whose result is st.
func (g *guarded) noteWrite(st *model.State) {
	g.written = time.Now()
	c := st.Control
	g.running = c.Status == model.LoopRunning
	// The stop hook runs, and counts an iteration, each time one of the
	// loop's agents stops: the coordinator and up to max_parallel_agents
	// workers. Once the iteration has moved on past all of those, every
	// script and worker that was running when we wrote has finished, and
	// an in_progress atom does not outlive its iteration (the coordinator
	// resets orphans first thing).
	g.iterEnd = c.Iteration + st.Objective.Constraints.EffectiveMaxParallelAgents() + 2
}

// over reports whether the guard's life has ended on st, a version that
// carries the correction: the loop's iteration has moved on far enough
// (noteWrite), the loop has stopped or completed after running, or life
// has passed since the correction was last written. A correction that
// survived that far is built on by the loop's own writes; guarding it
// longer would only risk re-applying it where it no longer belongs.
func (g *guarded) over(st *model.State, life time.Duration) bool {
	switch c := st.Control; {
	case time.Since(g.written) >= life:
		return true
	case g.running && (c.Status == model.LoopStopped || c.Status == model.LoopCompleted):
		return true
	case c.Iteration >= g.iterEnd:
		return true
	}
	return false
}

// DefaultGuardLife is how long, at most, the TUI guards a correction after
// it was last written: long enough for a worker that was on an atom the
// correction reset to finish, bounded so that no guard lives for ever.
const DefaultGuardLife = 30 * time.Minute

// NewSession starts the session of the state file at path.
func NewSession(path string, opts Options) *Session {
	s := &Session{path: path, opts: opts, FlagGuard: 3 * time.Second, Grace: 2 * time.Second, GuardLife: DefaultGuardLife,
		PauseWait: DefaultPauseWait, closing: make(chan struct{})}
	s.RiskyTime = max(loopWindow, s.Grace)
	s.shared = statefile.PauseLeasesSupported && !opts.SoloPause && opts.Elsewhere == nil
	s.q.init()
	return s
}

// A Job does the file work of a session step; run it off the UI goroutine
// and give its Result to the UI.
type Job func() Result

// Result is what a Job did: one of FlagResult, PreviewResult, ApplyResult,
// UndoResult, GuardResult, PauseResult.
type Result interface{ isResult() }

// FlagResult is a write of redirect_requested.
type FlagResult struct {
	// Set is the value asked for; Wrote says whether the file needed the
	// write (false when it held Set already).
	Set, Wrote bool
	// Held: the flag was left set because this many other aot-tui forms
	// still hold the pause.
	Held int
	Err  error
	// After is what the write left in the file (when Wrote).
	After []byte
}

// PreviewResult is a correction planned on the file as it is.
type PreviewResult struct {
	Preview *Preview
	// Err is a *model.Refusal when the correction breaks a rule on the
	// file as it is, or why the file could not be read.
	Err error
}

// ApplyResult is an apply.
type ApplyResult struct {
	// Plan is the correction written (nil when not written); ID is its
	// number among this session's corrections (Session.Applied).
	Plan *model.Plan
	ID   int
	// Replanned is set when the loop wrote the file since the preview:
	// nothing was written, and this is the correction planned again on
	// what the loop wrote, to show instead.
	Replanned *Preview
	// Merged counts loop writes that landed in the instant before ours
	// and were kept.
	Merged int
	Err    error
	// Follow, when set, watches the file the write replaced for late loop
	// writes (see Session.Grace); run it like any Job.
	Follow Job
}

// UndoResult is an undo made by Session.Undo.
type UndoResult struct {
	// Summary names the correction undone ("added A9").
	Summary string
	// Plan is the undo written (nil when not written); ID its number
	// among this session's corrections.
	Plan *model.Plan
	ID   int
	// Restored is what the file holds now.
	Restored []byte
	Err      error
}

// GuardResult is the guard's work after a loop write: a correction
// applied again, a late loop write merged in, the flag set again — or a
// correction lost, or not carried over to a file that does not descend
// from ours.
type GuardResult struct {
	// Summary names the correction.
	Summary string
	// Plan is the correction as now written, Was as first applied (they
	// differ when it was planned again on a loop write); a correction
	// lost or not carried over has Was only.
	Plan, Was *model.Plan
	// Reapplied: the loop wrote over the correction; it was applied again.
	Reapplied bool
	// Merged: a loop write into a file ours had replaced was merged in.
	Merged int
	// Flag: redirect_requested was written again (Set).
	Flag, Set bool
	// Err wraps ErrLost when the correction is gone for good or undone
	// (a *LostError), ErrStoodDown when the file at the path is no longer
	// the loop the correction was written on (a *StandDownError): the
	// guard has ended either way.
	Err error
}

func (FlagResult) isResult()    {}
func (PreviewResult) isResult() {}
func (ApplyResult) isResult()   {}
func (UndoResult) isResult()    {}
func (GuardResult) isResult()   {}

// Preview is a correction planned once on the bytes the person sees.
type Preview struct {
	// Plan is the correction.
	Plan *model.Plan
	// Base is what the file held when it was planned, After what the
	// write makes of it; Diff the unified diff between them.
	Base, After []byte
	Diff        string
	// Replanned is set on a preview planned again because the loop wrote
	// the file since the last one.
	Replanned bool
	// ClearsFlag: the write also sets redirect_requested back to false
	// (this session set it); FlagNote says what that means for the loop.
	ClearsFlag bool
	// releasesOn names the file's machine when the session's pause held
	// there (Elsewhere) is let go once the correction is written.
	releasesOn string

	pl  *planner
	res *statefile.UpdateResult
}

// FlagNote says, for a preview to show under the correction, what setting
// redirect_requested back to false with the write means for the loop: a
// running loop resumes; a stop lets the stop hook end it; a loop that is
// not running stays as it is. "" when the write leaves the flag alone or
// changes nothing.
func (p *Preview) FlagNote() string {
	if !(p.ClearsFlag || p.releasesOn != "") || bytes.Equal(p.Base, p.After) {
		return ""
	}
	cleared := "and redirect_requested back to false"
	if p.releasesOn != "" {
		cleared = "then the pause on " + termtext.Line(p.releasesOn) + " ends (redirect_requested back to false there unless another aot-tui form holds it)"
	}
	var status model.LoopStatus
	if p.res != nil && p.res.Doc != nil {
		status = p.res.Doc.State.Control.Status
	}
	switch {
	case p.Plan != nil && p.Plan.Kind == (model.Stop{}).Kind():
		return cleared + ": the stop hook then ends the loop at its next decision"
	case status == model.LoopRunning:
		return cleared + ": the loop resumes"
	case status == model.LoopPending:
		return cleared + "; the loop has not started: nothing runs until /enter-recursion"
	case status == model.LoopStopped:
		return cleared + "; the loop is stopped: nothing runs until /enter-recursion starts it again"
	case status == model.LoopCompleted:
		return cleared + "; the loop has completed: nothing runs"
	}
	return cleared
}

// Pending is how many jobs are made and not finished (tests wait for 0).
func (s *Session) Pending() int { return s.q.pending() }

// FlagOurs reports whether redirect_requested is true because of this
// session (a form of ours is open).
func (s *Session) FlagOurs() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flagOurs
}

// FlagTouched reports whether this session has written the flag: a true
// flag is then ours, or someone's live /redirect — never a leftover.
func (s *Session) FlagTouched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flagTouched
}

// CanUndo reports whether there is a correction of this session for Undo
// to undo.
func (s *Session) CanUndo() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUndoable() != nil
}

// LastUndoable is the ID of the correction Undo would undo (0: none),
// for a UI that previews it first (PreviewUndo).
func (s *Session) LastUndoable() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a := s.lastUndoable(); a != nil {
		return a.ID
	}
	return 0
}

// lastUndoable (s.mu held) is the correction Undo undoes: the last one
// written that is not an undo, not undone since and still in effect.
func (s *Session) lastUndoable() *applied {
	for i := len(s.applied) - 1; i >= 0; i-- {
		if a := s.applied[i]; a.Undoes == 0 && a.UndoneBy == 0 && a.Gone == "" {
			return a
		}
	}
	return nil
}

// Applied lists this session's corrections, oldest first: what the
// message log offers to undo (PreviewUndo).
func (s *Session) Applied() []Applied {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Applied, len(s.applied))
	for i, a := range s.applied {
		out[i] = a.Applied
		if c := a.Correction; c != nil {
			cc := *c
			out[i].Correction = &cc
		}
	}
	return out
}

// find (s.mu held) is the correction numbered id.
func (s *Session) find(id int) *applied {
	if id < 1 || id > len(s.applied) {
		return nil
	}
	return s.applied[id-1]
}

// inverseOf is the undo of the correction numbered id, as it was last
// written.
func (s *Session) inverseOf(id int) (*model.Undo, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.find(id)
	switch {
	case a == nil:
		return nil, "", fmt.Errorf("no correction %d in this session", id)
	case a.elsewhere:
		return nil, a.Summary, &model.Refusal{Rule: model.RuleUndo, Reason: fmt.Sprintf("%s was not carried over to the file at the path (%s): it is not undone there", a.Summary, a.Gone)}
	case a.invErr != nil:
		return nil, a.Summary, a.invErr
	}
	return a.inv, a.Summary, nil
}

// PreviewUndo plans the undo of this session's correction numbered id
// (Applied) on the file as it is now, as a correction of its own
// (model.Inverse): a loop that wrote the file since is no obstacle, only
// what its later work makes impossible to put back (a *model.Refusal
// says what). Apply writes it like any preview, with its own
// corrections[] entry, and guards it; the correction undone is no longer
// guarded (its UndoneBy names the undo). Any correction of the session
// can be undone, not just the last, and an undo too (which puts the
// correction back).
func (s *Session) PreviewUndo(id int, note string) Job {
	now := s.opts.now()
	return s.q.add(func() Result {
		inv, _, err := s.inverseOf(id)
		if err != nil {
			return PreviewResult{Err: err}
		}
		p, err := s.previewUndo(inv, id, note, now, false)
		return PreviewResult{Preview: p, Err: err}
	})
}

func (s *Session) previewUndo(inv *model.Undo, id int, note string, now time.Time, replanned bool) (*Preview, error) {
	p, err := s.preview(inv, note, now, replanned)
	if p != nil {
		p.pl.undoes = id
	}
	return p, err
}

// IsOurs reports whether data is what one of this session's writes left.
func (s *Session) IsOurs(data []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.ours {
		if bytes.Equal(d, data) {
			return true
		}
	}
	if len(s.oursElsewhere) > 0 {
		return slices.Contains(s.oursElsewhere, sha256.Sum256(data))
	}
	return false
}

func (s *Session) remember(data []byte) {
	if data == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.ours {
		if bytes.Equal(d, data) {
			return // remembered as it was installed
		}
	}
	s.ours = append(s.ours, data)
	if len(s.ours) > 6 {
		s.ours = s.ours[len(s.ours)-6:]
	}
}

// Begin is called when a form opens: it asks for redirect_requested to
// be set, so that the loop's stop hook pauses the loop. Whether the flag is
// already set, and by whom, is decided by the job on the file itself, in
// the order of this session's writes: a flag someone else set stays
// theirs (cancel, apply and undo leave it as they found it). With shared
// pauses the form also holds a lease, so that other aot-tui processes
// keep the flag set while it is open.
func (s *Session) Begin() Job { return s.BeginFor("") }

// BeginFor is Begin for a form named form ("constraints"): the name is
// what other aot-tui processes are told holds the pause.
func (s *Session) BeginFor(form string) Job {
	s.mu.Lock()
	if form != "" {
		s.form = form
	}
	if s.flagOurs || (s.shared && s.flagWant) {
		s.mu.Unlock()
		return nil
	}
	s.flagOurs, s.flagWant, s.flagTouched = true, true, true
	s.mu.Unlock()
	return s.flagJob()
}

// End is called when a form closes without a write (cancel, quit, a
// failure), or stays open but lets the loop go (the person has not typed
// for a while; BeginFor takes the pause again): a flag this session set
// is cleared unless other aot-tui forms still hold the pause; anyone
// else's is left.
func (s *Session) End() Job {
	s.mu.Lock()
	if !s.flagOurs && !(s.shared && s.flagWant) {
		s.mu.Unlock()
		return nil
	}
	if s.flagOurs && !s.shared {
		// A true seen soon is our clear undone (checkFlag). (With shared
		// pauses the clock starts when a clear is written: syncShared.)
		s.flagClearedAt = time.Now()
	}
	s.flagOurs, s.flagWant = false, false
	s.mu.Unlock()
	return s.flagJob()
}

// ClearForeignFlag clears a redirect_requested this session did not set
// (a leftover the person chose to clear).
func (s *Session) ClearForeignFlag() Job {
	s.mu.Lock()
	s.flagOurs, s.flagWant, s.flagTouched, s.flagForce, s.flagClearedAt = false, false, true, true, time.Now()
	s.mu.Unlock()
	return s.flagJob()
}

// flagJob brings redirect_requested to the value last asked for when the
// job runs (earlier asks are superseded).
func (s *Session) flagJob() Job {
	return s.q.add(func() Result {
		s.mu.Lock()
		want, force := s.flagWant, s.flagForce
		s.flagForce = false
		s.mu.Unlock()
		return s.syncFlag(want, force)
	})
}

// syncFlag makes the file's flag want, unless a true in it is someone
// else's (this session did not write it): that one is left, and is not
// ours to clear later. With shared pauses, "this session" is every
// aot-tui form on the file (syncShared).
func (s *Session) syncFlag(want, force bool) FlagResult {
	switch {
	case s.opts.Elsewhere != nil && force:
		return s.clearElsewhere()
	case s.opts.Elsewhere != nil:
		return s.syncElsewhere(want)
	}
	if s.shared {
		return s.syncShared(want, pauseRule{held: force})
	}
	doc, err := statefile.Load(s.path, s.opts.MaxSize)
	if err != nil {
		return s.flagFailed(want, err)
	}
	on := doc.State.Control.RedirectRequested
	s.mu.Lock()
	mine := s.flagWritten
	s.mu.Unlock()
	switch {
	case on && !mine && !force:
		if want {
			s.mu.Lock()
			if s.flagWant {
				s.flagOurs = false
			}
			s.mu.Unlock()
		}
		return FlagResult{Set: true}
	case on == want:
		return FlagResult{Set: want}
	}
	return s.writeFlag(want)
}

func (s *Session) writeFlag(v bool) FlagResult {
	carried := func(doc *statefile.Document) bool { return doc.State.Control.RedirectRequested == v }
	res, err := statefile.Update(s.path, statefile.UpdateOptions{MaxSize: s.opts.MaxSize, Carried: carried, Installing: s.remember},
		func(doc *statefile.Document) (*model.Plan, error) { return flagPlan(doc.State, v) })
	if err != nil {
		return s.flagFailed(v, err)
	}
	s.mu.Lock()
	s.flagWritten = v
	s.mu.Unlock()
	r := FlagResult{Set: v, Wrote: res.Wrote}
	if res.Wrote {
		s.remember(res.After)
		r.After = res.After
	}
	return r
}

func (s *Session) flagFailed(v bool, err error) FlagResult {
	s.mu.Lock()
	if v && s.flagWant {
		s.flagOurs = false // the loop was not paused: nothing of ours to clear
	}
	s.mu.Unlock()
	return FlagResult{Set: v, Err: err}
}

// Preview plans req on the file as it is now, once: what the person sees
// is what Apply writes. The write also clears the flag when this session
// set it.
func (s *Session) Preview(req model.Request, note string) Job {
	now := s.opts.now()
	return s.q.add(func() Result {
		p, err := s.preview(req, note, now, false)
		return PreviewResult{Preview: p, Err: err}
	})
}

func (s *Session) preview(req model.Request, note string, now time.Time, replanned bool) (*Preview, error) {
	if s.opts.Elsewhere != nil {
		return s.previewElsewhere(req, note, now, replanned)
	}
	s.mu.Lock()
	clear := s.flagOurs
	s.mu.Unlock()
	if clear && s.shared {
		clear = s.lastToGo()
	}
	// The preview names the workers the correction interrupts, and the
	// TUI asks the person before it applies one that does (their yes
	// covers those atoms only: see planner).
	pl := &planner{req: req, ctx: model.PlanContext{Now: now, Note: note, Interrupt: true}, clearFlag: clear}
	res, err := statefile.Update(s.path, statefile.UpdateOptions{MaxSize: s.opts.MaxSize, DryRun: true}, pl.planFunc())
	if err != nil {
		return nil, err
	}
	return &Preview{Plan: pl.plan, Base: res.Before, After: res.After, Diff: statefile.UnifiedDiff(s.path, res.Before, res.After),
		Replanned: replanned, ClearsFlag: pl.flagCleared, pl: pl, res: res}, nil
}

// Apply writes exactly the previewed bytes when the file still holds what
// the preview was planned on. When the loop wrote it meanwhile, nothing is
// written: the result carries the correction planned again on the new
// bytes (Replanned), for the person to look at again.
func (s *Session) Apply(p *Preview) Job {
	return s.q.add(func() Result { return s.apply(p) })
}

func (s *Session) apply(p *Preview) ApplyResult {
	if s.opts.Elsewhere != nil {
		return s.applyElsewhere(p)
	}
	opts := statefile.UpdateOptions{MaxSize: s.opts.MaxSize, Prepared: p.res, Carried: p.pl.carried, KeepDisplaced: true, Installing: s.remember}
	pause, err := s.pauseForApply(p, &opts)
	if err != nil {
		return ApplyResult{Err: err}
	}
	defer pause.unlock()
	res, err := statefile.Update(s.path, opts, p.pl.planFunc())
	if errors.Is(err, statefile.ErrStale) {
		pause.unlock() // the new preview looks at the pause itself
		again, err := s.preview(p.pl.req, p.pl.ctx.Note, p.pl.ctx.Now, true)
		if err != nil {
			return ApplyResult{Err: err}
		}
		again.pl.undoes = p.pl.undoes
		return ApplyResult{Replanned: again}
	}
	if err != nil {
		return ApplyResult{Err: err}
	}
	s.remember(res.After)
	p.pl.wrote(res)
	g := &guarded{pl: p.pl, first: p.Plan, summary: p.Plan.Summary, installed: res.After}
	g.noteWrite(res.NewDoc.State)
	cleared := p.pl.flagCleared // as written (with shared pauses, decided at the write)
	pause.written(cleared)
	a := &applied{Applied: Applied{Summary: p.pl.plan.Summary, Correction: p.pl.plan.Correction, Undoes: p.pl.undoes}, g: g}
	a.inv, a.invErr = inverseOfWrite(res)
	s.mu.Lock()
	if cleared {
		s.flagOurs, s.flagWant, s.flagWritten, s.flagClearedAt = false, false, false, time.Now()
	}
	a.ID = len(s.applied) + 1
	s.applied = append(s.applied, a)
	if undone := s.find(p.pl.undoes); undone != nil {
		// Undone: its guard would take the undo for a loop write that
		// undid it.
		undone.UndoneBy = a.ID
		s.unguard(undone.g)
	}
	s.guarded = append(s.guarded, g)
	s.mu.Unlock()
	out := ApplyResult{Plan: p.pl.plan, ID: a.ID, Merged: res.Merged}
	if res.Displaced != nil {
		out.Follow = s.watchDisplaced(res.Displaced, g)
	}
	return out
}

// watchDisplaced watches a file our write replaced for Grace: a loop
// script that had opened it before our write writes into it, and that
// write is merged into the file.
func (s *Session) watchDisplaced(d *statefile.Displaced, g *guarded) Job {
	summary := g.summary
	return func() Result {
		defer d.Close()
		merged := 0
		var err error
		for end := time.Now().Add(s.Grace); time.Now().Before(end) && !s.isClosed(); time.Sleep(5 * time.Millisecond) {
			data, changed := d.Changed()
			if !changed || !d.Foreign() {
				continue
			}
			s.mu.Lock()
			g.busy++
			s.mu.Unlock()
			r := s.q.add(func() Result {
				s.mu.Lock()
				installed := g.installed
				s.mu.Unlock()
				defer func() {
					s.mu.Lock()
					g.busy--
					s.mu.Unlock()
				}()
				final, err := statefile.Merge(s.path, d.Base(), data, statefile.MergeOptions{MaxSize: s.opts.MaxSize,
					Installed: installed, Plan: g.pl.planFunc(), Carried: g.pl.carried})
				if final != nil {
					s.remember(final)
					s.mu.Lock()
					g.installed = final
					s.mu.Unlock()
				}
				return GuardResult{Summary: summary, Merged: 1, Err: err}
			})().(GuardResult)
			merged += r.Merged
			if r.Err != nil {
				err = r.Err
				break
			}
		}
		return GuardResult{Summary: summary, Merged: merged, Err: err}
	}
}

func (s *Session) isClosed() bool { return s.over() }

// over says whether Close has begun. Close closes closing under s.mu,
// so read under s.mu it cannot change before the lock is let go.
func (s *Session) over() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// Undo undoes the last correction of this session that is not an undo,
// not undone and still in effect, as a correction of its own planned on
// the file as it is now and written at once (PreviewUndo, then Apply,
// without showing the preview; planned again when the loop writes
// meanwhile). nil when there is nothing to undo. A refusal
// (*model.Refusal) says what the loop's later work makes impossible to
// put back. The TUI's undo with a preview is PreviewUndo.
func (s *Session) Undo() Job {
	s.mu.Lock()
	a := s.lastUndoable()
	s.mu.Unlock()
	if a == nil {
		return nil
	}
	id := a.ID
	now := s.opts.now()
	return s.q.add(func() Result {
		inv, summary, err := s.inverseOf(id)
		if err != nil {
			return UndoResult{Summary: summary, Err: err}
		}
		p, err := s.previewUndo(inv, id, "", now, false)
		for tries := 0; err == nil; tries++ {
			r := s.apply(p)
			if r.Follow != nil {
				go r.Follow() // its merges are its own report
			}
			switch {
			case r.Replanned != nil && tries < maxReapply:
				p = r.Replanned
				continue
			case r.Replanned != nil:
				err = statefile.ErrConflict
			case r.Err != nil:
				err = r.Err
			default:
				return UndoResult{Summary: summary, Plan: r.Plan, ID: r.ID, Restored: p.After}
			}
		}
		return UndoResult{Summary: summary, Err: err}
	})
}

// inverseOfWrite is the undo of the correction res wrote: the inverse of
// the version it was planned on and the version it made. (A loop write
// merged into that version line by line is not the correction's: the
// version is made again from the plan's own edits.)
func inverseOfWrite(res *statefile.UpdateResult) (*model.Undo, error) {
	if res == nil || res.Doc == nil || res.NewDoc == nil {
		return nil, errors.New("the correction's versions are not known")
	}
	after := res.NewDoc
	if res.Merged > 0 {
		if out, err := statefile.ApplyEdits(res.Doc, res.Edits); err == nil {
			if d, err := statefile.Parse(out); err == nil {
				after = d
			}
		}
	}
	return model.Inverse(res.Doc.State, after.State)
}

// Check is called with each new state of the file the UI sees. It
// returns the jobs that keep this session's corrections in the file: one
// undone by a loop writer that read the file before our write is applied
// again on what it wrote (or reported lost); one the file carries but
// whose intent a loop write undid is reported lost; one whose file was
// replaced by something that does not descend from ours (a new loop, an
// older version, a revert) is not carried over, and that is reported; our
// flag, undone by a loop write, is written again. A correction's guard
// ends with its life (guarded.over), silently.
func (s *Session) Check(doc *statefile.Document) []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over() {
		return nil
	}
	var jobs []Job
	skipped := false
	s.keepGuarded(func(g *guarded) bool {
		switch {
		case g.busy > 0:
			skipped = true
			return true
		case !g.pl.carried(doc):
			if time.Since(g.written) >= s.GuardLife {
				return false // its life ended before this version
			}
			g.busy++
			jobs = append(jobs, s.q.add(func() Result { return s.reapply(g) }))
			return true
		}
		if why := g.pl.defeated(doc); why != "" {
			g.busy++
			jobs = append(jobs, s.q.add(func() Result { return s.defeated(g, why) }))
			return true
		}
		return !g.over(doc.State, s.GuardLife)
	})
	if j := s.checkFlag(doc.State); j != nil {
		jobs = append(jobs, j)
	}
	s.owed = nil
	if skipped {
		s.owed = doc
	}
	return jobs
}

// Recheck is Check again on the last version Check was given, when a
// guard skipped it because a job of that guard was running, and no guard
// is busy now: a loop write that undid a correction just as its job wrote
// it is looked at even when no later version comes (the loop's last write
// of a run). The UI calls it when a job's result comes back. nil when
// nothing is owed (or a guard is still busy: its end calls it again).
func (s *Session) Recheck() []Job {
	s.mu.Lock()
	doc := s.owed
	if doc == nil || s.over() {
		s.mu.Unlock()
		return nil
	}
	for _, g := range s.guarded {
		if g.busy > 0 {
			s.mu.Unlock()
			return nil
		}
	}
	s.owed = nil
	s.mu.Unlock()
	return s.Check(doc)
}

// CheckFlag is the flag part of Check alone, for a UI that looks again
// while nothing new was loaded (a job that was under way when the state
// came in made Check skip it).
func (s *Session) CheckFlag(st *model.State) Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over() || st == nil {
		return nil
	}
	return s.checkFlag(st)
}

// checkFlag (s.mu held) writes the flag again when a loop write undid
// ours: while a form of ours is open it must stay true (the loop pauses);
// just after we cleared it, a true comes from a loop write that read the
// file before our clear (after FlagGuard, it is someone's /redirect).
// With shared pauses a form of ours keeps the flag true whoever set it (a
// foreign true cleared under an open form — by its owner, or by an aot-tui
// that does not know leases — is set again, as ours), and a true after our
// clear is cleared again only while no other form holds the pause.
func (s *Session) checkFlag(st *model.State) Job {
	if s.opts.Elsewhere != nil {
		// The pause there is its aot-tui's to keep (pause --hold); one
		// that ended under an open form is taken again, once the file
		// shows it gone.
		if !s.holdLost || !s.flagWant || st.Control.RedirectRequested || s.q.pending() > 0 || s.flagFixes >= maxReapply {
			return nil
		}
		s.holdLost = false
		s.flagFixes++
		return s.q.add(func() Result {
			r := s.syncElsewhere(true)
			return GuardResult{Summary: "redirect_requested", Flag: r.Wrote, Set: true, Err: r.Err}
		})
	}
	if !s.flagTouched || s.q.pending() > 0 || s.flagFixes >= maxReapply {
		return nil
	}
	on := st.Control.RedirectRequested
	switch {
	case s.flagOurs && s.flagWant && !on:
	case s.shared && s.flagWant && !on:
	case !s.flagOurs && !s.flagWant && on && time.Since(s.flagClearedAt) < s.FlagGuard:
	default:
		return nil
	}
	s.flagFixes++
	want := s.flagWant
	return s.q.add(func() Result {
		// The state that looked undone may be one of our own writes seen
		// late (a form opened and cancelled at once: our true arrives
		// after our false was written); then the file already holds what
		// we want, nothing is written and there is nothing to report.
		// Only real writes count against the bound.
		var r FlagResult
		if s.shared {
			r = s.syncShared(want, pauseRule{unmarked: true})
		} else {
			r = s.writeFlag(want)
		}
		if !r.Wrote && r.Err == nil {
			s.mu.Lock()
			s.flagFixes--
			s.mu.Unlock()
		}
		return GuardResult{Summary: "redirect_requested", Flag: r.Wrote, Set: want, Err: r.Err}
	})
}

// reapply applies a guarded correction again if the file still lacks it.
func (s *Session) reapply(g *guarded) Result {
	defer func() {
		s.mu.Lock()
		g.busy--
		s.mu.Unlock()
	}()
	if !s.isGuarded(g) {
		return GuardResult{Summary: g.summary} // undone meanwhile
	}
	res, lost, err := g.pl.writeAgain(s.path, statefile.UpdateOptions{MaxSize: s.opts.MaxSize, Installing: s.remember}, g.reapplied)
	switch {
	case lost != "":
		return s.lose(g, &LostError{Summary: g.summary, Reason: lost})
	case errors.Is(err, ErrStoodDown):
		return s.lose(g, err)
	case err != nil:
		return GuardResult{Summary: g.summary, Err: err}
	}
	if !res.Wrote {
		return GuardResult{Summary: g.summary} // the file carries it again
	}
	g.reapplied++
	s.remember(res.After)
	g.pl.wrote(res)
	inv, invErr := inverseOfWrite(res)
	s.mu.Lock()
	g.noteWrite(res.NewDoc.State)
	g.installed = res.After
	for _, a := range s.applied {
		if a.g == g {
			a.inv, a.invErr, a.Correction = inv, invErr, g.pl.plan.Correction
		}
	}
	s.mu.Unlock()
	return GuardResult{Summary: g.summary, Plan: g.pl.plan, Was: g.first, Reapplied: true, Merged: res.Merged}
}

// defeated reports a correction the file carries and a loop write undid
// (why), unless it was undone meanwhile.
func (s *Session) defeated(g *guarded, why string) Result {
	defer func() {
		s.mu.Lock()
		g.busy--
		s.mu.Unlock()
	}()
	if !s.isGuarded(g) {
		return GuardResult{Summary: g.summary}
	}
	return s.lose(g, &LostError{Summary: g.summary, Reason: why, Defeated: true})
}

// isGuarded reports whether g is still guarded (not undone, lost or
// stood down).
func (s *Session) isGuarded(g *guarded) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.guarded {
		if x == g {
			return true
		}
	}
	return false
}

// keepGuarded (s.mu held) keeps guarded the corrections keep says yes to
// and ends the guard of the others.
func (s *Session) keepGuarded(keep func(*guarded) bool) {
	k := s.guarded[:0]
	for _, g := range s.guarded {
		if keep(g) {
			k = append(k, g)
		}
	}
	clear(s.guarded[len(k):])
	s.guarded = k
}

// unguard (s.mu held) ends the guard of g.
func (s *Session) unguard(g *guarded) {
	s.keepGuarded(func(x *guarded) bool { return x != g })
}

// lose ends the guard of g, lost or stood down (err says which), and
// reports it.
func (s *Session) lose(g *guarded, err error) GuardResult {
	s.mu.Lock()
	for _, a := range s.applied {
		if a.g == g {
			a.Gone, a.elsewhere = err.Error(), errors.Is(err, ErrStoodDown)
		}
	}
	s.unguard(g)
	s.mu.Unlock()
	return GuardResult{Summary: g.summary, Was: g.first, Err: err}
}

// Risky is what Session.Risky says: how many guarded corrections are in
// their risky time, and when that ends.
type Risky struct {
	// N counts them.
	N int
	// Written is when the last of them was last written; Until when the
	// last of them leaves its risky time.
	Written, Until time.Time
}

// Risky says how many guarded corrections are, at now, in the time when
// quitting (Close: no more checks) would leave a loop write over them
// unseen: a loop script that read the file before our write writes back
// within loopWindow, and a write into the file ours replaced is merged
// only while Grace watches it, so RiskyTime after the correction was
// last written; a correction being applied again or merged counts as
// written now. Past that the loop's writes build on the correction.
func (s *Session) Risky(now time.Time) Risky {
	s.mu.Lock()
	defer s.mu.Unlock()
	var r Risky
	if s.over() {
		return r
	}
	for _, g := range s.guarded {
		written := g.written
		if g.busy > 0 {
			written = now
		}
		until := written.Add(s.RiskyTime)
		if !now.Before(until) {
			continue
		}
		r.N++
		if written.After(r.Written) {
			r.Written = written
		}
		if until.After(r.Until) {
			r.Until = until
		}
	}
	return r
}

// Close ends the session when the TUI exits: a flag this session set is
// cleared (waiting for the write, and for the writes before it), and the
// session's work stops.
func (s *Session) Close() {
	if j := s.End(); j != nil {
		j()
	}
	s.releaseLeaseUnlocked() // only when End could not let it go under the lock
	s.mu.Lock()
	if !s.over() {
		close(s.closing)
	}
	s.mu.Unlock()
	s.looks.Wait()
	s.q.close()
}
