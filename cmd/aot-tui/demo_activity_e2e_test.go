package main

import (
	"bufio"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The demo's simulated loop writes what Claude Code records of a real one,
// in the demo's directory, and the TUI reads it there: the header says
// what the agents do now, "needs you" while the permission prompt waits,
// and tab 7 the estimated cost.

// nowLine is the header's activity: "◐ A2 worker: Edit internal/auth/hash.go · 2s".
var nowLine = regexp.MustCompile(`◐ (A\d+ worker: \S+ [^·\n]*?) · \d+s`)

// waitMatch polls the pane until re matches a line other than the ones in
// not, and returns its first group (a liveness bound, as waitFor).
func (s *tmuxSession) waitMatch(re *regexp.Regexp, not ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture()
		for _, m := range re.FindAllStringSubmatch(screen, -1) {
			seen := false
			for _, n := range not {
				seen = seen || m[1] == n
			}
			if !seen {
				return m[1]
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("the pane never showed %v other than %q; it shows:\n%s", re, not, screen)
	return ""
}

// noFilesUnder fails when the demo wrote anything under dir (the user's
// Claude Code directory, or state directory).
func noFilesUnder(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("the demo wrote %s, outside its own directory", p)
		}
		return nil
	})
}

func TestE2EDemoShowsTheAgentsActivityNeedsYouAndCost(t *testing.T) {
	bin := binary(t)
	needTmux(t)
	tmp := t.TempDir()
	home, claude, state, tmpdir := filepath.Join(tmp, "home"), filepath.Join(tmp, "claude"), filepath.Join(tmp, "state"), filepath.Join(tmp, "tmp")
	for _, d := range []string{home, claude, state, tmpdir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := startTmux(t, 150, 36, []string{"NO_COLOR=1", "HOME=" + home, "CLAUDE_CONFIG_DIR=" + claude, "XDG_STATE_HOME=" + state, "TMPDIR=" + tmpdir},
		bin, "demo", "--speed", "2")
	first := s.waitMatch(nowLine)
	s.waitMatch(nowLine, first) // the agents move on: another step, or another worker
	s.waitFor("⚠ needs you: Claude needs your permission to use Bash")
	s.waitGone("needs you")
	s.send("7")
	screen := s.waitFor("tokens and estimated cost", "agents", "coordinator — AoT Loop iteration")
	// The cost table's total row: input, output, cache, total, cost, share.
	m := regexp.MustCompile(`total +\S+ +\S+ +\S+ +\S+ +~\$(\d+\.\d\d) +100%`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("tab 7 shows no total cost:\n%s", screen)
	}
	if usd, _ := strconv.ParseFloat(m[1], 64); usd <= 0 {
		t.Fatalf("tab 7's total cost is $%s:\n%s", m[1], screen)
	}
	s.send("q")
	deadline := time.Now().Add(10 * time.Second)
	for strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_dead}")) != "1" {
		if time.Now().After(deadline) {
			t.Fatal("q did not end the demo")
		}
		time.Sleep(50 * time.Millisecond)
	}
	noFilesUnder(t, claude)
	noFilesUnder(t, state)
	noFilesUnder(t, home)
}

// demo --headless prints how a second aot-tui reads the demo's activity;
// one started so sees the permission prompt come and go.
func TestE2EDemoHeadlessActivityInAnotherPane(t *testing.T) {
	bin := binary(t)
	needTmux(t)
	dir := filepath.Join(t.TempDir(), "project")
	sim := exec.Command(bin, "demo", "--headless", "--dir", dir, "--speed", "2", "--quiet")
	stdout, err := sim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sim.Process.Signal(syscall.SIGTERM)
		sim.Wait()
	})
	out := bufio.NewReader(stdout)
	var advice string
	for advice == "" {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("demo --headless never said how to watch its activity: %v", err)
		}
		if _, rest, ok := strings.Cut(line, "with what its agents do, needs you and cost: "); ok {
			advice = strings.TrimSpace(rest)
		}
	}
	go io.Copy(io.Discard, out)
	words := strings.Fields(advice)
	if len(words) != 4 || !strings.HasPrefix(words[0], "CLAUDE_CONFIG_DIR="+dir) || !strings.HasPrefix(words[1], "XDG_STATE_HOME="+dir) ||
		words[2] != "aot-tui" || words[3] != dir {
		t.Fatalf("the advice: %q", advice)
	}
	s := startTmux(t, 150, 36, []string{"NO_COLOR=1", words[0], words[1]}, bin, dir)
	s.waitMatch(nowLine)
	s.waitFor("⚠ needs you: Claude needs your permission to use Bash")
	s.waitGone("needs you")
}

// The headless demo's records are where its help says, read by status
// with the environment it prints; --no-activity writes none.
func TestDemoHeadlessRecordsAndNoActivity(t *testing.T) {
	bin := binary(t)
	base := t.TempDir()
	dir := filepath.Join(base, "with")
	code, stdout, stderr := runBin(t, bin, "demo", "--headless", "--dir", dir, "--speed", "200", "--quiet")
	if code != 0 || !strings.Contains(stdout, "the loop ended: completed") || stderr != "" {
		t.Fatalf("demo --headless: exit %d\n%s\n%s", code, stdout, stderr)
	}
	transcripts, _ := filepath.Glob(filepath.Join(dir, ".demo-claude", "projects", "*", "*.jsonl"))
	events, _ := filepath.Glob(filepath.Join(dir, ".demo-state", "aot-tui", "hooks", "*.events.jsonl"))
	if len(transcripts) != 1 || len(events) != 1 {
		t.Fatalf("transcripts %v, hook events %v", transcripts, events)
	}
	cmd := exec.Command(bin, "status", dir, "--json")
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+filepath.Join(dir, ".demo-claude"), "XDG_STATE_HOME="+filepath.Join(dir, ".demo-state"))
	code, stdout, stderr = runCmd(t, cmd)
	var st struct {
		Activity *struct {
			Found        bool            `json:"found"`
			HookSeen     bool            `json:"hook_seen"`
			NeedsYou     json.RawMessage `json:"needs_you"`
			Responses    int             `json:"responses"`
			Unrecognised int             `json:"unrecognised"`
			Cost         struct {
				USD float64 `json:"usd"`
			} `json:"cost"`
			ByAtom map[string]json.RawMessage `json:"by_atom"`
		} `json:"activity"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.Activity == nil {
		t.Fatalf("status --json: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	a := st.Activity
	if !a.Found || !a.HookSeen || string(a.NeedsYou) != "null" || a.Responses == 0 || a.Unrecognised != 0 || a.Cost.USD <= 0 || len(a.ByAtom) < 9 {
		t.Fatalf("status --json's activity of the demo: %s", stdout)
	}

	off := filepath.Join(base, "off")
	code, stdout, stderr = runBin(t, bin, "demo", "--headless", "--dir", off, "--speed", "200", "--quiet", "--no-activity")
	if code != 0 || !strings.Contains(stdout, "the loop ended: completed") || strings.Contains(stdout, "CLAUDE_CONFIG_DIR") {
		t.Fatalf("demo --headless --no-activity: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, d := range []string{".demo-claude", ".demo-state"} {
		if _, err := os.Stat(filepath.Join(off, d)); !os.IsNotExist(err) {
			t.Errorf("--no-activity made %s: %v", d, err)
		}
	}
}
