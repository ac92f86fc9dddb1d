// Package verifyview is the verify flow (V) of the TUI as a component: the
// box that lists what a verification of a loop's base_case would run and
// asks (Confirm), the box that shows the run's progress (Running), the
// loop's last run (Verifier) and what the objective view shows of it
// (Results). It is given a kit.Context and a snapshot of the loop's
// base_case and answers with kit.Actions; it never sees the root model.
//
// One tea.Cmd runs the whole verification off the UI goroutine, another
// (re-armed after each event) brings its progress as a Msg in the loop's
// envelope (Config.Send); the root hands each Msg to the loop's Verifier.
package verifyview

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/verify"
)

// Config is what a loop's Verifier needs of the loop.
type Config struct {
	// Dir is the project directory the commands run in.
	Dir string
	// Timeout bounds each command (verify.DefaultTimeout when zero).
	Timeout time.Duration
	// Send puts a command's message in the loop's envelope.
	Send func(tea.Cmd) tea.Cmd
	// State is the loop's state now (nil before the first read): the
	// boxes compare the base_case confirmed with the one the loop has now.
	State func() *model.State
}

// Verifier is one loop's verifications: its last run, under way or done.
type Verifier struct {
	cfg Config
	run *Run
}

// New is the Verifier of a loop.
func New(cfg Config) *Verifier {
	if cfg.Timeout <= 0 {
		cfg.Timeout = verify.DefaultTimeout
	}
	if cfg.Send == nil {
		cfg.Send = func(c tea.Cmd) tea.Cmd { return c }
	}
	if cfg.State == nil {
		cfg.State = func() *model.State { return nil }
	}
	return &Verifier{cfg: cfg}
}

// Run is one verification of a base_case: under way, or done (its report
// set).
type Run struct {
	// bc is the base_case as confirmed: what runs, even if the loop
	// rewrites it meanwhile.
	bc      model.BaseCase
	plan    []verify.Planned
	dir     string
	timeout time.Duration
	started time.Time
	cancel  context.CancelFunc
	events  chan event
	// current is the index in plan of the check under way (-1: none).
	current int
	// done are the checks finished so far, in order.
	done     []verify.Result
	report   *verify.Report
	stopping bool
}

// event is a check starting or finishing, or the whole report.
type event struct {
	progress verify.Progress
	report   *verify.Report
}

// Msg carries an event of a run; the root hands it to the Verifier of
// the loop whose envelope it comes in.
type Msg struct {
	run *Run
	ev  event
}

// Why says why a base_case cannot be verified ("" when it can): phase is
// set for a phase loop, st is the loop's state (nil before the first read).
func Why(phase bool, st *model.State) string {
	switch {
	case phase:
		return "V does not apply to a phase loop: only an AoT loop has a base_case to verify"
	case st == nil:
		return "no state yet: there is no base_case to verify"
	case st.Objective.BaseCase.Empty():
		return "the objective has no base_case to verify"
	}
	return ""
}

// Open is the confirmation of a verification of bc (Why has said it can
// be): an Action that opens the box, with the footer's word on it.
func (v *Verifier) Open(bc model.BaseCase) kit.Action {
	d := &Confirm{v: v, bc: bc, plan: verify.Plan(bc)}
	// The footer says what the box is for while it is open.
	return kit.Action{Kind: kit.Replace, Dialog: d, Status: kit.Status{Text: "verify: nothing runs until you confirm", TTL: time.Hour}}
}

// Last is the loop's last run (nil: none).
func (v *Verifier) Last() *Run { return v.run }

// Stop stops the run under way, if any (v nil: no run yet).
func (v *Verifier) Stop() {
	if v != nil && v.run != nil {
		v.run.cancel()
	}
}

// Shows reports whether d is the progress box of the loop's current run.
func (v *Verifier) Shows(d kit.Dialog) bool {
	r, ok := d.(*Running)
	return ok && v != nil && v.run != nil && r.run == v.run
}

// start runs the confirmed checks of d: the box turns into the progress
// box.
func (v *Verifier) start(ctx kit.Context, d *Confirm) kit.Action {
	c, cancel := context.WithCancel(context.Background())
	run := &Run{
		bc: d.bc, plan: d.plan, dir: v.cfg.Dir, timeout: v.cfg.Timeout,
		started: ctx.LiveClock()(), cancel: cancel, current: -1,
		// Room for every event: the run never waits on the UI.
		events: make(chan event, 2*len(d.plan)+1),
	}
	v.Stop()
	v.run = run
	ch, bc := run.events, run.bc
	opts := verify.Options{Dir: run.dir, Timeout: run.timeout, Now: ctx.LiveClock(),
		Progress: func(p verify.Progress) { ch <- event{progress: p} }}
	startCmd := func() tea.Msg {
		ch <- event{report: verify.Run(c, bc, opts)}
		return nil
	}
	return kit.Action{Kind: kit.Replace, Dialog: &Running{run: run},
		Status: kit.Status{Text: fmt.Sprintf("verifying the base_case: 0 of %d checks done", len(d.plan)), TTL: time.Hour},
		Cmd:    tea.Batch(startCmd, v.listen(run))}
}

// listen waits for the next event of run.
func (v *Verifier) listen(run *Run) tea.Cmd {
	ch := run.events
	return v.cfg.Send(func() tea.Msg { return Msg{run: run, ev: <-ch} })
}

// Update records a check's progress (the footer counts the checks done),
// or the report: then the progress box closes (Close: the root closes it
// when Shows says it is on top) and the footer gives the verdict.
func (v *Verifier) Update(_ kit.Context, msg Msg) kit.Action {
	run := msg.run
	if v.run != run {
		return kit.Action{} // a run replaced by a newer one
	}
	if msg.ev.report == nil {
		p := msg.ev.progress
		if p.Done {
			run.done = append(run.done, p.Result)
			run.current = -1
		} else {
			run.current = p.Index
		}
		a := kit.Run(v.listen(run))
		if !run.stopping {
			a.Kind = kit.ShowStatus
			a.Status = kit.Status{Text: fmt.Sprintf("verifying the base_case: %d of %d checks done", len(run.done), len(run.plan)), TTL: time.Hour}
		}
		return a
	}
	run.report = msg.ev.report
	run.current = -1
	run.cancel()
	return kit.Action{Kind: kit.Close, Status: Summary(run.report)}
}

// Summary is the footer's word on a finished run: a pass is a success, a
// fail an error, a run that checked nothing a warning.
func Summary(rep *verify.Report) kit.Status {
	c := rep.Counts
	s := fmt.Sprintf("%d pass · %d fail · %d not checkable", c.Pass, c.Fail, c.NotCheckable)
	switch rep.Outcome {
	case verify.Pass:
		return kit.Status{Text: "base_case verified: PASS — " + s, Level: kit.Success}
	case verify.Fail:
		s = "base_case verified: FAIL — " + s
		if hasOutput(rep) {
			s += " · enter shows what failed"
		}
		return kit.Status{Text: s, Level: kit.Error}
	case verify.NotCheckable:
		return kit.Status{Text: "base_case: nothing here could be checked — " + s, Level: kit.Warn}
	}
	return kit.Status{Text: fmt.Sprintf("verify stopped: %d checks not run", c.NotRun), Level: kit.Warn}
}

// hasOutput reports whether a failed check of rep ran: the objective view
// then shows its output (Results.OutputSection).
func hasOutput(rep *verify.Report) bool {
	for _, r := range verify.Leaves(rep.Items) {
		if r.Outcome == verify.Fail && r.Ran {
			return true
		}
	}
	return false
}
