package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/verify"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

func newVerifyCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON, yes bool
	timeout := timeoutFlag{d: verify.DefaultTimeout}
	cmd := &cobra.Command{
		Use:   "verify [PATH] [-f PATH] [--json] [--timeout D] [--yes]",
		Short: "Run the base_case's checks now: does the objective really hold?",
		Long: `Runs the objective's base_case as the loop's own verify_checklist.py does, and
prints each item with pass, fail or not checkable, then the overall result.

command and not_command checks run through /bin/sh -c in the loop's project
directory (the one holding .claude/), one at a time, each with a timeout
(--timeout, 120s by default, as the script's): a command passes on exit 0, a
not_command on any other exit — but not when its program is missing or cannot
be run (exit 127 or 126).
file and not_file checks test whether a path exists, or whether a glob pattern
(a value with * or ?) matches, as Python's glob does. assertion and quality
checks are judged by a person: they are never run, and left out of the result.
A group passes when all of its checkable items pass, an any_of when one does.

The commands come from a file the loop's agent wrote: on a terminal they are
listed and run only when you confirm; without a terminal, --yes is required.

--json keeps verify_checklist.py's keys (passed, checklist, skipped; per item
item, passed, type, command or path, exit_code or exists, evidence,
output_summary, group_results, any_of_results, skipped_items) and adds its own
(result, reason, stdout, stderr, started_at, duration_ms, counts, ...).

Exit codes: 0 every checkable item passed, 1 one failed (or nothing could be
checked, or the run was interrupted, or the file cannot be parsed), 2 usage or I/O
error (a file over --max-size included), or not confirmed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := ff.load(args, g)
			if err != nil {
				return err
			}
			switch {
			case l.ParseErr != nil:
				return fail(exitInvalid, "cannot verify: %v", l.ParseErr)
			case l.Phase != nil:
				return fail(exitUsage, "%s is a phase loop's state file: only an AoT loop has a base_case to verify", l.Target.Path)
			}
			bc := l.AoT.State.Objective.BaseCase
			out := cmd.OutOrStdout()
			if bc.Empty() {
				msg := "objective.base_case is not set: there is nothing to verify"
				if asJSON {
					writeJSON(out, map[string]any{"error": msg, "passed": false, "checklist": []any{}, "skipped": []any{}})
				}
				return fail(exitInvalid, "%s", msg)
			}
			dir := statefile.ProjectDir(l.Target.Path)
			if cmds := verify.Commands(bc); len(cmds) > 0 && !yes {
				if err := confirm(cmd.InOrStdin(), cmd.ErrOrStderr(), l.Target.Path, dir, timeout.d, cmds); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := verify.Options{Dir: dir, Timeout: timeout.d}
			if !asJSON && isTerminal(cmd.ErrOrStderr()) {
				opts.Progress = progressPrinter(cmd.ErrOrStderr())
			}
			rep := verify.Run(ctx, bc, opts)
			if asJSON {
				j := rep.JSON()
				j.StateFile = l.Target.Path
				writeJSON(out, j)
			} else {
				printVerify(out, l.Target.Path, rep)
			}
			switch {
			case rep.Stopped:
				return fail(exitInvalid, "verify: stopped before the end: %d checks were not run", rep.Counts.NotRun)
			case !rep.Passed():
				return silent(exitInvalid)
			}
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "run the commands without asking (required when stdin is not a terminal)")
	cmd.Flags().Var(&timeout, "timeout", "timeout of each command: a duration (90s, 2m) or seconds")
	return cmd
}

// timeoutFlag is --timeout: a Go duration, or a number of seconds as the
// script's --timeout takes it.
type timeoutFlag struct{ d time.Duration }

func (f *timeoutFlag) String() string { return f.d.String() }
func (f *timeoutFlag) Type() string   { return "duration" }
func (f *timeoutFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil {
			return fmt.Errorf("%q is neither a duration (90s, 2m) nor a number of seconds", s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return fmt.Errorf("%q: the timeout must be more than zero", s)
	}
	f.d = d
	return nil
}

// terminalReader lets a test stand in for a terminal on stdin.
type terminalReader interface{ IsTerminal() bool }

// isTerminal reports whether f (a reader or a writer) is a terminal.
func isTerminal(f any) bool {
	switch f := f.(type) {
	case terminalReader:
		return f.IsTerminal()
	case interface{ Fd() uintptr }:
		return term.IsTerminal(f.Fd())
	}
	return false
}

// confirm lists the commands that would run and asks on the terminal;
// without one it refuses, saying to pass --yes.
func confirm(in io.Reader, prompt io.Writer, statePath, dir string, timeout time.Duration, cmds []verify.Planned) error {
	if !isTerminal(in) {
		return fail(exitUsage, "verify would run %s from %s, which the loop's agent wrote; stdin is not a terminal to confirm on, so pass --yes to run them",
			textfmt.Plural(len(cmds), "command"), termtext.Line(statePath))
	}
	fmt.Fprintf(prompt, "The base_case of %s runs %s in %s (timeout %s each):\n",
		termtext.Line(statePath), textfmt.Plural(len(cmds), "command"), termtext.Line(dir), timeout)
	w := 0
	for _, c := range cmds {
		w = max(w, len(verify.PosString(c.Position)))
	}
	for _, c := range cmds {
		note := ""
		if c.Type == model.CheckNotCommand {
			note = "   (not_command: passes when it fails)"
		}
		fmt.Fprintf(prompt, "  %-*s  %s%s\n", w, verify.PosString(c.Position), termtext.Line(c.Value), note)
	}
	fmt.Fprint(prompt, "Run them? [y/N] ")
	answer, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return fail(exitUsage, "verify: not confirmed; nothing was run")
}

// progressPrinter says on a terminal which check runs now.
func progressPrinter(w io.Writer) func(verify.Progress) {
	return func(p verify.Progress) {
		r := p.Result
		if p.Done {
			fmt.Fprintf(w, "\r\x1b[K")
			return
		}
		fmt.Fprintf(w, "\r\x1b[K[%d/%d] %s %s", p.Index+1, p.Total, r.Pos(), truncateText(termtext.Line(r.Value), 60))
	}
}

func truncateText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// outcomeLabels are the words the text report puts before each item.
var outcomeLabels = map[verify.Outcome]string{
	verify.Pass:         "pass",
	verify.Fail:         "FAIL",
	verify.NotCheckable: "not checkable",
	verify.NotRun:       "not run",
}

// printVerify prints the report: a header, each item (its checks
// indented under a group), the output of failed commands, the result.
func printVerify(w io.Writer, statePath string, rep *verify.Report) {
	fmt.Fprintf(w, "verify %s — checks ran in %s at %s (timeout %s each)\n",
		termtext.Line(statePath), termtext.Line(rep.Dir), rep.Started.Format("15:04:05"), rep.Timeout)
	var walk func(items []*verify.Result, depth int)
	walk = func(items []*verify.Result, depth int) {
		for _, r := range items {
			fmt.Fprintf(w, "%-13s  %s%s %s", outcomeLabels[r.Outcome], strings.Repeat("  ", depth), r.Pos(), termtext.Line(r.Item))
			fmt.Fprintf(w, " — %s\n", termtext.Line(itemDetail(r)))
			if r.Outcome == verify.Fail && r.Ran {
				printOutputTail(w, r, strings.Repeat(" ", 15+2*depth+len(r.Pos())+1))
			}
			walk(r.Children, depth+1)
		}
	}
	walk(rep.Items, 0)
	c := rep.Counts
	checks := c.Pass + c.Fail + c.NotCheckable + c.NotRun
	tally := fmt.Sprintf("%d pass, %d fail, %d not checkable", c.Pass, c.Fail, c.NotCheckable)
	if c.NotRun > 0 {
		tally += fmt.Sprintf(", %d not run", c.NotRun)
	}
	tally += fmt.Sprintf(" (%s in %s)", textfmt.Plural(checks, "check"), rep.Duration.Round(time.Millisecond))
	switch rep.Outcome {
	case verify.Pass:
		fmt.Fprintf(w, "result: PASS — every checkable item passed; %s\n", tally)
	case verify.Fail:
		fmt.Fprintf(w, "result: FAIL — %s\n", tally)
	case verify.NotCheckable:
		fmt.Fprintf(w, "result: NOT CHECKED — nothing here could be checked; a person judges the rest; %s\n", tally)
	default:
		fmt.Fprintf(w, "result: STOPPED — %s\n", tally)
	}
}

// itemDetail is what follows an item's name: what was checked and how it
// came out.
func itemDetail(r *verify.Result) string {
	switch r.Kind {
	case "group", "any_of":
		s := "ALL of: "
		if r.Kind == "any_of" {
			s = "ANY of: "
		}
		s += strings.TrimPrefix(strings.TrimPrefix(r.Evidence, "AND group: "), "OR group: ")
		if r.Reason != "" {
			s += "; " + r.Reason
		}
		return s
	case "":
		return r.Evidence
	}
	switch r.Type {
	case model.CheckCommand, model.CheckNotCommand:
		s := string(r.Type) + ": " + r.Value
		switch {
		case r.Outcome == verify.NotRun:
			return s + " — " + r.Reason
		case r.TimedOut:
			return s + " — " + r.Reason
		case !r.Ran:
			return s + " — " + nonEmptyText(r.Reason, r.Evidence)
		}
		s += fmt.Sprintf(" — exit %d in %s", r.ExitCode, r.Duration.Round(time.Millisecond))
		if r.Type == model.CheckNotCommand && !r.NotFound {
			s += " (passes when it fails)"
		}
		if r.NotFound {
			s += "; " + r.Reason
		}
		return s
	case model.CheckFile, model.CheckNotFile:
		if r.Outcome == verify.NotRun || r.Reason != "" {
			return string(r.Type) + ": " + r.Reason
		}
		return string(r.Type) + ": " + r.Evidence
	case model.CheckAssertion, model.CheckQuality:
		return string(r.Type) + ": " + r.Reason
	}
	return r.Evidence
}

func nonEmptyText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// printOutputTail prints the last lines of a failed command's output.
func printOutputTail(w io.Writer, r *verify.Result, indent string) {
	for _, s := range []struct {
		name string
		out  verify.Output
	}{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
		head, lines := s.out.Tail(s.name, 10)
		if lines == nil {
			continue
		}
		fmt.Fprintf(w, "%s%s:\n", indent, head)
		for _, line := range lines {
			fmt.Fprintf(w, "%s│ %s\n", indent, termtext.Line(line))
		}
	}
}
