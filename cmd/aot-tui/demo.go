package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

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
}

func newDemoCmd(g *globalFlags) *cobra.Command {
	var d demoFlags
	cmd := &cobra.Command{
		Use:   "demo [--keep] [--speed X] [--seed N] [--atoms N] [--headless --dir DIR]",
		Short: "A simulated loop in a temp directory, with the TUI on it",
		Long: `Creates a temp project directory, starts a simulated AoT loop on its
.claude/aot-loop-state.md and opens the TUI on it. The scripted demo (the
default) lasts about a minute (67 s with the default --seed, 55–67 s with
others; --speed 2 halves it) and shows progress, a decomposition, an OR
backtrack, a stall and completion; redirect it with r, a, d, o, c, e, b or S
and watch the simulated loop obey (it waits while a form is open). On exit the directory is removed unless
--keep is given.

--headless runs only the simulator (in --dir, which it creates), for tests and
for watching with a second aot-tui in another pane. --atoms N plays a random
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
	path, err := sim.Setup(dir, d.atoms, d.seed)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	cfg := sim.Config{Path: path, Seed: d.seed, Speed: d.speed, Demo: d.atoms == 0}
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
		res, err := sim.Run(ctx, cfg)
		if err != nil && !errors.Is(err, context.Canceled) {
			return fail(exitUsage, "simulator: %v", err)
		}
		fmt.Fprintf(out, "the loop ended: %s after %d iterations (%d writes)", res.Status, res.Iterations, res.Writes)
		if res.StopReason != "" {
			fmt.Fprintf(out, " — %s", res.StopReason)
		}
		fmt.Fprintln(out)
		return nil
	}

	afterRecord := oneProc()
	ctx, cancel := context.WithCancel(context.Background())
	simDone := make(chan error, 1)
	go func() {
		_, err := sim.Run(ctx, cfg)
		simDone <- err
	}()
	m := ui.New(ui.Options{
		Target:      statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true},
		Watch:       statefile.WatchOptions{MaxSize: g.maxSize},
		LoopName:    "demo",
		Keys:        keys,
		Journal:     demoJournal,
		AfterRecord: afterRecord,
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
