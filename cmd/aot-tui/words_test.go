package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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

// Atom ids are taken in any case wherever the CLI takes them, as the TUI's
// ':' jump takes them, and written as the file spells them; an id that
// names no atom is refused with the atoms there are.
func TestAtomIDsInAnyCase(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	for _, c := range correctionCases {
		var args []string
		switch c.name {
		case "add-atom": // --depends-on A2
			args = []string{"redirect", "add-atom", "Write the runbook", "--depends-on", "a2"}
		case "delete-atom": // A8
			args = []string{"redirect", "delete-atom", "a8"}
		case "force-or": // audit_store A6
			args = []string{"redirect", "force-or", "audit_store", "a6", "--reason", "S3 has object lock now"}
		case "override-binding": // A3
			args = []string{"redirect", "override-binding", "a3", "--summary", "Backoff 50ms doubling to 10s", "--artifacts", "internal/billing/retry.go"}
		default:
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			path := loopFixture(t)
			if code, out, errs := cli(t, append(args, "-f", path, "--guard", "0")...); code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errs)
			}
			want, err := os.ReadFile(testdata(filepath.Join("corrections", c.name+".golden")))
			if err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, path); got != string(want) {
				t.Fatalf("%v wrote other bytes than %v (the golden)", args, c.args)
			}
		})
	}
	path := loopFixture(t)
	code, _, stderr := cli(t, "redirect", "delete-atom", "b8", "-f", path)
	if code != exitInvalid || !strings.Contains(stderr, "no atom b8 (atoms: A1, A2, A3, A4, A5, A6, A7, A8)") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Every command says what it is in a line (Short, for the command list)
// and at length (Long, for its --help and man page); every redirect
// command's help says what it writes: the corrections[] entry.
func TestEveryCommandHasShortAndLong(t *testing.T) {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		n++
		if strings.TrimSpace(c.Short) == "" || strings.TrimSpace(c.Long) == "" {
			t.Errorf("%s has no Short or no Long (--help says nothing of it)", c.CommandPath())
		}
		redirect := c.Parent() != nil && c.Parent().Name() == "redirect"
		if redirect && (!strings.Contains(c.Long, "Writes ") || !strings.Contains(c.Long, "corrections[] entry")) {
			t.Errorf("%s --help does not say what it writes", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 20 {
		t.Fatalf("walked %d commands: the tree is not all there", n)
	}
}

// The diff --dry-run prints (and the TUI's preview shows, from the same
// statefile.UnifiedDiff) for each correction of correctionCases, against
// testdata/corrections/NAME.diff (-update-corrections rewrites them). The
// force-OR's added corrections[] entry shows whole: not the previous
// entry's last line and the new one but its last.
func TestCorrectionDiffGoldens(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	for _, c := range correctionCases {
		t.Run(c.name, func(t *testing.T) {
			path := loopFixture(t)
			code, out, errs := cli(t, append(c.args, "--dry-run", "-f", path)...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errs)
			}
			out = strings.ReplaceAll(out, path, "aot-loop-state.md")
			golden := testdata(filepath.Join("corrections", c.name+".diff"))
			if *updateCorrections {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-corrections to create it)", err)
			}
			if out != string(want) {
				t.Fatalf("the diff:\n%s\nwant (%s):\n%s", out, golden, want)
			}
		})
	}
}

// demo --help and the README say how long the demo lasts as the
// simulator's script paces it (sim's TestDemoLastsAboutAMinute measures
// it: 60–72 s at speed 1), not "about two minutes".
func TestDemoHelpSaysHowLongItLasts(t *testing.T) {
	_, out, _ := cli(t, "demo", "--help")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "lasts about a minute (72 s with the default --seed") || strings.Contains(out, "minutes") {
		t.Fatalf("demo --help:\n%s", out)
	}
	readme := mustRead(t, filepath.Join("..", "..", "README.md"))
	if !strings.Contains(readme, "demo loop (about a minute; q quits)") || strings.Contains(readme, "about two minutes") {
		t.Fatal("README.md does not say the demo lasts about a minute")
	}
}
