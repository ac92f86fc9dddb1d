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

	"github.com/aot-loop/aot-tui/agent"
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
	// journals are the journals read, if any.
	journals []string
}

// fromJournal reads the journals at paths (each with the one it rotated
// out before it) as one history: a loop's journal in the journal
// directory and the one an older aot-tui kept beside its state file. The
// loop is the state file the journals name (else the one a journal beside
// it is named after).
func fromJournal(paths []string) (*recorded, error) {
	versions, notes, err := history.ReadJournals(paths)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fail(exitUsage, "no journal at %s — the TUI records one while it watches (unless --no-journal); --journal-dir DIR looks in another directory", strings.Join(paths, " or "))
		}
		return nil, fail(exitUsage, "reading %v", err)
	}
	var read []string
	for _, p := range paths {
		if exists(p) || exists(p+".1") {
			read = append(read, p)
		}
	}
	if len(versions) == 0 {
		return nil, fail(exitInvalid, "%s holds no readable version", strings.Join(read, " and "))
	}
	state := versions[len(versions)-1].File
	if state == "" {
		state = history.StatePath(read[len(read)-1])
	}
	return &recorded{source: strings.Join(read, " and "), target: statefile.Target{Path: state, Kind: statefile.KindAoT},
		versions: versions, notes: notes, journals: read}, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// shortSource names where the versions came from in a line: the base
// names of the journals read.
func (r *recorded) shortSource() string {
	if len(r.journals) == 0 {
		return filepath.Base(r.source)
	}
	names := make([]string, len(r.journals))
	for i, p := range r.journals {
		names[i] = filepath.Base(p)
	}
	return strings.Join(names, " and ")
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

// journalOf are the journals a PATH names: a journal file itself, else
// the journals of the state file that PATH (a file or directory) names.
func journalOf(path string, jd *journalDirFlag) ([]string, error) {
	if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.1") {
		if jd.dir != "" {
			return nil, fail(exitUsage, "%s is a journal; --journal-dir finds the journals of a state file or project directory, not of a journal", path)
		}
		return []string{path}, nil
	}
	t, err := discoverAoT(path)
	if err != nil {
		return nil, err
	}
	return jd.journals(t.Path), nil
}

func newReplayCmd(g *globalFlags) *cobra.Command {
	var gitPath, keys string
	var speed float64
	var play bool
	var jd journalDirFlag
	cmd := &cobra.Command{
		Use:   "replay [JOURNAL|PATH] [--journal-dir DIR] [--git PATH] [--speed X] [--play]",
		Short: "Browse a recorded run: the timeline of a journal, or of a state file's git history",
		Long: `Opens the TUI on the versions of a loop recorded in its journal (the one the
TUI writes while it watches), at the first version, read-only. , and . step
through the versions, { and } jump to changes of atoms, status, corrections or
OR choices, w says what changed, p plays the run (+ and - change the speed), M
shows the notes about the recording, esc shows the last version.

JOURNAL defaults to the journal of the state file in the current directory; a
project directory or a state file means its journal, in the journal directory
(--journal-dir; by default
` + journalDirDefault + `),
read together with the one an older aot-tui kept beside the state file
(.claude/aot-loop-state.history.jsonl). With --git PATH the versions are the
commits that touched the state file (git log), each at its commit time; commits
whose version does not parse are skipped with a note.`,
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
			case gitPath != "" && jd.dir != "":
				return fail(exitUsage, "--git PATH reads git, not journals; it does not go with --journal-dir")
			case gitPath != "":
				rec, err = fromGit(gitPath)
			default:
				path := "."
				if len(args) == 1 {
					path = args[0]
				}
				var js []string
				if js, err = journalOf(path, &jd); err == nil {
					rec, err = fromJournal(js)
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
				Replay:   &ui.Replay{Timeline: tl, Speed: speed, Play: play, Notes: rec.notes, Source: rec.shortSource()},
			})
			return runModel(cmd, m)
		},
	}
	f := cmd.Flags()
	f.StringVar(&gitPath, "git", "", "replay the git history of this state file (or project directory)")
	f.Float64Var(&speed, "speed", 1, "play speed: 1 is the recorded pace, 8 eight times faster")
	f.BoolVar(&play, "play", false, "start playing at once")
	jd.register(cmd, "look for the journal in this directory")
	registerKeys(cmd, &keys)
	return cmd
}

func newReportCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var journal, gitPath, format, output string
	var noJournal bool
	var jd journalDirFlag
	var af activityFlag
	cmd := &cobra.Command{
		Use:   "report [PATH] [-f PATH | --journal FILE | --git PATH] [--journal-dir DIR] [--no-activity] [--format md|json|html] [-o FILE]",
		Short: "A post-mortem of a loop: outcome, atoms, OR decisions, corrections, iterations, graph",
		Long: `Writes a post-mortem of a loop: objective and base_case; outcome (status,
stop_reason, iterations used of the maximum); resolved atoms with their bindings;
OR decisions with their reasons (also trail entries a later objective change
cleared); every correction with its time and type; what each iteration did
(atoms resolved, reset, added, backtracks, stall count); a drawing of the final
graph; the run over time (unresolved atoms and stall count); and the cost and
time per atom and per iteration: the time from the versions (an atom from
in_progress to resolved or pending), and the tokens (input, output, cache) and
their estimated cost from Claude Code's transcripts of the loop's sessions, at
the prices of a dated table (--no-activity: the transcripts are not read).

The history comes from the loop's journal when there is one, with the file as
the final state (--no-journal: the file alone), from --journal FILE, or from the
file's git commits (--git PATH). The loop's journal is the TUI's, in the journal
directory (--journal-dir; by default
` + journalDirDefault + `),
read together with one an older aot-tui kept beside the state file. From the file
alone there are no iterations to tell.

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
			if jd.dir != "" && (journal != "" || gitPath != "" || noJournal) {
				return fail(exitUsage, "--journal-dir finds the journal of the state file; it does not go with --journal, --git or --no-journal")
			}
			rec, err := reportSource(path, journal, gitPath, noJournal, &jd, g)
			if err != nil {
				return err
			}
			r, err := report.Build(rec.source, rec.versions)
			if err != nil {
				return fail(exitInvalid, "%v", err)
			}
			r.Notes = append(rec.notes, r.Notes...)
			if af.off {
				r.NoActivity()
			} else {
				reportActivity(r, rec)
			}
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
	f.BoolVar(&noJournal, "no-journal", false, "read the state file alone, not its journal")
	jd.register(cmd, "look for the journal in this directory")
	af.register(cmd)
	f.StringVar(&format, "format", "md", "md, json or html")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}

// reportSource reads the versions a report is made of.
func reportSource(path, journal, gitPath string, noJournal bool, jd *journalDirFlag, g *globalFlags) (*recorded, error) {
	switch {
	case journal != "":
		return fromJournal([]string{journal})
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
		if rec, err := fromJournal(jd.journals(t.Path)); err == nil {
			if last := rec.versions[len(rec.versions)-1]; !bytes.Equal(last.Data, data) {
				rec.versions = append(rec.versions, final)
				rec.notes = append(rec.notes, "the state file has changed since the journal's last version: it is the final state here")
			}
			rec.source = fmt.Sprintf("%s with its journal %s", t.Path, rec.shortSource())
			rec.target = t
			return rec, nil
		}
	}
	return &recorded{source: t.Path, target: t, versions: []history.Version{final}}, nil
}

// reportActivity adds to r what Claude Code's transcripts of the loop's
// sessions used (report.AddActivity), read as status reads them
// (activityFor), since the first version (a day before the only one),
// with the iterations the versions give.
func reportActivity(r *report.Report, rec *recorded) {
	o, notes := activityFor(rec.target.Path, r.AtomIDs(), nil)
	r.Notes = append(r.Notes, notes...)
	o.Iterations = r.IterationMarks()
	o.Since = r.Outcome.Start
	if last := rec.versions[len(rec.versions)-1].At; o.Since.IsZero() && !last.IsZero() {
		o.Since = last.Add(-activityWindow)
	}
	r.AddActivity(agent.Open(o), o.Prices)
}
