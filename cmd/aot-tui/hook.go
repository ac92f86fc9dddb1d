package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/textdiff"
	"github.com/spf13/cobra"
)

// hookEventsDefault says where aot-tui hook records events, on any
// machine, for the help.
const hookEventsDefault = `$XDG_STATE_HOME/aot-tui/hooks, else ~/.local/state/aot-tui/hooks;
%LocalAppData%\aot-tui\hooks on Windows`

// hookDir is the directory the hook records events in and readers read
// them from.
func hookDir() (string, error) { return history.DefaultStateDir("hooks", "the hook events") }

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Record a Claude Code hook event (Claude Code runs it: see hook install)",
		Long: `Claude Code runs aot-tui hook on the events it is installed for (aot-tui hook
install adds it for Notification) with the event's JSON on stdin: session_id,
transcript_path, cwd, hook_event_name, notification_type, message. aot-tui hook
appends the event, with the time, to one small file per project (named after
the project directory, cut back to its last 16 KiB past 64 KiB) in

  ` + strings.ReplaceAll(hookEventsDefault, "\n", "\n  ") + `

where the TUI and status read it: a pending permission_prompt or idle_prompt
(or elicitation_dialog) makes the loop "needs you" until its session moves on.
Nothing else is written, and nothing leaves the machine.

It never holds Claude Code up: it reads at most 1 MiB of stdin for at most 2
seconds, waits at most 200 ms for the file's lock, and exits 0 whatever
happens (a problem is one line on stderr).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := recordHook(cmd.InOrStdin()); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "aot-tui hook: "+termtext.Line(textfmt.OneLine(err.Error())))
			}
			return nil
		},
	}
	cmd.AddCommand(newHookInstallCmd())
	return cmd
}

// recordHook reads the hook input and records it.
func recordHook(stdin io.Reader) error {
	in, err := agent.ReadHookInput(stdin, 2*time.Second)
	if err != nil {
		return err
	}
	dir, err := hookDir()
	if err != nil {
		return err
	}
	_, err = agent.RecordHook(dir, in, time.Now(), 200*time.Millisecond)
	return err
}

type hookInstallFlags struct {
	user, project, local bool
	dryRun, uninstall    bool
	command              string
}

func newHookInstallCmd() *cobra.Command {
	var f hookInstallFlags
	cmd := &cobra.Command{
		Use:   "install [DIR] [--user | --project | --local] [--dry-run] [--uninstall] [--command CMD]",
		Short: "Add aot-tui hook to Claude Code's Notification hooks (or remove it)",
		Long: `Merges a Notification hook entry that runs aot-tui hook into Claude Code's
settings, so that the TUI and status know exactly when a loop waits for you:

  {"hooks": {"Notification": [{"matcher": "", "hooks":
      [{"type": "command", "command": "aot-tui hook", "timeout": 10}]}]}}

--user (the default) writes ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json
when that is set): every project. --project writes DIR/.claude/settings.json (DIR
defaults to the current directory; the file is shared with the project's other
users), --local DIR/.claude/settings.local.json (yours alone).

Other hooks, other keys, their order and layout stay byte for byte as they were:
the entry is added to hooks.Notification (made when missing). An entry that runs
aot-tui hook already is left alone (or given this command when it runs another
aot-tui). The file is written whole to a temporary file beside it and renamed
over it (a symbolic link is followed, and stays a link), never truncated, and
never written unless the result is JSON. A settings file that is not JSON is
refused, with its line and column, and left alone.

--uninstall removes every entry that runs aot-tui hook (and the group, the
Notification list and the hooks object it leaves empty). --dry-run prints the
change as a unified diff and writes nothing. --command sets the command the
entry runs (default: aot-tui hook when the aot-tui on PATH is this one, else
this program's absolute path and hook).

Exit codes: 0 done (or nothing to do), 1 the settings file is not a JSON object
(or its hooks are not shaped as Claude Code reads them), 2 usage or I/O error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runHookInstall(cmd, args, &f) },
	}
	cmd.Flags().BoolVar(&f.user, "user", false, "the user's settings, ~/.claude/settings.json (the default)")
	cmd.Flags().BoolVar(&f.project, "project", false, "the project's shared settings, DIR/.claude/settings.json")
	cmd.Flags().BoolVar(&f.local, "local", false, "the project's local settings, DIR/.claude/settings.local.json")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the change as a unified diff; write nothing")
	cmd.Flags().BoolVar(&f.uninstall, "uninstall", false, "remove the aot-tui hook entries instead")
	cmd.Flags().StringVar(&f.command, "command", "", "the command the entry runs (default: aot-tui hook, or this program's path and hook)")
	return cmd
}

func runHookInstall(cmd *cobra.Command, args []string, f *hookInstallFlags) error {
	n := 0
	for _, on := range []bool{f.user, f.project, f.local} {
		if on {
			n++
		}
	}
	if n > 1 {
		return fail(exitUsage, "hook install: give one of --user, --project and --local")
	}
	if len(args) > 0 && !f.project && !f.local {
		return fail(exitUsage, "hook install: DIR goes with --project or --local (--user writes the user's settings)")
	}
	path, err := settingsPath(f, args)
	if err != nil {
		return err
	}
	command := f.command
	if command == "" {
		command = defaultHookCommand()
	} else if !strings.HasSuffix(strings.TrimSpace(command), " hook") {
		return fail(exitUsage, "hook install: --command %q does not run aot-tui hook (it must be the aot-tui program and the word hook)", command)
	}
	out := cmd.OutOrStdout()
	for attempt := 0; ; attempt++ {
		before, mode, err := readSettings(path)
		if err != nil {
			return err
		}
		var after []byte
		var changed bool
		if f.uninstall {
			after, changed, err = agent.UninstallHook(before, command)
		} else {
			after, changed, err = agent.InstallHook(before, command)
		}
		var se *agent.SettingsError
		if errors.As(err, &se) {
			return fail(exitInvalid, "%s: %v: fix it (or move it away) and run aot-tui hook install again; nothing was written", path, err)
		}
		if err != nil {
			return fail(exitUsage, "%s: %v", path, err)
		}
		shown := termtext.Line(path)
		if !changed {
			if f.uninstall {
				fmt.Fprintf(out, "%s has no aot-tui hook entry: nothing to remove\n", shown)
			} else {
				fmt.Fprintf(out, "%s already runs aot-tui hook on Notification events: nothing to do\n", shown)
			}
			return nil
		}
		if f.dryRun {
			fmt.Fprint(out, termtext.Block(textdiff.Unified(path, path, before, after, 3)))
			return nil
		}
		err = writeSettings(path, before, after, mode)
		if errors.Is(err, errSettingsChanged) && attempt < 3 {
			continue // Claude Code wrote it meanwhile: plan again on its bytes
		}
		if err != nil {
			return fail(exitUsage, "%s: %v; nothing was written", path, err)
		}
		if f.uninstall {
			fmt.Fprintf(out, "removed the aot-tui hook entries from %s\n", shown)
		} else {
			fmt.Fprintf(out, "added the Notification hook to %s: %s\n", shown, termtext.Line(command))
		}
		return nil
	}
}

// settingsPath is the settings file the flags choose.
func settingsPath(f *hookInstallFlags, args []string) (string, error) {
	if f.project || f.local {
		dir := "."
		if len(args) > 0 {
			dir = args[0]
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fail(exitUsage, "hook install: %v", err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fail(exitUsage, "hook install: %s is not a directory: give the project directory", abs)
		}
		name := "settings.json"
		if f.local {
			name = "settings.local.json"
		}
		return filepath.Join(abs, ".claude", name), nil
	}
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fail(exitUsage, "hook install: no home directory for ~/.claude/settings.json (set HOME or CLAUDE_CONFIG_DIR, or use --project)")
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// defaultHookCommand is "aot-tui hook" when the aot-tui on PATH is this
// program, else this program's absolute path (quoted for the shell when
// it needs it) and hook.
func defaultHookCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "aot-tui hook"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if onPath, err := exec.LookPath("aot-tui"); err == nil {
		if real, err := filepath.EvalSymlinks(onPath); err == nil && real == exe {
			return "aot-tui hook"
		}
	}
	return shellQuote(filepath.ToSlash(exe)) + " hook"
}

// shellQuote quotes s for a POSIX shell (the hooks run through one, Git
// Bash on Windows) when it holds anything but letters, digits and / . _ - :.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == ':' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return `'` + strings.ReplaceAll(s, `'`, `'\''`) + `'`
}

// readSettings reads a settings file (none yet: empty) and its mode.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, nil
	case err != nil:
		return nil, 0, fail(exitUsage, "%v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, fail(exitUsage, "%v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fail(exitUsage, "%s is not a regular file: aot-tui writes only a regular settings file", path)
	}
	return data, fi.Mode().Perm(), nil
}

var errSettingsChanged = errors.New("the settings file changed while it was being written")

// writeSettings replaces the settings file at path (which held before)
// with after: written whole to a temporary file beside the file a
// symbolic link leads to, synced, the file read again (someone else's
// write meanwhile is errSettingsChanged, nothing written) and renamed
// over it. A new file is made with mode 0600 (0644 in a project's
// .claude), its directory 0700 (0755).
func writeSettings(path string, before, after []byte, mode fs.FileMode) error {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	dirMode, fileMode := fs.FileMode(0o700), fs.FileMode(0o600)
	if filepath.Base(filepath.Dir(target)) == ".claude" && filepath.Dir(filepath.Dir(target)) != homeDir() {
		dirMode, fileMode = 0o755, 0o644
	}
	if mode != 0 {
		fileMode = mode
	}
	if err := os.MkdirAll(filepath.Dir(target), dirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".aot-tui-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(after); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(fileMode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	now, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !bytes.Equal(now, before) {
		return errSettingsChanged
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	done = true
	return nil
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
