package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// The loop's writers, as the plugin runs them (its own code is not copied:
// these do what its scripts and hook do to the file). The stop hook's way:
// sed to a temp file, then mv. The scripts' way (set_status.py,
// update_atom.py): Path.read_text, change lines, Path.write_text.
const (
	hookSed = `f=$1; shift; sed "$@" "$f" > "$f.tmp.$$" && mv "$f.tmp.$$" "$f"`
	// setStatusPy STATE STATUS [REASON]: the control block's 2-space
	// "  status:" line, and its stop_reason when a reason is given.
	setStatusPy = `import pathlib, sys
p = pathlib.Path(sys.argv[1])
status, reason = sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else None)
out = []
for line in p.read_text().split('\n'):
    if line.startswith('  status:'):
        line = '  status: ' + status
    elif line.startswith('  stop_reason:') and reason:
        line = '  stop_reason: "' + reason + '"'
    out.append(line)
p.write_text('\n'.join(out))
`
	// atomStatusPy STATE ID STATUS: the status line of the atom's block.
	atomStatusPy = `import pathlib, sys
p = pathlib.Path(sys.argv[1])
atom, status = sys.argv[2], sys.argv[3]
out, inside = [], False
for line in p.read_text().split('\n'):
    s = line.strip()
    if s.startswith('- id:'):
        inside = s.split(':', 1)[1].strip() == atom
    if inside and s.startswith('status:'):
        line = line[:len(line) - len(line.lstrip())] + 'status: ' + status
        inside = False
    out.append(line)
p.write_text('\n'.join(out))
`
)

// loopProject writes a project with rich.md's state (not paused), with
// edits (old → new pairs), and returns its state file.
func loopProject(t *testing.T, dir string, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1)
	for i := 0; i+1 < len(edits); i += 2 {
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopRun runs one of the loop's writers (sh or python3) to its end.
func loopRun(t *testing.T, prog string, args ...string) {
	t.Helper()
	if out, err := exec.Command(prog, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", prog, args, err, out)
	}
}

// notifyEnv is a config directory whose config.yaml says config, for the
// binary's environment.
func notifyEnv(t *testing.T, config string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "aot-tui"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "aot-tui", "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "XDG_CONFIG_HOME="+dir)
}

// recorderScript writes a notify command that appends what it is given —
// its AOT_* variables, then stdin — to runs, and returns its path.
func recorderScript(t *testing.T, runs string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "record.sh")
	script := "#!/bin/sh\n{ echo '--- run'; env | grep '^AOT_' | LC_ALL=C sort; cat; echo; } >> '" + runs + "'\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// recordedRuns reads the recorder's runs as "kind loop: reason", checking
// that stdin's JSON says what the environment does.
func recordedRuns(t *testing.T, runs string) []string {
	t.Helper()
	data, err := os.ReadFile(runs)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, run := range strings.Split(string(data), "--- run\n")[1:] {
		env := map[string]string{}
		var ev map[string]any
		for line := range strings.Lines(run) {
			line = strings.TrimSuffix(line, "\n")
			if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "AOT_") {
				env[k] = v
			} else if strings.HasPrefix(line, "{") {
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("stdin: %v: %q", err, line)
				}
			}
		}
		if ev["kind"] != env["AOT_EVENT"] || ev["loop"] != env["AOT_LOOP"] || ev["reason"] != env["AOT_REASON"] || ev["v"] != float64(1) {
			t.Errorf("stdin %v and the environment %v disagree", ev, env)
		}
		out = append(out, env["AOT_EVENT"]+" "+env["AOT_LOOP"]+": "+env["AOT_REASON"])
	}
	return out
}

// hookReceiver is a webhook receiver on 127.0.0.1 recording each event as
// "kind loop: reason"; hang says which requests (1, 2, …) get no answer.
type hookReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []string
	hang func(n int) bool
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{}
	n := 0
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil || r.Method != http.MethodPost {
			t.Errorf("webhook: %s %q: %v", r.Method, body, err)
		}
		h.mu.Lock()
		n++
		hang := h.hang != nil && h.hang(n)
		if !hang {
			h.got = append(h.got, fmt.Sprintf("%v %v: %v", ev["kind"], ev["loop"], ev["reason"]))
		}
		h.mu.Unlock()
		if hang {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) events() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.got...)
}

// watchProc is the built binary's watch, running.
type watchProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    []string
	errb   strings.Builder
	closed chan struct{}
}

func startWatch(t *testing.T, env []string, args ...string) *watchProc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"watch"}, args...)...)
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watchProc{t: t, cmd: cmd, closed: make(chan struct{})}
	var reading sync.WaitGroup
	reading.Add(2)
	go func() {
		defer reading.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			w.mu.Lock()
			w.out = append(w.out, sc.Text())
			w.mu.Unlock()
		}
	}()
	go func() {
		defer reading.Done()
		data := make([]byte, 4096)
		for {
			n, err := stderr.Read(data)
			w.mu.Lock()
			w.errb.Write(data[:n])
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		reading.Wait()
		close(w.closed)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return w
}

// wait polls until cond holds of stdout's lines and stderr (a liveness
// bound, not a timing assertion).
func (w *watchProc) wait(what string, cond func(out []string, errText string) bool) {
	w.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		w.mu.Lock()
		out, errText := append([]string(nil), w.out...), w.errb.String()
		w.mu.Unlock()
		if cond(out, errText) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("watch never showed %s\nstdout:\n%s\nstderr:\n%s", what, strings.Join(out, "\n"), errText)
		}
	}
}

// waitLines waits for n lines on stdout.
func (w *watchProc) waitLines(n int) {
	w.t.Helper()
	w.wait(fmt.Sprintf("%d lines", n), func(out []string, _ string) bool { return len(out) >= n })
}

// stop sends SIGTERM and waits for the exit: 0, with every stream closed.
func (w *watchProc) stop() (out []string, errText string) {
	w.t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		w.t.Fatal(err)
	}
	select {
	case <-w.closed:
	case <-time.After(time.Minute):
		w.t.Fatal("watch did not end on SIGTERM")
	}
	if err := w.cmd.Wait(); err != nil {
		w.t.Fatalf("watch ended with %v on SIGTERM; stderr:\n%s", err, w.errb.String())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out, w.errb.String()
}

// eventLine is the shape of watch's lines: an RFC 3339 time, a kind, the
// loop and why.
var eventLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (needs_attention|needs_you|completed|stopped) (.+)$`)

// withoutTime is watch's lines as "kind loop: reason".
func withoutTime(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		m := eventLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("watch printed %q, not an event line", l)
		}
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

// aotLine is a line's text without raw controls (the test's check that
// every string was sanitised).
func rawControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
			return true
		}
	}
	return false
}

// watch --scan --notify, the built binary on a fleet whose loops are
// written by the loop's own kinds of writers: each transition is one line
// on stdout, one run of the command and one request to the webhook — a
// hostile project name escaped in all three — and SIGTERM ends it with 0.
func TestWatchScanNotify(t *testing.T) {
	python := testenv.Need(t, "python3")
	sh := testenv.Need(t, "sh")
	root := t.TempDir()
	billing := loopProject(t, filepath.Join(root, "billing"), "stall_count: 2", "stall_count: 1")
	audit := loopProject(t, filepath.Join(root, "audit"), "stall_count: 2", "stall_count: 0")
	evil := loopProject(t, filepath.Join(root, "ev\x1b]0;pwned\x07il"))
	runs := filepath.Join(t.TempDir(), "runs")
	hook := newHookReceiver(t)
	env := notifyEnv(t, fmt.Sprintf("notify:\n  command: [%s, --from-aot-tui]\n  webhook: %s/hook/secret\n", recorderScript(t, runs), hook.srv.URL))
	w := startWatch(t, env, "--scan", root, "--notify")
	w.wait("the start line", func(_ []string, e string) bool {
		return strings.Contains(e, "aot-tui watch: following 3 loops under "+root+"; alerts also to command ") &&
			strings.Contains(e, " and webhook "+hook.srv.URL)
	})

	loopRun(t, sh, "-c", hookSed, "sh", billing, "-e", "s/^  iteration: .*/  iteration: 8/", "-e", "s/^  stall_count: .*/  stall_count: 2/")
	w.waitLines(1)
	loopRun(t, python, "-c", atomStatusPy, billing, "A2", "in_progress") // no transition
	loopRun(t, python, "-c", setStatusPy, billing, "completed")
	w.waitLines(2)
	loopRun(t, sh, "-c", hookSed, "sh", audit, "-e", "s/^  status: .*/  status: stopped/", "-e", `s/^  stop_reason: .*/  stop_reason: "Max stall count reached"/`)
	w.waitLines(3)
	loopRun(t, python, "-c", setStatusPy, evil, "completed")
	w.waitLines(4)
	loopRun(t, sh, "-c", hookSed, "sh", billing, "-e", "s/^  iteration: .*/  iteration: 9/") // no transition
	out, errText := w.stop()

	got := withoutTime(t, out)
	if len(got) != 4 || !strings.HasPrefix(got[0], "needs_attention billing: ") || !strings.Contains(got[0], "stall 3/3") || got[1] != "completed billing: completed" ||
		got[2] != "stopped audit: stopped: Max stall count reached" || got[3] != `completed ev\x1b]0;pwned\x07il: completed` {
		t.Fatalf("watch printed:\n%s", strings.Join(out, "\n"))
	}
	for _, l := range append(out, errText) {
		if rawControl(strings.TrimSuffix(strings.ReplaceAll(l, "\n", " "), " ")) {
			t.Errorf("a raw control character was printed: %q", l)
		}
	}
	if r := recordedRuns(t, runs); strings.Join(r, "\n") != strings.Join(got, "\n") {
		t.Errorf("the command received:\n%s\nwant:\n%s", strings.Join(r, "\n"), strings.Join(got, "\n"))
	}
	if h := hook.events(); strings.Join(h, "\n") != strings.Join(got, "\n") {
		t.Errorf("the webhook received:\n%s\nwant:\n%s", strings.Join(h, "\n"), strings.Join(got, "\n"))
	}
	if strings.Contains(errText, "secret") || strings.Contains(errText, "failed") {
		t.Errorf("stderr: %s", errText)
	}
}

// watch PATH --notify follows that loop alone. A webhook that does not
// answer and a command that fails hold nothing up: each is one line on
// stderr, and the events after them are printed and sent.
func TestWatchPathNotifyFailuresDoNotBlock(t *testing.T) {
	python := testenv.Need(t, "python3")
	testenv.Need(t, "sh")
	root := t.TempDir()
	billing := loopProject(t, filepath.Join(root, "billing"))
	other := loopProject(t, filepath.Join(root, "other"))
	fails := filepath.Join(t.TempDir(), "fails.sh")
	if err := os.WriteFile(fails, []byte("#!/bin/sh\necho 'no display' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := newHookReceiver(t)
	hook.hang = func(n int) bool { return n == 1 }
	env := notifyEnv(t, fmt.Sprintf("notify:\n  command: %s\n  webhook:\n    url: %s/t\n    format: json\n  timeout: 300ms\n", fails, hook.srv.URL))
	w := startWatch(t, env, billing, "--notify")
	w.wait("the start line", func(_ []string, e string) bool { return strings.Contains(e, "following 1 loop under") })

	loopRun(t, python, "-c", setStatusPy, billing, "stopped", "Stopped by /exit-recursion")
	w.wait("the failures", func(out []string, e string) bool {
		return len(out) == 1 && strings.Contains(e, "webhook "+hook.srv.URL+" (json) failed for billing (stopped): no answer within 300ms") &&
			strings.Contains(e, "command "+fails+" failed for billing (stopped): exit status 3: no display")
	})
	loopRun(t, python, "-c", setStatusPy, other, "completed") // not followed
	loopRun(t, python, "-c", setStatusPy, billing, "completed")
	w.waitLines(2)
	out, _ := w.stop()
	got := withoutTime(t, out)
	if len(got) != 2 || got[0] != "stopped billing: stopped: Stopped by /exit-recursion" || got[1] != "completed billing: completed" {
		t.Fatalf("watch printed:\n%s", strings.Join(out, "\n"))
	}
	if h := hook.events(); len(h) != 1 || h[0] != "completed billing: completed" {
		t.Errorf("the webhook received %q, want the event after the one it did not answer", h)
	}
}

// notify test sends the sample to each sink and says what each made of
// it; a failure or nothing configured is exit 2.
func TestNotifyTestCommand(t *testing.T) {
	testenv.Need(t, "sh")
	runs := filepath.Join(t.TempDir(), "runs")
	hook := newHookReceiver(t)
	env := notifyEnv(t, fmt.Sprintf("notify:\n  command: [%s]\n  webhook: %s/hook\n", recorderScript(t, runs), hook.srv.URL))
	cmd := exec.Command(binary(t), "notify", "test")
	cmd.Env = env
	code, stdout, stderr := runCmd(t, cmd)
	if code != 0 || !regexp.MustCompile(`(?m)^command \S+record.sh: sent \(exit status 0, \d+ms\)$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^webhook `+regexp.QuoteMeta(hook.srv.URL)+` \(json\): sent \(HTTP 200 OK, \d+ms\)$`).MatchString(stdout) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if r := recordedRuns(t, runs); len(r) != 1 || r[0] != "test aot-tui-test: a test notification from aot-tui notify test" {
		t.Errorf("the command received %q", r)
	}
	if h := hook.events(); len(h) != 1 || !strings.HasPrefix(h[0], "test aot-tui-test: ") {
		t.Errorf("the webhook received %q", h)
	}

	hook.hang = func(int) bool { return true }
	cmd = exec.Command(binary(t), "notify", "test")
	cmd.Env = notifyEnv(t, fmt.Sprintf("notify:\n  webhook: %s/hook\n  timeout: 200ms\n", hook.srv.URL))
	code, stdout, stderr = runCmd(t, cmd)
	if code != 2 || !strings.Contains(stdout, " (json): failed after ") || !strings.Contains(stdout, "no answer within 200ms") ||
		!strings.Contains(stderr, "aot-tui: notify test: 1 of the sends failed") {
		t.Fatalf("a webhook that does not answer: exit %d\n%s%s", code, stdout, stderr)
	}

	for config, want := range map[string]string{
		"# nothing yet\n":             "names no notify.command or notify.webhook — add one",
		"notify:\n  comand: [x]\n":    "line 2: unknown key notify.comand",
		"notify:\n  webhook: ftp:x\n": `line 2: notify.webhook: "ftp:x" is not an http:// or https:// URL`,
	} {
		for _, args := range [][]string{{"notify", "test"}, {"watch", t.TempDir(), "--notify"}} {
			cmd := exec.Command(binary(t), args...)
			cmd.Env = notifyEnv(t, config)
			code, stdout, stderr := runCmd(t, cmd)
			if code != 2 || stdout != "" || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "config.yaml") {
				t.Errorf("%s with %q: exit %d, stdout %q, stderr %q (want %q)", args, config, code, stdout, stderr, want)
			}
		}
	}
	// The TUI reads the config file before it starts: a bad one is refused.
	cmd = exec.Command(binary(t), t.TempDir())
	cmd.Env = notifyEnv(t, "notify:\n  timeout: soon\n")
	if code, _, stderr := runCmd(t, cmd); code != 2 || !strings.Contains(stderr, "line 2: notify.timeout: give a duration") {
		t.Errorf("the TUI with a bad config file: exit %d, %q", code, stderr)
	}
}

// watch refuses what it cannot follow, in one line.
func TestWatchRefuses(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "state.md")
	if err := os.WriteFile(odd, []byte("---\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", odd}, "watch follows a project's .claude/aot-loop-state.md or .claude/autonomous-loop.json"},
		{[]string{"watch", "--depth", "2", dir}, "--depth goes with --scan"},
		{[]string{"watch", "--scan", filepath.Join(dir, "nope")}, "no such directory"},
	} {
		code, stdout, stderr := runBin(t, binary(t), c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q %q", c.args, code, stdout, stderr)
		}
	}
}
