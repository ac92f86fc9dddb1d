package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/report"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/spf13/cobra"
)

// recorded is the versions of a loop read for replay or report, with
// where they came from and what was skipped.
type recorded struct {
	source   string
	target   statefile.Target
	versions []history.Version
	notes    []string
}

// fromJournal reads a journal (and the one it rotated out before it).
func fromJournal(path string) (*recorded, error) {
	versions, notes, err := history.ReadJournalAll(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(exitUsage, "no journal at %s — the TUI records one beside the state file while it watches (unless --no-journal)", path)
		}
		return nil, fail(exitUsage, "reading %s: %v", path, err)
	}
	if len(versions) == 0 {
		return nil, fail(exitInvalid, "%s holds no readable version", path)
	}
	return &recorded{source: path, target: statefile.Target{Path: history.StatePath(path), Kind: statefile.KindAoT}, versions: versions, notes: notes}, nil
}

// fromGit reads the versions of a state file from its git commits.
func fromGit(path string) (*recorded, error) {
	t, err := discoverAoT(path)
	if err != nil {
		return nil, err
	}
	versions, notes, err := history.FromGit(t.Path)
	if err != nil {
		return nil, fail(exitUsage, "%v", err)
	}
	if len(versions) == 0 {
		return nil, fail(exitInvalid, "%s: no commit holds a version that parses", t.Path)
	}
	return &recorded{source: "git history of " + t.Path, target: t, versions: versions, notes: notes}, nil
}

// discoverAoT finds the AoT state file a PATH names.
func discoverAoT(path string) (statefile.Target, error) {
	if path == "" {
		path = "."
	}
	t, err := discover(path, "it")
	if err != nil {
		return t, err
	}
	if t.Kind != statefile.KindAoT {
		return t, fail(exitUsage, "%s is a phase loop: timelines and reports are for AoT loops", t.Path)
	}
	return t, nil
}

// journalOf is the journal a PATH names: a journal file itself, else the
// journal beside the state file that PATH (a file or directory) names.
func journalOf(path string) (string, error) {
	if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.1") {
		return path, nil
	}
	t, err := discoverAoT(path)
	if err != nil {
		return "", err
	}
	return history.JournalPath(t.Path), nil
}

func newReplayCmd(g *globalFlags) *cobra.Command {
	var gitPath, keys string
	var speed float64
	var play bool
	cmd := &cobra.Command{
		Use:   "replay [JOURNAL|PATH] [--git PATH] [--speed X] [--play]",
		Short: "Browse a recorded run: the timeline of a journal, or of a state file's git history",
		Long: `Opens the TUI on the versions of a loop recorded in a journal (the one beside
the state file that the TUI writes while it watches, .claude/aot-loop-state.history.jsonl),
at the first version, read-only. , and . step through the versions, { and } jump
to changes of atoms, status, corrections or OR choices, w says what changed,
p plays the run (+ and - change the speed), M shows the notes about the
recording, esc shows the last version.

JOURNAL defaults to the journal of the state file in the current directory; a
project directory or a state file means its journal. With --git PATH the
versions are the commits that touched the state file (git log), each at its
commit time; commits whose version does not parse are skipped with a note.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if speed <= 0 {
				return fail(exitUsage, "--speed must be positive, not %v", speed)
			}
			var rec *recorded
			var err error
			switch {
			case gitPath != "" && len(args) > 0:
				return fail(exitUsage, "give either JOURNAL or --git PATH, not both")
			case gitPath != "":
				rec, err = fromGit(gitPath)
			default:
				path := "."
				if len(args) == 1 {
					path = args[0]
				}
				var j string
				if j, err = journalOf(path); err == nil {
					rec, err = fromJournal(j)
				}
			}
			if err != nil {
				return err
			}
			km, err := loadKeys(keys)
			if err != nil {
				return err
			}
			tl := history.Build(rec.versions, history.TimelineOptions{MaxBytes: 1 << 40})
			m := ui.New(ui.Options{
				Target:   rec.target,
				ReadOnly: true,
				Keys:     km,
				Replay:   &ui.Replay{Timeline: tl, Speed: speed, Play: play, Notes: rec.notes, Source: filepath.Base(rec.source)},
			})
			return runModel(cmd, m)
		},
	}
	f := cmd.Flags()
	f.StringVar(&gitPath, "git", "", "replay the git history of this state file (or project directory)")
	f.Float64Var(&speed, "speed", 1, "play speed: 1 is the recorded pace, 8 eight times faster")
	f.BoolVar(&play, "play", false, "start playing at once")
	registerKeys(cmd, &keys)
	return cmd
}

func newReportCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var journal, gitPath, format, output string
	var noJournal bool
	cmd := &cobra.Command{
		Use:   "report [PATH] [-f PATH | --journal FILE | --git PATH] [--format md|json|html] [-o FILE]",
		Short: "A post-mortem of a loop: outcome, atoms, OR decisions, corrections, iterations, graph",
		Long: `Writes a post-mortem of a loop: objective and base_case; outcome (status,
stop_reason, iterations used of the maximum); resolved atoms with their bindings;
OR decisions with their reasons (also trail entries a later objective change
cleared); every correction with its time and type; what each iteration did
(atoms resolved, reset, added, backtracks, stall count); a drawing of the final
graph; and the run over time (unresolved atoms and stall count).

The history comes from the journal beside the state file when there is one
(--no-journal: the file alone), from --journal FILE, or from the file's git
commits (--git PATH). From the file alone there are no iterations to tell.

--format md (default) reads well pasted into a pull request; json is for
scripts; html is one self-contained page (inline CSS and SVG, nothing fetched).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			var write func(io.Writer, *report.Report) error
			switch format {
			case "md", "markdown":
				write = report.Markdown
			case "json":
				write = report.JSON
			case "html":
				write = report.HTML
			default:
				return fail(exitUsage, "--format %q: use md, json or html", format)
			}
			given := 0
			for _, s := range []string{path, journal, gitPath} {
				if s != "" {
					given++
				}
			}
			if given > 1 {
				return fail(exitUsage, "give one of PATH (or -f), --journal FILE and --git PATH")
			}
			if noJournal && (journal != "" || gitPath != "") {
				return fail(exitUsage, "--no-journal reads the state file alone; it does not go with --journal or --git")
			}
			rec, err := reportSource(path, journal, gitPath, noJournal, g)
			if err != nil {
				return err
			}
			r, err := report.Build(rec.source, rec.versions)
			if err != nil {
				return fail(exitInvalid, "%v", err)
			}
			r.Notes = append(rec.notes, r.Notes...)
			var b bytes.Buffer
			if err := write(&b, r); err != nil {
				return fail(exitUsage, "%v", err)
			}
			if output == "" || output == "-" {
				_, err = cmd.OutOrStdout().Write(b.Bytes())
			} else {
				err = os.WriteFile(output, b.Bytes(), 0o644)
			}
			if err != nil {
				return fail(exitUsage, "writing the report: %v", err)
			}
			return nil
		},
	}
	ff.register(cmd)
	f := cmd.Flags()
	f.StringVar(&journal, "journal", "", "read the versions from this journal")
	f.StringVar(&gitPath, "git", "", "read the versions from the git commits of this state file (or project directory)")
	f.BoolVar(&noJournal, "no-journal", false, "read the state file alone, not the journal beside it")
	f.StringVar(&format, "format", "md", "md, json or html")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}

// reportSource reads the versions a report is made of.
func reportSource(path, journal, gitPath string, noJournal bool, g *globalFlags) (*recorded, error) {
	switch {
	case journal != "":
		return fromJournal(journal)
	case gitPath != "":
		return fromGit(gitPath)
	}
	t, err := discoverAoT(path)
	if err != nil {
		return nil, err
	}
	data, err := statefile.ReadFile(t.Path, g.maxSize)
	if err != nil {
		return nil, fail(exitCodeOf(err), "%v", err)
	}
	var at time.Time
	if st, err := os.Stat(t.Path); err == nil {
		at = st.ModTime()
	}
	final := history.Version{At: at, Data: data}
	if !noJournal {
		j := history.JournalPath(t.Path)
		if rec, err := fromJournal(j); err == nil {
			if last := rec.versions[len(rec.versions)-1]; !bytes.Equal(last.Data, data) {
				rec.versions = append(rec.versions, final)
				rec.notes = append(rec.notes, "the state file has changed since the journal's last version: it is the final state here")
			}
			rec.source = fmt.Sprintf("%s with its journal %s", t.Path, filepath.Base(j))
			rec.target = t
			return rec, nil
		}
	}
	return &recorded{source: t.Path, target: t, versions: []history.Version{final}}, nil
}
