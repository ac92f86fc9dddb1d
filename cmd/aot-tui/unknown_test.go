package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownCommands: a bare word that names nothing here, in the
// command position, is an unknown command (exit 2, one line), with the
// commands it is close to; flags around it do not change that.
func TestUnknownCommands(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stats"}, `unknown command "stats" (did you mean status?)`},
		{[]string{"verfy"}, `unknown command "verfy" (did you mean verify?)`},
		{[]string{"stauts"}, `unknown command "stauts" (did you mean status?)`}, // two letters swapped
		{[]string{"Status"}, `unknown command "Status" (did you mean status?)`},
		{[]string{"hlep"}, `unknown command "hlep" (did you mean help?)`},
		{[]string{"complete"}, `unknown command "complete" (did you mean completion?)`},
		{[]string{"re"}, `unknown command "re" (did you mean replay, report or redirect?)`},
		{[]string{"verison"}, `unknown command "verison" (did you mean version?)`},
		{[]string{"myloop"}, `unknown command "myloop"; to watch a loop that does not exist yet give a path: ./myloop (see aot-tui --help)`},
		{[]string{"stats", "--json"}, `unknown command "stats" (did you mean status?)`},
		{[]string{"stats", "--nope"}, `unknown command "stats" (did you mean status?)`},
		{[]string{"--read-only", "stats"}, `unknown command "stats" (did you mean status?)`},
		// With --scan the arguments are directories: a missing one is
		// refused as such, naming the command a bare word may be a slip for.
		{[]string{"--scan", "stats"}, `--scan stats: no such directory (or a mistyped command: did you mean status?)`},
		{[]string{"--scan", "nosuchdir"}, `--scan nosuchdir: no such directory`},
		{[]string{"--scan", "./nosuchdir"}, `--scan ./nosuchdir: no such directory`},
		{[]string{"--scan", ".", "nosuchdir"}, `--scan nosuchdir: no such directory`},
		{[]string{"--scan", "nosuchdir", "--nope"}, `unknown flag: --nope (see aot-tui --help)`},
		{[]string{"status", "--scan", "stats"}, `--scan stats: no such directory`},
		{[]string{".", "stats"}, `"stats" does not exist; to watch a loop that does not exist yet give a path: ./stats`},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitUsage || stdout != "" || stderr != "aot-tui: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestLooksLikePath: what the TUI takes as a path even when nothing is
// there yet.
func TestLooksLikePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("stats", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("notes", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]bool{
		"./foo": true, "foo/": true, "a/b": true, `a\b`: true, "loop.md": true, ".": true, "..": true,
		filepath.Join(dir, "x"): true,
		"stats":                 true, // a directory that exists
		"notes":                 true, // a file that exists
		"foo":                   false, "verfy": false, "status-x": false,
	} {
		if got := looksLikePath(arg); got != want {
			t.Errorf("looksLikePath(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"stats", "status", 1}, {"stauts", "status", 1}, {"verfy", "verify", 1},
		{"gate", "git", 2}, {"abc", "", 3}, {"état", "etat", 1}, {"ca", "abc", 3},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestE2EMistypedCommandEndsAtOnce: `aot-tui stats` in a terminal prints
// the suggestion and exits 2; it never opens a TUI waiting for
// stats/.claude/aot-loop-state.md.
func TestE2EMistypedCommandEndsAtOnce(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	// The shell after it says how it ended: tmux may lose the output of a
	// program that ends this quickly.
	s := startTmux(t, 100, 20, nil, "cd", dir, "&&", bin, "stats;", "echo", "exit=$?;", "sleep", "60")
	s.waitFor(`aot-tui: unknown command "stats" (did you mean status?)`, "exit=2")
}

// TestE2EPathsAreWaitedFor: a PATH that looks like a path, a directory
// that exists, and -f are waited for, and the waiting screen says how to
// quit; q quits.
func TestE2EPathsAreWaitedFor(t *testing.T) {
	bin := binary(t)
	for _, args := range [][]string{{"./stats"}, {"stats"}, {"-f", "stats"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			if args[0] == "stats" {
				if err := os.Mkdir(filepath.Join(dir, "stats"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The shell after it says how it ended (tmux's own record of a
			// dead pane's status is sometimes never filled in).
			cmd := append(append([]string{bin}, args...), ";", "echo", "exit=$?;", "sleep", "60")
			s := startTmux(t, 120, 20, []string{"cd", dir, "&&", "NO_COLOR=1"}, cmd...)
			s.waitFor("waiting for stats/.claude/aot-loop-state.md", "/align-goal; q quits")
			s.send("q")
			s.waitFor("exit=0")
		})
	}
}

// TestRedirectUnknownCommand: a word after redirect that is a slip for
// one of its commands is named as such, like a mistyped command at the
// top; a word close to none lists them all.
func TestRedirectUnknownCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"redirect", "ad-atom"}, `redirect: unknown command "ad-atom" (did you mean add-atom?)`},
		{[]string{"redirect", "Objectiv"}, `redirect: unknown command "Objectiv" (did you mean objective?)`},
		{[]string{"redirect", "override"}, `redirect: unknown command "override" (did you mean override-binding?)`},
		{[]string{"redirect", "bogus"}, `redirect: unknown command "bogus" — one of add-atom, constraints, delete-atom, force-or, objective, override-binding, undo (see aot-tui redirect --help)`},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitUsage || stdout != "" || stderr != "aot-tui: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestRedirectUsageShowsInterrupt: the redirect commands that take
// --interrupt (add-atom, delete-atom, force-or, override-binding, undo) say so
// on the usage line of their --help, as the README's synopsis does; the
// others do not.
func TestRedirectUsageShowsInterrupt(t *testing.T) {
	redirect, _, err := newRootCmd(io.Discard, io.Discard).Find([]string{"redirect"})
	if err != nil {
		t.Fatal(err)
	}
	takes := 0
	for _, c := range redirect.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		code, stdout, stderr := cli(t, "redirect", c.Name(), "--help")
		_, rest, _ := strings.Cut(stdout, "Usage:\n  ")
		usage, _, _ := strings.Cut(rest, "\n")
		has := c.Flags().Lookup("interrupt") != nil
		if has {
			takes++
		}
		if code != 0 || stderr != "" || !strings.HasPrefix(usage, "aot-tui redirect "+c.Name()+" ") || strings.Contains(usage, " [--interrupt]") != has {
			t.Errorf("redirect %s --help: exit %d, stderr %q, usage line %q; want [--interrupt] in it: %v", c.Name(), code, stderr, usage, has)
		}
	}
	if takes != 5 {
		t.Errorf("%d redirect commands take --interrupt, want 5", takes)
	}
}
