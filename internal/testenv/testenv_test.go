package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// These tests run `go test` on the packages under testdata, as a person
// or CI runs the suite, and read what it printed and what reached the
// "terminal" (a file named by TTYEnv).

const neederLine = "internal/testenv/testdata/needer: skipped 2 tests that need aot-tui-testenv-missing, not installed here (install aot-tui-testenv-missing); CI runs them\n"

// goTest runs go test with args, the CI variable set to ci ("" unset) and
// TTYEnv to tty; it returns stdout, stderr and the exit code.
func goTest(t *testing.T, ci, tty string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-count=1"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, TTYEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if ci != "" {
		cmd.Env = append(cmd.Env, "CI="+ci)
	}
	cmd.Env = append(cmd.Env, TTYEnv+"="+tty)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("go test: %v", err)
	}
	return out.String(), errb.String(), code
}

func readTTY(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

// TestSkipsAreSummarisedOnTheTerminal: in package-list mode go test shows
// "ok" for a package whose tests were skipped; the terminal gets one line
// saying which and how to get the program.
func TestSkipsAreSummarisedOnTheTerminal(t *testing.T) {
	t.Parallel()
	tty := filepath.Join(t.TempDir(), "tty")
	stdout, stderr, code := goTest(t, "", tty, "./testdata/needer")
	if code != 0 {
		t.Fatalf("go test exited %d:\n%s%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "ok  \tgithub.com/aot-loop/aot-tui/internal/testenv/testdata/needer") {
		t.Fatalf("go test printed:\n%s%s", stdout, stderr)
	}
	if got := readTTY(t, tty); got != neederLine {
		t.Fatalf("the terminal got %q, want %q", got, neederLine)
	}
}

// TestSkipsSummaryWithoutATerminalGoesToStderr: where the terminal cannot
// be opened, the line is on stderr, which go test -v shows.
func TestSkipsSummaryWithoutATerminalGoesToStderr(t *testing.T) {
	t.Parallel()
	tty := filepath.Join(t.TempDir(), "no", "such", "dir", "tty")
	stdout, stderr, code := goTest(t, "", tty, "-v", "./testdata/needer")
	if code != 0 {
		t.Fatalf("go test exited %d:\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "--- SKIP: TestNeedsAMissingProgram") || !strings.Contains(stdout, "\n"+neederLine) {
		t.Fatalf("go test -v printed no summary line:\n%s%s", stdout, stderr)
	}
}

// TestJSONOutputStaysJSON: under go test -json every line of stdout is
// still a JSON event (the summary is on the terminal, not in the stream).
func TestJSONOutputStaysJSON(t *testing.T) {
	t.Parallel()
	tty := filepath.Join(t.TempDir(), "tty")
	stdout, stderr, code := goTest(t, "", tty, "-json", "./testdata/needer")
	if code != 0 {
		t.Fatalf("go test -json exited %d:\n%s%s", code, stdout, stderr)
	}
	skips := 0
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var ev struct{ Action, Test string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON event: %q (%v)", sc.Text(), err)
		}
		if ev.Action == "skip" && ev.Test != "" {
			skips++
		}
	}
	if skips != 2 {
		t.Fatalf("%d skip events, want 2:\n%s", skips, stdout)
	}
	if got := readTTY(t, tty); got != neederLine {
		t.Fatalf("the terminal got %q, want %q", got, neederLine)
	}
}

// TestUnderCIAMissingProgramFails: CI installs every program the tests
// need, so there a missing one is a failure, not a skip.
func TestUnderCIAMissingProgramFails(t *testing.T) {
	t.Parallel()
	tty := filepath.Join(t.TempDir(), "tty")
	stdout, stderr, code := goTest(t, "true", tty, "./testdata/needer")
	if code == 0 || !strings.Contains(stdout, "--- FAIL: TestNeedsAMissingProgram") ||
		!strings.Contains(stdout, "this test needs aot-tui-testenv-missing, which CI must have") {
		t.Fatalf("go test under CI exited %d:\n%s%s", code, stdout, stderr)
	}
	if got := readTTY(t, tty); got != "" {
		t.Fatalf("nothing was skipped, yet the terminal got %q", got)
	}
}

// TestNeedWithoutMainFails: a package that calls Need without running its
// tests through Main would skip without the summary; it fails instead.
func TestNeedWithoutMainFails(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := goTest(t, "", filepath.Join(t.TempDir(), "tty"), "./testdata/nomain")
	if code == 0 || !strings.Contains(stdout, "TestMain must run its tests through testenv.Main") {
		t.Fatalf("go test exited %d:\n%s%s", code, stdout, stderr)
	}
}

// TestSummaryOfSeveralPrograms: the tests skipped for each program, the
// most first, each with its install hint; a test counted once however
// often it asked.
func TestSummaryOfSeveralPrograms(t *testing.T) {
	mu.Lock()
	old := skipped
	skipped = map[string][]string{
		"python3": {"TestStress"},
		"tmux":    {"TestE2EA", "TestE2EB", "TestE2EB"},
	}
	mu.Unlock()
	defer func() { mu.Lock(); skipped = old; mu.Unlock() }()
	want := "cmd/aot-tui: skipped 3 tests for programs not installed here: 2 need tmux (apt-get install tmux, or brew install tmux), " +
		"1 needs python3 (apt-get install python3, or brew install python); CI runs them"
	if got := summary("cmd/aot-tui"); got != want {
		t.Fatalf("summary:\n got %s\nwant %s", got, want)
	}
}

// One test skipped is said in the singular.
func TestSummaryOfOneTest(t *testing.T) {
	mu.Lock()
	old := skipped
	skipped = map[string][]string{"GNU sed": {"TestStressLoopWriters"}}
	mu.Unlock()
	defer func() { mu.Lock(); skipped = old; mu.Unlock() }()
	want := "cmd/aot-tui: skipped 1 test that needs GNU sed, not installed here (" + tools["GNU sed"].install + "); CI runs it"
	if got := summary("cmd/aot-tui"); got != want {
		t.Fatalf("summary:\n got %s\nwant %s", got, want)
	}
}

const versionEnv = "AOT_TUI_TESTENV_VERSION"

// "GNU sed" is the sed first in PATH when its --version says GNU; a BSD
// sed there (macOS's) is no sed for the loop's sed -i and $a, and Need
// would skip (or fail under CI). The test binary plays each sed.
func TestNeedGNUSed(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sed := filepath.Join(dir, "sed")
	if runtime.GOOS == "windows" {
		sed += ".exe"
	}
	if err := os.WriteFile(sed, data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for version, want := range map[string]string{
		"sed (GNU sed) 4.9": sed,
		"usage: sed script [-Ealnru] [-i extension] [file ...]": "",
	} {
		t.Setenv(versionEnv, version)
		if got := look(tools["GNU sed"]); got != want {
			t.Errorf("a sed whose --version says %q: found %q, want %q", version, got, want)
		}
	}
}
