package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// verifyScriptDir, when given, re-records the goldens of TestScriptGoldens
// with the loop's own scripts (verify_checklist.py, verify_command.py and
// verify_file.py from the AoT loop plugin's skills/state-contract/scripts;
// they are not part of this repository). The hang case takes the script's
// full 120 s.
var verifyScriptDir = flag.String("verify-script", "", "directory holding the loop's verify_checklist.py: record its output on the verify fixtures as goldens")

// cliIn runs aot-tui in process with stdin.
func cliIn(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd(&out, &errb)
	root.SetIn(stdin)
	code = execute(root, args, &out, &errb)
	return code, out.String(), errb.String()
}

// fakeTTY is stdin as a terminal with the person's answer typed in.
type fakeTTY struct{ io.Reader }

func (fakeTTY) IsTerminal() bool { return true }

// verifyProject copies a verify fixture project to a temporary directory
// (checks must not touch the fixtures) and returns the copy.
func verifyProject(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "verify", "testdata", "projects", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// projectWith writes a project whose base_case is the checklist given
// (YAML under "checklist:", indented by 6).
func projectWith(t *testing.T, checklist string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, ".claude/aot-loop-state.md", "---\nobjective:\n  goal: \"g\"\n  base_case:\n    checklist:\n"+checklist+
		"control:\n  status: running\n  iteration: 1\natoms:\n  - id: A1\n    description: \"x\"\n    status: pending\n    depends_on: []\nbindings: {}\ntrail: []\ncorrections: []\n---\n")
	return dir
}

func TestVerifyExitCodes(t *testing.T) {
	noTTY := strings.NewReader("")
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"all pass", []string{"verify", "--yes", verifyProject(t, "pass")}, 0},
		{"all pass --json", []string{"verify", "--yes", "--json", "-f", verifyProject(t, "pass")}, 0},
		{"failures", []string{"verify", "-y", verifyProject(t, "fail")}, 1},
		{"a missing program", []string{"verify", "-y", verifyProject(t, "missing")}, 1},
		{"legacy", []string{"verify", "-y", verifyProject(t, "legacy")}, 0},
		{"nothing checkable", []string{"verify", verifyProject(t, "legacy-assertion")}, 1},
		{"only file checks need no --yes", []string{"verify", verifyProject(t, "glob")}, 1},
		{"commands without --yes and no terminal", []string{"verify", verifyProject(t, "pass")}, 2},
		{"a phase loop", []string{"verify", "-y", testdata("seed-phase-loop.json")}, 2},
		{"unparseable", []string{"verify", "-y", testdata("invalid/syntax-error.md")}, 1}, // a file that does not parse is 1, whichever command meets it
		{"missing file", []string{"verify", "-y", filepath.Join(t.TempDir(), "nope.md")}, 2},
		{"bad timeout", []string{"verify", "-y", "--timeout", "soon", verifyProject(t, "pass")}, 2},
		{"zero timeout", []string{"verify", "-y", "--timeout", "0", verifyProject(t, "pass")}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cliIn(t, noTTY, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("a usage error is one line on stderr: %q", errOut)
			}
		})
	}
}

func TestVerifyNeedsConsent(t *testing.T) {
	dir := projectWith(t, "      - item: \"Writes\"\n        check:\n          type: command\n          value: \"touch ran.txt\"\n")
	ran := filepath.Join(dir, "ran.txt")

	code, out, errOut := cliIn(t, strings.NewReader("y\n"), "verify", dir)
	if code != 2 || out != "" || !strings.Contains(errOut, "pass --yes") {
		t.Fatalf("no terminal, no --yes: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = cliIn(t, strings.NewReader(""), "verify", "--json", dir)
	var j map[string]any
	if code != 2 || json.Unmarshal([]byte(out), &j) != nil || j["kind"] != "usage" {
		t.Errorf("--json refusal: exit %d, stdout %q", code, out)
	}
	for _, answer := range []string{"n\n", "\n", "", "whatever\n"} {
		code, out, errOut = cliIn(t, fakeTTY{strings.NewReader(answer)}, "verify", dir)
		if code != 2 || out != "" || !strings.Contains(errOut, "touch ran.txt") || !strings.Contains(errOut, "Run them? [y/N]") || !strings.Contains(errOut, "nothing was run") {
			t.Errorf("answer %q: exit %d, stdout %q, stderr %q", answer, code, out, errOut)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a command ran without consent")
	}
	code, out, errOut = cliIn(t, fakeTTY{strings.NewReader("yes\n")}, "verify", dir)
	if code != 0 {
		t.Fatalf("confirmed: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("the confirmed command did not run in the project directory")
	}
}

func TestVerifyPromptAndReportAreSanitised(t *testing.T) {
	dir := projectWith(t, "      - item: \"Title \\e]0;pwned\\a here\"\n        check:\n          type: command\n          value: \"printf '\\\\033[31mred\\\\n'; false # \\e[2J\"\n")
	code, out, errOut := cliIn(t, fakeTTY{strings.NewReader("y\n")}, "verify", dir)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for name, s := range map[string]string{"prompt": errOut, "report": out} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("the %s carries a raw escape sequence: %q", name, s)
		}
	}
	if !strings.Contains(errOut, `\x1b[2J`) || !strings.Contains(out, `\x1b]0;pwned`) || !strings.Contains(out, `\x1b[31mred`) {
		t.Errorf("escapes are not shown escaped:\nprompt %q\nreport %q", errOut, out)
	}
}

func TestVerifyTextReport(t *testing.T) {
	code, out, _ := cliIn(t, nil, "verify", "-y", verifyProject(t, "judged"))
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"not checkable  1 Manual QA — assertion: not checkable here",
		"not checkable  2 Reviews — ALL of: 0/2 passed; not checkable here: every item of the group is judged by a person",
		"FAIL           3 Tests or review — ANY of: 0/2 passed (need 1); no checkable alternative passed; 1 alternative judged by a person could still pass it",
		"FAIL             3.1 Tests — command: exit 1 — exit 1 in ",
		"pass           4 Works — command: true — exit 0 in ",
		"result: FAIL — 1 pass, 1 fail, 4 not checkable (6 checks in ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestVerifyTimeout(t *testing.T) {
	t0 := time.Now()
	code, out, _ := cliIn(t, nil, "verify", "-y", "--json", "--timeout", "0.3", verifyProject(t, "hang"))
	if took := time.Since(t0); took > 20*time.Second {
		t.Fatalf("took %v", took)
	}
	var j struct {
		Passed    bool    `json:"passed"`
		TimeoutS  float64 `json:"timeout_s"`
		Checklist []struct {
			Result   string `json:"result"`
			TimedOut bool   `json:"timed_out"`
			ExitCode int    `json:"exit_code"`
			Evidence string `json:"evidence"`
		} `json:"checklist"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 1 || j.Passed || j.TimeoutS != 0.3 || !j.Checklist[0].TimedOut || j.Checklist[0].ExitCode != -1 ||
		j.Checklist[0].Evidence != "Command timed out after 0.3s" || j.Checklist[1].Result != "pass" {
		t.Errorf("exit %d: %+v", code, j)
	}
}

func TestVerifyNoBaseCase(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".claude/aot-loop-state.md", "---\nobjective:\n  goal: \"g\"\ncontrol:\n  status: running\natoms:\n  - id: A1\n    description: \"x\"\n    status: pending\n    depends_on: []\n---\n")
	code, out, errOut := cliIn(t, nil, "verify", "--json", dir)
	var j map[string]any
	if code != 1 || json.Unmarshal([]byte(out), &j) != nil || j["passed"] != false || j["error"] == nil || !strings.Contains(errOut, "nothing to verify") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// scriptDifference is a place where aot-tui's --json and the loop's
// script part on purpose, and why.
type scriptDifference struct{ path, why string }

// knownDifferences are the only places our --json may differ from the
// script's on the shared keys; each must still differ (so that the list
// stays true).
var knownDifferences = map[string][]scriptDifference{
	"missing": {
		{"/checklist/1/passed", "a not_command whose program is missing fails: exit 127 proves nothing (the script passes it)"},
		{"/checklist/1/evidence", "it says why"},
		{"/checklist/1/output_summary", "a check that did not pass shows its stderr"},
	},
	"hang": {
		{"/checklist/0/evidence", "this test's 1 s timeout against the script's 120 s (which its own 120 s wrapper beats)"},
	},
	"judged": {
		{"/checklist/0/passed", "an assertion is judged by a person: not checkable (the script fails it as an unknown type)"},
		{"/checklist/0/evidence", "it says so"},
		{"/checklist/1/passed", "a group of items a person judges is not checkable (the script passes it)"},
		{"/skipped", "the assertion is listed among the items a person judges"},
	},
	"legacy-assertion": {
		{"/checklist/0/passed", "an assertion is judged by a person: not checkable (the script fails it)"},
		{"/checklist/0/evidence", "it says so"},
		{"/skipped", "the assertion is listed among the items a person judges"},
	},
	"edge": {
		{"/checklist/0/passed", "an empty command fails: there is nothing to run (the script runs sh -c '' and passes)"},
		{"/checklist/0/evidence", "it says so"},
		{"/checklist/0/exit_code", "nothing ran"},
		{"/checklist/1/passed", "an empty path fails (the script tests \".\", which exists)"},
		{"/checklist/1/evidence", "it says so"},
		{"/checklist/1/exists", "nothing was looked for"},
	},
}

// shellNotFound is the shell's complaint about a missing program, which
// dash and bash word differently.
var shellNotFound = regexp.MustCompile(`(?:/bin/)?sh: (?:line )?\d+: ([^:\s]+): (?:command )?not found`)

// TestScriptGoldens runs aot-tui verify --json on each fixture project and
// compares the keys it shares with the loop's verify_checklist.py with
// that script's output on the same project (recorded in
// verify/testdata/script; -verify-script DIR records it again).
func TestScriptGoldens(t *testing.T) {
	root := filepath.Join("..", "..", "verify", "testdata")
	entries, err := os.ReadDir(filepath.Join(root, "projects"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join(root, "script", name+".json")
			if *verifyScriptDir != "" {
				recordScriptGolden(t, name, golden)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (record it with -verify-script DIR)", err)
			}
			timeout := "60s"
			if name == "hang" {
				timeout = "1s"
			}
			_, out, errOut := cliIn(t, nil, "verify", "--json", "--yes", "--timeout", timeout, verifyProject(t, name))
			var got, exp any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("our --json: %v\n%s\n%s", err, out, errOut)
			}
			if err := json.Unmarshal(want, &exp); err != nil {
				t.Fatal(err)
			}
			known := map[string]string{}
			for _, d := range knownDifferences[name] {
				known[d.path] = d.why
			}
			seen := map[string]bool{}
			compareShared(t, "", exp, got, known, seen)
			for path := range known {
				if !seen[path] {
					t.Errorf("%s is listed as a difference from the script, but does not differ (any more)", path)
				}
			}
		})
	}
}

// compareShared compares the script's value want with ours at path: every
// key of the script's objects must be in ours with the same value, except
// the known differences (which must differ, noted in seen).
func compareShared(t *testing.T, path string, want, got any, known map[string]string, seen map[string]bool) {
	t.Helper()
	if _, ok := known[path]; ok {
		if normalize(want) != normalize(got) {
			seen[path] = true
		}
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: the script has an object, we have %v", path, got)
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				t.Errorf("%s/%s: the script has it (%v), we do not", path, k, w[k])
				continue
			}
			compareShared(t, path+"/"+k, w[k], gv, known, seen)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: the script has %d entries %v, we have %v", path, len(w), w, got)
			return
		}
		for i := range w {
			compareShared(t, path+"/"+strconv.Itoa(i), w[i], g[i], known, seen)
		}
	default:
		if normalize(want) != normalize(got) {
			t.Errorf("%s: the script says %#v, we say %#v", path, want, got)
		}
	}
}

func normalize(v any) string {
	b, _ := json.Marshal(v)
	return shellNotFound.ReplaceAllString(string(b), "sh: $1: not found")
}

// recordScriptGolden runs the loop's verify_checklist.py on a copy of the
// fixture, from the project directory as the loop's agent runs it.
func recordScriptGolden(t *testing.T, name, golden string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(*verifyScriptDir, "verify_checklist.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", script)
	cmd.Dir = verifyProject(t, name)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("%s: %v", script, err)
	}
	if err := os.WriteFile(golden, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
