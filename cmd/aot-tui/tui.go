package main

import (
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
)

type tuiFlags struct {
	file     string
	readOnly bool
	quiet    bool
	keys     string
	scan     scanFlags
	// noJournal turns off the journal of versions of each state file;
	// journalDir is where they are kept.
	noJournal  bool
	journalDir journalDirFlag
	// idleRelease is how long a redirect form may go without a key before
	// it lets the loop go (0: never).
	idleRelease time.Duration
	// activity: --no-activity, Claude Code's transcripts and hook events
	// not read (for the TUI's activity view and header, issue 24).
	activity activityFlag
	// noNotify: --no-notify, the config file's notify section not used;
	// notifier is the one started from it (nil: none).
	noNotify bool
	notifier *notify.Notifier
}

func (t *tuiFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&t.file, "file", "f", "", "state file or project directory (default: current directory)")
	cmd.Flags().BoolVar(&t.readOnly, "read-only", false, "never write to the file: every write key is disabled")
	cmd.Flags().BoolVar(&t.quiet, "quiet", false, "no bell and no desktop notifications")
	cmd.Flags().BoolVar(&t.noJournal, "no-journal", false, "do not record the versions seen to the loop's journal (see aot-tui replay)")
	t.journalDir.register(cmd, "keep the journals of the versions seen in this directory, not in the project")
	cmd.Flags().DurationVar(&t.idleRelease, "idle-release", envDuration("AOT_TUI_IDLE_RELEASE", ui.DefaultIdleRelease),
		"let the loop go when a redirect form has had no key for this long; the form stays open and the next key pauses the loop again (0: never; AOT_TUI_IDLE_RELEASE sets the default)")
	registerKeys(cmd, &t.keys)
	t.scan.register(cmd)
	t.activity.register(cmd)
	cmd.Flags().BoolVar(&t.noNotify, "no-notify", false, "do not send alerts to the command and webhook of the config file (see aot-tui notify)")
}

func registerKeys(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "keys", "", "key bindings file (default: "+keysFileHint()+" when it exists; see aot-tui keys)")
}

func keysFileHint() string {
	if p := ui.DefaultKeysPath(); p != "" {
		return p
	}
	return "$XDG_CONFIG_HOME/aot-tui/keys.yaml"
}

// loadKeys reads the key bindings: the file given with --keys (it must
// exist), else the default keys file when there is one.
func loadKeys(path string) (*ui.KeyMap, error) {
	required := path != ""
	if !required {
		path = ui.DefaultKeysPath()
	}
	k, err := ui.LoadKeyMap(path, required)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	return &k, nil
}

// oneProc runs the Go scheduler on one processor unless GOMAXPROCS says
// otherwise. The TUI does one thing at a time — read and parse a change,
// update, draw — and the graph layout that runs beside the event loop is
// preempted at least every 10 ms, so keys are still answered while a large
// graph is laid out. On one processor the watcher hands a parsed file to
// the event loop without waking a second thread, and the garbage collector
// stays off the cores the loop next door is using. Measured with
// scripts/perf on this 2-core VM at 1,000 atoms: write-to-screen latency
// median 29-31 -> 23-25 ms, p95 48-54 -> 33-44 ms; idle CPU unchanged
// within its noise.
//
// It returns the TUI's ui.Options.AfterRecord: the garbage collection
// paced to the quiet moment after a write (gcPacer); and its BesideLoop:
// while a graph is laid out, the event loop and the watcher get
// processors of their own (spareProc), nil when GOMAXPROCS is set.
func oneProc() (afterRecord func(), besideLoop func() (int, func())) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
		besideLoop = theSpareProc.beside
	}
	return newGCPacer(), besideLoop
}

// spareProc raises GOMAXPROCS by spareProcs while work runs beside the
// event loop (ui.Options.BesideLoop: a graph's layout), which keeps to the
// processors there were before. On the one processor of oneProc, a
// layout of 1,000 atoms held it for tens of milliseconds, and Go hands a
// busy processor to another goroutine only every 10 ms: the watcher's
// notification, its timers and the frame waited behind it, and a write in
// the first tenth of a second after start took 40–80 ms to reach the
// screen (scripts/perf's first write; 5–8 ms once the layout is done).
// With processors to spare, their threads wait in the kernel and wake as
// the file changes or a key comes. Two: the event loop is often busy
// itself then (drawing the layout just made), and the watcher that reads
// the write needs a processor too. Layouts at once share the spares.
type spareProc struct {
	mu sync.Mutex
	// users are the layouts running; base is GOMAXPROCS before the first.
	users, base int
}

var theSpareProc spareProc

// spareProcs is how many processors spareProc adds.
const spareProcs = 2

// beside raises GOMAXPROCS for one more user and returns how many
// goroutines the work may keep busy (the processors there were) and the
// function that ends its use.
func (s *spareProc) beside() (workers int, done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		s.base = runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(s.base + spareProcs)
	}
	s.users++
	var once sync.Once
	return s.base, func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.users--; s.users == 0 {
				runtime.GOMAXPROCS(s.base)
			}
		})
	}
}

// runTUI opens the TUI on the state files args (and -f) name, waiting for
// those that do not exist yet. Several paths watch several loops.
func runTUI(cmd *cobra.Command, args []string, t *tuiFlags, g *globalFlags) error {
	if !t.scan.on {
		if err := checkPathArgs(cmd.Root(), args); err != nil {
			return err
		}
	}
	if err := t.scan.check(cmd.Flags()); err != nil {
		return err
	}
	if err := t.checkIdleRelease(cmd); err != nil {
		return err
	}
	if t.noJournal && t.journalDir.dir != "" {
		return fail(exitUsage, "--no-journal records nothing; it does not go with --journal-dir")
	}
	if !t.noNotify {
		n, err := startNotify()
		if err != nil {
			return err
		}
		t.notifier = n
		defer func() {
			n.Close(notifyDrain)
			printNotes(cmd.ErrOrStderr(), n) // the last sends' failures, once the screen is gone
		}()
	}
	if t.scan.on {
		return runFleetTUI(cmd, args, t, g)
	}
	paths := args
	if t.file != "" {
		paths = append(paths, t.file)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var targets []statefile.Target
	seen := map[string]bool{}
	for _, p := range paths {
		target, err := statefile.Discover(p)
		if err != nil && !statefile.CanWait(err) {
			return fail(exitUsage, "%v", err)
		}
		abs, _ := filepath.Abs(target.Path)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		targets = append(targets, target)
	}
	keys, err := loadKeys(t.keys)
	if err != nil {
		return err
	}
	o := t.uiOptions(g, keys)
	o.Targets = targets
	return runModel(cmd, ui.New(o))
}

// uiOptions are the options the TUI and the fleet TUI share, with the
// process set up for them (oneProc).
func (t *tuiFlags) uiOptions(g *globalFlags, keys *ui.KeyMap) ui.Options {
	afterRecord, besideLoop := oneProc()
	return ui.Options{
		ReadOnly:    t.readOnly,
		Quiet:       t.quiet,
		Watch:       statefile.WatchOptions{MaxSize: g.maxSize},
		Keys:        keys,
		Journal:     t.journal(),
		IdleRelease: t.uiIdleRelease(),
		AfterRecord: afterRecord,
		BesideLoop:  besideLoop,
		Activity:    t.activity.uiActivity(),
		Notify:      t.notifier,
	}
}

// journal is ui.Options.Journal: in the journal directory, unless
// --no-journal.
func (t *tuiFlags) journal() func(string) (string, error) {
	if t.noJournal {
		return nil
	}
	return t.journalDir.recordTo()
}

// checkIdleRelease refuses a negative --idle-release and an
// AOT_TUI_IDLE_RELEASE that is not a duration (it would be ignored).
func (t *tuiFlags) checkIdleRelease(cmd *cobra.Command) error {
	if t.idleRelease < 0 {
		return fail(exitUsage, "--idle-release must be 0 (never) or more, not %v", t.idleRelease)
	}
	return checkEnvDuration(cmd, "AOT_TUI_IDLE_RELEASE", "idle-release", "5m or 90s")
}

// uiIdleRelease is --idle-release as ui.Options takes it (negative: never).
func (t *tuiFlags) uiIdleRelease() time.Duration {
	if t.idleRelease == 0 {
		return -1
	}
	return t.idleRelease
}

// runModel runs the TUI on m until it ends, then closes m (which clears
// a redirect_requested this session set). A hangup ends it like a quit;
// any other failure is reported.
func runModel(cmd *cobra.Command, m *ui.Model) error {
	defer m.Close()
	if err := runUntilEnd(m, cmd.OutOrStdout()); err != nil {
		return fail(exitUsage, "the terminal UI failed: %v", err)
	}
	return nil
}

// runUntilEnd runs m on out until it ends. A hangup ends it like a quit
// (nil); any other failure of the program is returned. m is not closed.
func runUntilEnd(m *ui.Model, out io.Writer) error {
	p := tea.NewProgram(m, tea.WithOutput(out))
	m.UseFrames(ui.FramesFor(p))
	stop, hungUp := onHangup(p)
	defer stop()
	if _, err := p.Run(); err != nil && !hungUp() {
		return err
	}
	return nil
}

// onHangup ends the program when its terminal goes away (SIGHUP: the pane
// or window closed), so that the deferred Close still runs and clears a
// redirect_requested a form of this session set; by default the signal
// kills the process on the spot and leaves the loop paused. It returns the
// function that stops listening, and one that says whether the hangup is
// what ended the program (then Run's ErrProgramKilled is expected; any
// other error, a panic included, is still reported). After a hangup,
// stop leaves SIGHUP ignored for the rest of the process's short life.
func onHangup(p *tea.Program) (stop func(), hungUp func() bool) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	var got atomic.Bool
	go func() {
		select {
		case <-hup:
			got.Store(true)
			p.Kill() // the terminal is gone: no last frame to draw
		case <-done:
		}
	}()
	return func() {
		if got.Load() {
			// The terminal is gone, and it may say so again (a shell sends
			// its jobs SIGHUP, then SIGCONT; tmux and ssh can repeat it):
			// the cleanup after the program — the session's Close that
			// clears our redirect_requested, the demo removing its
			// directory — must not be cut short by the default action.
			signal.Ignore(syscall.SIGHUP)
		} else {
			signal.Stop(hup)
		}
		close(done)
	}, got.Load
}
