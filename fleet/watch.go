package fleet

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/fsnotify/fsnotify"
)

// Watcher keeps the fleet's table live. One fsnotify watcher serves the
// whole fleet. In WatchTrees (Linux, Windows) it covers every directory
// of the scanned trees (to see projects, .claude directories and working
// trees appear and go) and every .claude directory (to see the state
// files change): one inotify instance, one watch per directory, no
// polling of directories while the watches hold. In WatchClaude (macOS,
// the BSDs: kqueue opens a descriptor per watched directory and per entry
// in it) it covers only the .claude directories of the loops found, as
// many as Options.Budget allows, and walks the trees again every
// Options.Rescan to find loops that appear and go. Each loop has a
// goroutine that reads and parses its file when told to (a
// statefile.Tracker: the same reading, debounce and mid-write handling as
// the single-loop view) and a stat every Options.Watch.Poll as the
// fallback for missed notifications — and the only way a loop whose
// .claude directory is not watched is followed (Watch says which loops):
// fifty loops cost 25 stats a second.
type Watcher struct {
	opts   Options
	fsw    *fsnotify.Watcher
	walker *walker

	// Owned by the run goroutine.
	given   []*root
	cur     *root
	dirs    map[string]dirInfo
	claude  map[string]*root
	loops   map[string]*tracked
	repos   map[string]*repo
	admin   map[string]string // watched git directories (<common>, <common>/worktrees) → common
	watched map[string]bool
	initial *sync.WaitGroup
	// degraded is set when a directory could not be watched: every
	// directory is then walked again every Options.Rescan.
	degraded bool
	// cost is what each .claude directory watched in WatchClaude holds
	// (1 + its entries when it was counted); used their sum.
	cost map[string]int
	used int
	// rebalance: WatchClaude's choice of .claude directories is to be
	// made again (loops or directories came or went); reported: the
	// WatchReport is to be made again.
	rebalance, reported bool

	mu      sync.Mutex
	rows    map[string]Row
	pending map[string]Row
	notify  chan struct{}
	report  WatchReport
	// actNew are the loops handed to the activity goroutine (activity.go)
	// and not taken yet; actWake tells it.
	actNew  []*tracked
	actWake chan struct{}

	nDirs, nLoops                   atomic.Int64
	events, updates, polls, rescans atomic.Int64
	actReads                        atomic.Int64
	watchErrors                     atomic.Int64
	degradedFlag                    atomic.Bool
	cancel                          context.CancelFunc
	wg                              sync.WaitGroup
	ready                           chan struct{}
}

type dirInfo struct {
	level int
	root  *root
}

// repo is a git repository met in the scan, whose working trees are
// followed.
type repo struct {
	common string
	given  string
	// trees are the working trees this repository added as roots.
	trees map[string]*root
	// dirty: list the working trees again (the admin directory changed,
	// or git was midway through adding one).
	dirty bool
}

// tracked is one loop being followed.
type tracked struct {
	loop       Loop
	tr         *statefile.Tracker
	kick, poll chan struct{}
	stop       chan struct{}
	stopped    bool // under Watcher.mu: publish nothing more

	// act is the loop's activity report, state its last AoT state (for
	// the atoms' ids): under Watcher.mu.
	act   *agent.Report
	state *model.State

	// The loop goroutine's own.
	ev    statefile.Event
	fresh bool
	prev  *Row
}

// Stats say what a Watcher costs.
type Stats struct {
	// Dirs is the number of directories watched (in WatchClaude the
	// .claude directories alone; Watch says more);
	// Loops the state files followed.
	Dirs, Loops int
	// Events counts notifications received, Updates rows published, Polls
	// stat polls of state files, Rescans walks of the trees after the first,
	// ActivityReads the reads of a loop's transcripts (Options.Activity).
	Events, Updates, Polls, Rescans, ActivityReads int64
	// WatchErrors counts directories that could not be watched; Degraded
	// is true when there were any (rescans then back the watches up).
	WatchErrors int64
	Degraded    bool
}

// Start scans dirs (as Scan does) and follows what it finds until Stop.
// It returns at once; the first rows arrive through Notify and Changes,
// and Ready is closed when every loop found at the start has been read.
func Start(dirs []string, opts Options) (*Watcher, error) {
	opts = opts.withDefaults()
	abs, err := absDirs(dirs)
	if err != nil {
		return nil, err
	}
	w := &Watcher{
		opts: opts, walker: newWalker(opts),
		dirs: map[string]dirInfo{}, claude: map[string]*root{}, loops: map[string]*tracked{},
		repos: map[string]*repo{}, admin: map[string]string{}, watched: map[string]bool{}, cost: map[string]int{},
		rows: map[string]Row{}, pending: map[string]Row{},
		notify: make(chan struct{}, 1), ready: make(chan struct{}), actWake: make(chan struct{}, 1),
	}
	for _, d := range abs {
		w.given = append(w.given, &root{path: d, given: d})
	}
	if fsw, err := fsnotify.NewWatcher(); err == nil {
		w.fsw = fsw
	} else {
		w.setDegraded() // no inotify: poll and rescan
	}
	w.walker.dir = w.onDir
	w.walker.claude = func(p string) { w.addClaude(w.cur, p) }
	w.walker.git = func(p string) { w.addRepo(w.cur, p) }
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.wg.Add(1)
	go w.run(ctx)
	if opts.Activity != nil {
		w.wg.Add(1)
		go w.runActivity(ctx)
	}
	return w, nil
}

// Ready is closed once the loops found at the start have all been read.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Notify receives a value when Changes has something (one value for any
// number of changes: drain Changes after each).
func (w *Watcher) Notify() <-chan struct{} { return w.notify }

// Changes returns the rows that changed since the last call, sorted by
// path: the newest row of each loop, or a row with Gone set for a loop
// that went away.
func (w *Watcher) Changes() []Row {
	w.mu.Lock()
	out := make([]Row, 0, len(w.pending))
	for _, r := range w.pending {
		out = append(out, r)
	}
	clear(w.pending)
	w.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Rows returns every loop's current row in the table's order (Less).
func (w *Watcher) Rows() []Row {
	w.mu.Lock()
	out := make([]Row, 0, len(w.rows))
	for _, r := range w.rows {
		out = append(out, r)
	}
	w.mu.Unlock()
	Sort(out)
	return out
}

// Stats reports what the watcher costs so far.
func (w *Watcher) Stats() Stats {
	return Stats{
		Dirs: int(w.nDirs.Load()), Loops: int(w.nLoops.Load()),
		Events: w.events.Load(), Updates: w.updates.Load(), Polls: w.polls.Load(), Rescans: w.rescans.Load(), ActivityReads: w.actReads.Load(),
		WatchErrors: w.watchErrors.Load(), Degraded: w.degradedFlag.Load(),
	}
}

// Watch reports how the watcher follows the fleet now: what it watches,
// at what cost, and which loops the stat poll alone follows.
func (w *Watcher) Watch() WatchReport {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.report
}

// Stop ends the watch and waits for its goroutines.
func (w *Watcher) Stop() {
	w.cancel()
	w.wg.Wait()
}

func (w *Watcher) run(ctx context.Context) {
	defer w.wg.Done()
	var initial sync.WaitGroup
	w.initial = &initial
	for _, r := range w.given {
		w.walkFrom(r, r.path, 0)
	}
	w.balance(false)
	w.updateReport()
	w.initial = nil
	go func() {
		initial.Wait()
		close(w.ready)
	}()

	poll := time.NewTicker(w.opts.Watch.Poll)
	defer poll.Stop()
	rescan := time.NewTicker(w.opts.Rescan)
	defer rescan.Stop()
	relist := time.NewTimer(time.Hour)
	relist.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	for {
		if w.rebalance {
			w.balance(false)
		}
		if w.reported {
			w.updateReport()
		}
		select {
		case <-ctx.Done():
			w.shutdown()
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.events.Add(1)
			if w.onEvent(ev) {
				relist.Reset(100 * time.Millisecond)
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// The kernel's queue overflowed (or inotify failed): what
			// changed meanwhile is unknown, so look at everything.
			w.rescan(true)
		case <-rescan.C:
			// WatchClaude finds the loops that appear and go this way;
			// WatchTrees when some directory is not watched. Each loop
			// is notified (WatchClaude) or polled: no need to read them.
			if w.opts.Mode == WatchClaude || w.degraded {
				w.rescan(false)
			}
		case <-relist.C:
			w.relistDirty()
		case <-poll.C:
			w.pollAll()
		}
	}
}

func (w *Watcher) shutdown() {
	w.mu.Lock()
	for _, t := range w.loops {
		t.stopped = true
	}
	w.mu.Unlock()
	for _, t := range w.loops {
		close(t.stop)
	}
	if w.fsw != nil {
		_ = w.fsw.Close()
	}
}

// pollAll stats every state file (through its goroutine) and lists again
// the repositories git was midway through changing.
func (w *Watcher) pollAll() {
	for _, t := range w.loops {
		select {
		case t.poll <- struct{}{}:
		default:
		}
	}
	w.polls.Add(int64(len(w.loops)))
	w.relistDirty()
}

// rescan walks every tree again, forgets directories that are gone, lists
// every repository's working trees again and, in WatchClaude, counts the
// watched .claude directories' entries again and chooses again what fits
// in the budget. With readAll every loop reads its file.
func (w *Watcher) rescan(readAll bool) {
	w.rescans.Add(1)
	for p := range w.claude {
		if _, err := os.Stat(p); err != nil {
			w.forget(p)
		}
	}
	for p := range w.dirs {
		if _, err := os.Stat(p); err != nil {
			w.forget(p)
		}
	}
	for _, r := range w.roots() {
		w.walkFrom(r, r.path, 0)
	}
	for _, rp := range w.repos {
		rp.dirty = true
	}
	w.relistDirty()
	w.balance(true)
	if readAll {
		for _, t := range w.loops {
			kick(t.kick)
		}
	}
}

// balance chooses, in WatchClaude, the .claude directories to watch
// (chooseClaude: those holding loops, by path, as many as fit in the
// budget); the others' loops are left to the stat poll. With recount the
// watched directories' entries are counted again first.
func (w *Watcher) balance(recount bool) {
	w.rebalance = false
	if w.opts.Mode != WatchClaude || w.fsw == nil {
		return
	}
	order := loopDirs(maps.Keys(w.loops))
	chosen := chooseClaude(order, w.cost, w.opts.Budget, recount, claudeCost)
	for d := range w.cost {
		if _, ok := chosen[d]; !ok {
			w.unwatch(d) // its loops went, or it no longer fits
		}
	}
	for _, d := range order {
		c, ok := chosen[d]
		if !ok {
			continue
		}
		if old, held := w.cost[d]; held {
			if c != old {
				w.used += c - old
				w.cost[d] = c
				w.reported = true
			}
			continue
		}
		if w.watch(d) {
			w.cost[d] = c
			w.used += c
		}
	}
}

// updateReport makes the WatchReport Watch returns.
func (w *Watcher) updateReport() {
	w.reported = false
	loops := make([]string, 0, len(w.loops))
	for p := range w.loops {
		loops = append(loops, p)
	}
	r := newWatchReport(w.opts, w.fsw != nil, w.degraded, w.watched, func(d string) bool { return w.claude[d] != nil }, w.used, loops)
	w.mu.Lock()
	w.report = r
	w.mu.Unlock()
}

// roots are the given directories and the working trees added.
func (w *Watcher) roots() []*root {
	out := append([]*root(nil), w.given...)
	for _, rp := range w.repos {
		for _, r := range rp.trees {
			out = append(out, r)
		}
	}
	return out
}

func (w *Watcher) walkFrom(r *root, dir string, level int) {
	prev := w.cur
	w.cur = r
	w.walker.walk(dir, level)
	w.cur = prev
}

func (w *Watcher) onDir(path string, level int) {
	if d, ok := w.dirs[path]; ok && d.level <= level {
		return
	}
	w.dirs[path] = dirInfo{level: level, root: w.cur}
	if w.opts.Mode == WatchTrees {
		w.watch(path)
	}
}

// watch adds a watch on a directory; it reports whether the directory is
// watched.
func (w *Watcher) watch(path string) bool {
	if w.watched[path] {
		return true
	}
	if w.fsw == nil {
		return false
	}
	if err := addWatch(w.fsw, path); err != nil {
		if _, serr := os.Stat(path); serr == nil {
			w.watchErrors.Add(1)
			w.setDegraded()
		}
		return false
	}
	w.watched[path] = true
	w.nDirs.Store(int64(len(w.watched)))
	w.reported = true
	return true
}

func (w *Watcher) unwatch(path string) {
	if c, ok := w.cost[path]; ok {
		w.used -= c
		delete(w.cost, path)
	}
	if !w.watched[path] {
		return
	}
	delete(w.watched, path)
	w.nDirs.Store(int64(len(w.watched)))
	w.reported = true
	_ = w.fsw.Remove(path) // already gone with a deleted directory
}

// addWatch adds an fsnotify watch (fsnotify's Add): tests make it fail
// for a directory, as the inotify watch limit would.
var addWatch = (*fsnotify.Watcher).Add

// setDegraded notes that some directory could not be watched: every tree
// is walked again every Options.Rescan from now on, and the report says so.
func (w *Watcher) setDegraded() {
	w.degraded, w.reported = true, true
	w.degradedFlag.Store(true)
}

// onEvent handles one notification; it reports whether a repository's
// working trees should be listed again shortly.
func (w *Watcher) onEvent(ev fsnotify.Event) (relist bool) {
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, known := w.dirs[name]; known || w.claude[name] != nil || w.admin[name] != "" {
			w.forget(name)
			return false
		}
	}
	if r := w.claude[dir]; r != nil {
		if base != aotName && base != phaseName {
			return false
		}
		if t := w.loops[name]; t != nil {
			kick(t.kick)
		} else if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			w.addLoop(r, name)
		}
		return false
	}
	if common := w.admin[dir]; common != "" {
		rp := w.repos[common]
		if rp == nil {
			return false
		}
		if dir == common && base != "worktrees" {
			return false // the index, refs, logs: git at work
		}
		if dir == common && ev.Has(fsnotify.Create) {
			w.admin[name] = common
			w.watchAdmin(name)
		}
		rp.dirty = true
		return true
	}
	if d, ok := w.dirs[dir]; ok && ev.Has(fsnotify.Create) {
		w.created(d, name, base)
	}
	return false
}

// created handles a new entry of a watched directory.
func (w *Watcher) created(d dirInfo, name, base string) {
	fi, err := os.Lstat(name)
	if err != nil {
		return
	}
	switch {
	case base == ".git":
		w.addRepo(d.root, name)
	case !fi.IsDir():
	case base == ".claude":
		w.addClaude(d.root, name)
	case w.walker.skip[base]:
	case d.level < w.opts.Depth:
		w.walkFrom(d.root, name, d.level+1)
	}
}

// forget drops a directory that went away and everything under it: the
// watches, the loops (their rows go), the working trees of a repository
// whose git directory it held.
func (w *Watcher) forget(path string) {
	for p := range w.dirs {
		if under(p, path) {
			delete(w.dirs, p)
			w.unwatch(p)
		}
	}
	for p := range w.claude {
		if under(p, path) {
			delete(w.claude, p)
			w.unwatch(p)
		}
	}
	for p, t := range w.loops {
		if under(p, path) {
			w.drop(t)
		}
	}
	for p := range w.admin {
		if under(p, path) {
			delete(w.admin, p)
			w.unwatch(p)
		}
	}
	var orphans []string
	for c, rp := range w.repos {
		if under(c, path) {
			delete(w.repos, c)
			for t := range rp.trees {
				orphans = append(orphans, t)
			}
		}
		for t := range rp.trees {
			if under(t, path) {
				delete(rp.trees, t)
			}
		}
	}
	for _, t := range orphans {
		w.forget(t)
	}
}

// addClaude follows the loops of a .claude directory. WatchTrees watches
// it at once; WatchClaude chooses in balance.
func (w *Watcher) addClaude(r *root, path string) {
	if w.claude[path] == nil {
		w.claude[path] = r
		if w.opts.Mode == WatchTrees {
			w.watch(path)
		}
	}
	for _, l := range loopsIn(path, r) {
		w.addLoop(r, l.Target.Path)
	}
}

// addRepo follows the working trees of the repository a .git entry
// belongs to.
func (w *Watcher) addRepo(r *root, gitEntry string) {
	if w.opts.NoWorktrees {
		return
	}
	common, err := commonDir(gitEntry)
	if err != nil || w.repos[common] != nil {
		return
	}
	rp := &repo{common: common, given: r.given, trees: map[string]*root{}}
	w.repos[common] = rp
	// Watch the git directory for worktrees/ to appear, and worktrees/
	// for working trees to come and go (WatchClaude: the rescans list
	// them again).
	w.admin[common] = common
	w.watchAdmin(common)
	if admin := filepath.Join(common, "worktrees"); isDir(admin) {
		w.admin[admin] = common
		w.watchAdmin(admin)
	}
	w.relist(rp)
}

// watchAdmin watches a git directory in WatchTrees.
func (w *Watcher) watchAdmin(path string) {
	if w.opts.Mode == WatchTrees {
		w.watch(path)
	}
}

func (w *Watcher) relistDirty() {
	for _, rp := range w.repos {
		if rp.dirty {
			w.relist(rp)
		}
	}
}

// relist follows the working trees a repository has now: new ones are
// walked as roots, removed ones forgotten.
func (w *Watcher) relist(rp *repo) {
	trees, incomplete := worktrees(rp.common)
	rp.dirty = incomplete
	now := map[string]bool{}
	for _, t := range trees {
		now[t] = true
		if rp.trees[t] != nil {
			continue
		}
		r := &root{path: t, given: rp.given}
		rp.trees[t] = r
		if _, walked := w.dirs[t]; !walked {
			w.walkFrom(r, t, 0)
		}
	}
	for t := range rp.trees {
		if !now[t] {
			delete(rp.trees, t)
			if !w.underGiven(t) {
				w.forget(t)
			}
		}
	}
}

// underGiven reports whether path is inside a given directory's walk (it
// stays watched as part of it when git forgets it as a working tree).
func (w *Watcher) underGiven(path string) bool {
	for _, r := range w.given {
		if under(path, r.path) {
			return true
		}
	}
	return false
}

// addLoop starts following a state file.
func (w *Watcher) addLoop(r *root, path string) {
	if w.loops[path] != nil {
		return
	}
	t := &tracked{loop: newLoop(path, r), kick: make(chan struct{}, 1), poll: make(chan struct{}, 1), stop: make(chan struct{})}
	t.tr = statefile.NewTracker(t.loop.Target, w.opts.Watch, func(ev statefile.Event) { t.ev, t.fresh = ev, true })
	w.loops[path] = t
	w.nLoops.Store(int64(len(w.loops)))
	w.rebalance, w.reported = true, true
	init := w.initial
	if init != nil {
		init.Add(1)
	}
	w.wg.Add(1)
	go w.follow(t, init)
	w.addActivity(t)
}

// drop stops following a loop whose directory went away; its row goes.
func (w *Watcher) drop(t *tracked) {
	path := t.loop.Target.Path
	w.mu.Lock()
	t.stopped = true
	w.removeRowLocked(t)
	w.mu.Unlock()
	close(t.stop)
	delete(w.loops, path)
	w.nLoops.Store(int64(len(w.loops)))
	w.rebalance, w.reported = true, true
}

// follow is a loop's goroutine: it reads the file when kicked (a
// notification, debounced) or polled (a stat first).
func (w *Watcher) follow(t *tracked, initial *sync.WaitGroup) {
	defer w.wg.Done()
	w.check(t, t.tr.Check)
	if initial != nil {
		initial.Done()
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-t.kick:
			debounce.Reset(w.opts.Watch.Debounce)
		case <-debounce.C:
			w.check(t, t.tr.Check)
		case <-t.poll:
			w.check(t, t.tr.Poll)
		}
	}
}

// check runs read (Check or Poll) and publishes what it emitted. A file
// that is not there is given RemoveGrace to come back before its row goes.
func (w *Watcher) check(t *tracked, read func()) {
	read()
	if !t.fresh && t.prev != nil {
		// A write that left the bytes as they were: no event, but the
		// row's Changed is the file's modification time.
		if mt := t.tr.ModTime(); !mt.IsZero() && !mt.Equal(t.prev.Changed) {
			row := *t.prev
			row.Changed = mt
			t.prev = &row
			w.publish(t, row)
		}
	}
	for t.fresh {
		ev := t.ev
		t.fresh = false
		switch ev.Kind {
		case statefile.EventWaiting, statefile.EventRemoved:
			select {
			case <-t.stop:
				return
			case <-time.After(w.opts.RemoveGrace):
			}
			if _, err := os.Stat(t.loop.Target.Path); err != nil {
				t.prev = nil
				w.mu.Lock()
				w.removeRowLocked(t)
				w.mu.Unlock()
				return
			}
			t.tr.Check()
		default:
			if ev.Doc != nil {
				w.mu.Lock()
				t.state = ev.Doc.State
				w.mu.Unlock()
			}
			row := rowFrom(t.loop, ev, t.prev)
			t.prev = &row
			w.publish(t, row)
		}
	}
}

func (w *Watcher) publish(t *tracked, row Row) {
	w.mu.Lock()
	if t.stopped {
		w.mu.Unlock()
		return
	}
	if t.act != nil {
		row = WithActivity(row, t.act)
	}
	w.rows[row.Path] = row
	w.pending[row.Path] = row
	w.mu.Unlock()
	w.updates.Add(1)
	kick(w.notify)
}

// removeRowLocked takes t's row out of the table (w.mu held).
func (w *Watcher) removeRowLocked(t *tracked) {
	path := t.loop.Target.Path
	if _, ok := w.rows[path]; !ok {
		return
	}
	delete(w.rows, path)
	l := t.loop
	w.pending[path] = Row{Path: path, Project: l.Project, Name: l.Name, Kind: l.Target.Kind.String(), Gone: true}
	kick(w.notify)
}

// kick sends on a channel of capacity 1 without blocking: a kick already
// pending covers this one.
func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
