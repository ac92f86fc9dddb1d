package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// writeFlags are shared by every command that corrects the file.
type writeFlags struct {
	file   string
	note   string
	dryRun bool
	json   bool
	guard  time.Duration
	// interrupt: --interrupt (interruptFlag), on the commands that have it.
	interrupt bool
	// noJournal: --no-journal, the versions are not recorded for undo.
	noJournal bool
	// expect: --expect-sha256 (expect.go); stamp: --timestamp.
	expect, stamp string
}

func (w *writeFlags) register(cmd *cobra.Command, withNote bool) {
	cmd.Flags().StringVarP(&w.file, "file", "f", "", "state file or project directory (default: current directory)")
	if withNote {
		cmd.Flags().StringVar(&w.note, "note", "", "a note added to the correction's description")
	}
	cmd.Flags().BoolVar(&w.dryRun, "dry-run", false, "print a unified diff of the change and write nothing")
	cmd.Flags().BoolVar(&w.json, "json", false, "print the correction and the resulting summary as JSON")
	cmd.Flags().DurationVar(&w.guard, "guard", envDuration("AOT_TUI_GUARD", correction.DefaultGuard),
		"after writing (and after each re-apply), watch the file this long and apply the correction again if a loop write undoes it (0: do not wait; AOT_TUI_GUARD sets the default)")
	cmd.Flags().BoolVar(&w.noJournal, "no-journal", false,
		"do not record the versions before and after the write in the journal beside the state file (aot-tui redirect undo needs them)")
	registerExpect(cmd, w)
}

func newRedirectCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "redirect COMMAND",
		Short: "Correct a running loop: add or delete an atom, force an OR choice, change constraints, objective or a binding; undo",
		Long: `Writes a correction into the state file, as the loop's /redirect flow would:
the change itself plus a corrections[] entry (and a trail entry where the flow
appends one). The file is changed only where the correction needs it; comments,
quoting, key order and the Markdown body stay byte-identical. Writes go through
a temp file beside it (the file is never truncated in place) and are re-planned
when the loop writes the file meanwhile. For --guard after the write (1s by
default) the file is watched: a loop script that read it before our write and
wrote after undoes the correction, and it is applied again — only onto the
loop's own work on our version, never onto a new loop, an older version or the
version from before the correction put at the same path (the correction is then
not carried over).

` + statefile.ExchangeNote() + `

Atom ids are taken in any case (a5 for A5) and written as the file spells them;
an id that names no atom is refused with the ids there are.

A correction is refused on a file that fails validation unless it removes an
error (the errors after it are a strict subset of those before); the message
names the first error and its line. A correction that touches an atom in
progress needs --interrupt (see each command's help).

Exit codes: 0 written, 1 refused (the one-line reason names the rule it would
break: "a correction changes something" when there is nothing to change, no
value given or the values it already has; the file is untouched) or the file
cannot be parsed, 2 usage or I/O error (a file over --max-size included), 3 the
file kept changing, or a loop write undid the correction and it could not be
applied again, or the loop's next write undid what it meant (an atom it reset
came back resolved) (lost: …), or the file was replaced while guarded and the
correction is not in it (… was not carried over; --json adds not_carried_over),
or a loop write that could not be merged was kept beside the file (the message
names it).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			if len(args) > 0 {
				if s := suggest(cmd, args[0]); len(s) > 0 {
					return fail(exitUsage, "redirect: unknown command %q (did you mean %s?)", args[0], orList(s))
				}
				return fail(exitUsage, "redirect: unknown command %q — one of %s (see aot-tui redirect --help)", args[0], strings.Join(names, ", "))
			}
			return fail(exitUsage, "redirect needs a command: one of %s (see aot-tui redirect --help)", strings.Join(names, ", "))
		},
	}
	cmd.AddCommand(newAddAtomCmd(g), newDeleteAtomCmd(g), newForceORCmd(g), newConstraintsCmd(g),
		newObjectiveCmd(g), newOverrideBindingCmd(g), newUndoCmd(g))
	return cmd
}

// interruptFlag registers --interrupt on a redirect command whose
// correction can touch an in-progress atom.
func interruptFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "interrupt", false,
		"do it even when it touches an in-progress atom (resets, deletes or rewires it): aot-tui cannot stop the worker on it, whose result the loop then writes over the correction")
}

// interruptHelp is what the help of those commands says about it.
const interruptHelp = `

An atom in progress has a worker on it, which aot-tui cannot stop (the loop's
own /redirect stops its workers first). A correction that resets, deletes or
rewires such an atom is refused (exit 1, naming the atom and what the worker's
result would do) unless --interrupt is given; with it, the corrections[] entry
says "(interrupted the worker on A9)".`

func splitIDs(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func newAddAtomCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var id, deps, group, reqBy string
	cmd := &cobra.Command{
		Use:   "add-atom DESCRIPTION [--id ID] [--depends-on A1,A2] [--or-group NAME] [--required-by A5] [--interrupt]",
		Short: "Add an atom (dag_adjustment)",
		Long: `Adds a pending atom. Its id is the next free A<n> unless --id is given.
--depends-on lists existing atoms it depends on; --or-group adds it as a choice of
an existing OR group; --required-by makes existing unresolved atoms depend on it
(an in-progress one goes back to pending). Refused if that would make a cycle.

Writes the atom at the end of atoms (id, description, status: pending,
depends_on in flow style, or_group), the id into the OR group's choices and the
required-by atoms' depends_on, and a corrections[] entry of type dag_adjustment.
The trail is left as it is.` + interruptHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := model.AddAtom{ID: id, Description: strings.Join(args, " "), DependsOn: splitIDs(deps),
				ORGroup: group, RequiredBy: splitIDs(reqBy)}
			return runCorrection(cmd, g, &w, req)
		},
	}
	w.register(cmd, true)
	cmd.Flags().StringVar(&id, "id", "", "the new atom's id (default: the next free A<n>)")
	cmd.Flags().StringVar(&deps, "depends-on", "", "comma-separated ids the atom depends on")
	cmd.Flags().StringVar(&group, "or-group", "", "an OR group the atom joins as a choice")
	cmd.Flags().StringVar(&reqBy, "required-by", "", "comma-separated unresolved ids that will depend on the atom")
	interruptFlag(cmd, &w.interrupt)
	return cmd
}

func newDeleteAtomCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var detach bool
	cmd := &cobra.Command{
		Use:   "delete-atom ID [--detach] [--interrupt]",
		Short: "Delete an unresolved atom (dag_adjustment)",
		Long: `Deletes a pending or in-progress atom and every reference to it (OR choices,
decomposition children, a stale binding). An atom that others depend on, or the
selected choice of an OR group, is deleted only with --detach, which drops it from
its dependents' depends_on — or, for a selected choice, selects the group's next
choice and moves the dependents onto it, as the loop's own backtrack does.

Writes the atom's removal and every reference's, and a corrections[] entry of
type dag_adjustment; a trail entry only when an OR group's selection changes.` + interruptHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCorrection(cmd, g, &w, model.DeleteAtom{ID: args[0], Detach: detach})
		},
	}
	w.register(cmd, true)
	cmd.Flags().BoolVar(&detach, "detach", false, "also drop the atom from its dependents and OR selections")
	interruptFlag(cmd, &w.interrupt)
	return cmd
}

func newForceORCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var reason string
	cmd := &cobra.Command{
		Use:   "force-or GROUP CHOICE [--reason TEXT] [--interrupt]",
		Short: "Force the choice of an OR group (dag_adjustment)",
		Long: `Selects CHOICE in OR group GROUP and records it in the trail. The previous
selection goes back to pending if it was in progress; if it was resolved it is
redone: its binding is dropped and it and its dependents go back to pending.
The dependents of the previous selection depend on CHOICE instead.

Writes or_groups.GROUP.selected (and drops CHOICE from its failed list), the
statuses, bindings and depends_on that change, a trail entry {or_group, selected,
reason, timestamp} and a corrections[] entry of type dag_adjustment.` + interruptHelp,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCorrection(cmd, g, &w, model.ForceOR{Group: args[0], Choice: args[1], Reason: reason})
		},
	}
	w.register(cmd, true)
	cmd.Flags().StringVar(&reason, "reason", "", "why (recorded in the trail)")
	interruptFlag(cmd, &w.interrupt)
	return cmd
}

func newConstraintsCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var iters, agents, stalls int
	cmd := &cobra.Command{
		Use:   "constraints [--max-iterations N] [--max-parallel-agents N] [--max-stall-count N]",
		Short: "Change the loop's limits (constraint_change)",
		Long: `Changes the limits the stop hook holds the loop to: --max-iterations (it ends
the loop when control.iteration reaches it), --max-stall-count (it ends the loop
after that many iterations in a row without progress) and --max-parallel-agents
(how many atoms the coordinator starts at once). Each is a positive integer;
give at least one. A max_iterations at or below the iteration the loop is at
makes the stop hook end the loop at its next decision: the correction says so.

Writes the values given under objective.constraints (the section is added, with
the defaults for the others, when the file has none) and a corrections[] entry
of type constraint_change. The trail is left as it is.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var req model.ChangeConstraints
			if cmd.Flags().Changed("max-iterations") {
				req.MaxIterations = &iters
			}
			if cmd.Flags().Changed("max-parallel-agents") {
				req.MaxParallelAgents = &agents
			}
			if cmd.Flags().Changed("max-stall-count") {
				req.MaxStallCount = &stalls
			}
			return runCorrection(cmd, g, &w, req)
		},
	}
	w.register(cmd, true)
	cmd.Flags().IntVar(&iters, "max-iterations", 0, "iteration limit")
	cmd.Flags().IntVar(&agents, "max-parallel-agents", 0, "parallel agent limit")
	cmd.Flags().IntVar(&stalls, "max-stall-count", 0, "stall tolerance")
	return cmd
}

func newObjectiveCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var goal, bg, deliv, dod string
	var check, typ, value, item, addItem, under, removeItem string
	cmd := &cobra.Command{
		Use:   "objective [--goal T] [--background-intent T] [--deliverables T] [--definition-of-done T] [base_case edit]",
		Short: "Change the objective (objective_change; clears the trail)",
		Long: `Changes the alignment: any of the four text fields and one base_case edit.
Checklist items are addressed by 1-based position, as the TUI's objective view
shows them: 2 is the second item, 1.2 the second child of the first item's group.

  --check POS --type T --value V [--item NAME]   set the check of an item
  --type T --value V                             set a legacy {type, value} base_case
  --add-item NAME [--under POS] --type T --value V   add an item with a check
  --remove-item POS                              remove an item

An objective change is essentially a restart: the trail is cleared.

Writes the changed objective fields and base_case item, trail: [] and a
corrections[] entry of type objective_change with trail_cleared: true.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var req model.ChangeObjective
			set := func(flag string, v *string) *string {
				if cmd.Flags().Changed(flag) {
					return v
				}
				return nil
			}
			req.Goal = set("goal", &goal)
			req.BackgroundIntent = set("background-intent", &bg)
			req.Deliverables = set("deliverables", &deliv)
			req.DefinitionOfDone = set("definition-of-done", &dod)
			ce, err := checkEditFromFlags(cmd, check, typ, value, item, addItem, under, removeItem)
			if err != nil {
				return err
			}
			if ce != nil {
				req.Checks = []model.CheckEdit{*ce}
			}
			return runCorrection(cmd, g, &w, req)
		},
	}
	w.register(cmd, true)
	f := cmd.Flags()
	f.StringVar(&goal, "goal", "", "new goal")
	f.StringVar(&bg, "background-intent", "", "new background intent")
	f.StringVar(&deliv, "deliverables", "", "new deliverables")
	f.StringVar(&dod, "definition-of-done", "", "new definition of done")
	f.StringVar(&check, "check", "", "position of the checklist item whose check to set (1-based, e.g. 1.2)")
	f.StringVar(&typ, "type", "", "check type: command, file, not_command, not_file, assertion or quality")
	f.StringVar(&value, "value", "", "check value (command, path, condition; criteria for quality)")
	f.StringVar(&item, "item", "", "new name of the item set with --check")
	f.StringVar(&addItem, "add-item", "", "name of a checklist item to add")
	f.StringVar(&under, "under", "", "position of the group or any_of to add the item under (default: top level)")
	f.StringVar(&removeItem, "remove-item", "", "position of a checklist item to remove")
	return cmd
}

func checkEditFromFlags(cmd *cobra.Command, check, typ, value, item, addItem, under, removeItem string) (*model.CheckEdit, error) {
	ch := cmd.Flags().Changed
	n := 0
	for _, f := range []string{"check", "add-item", "remove-item"} {
		if ch(f) {
			n++
		}
	}
	if n > 1 {
		return nil, fail(exitUsage, "give one of --check, --add-item and --remove-item per command")
	}
	if ch("type") && !model.CheckType(typ).Known() {
		types := make([]string, len(model.CheckTypes))
		for i, t := range model.CheckTypes {
			types[i] = string(t)
		}
		return nil, fail(exitUsage, "redirect objective: --type %q is not a check type: give one of %s", typ, strings.Join(types, ", "))
	}
	pos := func(s string) (model.ChecklistPath, error) {
		if s == "" {
			return nil, nil
		}
		p, err := model.ParseChecklistPath(s)
		if err != nil {
			return nil, fail(exitUsage, "%v", err)
		}
		return p, nil
	}
	switch {
	case ch("check"):
		p, err := pos(check)
		if err != nil {
			return nil, err
		}
		return &model.CheckEdit{Op: "set", Path: p, Type: model.CheckType(typ), Value: value, Item: item}, nil
	case ch("add-item"):
		p, err := pos(under)
		if err != nil {
			return nil, err
		}
		return &model.CheckEdit{Op: "add", Path: p, Item: addItem, Type: model.CheckType(typ), Value: value}, nil
	case ch("remove-item"):
		p, err := pos(removeItem)
		if err != nil {
			return nil, err
		}
		return &model.CheckEdit{Op: "remove", Path: p}, nil
	case ch("type") || ch("value"):
		return &model.CheckEdit{Op: "set", Type: model.CheckType(typ), Value: value}, nil
	}
	return nil, nil
}

func newOverrideBindingCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var summary, artifacts string
	var artifactList []string
	var redo bool
	cmd := &cobra.Command{
		Use:   "override-binding ID [--summary TEXT] [--artifacts a,b | --artifact PATH ...] [--redo] [--interrupt]",
		Short: "Amend or redo a resolved atom's binding (bindings_override)",
		Long: `Amends the binding of a resolved atom (--summary and/or --artifacts), or with
--redo deletes it and sends the atom and its transitive dependents back to
pending (dropping their bindings and the trail entries of that scope).

Writes bindings.ID (with --redo: removes it and the dependents' bindings, sets
their statuses to pending and drops the trail entries of that scope) and a
corrections[] entry of type bindings_override, trail_cleared when trail entries
went.` + interruptHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := model.OverrideBinding{ID: args[0], Redo: redo}
			if cmd.Flags().Changed("summary") {
				req.Summary = &summary
			}
			if cmd.Flags().Changed("artifacts") || cmd.Flags().Changed("artifact") {
				req.SetArtifacts = true
				req.Artifacts = append(splitIDs(artifacts), artifactList...)
				if req.Artifacts == nil {
					req.Artifacts = []string{}
				}
			}
			if redo && (req.Summary != nil || req.SetArtifacts) {
				return fail(exitUsage, "--redo drops the binding; do not combine it with --summary, --artifacts or --artifact")
			}
			return runCorrection(cmd, g, &w, req)
		},
	}
	w.register(cmd, true)
	cmd.Flags().StringVar(&summary, "summary", "", "new summary")
	cmd.Flags().StringVar(&artifacts, "artifacts", "", "new comma-separated artifact paths (replaces the list)")
	cmd.Flags().StringArrayVar(&artifactList, "artifact", nil, "a new artifact path, as it is (spaces and commas kept; repeat for more; with --artifacts, after its paths)")
	cmd.Flags().BoolVar(&redo, "redo", false, "drop the binding and redo the atom and its dependents")
	interruptFlag(cmd, &w.interrupt)
	return cmd
}

func newStopCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var reason string
	cmd := &cobra.Command{
		Use:   "stop [PATH] [-f PATH] [--reason TEXT]",
		Short: "Ask the loop to stop (/exit-recursion)",
		Long: `Sets control.stop_requested: true and control.stop_reason, as /exit-recursion
does. The loop's stop hook stops it at its next decision. No correction entry is
recorded. A stop is written on any file that parses, one that fails validation
included: stopping a broken loop is what it is for.

` + statefile.ExchangeNote() + `

Exit codes: 0 written, 1 refused (the loop has already ended, or a stop is
already requested; the file is untouched) or the file cannot be parsed, 2 usage
or I/O error (a file over --max-size included), 3 the file kept changing, or a
loop write undid the stop and it could not be applied again (lost: …), or the
file was replaced while guarded (… was not carried over).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ff := fileFlag{path: w.file}
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			w.file = path
			return runCorrection(cmd, g, &w, model.Stop{Reason: reason})
		},
	}
	w.register(cmd, false)
	cmd.Flags().StringVar(&reason, "reason", "", "why the loop is stopped")
	return cmd
}

// runCorrection plans req on the file, writes it safely, guards it and
// reports.
func runCorrection(cmd *cobra.Command, g *globalFlags, w *writeFlags, req model.Request) error {
	target, err := discover(w.file, "-f")
	if err != nil {
		return err
	}
	if target.Kind == statefile.KindPhaseLoop {
		return fail(exitUsage, "%s is a phase loop; corrections apply to AoT loops only", target.Path)
	}
	if w.guard < 0 {
		return fail(exitUsage, "--guard must be 0 or more, not %v", w.guard)
	}
	if err := checkEnvDuration(cmd, "AOT_TUI_GUARD", "guard", "1s or 250ms"); err != nil {
		return err
	}
	if v := os.Getenv("AOT_TUI_NOW"); v != "" {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			return fail(exitUsage, "AOT_TUI_NOW=%q is not an RFC 3339 time (such as 2026-01-02T15:04:05Z) — fix it or unset it", v)
		}
	}
	ro := correction.RunOptions{
		Options: correction.Options{MaxSize: g.maxSize, Now: clockNow},
		Note:    w.note, DryRun: w.dryRun, Guard: w.guard, Interrupt: w.interrupt,
	}
	if err := w.expectOptions(&ro); err != nil {
		return err
	}
	out, err := correction.Run(target.Path, req, ro)
	if err != nil {
		return correctionFailed(cmd, w, target, out, err)
	}
	if !w.dryRun && !w.noJournal {
		recordVersions(cmd, target.Path, out.Result)
	}
	res := out.Result
	stdout := cmd.OutOrStdout()
	if w.json {
		writeJSON(stdout, correctionJSON(target, out, w.dryRun))
		return nil
	}
	if w.dryRun {
		fmt.Fprint(stdout, termtext.Block(statefile.UnifiedDiff(target.Path, res.Before, res.After)))
		fmt.Fprintf(stdout, "(dry run: %s is unchanged)\n", termtext.Line(target.Path))
		return nil
	}
	printCorrection(stdout, target.Path, out)
	return nil
}

// correctionFailed is the error of a correction that failed with err (out
// is what Run returned with it). The message is the one error line (and
// --json object) root's execute prints, which escapes it for the terminal
// and JSON alike: it carries the path and the file's text as they are.
func correctionFailed(cmd *cobra.Command, w *writeFlags, target statefile.Target, out *correction.Outcome, err error) error {
	var ref *model.Refusal
	var sd *correction.StandDownError
	var np *correction.NotPreviewedError
	switch {
	case errors.As(err, &np):
		return notPreviewed(cmd, w, target, np)
	case errors.As(err, &sd) && sd.Written:
		// Written, then the file was replaced by something that is not
		// the loop's work on our version: the correction is not in
		// effect (exit 3, not 0). --json still reports what was written,
		// and why it is not there.
		if w.json && out != nil && out.Result != nil && out.Plan != nil {
			j := correctionJSON(target, out, false)
			j.NotCarriedOver = &notCarriedJSON{Kind: string(sd.Kind), Reason: sd.Reason, Message: sd.Error()}
			writeJSON(cmd.OutOrStdout(), j)
		}
		return fail(exitConflict, "%v — %s holds something else now; run the correction again if it is meant for it", err, target.Path)
	case errors.Is(err, correction.ErrStoodDown):
		// The file was replaced while the correction was being written:
		// nothing of ours is in it.
		return fail(exitConflict, "%v (%s)", err, target.Path)
	case errors.Is(err, correction.ErrLost):
		return fail(exitCodeOf(err), "%v (%s)", err, target.Path)
	case errors.As(err, &ref):
		return fail(exitCodeOf(err), "refused: %s — %s is unchanged", err, target.Path)
	}
	return fail(exitCodeOf(err), "%v", err)
}

func printCorrection(w io.Writer, path string, out *correction.Outcome) {
	plan, res := out.Plan, out.Result
	what := plan.Summary
	if plan.Correction != nil {
		fmt.Fprintf(w, "%s: %s — recorded in corrections (%s)\n", plan.Correction.Type, termtext.Line(what), termtext.Line(path))
	} else {
		fmt.Fprintf(w, "%s (%s)\n", termtext.Line(what), termtext.Line(path))
	}
	if res.Attempts > 1 {
		fmt.Fprintf(w, "the file changed while writing; re-planned on the new state (%d attempts)\n", res.Attempts)
	}
	if out.Merged > 0 {
		fmt.Fprintf(w, "the loop wrote the file at the same moment; its write was kept (%d)\n", out.Merged)
	}
	if out.Reapplied > 0 {
		fmt.Fprintf(w, "re-applied after the loop overwrote it (%d×)\n", out.Reapplied)
	}
}

type correctionOut struct {
	Path       string         `json:"path"`
	DryRun     bool           `json:"dry_run"`
	Written    bool           `json:"written"`
	Attempts   int            `json:"attempts"`
	Reapplied  int            `json:"reapplied"`
	Merged     int            `json:"merged"`
	Plan       *model.Plan    `json:"plan"`
	Correction map[string]any `json:"correction"`
	TrailEntry map[string]any `json:"trail_entry"`
	Summary    aotStatus      `json:"summary"`
	Diff       string         `json:"diff,omitempty"`
	// BeforeSHA256 and AfterSHA256 are the sha256 of the version planned
	// on and of the one written (or, in a dry run, that would be): a
	// preview's after_sha256 is what an apply with --expect-sha256
	// before_sha256 writes.
	BeforeSHA256 string `json:"before_sha256"`
	AfterSHA256  string `json:"after_sha256"`
	// NotCarriedOver is set (exit 3) when the guard met a file that does
	// not descend from ours: the correction was written and is not in
	// effect.
	NotCarriedOver *notCarriedJSON `json:"not_carried_over,omitempty"`
}

// notCarriedJSON says why a guard stood down: kind is new_loop,
// older_version or revert.
type notCarriedJSON struct {
	Kind    string `json:"kind"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message"`
}

func correctionJSON(t statefile.Target, o *correction.Outcome, dry bool) correctionOut {
	plan, res := o.Plan, o.Result
	out := correctionOut{Path: t.Path, DryRun: dry, Written: res.Wrote || o.Reapplied > 0, Attempts: res.Attempts,
		Reapplied: o.Reapplied, Merged: o.Merged, Plan: plan, BeforeSHA256: statefile.Sum(res.Before), AfterSHA256: statefile.Sum(res.After)}
	if c := plan.Correction; c != nil {
		out.Correction = map[string]any{"timestamp": c.Timestamp, "type": c.Type, "description": c.Description, "trail_cleared": c.TrailCleared}
	}
	if tr := plan.Trail; tr != nil {
		// The schema's four fields (seed 000 §4.7), as written.
		out.TrailEntry = map[string]any{"or_group": tr.ORGroup, "selected": tr.Selected, "reason": tr.Reason, "timestamp": tr.Timestamp}
	}
	l := &loaded{Target: t, AoT: res.NewDoc, Facts: model.Derive(res.NewDoc.State)}
	out.Summary = aotStatusJSON(l)
	if dry {
		out.Diff = statefile.UnifiedDiff(t.Path, res.Before, res.After)
	}
	return out
}

// clockNow is the time corrections are stamped with. AOT_TUI_NOW (RFC 3339)
// fixes it, for reproducible output in tests and scripted demos
// (runCorrection refuses a value that does not parse).
func clockNow() time.Time {
	if v := os.Getenv("AOT_TUI_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t
		}
	}
	return time.Now()
}
