package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/sim"
)

// quitTmux presses q and waits for the pane to die.
func quitTmux(t *testing.T, s *tmuxSession) {
	t.Helper()
	s.send("q")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_dead}")) == "1" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("q did not quit the TUI")
}

// The TUI records what it sees to the loop's journal in the journal
// directory — nothing in the project: after the TUI watched the loop write,
// opened a form and quit, the project holds the files it held before —
// and aot-tui replay finds the journal there and plays it back from the
// first version.
func TestE2EJournalThenReplay(t *testing.T) {
	bin := binary(t)
	path := copyFixture(t, "seed-complete.md")
	dir := filepath.Dir(filepath.Dir(path))
	before := projectFiles(t, dir)
	s := startTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin, dir)
	s.waitFor("iteration 5/20")
	for i := 6; i <= 8; i++ {
		replaceInFile(t, path, "iteration: "+itoa(i-1), "iteration: "+itoa(i), i%2 == 0)
		s.waitFor("iteration " + itoa(i) + "/20")
	}
	s.send("c")
	// The form's flag read back (so journaled) before it is cleared:
	// under load both writes could otherwise come in one read.
	s.waitFor("Change constraints", "REDIRECT")
	s.send("Escape")
	s.waitGone("Change constraints")
	s.waitGone("REDIRECT")
	quitTmux(t, s)
	if after := projectFiles(t, dir); after != before {
		t.Fatalf("the TUI left files in the project:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	versions, notes, err := history.ReadJournal(history.JournalIn(testJournalDir(t), path))
	// The loop's four versions, and the form's two writes of
	// redirect_requested (set, cleared).
	if err != nil || len(notes) > 0 || len(versions) != 6 {
		t.Fatalf("the journal: %d versions, %v %v", len(versions), err, notes)
	}
	final, _ := os.ReadFile(path)
	if string(versions[5].Data) != string(final) {
		t.Fatal("the journal's last version is not the file")
	}

	r := startTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin, "replay", dir)
	r.waitFor("version 1 of 6", "replay of "+filepath.Base(history.JournalIn(testJournalDir(t), path)), "iteration 5/20")
	r.send(".")
	r.waitFor("version 2 of 6", "iteration 6/20")
	r.send("w")
	r.waitFor("what changed — version 2 of 6", "iteration 5 → 6")
	r.send("Escape")
	r.waitFor("◷ version 2 of 6") // before p: esc p at once would be alt+p
	r.send("p")
	r.waitFor("version 6 of 6", "iteration 8/20", "end of the recording")
	r.send("a")
	r.waitFor("a replay is read-only")
	quitTmux(t, r)
	if after, _ := os.ReadFile(path); string(after) != string(final) {
		t.Fatal("the replay wrote to the state file")
	}
}

// projectFiles lists the files under dir, one a line.
func projectFiles(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(names, "\n")
}

// testJournalDir is where the TUIs the tests start keep their journals
// (TestMain's XDG_STATE_HOME).
func testJournalDir(t *testing.T) string {
	t.Helper()
	dir, err := history.DefaultJournalDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestE2ENoJournal(t *testing.T) {
	bin := binary(t)
	path := copyFixture(t, "seed-complete.md")
	s := startTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin, "--no-journal", filepath.Dir(filepath.Dir(path)))
	s.waitFor("iteration 5/20")
	replaceInFile(t, path, "iteration: 5", "iteration: 6", true)
	s.waitFor("iteration 6/20")
	quitTmux(t, s)
	for _, j := range history.JournalsOf(testJournalDir(t), path) {
		if _, err := os.Stat(j); !os.IsNotExist(err) {
			t.Fatalf("--no-journal wrote a journal: %v", err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// journalOfRun records a demo run the way the TUI does and returns the
// project directory: version i (from 0) to the journal at where(path, i).
func journalOfRun(t *testing.T, where func(path string, i int) string) (dir string, n int) {
	t.Helper()
	dir = t.TempDir()
	path, err := sim.Setup(dir, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	journals := map[string]*history.Journal{}
	record := func(data []byte) {
		j := where(path, n)
		if journals[j] == nil {
			if journals[j], err = history.OpenJournal(j, history.JournalOptions{StateFile: path}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { journals[j].Close() })
		}
		if ok, err := journals[j].Append(history.Version{At: time.Now(), Data: data}); err != nil {
			t.Error(err)
		} else if ok {
			n++
		}
	}
	initial, _ := os.ReadFile(path)
	record(initial)
	_, err = sim.Run(t.Context(), sim.Config{Path: path, Seed: 1, Speed: 1000, Demo: true, OnWrite: func(_ string, data []byte) { record(data) }})
	if err != nil {
		t.Fatal(err)
	}
	return dir, n
}

// beside keeps every version in the journal an older aot-tui kept beside
// the state file.
func beside(path string, _ int) string { return history.JournalBeside(path) }

// report reads the journal an older aot-tui kept beside the state file.
func TestReportCommand(t *testing.T) {
	dir, n := journalOfRun(t, beside)
	code, md, stderr := cli(t, "report", dir)
	if code != 0 {
		t.Fatalf("report: %d %s", code, stderr)
	}
	for _, want := range []string{"# Post-mortem: Add user authentication to the web API", "**Outcome:** COMPLETED",
		"| 2 | ", "backtracked: A4 failed, A5 selected", "## Final graph", "with its journal aot-loop-state.history.jsonl"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q", want)
		}
	}
	journal := filepath.Join(dir, ".claude", "aot-loop-state.history.jsonl")
	code, out, stderr := cli(t, "report", "--journal", journal, "--format", "json")
	var r struct {
		Versions   int
		Iterations []struct{ N int }
		Outcome    struct{ Status string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("report --format json: %d %s %s", code, stderr, out)
	}
	if r.Versions != n || r.Outcome.Status != "completed" || len(r.Iterations) < 5 {
		t.Fatalf("json: %+v (versions written %d)", r, n)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := cli(t, "report", "-f", dir, "--format", "html", "-o", page); code != 0 {
		t.Fatalf("report html: %s", stderr)
	}
	if data, _ := os.ReadFile(page); !strings.HasPrefix(string(data), "<!DOCTYPE html>") || !strings.Contains(string(data), "<svg") {
		t.Fatal("the HTML report is not a page with its chart")
	}
	code, out, _ = cli(t, "report", "--no-journal", dir)
	if code != 0 || !strings.Contains(out, "only the final state was read") || strings.Contains(out, "| 2 | ") {
		t.Fatalf("--no-journal:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--format", "pdf", dir}, `--format "pdf": use md, json or html`},
		{[]string{"report", "--journal", filepath.Join(dir, "none.jsonl")}, "no journal at"},
		{[]string{"report", "--journal", journal, dir}, "give one of PATH"},
		{[]string{"replay", filepath.Join(dir, "none.jsonl")}, "no journal at"},
		{[]string{"replay", "--speed", "0", dir}, "--speed must be positive"},
		// Checked before a journal is looked for.
		{[]string{"replay", "--speed", "-1", filepath.Join(dir, "none.jsonl")}, "--speed must be positive"},
		{[]string{"report", "--no-journal", "--journal", journal}, "does not go with --journal or --git"},
		{[]string{"report", "--no-journal", "--git", dir}, "does not go with --journal or --git"},
		{[]string{"replay", "--git", dir, dir}, "not both"},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// A loop watched by an older aot-tui (its journal beside the state file)
// and then by this one (its journal in the journal directory): report and
// replay read both as one history, and find the new one in the directory
// --journal-dir names.
func TestReportReadsTheOldAndTheNewJournal(t *testing.T) {
	mine := t.TempDir()
	split := 0
	dir, n := journalOfRun(t, func(path string, i int) string {
		if i < 6 {
			return history.JournalBeside(path)
		}
		split = i
		return history.JournalIn(mine, path)
	})
	if split == 0 {
		t.Fatalf("the run wrote %d versions: too few to split", n)
	}
	versions := func(args ...string) int {
		t.Helper()
		code, out, stderr := cli(t, append([]string{"report", "--format", "json"}, args...)...)
		var r struct{ Versions int }
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("report %v: %d %s %s", args, code, stderr, out)
		}
		return r.Versions
	}
	if got := versions("--journal-dir", mine, dir); got != n {
		t.Fatalf("both journals: %d versions, want %d", got, n)
	}
	// Without --journal-dir, the default directory holds none of it:
	// the old journal alone, and the file as its final state.
	if got := versions(dir); got != 7 {
		t.Fatalf("the old journal alone: %d versions, want 6 and the file", got)
	}
	code, md, _ := cli(t, "report", "--journal-dir", mine, dir)
	if code != 0 || !strings.Contains(md, "with its journal "+filepath.Base(history.JournalIn(mine, filepath.Join(dir, ".claude", "aot-loop-state.md")))+" and aot-loop-state.history.jsonl") {
		t.Fatalf("the report does not name both journals:\n%s", md)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--journal-dir", mine, "--no-journal", dir}, "does not go with --journal, --git or --no-journal"},
		{[]string{"replay", "--journal-dir", mine, "--git", dir}, "does not go with --journal-dir"},
		{[]string{"replay", "--journal-dir", mine, filepath.Join(mine, "x.history.jsonl")}, "is a journal; --journal-dir finds"},
		{[]string{"--journal-dir", mine, "--no-journal", dir}, "does not go with --journal-dir"},
		{[]string{"replay", "--journal-dir", mine, filepath.Dir(filepath.Dir(copyFixture(t, "seed-complete.md")))}, "no journal at " + mine},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestReportFromGit(t *testing.T) {
	testenv.Need(t, "git")
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	path := writeFile(t, dir, ".claude/aot-loop-state.md", sim.DemoState)
	git("add", "-A")
	git("commit", "-qm", "aligned")
	writeFile(t, dir, ".claude/aot-loop-state.md", strings.Replace(strings.Replace(sim.DemoState, "status: pending\n  iteration: 0", "status: running\n  iteration: 1", 1), "    status: pending", "    status: resolved", 1))
	git("commit", "-qam", "iteration 1")
	code, out, stderr := cli(t, "report", "--git", path)
	if code != 0 || !strings.Contains(out, "2 versions of the state file, from git history of") || !strings.Contains(out, "| 0 | ") {
		t.Fatalf("report --git: %d %s\n%s", code, stderr, out)
	}
}

// costState is a version of a two-atom loop (A2 depends on A1), as the
// report package's cost test has them.
func costState(iteration int, status, a1, a2 string) string {
	return fmt.Sprintf(`---
objective:
  goal: "Parse the config format"
  base_case:
    checklist:
      - item: "Tests pass"
        check: {type: command, value: "go test ./parser/..."}
  constraints: {max_iterations: 10, max_parallel_agents: 2, max_stall_count: 3}
control:
  status: %s
  iteration: %d
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
  - {id: A1, description: "Write the parser", status: %s, depends_on: []}
  - {id: A2, description: "Test the parser", status: %s, depends_on: [A1]}
decompositions: []
or_groups: {}
bindings: {}
trail: []
corrections: []
---
`, status, iteration, a1, a2)
}

// costProject is a project whose loop's journal (beside its state file)
// holds the run report/testdata/transcripts records — A1 in progress
// 2m0s, A2 3m0s; iteration 1 2m30s, iteration 2 3m20s — and a Claude Code
// directory holding those transcripts as the project's.
func costProject(t *testing.T) (project, claude string) {
	t.Helper()
	project = t.TempDir()
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	day := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	state := filepath.Join(project, ".claude", "aot-loop-state.md")
	j, err := history.OpenJournal(history.JournalBeside(state), history.JournalOptions{StateFile: state})
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, v := range []struct {
		sec            int
		it             int
		status, a1, a2 string
	}{{0, 1, "running", "pending", "pending"}, {10, 1, "running", "in_progress", "pending"}, {130, 1, "running", "resolved", "pending"},
		{150, 2, "running", "resolved", "pending"}, {160, 2, "running", "resolved", "in_progress"}, {340, 2, "running", "resolved", "resolved"},
		{350, 2, "completed", "resolved", "resolved"}} {
		last = costState(v.it, v.status, v.a1, v.a2)
		if _, err := j.Append(history.Version{At: day.Add(time.Duration(v.sec) * time.Second), Data: []byte(last)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	writeFile(t, project, ".claude/aot-loop-state.md", last)
	claude = t.TempDir()
	name, _ := agent.DirName(project)
	src := filepath.Join("..", "..", "report", "testdata", "transcripts")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		cwd := mustJSON(project)
		writeFile(t, filepath.Join(claude, "projects", name), rel, strings.ReplaceAll(string(data), `"@PROJECT@`, cwd[:len(cwd)-1]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return project, claude
}

// report gives the cost and time per atom and per iteration: the times
// from the journal's versions, the tokens and their estimated cost from
// the loop's transcripts, counted to the versions' iterations (the sums
// are the report package's, done by hand); --no-activity reads no
// transcript and says so in one line, with the times still there.
func TestReportCostAndTime(t *testing.T) {
	project, claude := costProject(t)
	report := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary(t), append([]string{"report", project}, args...)...)
		cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+claude)
		code, out, errs := runCmd(t, cmd)
		if code != 0 {
			t.Fatalf("report %v: exit %d %s", args, code, errs)
		}
		return out
	}
	md := report()
	for _, want := range []string{
		"## Cost and time",
		"**Total:** 12 responses · input 54 · output 770 · cache write 10500 · cache read 18100 · ≈ $0.0612 (estimate, prices of 2026-11-27) · 5m50s from the first version to the last",
		"| A1 | 2m0s | 4 | 14 | 440 | 4000 | 8400 | $0.0259 |",
		"| A2 | 3m0s | 4 | 10 | 210 | 3000 | 7200 | $0.0090 |",
		"| 1 | 2m30s | 6 | 29 | 500 | 7000 | 8400 | $0.0462 |",
		"| 2 | 3m20s | 6 | 25 | 270 | 3500 | 9700 | $0.0149 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	var r struct {
		Costs struct {
			Transcripts    string `json:"transcripts"`
			IterationsFrom string `json:"iterations_from"`
			Estimate       bool   `json:"estimate"`
			Total          struct {
				Usage struct {
					CostUSD float64 `json:"cost_usd"`
				} `json:"usage"`
			} `json:"total"`
		} `json:"costs"`
	}
	if out := report("--format", "json"); json.Unmarshal([]byte(out), &r) != nil || r.Costs.Transcripts != "read" ||
		r.Costs.IterationsFrom != "state" || !r.Costs.Estimate || r.Costs.Total.Usage.CostUSD != 0.061163 {
		t.Fatalf("json costs %+v", r.Costs)
	}
	if page := report("--format", "html"); !strings.Contains(page, `<svg id="atom-bars"`) || !strings.Contains(page, "≈ $0.0259") {
		t.Error("the HTML report does not draw the costs")
	}
	off := report("--no-activity")
	if !strings.Contains(off, "_--no-activity: Claude Code's transcripts were not read, so no tokens or cost._") ||
		!strings.Contains(off, "| A1 | 2m0s |\n") || !strings.Contains(off, "| 2 | 3m20s |\n") || strings.Contains(off, "$") {
		t.Errorf("--no-activity:\n%s", off[strings.Index(off, "## Cost"):])
	}
}
