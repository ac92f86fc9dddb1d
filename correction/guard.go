package correction

import (
	"errors"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// guard watches the file after a correction was written, for Run: a loop
// writer that read the file before the write and writes after it undoes
// the correction (it is applied again); one that had opened the file the
// write replaced writes into that file (its change is merged in).
type guard struct {
	path string
	opts Options
	pl   *planner
	last *statefile.UpdateResult

	displaced []*statefile.Displaced
	// installed is what our last write put in the file.
	installed []byte
	stamp     statefile.Stamp
	reapplied int
	merged    int
}

// run looks at the file every few milliseconds for d after our last
// write (more often at first, when the loop's scripts that overlapped the
// write finish): a re-apply is watched as long as the first write, since
// a script that read the file just before it undoes it as surely. The
// re-applies are bounded (maxReapply), and so is the guard: at most
// (maxReapply+1)·d in all.
func (g *guard) run(d time.Duration) error {
	defer g.close()
	start := time.Now()
	last, limit := start, start.Add(time.Duration(maxReapply+1)*d)
	guardHook("started")
	for {
		writes := g.reapplied + g.merged
		if err := g.look(); err != nil {
			return err
		}
		now := time.Now()
		if g.reapplied+g.merged != writes {
			guardHook("rewrote")
			now = time.Now()
			last = now
		}
		since := now.Sub(last)
		if since >= d || !now.Before(limit) {
			return nil
		}
		wait := 2 * time.Millisecond
		if since > 250*time.Millisecond {
			wait = 10 * time.Millisecond
		}
		time.Sleep(min(wait, d-since))
	}
}

// testGuardHook, when set (by tests), is called by the CLI's guard at
// "started" (the correction was written, the guard's first look is next)
// and "rewrote" (a look wrote the file: a re-apply or a merge). Tests use
// it to land a loop write at that moment.
var testGuardHook func(event string)

func guardHook(event string) {
	if testGuardHook != nil {
		testGuardHook(event)
	}
}

func (g *guard) close() {
	for _, d := range g.displaced {
		d.Close()
	}
	g.displaced = nil
}

// look checks the replaced files and the file once.
func (g *guard) look() error {
	for _, d := range g.displaced {
		if data, changed := d.Changed(); changed && d.Foreign() {
			final, err := statefile.Merge(g.path, d.Base(), data, statefile.MergeOptions{MaxSize: g.opts.MaxSize,
				Installed: g.installed, Plan: g.pl.planFunc(), Carried: g.pl.carried})
			if err != nil {
				return err
			}
			if final != nil {
				g.installed = final
			}
			g.merged++
		}
	}
	st := statefile.StampOf(g.path)
	if st == g.stamp {
		return nil
	}
	g.stamp = st
	data, err := statefile.ReadFile(g.path, g.opts.MaxSize)
	if err != nil {
		return nil // gone or unreadable for now: look again
	}
	doc, err := statefile.Parse(data)
	if err != nil {
		return nil // half written: look again
	}
	if g.pl.carried(doc) {
		// The correction is there; does it still hold?
		if why := g.pl.defeated(doc); why != "" {
			return &LostError{Summary: g.pl.summary(), Reason: why, Defeated: true}
		}
		return nil
	}
	return g.reapply()
}

// reapply writes the correction again on what the file holds now, when
// that descends from a version it was planned on (else the error is a
// *StandDownError).
func (g *guard) reapply() error {
	res, lost, err := g.pl.writeAgain(g.path, statefile.UpdateOptions{MaxSize: g.opts.MaxSize, KeepDisplaced: true}, g.reapplied)
	if lost != "" {
		return &LostError{Summary: g.pl.summary(), Reason: lost}
	}
	if err != nil {
		return err
	}
	g.reapplied++
	if res.Wrote {
		g.last, g.installed = res, res.After
		g.pl.wrote(res)
	}
	g.merged += res.Merged
	if res.Displaced != nil {
		g.displaced = append(g.displaced, res.Displaced)
	}
	return nil
}

// behindWait is how long a guard waits, on a file that lacks only the
// corrections written just before ours, for it to change (their writers'
// guards put them back) before it stands down.
const behindWait = time.Second

// waitForChange returns when the file at path no longer has stamp, or at
// deadline.
func waitForChange(path string, stamp statefile.Stamp, deadline time.Time) {
	for time.Now().Before(deadline) && statefile.StampOf(path) == stamp {
		time.Sleep(5 * time.Millisecond)
	}
}

// update writes the planner's plan with statefile.Update. When the file
// lacks only corrections written just before ours (a loop script read it
// before them, and their writers' guards will put them back: a
// *StandDownError that is behind), it waits up to behindWait for the file
// to change and looks again, so that neither the first write nor a
// guard's gives up on a version that is only behind.
func (pl *planner) update(path string, opts statefile.UpdateOptions) (res *statefile.UpdateResult, err error) {
	for deadline := time.Now().Add(behindWait); ; {
		stamp := statefile.StampOf(path)
		res, err = statefile.Update(path, opts, pl.planFunc())
		var sd *StandDownError
		if !errors.As(err, &sd) || !sd.behind || !time.Now().Before(deadline) {
			return res, err
		}
		waitForChange(path, stamp, deadline)
	}
}

// writeAgain writes the correction again on what path holds now, when it
// has been written again reapplied times before: lost says why it is lost
// instead — written again maxReapply times already, or refused on the
// file as it is now. The error is a *StandDownError when what path holds
// does not descend from a version the correction was planned on (when it
// only lacks the corrections written just before ours, after waiting up
// to behindWait for them to come back).
// opts.Carried is set here.
func (pl *planner) writeAgain(path string, opts statefile.UpdateOptions, reapplied int) (res *statefile.UpdateResult, lost string, err error) {
	if reapplied >= maxReapply {
		return nil, "the loop wrote over it again each time it was applied", nil
	}
	opts.Carried = pl.carried
	res, err = pl.update(path, opts)
	var ref *model.Refusal
	if errors.As(err, &ref) {
		return nil, ref.Reason, nil
	}
	return res, "", err
}
