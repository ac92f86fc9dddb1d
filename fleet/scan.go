// Package fleet finds every loop under some directories and keeps a live
// table of them: people run several loops, one per git worktree, and want
// one screen for all of them. Scan finds the state files (and the working
// trees of the git repositories it meets); Watcher follows them with one
// fsnotify watcher for all of them (the trees' directories, or on kqueue
// only the loops' .claude directories within a descriptor budget: see
// WatchMode), and reports each loop as a Row: status, goal, iteration and
// stall meters, counts, when it last changed and whether it needs a
// person (Attention). The rows sort with Less: loops that need attention
// first, then the most recently changed.
package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// DefaultDepth is how many directory levels below each scanned directory a
// project may be, unless told otherwise (~/code/org/repo/worktree is 3).
const DefaultDepth = 4

// DefaultSkip are directory names a scan never enters.
var DefaultSkip = []string{".git", "node_modules", "vendor"}

// The state files' names inside a project's .claude/ directory.
var (
	aotName   = filepath.Base(statefile.AoTStateRel)
	phaseName = filepath.Base(statefile.PhaseLoopRel)
)

// Options tune Scan and Watcher.
type Options struct {
	// Depth is how many levels below each directory a project (a directory
	// holding .claude/) may be: 0 looks at the directories themselves only.
	// Negative is 0. The command line's default is DefaultDepth.
	Depth int
	// NoWorktrees turns off following the git repositories met: by default
	// every working tree that `git worktree list` would report for them
	// (read from the repository's worktrees/ admin directory, without
	// running git) is scanned as well, wherever it is.
	NoWorktrees bool
	// Skip are directory names never entered (nil: DefaultSkip). .claude
	// directories are looked into, not descended.
	Skip []string
	// Watch tunes the reading of each state file: debounce, the stat poll
	// that backs inotify up (default 2 s, one stat per loop), the size limit.
	Watch statefile.WatchOptions
	// Mode is how the Watcher learns of loops that appear and go:
	// WatchAuto (the zero value) is the platform's — WatchClaude where
	// fsnotify works through kqueue (macOS, the BSDs), WatchTrees
	// elsewhere.
	Mode WatchMode
	// Budget is how many file descriptors WatchClaude's watches may hold,
	// a .claude directory counting as 1 + its entries (what kqueue opens
	// for it); the loops of .claude directories beyond it are followed by
	// the stat poll alone. Default: half the soft open-files limit
	// (RLIMIT_NOFILE) the process has.
	Budget int
	// Rescan is how often every tree is walked again: always in
	// WatchClaude (to find the loops that appear and go), and in
	// WatchTrees when some directory could not be watched (the inotify
	// watch limit, an unsupported filesystem); default 10 s. In WatchTrees
	// with every directory watched nothing is walked again.
	Rescan time.Duration
	// RemoveGrace is how long a state file may be away before its row goes
	// (default 250 ms): a writer that deletes and recreates the file does
	// not make the loop blink out of the table.
	RemoveGrace time.Duration
	// Activity, when set, gives the agent.Options of an AoT loop's Claude
	// Code sessions: the Watcher's rows then carry what the sessions show
	// (Row.Activity) — a session that waits for a person makes the loop's
	// attention AttentionNeedsYou, the first of all — read as activity.go
	// says. Nil reads none (--no-activity).
	Activity ActivityFunc
	// ActivityEvery is how often every loop's transcripts are read for
	// what was appended (default 10 s); ActivityDiscover how often they
	// are looked through for new sessions too (default 60 s). The hook
	// events files are looked at every Watch.Poll.
	ActivityEvery    time.Duration
	ActivityDiscover time.Duration
}

func (o Options) withDefaults() Options {
	if o.Depth < 0 {
		o.Depth = 0
	}
	if o.Skip == nil {
		o.Skip = DefaultSkip
	}
	if o.Watch.Debounce <= 0 {
		o.Watch.Debounce = 2 * time.Millisecond
	}
	if o.Watch.Poll <= 0 {
		o.Watch.Poll = 2 * time.Second
	}
	if o.Rescan <= 0 {
		o.Rescan = 10 * time.Second
	}
	if o.RemoveGrace <= 0 {
		o.RemoveGrace = 250 * time.Millisecond
	}
	if o.ActivityEvery <= 0 {
		o.ActivityEvery = 10 * time.Second
	}
	if o.ActivityDiscover <= 0 {
		o.ActivityDiscover = time.Minute
	}
	if o.Mode != WatchTrees && o.Mode != WatchClaude {
		o.Mode = platformMode
	}
	if o.Budget <= 0 {
		o.Budget = defaultBudget(openFilesLimit())
	}
	return o
}

// ActivityFunc gives the agent.Options of the Claude Code sessions of
// the loop whose state file is statePath, and notes for its report (a
// prices file that did not read: the default prices are used); ok false:
// none are read for that loop.
type ActivityFunc func(statePath string) (o agent.Options, notes []string, ok bool)

// Loop is a state file a scan found.
type Loop struct {
	Target statefile.Target
	// Project is the directory holding .claude/.
	Project string
	// Name is Project relative to the scanned directory it was found under
	// (a working tree found through its repository: relative to the
	// directory that led to the repository; the directory itself: its
	// base name).
	Name string
}

// root is a directory walked from level 0: one given to the scan, or a
// working tree of a repository met (found through given).
type root struct {
	path  string
	given string
}

// nameOf names project as the table shows it: relative to the given
// directory its root came from.
func (r *root) nameOf(project string) string {
	rel, err := filepath.Rel(r.given, project)
	if err != nil || rel == "." {
		return filepath.Base(project)
	}
	return filepath.ToSlash(rel)
}

// absDirs makes dirs absolute and clean, refusing what is not a directory.
func absDirs(dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", d, err)
		}
		fi, err := os.Stat(abs)
		switch {
		case err != nil:
			return nil, fmt.Errorf("scan %s: %w", d, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("scan %s: not a directory (--scan takes directories; give a single loop's file without --scan)", d)
		}
		if !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out, nil
}

// walker walks a tree to a depth, reporting what the fleet cares about.
type walker struct {
	depth int
	skip  map[string]bool
	// dir is every directory walked (to watch it), with its level.
	dir func(path string, level int)
	// claude is every .claude directory found.
	claude func(path string)
	// git is every .git entry found (a directory, or a linked working
	// tree's file).
	git func(path string)
}

func newWalker(o Options) *walker {
	w := &walker{depth: o.Depth, skip: map[string]bool{}}
	for _, s := range o.Skip {
		w.skip[s] = true
	}
	return w
}

// walk visits dir (at level) and the directories below it down to the
// depth. Symbolic links are not followed (no cycles, no escaping the tree).
// The directory is reported before it is read, so that a watch on it sees
// whatever appears while it is read.
func (w *walker) walk(dir string, level int) {
	if w.dir != nil {
		w.dir(dir, level)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case name == ".git":
			if w.git != nil {
				w.git(path)
			}
		case !e.IsDir():
		case name == ".claude":
			if w.claude != nil {
				w.claude(path)
			}
		case w.skip[name]:
		case level < w.depth:
			w.walk(path, level+1)
		}
	}
}

// loopsIn lists the state files in a .claude directory, AoT first.
func loopsIn(claudeDir string, r *root) []Loop {
	var out []Loop
	for _, name := range []string{aotName, phaseName} {
		path := filepath.Join(claudeDir, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			out = append(out, newLoop(path, r))
		}
	}
	return out
}

func newLoop(path string, r *root) Loop {
	kind := statefile.KindAoT
	if filepath.Base(path) == phaseName {
		kind = statefile.KindPhaseLoop
	}
	project := filepath.Dir(filepath.Dir(path))
	return Loop{Target: statefile.Target{Path: path, Kind: kind, Exists: true}, Project: project, Name: r.nameOf(project)}
}

// Scan finds every loop under dirs (default: the current directory): each
// .claude/aot-loop-state.md and .claude/autonomous-loop.json of a
// directory at most opts.Depth levels below one of them, skipping
// opts.Skip, and — unless opts.NoWorktrees — those of every working tree
// of the git repositories met. Loops are sorted by path; a directory that
// does not exist is an error.
func Scan(dirs []string, opts Options) ([]Loop, error) {
	s, err := survey(dirs, opts.withDefaults())
	if err != nil {
		return nil, err
	}
	return s.loops, nil
}

// Plan scans as Scan does and says how a Watcher started on the same
// directories with the same options would follow what it found, without
// watching anything: in WatchTrees the directories it would watch (each
// one walked, each .claude directory, the git directories whose working
// trees it follows), in WatchClaude the .claude directories of the loops
// that fit in the budget and the descriptors they take; in both the loops
// left to the stat poll.
func Plan(dirs []string, opts Options) ([]Loop, WatchReport, error) {
	opts = opts.withDefaults()
	s, err := survey(dirs, opts)
	if err != nil {
		return nil, WatchReport{}, err
	}
	paths := make([]string, len(s.loops))
	for i, l := range s.loops {
		paths[i] = l.Target.Path
	}
	notify := backend() != "none"
	watched := map[string]bool{}
	descriptors := 0
	switch {
	case !notify:
	case opts.Mode == WatchClaude:
		for d, c := range chooseClaude(loopDirs(slices.Values(paths)), nil, opts.Budget, false, claudeCost) {
			watched[d] = true
			descriptors += c
		}
	default:
		for _, set := range []map[string]bool{s.walked, s.claude, s.admin} {
			for d := range set {
				watched[d] = true
			}
		}
	}
	isClaude := func(d string) bool { return s.claude[d] }
	return s.loops, newWatchReport(opts, notify, false, watched, isClaude, descriptors, paths), nil
}

// found is what a scan found: the loops, and the directories walked, the
// .claude directories and the git directories (a repository's common
// directory and its worktrees/) a Watcher in WatchTrees would watch.
type found struct {
	loops                 []Loop
	walked, claude, admin map[string]bool
}

func survey(dirs []string, opts Options) (*found, error) {
	roots, err := absDirs(dirs)
	if err != nil {
		return nil, err
	}
	s := &found{walked: map[string]bool{}, claude: map[string]bool{}, admin: map[string]bool{}}
	var loops []Loop
	seenLoop := map[string]bool{}
	walked := s.walked
	repos := map[string]bool{}
	w := newWalker(opts)
	var cur *root
	var queue []*root
	w.dir = func(path string, _ int) { walked[path] = true }
	w.claude = func(path string) {
		s.claude[path] = true
		for _, l := range loopsIn(path, cur) {
			if !seenLoop[l.Target.Path] {
				seenLoop[l.Target.Path] = true
				loops = append(loops, l)
			}
		}
	}
	w.git = func(path string) {
		if opts.NoWorktrees {
			return
		}
		common, err := commonDir(path)
		if err != nil || repos[common] {
			return
		}
		repos[common] = true
		s.admin[common] = true
		if admin := filepath.Join(common, "worktrees"); isDir(admin) {
			s.admin[admin] = true
		}
		trees, _ := worktrees(common)
		for _, t := range trees {
			queue = append(queue, &root{path: t, given: cur.given})
		}
	}
	for _, d := range roots {
		queue = append(queue, &root{path: d, given: d})
	}
	for len(queue) > 0 {
		cur, queue = queue[0], queue[1:]
		if walked[cur.path] {
			continue
		}
		w.walk(cur.path, 0)
	}
	sort.Slice(loops, func(i, j int) bool { return loops[i].Target.Path < loops[j].Target.Path })
	s.loops = loops
	return s, nil
}

// Read reads one loop's state file once and returns its row (a file that
// does not exist is a row with File "error").
func Read(l Loop, opts statefile.WatchOptions) Row {
	r, _ := read(l, opts)
	return r
}

// read is Read, with the AoT state read (nil: none).
func read(l Loop, opts statefile.WatchOptions) (Row, *model.State) {
	var got statefile.Event
	tr := statefile.NewTracker(l.Target, opts, func(ev statefile.Event) { got = ev })
	tr.Check()
	if got.Kind == statefile.EventWaiting || got.Kind == statefile.EventRemoved {
		got.Kind = statefile.EventError
		if got.Err == nil { // else it says why: a symbolic link loop
			got.Err = fmt.Errorf("%s: %w", l.Target.Path, os.ErrNotExist)
		}
	}
	var st *model.State
	if got.Doc != nil {
		st = got.Doc.State
	}
	return rowFrom(l, got, nil), st
}

// ReadAll reads every loop once, in the table's order.
func ReadAll(loops []Loop, opts statefile.WatchOptions) []Row {
	rows := make([]Row, 0, len(loops))
	for _, l := range loops {
		rows = append(rows, Read(l, opts))
	}
	Sort(rows)
	return rows
}

// ReadAllActivity is ReadAll with, for each AoT loop that activity gives
// options for, its Claude Code sessions read once (agent.Open, with the
// loop's atoms) into its row's Activity: `status --scan`. The sessions of
// at most GOMAXPROCS loops are read at once.
func ReadAllActivity(loops []Loop, opts statefile.WatchOptions, activity ActivityFunc) []Row {
	rows := make([]Row, len(loops))
	states := make([]*model.State, len(loops))
	for i, l := range loops {
		rows[i], states[i] = read(l, opts)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(loops), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o, notes, ok := activity(loops[i].Target.Path)
				if !ok {
					continue
				}
				if st := states[i]; st != nil {
					o.Atoms = make([]string, len(st.Atoms))
					for k := range st.Atoms {
						o.Atoms[k] = st.Atoms[k].ID
					}
				}
				rows[i] = WithActivity(rows[i], agent.NewReport(agent.Open(o), o.Prices, o.Since, notes))
			}
		}()
	}
	for i, l := range loops {
		if l.Target.Kind == statefile.KindAoT {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	Sort(rows)
	return rows
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

var errNotGit = errors.New("not a git directory")
