package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// budgetTree lays out projects p0…p4 whose .claude directories cost
// (1 + entries) 2, 6, 2, 2 and 2 descriptors.
func budgetTree(t *testing.T) (root string, paths []string) {
	t.Helper()
	root = t.TempDir()
	for i := range 5 {
		paths = append(paths, writeLoop(t, filepath.Join(root, fmt.Sprintf("p%d", i)), loopSpec{iteration: i}, time.Time{}))
	}
	for _, extra := range []string{"settings.json", "settings.local.json", "notes.md", "commands"} {
		writeFile(t, filepath.Join(root, "p1", ".claude", extra), "{}", time.Time{})
	}
	return root, paths
}

func waitWatch(t *testing.T, w *Watcher, what string, ok func(WatchReport) bool) WatchReport {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := w.Watch()
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 3s; the watcher reports %#v", what, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// With a budget of 7 descriptors the .claude directories of p0, p2 and
// p3 are watched (2+2+2; p1's 6 does not fit after p0's 2, p4's 2 not
// after the others): p1 and p4 are polled, say so, and still update.
// When p0 goes, p4 fits and is watched; the rescans count the watched
// directories again, and when p2's grows past what is left, the last one
// by path goes back to the poll.
func TestWatcherClaudeBudget(t *testing.T) {
	root, paths := budgetTree(t)
	opts := Options{Depth: 1, Mode: WatchClaude, Budget: 7, Rescan: 100 * time.Millisecond}
	opts.Watch.Poll = 200 * time.Millisecond
	w := startWatcher(t, []string{root}, opts)
	rep := w.Watch()
	want := WatchReport{Mode: "claude", Backend: backend(), Dirs: 3, ClaudeDirs: 3, Descriptors: 6, Budget: 7,
		OpenFilesLimit: openFilesLimit(), Loops: 5, Polled: []string{paths[1], paths[4]}, PollMS: 200, RescanMS: 100}
	if !reflect.DeepEqual(rep, want) {
		t.Fatalf("watch report\n got  %#v\n want %#v", rep, want)
	}
	if !rep.IsPolled(paths[4]) || rep.IsPolled(paths[0]) {
		t.Fatalf("IsPolled: p4 %v, p0 %v", rep.IsPolled(paths[4]), rep.IsPolled(paths[0]))
	}
	if got, wantLine := rep.String(), "watching 3 .claude directories with 6 of 7 descriptors ("+backend()+"); trees walked again every 100ms; 2 loops polled every 200ms"; got != wantLine {
		t.Fatalf("the report's line\n got  %q\n want %q", got, wantLine)
	}
	// Plan, as status --scan reports it, says the same without watching.
	if _, plan, err := Plan([]string{root}, opts); err != nil || !reflect.DeepEqual(plan, want) {
		t.Fatalf("Plan: %v\n got  %#v\n want %#v", err, plan, want)
	}

	// A polled loop updates through the poll alone: no notification.
	events := w.Stats().Events
	writeLoop(t, filepath.Join(root, "p4"), loopSpec{iteration: 40}, time.Time{})
	waitRows(t, w, 2*time.Second, "a polled loop updates", func([]Row) bool { return rowOf(w, paths[4]).Iteration == 40 })
	if n := w.Stats().Events - events; n != 0 {
		t.Fatalf("%d notifications from a .claude directory that is not watched", n)
	}
	// A watched one updates through its notification.
	writeLoop(t, filepath.Join(root, "p2"), loopSpec{iteration: 20}, time.Time{})
	waitRows(t, w, time.Second, "a watched loop updates", func([]Row) bool { return rowOf(w, paths[2]).Iteration == 20 })
	if w.Stats().Events == events {
		t.Fatal("no notification from a watched .claude directory")
	}

	// p0 goes: its 2 descriptors let p4 in (p1's 6 still do not fit).
	if err := os.RemoveAll(filepath.Join(root, "p0")); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "p4 takes p0's place", func(r WatchReport) bool {
		return r.Loops == 4 && r.Descriptors == 6 && r.ClaudeDirs == 3 && slices.Equal(r.Polled, []string{paths[1]})
	})
	events = w.Stats().Events
	writeLoop(t, filepath.Join(root, "p4"), loopSpec{iteration: 41}, time.Time{})
	waitRows(t, w, time.Second, "p4 updates", func([]Row) bool { return rowOf(w, paths[4]).Iteration == 41 })
	if w.Stats().Events == events {
		t.Fatal("p4 is reported watched but sends no notification")
	}

	// p3's directory grows to 3: the rescan counts it again, 7 of 7.
	writeFile(t, filepath.Join(root, "p3", ".claude", "a.json"), "{}", time.Time{})
	waitWatch(t, w, "a grown directory is counted again", func(r WatchReport) bool {
		return r.Descriptors == 7 && r.ClaudeDirs == 3 && slices.Equal(r.Polled, []string{paths[1]})
	})
	// p2's grows to 4: 4+3+2 > 7, and p4, last by path, goes back to the
	// poll.
	writeFile(t, filepath.Join(root, "p2", ".claude", "a.json"), "{}", time.Time{})
	writeFile(t, filepath.Join(root, "p2", ".claude", "b.json"), "{}", time.Time{})
	waitWatch(t, w, "over the budget, the last directory goes back to the poll", func(r WatchReport) bool {
		return r.Descriptors == 7 && r.ClaudeDirs == 2 && slices.Equal(r.Polled, []string{paths[1], paths[4]})
	})
}

// Plan reports what a Watcher started on the same tree reports, in both
// modes: a tree with loops at two depths, a .claude directory without a
// loop, a skipped directory, and a git repository with a linked working
// tree outside the scanned directory.
func TestPlanIsWhatTheWatcherDoes(t *testing.T) {
	needGit(t)
	base := t.TempDir()
	code := filepath.Join(base, "code")
	repo := filepath.Join(code, "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(base, "elsewhere", "feature")
	git(t, repo, "worktree", "add", "-q", wt)
	writeLoop(t, repo, loopSpec{goal: "main"}, time.Time{})
	writeLoop(t, wt, loopSpec{goal: "feature"}, time.Time{})
	writeLoop(t, filepath.Join(code, "team", "svc"), loopSpec{}, time.Time{})
	writeFile(t, filepath.Join(code, "team", "svc", ".claude", "autonomous-loop.json"), phaseDoc("work", 1, 3, 50), time.Time{})
	writeFile(t, filepath.Join(code, "settings-only", ".claude", "settings.json"), "{}", time.Time{})
	writeLoop(t, filepath.Join(code, "node_modules", "dep"), loopSpec{}, time.Time{})
	eachMode(t, func(t *testing.T, opts Options) {
		opts.Depth = 3
		opts.Budget = 5 // claude: the repo's 2 and svc's 3 fit, the working tree's 2 does not
		loops, plan, err := Plan([]string{code}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(loops) != 4 || plan.Loops != 4 {
			t.Fatalf("%d loops, plan %#v: want 4 (main, feature, svc's two)", len(loops), plan)
		}
		w := startWatcher(t, []string{code}, opts)
		got := waitWatch(t, w, "the watcher reports its loops", func(r WatchReport) bool { return r.Loops == 4 })
		plan.PollMS = got.PollMS // startWatcher's poll
		if !reflect.DeepEqual(got, plan) {
			t.Fatalf("the watcher reports\n %#v\nPlan says\n %#v", got, plan)
		}
		if opts.Mode == WatchClaude {
			if want := []string{filepath.Join(wt, ".claude", "aot-loop-state.md")}; plan.Descriptors != 5 || !slices.Equal(plan.Polled, want) {
				t.Fatalf("claude mode with a budget of 5: %#v, want 5 descriptors and the working tree polled", plan)
			}
		} else if len(plan.Polled) != 0 || plan.ClaudeDirs != 4 || plan.Descriptors != 0 || plan.Budget != 0 {
			t.Fatalf("trees mode: %#v, want every .claude directory watched (4, the settings-only one too), none polled", plan)
		}
	})
}

// The platform's mode: .claude only where fsnotify works through kqueue.
func TestPlatformMode(t *testing.T) {
	kqueue := map[string]bool{"darwin": true, "ios": true, "freebsd": true, "netbsd": true, "openbsd": true, "dragonfly": true}[runtime.GOOS]
	want := WatchTrees
	if kqueue {
		want = WatchClaude
	}
	o := Options{}.withDefaults()
	if o.Mode != want || (backend() == "kqueue") != kqueue {
		t.Fatalf("on %s: mode %s, backend %s", runtime.GOOS, o.Mode, backend())
	}
	if lim := openFilesLimit(); runtime.GOOS != "windows" && (lim == 0 || o.Budget != defaultBudget(lim)) {
		t.Fatalf("open files limit %d, budget %d", lim, o.Budget)
	}
}
