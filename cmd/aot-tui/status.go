package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/spf13/cobra"
)

func newStatusCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON bool
	var sf scanFlags
	var jd journalDirFlag
	var af activityFlag
	var fl followFlags
	cmd := &cobra.Command{
		Use:   "status [PATH] [-f PATH] [--journal-dir DIR] [--no-activity] [--json] | status --scan [DIR ...] [--depth N] [--watch MODE] [--json [--follow [--heartbeat D]]]",
		Short: "One-shot summary of a loop: status, goal, iteration, stall, progress, next batch",
		Long: `Prints a one-shot summary of the loop's state file.

For an AoT loop: status, goal, iteration N/MAX, stall N/MAX, the progress class,
atom counts, the next batch of executable atoms, the redirect/stop flags and the
stop hook's next decision. --json keeps the keys of the seed's read_state.py
(exists, status, iteration, stall_count, stop_requested, redirect_requested,
stop_reason, atoms, executable_atoms, bindings, summary) and adds its own.
For a phase loop, --json reports kind "phase-loop" with the file's own fields.

--scan prints the fleet table instead: every loop under the DIRs (default .),
needing attention first, and last how the live table (aot-tui --scan) would
watch them: the directories, on macOS and the BSDs the descriptors of its
budget, and the loops it would leave to the stat poll. --json gives {dirs,
depth, summary, loops, watch} with one object per loop (path, project, name,
kind, file, status, goal, iteration, stall_count, attention, reason, changed,
activity, ...) and watch's mode, backend, dirs, claude_dirs, descriptors, budget,
open_files_limit, loops, polled, poll_ms, rescan_ms (see the README). A loop
whose Claude Code session waits for you comes first (attention needs_you);
each loop's activity is what status --json prints for it (null with
--no-activity).

--scan --json --follow keeps going, for a reader on another machine (through
ssh): that object on one line, then one line per change — a row that changed or
a loop that appeared, a loop that went, a heartbeat after --heartbeat (15s)
without another line — until stdin closes or SIGINT, SIGTERM or SIGHUP comes,
exit 0. Newline-delimited JSON, each line with its schema version "v" and a
"kind": docs/stream.md is the schema.

When the loop is running and has a journal (the TUI records one, in the journal
directory: --journal-dir), the outlook also says which atoms were in progress
earlier in the iteration and are gone now: their workers' scripts will fail
(--json: gone_in_progress).

When Claude Code's transcripts of the project are found ($CLAUDE_CONFIG_DIR/projects,
else ~/.claude/projects), status also says what the loop's agents do now, whether
the loop waits for you (exactly when aot-tui hook install is done, else inferred
from the transcript), and the tokens and estimated cost of its sessions since the
loop began (--json: activity, null with --no-activity, which reads none of it).

Exit codes: 0 ok (a file that fails validation included: "checks" says so), 1 the
file cannot be parsed, 2 usage or I/O error (a file over --max-size included).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if sf.on {
				return nil // directories, any number
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sf.check(cmd.Flags()); err != nil {
				return err
			}
			if err := fl.check(cmd); err != nil {
				return err
			}
			if fl.on {
				return runStatusFollow(cmd, args, &sf, ff.path, g, asJSON, &fl, af.fleetActivity(&jd))
			}
			if sf.on {
				return runStatusScan(cmd, args, &sf, ff.path, g, asJSON, af.fleetActivity(&jd))
			}
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			defer collectLess()()
			// status --json of an AoT loop derives the facts itself
			// (writeAoTStatusJSON); the phase loop has none.
			l, err := loadFacts(path, g, !asJSON, &jd)
			if err != nil {
				return err
			}
			l.readGone()
			l.readActivity(&af, &jd)
			out := cmd.OutOrStdout()
			if l.ParseErr != nil {
				if asJSON {
					writeJSON(out, map[string]any{"exists": true, "kind": l.Target.Kind.String(), "path": l.Target.Path, "error": l.ParseErr.Error()})
					return silent(exitInvalid)
				}
				return fail(exitInvalid, "%v", l.ParseErr)
			}
			switch {
			case l.Phase != nil && asJSON:
				writeJSON(out, phaseStatusJSON(l))
			case l.Phase != nil:
				printPhaseStatus(out, l)
			case asJSON:
				writeAoTStatusJSON(out, l)
			default:
				printAoTStatus(out, l)
			}
			return nil
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	jd.register(cmd, "look for the loop's journal in this directory")
	af.register(cmd)
	sf.register(cmd)
	cmd.Flags().DurationVar(&sf.hostTimeout, "host-timeout", DefaultHostTimeout, "with --scan: how long to wait for each remote host's answer (a host that does not answer in time is named with that reason)")
	fl.register(cmd, "with --scan --json: the fleet, then a line per change, until stdin closes")
	return cmd
}

// collectLess turns the garbage collector off for a one-shot command, up
// to a memory limit, and returns what turns it back on (tests run commands
// in process). Reading a 10,000-atom file allocates about 35 MB, nearly
// all of it alive until the output is written, and exits: the collector's
// cycles and the write barriers they turn on were about a sixth of the
// command's CPU time. The limit keeps a much larger file (up to --max-size)
// from taking unbounded memory: from it on the collector runs again. GOGC
// or GOMEMLIMIT in the environment leave things as they are.
func collectLess() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	collecting.Lock()
	defer collecting.Unlock()
	if collecting.users == 0 {
		collecting.limit = debug.SetMemoryLimit(oneShotMemoryLimit)
		collecting.percent = debug.SetGCPercent(-1)
	}
	collecting.users++
	return func() {
		collecting.Lock()
		defer collecting.Unlock()
		if collecting.users--; collecting.users == 0 {
			debug.SetGCPercent(collecting.percent)
			debug.SetMemoryLimit(collecting.limit)
		}
	}
}

// collecting counts the commands in collectLess (tests run several at
// once) and keeps the settings the last of them puts back.
var collecting struct {
	sync.Mutex
	users   int
	percent int
	limit   int64
}

// oneShotMemoryLimit is the heap size at which collectLess lets the
// collector run again: above what reading, checking and printing a
// 250,000-atom file (35 MB) allocates in all, and what the largest file
// read by default (64 MiB) keeps alive.
const oneShotMemoryLimit = 512 << 20

// writeJSON prints v indented by two spaces, as the seed's scripts do,
// with control and bidi characters as \u escapes: every JSON the CLI
// prints goes through it (or, for status at 10,000 atoms, through
// jsonstream.Writer, which writes the same bytes).
func writeJSON(w io.Writer, v any) {
	_ = jsonstream.Encode(w, v)
}

// writeAoTStatusJSON writes what writeJSON(w, aotStatusJSON(l)) writes —
// the same keys, values, order and indentation — in one pass from the
// state, through a small buffer. At 10,000 atoms the struct, the compact
// encoding and the indented copy of it were a quarter of the command's
// time and 10 MB of fresh memory (TestStatusJSONStreamsTheSame compares
// the two on many files). When l has no Facts yet, they are derived on a
// second core while the atoms are written (at 100,000 atoms Derive is a
// seventh of the command), and l gets them.
func writeAoTStatusJSON(w io.Writer, l *loaded) {
	s, f := l.AoT.State, l.Facts
	c := s.Control
	cons := s.Objective.Constraints
	// The outlook and the checks are printed last: on other cores they
	// are made, each on its own, while the atoms, the executable atoms
	// and the bindings are written (all only read s and f).
	derived := make(chan *model.Facts, 1)
	predicted := make(chan model.Outlook, 1)
	checked := make(chan model.Report, 1)
	go func() {
		f := f
		if f == nil {
			f = model.Derive(s)
		}
		derived <- f
		l.waitLoopRead()
		go func() { checked <- model.ValidateWith(s, f) }()
		predicted <- model.PredictOutlook(s, f)
	}()
	j := jsonstream.New(w)
	j.Open('{')
	j.Key("exists")
	j.Bool(true)
	j.Key("status")
	j.Str(string(c.Status))
	j.Key("iteration")
	j.Int(c.Iteration)
	j.Key("stall_count")
	j.Int(c.StallCount)
	j.Key("stop_requested")
	j.Bool(c.StopRequested)
	j.Key("redirect_requested")
	j.Bool(c.RedirectRequested)
	j.Key("stop_reason")
	if c.StopReason != "" {
		j.Str(c.StopReason)
	} else {
		j.Null()
	}
	j.Key("atoms")
	j.Open('[')
	for i := range s.Atoms {
		streamAtom(j, &s.Atoms[i])
	}
	j.Close(']')
	// The bindings' order needs no facts: it is found while they are
	// derived. A map in the struct: the last binding of an id wins, keys
	// sorted.
	last := make(map[string]int, len(s.Bindings))
	for i, b := range s.Bindings {
		last[b.AtomID] = i
	}
	order := make([]int, 0, len(last))
	for i, b := range s.Bindings {
		if last[b.AtomID] == i {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(s.Bindings[a].AtomID, s.Bindings[b].AtomID) })
	f = <-derived
	l.Facts = f
	j.Key("executable_atoms")
	j.Open('[')
	for _, id := range f.Executable {
		streamAtom(j, &s.Atoms[f.Index[id]])
	}
	j.Close(']')
	j.Key("bindings")
	j.Open('{')
	for _, i := range order {
		b := &s.Bindings[i]
		j.Key(b.AtomID)
		j.Open('{')
		j.Key("summary")
		j.Str(b.Summary)
		j.Key("artifacts")
		j.Strs(b.Artifacts, false)
		j.Close('}')
	}
	j.Close('}')
	j.Key("summary")
	j.Open('{')
	for _, kv := range []struct {
		k string
		v int
	}{{"total", f.Counts.Total}, {"pending", f.Counts.Pending}, {"in_progress", f.Counts.InProgress},
		{"resolved", f.Counts.Resolved}, {"executable", len(f.Executable)}} {
		j.Key(kv.k)
		j.Int(kv.v)
	}
	j.Close('}')
	j.Key("kind")
	j.Str("aot-loop")
	j.Key("path")
	j.Str(l.Target.Path)
	j.Key("goal")
	j.Str(s.Objective.Goal)
	j.Key("max_iterations")
	j.Int(cons.EffectiveMaxIterations())
	j.Key("max_stall_count")
	j.Int(cons.EffectiveMaxStallCount())
	j.Key("max_parallel_agents")
	j.Int(cons.EffectiveMaxParallelAgents())
	j.Key("prev_pending_count")
	j.Int(c.PrevPendingCount)
	j.Key("unresolved")
	j.Int(f.Counts.Unresolved())
	j.Key("progress")
	j.Str(string(f.Progress))
	j.Key("next_batch")
	j.Strs(f.NextBatch, false)
	j.Key("longest_chain")
	j.Strs(f.LongestChain, false)
	o := model.WithGone(<-predicted, l.gone())
	j.Key("outlook")
	j.Open('{')
	j.Key("decision")
	j.Str(string(o.Decision))
	j.Key("text")
	j.Str(o.Text)
	j.Key("warning")
	j.Bool(o.Warning)
	j.Key("next_stall")
	j.Int(o.NextStall)
	j.Close('}')
	j.Key("gone_in_progress")
	j.Open('[')
	for _, g := range l.gone() {
		j.Open('{')
		j.Key("id")
		j.Str(g.ID)
		j.Key("description")
		j.Str(g.Description)
		j.Key("iteration")
		j.Int(g.Iteration)
		j.Close('}')
	}
	j.Close(']')
	v := <-checked
	j.Key("valid")
	j.Bool(v.Valid)
	j.Key("errors")
	j.Strs(v.Errors, true)
	j.Key("warnings")
	j.Strs(v.Warnings, true)
	j.Key("activity")
	_ = j.Value(activityOf(l))
	j.Close('}')
	_ = j.End()
}

// streamAtom writes an atom as atomJSON is encoded.
func streamAtom(j *jsonstream.Writer, a *model.Atom) {
	j.Open('{')
	j.Key("id")
	j.Str(a.ID)
	j.Key("description")
	j.Str(a.Description)
	j.Key("status")
	j.Str(string(a.Status))
	j.Key("depends_on")
	j.Strs(a.DependsOn, false)
	if a.ORGroup != "" {
		j.Key("or_group")
		j.Str(a.ORGroup)
	}
	j.Close('}')
}

type atomJSON struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	DependsOn   []string `json:"depends_on"`
	ORGroup     string   `json:"or_group,omitempty"`
}

type bindingJSON struct {
	Summary   string   `json:"summary"`
	Artifacts []string `json:"artifacts"`
}

type summaryJSON struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Resolved   int `json:"resolved"`
	Executable int `json:"executable"`
}

type aotStatus struct {
	// The keys of read_state.py.
	Exists            bool                   `json:"exists"`
	Status            string                 `json:"status"`
	Iteration         int                    `json:"iteration"`
	StallCount        int                    `json:"stall_count"`
	StopRequested     bool                   `json:"stop_requested"`
	RedirectRequested bool                   `json:"redirect_requested"`
	StopReason        *string                `json:"stop_reason"`
	Atoms             []atomJSON             `json:"atoms"`
	ExecutableAtoms   []atomJSON             `json:"executable_atoms"`
	Bindings          map[string]bindingJSON `json:"bindings"`
	Summary           summaryJSON            `json:"summary"`
	// Ours.
	Kind              string        `json:"kind"`
	Path              string        `json:"path"`
	Goal              string        `json:"goal"`
	MaxIterations     int           `json:"max_iterations"`
	MaxStallCount     int           `json:"max_stall_count"`
	MaxParallelAgents int           `json:"max_parallel_agents"`
	PrevPendingCount  int           `json:"prev_pending_count"`
	Unresolved        int           `json:"unresolved"`
	Progress          string        `json:"progress"`
	NextBatch         []string      `json:"next_batch"`
	LongestChain      []string      `json:"longest_chain"`
	Outlook           model.Outlook `json:"outlook"`
	GoneInProgress    []model.Gone  `json:"gone_in_progress"`
	Valid             bool          `json:"valid"`
	Errors            []string      `json:"errors"`
	Warnings          []string      `json:"warnings"`
	Activity          *agent.Report `json:"activity"`
}

func toAtomJSON(a model.Atom) atomJSON {
	deps := a.DependsOn
	if deps == nil {
		deps = []string{}
	}
	return atomJSON{ID: a.ID, Description: a.Description, Status: string(a.Status), DependsOn: deps, ORGroup: a.ORGroup}
}

func aotStatusJSON(l *loaded) aotStatus {
	s, f := l.AoT.State, l.Facts
	c := s.Control
	cons := s.Objective.Constraints
	v := model.ValidateWith(s, f)
	out := aotStatus{
		Exists: true, Status: string(c.Status), Iteration: c.Iteration, StallCount: c.StallCount,
		StopRequested: c.StopRequested, RedirectRequested: c.RedirectRequested,
		Atoms:           make([]atomJSON, 0, len(s.Atoms)),
		ExecutableAtoms: make([]atomJSON, 0, len(f.Executable)),
		Bindings:        make(map[string]bindingJSON, len(s.Bindings)),
		Summary: summaryJSON{Total: f.Counts.Total, Pending: f.Counts.Pending, InProgress: f.Counts.InProgress,
			Resolved: f.Counts.Resolved, Executable: len(f.Executable)},
		Kind: "aot-loop", Path: l.Target.Path, Goal: s.Objective.Goal,
		MaxIterations: cons.EffectiveMaxIterations(), MaxStallCount: cons.EffectiveMaxStallCount(),
		MaxParallelAgents: cons.EffectiveMaxParallelAgents(), PrevPendingCount: c.PrevPendingCount,
		Unresolved: f.Counts.Unresolved(), Progress: string(f.Progress),
		NextBatch: nonNil(f.NextBatch), LongestChain: nonNil(f.LongestChain),
		Outlook:        model.WithGone(model.PredictOutlook(s, f), l.gone()),
		GoneInProgress: make([]model.Gone, 0, len(l.gone())),
		Valid:          v.Valid, Errors: v.Errors, Warnings: v.Warnings,
		Activity: activityOf(l),
	}
	if c.StopReason != "" {
		r := c.StopReason
		out.StopReason = &r
	}
	out.GoneInProgress = append(out.GoneInProgress, l.gone()...)
	for _, a := range s.Atoms {
		out.Atoms = append(out.Atoms, toAtomJSON(a))
	}
	for _, id := range f.Executable {
		out.ExecutableAtoms = append(out.ExecutableAtoms, toAtomJSON(s.Atoms[f.Index[id]]))
	}
	for _, b := range s.Bindings {
		arts := b.Artifacts
		if arts == nil {
			arts = []string{}
		}
		out.Bindings[b.AtomID] = bindingJSON{Summary: b.Summary, Artifacts: arts}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// bar draws a text progress bar of width cells.
func bar(n, limit, width int) string {
	if limit <= 0 {
		limit = 1
	}
	filled := n * width / limit
	filled = min(max(filled, 0), width)
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

func printAoTStatus(w io.Writer, l *loaded) {
	s, f := l.AoT.State, l.Facts
	c := s.Control
	cons := s.Objective.Constraints
	line := termtext.Line
	fmt.Fprintf(w, "AoT loop · %s\n", line(l.Target.Path))
	fmt.Fprintf(w, "status    %s %s\n", loopword.LoopGlyph(c.Status), line(loopword.StatusText(c.Status)))
	fmt.Fprintf(w, "goal      %s\n", line(s.Objective.Goal))
	mi, ms := cons.EffectiveMaxIterations(), cons.EffectiveMaxStallCount()
	fmt.Fprintf(w, "iteration %d/%d %s\n", c.Iteration, mi, bar(c.Iteration, mi, 20))
	fmt.Fprintf(w, "stall     %d/%d %s\n", c.StallCount, ms, bar(c.StallCount, ms, 20))
	prev := "none yet"
	if c.PrevPendingCount >= 0 {
		prev = fmt.Sprint(c.PrevPendingCount)
	}
	fmt.Fprintf(w, "progress  %s (unresolved %d, previous %s)\n", progressText(f.Progress), f.Counts.Unresolved(), prev)
	counts := fmt.Sprintf("%d total · %d pending · %d in progress · %d resolved", f.Counts.Total, f.Counts.Pending, f.Counts.InProgress, f.Counts.Resolved)
	if f.Counts.Other > 0 {
		counts += fmt.Sprintf(" · %d with an unknown status", f.Counts.Other)
	}
	fmt.Fprintf(w, "atoms     %s\n", counts)
	switch {
	case c.Status == model.LoopStopped || c.Status == model.LoopCompleted:
		// An ended loop runs nothing next, whatever is executable.
		fmt.Fprintf(w, "next      none: the loop is %s\n", c.Status)
	case len(f.NextBatch) == 0:
		fmt.Fprintf(w, "next      none executable\n")
	default:
		for i, id := range f.NextBatch {
			label := "next     "
			if i > 0 {
				label = "         "
			}
			fmt.Fprintf(w, "%s ▶ %s %s\n", label, line(id), line(s.Atoms[f.Index[id]].Description))
		}
		if rest := len(f.Executable) - len(f.NextBatch); rest > 0 {
			fmt.Fprintf(w, "           (+%d more executable, max_parallel_agents %d)\n", rest, cons.EffectiveMaxParallelAgents())
		}
	}
	var flags []string
	if c.RedirectRequested {
		flags = append(flags, "REDIRECT requested")
	}
	if c.StopRequested {
		flags = append(flags, "STOP requested")
	}
	if len(flags) > 0 {
		fmt.Fprintf(w, "flags     %s\n", strings.Join(flags, " · "))
	}
	if c.StopReason != "" {
		fmt.Fprintf(w, "reason    %s\n", line(c.StopReason))
	}
	o := model.WithGone(model.PredictOutlook(s, f), l.gone())
	mark := ""
	if o.Warning {
		mark = "⚠ "
	}
	fmt.Fprintf(w, "outlook   %s%s\n", mark, line(o.Text))
	v := model.ValidateWith(s, f)
	if len(v.Errors)+len(v.Warnings) > 0 {
		fmt.Fprintf(w, "checks    %s (aot-tui validate shows them)\n", textfmt.Plural(len(v.Errors), "error")+", "+textfmt.Plural(len(v.Warnings), "warning"))
	}
	printActivity(w, l, time.Now())
}

func phaseStatusJSON(l *loaded) map[string]any {
	p := l.Phase
	raw, _ := json.Marshal(p)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	for k, v := range p.Extra {
		out[k] = v
	}
	if art, ok := out["artifacts"].(map[string]any); ok {
		for k, v := range p.Artifacts.Extra {
			art[k] = v
		}
	}
	v := model.ValidatePhaseLoop(p)
	out["kind"] = "phase-loop"
	out["path"] = l.Target.Path
	out["exists"] = true
	out["phases_remaining"] = nonNil(p.RemainingPhases())
	out["shipped"] = p.Shipped()
	// "errors" is the file's own field (the loop's recorded errors): the
	// validation findings go under names the file does not use.
	out["valid"] = v.Valid
	out["validation_errors"] = v.Errors
	out["validation_warnings"] = v.Warnings
	return out
}

func printPhaseStatus(w io.Writer, l *loaded) {
	p := l.Phase
	line := termtext.Line
	fmt.Fprintf(w, "phase loop · %s\n", line(l.Target.Path))
	fmt.Fprintf(w, "feature   %s\n", line(p.Feature))
	idx := model.PhaseIndex(p.Phase)
	fmt.Fprintf(w, "phase     %s (%d of %d)\n", line(p.Phase), idx+1, len(model.Phases))
	var pipe []string
	done := map[string]bool{}
	for _, ph := range p.PhasesCompleted {
		done[ph] = true
	}
	for _, ph := range model.Phases {
		pipe = append(pipe, loopword.PhaseGlyph(done[ph], ph == p.Phase)+" "+ph)
	}
	fmt.Fprintf(w, "pipeline  %s\n", strings.Join(pipe, "  "))
	mpi, mi, mf := p.EffectiveMaxPhaseIterations(), p.EffectiveMaxIterations(), p.EffectiveMaxFixCycles()
	fmt.Fprintf(w, "phase it. %d/%d %s\n", p.PhaseIteration, mpi, bar(p.PhaseIteration, mpi, 20))
	fmt.Fprintf(w, "global    %d/%d %s\n", p.GlobalIteration, mi, bar(p.GlobalIteration, mi, 20))
	fmt.Fprintf(w, "fix cycles %d/%d\n", p.FixReviewCycles, mf)
	if len(p.Errors) > 0 {
		e := p.Errors[len(p.Errors)-1]
		fmt.Fprintf(w, "errors    %d, latest (%s, iteration %d): %s\n", len(p.Errors), line(e.Phase), e.Iteration, line(e.Message))
	} else {
		fmt.Fprintf(w, "errors    none\n")
	}
	v := model.ValidatePhaseLoop(p)
	if len(v.Errors)+len(v.Warnings) > 0 {
		fmt.Fprintf(w, "checks    %s (aot-tui validate shows them)\n", textfmt.Plural(len(v.Errors), "error")+", "+textfmt.Plural(len(v.Warnings), "warning"))
	}
}

func progressText(p model.Progress) string {
	full, _ := loopword.ProgressLabel(p)
	return full
}
