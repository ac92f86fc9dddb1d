package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

type watchFlags struct {
	scan   scanFlags
	notify bool
}

func newWatchCmd(g *globalFlags) *cobra.Command {
	w := &watchFlags{}
	cmd := &cobra.Command{
		Use:   "watch [PATH ...] [--notify] | watch --scan [DIR ...] [--notify]",
		Short: "Follow loops without a screen: one line per alert (--notify: to the command and webhook too)",
		Long: `Follows loops without a screen — for a tmux pane, a terminal left open or a
service — and prints one line on stdout for each alert the TUI would give:

  2026-05-04T10:12:09Z completed billing: completed

(the time in UTC, the kind — needs_attention, needs_you, completed, stopped —
the loop, and why; every string from a file shown with its control characters
escaped). With --notify each one also goes to the command and the webhook of
the config file (aot-tui notify; notify test tries them), and what goes wrong
sending is one line on stderr. It runs until it is interrupted (Ctrl-C,
SIGTERM, SIGHUP), then sends what is queued (at most 2 seconds) and exits 0.

PATH is a project directory (its loops: .claude/aot-loop-state.md,
.claude/autonomous-loop.json) or one of those files (default: .). With --scan
the arguments are directories (default .) and every loop under them is
followed, as in the TUI's fleet table, with the same flags. A loop is
followed from when it is first seen: what it was then is no alert.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runWatch(cmd, args, w, g) },
	}
	w.scan.register(cmd)
	cmd.Flags().BoolVar(&w.notify, "notify", false, "also send each alert to the command and webhook of the config file ("+notify.ConfigFileHint+"; see aot-tui notify)")
	return cmd
}

// watchPlan is what watch follows: the directories the fleet watcher
// scans, and which of the loops it finds are shown (keep nil: all).
type watchPlan struct {
	dirs []string
	opts fleet.Options
	keep func(fleet.Row) bool
}

// planWatch turns the arguments into a watchPlan: --scan's directories,
// else each PATH's project, scanned alone (depth 0, no worktrees) and
// narrowed to the file PATH names, when it names one.
func planWatch(args []string, w *watchFlags, g *globalFlags) (watchPlan, error) {
	if w.scan.on {
		dirs, err := scanDirs(args, "", nil)
		if err != nil {
			return watchPlan{}, err
		}
		for i, d := range dirs {
			if abs, err := filepath.Abs(d); err == nil {
				dirs[i] = abs
			}
		}
		return watchPlan{dirs: dirs, opts: w.scan.options(g)}, nil
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	files, projects := map[string]bool{}, map[string]bool{}
	var dirs []string
	for _, p := range args {
		target, err := statefile.Discover(p)
		if err != nil && !statefile.CanWait(err) {
			return watchPlan{}, fail(exitUsage, "%v", err)
		}
		abs, err := filepath.Abs(target.Path)
		if err != nil {
			return watchPlan{}, fail(exitUsage, "%s: %v", p, err)
		}
		name := filepath.Base(abs)
		if filepath.Base(filepath.Dir(abs)) != ".claude" || (name != filepath.Base(statefile.AoTStateRel) && name != filepath.Base(statefile.PhaseLoopRel)) {
			return watchPlan{}, fail(exitUsage, "watch %s: watch follows a project's %s or %s — give the project directory, or open this file in the TUI",
				p, filepath.ToSlash(statefile.AoTStateRel), filepath.ToSlash(statefile.PhaseLoopRel))
		}
		project := filepath.Dir(filepath.Dir(abs))
		if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
			return watchPlan{}, fail(exitUsage, "watch %s: no project directory %s", p, project)
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			projects[project] = true // the project's loops, whichever appears
		} else {
			files[abs] = true
		}
		if !containsString(dirs, project) {
			dirs = append(dirs, project)
		}
	}
	keep := func(r fleet.Row) bool { return files[r.Path] || projects[filepath.Dir(filepath.Dir(r.Path))] }
	return watchPlan{dirs: dirs, keep: keep, opts: fleet.Options{Depth: 0, NoWorktrees: true,
		Mode: watchModes[w.scan.watch], Watch: statefile.WatchOptions{MaxSize: g.maxSize}}}, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func runWatch(cmd *cobra.Command, args []string, w *watchFlags, g *globalFlags) error {
	if err := w.scan.check(cmd.Flags()); err != nil {
		return err
	}
	plan, err := planWatch(args, w, g)
	if err != nil {
		return err
	}
	var n *notify.Notifier
	if w.notify {
		if n, err = startNotify(); err != nil {
			return err
		}
		if n == nil {
			return fail(exitUsage, "--notify: the config file %s names no notify.command or notify.webhook — add one (aot-tui notify --help)", notify.ConfigFile())
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err = watchLoops(ctx, plan, n, cmd.OutOrStdout(), cmd.ErrOrStderr())
	n.Close(notifyDrain)
	printNotes(cmd.ErrOrStderr(), n)
	return err
}

// watchLoops follows the loops of plan until ctx ends: each alert (as
// fleet.AlertReason decides, the fleet table's) is a line on out and an
// event for n (nil: none); n's notes go to errOut.
func watchLoops(ctx context.Context, plan watchPlan, n *notify.Notifier, out, errOut io.Writer) error {
	fw, err := fleet.Start(plan.dirs, plan.opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer fw.Stop()
	rows := map[string]fleet.Row{}
	take := func() {
		for _, c := range fw.Changes() {
			if plan.keep != nil && !plan.keep(c) {
				continue
			}
			prev, had := rows[c.Path]
			if c.Gone {
				delete(rows, c.Path)
				continue
			}
			rows[c.Path] = c
			if !had {
				continue // first sight: nothing a person missed
			}
			if why := fleet.AlertReason(prev, c); why != "" {
				ev := notify.Event{Kind: notify.RowKind(c.Attention.String(), why), Loop: c.Name, Path: c.Path, Host: c.Host, Reason: why,
					Time: time.Now(), Version: currentVersion().Version}
				fmt.Fprintln(out, ev.Clean().Line())
				n.Send(ev)
			}
		}
	}
	ready := fw.Ready()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ready:
			ready = nil
			take()
			fmt.Fprintln(errOut, "aot-tui watch: "+termtext.Line(watchingLine(len(rows), plan.dirs, n)))
		case <-n.Notes():
			printNotes(errOut, n)
		case <-fw.Notify():
			take()
		}
	}
}

// watchingLine says what watch follows, once the first scan is done.
func watchingLine(loops int, dirs []string, n *notify.Notifier) string {
	s := fmt.Sprintf("following %s under %s", textfmt.Plural(loops, "loop"), strings.Join(dirs, " "))
	if n == nil {
		return s + " (alerts on stdout only: --notify sends them on)"
	}
	cfg := n.Config()
	var to []string
	if len(cfg.Command) > 0 {
		to = append(to, "command "+cfg.Command[0])
	}
	if cfg.Webhook != nil {
		to = append(to, "webhook "+cfg.Webhook.Where())
	}
	return s + "; alerts also to " + strings.Join(to, " and ")
}
