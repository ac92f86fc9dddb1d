package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes (docs/ARCHITECTURE.md §12; the README's table, one code per cause,
// whichever command meets it; exitCodeOf maps the errors of reading and
// writing a state file onto them).
const (
	exitOK       = 0
	exitInvalid  = 1 // the file does not parse or breaks the contract; a refused correction; a verdict of no
	exitUsage    = 2 // usage or I/O error, a file over --max-size included
	exitConflict = 3 // the file kept changing, a correction lost, a loop write kept beside the file
	exitStale    = 4 // --expect-sha256: the file is no longer the version previewed; nothing was written
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
default is the current directory. A file that does not exist yet is waited for
when PATH looks like one (it has a /, \ or ., as ./foo); a bare word that names
nothing here (stats) is refused as an unknown command, exit 2.
Several PATHs watch several loops: < and > switch between them.

With --scan, the PATHs are directories (default .; a missing one is refused,
exit 2): every loop under them (and in the git worktrees of the repositories
met) is shown in one live table, sorted by what needs attention; enter opens a
loop, esc comes back. ssh://[user@]host/dir roots, and the hosts of
remotes.yaml in the config directory, add loops on other machines (read
through ssh or another transport; --no-remotes leaves remotes.yaml out).

` + statefile.ExchangeNote(),
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
	root.PersistentFlags().Int64Var(&g.maxSize, "max-size", statefile.DefaultMaxSize, "refuse state files larger than this many bytes")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "aot-tui stats --json": the mistyped command, not the flag. With
		// --scan the arguments are directories (scanDirs).
		if pos := c.Flags().Args(); c == root && len(pos) > 0 && !looksLikePath(pos[0]) && !tf.scan.on {
			return unknownCommand(root, pos[0])
		}
		return fail(exitUsage, "%s%s (see %s --help)", subcommand(c), flagErrorText(err), c.CommandPath())
	})
	root.AddCommand(newStatusCmd(g), newValidateCmd(g), newGateCmd(g), newRedirectCmd(g), newStopCmd(g), newDemoCmd(g), newKeysCmd(), newVerifyCmd(g))
	root.AddCommand(newReplayCmd(g), newReportCmd(g), newCatCmd(g), newPauseCmd(g))
	root.AddCommand(newHookCmd())
	root.AddCommand(newWatchCmd(g), newNotifyCmd())
	root.AddCommand(newVersionCmd(), newManCmd())
	setVersionFlag(root)
	return root
}

// run executes the CLI and returns the process exit code. An error is one
// line on stderr; when the command that ran was given --json, it is also
// one JSON object on stdout (jsonError), unless the command already printed
// its result there.
func run(args []string, stdout, stderr io.Writer) int {
	return execute(newRootCmd(stdout, stderr), args, stdout, stderr)
}

// execute runs root (built by newRootCmd on stdout and stderr) as run does.
func execute(root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	out := &watchedWriter{w: stdout}
	watchJSONCommands(root, out)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	code, msg := describe(err, cmd, root)
	if msg == "" {
		return code // silent: the command has printed its report
	}
	// The one place errors are printed: a path or a value from the file
	// in the message shows its control and bidi characters escaped (the
	// JSON object carries the message itself, \u-escaped by writeJSON).
	fmt.Fprintln(stderr, "aot-tui: "+termtext.Line(msg))
	if !out.wrote && wantsJSON(cmd, args) {
		writeJSON(stdout, jsonError{Error: msg, ExitCode: code, Kind: errorKind(code)})
	}
	return code
}

// describe is err's exit code and its one-line message, without the
// leading "aot-tui: " ("" for an error whose report is already printed).
func describe(err error, cmd, root *cobra.Command) (code int, msg string) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, textfmt.OneLine(ee.msg)
	}
	// Cobra's own errors (unknown command, bad arguments) are usage errors;
	// they name neither the command nor what it takes, so say both.
	msg = subcommand(cmd) + textfmt.OneLine(err.Error())
	if cmd != nil && cmd != root {
		msg += " — usage: " + cmd.UseLine()
	}
	path := "aot-tui"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return exitUsage, msg + " (see " + path + " --help)"
}

// jsonError is an error as --json reports it on stdout.
type jsonError struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
	Kind     string `json:"kind"`
}

func errorKind(code int) string {
	switch code {
	case exitInvalid:
		return "invalid"
	case exitConflict:
		return "conflict"
	case exitStale:
		return "stale"
	}
	return "usage"
}

// watchedWriter notes whether anything was written: a command that printed
// its JSON result and then failed gets no second object after it.
// Only the commands with --json write through it (watchJSONCommands): the
// TUI needs the terminal itself as its output.
type watchedWriter struct {
	w     io.Writer
	wrote bool
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		w.wrote = true
	}
	return w.w.Write(p)
}

// watchJSONCommands makes every command under c that has a --json flag
// print through out.
func watchJSONCommands(c *cobra.Command, out *watchedWriter) {
	if c.Flags().Lookup("json") != nil {
		c.SetOut(out)
	}
	for _, sub := range c.Commands() {
		watchJSONCommands(sub, out)
	}
}

// wantsJSON says whether cmd has a --json flag and it was given. The parsed
// flags say so, unless parsing stopped at a bad flag before reaching
// --json: then args are scanned again with cmd's flags, unknown flags
// skipped and no value checked.
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("json")
	if f == nil || f.Value.Type() != "bool" {
		return false
	}
	if f.Changed {
		return f.Value.String() == "true"
	}
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	var asJSON lenientBool
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		var v pflag.Value = anyValue(f.Value.Type())
		if f.Name == "json" {
			v = &asJSON
		}
		fs.VarPF(v, f.Name, f.Shorthand, "").NoOptDefVal = f.NoOptDefVal
	})
	_ = fs.Parse(args)
	return bool(asJSON)
}

// anyValue takes any value: the rescan in wantsJSON only needs to know
// which flags consume the next argument.
type anyValue string

func (v anyValue) String() string   { return "" }
func (v anyValue) Set(string) error { return nil }
func (v anyValue) Type() string     { return string(v) }

// lenientBool is --json in the rescan: a value that is not a boolean
// counts as false rather than stopping the scan.
type lenientBool bool

func (b *lenientBool) String() string { return strconv.FormatBool(bool(*b)) }
func (b *lenientBool) Type() string   { return "bool" }
func (b *lenientBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	*b = lenientBool(v && err == nil)
	return nil
}

// subcommand is "redirect add-atom: " for that command ("" for the root),
// to start an error line that already begins with "aot-tui: ".
func subcommand(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") + ": "
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
