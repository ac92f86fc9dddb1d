package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes (DESIGN.md §4).
const (
	exitOK       = 0
	exitInvalid  = 1 // invalid state or refused correction
	exitUsage    = 2 // usage or I/O error
	exitConflict = 3 // the file kept changing; the correction was not applied
)

// exitError carries an exit code; its message (if any) goes to stderr as
// one line.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// silent is an exit code whose report has already been printed.
func silent(code int) error { return &exitError{code: code} }

type globalFlags struct {
	maxSize int64
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	g := &globalFlags{}
	tf := &tuiFlags{}
	root := &cobra.Command{
		Use:   "aot-tui [PATH ...]",
		Short: "Watch and steer autonomous coding-agent loops",
		Long: `aot-tui watches an autonomous agent loop's state file, summarises it, checks it,
and writes corrections back into it.

Without a command it opens the live TUI on PATH: a state file or a project
directory (its .claude/aot-loop-state.md, else .claude/autonomous-loop.json); the
default is the current directory. A file that does not exist yet is waited for.
Several PATHs watch several loops: < and > switch between them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTUI(cmd, args, tf, g)
		},
	}
	tf.register(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().Int64Var(&g.maxSize, "max-size", 16<<20, "refuse state files larger than this many bytes")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fail(exitUsage, "%s%s (see %s --help)", subcommand(c), flagErrorText(err), c.CommandPath())
	})
	root.AddCommand(newStatusCmd(g), newValidateCmd(g), newGateCmd(g), newRedirectCmd(g), newStopCmd(g), newDemoCmd(g))
	return root
}

// run executes the CLI and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "aot-tui: "+oneLine(ee.msg))
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad arguments) are usage errors;
	// they name neither the command nor what it takes, so say both.
	msg := subcommand(cmd) + oneLine(err.Error())
	if cmd != nil && cmd != root {
		msg += " — usage: " + cmd.UseLine()
	}
	path := "aot-tui"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	fmt.Fprintln(stderr, "aot-tui: "+msg+" (see "+path+" --help)")
	return exitUsage
}

// subcommand is "redirect add-atom: " for that command ("" for the root),
// to start an error line that already begins with "aot-tui: ".
func subcommand(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") + ": "
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// noArgs refuses positional arguments with a hint: cobra's own message
// ('unknown command "s.md"') reads as if a subcommand were meant.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := ""
	if cmd.Flags().Lookup("file") != nil {
		hint = "; give the state file with -f PATH"
	}
	return fail(exitUsage, "%stakes no arguments, got %q%s (see %s --help)", subcommand(cmd), args[0], hint, cmd.CommandPath())
}
