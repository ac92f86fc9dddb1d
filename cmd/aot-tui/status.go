package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui"
	"github.com/aot-loop/aot-tui/ui/termtext"
	"github.com/spf13/cobra"
)

func newStatusCmd(g *globalFlags) *cobra.Command {
	var ff fileFlag
	var asJSON bool
	var sf scanFlags
	cmd := &cobra.Command{
		Use:   "status [PATH] [-f PATH] [--json] | status --scan [DIR ...] [--depth N] [--json]",
		Short: "One-shot summary of a loop: status, goal, iteration, stall, progress, next batch",
		Long: `Prints a one-shot summary of the loop's state file.

For an AoT loop: status, goal, iteration N/MAX, stall N/MAX, the progress class,
atom counts, the next batch of executable atoms, the redirect/stop flags and the
stop hook's next decision. --json keeps the keys of the seed's read_state.py
(exists, status, iteration, stall_count, stop_requested, redirect_requested,
stop_reason, atoms, executable_atoms, bindings, summary) and adds its own.
For a phase loop, --json reports kind "phase-loop" with the file's own fields.

--scan prints the fleet table instead: every loop under the DIRs (default .),
needing attention first; --json gives {dirs, depth, summary, loops} with one
object per loop (path, project, name, kind, file, status, goal, iteration,
stall_count, attention, reason, changed, ...; see the README).

Exit codes: 0 ok, 1 the file cannot be parsed, 2 usage or I/O error.`,
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
			if sf.on {
				return runStatusScan(cmd, args, &sf, ff.path, g, asJSON)
			}
			path, err := ff.resolve(args)
			if err != nil {
				return err
			}
			defer collectLess()()
			l, err := load(path, g)
			if err != nil {
				return err
			}
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
	sf.register(cmd)
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
// collector run again: several times what the largest file read by default
// (16 MiB) keeps alive.
const oneShotMemoryLimit = 512 << 20

// writeJSON prints v indented by two spaces, as the seed's scripts do.
// It marshals compactly and indents into a buffer sized up front: for a
// 10,000-atom status, json.Encoder's own indenting grows and copies its
// buffers several times over.
func writeJSON(w io.Writer, v any) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return
	}
	out := bytes.NewBuffer(make([]byte, 0, compact.Len()*2))
	if err := json.Indent(out, compact.Bytes(), "", "  "); err != nil {
		return
	}
	_, _ = w.Write(out.Bytes())
}

// writeAoTStatusJSON writes what writeJSON(w, aotStatusJSON(l)) writes —
// the same keys, values, order and indentation — in one pass from the
// state, through a small buffer. At 10,000 atoms the struct, the compact
// encoding and the indented copy of it were a quarter of the command's
// time and 10 MB of fresh memory (TestStatusJSONStreamsTheSame compares
// the two on many files).
func writeAoTStatusJSON(w io.Writer, l *loaded) {
	s, f := l.AoT.State, l.Facts
	c := s.Control
	cons := s.Objective.Constraints
	// The checks are printed last: on a second core they run while the
	// atoms are written (both only read s and f).
	checked := make(chan model.Report, 1)
	go func() { checked <- model.ValidateWith(s, f) }()
	j := &jsonStream{w: bufio.NewWriterSize(w, 64<<10)}
	j.open('{')
	j.key("exists")
	j.bool(true)
	j.key("status")
	j.str(string(c.Status))
	j.key("iteration")
	j.int(c.Iteration)
	j.key("stall_count")
	j.int(c.StallCount)
	j.key("stop_requested")
	j.bool(c.StopRequested)
	j.key("redirect_requested")
	j.bool(c.RedirectRequested)
	j.key("stop_reason")
	if c.StopReason != "" {
		j.str(c.StopReason)
	} else {
		j.null()
	}
	j.key("atoms")
	j.open('[')
	for i := range s.Atoms {
		j.atom(&s.Atoms[i])
	}
	j.close(']')
	j.key("executable_atoms")
	j.open('[')
	for _, id := range f.Executable {
		j.atom(&s.Atoms[f.Index[id]])
	}
	j.close(']')
	j.key("bindings")
	j.open('{')
	// A map in the struct: the last binding of an id wins, keys sorted.
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
	for _, i := range order {
		b := &s.Bindings[i]
		j.key(b.AtomID)
		j.open('{')
		j.key("summary")
		j.str(b.Summary)
		j.key("artifacts")
		j.strs(b.Artifacts, false)
		j.close('}')
	}
	j.close('}')
	j.key("summary")
	j.open('{')
	for _, kv := range []struct {
		k string
		v int
	}{{"total", f.Counts.Total}, {"pending", f.Counts.Pending}, {"in_progress", f.Counts.InProgress},
		{"resolved", f.Counts.Resolved}, {"executable", len(f.Executable)}} {
		j.key(kv.k)
		j.int(kv.v)
	}
	j.close('}')
	j.key("kind")
	j.str("aot-loop")
	j.key("path")
	j.str(l.Target.Path)
	j.key("goal")
	j.str(s.Objective.Goal)
	j.key("max_iterations")
	j.int(cons.EffectiveMaxIterations())
	j.key("max_stall_count")
	j.int(cons.EffectiveMaxStallCount())
	j.key("max_parallel_agents")
	j.int(cons.EffectiveMaxParallelAgents())
	j.key("prev_pending_count")
	j.int(c.PrevPendingCount)
	j.key("unresolved")
	j.int(f.Counts.Unresolved())
	j.key("progress")
	j.str(string(f.Progress))
	j.key("next_batch")
	j.strs(f.NextBatch, false)
	j.key("longest_chain")
	j.strs(f.LongestChain, false)
	o := model.PredictOutlook(s, f)
	j.key("outlook")
	j.open('{')
	j.key("decision")
	j.str(string(o.Decision))
	j.key("text")
	j.str(o.Text)
	j.key("warning")
	j.bool(o.Warning)
	j.key("next_stall")
	j.int(o.NextStall)
	j.close('}')
	v := <-checked
	j.key("valid")
	j.bool(v.Valid)
	j.key("errors")
	j.strs(v.Errors, true)
	j.key("warnings")
	j.strs(v.Warnings, true)
	j.close('}')
	j.w.WriteByte('\n')
	_ = j.w.Flush()
}

// jsonStream writes JSON as json.Encoder (HTML not escaped) and then
// json.Indent(dst, src, "", "  ") would: two spaces a level, "key": value,
// empty arrays and objects as [] and {}.
type jsonStream struct {
	w         *bufio.Writer
	depth     int
	empty     bool // the container just opened has no element yet
	valueNext bool // a key was written: its value follows on the same line
	buf       []byte
}

// elem starts an element: a new line, after a comma unless it is the
// first, or nothing for the value of a key.
func (j *jsonStream) elem() {
	if j.valueNext {
		j.valueNext = false
		return
	}
	if j.depth == 0 {
		return
	}
	if j.empty {
		j.empty = false
	} else {
		j.w.WriteByte(',')
	}
	j.newline()
}

func (j *jsonStream) newline() {
	j.w.WriteByte('\n')
	for range j.depth {
		j.w.WriteString("  ")
	}
}

func (j *jsonStream) open(c byte) {
	j.elem()
	j.w.WriteByte(c)
	j.depth++
	j.empty = true
}

func (j *jsonStream) close(c byte) {
	j.depth--
	if j.empty {
		j.empty = false
	} else {
		j.newline()
	}
	j.w.WriteByte(c)
}

func (j *jsonStream) key(k string) {
	j.elem()
	j.quote(k)
	j.w.WriteString(": ")
	j.valueNext = true
}

func (j *jsonStream) str(s string) {
	j.elem()
	j.quote(s)
}

func (j *jsonStream) int(n int) {
	j.elem()
	j.buf = strconv.AppendInt(j.buf[:0], int64(n), 10)
	j.w.Write(j.buf)
}

func (j *jsonStream) bool(b bool) {
	j.elem()
	if b {
		j.w.WriteString("true")
	} else {
		j.w.WriteString("false")
	}
}

func (j *jsonStream) null() {
	j.elem()
	j.w.WriteString("null")
}

// strs writes a list of strings; nil is null when nilIsNull, else [].
func (j *jsonStream) strs(list []string, nilIsNull bool) {
	if list == nil && nilIsNull {
		j.null()
		return
	}
	j.open('[')
	for _, s := range list {
		j.str(s)
	}
	j.close(']')
}

// atom writes an atom as atomJSON is encoded.
func (j *jsonStream) atom(a *model.Atom) {
	j.open('{')
	j.key("id")
	j.str(a.ID)
	j.key("description")
	j.str(a.Description)
	j.key("status")
	j.str(string(a.Status))
	j.key("depends_on")
	j.strs(a.DependsOn, false)
	if a.ORGroup != "" {
		j.key("or_group")
		j.str(a.ORGroup)
	}
	j.close('}')
}

// quote writes s as a JSON string, escaped as encoding/json escapes it
// with HTML escaping off: quote, backslash and control characters (\b \f
// \n \r \t by name, the others as \u00XX), invalid UTF-8 as \ufffd, and
// U+2028 and U+2029.
func (j *jsonStream) quote(s string) {
	const hex = "0123456789abcdef"
	b := append(j.buf[:0], '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	b = append(b, '"')
	j.w.Write(b)
	j.buf = b
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
	Valid             bool          `json:"valid"`
	Errors            []string      `json:"errors"`
	Warnings          []string      `json:"warnings"`
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
		Outlook: model.PredictOutlook(s, f),
		Valid:   v.Valid, Errors: v.Errors, Warnings: v.Warnings,
	}
	if c.StopReason != "" {
		r := c.StopReason
		out.StopReason = &r
	}
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
	status := string(c.Status)
	if status == "" {
		status = "unknown"
	}
	fmt.Fprintf(w, "status    %s %s\n", ui.LoopGlyph(c.Status), line(status))
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
	if len(f.NextBatch) == 0 {
		fmt.Fprintf(w, "next      none executable\n")
	} else {
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
	o := model.PredictOutlook(s, f)
	mark := ""
	if o.Warning {
		mark = "⚠ "
	}
	fmt.Fprintf(w, "outlook   %s%s\n", mark, line(o.Text))
	v := model.ValidateWith(s, f)
	if len(v.Errors)+len(v.Warnings) > 0 {
		fmt.Fprintf(w, "checks    %s (aot-tui validate shows them)\n", textfmt.Plural(len(v.Errors), "error")+", "+textfmt.Plural(len(v.Warnings), "warning"))
	}
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
		switch {
		case done[ph]:
			pipe = append(pipe, "✓ "+ph)
		case ph == p.Phase:
			pipe = append(pipe, "▶ "+ph)
		default:
			pipe = append(pipe, "· "+ph)
		}
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
	full, _ := ui.ProgressLabel(p)
	return full
}
