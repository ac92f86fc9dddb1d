package main

import (
	"errors"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
)

type tuiFlags struct {
	file     string
	readOnly bool
	quiet    bool
}

func (t *tuiFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&t.file, "file", "f", "", "state file or project directory (default: current directory)")
	cmd.Flags().BoolVar(&t.readOnly, "read-only", false, "never write to the file: every write key is disabled")
	cmd.Flags().BoolVar(&t.quiet, "quiet", false, "no bell and no desktop notifications")
}

// runTUI opens the TUI on the state file args or -f name (waiting for it
// when it does not exist yet).
func runTUI(cmd *cobra.Command, args []string, t *tuiFlags, g *globalFlags) error {
	path := t.file
	switch {
	case len(args) > 1:
		return fail(exitUsage, "aot-tui watches one loop at a time; got %d paths", len(args))
	case len(args) == 1 && path != "" && args[0] != path:
		return fail(exitUsage, "give the state file either as -f PATH or as PATH, not both")
	case len(args) == 1:
		path = args[0]
	}
	target, err := statefile.Discover(path)
	if err != nil && !errors.Is(err, statefile.ErrNotFound) {
		return fail(exitUsage, "%v", err)
	}
	m := ui.New(ui.Options{
		Target:   target,
		ReadOnly: t.readOnly,
		Quiet:    t.quiet,
		Watch:    statefile.WatchOptions{MaxSize: g.maxSize},
	})
	defer m.Close()
	p := tea.NewProgram(m, tea.WithOutput(cmd.OutOrStdout()))
	if _, err := p.Run(); err != nil {
		return fail(exitUsage, "the terminal UI failed: %v", err)
	}
	return nil
}
