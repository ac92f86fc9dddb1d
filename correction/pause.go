package correction

import (
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// The shared pause. While any aot-tui form on a loop is open, its
// redirect_requested stays true, and the last form to close clears it —
// whichever aot-tui process it belongs to. Each open form holds a lease
// beside the state file (statefile's pause.go: the files, their locks);
// every decision about the flag is taken under the pause lock, so that one
// process's "no other lease: clear" and another's "new lease: set" cannot
// interleave. The lock file also records that aot-tui set the flag: a true
// without that mark is someone else's (the loop's own /redirect, a
// person's edit) and is left as it was found, as before.
//
// A process that dies with a form open leaves its lease behind with no
// lock on it; the next aot-tui that looks removes it, and since the mark
// says the flag is aot-tui's, the next form to close clears it.
//
// Where other processes' locks cannot be seen (statefile.PauseLeasesSupported
// is false), or with Options.SoloPause, the session keeps the pause to
// itself as it did before leases: it clears the flag it set when its own
// form closes, whatever other aot-tui processes have open.

// DefaultPauseWait is how long a session waits for another aot-tui to let
// the pause lock go (Session.PauseWait's default): for a flag write, a
// preview or an apply; a look waits a tenth of it and is skipped when the
// lock stays busy.
const DefaultPauseWait = 3 * time.Second

// PauseView is what the session last saw of who pauses the loop.
type PauseView struct {
	// Shared: other aot-tui processes' forms are seen. Without it (no
	// file locks here) the session knows only its own.
	Shared bool
	// Ours: a form of this session holds the pause.
	Ours bool
	// Others are the other open forms that hold it (of other processes,
	// or other sessions of this one); Gone the leases of processes that
	// died with a form open, removed at this look.
	Others, Gone []statefile.PauseHolder
	// Marked: aot-tui set redirect_requested and has not cleared it.
	Marked bool
	// At is when it was seen (zero: not yet).
	At time.Time
}

// PauseResult is a look at who pauses the loop (LookPause).
type PauseResult struct {
	View PauseView
	Err  error
}

func (PauseResult) isResult() {}

// SharesPause reports whether the session shares the pause with other
// aot-tui processes through leases (false where file locks are not
// available, or with Options.SoloPause).
func (s *Session) SharesPause() bool { return s.shared }

// Pause is what the session last saw of the pause.
func (s *Session) Pause() PauseView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.pause
	if !s.shared {
		v = PauseView{Ours: s.flagOurs}
	}
	return v
}

// LookPause looks at the leases (removing those of processes that are
// gone) and returns who pauses the loop now; nil where leases are not
// used. It does not wait for the session's other jobs: a look changes no
// one's flag.
func (s *Session) LookPause() Job {
	if !s.shared {
		return nil
	}
	return func() Result {
		// Close waits for looks under way (a look holds the lock file
		// for a moment: none is left behind by a clean exit), and none
		// starts after it.
		s.mu.Lock()
		if s.over() {
			s.mu.Unlock()
			return PauseResult{View: s.Pause()}
		}
		s.looks.Add(1)
		s.mu.Unlock()
		defer s.looks.Done()
		p, err := statefile.LockPauses(s.path, s.PauseWait/10)
		if err != nil {
			return PauseResult{View: s.Pause(), Err: err}
		}
		defer p.Unlock()
		others, err := s.lookLocked(p)
		if err == nil && p.Marked() && len(others) == 0 && !s.holdsLease() {
			// The mark outlived the flag (the loop or a person cleared
			// it, and no form is open): it says nothing any more.
			if doc, lerr := statefile.Load(s.path, s.opts.MaxSize); lerr == nil && !doc.State.Control.RedirectRequested {
				err = p.SetMarked(false)
				s.mu.Lock()
				s.pause.Marked = false
				s.mu.Unlock()
			}
		}
		return PauseResult{View: s.Pause(), Err: err}
	}
}

func (s *Session) holdsLease() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease != nil
}

// lookLocked scans the leases under the pause lock p, notes what it saw
// and returns the live leases that are not this session's.
func (s *Session) lookLocked(p *statefile.Pauses) ([]statefile.PauseHolder, error) {
	live, dead, err := p.Scan()
	s.mu.Lock()
	defer s.mu.Unlock()
	var others []statefile.PauseHolder
	ours := false
	for _, h := range live {
		if s.lease != nil && h.File == s.lease.Holder().File {
			ours = true
			continue
		}
		others = append(others, h)
	}
	s.pause = PauseView{Shared: true, Ours: ours, Others: others, Gone: dead, Marked: p.Marked(), At: time.Now()}
	return others, err
}

// pauseRule is how syncShared treats a true flag when it is asked to
// clear it.
type pauseRule struct {
	// unmarked: clear a true aot-tui did not mark (ours, seen late).
	unmarked bool
	// held: clear it even while other forms hold the pause (the person
	// chose to).
	held bool
}

// syncShared brings the flag to want under the pause lock: with want, this
// session holds a lease and the flag is set unless it is true already;
// without, its lease goes and the flag is cleared if no other form holds
// the pause and aot-tui set it (see pauseRule).
func (s *Session) syncShared(want bool, rule pauseRule) FlagResult {
	p, err := statefile.LockPauses(s.path, s.PauseWait)
	if err != nil {
		return s.flagFailed(want, err)
	}
	defer p.Unlock()
	if !want {
		s.dropLease(p)
	}
	others, err := s.lookLocked(p)
	if err != nil {
		return s.flagFailed(want, err)
	}
	doc, err := statefile.Load(s.path, s.opts.MaxSize)
	if err != nil {
		return s.flagFailed(want, err)
	}
	on := doc.State.Control.RedirectRequested
	if want {
		if err := s.takeLease(p); err != nil {
			return s.flagFailed(want, err)
		}
		switch {
		case !on:
			r := s.writeFlag(true)
			if r.Err == nil {
				s.mu.Lock()
				s.flagOurs = s.flagWant // the true we wrote is ours to clear
				s.mu.Unlock()
				r.Err = s.mark(p, true)
			}
			return r
		case !p.Marked():
			// Someone else's true: it stays theirs (not ours to clear
			// when the form closes), while our lease tells other aot-tui
			// processes that a form is open.
			s.mu.Lock()
			if s.flagWant {
				s.flagOurs = false
			}
			s.mu.Unlock()
		}
		return FlagResult{Set: true}
	}
	switch {
	case len(others) > 0 && !rule.held:
		return FlagResult{Held: len(others)}
	case !on:
		return FlagResult{Err: s.mark(p, false)}
	case !p.Marked() && !rule.unmarked && !rule.held:
		return FlagResult{Set: true} // someone else's: left as it was found
	}
	r := s.writeFlag(false)
	if r.Err == nil {
		s.mu.Lock()
		s.flagClearedAt = time.Now() // a true seen soon is this clear undone (checkFlag)
		s.mu.Unlock()
		r.Err = s.mark(p, false)
	}
	return r
}

// mark records in the pause lock whether aot-tui set the flag.
func (s *Session) mark(p *statefile.Pauses, v bool) error {
	err := p.SetMarked(v)
	s.mu.Lock()
	s.pause.Marked = p.Marked()
	s.mu.Unlock()
	return err
}

// takeLease makes sure this session holds a lease (under p).
func (s *Session) takeLease(p *statefile.Pauses) error {
	s.mu.Lock()
	held, form := s.lease != nil, s.form
	s.mu.Unlock()
	if held {
		return nil
	}
	l, err := p.Take(form, time.Now())
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.lease = l
	s.pause.Ours = true
	s.mu.Unlock()
	return nil
}

// dropLease lets this session's lease go (under p).
func (s *Session) dropLease(p *statefile.Pauses) {
	s.mu.Lock()
	l := s.lease
	s.lease = nil
	s.pause.Ours = false
	s.mu.Unlock()
	if l != nil {
		_ = p.Drop(l) // its lock is gone with its file closed; a file left behind is a dead lease
	}
}

// applyPause is the pause lock held through an apply: the apply clears the
// flag only when this session's form is the last to hold the pause and
// aot-tui set it — decided when the write is made, not when the preview
// was (another form may have opened since, or closed).
type applyPause struct {
	s *Session
	p *statefile.Pauses
}

// pauseForApply takes the pause lock for the apply of pr (nil where
// leases are not used) and makes its plan clear the flag or not, as the
// leases say now. When that differs from the preview, the correction is
// planned again on the very bytes the preview was planned on (Expect):
// only the flag line differs from what the person saw.
func (s *Session) pauseForApply(pr *Preview, opts *statefile.UpdateOptions) (*applyPause, error) {
	if !s.shared {
		return nil, nil
	}
	p, err := statefile.LockPauses(s.path, s.PauseWait)
	if err != nil {
		return nil, err
	}
	others, err := s.lookLocked(p)
	if err != nil {
		p.Unlock()
		return nil, err
	}
	s.mu.Lock()
	clear := s.flagOurs && len(others) == 0 && p.Marked()
	s.mu.Unlock()
	if clear != pr.ClearsFlag {
		pr.pl.clearFlag = clear
		opts.Prepared, opts.Expect = nil, pr.Base
	}
	return &applyPause{s: s, p: p}, nil
}

// written follows a successful apply: the form has closed, so its lease
// goes; cleared says the write cleared the flag.
func (a *applyPause) written(cleared bool) {
	if a == nil {
		return
	}
	a.s.dropLease(a.p)
	s := a.s
	s.mu.Lock()
	s.flagOurs, s.flagWant = false, false
	s.mu.Unlock()
	if cleared {
		_ = s.mark(a.p, false) // a mark left behind is cleared by the next look that finds the flag false
	}
}

func (a *applyPause) unlock() {
	if a != nil {
		_ = a.p.Unlock()
	}
}

// lastToGo reports whether this session's form is the last to hold the
// pause that aot-tui set: a write of it clears the flag.
func (s *Session) lastToGo() bool {
	p, err := statefile.LockPauses(s.path, s.PauseWait)
	if err != nil {
		return false
	}
	defer p.Unlock()
	others, err := s.lookLocked(p)
	return err == nil && len(others) == 0 && p.Marked()
}

// releaseLeaseUnlocked lets a lease go that End could not (the pause lock
// was not to be had): the session is closing.
func (s *Session) releaseLeaseUnlocked() {
	s.mu.Lock()
	l := s.lease
	s.lease = nil
	s.mu.Unlock()
	if l != nil {
		_ = l.ReleaseUnlocked()
	}
}
