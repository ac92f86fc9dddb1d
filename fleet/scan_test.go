package fleet

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScanFindsLoopsWithinDepthAndSkips(t *testing.T) {
	root := t.TempDir()
	writeLoop(t, root, loopSpec{goal: "the root itself"}, time.Time{})
	writeLoop(t, filepath.Join(root, "a"), loopSpec{}, time.Time{})
	writeFile(t, filepath.Join(root, "a", ".claude", "autonomous-loop.json"), phaseDoc("work", 1, 3, 50), time.Time{})
	writeLoop(t, filepath.Join(root, "org", "b", "c", "d"), loopSpec{}, time.Time{}) // level 4
	writeLoop(t, filepath.Join(root, "org", "b", "c", "d", "e"), loopSpec{}, time.Time{})
	for _, skipped := range []string{"node_modules/x", "vendor/y", ".git/z", "a/node_modules/w"} {
		writeLoop(t, filepath.Join(root, skipped), loopSpec{}, time.Time{})
	}
	// A .claude without a loop, a file where a directory could be, and a
	// symbolic link to a project (not followed).
	if err := os.MkdirAll(filepath.Join(root, "settings-only", ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "plain"), "x", time.Time{})
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		if runtime.GOOS != "windows" {
			t.Fatal(err)
		}
		t.Logf("no symbolic link to check that it is not followed (Windows allows one only in Developer Mode or to administrators): %v", err)
	}

	loops, err := Scan([]string{root}, Options{Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range loops {
		got = append(got, l.Name+" "+l.Target.Kind.String())
	}
	want := []string{filepath.Base(root) + " aot-loop", "a aot-loop", "a phase-loop", "org/b/c/d aot-loop"}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}

	loops, err = Scan([]string{root}, Options{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) != 3 {
		t.Fatalf("depth 1 found %d loops, want 3 (the root's and a's two)", len(loops))
	}
	if _, err := Scan([]string{filepath.Join(root, "missing")}, Options{}); err == nil {
		t.Fatal("a directory that does not exist should be an error")
	}
	if _, err := Scan([]string{filepath.Join(root, "plain")}, Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("a file is not a directory to scan: %v", err)
	}
}

func TestScanFollowsGitWorktrees(t *testing.T) {
	needGit(t)
	base := t.TempDir()
	repo := filepath.Join(base, "code", "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	outside := filepath.Join(base, "elsewhere", "app-feature")
	git(t, repo, "worktree", "add", "-q", outside)
	writeLoop(t, repo, loopSpec{goal: "main"}, time.Time{})
	writeLoop(t, outside, loopSpec{goal: "feature"}, time.Time{})

	loops, err := Scan([]string{filepath.Join(base, "code")}, Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range loops {
		got = append(got, l.Name)
	}
	slices.Sort(got)
	if want := []string{"../elsewhere/app-feature", "app"}; !slices.Equal(got, want) {
		t.Fatalf("found %q, want %q", got, want)
	}
	// From the linked working tree, the main one is found too.
	loops, _ = Scan([]string{outside}, Options{Depth: 0})
	if len(loops) != 2 {
		t.Fatalf("scanning the linked working tree found %d loops, want both", len(loops))
	}
	loops, _ = Scan([]string{filepath.Join(base, "code")}, Options{Depth: 2, NoWorktrees: true})
	if len(loops) != 1 {
		t.Fatalf("NoWorktrees found %d loops, want only the main one", len(loops))
	}
}

func TestRowsAndAttention(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	cases := []struct {
		name string
		spec loopSpec
		att  Attention
	}{
		{"stall-at-limit", loopSpec{iteration: 4, stall: 2, maxStall: 3, pending: 2}, AttentionNearLimit},
		{"last-iteration", loopSpec{iteration: 10, max: 10, pending: 2}, AttentionNearLimit},
		{"stop-requested", loopSpec{iteration: 3, stopRq: true, pending: 2}, AttentionNearLimit},
		{"stopped", loopSpec{status: "stopped", stopReason: "stall limit", iteration: 6, stall: 3, pending: 1}, AttentionStopped},
		{"redirect", loopSpec{iteration: 2, redirect: true, pending: 3}, AttentionRedirect},
		{"running", loopSpec{iteration: 2, stall: 1, pending: 3}, AttentionNone},
		{"completed", loopSpec{status: "completed", iteration: 5, pending: 0}, AttentionNone},
		{"pending", loopSpec{status: "pending", pending: 2}, AttentionNone},
	}
	for _, c := range cases {
		writeLoop(t, filepath.Join(root, c.name), c.spec, old)
	}
	writeFile(t, filepath.Join(root, "broken", ".claude", "aot-loop-state.md"), "---\nobjective: [\n---\n", old)
	writeFile(t, filepath.Join(root, "phase-near", ".claude", "autonomous-loop.json"), phaseDoc("review", 9, 20, 50, "brainstorm", "plan"), old)
	writeFile(t, filepath.Join(root, "phase-out", ".claude", "autonomous-loop.json"), phaseDoc("work", 2, 50, 50), old)
	writeFile(t, filepath.Join(root, "phase-ok", ".claude", "autonomous-loop.json"), phaseDoc("plan", 1, 2, 50, "brainstorm"), old)

	loops, err := Scan([]string{root}, Options{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Row{}
	for _, r := range ReadAll(loops, Options{}.withDefaults().Watch) {
		byName[r.Name] = r
	}
	for _, c := range cases {
		if got := byName[c.name].Attention; got != c.att {
			t.Errorf("%s: attention %q (%s), want %q", c.name, got, byName[c.name].Reason, c.att)
		}
	}
	for name, want := range map[string]Attention{"broken": AttentionInvalid, "phase-near": AttentionNearLimit, "phase-out": AttentionStopped, "phase-ok": AttentionNone} {
		if got := byName[name].Attention; got != want {
			t.Errorf("%s: attention %q (%s), want %q", name, got, byName[name].Reason, want)
		}
	}
	if r := byName["broken"]; r.File != FileInvalid || !strings.Contains(r.Error, "line") {
		t.Errorf("broken: file %q error %q", r.File, r.Error)
	}
	if r := byName["phase-near"]; r.Status != "running" || r.Phase != "review" || r.Iteration != 20 || r.StallCount != 9 || r.MaxStallCount != 10 || r.PhasesDone != 2 {
		t.Errorf("phase-near row: %+v", r)
	}
	if r := byName["stall-at-limit"]; r.Iteration != 4 || r.MaxIterations != 10 || r.StallCount != 2 || r.Summary.Pending != 2 || r.Summary.Resolved != 1 || !strings.Contains(r.Reason, "stall") {
		t.Errorf("stall-at-limit row: %+v", r)
	}
	s := Summarize(ReadAll(loops, Options{}.withDefaults().Watch))
	if s.Loops != 12 || s.NeedsAttention != 8 || s.Running != 7 || s.Completed != 1 || s.Stopped != 2 || s.Invalid != 1 {
		t.Errorf("summary %+v", s)
	}
	if got := s.String(); got != "12 loops · 7 running · 8 need attention · 1 completed" {
		t.Errorf("summary line %q", got)
	}
}

func TestLessOrdersByAttentionThenRecency(t *testing.T) {
	now := time.Now()
	rows := []Row{
		{Path: "old-running", Changed: now.Add(-time.Hour)},
		{Path: "invalid", Attention: AttentionInvalid, Changed: now},
		{Path: "new-running", Changed: now},
		{Path: "redirect", Attention: AttentionRedirect, Changed: now.Add(-2 * time.Hour)},
		{Path: "stopped-new", Attention: AttentionStopped, Changed: now},
		{Path: "stopped-old", Attention: AttentionStopped, Changed: now.Add(-time.Hour)},
		{Path: "near", Attention: AttentionNearLimit, Changed: now.Add(-3 * time.Hour)},
		{Path: "b-same", Changed: now.Add(-time.Minute)},
		{Path: "a-same", Changed: now.Add(-time.Minute)},
	}
	Sort(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.Path)
	}
	want := []string{"near", "stopped-new", "stopped-old", "redirect", "invalid", "new-running", "a-same", "b-same", "old-running"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
}

func TestAlertReason(t *testing.T) {
	run := Row{File: FileOK, Status: "running"}
	near := Row{File: FileOK, Status: "running", Attention: AttentionNearLimit, Reason: "stall 2/3"}
	done := Row{File: FileOK, Status: "completed"}
	for _, c := range []struct {
		prev, cur Row
		want      string
	}{
		{Row{}, near, ""}, // first sight
		{run, near, "stall 2/3"},
		{near, near, ""},
		{run, done, "completed"},
		{run, run, ""},
		{near, Row{Gone: true}, ""},
	} {
		if got := AlertReason(c.prev, c.cur); got != c.want {
			t.Errorf("AlertReason(%+v, %+v) = %q, want %q", c.prev, c.cur, got, c.want)
		}
	}
}

// An invalid file keeps its last good values (a status among them), but
// the summary counts it as invalid, not as running.
func TestSummaryCountsAnInvalidFileOnlyAsInvalid(t *testing.T) {
	rows := []Row{
		{Status: "running", File: FileOK},
		{Status: "running", File: FileInvalid, Error: "line 3: bad", Attention: AttentionInvalid},
	}
	s := Summarize(rows)
	if s.Running != 1 || s.Invalid != 1 || s.NeedsAttention != 1 {
		t.Fatalf("summary %+v", s)
	}
	if got := s.String(); got != "2 loops · 1 running · 1 needs attention" {
		t.Errorf("summary line %q", got)
	}
}
