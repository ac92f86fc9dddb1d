package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/statefile"
)

// loopSpec is what a hand-made AoT state file says.
type loopSpec struct {
	goal             string
	status           string
	iteration, max   int
	stall, maxStall  int
	redirect, stopRq bool
	stopReason       string
	pending          int // atoms pending (one more is resolved)
}

func (s loopSpec) doc() string {
	if s.status == "" {
		s.status = "running"
	}
	if s.max == 0 {
		s.max = 10
	}
	if s.maxStall == 0 {
		s.maxStall = 3
	}
	if s.goal == "" {
		s.goal = "a goal"
	}
	reason := "null"
	if s.stopReason != "" {
		reason = fmt.Sprintf("%q", s.stopReason)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `---
objective:
  goal: %q
  base_case:
    type: command
    value: "true"
  constraints:
    max_iterations: %d
    max_stall_count: %d
control:
  status: %s
  iteration: %d
  stall_count: %d
  prev_pending_count: %d
  stop_requested: %v
  stop_reason: %s
  redirect_requested: %v
atoms:
  - id: A1
    description: "first"
    status: resolved
    depends_on: []
`, s.goal, s.max, s.maxStall, s.status, s.iteration, s.stall, s.pending, s.stopRq, reason, s.redirect)
	for i := 0; i < s.pending; i++ {
		fmt.Fprintf(&b, "  - id: A%d\n    description: \"next %d\"\n    status: pending\n    depends_on: [A1]\n", i+2, i)
	}
	b.WriteString("bindings:\n  A1:\n    summary: \"done\"\n    artifacts: []\ntrail: []\ncorrections: []\n---\nbody\n")
	return b.String()
}

// writeLoop writes a state file for project dir (creating it), with mtime
// at when (zero: now).
func writeLoop(t testing.TB, project string, s loopSpec, when time.Time) string {
	t.Helper()
	return writeFile(t, filepath.Join(project, statefile.AoTStateRel), s.doc(), when)
}

func writeFile(t testing.TB, path, text string, when time.Time) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if !when.IsZero() {
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// phaseDoc is a phase loop file.
func phaseDoc(phase string, phaseIter, global, max int, completed ...string) string {
	q := make([]string, len(completed))
	for i, c := range completed {
		q[i] = fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf(`{
  "version": 2,
  "feature": "feature in %s",
  "phase": %q,
  "phase_iteration": %d,
  "global_iteration": %d,
  "max_iterations": %d,
  "max_phase_iterations": 10,
  "fix_review_cycles": 0,
  "max_fix_cycles": 3,
  "phases_completed": [%s],
  "artifacts": {},
  "receipts": [],
  "checkpoints": [],
  "errors": []
}
`, phase, phase, phaseIter, global, max, strings.Join(q, ", "))
}

func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func needGit(t testing.TB) {
	t.Helper()
	testenv.Need(t, "git")
}

// startWatcher starts a Watcher with short intervals and waits for its
// first reading.
func startWatcher(t testing.TB, dirs []string, opts Options) *Watcher {
	t.Helper()
	if opts.Watch.Poll == 0 {
		opts.Watch.Poll = 200 * time.Millisecond
	}
	w, err := Start(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	select {
	case <-w.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher never became ready")
	}
	return w
}

// waitRows polls the watcher until ok accepts its rows, within limit; it
// returns how long that took.
func waitRows(t testing.TB, w *Watcher, limit time.Duration, what string, ok func([]Row) bool) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		rows := w.Rows()
		if ok(rows) {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			var names []string
			for _, r := range rows {
				names = append(names, fmt.Sprintf("%s(%s it %d %s)", r.Name, r.Status, r.Iteration, r.Attention))
			}
			t.Fatalf("%s: not within %v; rows: %s", what, limit, strings.Join(names, " "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func names(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Name
	}
	return out
}

func hasName(rows []Row, name string) bool {
	for _, r := range rows {
		if r.Name == name {
			return true
		}
	}
	return false
}
