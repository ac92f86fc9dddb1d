package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
)

// hookRun runs the built binary's aot-tui hook with stdin and env.
func hookRun(t *testing.T, stdin io.Reader, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"hook"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin == nil {
		return runCmd(t, cmd)
	}
	var out, errb strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// aot-tui hook, as Claude Code runs it: the event's JSON on stdin,
// recorded in the project's events file in the state directory; exit 0
// whatever comes — not JSON, no state directory to write, a stdin never
// closed (it gives up after two seconds rather than hold Claude Code).
func TestHookCommand(t *testing.T) {
	state := t.TempDir()
	project := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	in := `{"session_id":"abc-123","transcript_path":"/home/u/.claude/projects/x/abc-123.jsonl","cwd":` + mustJSON(project) +
		`,"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash","extra":{"x":1}}`
	code, stdout, stderr := hookRun(t, strings.NewReader(in), env)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	file := agent.HookEventsFile(filepath.Join(state, "aot-tui", "hooks"), project)
	evs, err := agent.ReadHookEvents(file)
	if err != nil || len(evs) != 1 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	ev := evs[0]
	if ev.Event != "Notification" || ev.Session != "abc-123" || ev.Type != "permission_prompt" || ev.Message != "Claude needs your permission to use Bash" ||
		time.Since(ev.At) > time.Minute {
		t.Fatalf("event %+v", ev)
	}
	if fi, err := os.Stat(filepath.Dir(file)); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700) {
		t.Errorf("hooks directory: %v %v", fi.Mode(), err)
	}

	for name, c := range map[string]struct {
		stdin io.Reader
		env   []string
		want  string
	}{
		"not JSON":            {strings.NewReader("hello"), env, "hook input is not a JSON object"},
		"no cwd":              {strings.NewReader(`{"hook_event_name":"Notification"}`), env, "no cwd"},
		"no state directory":  {strings.NewReader(in), []string{"XDG_STATE_HOME=" + filepath.Join(mustFile(t), "x"), "HOME=" + t.TempDir()}, "aot-tui hook: "},
		"stdin never closed":  {openPipe(t), env, "no hook input on stdin within 2s"},
		"more than 1 MiB too": {strings.NewReader(`{"message":"` + strings.Repeat("x", 2<<20) + `"}`), env, "larger than 1 MiB"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := hookRun(t, c.stdin, c.env)
			if code != 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and one line with %q", code, stdout, stderr, c.want)
			}
		})
	}
}

// openPipe is the reading end of a pipe whose writing end stays open and
// silent until the test ends: a stdin nobody closes.
func openPipe(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); r.Close() })
	return r
}

// mustFile is a regular file, to stand where a directory is wanted.
func mustFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const otherHooks = `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
        ]
    },
    "permissions": {"allow": ["Bash(ls:*)"]}
}
`

// aot-tui hook install on real settings files: none yet (user), one with
// other hooks (project, a symbolic link), one that is not JSON; --dry-run
// writes nothing; installing twice changes nothing; --uninstall gives back
// the very bytes there were.
func TestHookInstall(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "USERPROFILE=" + home}
	run := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(binary(t), append([]string{"hook", "install"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		return runCmd(t, cmd)
	}
	user := filepath.Join(home, ".claude", "settings.json")
	code, out, errs := run("--dry-run")
	if _, err := os.Stat(user); code != 0 || err == nil || !strings.Contains(out, "+        \"hooks\": [") || !strings.Contains(out, `hook",`) {
		t.Fatalf("dry run: exit %d, %q %q; file: %v", code, out, errs, err)
	}
	code, out, _ = run()
	data, err := os.ReadFile(user)
	if code != 0 || err != nil || !strings.HasPrefix(out, "added the Notification hook to "+user) || !json.Valid(data) {
		t.Fatalf("install: exit %d %q %v\n%s", code, out, err, data)
	}
	if fi, _ := os.Stat(user); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("a new user settings file is %v", fi.Mode())
	}
	if code, out, _ = run("--user"); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Fatalf("again: exit %d %q", code, out)
	}

	// A project's settings, kept elsewhere behind a symbolic link.
	proj := t.TempDir()
	real := filepath.Join(t.TempDir(), "team-settings.json")
	if err := os.WriteFile(real, []byte(otherHooks), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(proj, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here")
	}
	code, out, _ = run("--project", proj, "--dry-run")
	if code != 0 || !strings.Contains(out, "+        \"Notification\": [") || mustRead(t, real) != otherHooks {
		t.Fatalf("project dry run: exit %d\n%s", code, out)
	}
	if code, _, errs = run("--project", proj); code != 0 {
		t.Fatalf("project: exit %d %s", code, errs)
	}
	after := mustRead(t, real)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v %v", fi.Mode(), err)
	}
	if !strings.HasPrefix(after, otherHooks[:strings.Index(otherHooks, "        ]\n    },")]) || !strings.Contains(after, `"command": "./check.sh"`) || !json.Valid([]byte(after)) {
		t.Fatalf("project settings:\n%s", after)
	}
	if fi, _ := os.Stat(real); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640", fi.Mode())
	}
	if code, out, _ = run("--project", proj, "--uninstall"); code != 0 || !strings.HasPrefix(out, "removed") || mustRead(t, real) != otherHooks {
		t.Fatalf("uninstall: exit %d %q\n%s", code, out, mustRead(t, real))
	}
	if code, out, _ = run("--project", proj, "--uninstall"); code != 0 || !strings.Contains(out, "nothing to remove") {
		t.Fatalf("uninstall again: exit %d %q", code, out)
	}

	// Not JSON: refused with its line, left alone.
	local := filepath.Join(proj, ".claude", "settings.local.json")
	broken := "{\n  \"model\": \"opus\",\n  oops\n}\n"
	os.WriteFile(local, []byte(broken), 0o644)
	code, out, errs = run("--local", proj)
	if code != 1 || out != "" || !strings.Contains(errs, local+": not JSON (line 3") || !strings.Contains(errs, "nothing was written") || mustRead(t, local) != broken {
		t.Fatalf("broken: exit %d %q %q", code, out, errs)
	}
	if code, _, errs = run("--user", "--project"); code != 2 || !strings.Contains(errs, "give one of") {
		t.Fatalf("two places: exit %d %q", code, errs)
	}
	if entries, _ := os.ReadDir(filepath.Dir(real)); len(entries) != 1 {
		t.Errorf("files left beside the settings: %v", entries)
	}
}
