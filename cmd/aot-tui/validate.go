package main

import (
	"fmt"
	"io"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/spf13/cobra"
)

func newValidateCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate [PATH] [-f PATH] [--json]",
		Short: "Check a state file against the schema's invariants",
		Long: `Checks the state file: frontmatter and YAML syntax, required sections, value types,
enum values, unique atom ids, dependencies that exist, no cycles (the cycle's path
is printed), no resolved atom over an unresolved dependency, OR groups and
decompositions that name real atoms, and more.
It also warns where the loop's own tools (its stop hook and Python scripts,
which read the file line by line) will read a value otherwise than aot-tui,
and says what they will do then: these warnings have the kind loop-tools.
--json keeps the keys of the seed's validate_state.py (valid, errors, warnings,
atom_count) and adds "problems" with each finding's line, path and kind.

Exit codes: 0 valid, 1 invalid (including a file that cannot be parsed),
2 usage or I/O error such as a missing file or one over --max-size.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := ff.load(args, g)
			if err != nil {
				return err
			}
			var r model.Report
			switch {
			case l.ParseErr != nil:
				r = parseFailureReport(l.ParseErr)
			case l.Phase != nil:
				r = model.ValidatePhaseLoop(l.Phase)
			default:
				r = model.ValidateWith(l.AoT.State, l.Facts)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				writeJSON(out, r)
			} else {
				what := textfmt.Plural(r.AtomCount, "atom")
				if l.Phase != nil {
					what = "phase loop"
					if l.Phase.Phase != "" {
						what += " in phase " + l.Phase.Phase
					}
				}
				printReport(out, l.Target.Path, what, r)
			}
			if !r.Valid {
				return silent(exitInvalid)
			}
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// parseFailureReport reports an unparseable file as invalid.
func parseFailureReport(err error) model.Report {
	msg := err.Error()
	line := 0
	if pe, ok := parseErrorOf(err); ok {
		line = pe.Line
	}
	return model.Report{
		Valid: false, Errors: []string{msg}, Warnings: []string{},
		Problems: []model.ReportProblem{{Severity: "error", Line: line, Message: msg}},
	}
}

// printReport prints the verdict on path, what is (a count of atoms, or the
// phase loop's phase), then each finding on its own line.
func printReport(w io.Writer, path, what string, r model.Report) {
	verdict := "valid"
	if !r.Valid {
		verdict = "invalid"
	}
	fmt.Fprintf(w, "%s: %s (%s, %s, %s)\n", termtext.Line(path), verdict,
		termtext.Line(what), textfmt.Plural(len(r.Errors), "error"), textfmt.Plural(len(r.Warnings), "warning"))
	for _, e := range r.Errors {
		fmt.Fprintf(w, "error: %s\n", termtext.Line(e))
	}
	// The warnings (r.Warnings are these problems' texts) about what the
	// loop's own tools will read otherwise are tagged with their kind.
	for _, p := range r.Problems {
		if p.Severity != "warning" {
			continue
		}
		tag := "warning"
		if p.Kind != "" {
			tag += " (" + p.Kind + ")"
		}
		fmt.Fprintf(w, "%s: %s\n", tag, termtext.Line(model.Problem{Line: p.Line, Message: p.Message}.String()))
	}
}
