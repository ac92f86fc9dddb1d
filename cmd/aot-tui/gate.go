package main

import (
	"fmt"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

func parseErrorOf(err error) (*statefile.Error, bool) { return statefile.ParseError(err) }

func newGateCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "gate [PATH] [-f PATH] [--json]",
		Short: "Check the /enter-recursion preconditions",
		Long: `Checks what /enter-recursion needs before it starts the loop: objective.goal,
base_case, background_intent, deliverables and definition_of_done present and not
empty, at least one atom, control.status pending or stopped, and no validation
errors. --json keeps the keys of the seed's check_gate.py (ready, missing, status)
and adds the full validation report.

Exit codes: 0 ready, 1 not ready (or unparseable), 2 usage or I/O error (a file
over --max-size included).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := ff.load(args, g)
			if err != nil {
				return err
			}
			if l.Phase != nil {
				return fail(exitUsage, "%s is a phase loop; the /enter-recursion gate applies to AoT loops only", l.Target.Path)
			}
			var r model.GateReport
			if l.ParseErr != nil {
				v := parseFailureReport(l.ParseErr)
				r = model.GateReport{Missing: []string{"invalid: " + l.ParseErr.Error()}, Validation: v}
			} else {
				r = model.GateWith(l.AoT.State, model.ValidateWith(l.AoT.State, l.Facts))
			}
			out := cmd.OutOrStdout()
			if asJSON {
				writeJSON(out, r)
			} else {
				if r.Ready {
					fmt.Fprintf(out, "%s: ready for /enter-recursion\n", termtext.Line(l.Target.Path))
				} else {
					fmt.Fprintf(out, "%s: not ready for /enter-recursion\n", termtext.Line(l.Target.Path))
					for _, m := range r.Missing {
						fmt.Fprintf(out, "missing: %s\n", termtext.Line(m))
					}
				}
			}
			if !r.Ready {
				return silent(exitInvalid)
			}
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
