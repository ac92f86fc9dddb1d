package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/spf13/cobra"
)

// notifyHelp is what the config file's notify section says, for the help
// of notify, watch and the TUI.
const notifyHelp = `The notify section of the config file (` + notify.ConfigFileHint + `)
names where alerts go besides the terminal's bell:

  notify:
    command: [notify-send, --app-name=aot-tui]  # argv, run without a shell
    webhook: https://ntfy.sh/my-topic           # or url:, format:, headers:
    timeout: 10s                                # each run, each request
    events: [needs_you, completed, stopped]     # default: every kind

A command gets the event in AOT_EVENT, AOT_LOOP, AOT_PATH, AOT_HOST,
AOT_REASON, AOT_TIME, AOT_TUI_VERSION, AOT_TITLE and AOT_TEXT, and as one
JSON object on stdin. A webhook is POSTed the event as ntfy (a text body
and a Title header), slack ({"text": …}) or json (the event's object, with a
"text" key): format: says which, else the URL does (ntfy.sh and ntfy.*
hosts: ntfy; hooks.slack.com: slack; others: json). Each is tried once,
never retried; a failure is one line in the message log (TUI) or on stderr
(watch).`

// notifyDrain is how long the TUI and watch wait, when they end, for the
// events still queued to be sent.
const notifyDrain = 2 * time.Second

// loadNotify reads the config file's notify section.
func loadNotify() (notify.Config, error) {
	cfg, err := notify.LoadConfig(notify.ConfigFile())
	if err != nil {
		return cfg, fail(exitUsage, "%v", err)
	}
	return cfg, nil
}

// startNotify starts the notifier of the config file (nil when it names
// nowhere to send).
func startNotify() (*notify.Notifier, error) {
	cfg, err := loadNotify()
	if err != nil {
		return nil, err
	}
	return notify.New(cfg, notify.Options{Version: currentVersion().Version}), nil
}

func newNotifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "Alerts off the terminal: a command, a webhook (see notify test)",
		Long: `aot-tui sends its alerts — a loop needs attention, needs you, completed,
stopped, or a correction of yours was lost — to a command and a webhook as
well as to the terminal, from the TUI (unless --no-notify) and from
aot-tui watch --notify.

` + notifyHelp,
		Args: noArgs,
	}
	cmd.AddCommand(newNotifyTestCmd())
	return cmd
}

func newNotifyTestCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "test",
		Short: "Send a sample event to the command and webhook of the config file",
		Long: `Sends one sample event (kind "test") to the command and the webhook the config
file's notify section names, one after the other, and says what each made of
it. Exit 0 when every one took it, 2 when one failed or none is configured.

` + notifyHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadNotify()
			if err != nil {
				return err
			}
			file := notify.ConfigFile()
			if cfg.Empty() {
				return fail(exitUsage, "config file %s names no notify.command or notify.webhook — add one (aot-tui notify --help)", file)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "config file: %s\n", termtext.Line(file))
			ev := notify.Event{Kind: notify.Test, Loop: "aot-tui-test", Path: "/dev/null",
				Reason: "a test notification from aot-tui notify test"}
			failed := 0
			for _, r := range notify.Try(cfg, ev, notify.Options{Version: currentVersion().Version}) {
				took := r.Took.Round(time.Millisecond)
				if r.Err != nil {
					failed++
					fmt.Fprintf(out, "%s: failed after %v: %s\n", r.Sink, took, termtext.Line(textfmt.OneLine(r.Err.Error())))
					continue
				}
				fmt.Fprintf(out, "%s: sent (%s, %v)\n", r.Sink, r.What, took)
			}
			if failed > 0 {
				return fail(exitUsage, "notify test: %d of the sends failed", failed)
			}
			return nil
		},
	}
}

// printNotes writes the notifier's notes, one line each.
func printNotes(w interface{ Write([]byte) (int, error) }, n *notify.Notifier) {
	for _, s := range n.TakeNotes() {
		fmt.Fprintln(w, "aot-tui: "+termtext.Line(strings.TrimSpace(s)))
	}
}
