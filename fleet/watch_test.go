package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/fsnotify/fsnotify"
)

// simFleet is a tree of simulated loops: AoT loops played by sim.Run and
// phase loops by sim.RunPhase, at depths 1 to 3.
type simFleet struct {
	root   string
	loops  []Loop
	cancel context.CancelFunc
	wg     sync.WaitGroup
	errs   chan error
}

// newSimFleet lays out n projects (every fifth a phase loop) under root.
func newSimFleet(t testing.TB, n int) *simFleet {
	t.Helper()
	f := &simFleet{root: t.TempDir(), errs: make(chan error, n)}
	for i := 0; i < n; i++ {
		var project string
		switch i % 3 {
		case 0:
			project = filepath.Join(f.root, fmt.Sprintf("p%02d", i))
		case 1:
			project = filepath.Join(f.root, "team", fmt.Sprintf("p%02d", i))
		default:
			project = filepath.Join(f.root, "org", "repo", fmt.Sprintf("p%02d", i))
		}
		var path string
		var err error
		if i%5 == 4 {
			path, err = sim.SetupPhase(project, fmt.Sprintf("feature %d", i), uint64(i))
		} else {
			path, err = sim.Setup(project, 6+i%7, uint64(i))
		}
		if err != nil {
			t.Fatal(err)
		}
		f.loops = append(f.loops, newLoop(path, &root{path: f.root, given: f.root}))
	}
	return f
}

// run starts every simulator at speed.
func (f *simFleet) run(speed float64) {
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	for i, l := range f.loops {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			var err error
			if l.Target.Kind.String() == "phase-loop" {
				_, err = sim.RunPhase(ctx, sim.PhaseConfig{Path: l.Target.Path, Seed: uint64(i), Speed: speed})
			} else {
				_, err = sim.Run(ctx, sim.Config{Path: l.Target.Path, Seed: uint64(i), Speed: speed})
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				f.errs <- fmt.Errorf("%s: %w", l.Target.Path, err)
			}
		}()
	}
}

// stop ends the simulators and waits for their last writes.
func (f *simFleet) stop(t testing.TB) {
	t.Helper()
	f.cancel()
	f.wg.Wait()
	select {
	case err := <-f.errs:
		t.Fatal(err)
	default:
	}
}

// sameAsFiles reports whether the watcher's rows are, loop for loop, what
// reading each file now gives.
func sameAsFiles(w *Watcher, loops []Loop, opts Options) (bool, string) {
	rows := map[string]Row{}
	for _, r := range w.Rows() {
		rows[r.Path] = r
	}
	if len(rows) != len(loops) {
		return false, fmt.Sprintf("%d rows for %d loops", len(rows), len(loops))
	}
	for _, l := range loops {
		r, ok := rows[l.Target.Path]
		if !ok {
			return false, "no row for " + l.Target.Path
		}
		if want := Read(l, opts.withDefaults().Watch); !reflect.DeepEqual(r, want) {
			return false, fmt.Sprintf("%s:\n got  %+v\n want %+v", l.Target.Path, r, want)
		}
	}
	return true, ""
}

// eachMode runs a test of the watcher in both of its modes: WatchTrees
// (Linux's and Windows') and WatchClaude (macOS's and the BSDs'), the
// latter walking the trees again every 100 ms so that what appears is
// found within the tests' waits.
func eachMode(t *testing.T, test func(t *testing.T, opts Options)) {
	for _, m := range []WatchMode{WatchTrees, WatchClaude} {
		t.Run(m.String(), func(t *testing.T) {
			opts := Options{Mode: m}
			if m == WatchClaude {
				opts.Rescan = 100 * time.Millisecond
			}
			test(t, opts)
		})
	}
}

// Fifty simulated loops, AoT and phase, at three depths: while they run
// the table keeps up with each file, and once they stop every row is what
// its file says. The waits are liveness bounds (ten seconds: -race, fifty
// simulators and a machine busy with other tests left a row more than three
// seconds behind under a load average of 10), not timings: a row stuck
// behind its file stays stuck once the writes stop, which the final
// comparison catches.
func TestWatcherFollowsFiftySimulatedLoops(t *testing.T) {
	eachMode(t, testWatcherFollowsFiftySimulatedLoops)
}

// catchUp bounds how long a row may stay behind its file while fifty
// simulators write (a liveness bound).
const catchUp = 10 * time.Second

func testWatcherFollowsFiftySimulatedLoops(t *testing.T, opts Options) {
	f := newSimFleet(t, 50)
	opts.Depth = 4
	if opts.Mode == WatchClaude {
		// Nothing appears here: walking the tree ten times a second
		// would only take CPU from the fifty simulators on a busy
		// machine (the default is every 10 s).
		opts.Rescan = time.Second
	}
	w := startWatcher(t, []string{f.root}, opts)
	if ok, why := sameAsFiles(w, f.loops, opts); !ok {
		t.Fatalf("the first reading differs from the files: %s", why)
	}
	f.run(12)
	// While the simulators write, each row catches up with its file: at
	// some moment within the bound it is what the file says.
	time.Sleep(700 * time.Millisecond)
	for _, l := range f.loops {
		deadline := time.Now().Add(catchUp)
		// Caught up: the row is what the file says now, or it has gone
		// past what the file said when the wait began (the simulator
		// writes on meanwhile; a row one write behind a busy file all
		// along has still kept up).
		then := Read(l, opts.withDefaults().Watch)
		for {
			r, want := rowOf(w, l.Target.Path), Read(l, opts.withDefaults().Watch)
			if r.Iteration == want.Iteration && r.Status == want.Status && r.Summary == want.Summary && r.Phase == want.Phase && r.StallCount == want.StallCount {
				break
			}
			if r.File == "ok" && then.File == "ok" && r.Iteration > then.Iteration {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not catch up within %v: row %+v, file %+v", l.Target.Path, catchUp, r, want)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	f.stop(t)
	start := time.Now()
	for {
		ok, why := sameAsFiles(w, f.loops, opts)
		if ok {
			break
		}
		if time.Since(start) > catchUp {
			t.Fatalf("%v after the last writes the table still differs: %s", catchUp, why)
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := w.Stats()
	if st.Loops != 50 || st.Updates <= 100 || st.Degraded {
		t.Fatalf("stats %+v: want 50 loops, more updates than the first readings, every directory watched", st)
	}
	rep := w.Watch()
	if rep.Loops != 50 || len(rep.Polled) != 0 || rep.ClaudeDirs != 50 {
		t.Fatalf("watch %+v: want 50 loops, none polled, 50 .claude directories watched", rep)
	}
	if opts.Mode == WatchTrees {
		// One watch per directory: the tree's directories (root, team,
		// org, org/repo, 50 projects) and each project's .claude.
		if st.Dirs != 4+50+50 || rep.Dirs != st.Dirs || rep.Descriptors != 0 || rep.RescanMS != 0 {
			t.Fatalf("%d directories watched (report %+v), want %d and no descriptors counted, no rescans", st.Dirs, rep, 4+50+50)
		}
		return
	}
	// The .claude directories alone, each counted as 1 + its entries
	// (once a rescan has counted them again after the last writes).
	want := 0
	for _, l := range f.loops {
		want += claudeCost(filepath.Dir(l.Target.Path))
	}
	if st.Dirs != 50 || rep.Dirs != 50 || rep.RescanMS != 1000 {
		t.Fatalf("%d directories watched (report %+v), want the 50 .claude ones and rescans every second", st.Dirs, rep)
	}
	deadline := time.Now().Add(3 * time.Second)
	for w.Watch().Descriptors != want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := w.Watch().Descriptors; got != want {
		t.Fatalf("%d descriptors reported, the .claude directories hold %d", got, want)
	}
}

func rowOf(w *Watcher, path string) Row {
	for _, r := range w.Rows() {
		if r.Path == path {
			return r
		}
	}
	return Row{}
}

// Projects come and go while the watcher runs: a removed project's row
// goes, a new one (in a directory that did not exist, two levels deep)
// appears, a state file removed goes and comes back with the file.
func TestWatcherPicksUpProjectsComingAndGoing(t *testing.T) {
	eachMode(t, testWatcherPicksUpProjectsComingAndGoing)
}

func testWatcherPicksUpProjectsComingAndGoing(t *testing.T, opts Options) {
	root := t.TempDir()
	for i := 0; i < 5; i++ {
		writeLoop(t, filepath.Join(root, fmt.Sprintf("p%d", i)), loopSpec{iteration: i}, time.Time{})
	}
	opts.Depth = 3
	w := startWatcher(t, []string{root}, opts)
	waitRows(t, w, 5*time.Second, "first reading", func(rows []Row) bool { return len(rows) == 5 })

	if err := os.RemoveAll(filepath.Join(root, "p3")); err != nil {
		t.Fatal(err)
	}
	d := waitRows(t, w, time.Second, "a removed project disappears", func(rows []Row) bool { return len(rows) == 4 && !hasName(rows, "p3") })
	t.Logf("removed project gone after %v", d)

	// A new project two levels down, made the way people do: directories
	// first, the loop's file later.
	newProj := filepath.Join(root, "new-team", "q1")
	if err := os.MkdirAll(filepath.Join(newProj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	writeLoop(t, newProj, loopSpec{goal: "fresh", iteration: 1}, time.Time{})
	d = waitRows(t, w, time.Second, "a new project appears", func(rows []Row) bool { return hasName(rows, "new-team/q1") })
	t.Logf("new project shown after %v", d)

	// All at once, as a checkout or a copy makes it.
	tmp := filepath.Join(t.TempDir(), "copied")
	writeLoop(t, tmp, loopSpec{goal: "copied"}, time.Time{})
	if err := os.Rename(tmp, filepath.Join(root, "new-team", "copied")); err != nil {
		t.Fatal(err)
	}
	waitRows(t, w, time.Second, "a project moved in appears", func(rows []Row) bool { return hasName(rows, "new-team/copied") })

	// The state file alone goes (the project stays), then comes back.
	p0 := filepath.Join(root, "p0", ".claude", "aot-loop-state.md")
	if err := os.Remove(p0); err != nil {
		t.Fatal(err)
	}
	waitRows(t, w, time.Second, "a removed state file's row goes", func(rows []Row) bool { return !hasName(rows, "p0") })
	writeLoop(t, filepath.Join(root, "p0"), loopSpec{goal: "back", iteration: 7}, time.Time{})
	waitRows(t, w, time.Second, "a state file that returns is shown again", func(rows []Row) bool {
		r := rowOf(w, p0)
		return r.Goal == "back" && r.Iteration == 7
	})
	// Beyond the depth nothing is watched.
	writeLoop(t, filepath.Join(root, "a", "b", "c", "d"), loopSpec{}, time.Time{})
	time.Sleep(300 * time.Millisecond)
	if hasName(w.Rows(), "a/b/c/d") {
		t.Fatal("a project deeper than the depth was picked up")
	}
	var gone int
	for _, c := range w.Changes() {
		if c.Gone {
			gone++
		}
	}
	if gone == 0 {
		t.Fatal("Changes never reported a row as gone")
	}
}

func TestWatcherOrdersByAttentionLive(t *testing.T) {
	eachMode(t, testWatcherOrdersByAttentionLive)
}

func testWatcherOrdersByAttentionLive(t *testing.T, opts Options) {
	root := t.TempDir()
	now := time.Now()
	writeLoop(t, filepath.Join(root, "calm-old"), loopSpec{iteration: 1, pending: 2}, now.Add(-2*time.Hour))
	writeLoop(t, filepath.Join(root, "calm-new"), loopSpec{iteration: 1, pending: 2}, now.Add(-time.Minute))
	writeLoop(t, filepath.Join(root, "waiting"), loopSpec{iteration: 2, redirect: true, pending: 2}, now.Add(-3*time.Hour))
	writeLoop(t, filepath.Join(root, "done"), loopSpec{status: "stopped", stopReason: "max iterations", pending: 1}, now.Add(-4*time.Hour))
	opts.Depth = 1
	w := startWatcher(t, []string{root}, opts)
	want := []string{"done", "waiting", "calm-new", "calm-old"}
	waitRows(t, w, 5*time.Second, "order", func(rows []Row) bool { return reflect.DeepEqual(names(rows), want) })

	// calm-old stalls to MAX-1: it goes to the top.
	writeLoop(t, filepath.Join(root, "calm-old"), loopSpec{iteration: 3, stall: 2, maxStall: 3, pending: 2}, time.Time{})
	want = []string{"calm-old", "done", "waiting", "calm-new"}
	waitRows(t, w, time.Second, "a stalling loop goes first", func(rows []Row) bool { return reflect.DeepEqual(names(rows), want) })
	// A broken file ranks after the redirect; calm-new is then the only calm one.
	writeFile(t, filepath.Join(root, "calm-new", ".claude", "aot-loop-state.md"), "---\ncontrol: {\n---\n", time.Time{})
	want = []string{"calm-old", "done", "waiting", "calm-new"}
	waitRows(t, w, time.Second, "an invalid file needs attention", func(rows []Row) bool {
		return reflect.DeepEqual(names(rows), want) && rowOf(w, filepath.Join(root, "calm-new", ".claude", "aot-loop-state.md")).Attention == AttentionInvalid
	})
}

func TestWatcherFollowsNewGitWorktrees(t *testing.T) {
	eachMode(t, testWatcherFollowsNewGitWorktrees)
}

func testWatcherFollowsNewGitWorktrees(t *testing.T, opts Options) {
	needGit(t)
	base := t.TempDir()
	repo := filepath.Join(base, "code", "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	writeLoop(t, repo, loopSpec{goal: "main"}, time.Time{})
	opts.Depth = 2
	w := startWatcher(t, []string{repo}, opts)
	waitRows(t, w, 5*time.Second, "the main working tree", func(rows []Row) bool { return len(rows) == 1 })

	// The repository's first linked working tree, outside the scanned
	// directory; its loop starts a moment later.
	wt := filepath.Join(base, "elsewhere", "feature")
	git(t, repo, "worktree", "add", "-q", wt)
	time.Sleep(150 * time.Millisecond)
	writeLoop(t, wt, loopSpec{goal: "feature loop"}, time.Time{})
	waitRows(t, w, 2*time.Second, "a new worktree's loop appears", func(rows []Row) bool { return hasName(rows, "../../elsewhere/feature") })

	git(t, repo, "worktree", "remove", "--force", wt)
	waitRows(t, w, 2*time.Second, "a removed worktree's loop goes", func(rows []Row) bool { return len(rows) == 1 })
}

// A write that leaves the bytes as they were (a loop saving its state
// unchanged) emits nothing, but the row's Changed is the file's
// modification time and follows it, as Read of the file says.
func TestWatcherChangedFollowsAnUnchangedWrite(t *testing.T) {
	eachMode(t, testWatcherChangedFollowsAnUnchangedWrite)
}

func testWatcherChangedFollowsAnUnchangedWrite(t *testing.T, opts Options) {
	root := t.TempDir()
	spec := loopSpec{iteration: 2, pending: 1}
	path := writeLoop(t, filepath.Join(root, "p"), spec, time.Now().Add(-time.Hour))
	opts.Depth = 1
	w := startWatcher(t, []string{root}, opts)
	waitRows(t, w, 5*time.Second, "first reading", func(rows []Row) bool { return len(rows) == 1 })
	updates := w.Stats().Updates
	writeLoop(t, filepath.Join(root, "p"), spec, time.Time{})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	waitRows(t, w, time.Second, "Changed follows the modification time", func([]Row) bool { return rowOf(w, path).Changed.Equal(fi.ModTime()) })
	if r, want := rowOf(w, path), Read(Loop{Target: statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true}, Project: filepath.Join(root, "p"), Name: "p"}, Options{}.withDefaults().Watch); !reflect.DeepEqual(r, want) {
		t.Fatalf("row %+v\n want %+v", r, want)
	}
	if w.Stats().Updates != updates+1 {
		t.Fatalf("%d updates for one unchanged write, want 1", w.Stats().Updates-updates)
	}
}

// A directory that cannot be watched after the start (the inotify watch
// limit, here a failing add) makes the trees mode walk the trees again,
// and the live report says so at once: rescan_ms is no longer 0.
func TestWatcherReportsALaterWatchFailure(t *testing.T) {
	root := t.TempDir()
	writeLoop(t, filepath.Join(root, "p0"), loopSpec{}, time.Time{})
	late := filepath.Join(root, "late")
	add := addWatch
	addWatch = func(fsw *fsnotify.Watcher, path string) error {
		if path == late {
			return errors.New("no space left on device")
		}
		return add(fsw, path)
	}
	t.Cleanup(func() { addWatch = add }) // after the watcher's Stop
	w := startWatcher(t, []string{root}, Options{Depth: 1, Mode: WatchTrees, Rescan: 100 * time.Millisecond})
	if rep := w.Watch(); rep.RescanMS != 0 || w.Stats().Degraded {
		t.Fatalf("every directory is watched, yet the report says %+v (stats %+v)", rep, w.Stats())
	}
	if err := os.Mkdir(late, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := waitWatch(t, w, "the report says the trees are walked again", func(r WatchReport) bool { return r.RescanMS == 100 })
	if st := w.Stats(); !st.Degraded || st.WatchErrors != 1 {
		t.Fatalf("stats %+v: want one watch error, degraded", st)
	}
	if got, want := rep.String(), "trees walked again every 100ms"; !strings.Contains(got, want) {
		t.Fatalf("the report's line %q does not say %q", got, want)
	}
}
