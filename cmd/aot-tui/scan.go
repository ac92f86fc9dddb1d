package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scanFlags are --scan and the flags that tune it, on the TUI and on
// status.
type scanFlags struct {
	on        bool
	depth     int
	worktrees bool
	watch     string
	budget    int
	noRemotes bool
	// hostTimeout (status --scan's --host-timeout) bounds the wait for
	// each remote host's answer.
	hostTimeout time.Duration
}

func (s *scanFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&s.on, "scan", false, "every loop under the directories given (default .), in one table")
	f.IntVar(&s.depth, "depth", fleet.DefaultDepth, "with --scan: how many directory levels below each directory a project may be")
	f.BoolVar(&s.worktrees, "worktrees", true, "with --scan: also every git worktree of the repositories found (--worktrees=false: not)")
	f.StringVar(&s.watch, "watch", "auto", "with --scan: trees (watch every directory: Linux, Windows), claude (only the loops' .claude directories, trees walked again every 10s: macOS, BSD) or auto")
	f.BoolVar(&s.noRemotes, "no-remotes", false, "with --scan: leave out the hosts of remotes.yaml (ssh://host/dir arguments still count)")
	f.IntVar(&s.budget, "watch-budget", 0, "with --scan: file descriptors the claude mode's watches may hold (default half the open-files limit); loops beyond it are polled every 2s")
}

// watchModes are --watch's values.
var watchModes = map[string]fleet.WatchMode{"auto": fleet.WatchAuto, "trees": fleet.WatchTrees, "claude": fleet.WatchClaude}

// check refuses the scan's tuning flags without --scan, and a bad depth.
func (s *scanFlags) check(flags *pflag.FlagSet) error {
	if !s.on {
		for _, name := range []string{"depth", "worktrees", "watch", "watch-budget", "no-remotes", "host-timeout"} {
			if flags.Changed(name) {
				return fail(exitUsage, "--%s goes with --scan", name)
			}
		}
		return nil
	}
	if flags.Changed("host-timeout") && s.hostTimeout <= 0 {
		return fail(exitUsage, "--host-timeout must be more than 0, not %v", s.hostTimeout)
	}
	if s.depth < 0 {
		return fail(exitUsage, "--depth must not be negative")
	}
	if _, ok := watchModes[s.watch]; !ok {
		return fail(exitUsage, "--watch %q: give auto, trees or claude", s.watch)
	}
	if s.budget < 0 {
		return fail(exitUsage, "--watch-budget must not be negative")
	}
	return nil
}

func (s *scanFlags) options(g *globalFlags) fleet.Options {
	return fleet.Options{Depth: s.depth, NoWorktrees: !s.worktrees, Mode: watchModes[s.watch], Budget: s.budget,
		Watch: statefile.WatchOptions{MaxSize: g.maxSize}}
}

// scanDirs are the directories to scan (default .), each of which must be
// a directory: the TUI would otherwise start on an error. With --scan the
// arguments are directories, never waited for, so a missing one is
// refused as such; root, given for the TUI's own arguments (aot-tui --scan
// stats), adds the commands a bare word there may be a slip for.
func scanDirs(args []string, file string, root *cobra.Command) ([]string, error) {
	if file != "" {
		return nil, fail(exitUsage, "-f names one loop; --scan takes directories as arguments")
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	for _, d := range args {
		fi, err := os.Stat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if root != nil && !looksLikePath(d) {
				if s := suggest(root, d); len(s) > 0 {
					return nil, fail(exitUsage, "--scan %s: no such directory (or a mistyped command: did you mean %s?)", d, orList(s))
				}
			}
			return nil, fail(exitUsage, "--scan %s: no such directory", d)
		case err != nil:
			return nil, fail(exitUsage, "--scan %s: %v", d, err)
		case !fi.IsDir():
			return nil, fail(exitUsage, "--scan %s: not a directory (give a loop's state file without --scan)", d)
		}
	}
	return args, nil
}

// scanRoots splits --scan's arguments into local directories (scanDirs;
// "." when there are no arguments at all) and remote hosts: ssh://
// arguments, and unless --no-remotes the hosts of remotes.yaml.
func scanRoots(args []string, file string, root *cobra.Command, s *scanFlags) ([]string, []*remote.Host, error) {
	var local []string
	var hosts []*remote.Host
	for _, a := range args {
		if !remote.IsURL(a) {
			local = append(local, a)
			continue
		}
		h, err := remote.ParseURL(a)
		if err != nil {
			return nil, nil, fail(exitUsage, "--scan %v", err)
		}
		hosts = append(hosts, &h)
	}
	if !s.noRemotes {
		listed, err := remote.LoadFile(remote.File())
		if err != nil {
			return nil, nil, fail(exitUsage, "%v", err)
		}
		for i := range listed {
			hosts = append(hosts, &listed[i])
		}
	}
	if len(local) == 0 && len(args) > 0 {
		return nil, hosts, nil // only remote roots: no local scan
	}
	dirs, err := scanDirs(local, file, root)
	return dirs, hosts, err
}

// runFleetTUI opens the fleet table on every loop under args.
func runFleetTUI(cmd *cobra.Command, args []string, t *tuiFlags, g *globalFlags) error {
	dirs, hosts, err := scanRoots(args, t.file, cmd.Root(), &t.scan)
	if err != nil {
		return err
	}
	keys, err := loadKeys(t.keys)
	if err != nil {
		return err
	}
	o := t.uiOptions(g, keys)
	o.Fleet = &ui.FleetOptions{Dirs: dirs, Options: t.scan.options(g), Hosts: hosts}
	o.Fleet.Options.Activity = t.activity.fleetActivity(&t.journalDir)
	return runModel(cmd, ui.New(o))
}

// fleetJSON is `status --scan --json`: the directories scanned, the
// summary, every loop's row in the table's order (fleet.Row's keys), and
// how the table's watcher would follow them (fleet.WatchReport's keys).
type fleetJSON struct {
	Dirs    []string          `json:"dirs"`
	Depth   int               `json:"depth"`
	Summary fleet.Summary     `json:"summary"`
	Loops   []fleet.Row       `json:"loops"`
	Watch   fleet.WatchReport `json:"watch"`
	// Hosts are the remote hosts read (Many machines), with why one could
	// not be; none without remote hosts.
	Hosts []hostJSON `json:"hosts,omitempty"`
}

// hostJSON is a remote host as status --scan read it.
type hostJSON struct {
	Name  string `json:"name"`
	Loops int    `json:"loops"`
	Error string `json:"error,omitempty"`
}

// DefaultHostTimeout is how long status --scan waits for a host's answer
// (--host-timeout): a host that is down must not hold up the local rows
// for long.
const DefaultHostTimeout = 20 * time.Second

// readHosts reads every host's fleet at once (fleet.ReadHost), each for
// timeout at most.
func readHosts(hosts []*remote.Host, timeout time.Duration) ([]fleet.Row, []hostJSON) {
	if timeout <= 0 {
		timeout = DefaultHostTimeout
	}
	type result struct {
		rows []fleet.Row
		err  error
	}
	res := make([]result, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			res[i].rows, res[i].err = fleet.ReadHost(ctx, h)
			if errors.Is(res[i].err, context.DeadlineExceeded) {
				res[i].err = fmt.Errorf("no answer in %v (--host-timeout)", timeout)
			}
		}()
	}
	wg.Wait()
	var rows []fleet.Row
	var out []hostJSON
	for i, h := range hosts {
		hj := hostJSON{Name: h.Name, Loops: len(res[i].rows)}
		if res[i].err != nil {
			hj.Error = res[i].err.Error()
		}
		out = append(out, hj)
		rows = append(rows, res[i].rows...)
	}
	return rows, out
}

// runStatusScan prints the fleet table once; activity (nil with
// --no-activity) reads each AoT loop's sessions into its row as status
// does.
func runStatusScan(cmd *cobra.Command, args []string, s *scanFlags, file string, g *globalFlags, asJSON bool, activity fleet.ActivityFunc) error {
	dirs, hosts, err := scanRoots(args, file, nil, s)
	if err != nil {
		return err
	}
	opts := s.options(g)
	loops, watch, err := fleet.Plan(dirs, opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	var rows []fleet.Row
	if activity != nil {
		rows = fleet.ReadAllActivity(loops, opts.Watch, activity)
	} else {
		rows = fleet.ReadAll(loops, opts.Watch)
	}
	var hostsRead []hostJSON
	if len(hosts) > 0 {
		var far []fleet.Row
		far, hostsRead = readHosts(hosts, s.hostTimeout)
		rows = append(rows, far...)
		fleet.Sort(rows)
	}
	out := cmd.OutOrStdout()
	if asJSON {
		abs := make([]string, len(dirs))
		for i, d := range dirs {
			abs[i], _ = filepath.Abs(d)
		}
		writeJSON(out, fleetJSON{Dirs: abs, Depth: s.depth, Summary: fleet.Summarize(rows), Loops: rows, Watch: watch, Hosts: hostsRead})
		return nil
	}
	printFleet(out, rows, watch, time.Now())
	for _, h := range hostsRead {
		if h.Error != "" {
			fmt.Fprintf(out, "host %s: %s\n", termtext.Line(h.Name), termtext.Line(h.Error))
		}
	}
	return nil
}

// printFleet prints the table as text, every string from a file
// sanitised, and how the table's watcher would follow the loops: a line
// under each loop it would leave to the stat poll, and the watch's own
// line last.
func printFleet(w io.Writer, rows []fleet.Row, watch fleet.WatchReport, now time.Time) {
	line := termtext.Line
	fmt.Fprintf(w, "fleet · %s\n", fleet.Summarize(rows))
	if len(rows) == 0 {
		fmt.Fprintln(w, "no loops found (a project's .claude/aot-loop-state.md or .claude/autonomous-loop.json)")
		fmt.Fprintln(w, line(watch.String()))
		return
	}
	nameW := len("project")
	costs := false // a cost column when some loop's sessions were read
	for _, r := range rows {
		n := len([]rune(line(r.Name)))
		if r.Host != "" {
			n += len([]rune(line(r.Host))) + 1
		}
		nameW = max(nameW, n)
		costs = costs || r.Activity != nil
	}
	costHead := ""
	if costs {
		costHead = fmt.Sprintf("%-7s ", "≈cost")
	}
	fmt.Fprintf(w, "  %-*s %-5s %-12s %-9s %-6s %-12s %-7s %s%s\n", nameW, "project", "kind", "status", "iteration", "stall", "atoms", "changed", costHead, "goal")
	for _, r := range rows {
		mark := " "
		switch {
		case r.Attention == fleet.AttentionNeedsYou:
			mark = "?"
		case r.NeedsAttention():
			mark = "!"
		case r.LoopTools > 0:
			mark = "~" // the loop's own tools read some values otherwise
		}
		kind, status, atoms := "aot", r.Status, loopword.AtomCounts(r.Summary)
		if r.Kind == statefile.KindPhaseLoop.String() {
			kind, atoms = "phase", loopword.PhaseCount(r.PhasesDone, r.PhasesTotal)
			if r.Status == "running" {
				status = r.Phase
			}
		}
		if r.File != fleet.FileOK {
			status = "invalid"
		}
		changed := "—"
		if !r.Changed.IsZero() {
			changed = textfmt.Ago(now.Sub(r.Changed))
		}
		iter, stall := fmt.Sprintf("%d/%d", r.Iteration, r.MaxIterations), fmt.Sprintf("%d/%d", r.StallCount, r.MaxStallCount)
		if r.MaxIterations == 0 { // never read: nothing to count
			iter, stall, atoms = "—", "—", "—"
		}
		cost := ""
		if costs {
			cost = fmt.Sprintf("%-7s ", costText(r.Activity))
		}
		name := line(r.Name)
		if r.Host != "" {
			name = line(r.Host) + ":" + name
		}
		fmt.Fprintf(w, "%s %s%s %-5s %-12s %-9s %-6s %-12s %-7s %s%s\n", mark, name, strings.Repeat(" ", nameW-len([]rune(name))),
			kind, line(status), iter, stall, atoms, changed, cost, line(r.Goal))
		switch {
		case r.Attention == fleet.AttentionNeedsYou:
			fmt.Fprintf(w, "  %s└ %s\n", strings.Repeat(" ", nameW), line(r.Reason))
			if a, why := r.UnderWait(); a != fleet.AttentionNone {
				fmt.Fprintf(w, "  %s└ %s\n", strings.Repeat(" ", nameW), line(why))
			}
		case r.NeedsAttention():
			fmt.Fprintf(w, "  %s└ %s\n", strings.Repeat(" ", nameW), line(r.Reason))
		case r.LoopTools > 0:
			fmt.Fprintf(w, "  %s└ loop tools: %s\n", strings.Repeat(" ", nameW), line(r.LoopTool))
		}
		if watch.IsPolled(r.Path) {
			fmt.Fprintf(w, "  %s└ %s\n", strings.Repeat(" ", nameW), line(watch.PolledWhy()))
		}
	}
	if costs {
		fmt.Fprintln(w, "≈cost: the estimated cost of each loop's Claude Code sessions since it began, at the prices of "+line(pricesDate(rows))+" (an estimate: see the README)")
	}
	fmt.Fprintln(w, line(watch.String()))
}

// costText is a loop's estimated cost in the text table: "—" when its
// sessions were not read or none was found.
func costText(a *agent.Report) string {
	if a == nil || (!a.Found && a.Responses == 0) {
		return "—"
	}
	return textfmt.USD(a.Cost.USD)
}

// pricesDate is the date of the prices the rows' costs are estimated at.
func pricesDate(rows []fleet.Row) string {
	for _, r := range rows {
		if r.Activity != nil {
			return r.Activity.Cost.PricesDate
		}
	}
	return ""
}
