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
)

// TTYEnv names the variable that, when set, replaces the terminal as the
// place the summary line goes (a file, appended to; a path that cannot be
// opened sends it to stderr, as on a machine without a terminal). The
// tests of this package set it.
const TTYEnv = "AOT_TUI_TESTENV_TTY"

// tool is what Need knows of a program: the names it may have and how to
// install it.
type tool struct {
	names   []string
	install string
}

var tools = map[string]tool{
	"tmux":     {[]string{"tmux"}, "apt-get install tmux, or brew install tmux"},
	"python3":  {[]string{"python3"}, "apt-get install python3, or brew install python"},
	"chromium": {[]string{"chromium", "chromium-browser"}, "apt-get install chromium, or brew install --cask chromium"},
	"git":      {[]string{"git"}, "apt-get install git, or brew install git"},
	"groff":    {[]string{"groff"}, "apt-get install groff-base, or brew install groff"},
}

var (
	inMain  atomic.Bool
	mu      sync.Mutex
	skipped = map[string][]string{} // tool -> the tests skipped for want of it
)

// Need returns the path of the program name, or stops t without it:
// under CI t fails, elsewhere it is skipped and the skip is counted for
// Main's summary. Names Need knows (tmux, python3, chromium, git, groff) are
// looked for under each of their names and come with install hints; any
// other is looked for as it is.
func Need(t testing.TB, name string) string {
	t.Helper()
	if !inMain.Load() {
		t.Fatalf("testenv.Need(%q): this package's TestMain must run its tests through testenv.Main, or the skip is never reported", name)
	}
	tl, ok := tools[name]
	if !ok {
		tl = tool{names: []string{name}, install: "install " + name}
	}
	for _, n := range tl.names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
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
		return fmt.Sprintf("%s: skipped %s that need %s, not installed here (%s); CI runs them", pkg, plural(total, "test"), needs[0].name, needs[0].hint)
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
	return fmt.Sprintf("%s: skipped %s for programs not installed here: %s; CI runs them", pkg, plural(total, "test"), strings.Join(parts, ", "))
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

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
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
