package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// The end-to-end tests build the real binary and drive it inside tmux: what
// they read back is what a person would see in the pane.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aot-tui-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "aot-tui")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// tmuxSession is one detached tmux server (its own socket) running a command.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func needTmux(t *testing.T) {
	t.Helper()
	testenv.Need(t, "tmux")
}

func startTmux(t *testing.T, w, h int, env []string, args ...string) *tmuxSession {
	t.Helper()
	needTmux(t)
	s := &tmuxSession{t: t, socket: fmt.Sprintf("aot-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmdline := strings.Join(append(env, args...), " ")
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmdline)
	s.tmux("set-option", "-t", "e2e", "remain-on-exit", "on")
	t.Cleanup(s.kill)
	return s
}

// kill ends the tmux server and waits (a liveness bound) until the
// program in its pane has exited: one still running would go on writing
// beside the state file (a pause look's lock file) while the test's
// temporary directory is removed.
func (s *tmuxSession) kill() {
	out, _ := exec.Command("tmux", "-L", s.socket, "display", "-p", "-t", "e2e", "#{pane_pid}").Output()
	_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid <= 0 {
		return
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p, err := os.FindProcess(pid)
		if err != nil || p.Signal(syscall.Signal(0)) != nil {
			return
		}
	}
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) capture() string { return s.tmux("capture-pane", "-p", "-t", "e2e") }

func (s *tmuxSession) send(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// waitFor polls the pane until it shows every want (a liveness bound of 15 s,
// not a timing assertion).
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = s.capture()
		ok := true
		for _, w := range want {
			if !strings.Contains(screen, w) {
				ok = false
			}
		}
		if ok {
			return screen
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("the pane never showed %q; it shows:\n%s", want, screen)
	return ""
}

// waitGone polls until the pane no longer shows text (a liveness bound):
// a capture can catch a frame half drawn over the one before it, so what
// a new frame removes is waited for, not asserted on the first capture.
func (s *tmuxSession) waitGone(text string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		if screen = s.capture(); !strings.Contains(screen, text) {
			return screen
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("the pane still shows %q; it shows:\n%s", text, screen)
	return ""
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func replaceInFile(t *testing.T, path, old, new string, inPlace bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%q not in %s", old, path)
	}
	out := []byte(strings.Replace(string(data), old, new, 1))
	if inPlace {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(out); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return
	}
	tmp := path + ".tmp.e2e"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestE2EMonitorFollowsTheFile(t *testing.T) {
	bin := binary(t)
	path := copyFixture(t, "seed-complete.md")
	s := startTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin, filepath.Dir(filepath.Dir(path)))
	s.waitFor("iteration 5/20", "User model definition")

	replaceInFile(t, path, "iteration: 5", "iteration: 6", false) // the hook: temp + rename
	s.waitFor("iteration 6/20")
	replaceInFile(t, path, "iteration: 6", "iteration: 7", true) // the scripts: in place
	s.waitFor("iteration 7/20")

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

func TestE2EEscapeSequencesStayEscaped(t *testing.T) {
	bin := binary(t)
	path := copyFixture(t, "rich.md")
	s := startTmux(t, 120, 40, nil, bin, "-f", path)
	// rich.md has redirect_requested set: the TUI offers to clear it.
	s.waitFor("redirect_requested is set", "y clear it")
	s.send("n")
	// Select A6, whose description carries a title-setting OSC and SGR codes.
	s.waitFor("Define the billing schema")
	s.send(":")
	s.send("-l", "A6")
	s.send("Enter")
	screen := s.waitFor(`\x1b]0;pwned`)
	if strings.Contains(screen, "\x1b") {
		t.Fatal("a raw escape reached the pane")
	}
	title := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_title}"))
	if strings.Contains(title, "pwned") {
		t.Fatalf("the file retitled the terminal: %q", title)
	}
	if !strings.HasPrefix(title, "aot-tui") {
		t.Fatalf("the window title should mirror the loop, got %q", title)
	}
}

// startRichTUI opens the TUI in tmux on a copy of rich.md with the
// handshake flag clear, and waits for its graph.
func startRichTUI(t *testing.T) (*tmuxSession, string) {
	t.Helper()
	bin := binary(t)
	path := copyFixture(t, "rich.md")
	replaceInFile(t, path, "redirect_requested: true", "redirect_requested: false", true)
	s := startTmux(t, 100, 32, []string{"NO_COLOR=1"}, bin, "-f", path)
	s.waitFor("Define the billing schema")
	return s, path
}

func TestE2EAddAtomFromTheTUI(t *testing.T) {
	s, path := startRichTUI(t)
	s.send("g", "j", "a") // g: the first atom (A1), j: A2
	s.waitFor("┃ Description")
	waitFileContains(t, path, "redirect_requested: true") // opening a form pauses the loop
	s.send("-l", "Write the runbook")
	s.send("Enter")
	s.waitFor("┃ Id")
	s.send("Enter")
	for _, field := range []string{"┃ Depends on", "┃ Required by", "┃ OR group", "┃ Note"} {
		s.waitFor(field)
		s.send("Enter")
	}
	s.waitFor("preview: Add an atom", "+  - id: A9")
	s.send("Enter")
	s.waitFor("dag_adjustment: added A9", "A9 Write the runbook")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  - id: A9\n    description: \"Write the runbook\"\n    status: pending\n    depends_on: [A2]\n",
		"type: dag_adjustment", "redirect_requested: false"} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("the file lacks %q:\n%s", want, data)
		}
	}
}

func TestE2EDemoHeadlessWatchedToCompletion(t *testing.T) {
	bin := binary(t)
	needTmux(t)
	dir := filepath.Join(t.TempDir(), "project")
	sim := exec.Command(bin, "demo", "--headless", "--dir", dir, "--speed", "15", "--quiet")
	var simOut strings.Builder
	sim.Stdout, sim.Stderr = &simOut, &simOut
	// The TUI starts first and waits for the file the simulator creates.
	s := startTmux(t, 100, 30, []string{"NO_COLOR=1"}, bin, dir)
	s.waitFor("waiting for")
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	s.waitFor("Add user authentication to the web API")
	s.waitFor("⎇ session_strategy✗") // the OR backtrack
	s.waitFor("⊃ 2 parts")           // the decomposition
	screen := s.waitFor("✓ completed", "completed: base_case satisfied")
	if !strings.Contains(screen, "● 8 resolved") && !strings.Contains(screen, "●8") {
		t.Fatalf("completion screen:\n%s", screen)
	}
	if err := sim.Wait(); err != nil {
		t.Fatalf("demo --headless: %v\n%s", err, simOut.String())
	}
	if !strings.Contains(simOut.String(), "the loop ended: completed") {
		t.Fatalf("headless output: %s", simOut.String())
	}
}

func TestE2EDemoQuitsCleanly(t *testing.T) {
	bin := binary(t)
	s := startTmux(t, 100, 30, []string{"NO_COLOR=1", "TMPDIR=" + t.TempDir()}, bin, "demo", "--speed", "5")
	s.waitFor("Add user authentication to the web API")
	s.send("q")
	var screen string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_dead}")) == "1" {
			screen = s.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "e2e") // -J joins wrapped lines, -S - adds scrollback
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if screen == "" {
		t.Fatal("q did not end the demo")
	}
	i := strings.Index(screen, "the demo loop was in ")
	if i < 0 {
		t.Fatalf("the demo should say where its directory was:\n%s", screen)
	}
	dir := strings.Fields(screen[i+len("the demo loop was in "):])[0]
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the demo directory %s should be removed: %v", dir, err)
	}
}

func waitFileContains(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never contained %q", path, want)
}

// Closing the terminal (tmux kill-session sends SIGHUP) with a form open
// still clears the redirect_requested the form set: the loop must not stay
// paused by a session that is gone.
func TestE2EHangupWithFormOpenClearsFlag(t *testing.T) {
	s, path := startRichTUI(t)
	s.send("c")
	s.waitFor("Change constraints")
	waitFileContains(t, path, "redirect_requested: true")
	s.tmux("kill-session", "-t", "e2e")
	waitFileContains(t, path, "redirect_requested: false")
}
