// Package ui is aot-tui's Bubble Tea v2 program: one root model composing
// the header, the views (graph, bindings, trail, corrections, objective,
// prompt; the phase loop view), details, filter, help and alerts, the
// redirect dialogs, the timeline of versions (and replay), base_case
// verification (V) and the fleet table (--scan). The file work of
// corrections is the correction package's, running the checks the verify
// package's, the journal the history package's; this package draws them
// and routes keys to them.
package ui

import (
	"github.com/aot-loop/aot-tui/agent"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/fleettable"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/verifyview"
)

// viewID names the main views, in tab order.
type viewID int

const (
	viewGraph viewID = iota
	viewBindings
	viewTrail
	viewCorrections
	viewObjective
	viewPrompt
	viewActivity
	numViews
)

var viewNames = [numViews]string{"Graph", "Bindings", "Trail", "Corrections", "Objective", "Prompt", "Activity"}
var viewShort = [numViews]string{"Graph", "Bind", "Trail", "Corr", "Obj", "Prompt", "Act"}

// Options configure the TUI.
type Options struct {
	Target statefile.Target
	// Targets, when set, are several loops to watch (switch with < and >);
	// Target is then ignored.
	Targets []statefile.Target
	// ReadOnly disables every write key (also set when the file or its
	// directory is not writable).
	ReadOnly bool
	// Quiet turns off the bell and desktop notifications.
	Quiet bool
	// NoColor drops colours (NO_COLOR is honoured by default).
	NoColor bool
	// Watch tunes the file watcher (tests use short intervals).
	Watch statefile.WatchOptions
	// Now is the clock (tests fix it).
	Now func() time.Time
	// LoopName names the loop in notifications (default: the project dir).
	LoopName string
	// SyncLayout lays the graph out inside Update instead of in the
	// background (tests and benchmarks that drive Update directly).
	SyncLayout bool
	// Keys are the key bindings (zero: DefaultKeyMap; see LoadKeyMap).
	Keys *KeyMap
	// Fleet, when set, opens the fleet table of every loop under some
	// directories (aot-tui --scan); Target and Targets are then ignored.
	Fleet *FleetOptions
	// VerifyTimeout bounds each command a verification (V) runs
	// (verify.DefaultTimeout when zero).
	VerifyTimeout time.Duration
	// Journal, when set, names the journal of each AoT state file (as
	// history.JournalIn does), to which every new version is recorded,
	// capped at JournalMax bytes a file (0: history.DefaultJournalMax).
	// It is called on the recorder's goroutine; its error turns that
	// loop's journal off, said in the footer.
	Journal func(statePath string) (string, error)
	// Activity, when set, gives the options to follow the Claude Code
	// sessions of the loop at statePath (false: none to follow); nil
	// (--no-activity, the tests): they are not read.
	Activity   func(statePath string) (agent.Options, bool)
	JournalMax int64
	// Replay, when set, shows recorded versions instead of watching a
	// file (aot-tui replay); Target names the loop.
	Replay *Replay
	// SoloPause keeps each loop's pause (redirect_requested) to this TUI:
	// no lease files beside the state file, other aot-tui processes' forms
	// unseen (see correction.Options.SoloPause). For tests that drive
	// Update without running its commands.
	SoloPause bool
	// IdleRelease is how long a redirect form may go without a key before
	// it lets the loop go (it stays open; the next key pauses the loop
	// again): DefaultIdleRelease when zero, never when negative.
	IdleRelease time.Duration
	// AfterRecord, when set, is called after the new versions of a loop
	// have been recorded, past the frame that shows them: the quiet
	// moment after a write (the TUI collects garbage there, see
	// cmd/aot-tui's gcPacer). It must not block.
	AfterRecord func()
	// BesideLoop, when set, is called around work that keeps a processor
	// busy beside the event loop for long (a graph's layout): it says how
	// many goroutines that work may keep busy and returns what to call
	// when it is done. The TUI gives the event loop and the watcher
	// processors of their own meanwhile (cmd/aot-tui's spareProc), so that
	// keys, the watcher and frames are not held up behind the layout.
	BesideLoop func() (workers int, done func())
	// Notify, when set, is sent the event of every alert (the commands
	// and webhooks of the config file: README, Notifications), whatever
	// the focus and Quiet, which are about the bell; its notes go to the
	// message log.
	Notify *notify.Notifier
}

// Messages. One that belongs to one loop (a watch event, a correction's
// result, a timer of the loop's) travels in a loopMsg: the envelope names
// the loop, the message inside says what happened, and its handler takes
// the loop. None of the inner types carries the loop itself.
type (
	// loopMsg is the envelope of a message for the loop at idx in
	// Model.loops; Update hands msg to that loop.
	loopMsg struct {
		idx int
		msg tea.Msg
	}
	// stateMsg is a watch event; checks are those of its state (nil
	// when not made yet: setShown makes them).
	stateMsg struct {
		ev     statefile.Event
		checks *checks
	}
	// watchStarted: the loop's statefile watcher runs.
	watchStarted struct{ w *statefile.Watcher }
	tickMsg      time.Time
)

// envelope puts msg in l's envelope.
func (l *loop) envelope(msg tea.Msg) loopMsg { return loopMsg{idx: l.idx, msg: msg} }

// send is cmd with its message put in l's envelope (nil stays nil: a
// command that returns no message sends none).
func (l *loop) send(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	idx := l.idx
	return func() tea.Msg {
		msg := cmd()
		if msg == nil {
			return nil
		}
		return loopMsg{idx: idx, msg: msg}
	}
}

// focus is what takes key presses.
type focus int

const (
	focusView   focus = iota // the current view
	focusFilter              // the / prompt
	focusHelp                // the help screen
	focusDialog              // the top dialog of the loop on screen
	focusPanel               // a full-screen panel: what changed, the message log
)

// environment is what the TUI looks up once, before it runs: I/O stays
// out of Update.
type environment struct {
	// editor is true when huh's ctrl+e ($EDITOR, else nano) can run.
	editor bool
}

// Model is the root model. Children are plain structs; the root owns the
// geometry, the focus and every message.
type Model struct {
	// cur is the loop on screen; loops are all of them.
	cur   *loop
	loops []*loop

	opts   Options
	keys   KeyMap
	styles Styles
	isDark bool

	// frames has a frame drawn as soon as the screen changes (nil: at
	// Bubble Tea's fixed rate); changed says a message other than the
	// clock's came in since the last View, drawn is the text it drew.
	frames  *Frames
	changed bool
	drawn   string
	env     environment
	// laidOutDialogOnly is dialogOnly() as of the last layout, and
	// laidOutDialog whether a dialog was open (the lost banner's hint
	// depends on it).
	laidOutDialogOnly, laidOutDialog bool
	// gstyler colours the layered graph (nil: plain).
	gstyler dagdraw.Styler

	focus       focus
	filterInput textinput.Model

	// now is the time as of the message being handled (Update sets it).
	now time.Time
	// clock wakes the program when time-dependent text on screen next
	// changes; clockNext collects that instant while a frame is drawn.
	clock     *clock
	clockNext time.Time
	// quitUntil: until then quit quits at once, even with corrections in
	// their risky time (see quitWarning).
	quitUntil time.Time

	width, height int
	wide          bool
	// focused is the terminal's focus (alerts fire only without it).
	focused  bool
	helpText scrollText
	// helpOf is the place the help screen is about; helpFrom the focus
	// it goes back to.
	helpOf   kit.Scope
	helpFrom focus

	// msgs is the message log; panel the full-screen panel (focusPanel).
	msgs  messageLog
	panel panelView

	// bodyCache is the last rendered body (see renderBody), drawn at
	// bodyAt; bodyNext is when time-dependent text in it next changes
	// (zero: none).
	bodyCache    []string
	bodyCacheKey bodyKey
	bodyAt       time.Time
	bodyNext     time.Time
	bodyGen      uint64

	// bodyPad pads the body's lines, leftPad and rightPad the graph's and
	// the details' beside it (renderContent).
	bodyPad, leftPad, rightPad padMemo

	// frame is the last frame drawn (see render), at frameAt; frameNext
	// is when time-dependent text in it next changes (zero: none).
	frame     string
	frameKey  frameKey
	frameAt   time.Time
	frameNext time.Time
	frameOK   bool
	chrome    chromeCache

	// fleet is the fleet table (nil unless Options.Fleet), fleetLoops the
	// loops opened from it.
	fleet      *fleettable.Table
	fleetLoops *fleetLoops
	// editorCmd is the editor E runs (editorFor; nil: none found).
	editorCmd []string
	// keysByName are keys by action name, for components (kit.Keys).
	keysByName kit.Keys
	// shown is where the last frame drew its tabs and body: what a
	// click lands on (mouse.go).
	shown shownFrame
}

// New builds the root model; Init starts watching the file(s).
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !opts.NoColor && os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	targets := opts.Targets
	if len(targets) == 0 && opts.Fleet == nil {
		targets = []statefile.Target{opts.Target}
	}
	m := &Model{
		opts:    opts,
		keys:    DefaultKeyMap(),
		isDark:  true,
		focused: true,
		now:     opts.Now(),
		clock:   newClock(),
		env:     environment{editor: editorAvailable()},
	}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	m.keysByName = keysByName(&m.keys)
	m.editorCmd = editorFor(os.Getenv, exec.LookPath)
	m.styles = NewStyles(m.isDark, opts.NoColor)
	m.gstyler = graphStyler(m.styles)
	paths := make([]string, len(targets))
	for i, t := range targets {
		l := newLoop(i, t, opts)
		m.setupTables(l)
		m.loops = append(m.loops, l)
		paths[i] = t.Path
	}
	for i, name := range loopNames(paths) {
		m.loops[i].name = termtext.Line(name) // from the path: shown in tabs, titles, notifications
	}
	if opts.Fleet != nil {
		m.initFleet()
	} else {
		m.cur = m.loops[0]
	}
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "id, text or status"
	m.filterInput = ti
	return m
}

// editorAvailable reports whether huh's ctrl+e can launch an editor
// ($EDITOR, else nano): launching a missing one left the screen blank.
func editorAvailable() bool {
	cmd := "nano"
	if f := strings.Fields(os.Getenv("EDITOR")); len(f) > 0 {
		cmd = f[0]
	}
	_, err := exec.LookPath(cmd)
	return err == nil
}

// Init starts the watchers, the clock and asks for the background colour.
func (m *Model) Init() tea.Cmd {
	if m.opts.Replay != nil {
		return m.initReplay()
	}
	cmds := []tea.Cmd{tick(), tea.RequestBackgroundColor}
	for _, l := range m.loops {
		cmds = append(cmds, m.startWatch(l), listen(l), m.startActivity(l))
	}
	if m.fleet != nil {
		cmds = append(cmds, m.fleet.Init())
	}
	cmds = append(cmds, listenNotes(m.opts.Notify))
	return tea.Batch(cmds...)
}

// UseFrames has the program draw each frame as soon as the screen
// changes (FramesFor); call it before the program runs.
func (m *Model) UseFrames(f *Frames) { m.frames = f }

// Close clears any redirect_requested flag this session set (when the TUI
// exits with a form open, or crashes), lets the corrections' file work
// finish and stops the watchers; call it after the program returns.
func (m *Model) Close() {
	m.frames.stop()
	m.stopVerifies()
	m.stopActivities()
	m.clock.stop()
	for _, l := range m.loops {
		l.session.Close()
		m.closeHistory(l)
		if l.watcher != nil {
			l.watcher.Stop()
			l.watcher = nil
		}
	}
	if m.fleet != nil {
		m.fleet.Close()
	}
}

func (m *Model) startWatch(l *loop) tea.Cmd {
	t, opts, ch := l.target, m.opts.Watch, l.events
	return l.send(func() tea.Msg {
		return watchStarted{w: statefile.StartWatch(t, opts, func(ev statefile.Event) { ch <- ev })}
	})
}

// listen waits for the next watch event of a loop; it is re-armed after
// each one. A new state is checked here, off the UI goroutine (eventMsg).
func listen(l *loop) tea.Cmd {
	ch, vr := l.events, l.validator
	return l.send(func() tea.Msg { return eventMsg(vr, <-ch) })
}

// tick starts the clock (see clock.go): its tickMsg starts listening for
// the clock's wake-ups, which come when text on screen next changes.
func tick() tea.Cmd {
	return func() tea.Msg { return tickMsg(time.Now()) }
}

// Update dispatches messages: keys go to the focused part, everything else
// is broadcast.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.now = m.opts.Now()
	switch msg.(type) {
	case tickMsg, clockMsg:
		// The time alone changes nothing but time-dependent text, which
		// the frames drawn noted (noteClock).
	default:
		m.bodyGen++ // anything else may change the body
		m.changed = true
	}
	cmd := m.update(msg)
	if m.cur != nil && (m.laidOutDialogOnly != m.dialogOnly() || (m.cur.lost != "" && m.laidOutDialog != (m.cur.topDialog() != nil))) {
		m.layout() // a dialog opened or closed in a short pane, or under the lost banner: the body's height changed
	}
	m.refreshFleet()
	m.refreshPalette()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case fleettable.Msg:
		return m.toFleet(msg)
	case notifyNotes:
		return m.onNotifyNotes()
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.fleet != nil {
			m.fleet.SetSize(m.width, m.height)
		}
		m.layout()
		return m.relayout()
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.styles = NewStyles(m.isDark, m.opts.NoColor)
		m.gstyler = graphStyler(m.styles)
		if m.fleet != nil {
			m.toFleet(msg)
		}
		if m.cur != nil {
			m.refreshText(m.cur)
		}
		return nil
	case loopMsg:
		if l := m.loopAt(msg.idx); l != nil {
			return m.onLoopMsg(l, msg.msg)
		}
		return nil
	case tea.FocusMsg, tea.BlurMsg:
		_, m.focused = msg.(tea.FocusMsg)
		if m.fleet != nil {
			m.toFleet(msg)
		}
		return nil
	case tickMsg:
		if !m.clock.listening {
			m.clock.listening = true
			return m.clock.listen()
		}
		return nil
	case clockMsg:
		m.clock.fired()
		return m.clock.listen()
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseWheelMsg:
		if m.fleetShown() && m.focus != focusHelp {
			return m.toFleet(msg)
		}
		m.onWheel(msg)
		return nil
	case tea.MouseClickMsg:
		if m.fleetShown() && m.focus != focusHelp {
			return m.toFleet(msg)
		}
		return m.onClick(msg)
	}
	// Everything else is huh's or a text input's own.
	switch m.focus {
	case focusDialog:
		return m.onDialogMsg(msg)
	case focusFilter:
		var cmd tea.Cmd
		m.filterInput, cmd = m.filterInput.Update(msg)
		return cmd
	}
	return nil
}

// onLoopMsg hands a message out of a loopMsg to its handler, with the
// loop it belongs to.
func (m *Model) onLoopMsg(l *loop, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case stateMsg:
		had := l.st != nil || l.phase != nil
		cmd := m.onEvent(l, msg.ev, msg.checks)
		if l != m.cur && had {
			l.unseen = true
		}
		return tea.Batch(cmd, listen(l))
	case watchStarted:
		l.watcher = msg.w
	case fleetWatchMsg:
		return m.onFleetWatch(l, msg)
	case layoutMsg:
		l.graph.lay.install(msg, l.graph.sel)
		m.syncGraphSelection(l)
		return m.layoutCmd(l, l.graph.adjustJob())
	case sessionMsg:
		cmds := []tea.Cmd{m.onSessionMsg(l, msg)}
		// A look the guard skipped while this job ran is owed now.
		for _, job := range l.session.Recheck() {
			cmds = append(cmds, m.runJob(l, nil, job))
		}
		return tea.Batch(cmds...)
	case pauseTickMsg:
		return m.onPauseTick(l)
	case idleMsg:
		return m.onIdle(l)
	case verifyview.Msg:
		return m.onVerifyMsg(l, msg)
	case editorDoneMsg:
		return m.onEditorDone(l, msg)
	case activityMsg:
		return m.onActivity(l, msg)
	case playMsg:
		return m.onPlay(l, msg)
	case recordMsg:
		m.recordQueued(l)
		if m.opts.AfterRecord != nil {
			m.opts.AfterRecord()
		}
	}
	return nil
}

func (m *Model) loopAt(idx int) *loop {
	if idx < 0 || idx >= len(m.loops) {
		return nil
	}
	return m.loops[idx]
}

// refocus keeps the focus on the dialog while the loop on screen has one
// open, and gives it back to the view when the last one closes.
func (m *Model) refocus() {
	switch {
	case m.cur == nil:
	case m.cur.topDialog() != nil:
		m.focus = focusDialog
	case m.focus == focusDialog:
		m.focus = focusView
	}
}

// How long transient footer messages stay, where a status line says
// (kit.Level.TTL is the default: short for info, long for the others).
const (
	statusShort = 3 * time.Second
	statusLong  = 6 * time.Second
)

// quit leaves the TUI, clearing the handshake flag first where a redirect
// form of this session set it.
func (m *Model) quit() tea.Cmd {
	var cmds []tea.Cmd
	for _, l := range m.loops {
		l.dialogs = nil
		cmds = append(cmds, m.runJob(l, nil, l.session.End()))
	}
	m.refocus()
	return tea.Sequence(tea.Batch(cmds...), tea.Quit)
}
