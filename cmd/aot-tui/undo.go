package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// Undo from the command line. A correction is undone by a correction of
// its own (model.Inverse), which needs the versions of the file just
// before and just after the correction: without a TUI session they come
// from the journal beside the state file, where the TUI records every
// version it sees and a correction the CLI writes records its two
// (recordVersions, when the journal exists).

func newUndoCmd(g *globalFlags) *cobra.Command {
	var w writeFlags
	var at string
	var index int
	cmd := &cobra.Command{
		Use:   "undo [--at TIME | --index N] [--interrupt]",
		Short: "Undo a correction, as a correction of its own (the type of the one undone)",
		Long: `Undoes a corrections[] entry — by default the last one in the file; --at TIME
names one by its timestamp as written (the last with that time), --index N by
its position (1 is the first). The undo is a correction of its own, planned on
the file as it is now (the loop has usually written it since): it puts back
exactly what that correction changed — removes an atom it added, adds an atom it
deleted again with its fields and its dependents' edges, restores OR selections,
statuses it reset, bindings, constraints, objective fields, base_case items and
trail entries it cleared. An atom the correction took out of progress comes back
pending: its worker was interrupted.

It is refused (exit 1, with the reason) where the loop's later work makes that
impossible: an atom the correction added is in progress or resolved now, or
something depends on it; a deleted atom's id was reused; the OR group was
switched since; a redone atom was started or resolved again; a value was changed
again. Undoing an undo puts the correction back.

Undo needs the versions of the file just before and just after the correction.
They are read from the state file's journal in the journal directory
($XDG_STATE_HOME/aot-tui/journals, else ~/.local/state/aot-tui/journals;
%LocalAppData%\aot-tui\journals on Windows), which the TUI writes while it
watches (every version it sees), and from one an older aot-tui kept beside the
state file; a correction written from the command line records its two versions
there too (unless --no-journal). Any
entry whose versions a journal holds can be undone, whoever wrote it. One it
does not hold (made while no journal was kept, or by hand or by the loop's own
/redirect while no TUI watched) is refused, saying so, as is one whose versions
in the journal hold the loop's writes as well (the journal missed the version
it was planned on). A stop, which records no corrections[] entry, is taken back
in the TUI.

Writes the inverse change and a corrections[] entry of the type of the one
undone ("undo of the dag_adjustment of 2026-…: A9 removed").` + interruptHelp,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("at") && cmd.Flags().Changed("index") {
				return fail(exitUsage, "give --at or --index, not both")
			}
			if cmd.Flags().Changed("index") && index < 1 {
				return fail(exitUsage, "--index counts corrections[] entries from 1, not %d", index)
			}
			target, err := discover(w.file, "-f")
			if err != nil {
				return err
			}
			if target.Kind == statefile.KindPhaseLoop {
				return fail(exitUsage, "%s is a phase loop; corrections apply to AoT loops only", target.Path)
			}
			inv, err := undoFromJournal(target.Path, g.maxSize, at, index)
			var ref *model.Refusal
			switch {
			case errors.As(err, &ref):
				return fail(exitInvalid, "refused: %s — %s is unchanged", err, target.Path)
			case err != nil:
				return err
			}
			return runCorrection(cmd, g, &w, inv)
		},
	}
	w.register(cmd, true)
	cmd.Flags().StringVar(&at, "at", "", "the timestamp of the corrections[] entry to undo, as written (default: the last entry)")
	cmd.Flags().IntVar(&index, "index", 0, "the position of the corrections[] entry to undo, 1 for the first (default: the last entry)")
	interruptFlag(cmd, &w.interrupt)
	return cmd
}

// undoFromJournal is the undo of the corrections[] entry of the state
// file at path that at (a timestamp) or index (1-based) names, the last
// one when neither is given, made from the journal's versions around it.
func undoFromJournal(path string, maxSize int64, at string, index int) (*model.Undo, error) {
	doc, err := statefile.Load(path, maxSize)
	if err != nil {
		return nil, fail(exitCodeOf(err), "%v", err)
	}
	entries := doc.State.Corrections
	pos := len(entries) - 1
	switch {
	case len(entries) == 0:
		return nil, &model.Refusal{Rule: model.RuleUndo, Reason: "the file has no corrections[] entry to undo"}
	case index > 0:
		if index > len(entries) {
			return nil, &model.Refusal{Rule: model.RuleUndo, Reason: fmt.Sprintf("the file has %d corrections[] entries, not %d", len(entries), index)}
		}
		pos = index - 1
	case at != "":
		for pos = len(entries) - 1; pos >= 0 && entries[pos].Timestamp != at; pos-- {
		}
		if pos < 0 {
			return nil, &model.Refusal{Rule: model.RuleUndo, Reason: fmt.Sprintf("no corrections[] entry has the timestamp %q", at)}
		}
	}
	e := entries[pos]
	name := fmt.Sprintf("the %s of %s (%q)", e.Type, e.Timestamp, firstClause(e.Description))
	// The entry's count up to it: the n-th equal entry is the one meant.
	n := 0
	for _, c := range entries[:pos+1] {
		if sameEntry(c, e) {
			n++
		}
	}
	_, read := journalFiles(path)
	journal := strings.Join(read, " or ")
	versions, _, err := history.ReadJournals(read)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fail(exitUsage, "reading %s: %v", journal, err)
	}
	before, after, why := versionsAround(versions, e, n)
	if before == nil {
		return nil, &model.Refusal{Rule: model.RuleUndo, Reason: fmt.Sprintf("%s cannot be undone from the command line: %s (%s)", name, why, journal)}
	}
	inv, err := model.Inverse(before, after)
	if err != nil {
		return nil, err
	}
	if word := unnamed(inv, e.Description); word != "" {
		return nil, &model.Refusal{Rule: model.RuleUndo, Reason: fmt.Sprintf(
			"%s cannot be undone from the command line: the journal lacks the version it was planned on (%s changed too between the versions it holds)", name, word)}
	}
	return inv, nil
}

// journalFiles are the journals of the state file at path: the one the
// command line records to, in the journal directory (history.DefaultJournalDir;
// "" when there is none), and those to read, that one and the one an
// older aot-tui kept beside the file.
func journalFiles(path string) (write string, read []string) {
	dir, err := history.DefaultJournalDir()
	if err != nil {
		dir = ""
	}
	if dir != "" {
		write = history.JournalIn(dir, path)
	}
	return write, history.JournalsOf(dir, path)
}

func sameEntry(a, b model.Correction) bool {
	return a.Timestamp == b.Timestamp && a.Type == b.Type && a.Description == b.Description && a.TrailCleared == b.TrailCleared
}

func firstClause(d string) string {
	if i := strings.Index(d, "; "); i >= 0 {
		d = d[:i]
	}
	if r := []rune(d); len(r) > 60 {
		d = string(r[:59]) + "…"
	}
	return d
}

// versionsAround finds, among the journal's versions (oldest first), the
// first that carries the n-th entry equal to e and the version recorded
// just before it; nil and why when there is none. Later versions carry
// the entry too (the loop only appends to corrections[]), so it is found
// by bisection, parsing a few versions only; versions without e's
// timestamp in their bytes cannot carry it and are not parsed.
func versionsAround(versions []history.Version, e model.Correction, n int) (before, after *model.State, why string) {
	if len(versions) == 0 {
		return nil, nil, "no journal of its versions"
	}
	stamp := []byte(e.Timestamp)
	carries := func(i int) (*model.State, bool) {
		if !bytes.Contains(versions[i].Data, stamp) {
			return nil, false
		}
		d, err := statefile.Parse(versions[i].Data)
		if err != nil {
			return nil, false
		}
		return d.State, model.CountCorrection(d.State, e) >= n
	}
	lo, hi := 0, len(versions) // the first that carries it is in [lo, hi]
	for lo < hi {
		mid := (lo + hi) / 2
		if _, ok := carries(mid); ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == len(versions) {
		return nil, nil, "the journal holds no version with it"
	}
	if lo == 0 {
		return nil, nil, "the journal starts after it"
	}
	after, _ = carries(lo)
	d, err := statefile.Parse(versions[lo-1].Data)
	if err != nil {
		return nil, nil, "the version before it in the journal does not parse"
	}
	return d.State, after, ""
}

// unnamed is an atom or OR group the undo would change that the
// correction's description does not name (""when it names them all): then
// the journal's versions hold more than the correction — the loop's
// writes between the version it was planned on and the one it wrote — and
// the undo would undo those as well. aot-tui's descriptions name every
// atom and group a correction changes.
func unnamed(u *model.Undo, description string) string {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(description, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		words[strings.TrimRight(w, ".")] = true
	}
	for _, id := range append(u.Atoms(), u.Groups()...) {
		if !words[id] {
			return id
		}
	}
	return ""
}

// recordVersions records the versions a correction written from the
// command line went between, in the state file's journal in the journal
// directory (never in the project), for a later undo (redirect undo);
// --no-journal skips it. A journal that cannot be written costs the
// correction nothing: it says so on stderr.
func recordVersions(cmd *cobra.Command, path string, res *statefile.UpdateResult) {
	if res == nil || !res.Wrote || res.Doc == nil {
		return
	}
	journal, _ := journalFiles(path)
	if journal == "" {
		return
	}
	j, err := history.OpenJournal(journal, history.JournalOptions{})
	if err == nil {
		now := time.Now()
		for _, data := range [][]byte{res.Doc.Data, res.After} {
			if _, err = j.Append(history.Version{At: now, Data: data}); err != nil {
				break
			}
		}
		if cerr := j.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: the versions for a later undo were not recorded (%s)\n", termtext.Line(err.Error()))
	}
}
