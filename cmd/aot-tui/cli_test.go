package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/statefile"
)

// cli runs aot-tui in process and returns its exit code and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func testdata(name string) string { return filepath.Join("..", "..", "testdata", name) }

// writeFile writes data to dir/rel, making directories, and returns the path.
func writeFile(t *testing.T, dir, rel, data string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExitCodes(t *testing.T) {
	valid, invalid := testdata("seed-complete.md"), testdata("invalid/cycle.md")
	unparseable, phase := testdata("invalid/syntax-error.md"), testdata("seed-phase-loop.json")
	missing := filepath.Join(t.TempDir(), "nope.md")
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"validate valid", []string{"validate", valid}, 0},
		{"validate valid with warnings --json", []string{"validate", "--json", valid}, 0},
		{"validate invalid", []string{"validate", invalid}, 1},
		{"validate unparseable", []string{"validate", unparseable}, 1},
		{"validate unparseable --json", []string{"validate", "--json", unparseable}, 1},
		{"validate missing file", []string{"validate", missing}, 2},
		{"validate missing file via -f", []string{"validate", "-f", missing}, 2},
		{"validate bad flag", []string{"validate", "--bogus", valid}, 2},
		{"validate two paths", []string{"validate", valid, invalid}, 2},
		{"validate -f and a different path", []string{"validate", "-f", valid, invalid}, 2},
		{"validate -f and the same path", []string{"validate", "-f", valid, valid}, 0},
		{"validate phase loop", []string{"validate", phase}, 0},
		{"validate invalid phase loop", []string{"validate", testdata("invalid/phase-bad.json")}, 1},
		{"validate unparseable phase loop", []string{"validate", testdata("invalid/phase-syntax.json")}, 1},
		{"validate over --max-size", []string{"validate", "--max-size", "100", valid}, 2},
		{"status", []string{"status", valid}, 0},
		{"status --json", []string{"status", "--json", valid}, 0},
		{"status invalid but parseable", []string{"status", invalid}, 0},
		{"status unparseable", []string{"status", unparseable}, 1},
		{"status unparseable --json", []string{"status", "--json", unparseable}, 1},
		{"status missing file", []string{"status", missing}, 2},
		{"status bad flag", []string{"status", "-x"}, 2},
		{"status two paths", []string{"status", valid, phase}, 2},
		{"status phase loop", []string{"status", phase}, 0},
		{"gate ready", []string{"gate", testdata("seed-initial-legacy.md")}, 0},
		{"gate not ready", []string{"gate", valid}, 1},
		{"gate invalid", []string{"gate", invalid}, 1},
		{"gate unparseable", []string{"gate", unparseable}, 1},
		{"gate missing file", []string{"gate", missing}, 2},
		{"gate bad flag", []string{"gate", "--ready"}, 2},
		{"gate two paths", []string{"gate", valid, invalid}, 2},
		{"gate on a phase loop", []string{"gate", phase}, 2},
		{"unknown flag on the root", []string{"--bogus"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if code == 2 {
				if stderr == "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "aot-tui: ") {
					t.Errorf("a usage or I/O error must say why in one line on stderr, got %q", stderr)
				}
			}
		})
	}
}

// TestValidateFixtures: every hand-written case validates with the exit
// code its folder promises (statefile's tests check the findings).
func TestValidateFixtures(t *testing.T) {
	for dir, want := range map[string]int{"valid": 0, "invalid": 1} {
		for _, ext := range []string{"*.md", "*.json"} {
			files, _ := filepath.Glob(testdata(filepath.Join(dir, ext)))
			for _, f := range files {
				if code, stdout, stderr := cli(t, "validate", f); code != want {
					t.Errorf("validate %s: exit %d, want %d\n%s%s", f, code, want, stdout, stderr)
				}
			}
		}
	}
}

// TestErrorsNameFileAndLine: what a person sees for a broken file is one
// line naming the file and the line.
func TestErrorsNameFileAndLine(t *testing.T) {
	path := testdata("invalid/syntax-error.md")
	want := "state file " + path + " line 6: YAML syntax error: mapping values are not allowed in this context"

	_, _, stderr := cli(t, "status", path)
	if !strings.HasPrefix(stderr, "aot-tui: "+want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("status stderr = %q", stderr)
	}
	_, stdout, _ := cli(t, "validate", path)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 || lines[0] != path+": invalid (0 atoms, 1 error, 0 warnings)" || !strings.HasPrefix(lines[1], "error: "+want) {
		t.Errorf("validate stdout = %q", stdout)
	}
	_, stdout, _ = cli(t, "gate", path)
	if !strings.Contains(stdout, "missing: invalid: "+want) {
		t.Errorf("gate stdout = %q", stdout)
	}

	cycle := testdata("invalid/cycle.md")
	_, stdout, _ = cli(t, "validate", cycle)
	wantOut := cycle + ": invalid (5 atoms, 2 errors, 0 warnings)\n" +
		"error: line 23: circular dependency: A1 -> A2 -> A3 -> A1\n" +
		"error: line 35: circular dependency: A4 -> A4\n"
	if stdout != wantOut {
		t.Errorf("validate stdout =\n%s\nwant\n%s", stdout, wantOut)
	}

	_, _, stderr = cli(t, "validate", testdata("invalid/phase-syntax.json"))
	if stderr != "" {
		t.Errorf("validate prints its report on stdout, stderr = %q", stderr)
	}
	_, _, stderr = cli(t, "status", testdata("invalid/phase-syntax.json"))
	if !strings.Contains(stderr, "phase-syntax.json line 4 column 3: JSON syntax error") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("status stderr = %q", stderr)
	}
}

func TestValidatePhaseLoopSaysWhatItIs(t *testing.T) {
	path := testdata("seed-phase-loop.json")
	_, stdout, _ := cli(t, "validate", path)
	if want := path + ": valid (phase loop in phase work, 0 errors, 0 warnings)\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if strings.Contains(stdout, "atoms") {
		t.Error("a phase loop has no atoms to count")
	}
}

func decodeObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, s)
	}
	return m
}

func keysOf(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func sameKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := keysOf(m); !slices.Equal(got, want) {
		t.Errorf("%s keys =\n  %v\nwant\n  %v", what, got, want)
	}
}

// readStateKeys are the keys of the seed's read_state.py output.
var readStateKeys = []string{"exists", "status", "iteration", "stall_count", "stop_requested", "redirect_requested",
	"stop_reason", "atoms", "executable_atoms", "bindings", "summary"}

func TestStatusJSONKeys(t *testing.T) {
	code, stdout, _ := cli(t, "status", "--json", testdata("seed-complete.md"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	m := decodeObject(t, stdout)
	ours := []string{"kind", "path", "goal", "max_iterations", "max_stall_count", "max_parallel_agents", "prev_pending_count",
		"unresolved", "progress", "next_batch", "longest_chain", "outlook", "gone_in_progress", "valid", "errors", "warnings", "activity"}
	sameKeys(t, "status", m, append(slices.Clone(readStateKeys), ours...)...)
	sameKeys(t, "summary", m["summary"].(map[string]any), "total", "pending", "in_progress", "resolved", "executable")
	sameKeys(t, "outlook", m["outlook"].(map[string]any), "decision", "text", "warning", "next_stall")

	atoms := m["atoms"].([]any)
	if len(atoms) != 5 {
		t.Fatalf("%d atoms", len(atoms))
	}
	sameKeys(t, "atoms[0]", atoms[0].(map[string]any), "id", "description", "status", "depends_on")
	sameKeys(t, "atoms[3] (in an OR group)", atoms[3].(map[string]any), "id", "description", "status", "depends_on", "or_group")
	bindings := m["bindings"].(map[string]any)
	sameKeys(t, "bindings", bindings, "A1", "A3")
	sameKeys(t, "bindings.A1", bindings["A1"].(map[string]any), "summary", "artifacts")

	// The values read_state.py would give for the same file, and ours.
	want := map[string]any{
		"exists": true, "status": "running", "iteration": 5.0, "stall_count": 0.0, "stop_requested": false,
		"redirect_requested": false, "stop_reason": nil, "executable_atoms": []any{},
		"kind": "aot-loop", "progress": "stalled", "unresolved": 3.0, "next_batch": []any{}, "longest_chain": []any{"A4", "A5"},
		"valid": true, "errors": []any{}, "gone_in_progress": []any{},
	}
	for k, v := range want {
		if got, _ := json.Marshal(m[k]); string(got) != mustJSON(v) {
			t.Errorf("%s = %s, want %s", k, got, mustJSON(v))
		}
	}
	if s := m["summary"].(map[string]any); s["total"] != 5.0 || s["pending"] != 2.0 || s["in_progress"] != 1.0 || s["resolved"] != 2.0 || s["executable"] != 0.0 {
		t.Errorf("summary = %v", s)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestStatusJSONInitial(t *testing.T) {
	_, stdout, _ := cli(t, "status", "--json", testdata("seed-initial-checklist.md"))
	m := decodeObject(t, stdout)
	exec := m["executable_atoms"].([]any)
	if len(exec) != 1 || exec[0].(map[string]any)["id"] != "A1" || m["progress"] != "first" || m["bindings"] == nil {
		t.Errorf("status = %s", stdout)
	}
	if s := m["summary"].(map[string]any); s["executable"] != 1.0 {
		t.Errorf("summary = %v", s)
	}
}

func TestStatusJSONPhaseLoop(t *testing.T) {
	path := testdata("seed-phase-loop.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file := decodeObject(t, string(raw))
	_, stdout, _ := cli(t, "status", "--json", path)
	m := decodeObject(t, stdout)
	ours := []string{"kind", "path", "exists", "phases_remaining", "shipped", "valid", "validation_errors", "validation_warnings"}
	sameKeys(t, "phase loop status", m, append(keysOf(file), ours...)...)
	if m["kind"] != "phase-loop" {
		t.Errorf("kind = %v", m["kind"])
	}
	// The file's own fields, values included, come through unchanged.
	for k, v := range file {
		if mustJSON(m[k]) != mustJSON(v) {
			t.Errorf("%s = %s, the file says %s", k, mustJSON(m[k]), mustJSON(v))
		}
	}

	// The file's "errors" (the loop's recorded errors) are not the
	// validation findings.
	dir := t.TempDir()
	p := writeFile(t, dir, "loop.json", `{"version": 2, "phase": "deploy", "phase_iteration": 1, "global_iteration": 2,
  "errors": [{"phase": "work", "message": "tests failed", "iteration": 2, "timestamp": "t"}], "owner": "me"}`)
	_, stdout, _ = cli(t, "status", "--json", p)
	m = decodeObject(t, stdout)
	errs, _ := m["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["message"] != "tests failed" {
		t.Errorf("errors = %v", m["errors"])
	}
	if v := m["validation_errors"].([]any); len(v) != 1 || !strings.Contains(v[0].(string), `phase "deploy" is not a phase`) || m["valid"] != false {
		t.Errorf("validation_errors = %v", m["validation_errors"])
	}
	if m["owner"] != "me" {
		t.Errorf("unknown field lost: %v", m)
	}
}

func TestStatusJSONUnparseable(t *testing.T) {
	path := testdata("invalid/syntax-error.md")
	code, stdout, _ := cli(t, "status", "--json", path)
	m := decodeObject(t, stdout)
	sameKeys(t, "status of an unparseable file", m, "exists", "kind", "path", "error")
	if code != 1 || m["exists"] != true || !strings.Contains(m["error"].(string), "line 6") {
		t.Errorf("exit %d, %v", code, m)
	}
}

func TestValidateAndGateJSONKeys(t *testing.T) {
	for _, f := range []string{"seed-complete.md", "invalid/cycle.md", "invalid/syntax-error.md", "seed-phase-loop.json"} {
		_, stdout, _ := cli(t, "validate", "--json", testdata(f))
		m := decodeObject(t, stdout)
		sameKeys(t, "validate "+f, m, "valid", "errors", "warnings", "atom_count", "problems")
		if _, stdout2, _ := cli(t, "validate", testdata(f), "--json"); stdout2 != stdout {
			t.Errorf("validate FILE --json differs from validate --json FILE")
		}
	}
	_, stdout, _ := cli(t, "validate", "--json", testdata("invalid/cycle.md"))
	m := decodeObject(t, stdout)
	p := m["problems"].([]any)[0].(map[string]any)
	sameKeys(t, "problem", p, "severity", "line", "path", "message")
	if p["line"] != 23.0 || p["severity"] != "error" || m["atom_count"] != 5.0 {
		t.Errorf("validate --json = %s", stdout)
	}

	for _, f := range []string{"seed-complete.md", "seed-initial-legacy.md", "invalid/syntax-error.md"} {
		_, stdout, _ := cli(t, "gate", testdata(f), "--json")
		m := decodeObject(t, stdout)
		sameKeys(t, "gate "+f, m, "ready", "missing", "status", "validation")
	}
	_, stdout, _ = cli(t, "gate", "--json", testdata("seed-complete.md"))
	m = decodeObject(t, stdout)
	if m["ready"] != false || m["status"] != "running" || mustJSON(m["missing"]) != `["control.status must be 'pending' or 'stopped', got 'running'"]` {
		t.Errorf("gate = %s", stdout)
	}
}

// TestFlagsAfterPositionals: flags may come before or after the path.
func TestFlagsAfterPositionals(t *testing.T) {
	path := testdata("seed-complete.md")
	_, before, _ := cli(t, "status", "--json", path)
	for _, args := range [][]string{
		{"status", path, "--json"},
		{"status", path, "--json", "-f", path},
		{"status", "-f", path, "--json"},
		{"status", "--json", "--file", path},
		{"status", "--json", "--file=" + path},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != 0 || stdout != before {
			t.Errorf("%v: exit %d, stderr %q, output differs: %v", args, code, stderr, stdout != before)
		}
	}
	if code, stdout, _ := cli(t, "gate", testdata("seed-initial-legacy.md"), "--json"); code != 0 || !strings.Contains(stdout, `"ready": true`) {
		t.Errorf("gate FILE --json: exit %d %s", code, stdout)
	}
}

func TestDirectoryDiscovery(t *testing.T) {
	seed, err := os.ReadFile(testdata("seed-complete.md"))
	if err != nil {
		t.Fatal(err)
	}
	phase, err := os.ReadFile(testdata("seed-phase-loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	aot := t.TempDir()
	writeFile(t, aot, ".claude/aot-loop-state.md", string(seed))
	writeFile(t, aot, ".claude/autonomous-loop.json", string(phase)) // the AoT file wins
	onlyPhase := t.TempDir()
	writeFile(t, onlyPhase, ".claude/autonomous-loop.json", string(phase))
	empty := t.TempDir()

	check := func(name string, args []string, wantCode int, wantKind, wantPath string) {
		t.Helper()
		code, stdout, stderr := cli(t, args...)
		if code != wantCode {
			t.Fatalf("%s: exit %d, want %d (%s)", name, code, wantCode, stderr)
		}
		if wantCode != 0 {
			return
		}
		m := decodeObject(t, stdout)
		if m["kind"] != wantKind || m["path"] != wantPath {
			t.Errorf("%s: kind %v path %v, want %s %s", name, m["kind"], m["path"], wantKind, wantPath)
		}
	}
	aotFile := filepath.Join(aot, ".claude", "aot-loop-state.md")
	phaseFile := filepath.Join(onlyPhase, ".claude", "autonomous-loop.json")
	check("dir with both", []string{"status", "--json", "-f", aot}, 0, "aot-loop", aotFile)
	check("dir as positional", []string{"status", aot, "--json"}, 0, "aot-loop", aotFile)
	check("dir with only the phase loop", []string{"status", "--json", "-f", onlyPhase}, 0, "phase-loop", phaseFile)
	check("the .claude directory itself", []string{"status", "--json", "-f", filepath.Join(onlyPhase, ".claude")}, 0, "phase-loop", phaseFile)

	code, _, stderr := cli(t, "status", "-f", empty)
	if code != 2 || !strings.Contains(stderr, ".claude/aot-loop-state.md") || !strings.Contains(stderr, ".claude/autonomous-loop.json") ||
		!strings.Contains(stderr, empty) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("empty dir: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := cli(t, "validate", empty); code != 2 {
		t.Errorf("validate on an empty dir: exit %d", code)
	}

	// The default is the current directory.
	t.Chdir(onlyPhase)
	check("current directory", []string{"status", "--json"}, 0, "phase-loop", filepath.Join(".claude", "autonomous-loop.json"))
	if code, stdout, _ := cli(t, "validate"); code != 0 || !strings.Contains(stdout, "phase loop in phase work") {
		t.Errorf("validate in the current directory: exit %d %q", code, stdout)
	}
	t.Chdir(empty)
	if code, _, _ := cli(t, "gate"); code != 2 {
		t.Errorf("gate in an empty current directory: exit %d", code)
	}
}

func TestHelpEverywhere(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"status", "--help"}, {"validate", "--help"}, {"gate", "--help"},
		{"help", "status"}, {"help", "validate"}, {"help", "gate"},
		{"validate", "somefile.md", "--help"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != 0 || !strings.Contains(stdout, "Usage:") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %.60q, stderr %q", args, code, stdout, stderr)
		}
	}
	_, stdout, _ := cli(t, "validate", "--help")
	if !strings.Contains(stdout, "Exit codes: 0 valid, 1 invalid") || !strings.Contains(stdout, "--json") || !strings.Contains(stdout, "-f, --file") {
		t.Errorf("validate --help = %s", stdout)
	}
}

// The help of every command that writes says how writes replace the file
// on this system (statefile.ExchangeNote), as the root's does: an exchange
// where there is one, else the rename and what it can lose — never the
// exchange on a system without it.
func TestWriteHelpSaysHowThisSystemWrites(t *testing.T) {
	note := statefile.ExchangeNote()
	for _, args := range [][]string{{"--help"}, {"redirect", "--help"}, {"stop", "--help"}} {
		code, stdout, stderr := cli(t, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if !strings.Contains(stdout, note) {
			t.Errorf("%v does not say how writes replace the file here (%q):\n%s", args, note, stdout)
		}
		if !statefile.HasExchange() && strings.Contains(stdout, "exchange)") {
			t.Errorf("%v claims an exchange on %s:\n%s", args, runtime.GOOS, stdout)
		}
	}
}

func TestStatusHumanOutput(t *testing.T) {
	path := testdata("seed-complete.md")
	_, stdout, _ := cli(t, "status", path)
	for _, want := range []string{
		"AoT loop · " + path,
		"status    ▶ running",
		"goal      Implement authentication feature",
		"iteration 5/20 ",
		"stall     0/3 ",
		"progress  → stalled (unresolved 3, previous 3)",
		"atoms     5 total · 2 pending · 1 in progress · 2 resolved",
		"next      none executable",
		// The seed's inline comment after status: running ends the loop
		// for the plugin's stop hook (testdata/looptools/plugin.json).
		"outlook   ⚠ the stop hook reads control.status as 'running   # …' (inline comment, line 65): the loop will end",
		"checks    0 errors, 5 warnings",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status output lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = cli(t, "status", testdata("seed-phase-loop.json"))
	for _, want := range []string{"phase loop · ", "phase     work (5 of 11)", "✓ deepen  ▶ work  · review", "errors    none"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("phase status lacks %q:\n%s", want, stdout)
		}
	}
}

// TestTerminalSafety: text from the file cannot reach the terminal raw.
func TestTerminalSafety(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.md", "---\nobjective:\n  goal: \"evil \\e]0;title\\a \\e[2J\"\ncontrol: {status: running}\natoms:\n  - {id: \"A\\e[31m1\", description: \"x\", status: pending, depends_on: []}\n---\n")
	for _, cmd := range []string{"status", "validate", "gate"} {
		_, stdout, stderr := cli(t, cmd, p)
		if strings.ContainsRune(stdout+stderr, 0x1b) || strings.ContainsRune(stdout+stderr, 0x07) {
			t.Errorf("%s emitted a control character: %q", cmd, stdout)
		}
	}
}

// Usage errors are one line that names the command, what it takes and
// where its help is, and exit 2; nothing is written.
func TestUsageErrorsNameTheCommand(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "s.md", mustRead(t, testdata("seed-complete.md")))
	before := mustRead(t, path)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"redirect", "bogus"}, []string{`redirect: unknown command "bogus"`, "add-atom", "see aot-tui redirect --help"}},
		{[]string{"redirect"}, []string{"redirect needs a command", "override-binding"}},
		{[]string{"validate", "--bogus"}, []string{"aot-tui: validate: unknown flag: --bogus (see aot-tui validate --help)"}},
		{[]string{"redirect", "add-atom", "-f", path}, []string{"redirect add-atom: requires at least 1 arg", "usage: aot-tui redirect add-atom DESCRIPTION", "see aot-tui redirect add-atom --help"}},
		{[]string{"status", "a", "b"}, []string{"status: accepts at most 1 arg", "usage: aot-tui status [PATH]"}},
		{[]string{"redirect", "constraints", path}, []string{"redirect constraints: takes no arguments", "give the state file with -f PATH"}},
	} {
		code, _, stderr := cli(t, tt.args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Count(stderr, "aot-tui:") != 1 {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, stderr, w)
			}
		}
	}
	if got := mustRead(t, path); got != before {
		t.Fatal("a usage error changed the file")
	}
	// stop takes the state file as PATH too, like status.
	code, stdout, stderr := cli(t, "stop", path, "--dry-run")
	if code != exitOK || !strings.Contains(stdout, "+  stop_requested: true") {
		t.Fatalf("stop PATH --dry-run: exit %d\n%s%s", code, stdout, stderr)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
