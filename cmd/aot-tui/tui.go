package main

import (
	"errors"
	"path/filepath"

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

// runTUI opens the TUI on the state files args (and -f) name, waiting for
// those that do not exist yet. Several paths watch several loops.
func runTUI(cmd *cobra.Command, args []string, t *tuiFlags, g *globalFlags) error {
	paths := args
	if t.file != "" {
		paths = append(paths, t.file)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var targets []statefile.Target
	seen := map[string]bool{}
	for _, p := range paths {
		target, err := statefile.Discover(p)
		if err != nil && !errors.Is(err, statefile.ErrNotFound) {
			return fail(exitUsage, "%v", err)
		}
		abs, _ := filepath.Abs(target.Path)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		targets = append(targets, target)
	}
	m := ui.New(ui.Options{
		Targets:  targets,
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
