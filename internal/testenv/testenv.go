// Package testenv is for tests that need a program the machine may lack
// (tmux, python3, Chromium, git, groff): they never pass silently without it.
//
// A test calls Need(t, "tmux"). Where tmux is missing the test is skipped —
// and under CI (the CI variable set, as .ci/run sets it after installing
// every such program) it fails instead. A package whose tests call Need
// runs them through Main from its TestMain, which after the run writes one
// line naming what was skipped and how to get it:
//
//	report: skipped 2 tests that need chromium, not installed here (apt-get install chromium, or brew install --cask chromium); CI runs them
//
// `go test ./...` shows a passing package's output to nobody, so the line
// goes to the terminal itself (/dev/tty; CONOUT$ on Windows), which go test
// does not capture: a person running the tests sees it among the ok lines,
// and `go test -json` and redirected output stay as they are. Without a
// terminal (CI, an editor running the tests) it goes to stderr, which
// go test -v, a single package's run and a failing run show. A result go
// test replays from its cache ("(cached)") does not repeat the line:
// -count=1 runs the tests again.
//
// For tests that need another process to hold something (a lock, a
// lease), StartHelper starts the test binary again as that process
// (helper.go).
package testenv

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aot-loop/aot-tui/internal/textfmt"
)

// TTYEnv names the variable that, when set, replaces the terminal as the
// place the summary line goes (a file, appended to; a path that cannot be
// opened sends it to stderr, as on a machine without a terminal). The
// tests of this package set it.
const TTYEnv = "AOT_TUI_TESTENV_TTY"

// tool is what Need knows of a program: the names it may have, how to
// install it, and (accept, when set) whether the program found under such
// a name is the one needed — GNU sed, not the BSD sed of macOS.
type tool struct {
	names   []string
	install string
	accept  func(path string) bool
}

var tools = map[string]tool{
	"tmux":     {names: []string{"tmux"}, install: "apt-get install tmux, or brew install tmux"},
	"python3":  {names: []string{"python3"}, install: "apt-get install python3, or brew install python"},
	"chromium": {names: []string{"chromium", "chromium-browser"}, install: "apt-get install chromium, or brew install --cask chromium"},
	"git":      {names: []string{"git"}, install: "apt-get install git, or brew install git"},
	"groff":    {names: []string{"groff"}, install: "apt-get install groff-base, or brew install groff"},
	"bash":     {names: []string{"bash"}, install: "apt-get install bash, or brew install bash"},
	// OpenSSH's server, for the tests of remote hosts (StartSSHD): not in
	// PATH for most users, so its usual places are looked at too.
	"sshd":       {names: []string{"sshd", "/usr/sbin/sshd", "/usr/local/sbin/sshd"}, install: "apt-get install openssh-server"},
	"ssh":        {names: []string{"ssh"}, install: "apt-get install openssh-client"},
	"ssh-keygen": {names: []string{"ssh-keygen"}, install: "apt-get install openssh-client"},
	// The sed first in PATH, as the loop's scripts run it: sed -i with
	// no suffix and $a are GNU sed's.
	"GNU sed": {names: []string{"sed"}, install: "apt-get install sed, or brew install gnu-sed with its gnubin directory first in PATH",
		accept: versionSays("GNU")},
}

// versionSays accepts a program whose --version output contains s.
func versionSays(s string) func(path string) bool {
	return func(path string) bool {
		out, err := exec.Command(path, "--version").Output()
		return err == nil && bytes.Contains(out, []byte(s))
	}
}

// look is the path of tl's program ("" when there is none it accepts).
func look(tl tool) string {
	for _, n := range tl.names {
		if p, err := exec.LookPath(n); err == nil && (tl.accept == nil || tl.accept(p)) {
			return p
		}
	}
	return ""
}

var (
	inMain  atomic.Bool
	mu      sync.Mutex
	skipped = map[string][]string{} // tool -> the tests skipped for want of it
)

// Need returns the path of the program name, or stops t without it:
// under CI t fails, elsewhere it is skipped and the skip is counted for
// Main's summary. Names Need knows (tmux, python3, chromium, git, groff,
// bash, and "GNU sed": a sed in PATH whose --version says GNU) are looked
// for under each of their names and come with install hints; any other is
// looked for as it is.
func Need(t testing.TB, name string) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatalf("testenv.Need(%q): this package's TestMain must run its tests through testenv.Main, or the skip is never reported", name)
	}
	tl, ok := tools[name]
	if !ok {
		tl = tool{names: []string{name}, install: "install " + name}
	}
	if p := look(tl); p != "" {
		return p
	}
	if underCI() {
		t.Fatalf("this test needs %s, which CI must have (.ci/run installs it: %s)", name, tl.install)
	}
	mu.Lock()
	skipped[name] = append(skipped[name], t.Name())
	mu.Unlock()
	t.Skipf("needs %s, not installed here (%s); CI runs this test", name, tl.install)
	return ""
}

// underCI says whether the CI variable is set (to anything but 0 or false).
func underCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "0" && v != "false"
}

// Main runs the tests of m and returns their exit code; on its way it
// writes the summary of the tests Need skipped, if any. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m *testing.M) int {
	inMain.Store(true)
	code := m.Run()
	if line := summary(packageName()); line != "" {
		report(line)
	}
	return code
}

// summary is the line naming the tests skipped in pkg ("" for none):
//
//	report: skipped 2 tests that need chromium, not installed here (apt-get install chromium, …); CI runs them
//	cmd/aot-tui: skipped 10 tests for programs not installed here: 9 need tmux (…), 1 needs python3 (…); CI runs them
func summary(pkg string) string {
	mu.Lock()
	defer mu.Unlock()
	type need struct {
		name, hint string
		tests      int
	}
	var needs []need
	total := 0
	for n, tests := range skipped {
		hint := "install " + n
		if tl, ok := tools[n]; ok {
			hint = tl.install
		}
		needs = append(needs, need{n, hint, len(uniq(tests))})
		total += len(uniq(tests))
	}
	switch len(needs) {
	case 0:
		return ""
	case 1:
		if total == 1 {
			return fmt.Sprintf("%s: skipped 1 test that needs %s, not installed here (%s); CI runs it", pkg, needs[0].name, needs[0].hint)
		}
		return fmt.Sprintf("%s: skipped %d tests that need %s, not installed here (%s); CI runs them", pkg, total, needs[0].name, needs[0].hint)
	}
	sort.Slice(needs, func(i, j int) bool {
		if needs[i].tests != needs[j].tests {
			return needs[i].tests > needs[j].tests
		}
		return needs[i].name < needs[j].name
	})
	parts := make([]string, len(needs))
	for i, n := range needs {
		verb := "need"
		if n.tests == 1 {
			verb = "needs"
		}
		parts[i] = fmt.Sprintf("%d %s %s (%s)", n.tests, verb, n.name, n.hint)
	}
	return fmt.Sprintf("%s: skipped %s for programs not installed here: %s; CI runs them", pkg, textfmt.Plural(total, "test"), strings.Join(parts, ", "))
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// packageName is the package under test, as go test names it less the
// module path: "report", "cmd/aot-tui".
func packageName() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "this package"
	}
	p := strings.TrimSuffix(info.Path, ".test")
	if m := info.Main.Path; m != "" && strings.HasPrefix(p, m+"/") {
		p = strings.TrimPrefix(p, m+"/")
	}
	return p
}

// report writes line to the terminal (or TTYEnv's file), else to stderr.
func report(line string) {
	path, flag := os.Getenv(TTYEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE
	if path == "" {
		path, flag = ttyPath, os.O_WRONLY
	}
	var w io.Writer = os.Stderr
	if f, err := os.OpenFile(path, flag, 0o644); err == nil {
		defer f.Close()
		w = f
	}
	fmt.Fprintln(w, line)
}
