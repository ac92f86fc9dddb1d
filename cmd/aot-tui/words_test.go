package main

import (
	"os"
	"strings"
	"testing"
)

// Tests of words the CLI says that misled a new user (issue 23, items 6
// and 14).

// A stopped loop runs nothing next: status says so instead of listing
// the executable atoms as next.
func TestStatusOfAStoppedLoopHasNoNext(t *testing.T) {
	data, err := os.ReadFile(testdata("rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	running := writeFile(t, dir, "running.md", string(data))
	stopped := writeFile(t, dir, "stopped.md", strings.Replace(string(data), "  status: running", "  status: stopped", 1))
	if _, out, _ := cli(t, "status", running); !strings.Contains(out, "next      ▶ A5") {
		t.Fatalf("a running loop's status names no next atom:\n%s", out)
	}
	_, out, _ := cli(t, "status", stopped)
	if !strings.Contains(out, "next      none: the loop is stopped\n") || strings.Contains(out, "▶ A5") {
		t.Fatalf("a stopped loop's status:\n%s", out)
	}
}

// An unknown check type is a bad flag value: exit 2, naming the types
// there are, not a rule about checklist positions.
func TestObjectiveTypeNamesTheTypes(t *testing.T) {
	path := loopFixture(t)
	before := mustRead(t, path)
	code, _, stderr := cli(t, "redirect", "objective", "--type", "bogus", "--value", "x", "-f", path)
	if code != exitUsage || !strings.Contains(stderr, `--type "bogus" is not a check type: give one of command, file, not_command, not_file, assertion, quality`) ||
		strings.Contains(stderr, "positions") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if mustRead(t, path) != before {
		t.Fatal("the file changed")
	}
}

// "Nothing to change" is one cause with one exit code whichever redirect
// command meets it: 1, a correction refused under the rule "a correction
// changes something", the file untouched — whether no value was given or
// the values are those the file has.
func TestNothingToChangeIsOneExitCode(t *testing.T) {
	for _, args := range [][]string{
		{"redirect", "constraints"},
		{"redirect", "constraints", "--max-iterations", "20"},
		{"redirect", "objective"},
		{"redirect", "objective", "--goal", "Ship the billing service with retries and an audit log"},
		{"redirect", "override-binding", "A1"},
		{"redirect", "force-or", "audit_store", "A5"},
	} {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			path := loopFixture(t)
			before := mustRead(t, path)
			code, _, stderr := cli(t, append(args, "-f", path, "--guard", "0")...)
			if code != exitInvalid || !strings.Contains(stderr, "(rule: a correction changes something)") {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitInvalid, stderr)
			}
			if mustRead(t, path) != before {
				t.Fatal("the file changed")
			}
		})
	}
}
