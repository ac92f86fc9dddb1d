package main

import (
	"fmt"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
)

func newKeysCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "keys [--keys FILE]",
		Short: "List the TUI's key bindings and the actions a keys file can rebind",
		Long: `Prints every action of the TUI with its keys, after the keys file (--keys, else
the default file when it exists). A keys file is YAML, an action per line with
a key or a list of keys, as Bubble Tea names them:

  add_atom: A
  quit: [q, ctrl+q]

A key may mean one thing in a view and another in a dialog, never two things in
the same place; a file that would do that is refused with the line to change.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := loadKeys(path)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			file := path
			if file == "" {
				file = keysFileHint() + " (if it exists)"
			}
			fmt.Fprintf(out, "keys file: %s\n\n%-18s %-22s %s\n", termtext.Line(file), "action", "keys", "what it does")
			for _, line := range ui.KeyActionNames(*k) {
				fmt.Fprintln(out, line)
			}
			return nil
		},
	}
	registerKeys(cmd, &path)
	return cmd
}
