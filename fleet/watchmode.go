package fleet

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
)

// WatchMode is how a Watcher learns of loops that appear and go.
type WatchMode int

// Watch modes.
const (
	// WatchAuto is the platform's mode: WatchClaude where fsnotify works
	// through kqueue (macOS, iOS and the BSDs), WatchTrees elsewhere.
	WatchAuto WatchMode = iota
	// WatchTrees watches every directory of the scanned trees, so that
	// projects, .claude directories and working trees are seen the moment
	// they appear or go, and every .claude directory: one inotify watch
	// each on Linux.
	WatchTrees
	// WatchClaude watches only the .claude directories of the loops found,
	// within Options.Budget file descriptors, and walks the trees again
	// every Options.Rescan for loops that appear and go. kqueue opens a
	// descriptor for every watched directory and for every entry in it:
	// watching whole trees would take one per file of every project.
	WatchClaude
)

// String is the mode's name as `status --scan --json` reports it.
func (m WatchMode) String() string {
	switch m {
	case WatchTrees:
		return "trees"
	case WatchClaude:
		return "claude"
	}
	return "auto"
}

// backend names fsnotify's mechanism on this system.
func backend() string {
	switch runtime.GOOS {
	case "linux", "android":
		return "inotify"
	case "darwin", "ios", "freebsd", "netbsd", "openbsd", "dragonfly":
		return "kqueue"
	case "windows":
		return "ReadDirectoryChangesW"
	case "solaris", "illumos":
		return "fen"
	}
	return "none"
}

// maxBudget bounds the default budget where the open-files limit is
// unlimited (RLIM_INFINITY).
const maxBudget = 1 << 20

// defaultBudget is half the soft open-files limit (the other half stays
// for the files the program opens: state files, temporary files of
// writes, the watcher of an opened loop, verify's pipes); 4096 where the
// system has no such limit.
func defaultBudget(limit uint64) int {
	if limit == 0 {
		return 4096
	}
	return int(min(limit/2, maxBudget))
}

// claudeCost is what watching the .claude directory dir costs kqueue: a
// descriptor for the directory and one for each entry in it.
func claudeCost(dir string) int {
	entries, _ := os.ReadDir(dir)
	return 1 + len(entries)
}

// WatchReport says how a Watcher follows the fleet: what it watches, at
// what cost, and which loops only the stat poll follows. `status --scan
// --json` prints it as "watch"; the JSON keys are stable.
type WatchReport struct {
	// Mode is "trees" or "claude" (WatchMode); Backend is fsnotify's
	// mechanism ("inotify", "kqueue", "ReadDirectoryChangesW", "fen"),
	// "none" where there is none (every loop is polled).
	Mode    string `json:"mode"`
	Backend string `json:"backend"`
	// Dirs is the number of directories watched, the .claude ones
	// included; ClaudeDirs the .claude directories among them.
	Dirs       int `json:"dirs"`
	ClaudeDirs int `json:"claude_dirs"`
	// Descriptors is what the claude mode's watches hold, each .claude
	// directory counted as kqueue opens it (1 + its entries), of Budget,
	// the most they may hold. Both are 0 in the trees mode.
	Descriptors int `json:"descriptors"`
	Budget      int `json:"budget"`
	// OpenFilesLimit is the process's soft RLIMIT_NOFILE (as Go raised it
	// at start-up; 0 where there is none), the default budget's base.
	OpenFilesLimit uint64 `json:"open_files_limit"`
	// Loops is the number of state files followed; Polled are those (by
	// path, sorted) whose .claude directory is not watched — beyond the
	// budget, or its watch failed — which the stat poll alone follows.
	Loops  int      `json:"loops"`
	Polled []string `json:"polled"`
	// PollMS is the stat poll's interval; RescanMS how often the trees
	// are walked again (0: never, every directory being watched).
	PollMS   int64 `json:"poll_ms"`
	RescanMS int64 `json:"rescan_ms"`
}

// IsPolled reports whether the loop at path is followed by the stat poll
// alone.
func (r WatchReport) IsPolled(path string) bool {
	i := sort.SearchStrings(r.Polled, path)
	return i < len(r.Polled) && r.Polled[i] == path
}

// String is the report in one line: "watching 12 .claude directories with
// 48 of 200 descriptors (kqueue); trees walked again every 10s; 3 loops
// polled every 2s".
func (r WatchReport) String() string {
	ms := func(n int64) string { return (time.Duration(n) * time.Millisecond).String() }
	var parts []string
	switch {
	case r.Backend == "none":
		parts = append(parts, "no file notifications on this system")
	case r.Mode == WatchClaude.String():
		parts = append(parts, fmt.Sprintf("watching %s with %d of %d descriptors (%s)", dirs(r.ClaudeDirs, ".claude "), r.Descriptors, r.Budget, r.Backend))
	default:
		parts = append(parts, fmt.Sprintf("watching %s (%s)", dirs(r.Dirs, ""), r.Backend))
	}
	if r.RescanMS > 0 {
		parts = append(parts, "trees walked again every "+ms(r.RescanMS))
	}
	if n := len(r.Polled); n > 0 {
		loops := "loops"
		if n == 1 {
			loops = "loop"
		}
		parts = append(parts, fmt.Sprintf("%d %s polled every %s", n, loops, ms(r.PollMS)))
	}
	return strings.Join(parts, "; ")
}

// PolledWhy says why a polled loop is not notified, for the table.
func (r WatchReport) PolledWhy() string {
	p := (time.Duration(r.PollMS) * time.Millisecond).String()
	switch {
	case r.Backend == "none":
		return "polled every " + p + ": no file notifications on this system"
	case r.Mode == WatchClaude.String():
		return "polled every " + p + ": its .claude directory is beyond the watch budget of " + fmt.Sprint(r.Budget) + " descriptors"
	}
	return "polled every " + p + ": its .claude directory could not be watched"
}

func dirs(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + "directory"
	}
	return fmt.Sprintf("%d %sdirectories", n, kind)
}

// loopDirs are the directories of the state files paths (their .claude
// directories), each once, sorted.
func loopDirs(paths iter.Seq[string]) []string {
	var out []string
	for p := range paths {
		out = append(out, filepath.Dir(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// chooseClaude is the claude mode's choice of the .claude directories to
// watch among dirs (those holding loops, sorted), a directory costing
// cost(d) descriptors (1 + its entries). held are the directories watched
// already, with what they cost when counted (nil: none, as a plan from
// scratch): they stay watched while the total fits in budget, so that the
// choice does not churn; with recount they are counted again first (they
// grow: the journal, a kept file), and when the total is over the budget
// the last ones by path go. Then each other directory, in order, is taken
// if it fits in what is left (a directory too big for that does not stop
// a smaller one after it). It returns the chosen directories with their
// costs.
func chooseClaude(dirs []string, held map[string]int, budget int, recount bool, cost func(string) int) map[string]int {
	chosen := map[string]int{}
	used := 0
	for _, d := range dirs {
		if c, ok := held[d]; ok {
			if recount {
				c = cost(d)
			}
			chosen[d] = c
			used += c
		}
	}
	for i := len(dirs) - 1; i >= 0 && used > budget; i-- {
		if c, ok := chosen[dirs[i]]; ok {
			used -= c
			delete(chosen, dirs[i])
		}
	}
	for _, d := range dirs {
		if _, ok := held[d]; ok {
			continue
		}
		if c := cost(d); used+c <= budget {
			used += c
			chosen[d] = c
		}
	}
	return chosen
}

// newWatchReport is the report of a watch in opts.Mode (a Watcher's now,
// or Plan's) following the state files loops: watched are the directories
// watched (isClaude says which of them are .claude directories),
// descriptors what the claude mode's watches hold; notify says whether
// file notifications work here, degraded whether some directory could not
// be watched (both make the trees be walked again every Options.Rescan, as
// the claude mode always does).
func newWatchReport(opts Options, notify, degraded bool, watched map[string]bool, isClaude func(string) bool, descriptors int, loops []string) WatchReport {
	r := WatchReport{
		Mode: opts.Mode.String(), Backend: backend(), Dirs: len(watched), OpenFilesLimit: openFilesLimit(),
		Loops: len(loops), Polled: []string{}, PollMS: opts.Watch.Poll.Milliseconds(),
	}
	if !notify {
		r.Backend = "none"
	}
	for d := range watched {
		if isClaude(d) {
			r.ClaudeDirs++
		}
	}
	if opts.Mode == WatchClaude {
		r.Descriptors, r.Budget = descriptors, opts.Budget
	}
	if opts.Mode == WatchClaude || degraded || !notify {
		r.RescanMS = opts.Rescan.Milliseconds()
	}
	for _, p := range loops {
		if !watched[filepath.Dir(p)] {
			r.Polled = append(r.Polled, p)
		}
	}
	sort.Strings(r.Polled)
	return r
}
