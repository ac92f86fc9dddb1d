package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
)

type demoFlags struct {
	keep     bool
	headless bool
	dir      string
	seed     uint64
	speed    float64
	atoms    int
	quiet    bool
	keys     string
	activity activityFlag
}

func newDemoCmd(g *globalFlags) *cobra.Command {
	var d demoFlags
	cmd := &cobra.Command{
		Use:   "demo [--keep] [--speed X] [--seed N] [--atoms N] [--headless --dir DIR]",
		Short: "A simulated loop in a temp directory, with the TUI on it",
		Long: `Creates a temp project directory, starts a simulated AoT loop on its
.claude/aot-loop-state.md and opens the TUI on it. The scripted demo (the
default) lasts about a minute (72 s with the default --seed, 60–72 s with
others; --speed 2 halves it) and shows progress, a decomposition, an OR
backtrack, a stall and completion; redirect it with r, a, d, o, c, e, b or S
and watch the simulated loop obey (it waits while a form is open). On exit the directory is removed unless
--keep is given.

The simulated loop also writes what Claude Code records of a real one: the
session's transcripts (the coordinator of each iteration, a worker per atom,
their tool calls and tokens) and, once, a permission prompt's hook event, as
aot-tui hook records it. The header says what the agents do now ("◐ A2
worker: Edit internal/auth/hash.go · 2s") and "⚠ needs you" while the prompt
waits (5 s), tab 7 shows the steps and the tokens with their estimated cost.
They go in the demo's directory, never in ~/.claude or your state directory:
DIR/.demo-claude/projects (Claude Code's $CLAUDE_CONFIG_DIR/projects) and
DIR/.demo-state/aot-tui/hooks (aot-tui's $XDG_STATE_HOME/aot-tui/hooks).
--no-activity writes and reads none of it.

--headless runs only the simulator (in --dir, which it creates), for tests and
for watching with a second aot-tui in another pane: aot-tui DIR shows the
loop; with its activity, point that aot-tui at the demo's records:

  CLAUDE_CONFIG_DIR=DIR/.demo-claude XDG_STATE_HOME=DIR/.demo-state aot-tui DIR

(DIR absolute; --headless prints the line to use). --atoms N plays a random
loop on a generated graph of N atoms instead of the script.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(cmd, g, &d)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&d.keep, "keep", false, "keep the temp directory on exit")
	f.BoolVar(&d.headless, "headless", false, "run only the simulator (needs --dir)")
	f.StringVar(&d.dir, "dir", "", "project directory for the simulated loop (default: a new temp dir)")
	f.Uint64Var(&d.seed, "seed", 1, "seed for a reproducible run")
	f.Float64Var(&d.speed, "speed", 1, "time scale: 2 runs twice as fast")
	f.IntVar(&d.atoms, "atoms", 0, "play a random loop on a generated graph of N atoms")
	f.BoolVar(&d.quiet, "quiet", false, "headless: do not narrate the loop")
	d.activity.register(cmd)
	registerKeys(cmd, &d.keys)
	return cmd
}

func runDemo(cmd *cobra.Command, g *globalFlags, d *demoFlags) error {
	if d.speed <= 0 {
		return fail(exitUsage, "--speed must be positive")
	}
	if d.atoms < 0 {
		return fail(exitUsage, "--atoms must not be negative")
	}
	if d.headless && d.dir == "" {
		return fail(exitUsage, "--headless needs --dir DIR (watch it with aot-tui DIR in another pane)")
	}
	var keys *ui.KeyMap
	if !d.headless {
		var err error
		if keys, err = loadKeys(d.keys); err != nil {
			return err
		}
	}
	dir := d.dir
	made := false
	if dir == "" {
		tmp, err := os.MkdirTemp("", "aot-tui-demo-")
		if err != nil {
			return fail(exitUsage, "creating a temp directory: %v", err)
		}
		dir, made = tmp, true
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(exitUsage, "creating %s: %v", dir, err)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	path, err := sim.Setup(dir, d.atoms, d.seed)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	cfg := sim.Config{Path: path, Seed: d.seed, Speed: d.speed, Demo: d.atoms == 0}
	if !d.activity.off {
		cfg.Claude = demoClaudeFiles(dir)
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()

	if d.headless {
		if !d.quiet {
			cfg.Logf = func(format string, args ...any) {
				fmt.Fprintf(out, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		fmt.Fprintf(out, "simulating a loop in %s (watch it: aot-tui %s)\n", termtext.Line(path), termtext.Line(dir))
		if cfg.Claude != nil {
			fmt.Fprintf(out, "with what its agents do, needs you and cost: CLAUDE_CONFIG_DIR=%s XDG_STATE_HOME=%s aot-tui %s\n",
				termtext.Line(shellWord(filepath.Join(dir, demoClaudeDir))), termtext.Line(shellWord(filepath.Join(dir, demoStateDir))), termtext.Line(shellWord(dir)))
		}
		res, err := sim.Run(ctx, cfg)
		if err != nil && !errors.Is(err, context.Canceled) {
			return fail(exitUsage, "simulator: %v", err)
		}
		if res.Claude != nil && res.Claude.Err != nil {
			fmt.Fprintln(errOut, "aot-tui: "+termtext.Line(res.Claude.Err.Error()))
		}
		fmt.Fprintf(out, "the loop ended: %s after %d iterations (%d writes)", res.Status, res.Iterations, res.Writes)
		if res.StopReason != "" {
			fmt.Fprintf(out, " — %s", res.StopReason)
		}
		fmt.Fprintln(out)
		return nil
	}

	afterRecord, besideLoop := oneProc()
	ctx, cancel := context.WithCancel(context.Background())
	simDone := make(chan error, 1)
	go func() {
		res, err := sim.Run(ctx, cfg)
		if err == nil && res.Claude != nil && res.Claude.Err != nil {
			err = res.Claude.Err
		}
		simDone <- err
	}()
	m := ui.New(ui.Options{
		Target:      statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true},
		Watch:       statefile.WatchOptions{MaxSize: g.maxSize},
		LoopName:    "demo",
		Keys:        keys,
		Journal:     demoJournal,
		AfterRecord: afterRecord,
		BesideLoop:  besideLoop,
		Activity:    demoActivity(cfg.Claude),
	})
	runErr := runUntilEnd(m, out)
	m.Close()
	cancel()
	simErr := <-simDone
	if simErr != nil && !errors.Is(simErr, context.Canceled) {
		fmt.Fprintln(errOut, "aot-tui: "+termtext.Line(fmt.Sprintf("the simulator stopped early: %v", simErr)))
	}
	switch {
	case d.keep || !made:
		fmt.Fprintf(out, "the demo loop is in %s\n", termtext.Line(dir))
	default:
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(errOut, "aot-tui: "+termtext.Line(fmt.Sprintf("could not remove %s: %v", dir, err)))
		} else {
			fmt.Fprintf(out, "the demo loop was in %s (removed; --keep keeps it)\n", termtext.Line(filepath.Clean(dir)))
		}
	}
	if runErr != nil {
		return fail(exitUsage, "the terminal UI failed: %v", runErr)
	}
	return nil
}

// demoJournal keeps the demo's journal beside its state file: the demo's
// directory is aot-tui's own (a temporary one is removed with it), and
// replay finds the journal there.
func demoJournal(statePath string) (string, error) { return history.JournalBeside(statePath), nil }

// Where the demo keeps what Claude Code would record of its loop, inside
// the demo's directory: Claude Code's configuration directory (its
// transcripts under projects/) and a state directory (the hook's events
// under aot-tui/hooks/), laid out as $CLAUDE_CONFIG_DIR and
// $XDG_STATE_HOME are, so that another aot-tui pointed at them reads
// them.
const (
	demoClaudeDir = ".demo-claude"
	demoStateDir  = ".demo-state"
)

// demoClaudeFiles are the demo's Claude Code records in dir.
func demoClaudeFiles(dir string) *sim.ClaudeFiles {
	return &sim.ClaudeFiles{
		Projects: filepath.Join(dir, demoClaudeDir, "projects"),
		Hooks:    filepath.Join(dir, demoStateDir, "aot-tui", "hooks"),
	}
}

// demoActivity is ui.Options.Activity for the demo: the loop's sessions
// are the simulator's records in the demo's directory, never the user's
// (nil files, --no-activity: none are read).
func demoActivity(files *sim.ClaudeFiles) func(statePath string) (agent.Options, bool) {
	if files == nil {
		return nil
	}
	prices, err := agent.LoadPrices(agent.PricesFile(), false)
	if err != nil {
		prices = agent.DefaultPrices()
	}
	return func(statePath string) (agent.Options, bool) {
		project := statefile.ProjectDir(statePath)
		return agent.Options{Project: project, Root: files.Projects, Prices: prices, HookFile: agent.HookEventsFile(files.Hooks, project)}, true
	}
}

// shellWord is s as one word of a POSIX shell's command line: quoted
// when it holds anything but letters, digits and -_./:=@%+,.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
