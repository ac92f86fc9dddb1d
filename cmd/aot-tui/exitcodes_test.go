package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// runningLoop is a running loop's state file in the seed template's
// layout: goal "Ship", checked by the command check; iteration iteration,
// prevPending atoms unresolved at the last; A1 resolved with a binding,
// then atoms and or_groups (the text of their entries); no trail or
// corrections yet.
func runningLoop(check string, iteration, prevPending int, atoms, orGroups string) string {
	return fmt.Sprintf(`---
objective:
  goal: "Ship"
  base_case:
    type: command
    value: %q
  background_intent: "why"
  deliverables: "what"
  definition_of_done: "when"
  constraints:
    max_iterations: 20
    max_parallel_agents: 3
    max_stall_count: 3
control:
  status: running
  iteration: %d
  stall_count: 0
  prev_pending_count: %d
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
  - id: A1
    description: "Schema"
    status: resolved
    depends_on: []
%sor_groups:
%sbindings:
  A1:
    summary: "done"
    artifacts: []
trail: []
corrections: []
---

# Original Prompt
`, check, iteration, prevPending, atoms, orGroups)
}

// exitState is a valid running loop every command can act on: A1
// resolved with a binding, OR group g selecting the pending A2 over A3, a
// base_case that passes (verify runs it).
var exitState = runningLoop("true", 2, 2, `  - id: A2
    description: "One way"
    status: pending
    depends_on: [A1]
    or_group: g
  - id: A3
    description: "The other way"
    status: pending
    depends_on: [A1]
    or_group: g
`, `  g:
    choices: [A2, A3]
    selected: A2
    failed: []
`)

// exitCauses are the causes of the exit-code table, each a way to make the
// file (or the command line) of one run; "" keeps the file as it is.
var exitCauses = []struct {
	name string
	// file is what to write at the state path (nil: nothing, it is missing).
	file func() []byte
	// extra are arguments added to the command line.
	extra []string
	// phase: the file is a phase loop's (.json).
	phase bool
	// rewrite: the file is rewritten, cut short, for as long as the
	// command runs (a loop script caught in the middle of its write_text,
	// again and again).
	rewrite bool
}{
	{name: "ok", file: func() []byte { return []byte(exitState) }},
	{name: "missing file", file: nil},
	{name: "over --max-size", file: func() []byte { return []byte(exitState) }, extra: []string{"--max-size", "100"}},
	{name: "does not parse", file: func() []byte {
		return []byte(strings.Replace(exitState, "  goal: \"Ship\"", "  goal: [\"Ship\"", 1))
	}},
	{name: "breaks the contract", file: func() []byte {
		// A cycle: A1 depends on A3, which depends on A1.
		return []byte(strings.Replace(exitState, "    depends_on: []\n  - id: A2", "    depends_on: [A3]\n  - id: A2", 1))
	}},
	{name: "YAML it cannot rewrite", file: func() []byte {
		return []byte(strings.Replace(exitState, "trail: []\ncorrections: []", "trail: &none []\ncorrections: *none", 1))
	}},
	{name: "bad flag", file: func() []byte { return []byte(exitState) }, extra: []string{"--bogus"}},
	{name: "phase loop", phase: true},
	{name: "kept changing", file: func() []byte { return []byte(exitState) }, rewrite: true},
	{name: "not the previewed version", file: func() []byte { return []byte(exitState) }, extra: []string{"--expect-sha256", strings.Repeat("0", 64)}},
}

// exitCommands are the commands of the table, with the code each cause
// gives. A verdict (validate, gate) is printed on stdout: its stderr is
// empty; every other failure is one line on stderr naming the file.
var exitCommands = []struct {
	name  string
	args  []string
	codes map[string]int
	// verdict lists the causes whose report is the command's output.
	verdict []string
}{
	{"status", []string{"status"}, map[string]int{"does not parse": 1}, nil},
	{"validate", []string{"validate"}, map[string]int{"does not parse": 1, "breaks the contract": 1}, []string{"does not parse", "breaks the contract"}},
	// The loop is running: gate's verdict is "not ready" (1) on a good file.
	{"gate", []string{"gate"}, map[string]int{"ok": 1, "does not parse": 1, "breaks the contract": 1, "YAML it cannot rewrite": 1, "phase loop": 2},
		[]string{"ok", "does not parse", "breaks the contract", "YAML it cannot rewrite"}},
	{"verify", []string{"verify", "--yes"}, map[string]int{"does not parse": 1, "phase loop": 2}, nil},
	{"report", []string{"report", "--no-journal"}, map[string]int{"does not parse": 1, "phase loop": 2}, nil},
	{"add-atom", []string{"redirect", "add-atom", "x", "--guard", "0"}, writerCodes(1), nil},
	{"delete-atom", []string{"redirect", "delete-atom", "A3", "--guard", "0"}, writerCodes(1), nil},
	{"force-or", []string{"redirect", "force-or", "g", "A3", "--guard", "0"}, writerCodes(1), nil},
	{"constraints", []string{"redirect", "constraints", "--max-iterations", "9", "--guard", "0"}, writerCodes(1), nil},
	{"objective", []string{"redirect", "objective", "--goal", "new", "--guard", "0"}, writerCodes(1), nil},
	{"override-binding", []string{"redirect", "override-binding", "A1", "--summary", "s", "--guard", "0"}, writerCodes(1), nil},
	// A stop is written on an invalid file, and touches no corrections[].
	{"stop", []string{"stop", "--guard", "0"}, writerCodes(0), nil},
}

// writerCodes are the codes of a command that writes a correction; onInvalid
// is its code on a file that breaks the contract or holds YAML it cannot
// rewrite (a stop writes there).
func writerCodes(onInvalid int) map[string]int {
	return map[string]int{"does not parse": 1, "breaks the contract": onInvalid, "YAML it cannot rewrite": onInvalid,
		"phase loop": 2, "kept changing": 3, "not the previewed version": 4}
}

// TestExitCodeTable runs the built binary for every command × cause and
// checks the code — one per cause, whichever command meets it: the file
// missing or over --max-size and a bad flag are 2, a file that does not
// parse is 1, one that breaks the contract is 1 where the command needs a
// valid file, a file that kept changing is 3, a file that is not the
// version --expect-sha256 names is 4 — and that stderr is one line
// naming the file (the command, for a bad flag), or empty for a verdict
// printed on stdout (naming the file there).
func TestExitCodeTable(t *testing.T) {
	bin := binary(t)
	common := map[string]int{"ok": 0, "missing file": 2, "over --max-size": 2, "bad flag": 2, "phase loop": 0,
		"breaks the contract": 0, "YAML it cannot rewrite": 0}
	for _, c := range exitCommands {
		for _, cause := range exitCauses {
			want, ok := c.codes[cause.name]
			if !ok {
				want, ok = common[cause.name]
			}
			if !ok {
				continue // the cause does not apply to the command
			}
			t.Run(c.name+"/"+cause.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, ".claude", "aot-loop-state.md")
				var data []byte
				switch {
				case cause.phase:
					path = filepath.Join(dir, ".claude", "autonomous-loop.json")
					var err error
					if data, err = os.ReadFile(testdata("seed-phase-loop.json")); err != nil {
						t.Fatal(err)
					}
				case cause.file != nil:
					data = cause.file()
				}
				if data != nil {
					writeFile(t, dir, strings.TrimPrefix(path, dir+string(filepath.Separator)), string(data))
				}
				args := append(append(append([]string{}, c.args...), "-f", path), cause.extra...)
				if cause.rewrite {
					stop := rewriteCutShort(t, path, data)
					defer stop()
				}
				code, stdout, stderr := runBin(t, bin, args...)
				if code != want {
					t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, want, stdout, stderr)
				}
				if code == 0 {
					return
				}
				verdict := false
				for _, v := range c.verdict {
					verdict = verdict || v == cause.name
				}
				name := path
				if cause.name == "bad flag" {
					name = c.name // nothing is read: the command is named
				}
				switch {
				case verdict && (stderr != "" || !strings.Contains(stdout, name)):
					t.Fatalf("a verdict: stderr %q, want it empty and stdout naming %s:\n%s", stderr, name, stdout)
				case !verdict && (strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "aot-tui: ") || !strings.Contains(stderr, name)):
					t.Fatalf("stderr %q: want one line naming %s", stderr, name)
				}
				if data != nil && !cause.rewrite {
					if got, _ := os.ReadFile(path); string(got) != string(data) {
						t.Fatalf("exit %d, and the file changed", code)
					}
				}
			})
		}
	}
}

// rewriteCutShort rewrites path with data cut short, over and over, until
// the returned function is called.
func rewriteCutShort(t *testing.T, path string, data []byte) func() {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if err := os.WriteFile(path, data[:len(data)/2+i%101], 0o644); err != nil {
				panic(fmt.Sprint("rewriting the file: ", err))
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// A journal that holds no version that can be read is a file that does not
// parse (1) for replay and report alike; a missing one is 2.
func TestExitCodesOfJournals(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	garbage := writeFile(t, dir, "aot-loop-state.history.jsonl", "{\"v\":1,\"sha\":\"x\"}\nnot json\n")
	missing := filepath.Join(dir, "none.history.jsonl")
	for _, c := range []struct {
		args []string
		path string
		want int
	}{
		{[]string{"replay", garbage}, garbage, 1},
		{[]string{"report", "--journal", garbage}, garbage, 1},
		{[]string{"replay", missing}, missing, 2},
		{[]string{"report", "--journal", missing}, missing, 2},
	} {
		code, stdout, stderr := runBin(t, bin, c.args...)
		if code != c.want || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.path) {
			t.Errorf("%v: exit %d, want %d; stderr %q (one line naming %s)\n%s", c.args, code, c.want, stderr, c.path, stdout)
		}
	}
}
