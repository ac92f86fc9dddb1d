package ui

import (
	"github.com/aot-loop/aot-tui/agent"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/verifyview"
)

// loop is everything the TUI keeps per watched loop. Handlers take the
// loop they act on; the root keeps which one is on screen (Model.cur).
type loop struct {
	idx    int
	target statefile.Target
	// name tells the loop apart from the others watched (loopNames).
	name   string
	events chan statefile.Event
	// watcher follows the file: a statefile.Watcher, or for a loop on a
	// remote host (remoteHost, its name) a remote link.
	watcher    stopper
	remoteHost string
	// hostFile is a remote loop's file as its session writes it (nil
	// for a loop of this machine).
	hostFile *remote.FarFile
	// validator validates the live versions as they arrive, off the UI
	// goroutine (listen, eventMsg).
	validator *model.Validator

	// The last good state and what was derived from it.
	st    *model.State
	facts *model.Facts
	doc   *statefile.Document
	phase *model.PhaseLoop
	// outlook is the stop hook's next decision for st.
	outlook model.Outlook
	// follower follows the loop's Claude Code sessions, activity its
	// latest snapshot (ui/activity.go; nil: off or none yet).
	follower   *agent.Follower
	activityCh chan *agent.Activity
	activity   *agent.Activity
	// activityText is the activity view; prices price its tokens.
	activityText scrollText
	prices       *agent.Prices
	// costSort is the column the activity view's cost tables are sorted
	// by (s); iterMarks are when the state file's iteration changed, as
	// the watcher read it (the follower counts tokens by them).
	costSort  costSort
	iterMarks []agent.IterationMark
	// followerAtoms are the atom ids the follower was given last
	// (giveAtoms).
	followerAtoms []string
	// resume says how a stopped loop resumes (loopword.ResumeWith).
	resume string
	// gone are the atoms that were in progress in an earlier version of
	// this iteration and are gone from the live one (model.KeepGone): the
	// outlook says so while they are.
	gone []model.Gone
	// loopTools are the warnings on what the loop's own tools will read
	// otherwise than aot-tui in st (the header counts them, the objective
	// view lists them).
	loopTools []model.Problem
	// report is validate's report on st, loop-tools warnings included
	// (model.ValidateWith): the header's badge counts its findings, !
	// lists them (problems.go) and the graph flags their atoms.
	report model.Report

	// banner explains a file problem (invalid, removed, waiting, error).
	banner    string
	bannerBad bool
	// lost says which correction of this session a loop write undid for
	// good; it stays up until the person dismisses it (esc, once no
	// dialog is open: lostBanner).
	lost string

	changed     time.Time
	changeTimes []time.Time
	// unseen is true when the loop changed while another one was shown.
	unseen bool
	// status is the loop's footer line (status.go), shown while the loop
	// is on screen and live.
	status statusLine

	view        viewID
	showDetails bool // narrow screens: details as an overlay
	filters     [numViews]string
	readOnly    bool
	readOnlyWhy string

	graph       graphView
	details     scrollText
	bindings    tableView
	trail       tableView
	corrections tableView
	objective   scrollText
	prompt      scrollText
	phaseText   scrollText

	// session does the file work of this loop's corrections.
	session *correction.Session
	// dialogs is the stack of boxes over the view (top last).
	dialogs []dialog
	// applied is what this session knows of the corrections it applied,
	// by correctionKey: for "picked up" and the guard's account.
	applied map[string]*appliedCorrection
	// staleOffered is set once the stale-flag question was asked.
	staleOffered bool
	// The pause of a redirect (pause.go): form is the open form's kind;
	// keyAt when a key was last pressed in a redirect dialog; idleArmed
	// while the idle timer runs; letGo, once the form let the loop go, the
	// idle time it took. pauseTicking while looks at the pause are
	// scheduled, looking while one is under way; goneHolders are the forms
	// of processes that died holding it, as last found; pauseErr the
	// error of the last look that failed ("" once one succeeds).
	form         string
	keyAt        time.Time
	idleArmed    bool
	letGo        time.Duration
	pauseTicking bool
	looking      bool
	goneHolders  []statefile.PauseHolder
	pauseErr     string
	// hist is the loop's timeline of versions (timeline.go).
	hist *timeline
	// verify is the loop's verifications of its base_case (V), its last
	// run under way or done (nil: never opened; ui/verifyview).
	verify *verifyview.Verifier
}

// appliedCorrection is a correction of this session, as the corrections
// view tells it.
type appliedCorrection struct {
	// iteration is control.iteration when it was written.
	iteration int
	// reapplied counts how often a loop write undid it and it was written
	// again.
	reapplied int
}

// stopper is what follows a loop's file: Stop ends it and waits.
type stopper interface{ Stop() }

func newLoop(idx int, t statefile.Target, opts Options) *loop {
	l := &loop{idx: idx, target: t, events: make(chan statefile.Event, 16), validator: &model.Validator{}}
	l.readOnly = opts.ReadOnly
	if opts.ReadOnly {
		l.readOnlyWhy = "--read-only"
	}
	if t.Kind == statefile.KindPhaseLoop {
		l.readOnly, l.readOnlyWhy = true, "phase loops are read-only"
	}
	l.session = correction.NewSession(t.Path, correction.Options{MaxSize: opts.Watch.MaxSize, Now: opts.Now, SoloPause: opts.SoloPause})
	return l
}

// topDialog is the dialog on top of the stack (nil when none is open).
func (l *loop) topDialog() dialog {
	if len(l.dialogs) == 0 {
		return nil
	}
	return l.dialogs[len(l.dialogs)-1]
}

// escCloses reports whether esc has something of the view to close first
// (the lost-selection note, the details overlay, the filter), in the order
// viewKey closes them; only after those does esc return from the past to
// live (timelineKey), and then to the fleet table (fleetLoopKey).
func (l *loop) escCloses() bool {
	return l.lost != "" || l.showDetails || (l.phase == nil && l.filters[l.view] != "")
}

// correctionKey identifies a correction entry across reloads.
func correctionKey(c model.Correction) string {
	return c.Timestamp + "|" + string(c.Type) + "|" + c.Description
}
