// Package verify runs an AoT loop's base_case checks now, as the loop's own
// verify_checklist.py does, so that a person can see whether the objective
// really holds before trusting "completed".
//
// command and not_command checks run through the shell (/bin/sh -c, as
// Python's subprocess does with shell=True) in the loop's project
// directory, each with a timeout; file and not_file checks test whether a
// path exists, or whether a glob pattern matches, as verify_file.py does.
// assertion and quality checks are judged by a person (or the loop's
// verifier agent): they are reported as not checkable here and never run.
// A group passes when all of its checkable items pass, an any_of when one
// does; items that are not checkable are left out of both, as the script
// leaves them out. Where this package and the script differ, it is on
// purpose, and said where it happens (see also README.md).
package verify

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
)

// Outcome is what a check or a group came to.
type Outcome string

// Outcomes.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	// NotCheckable: judged by a person (assertion, quality), or a group
	// holding only such items.
	NotCheckable Outcome = "not_checkable"
	// NotRun: the run was stopped before the check finished.
	NotRun Outcome = "not_run"
)

// Defaults, as the loop's scripts have them.
const (
	// DefaultTimeout is verify_command.py's --timeout default.
	DefaultTimeout = 120 * time.Second
	// DefaultOutputLimit is how many bytes of each of stdout and stderr a
	// check keeps: the first and the last half of it.
	DefaultOutputLimit = 64 << 10
)

// Options tune a run.
type Options struct {
	// Dir is where commands run and relative paths resolve: the loop's
	// project directory (ProjectDir). "" is the current directory.
	Dir string
	// Timeout bounds each command (DefaultTimeout when zero).
	Timeout time.Duration
	// OutputLimit is the bytes kept per stream (DefaultOutputLimit when zero).
	OutputLimit int
	// Env is the commands' environment (nil: this process's).
	Env []string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Progress, when set, is called before and after each check that is
	// run (commands and file checks), on the goroutine of Run.
	Progress func(Progress)
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// Progress reports a check starting (Done false) or finished (Done true).
type Progress struct {
	// Index is the check's 0-based place among the Total checks that run.
	Index, Total int
	Done         bool
	// Result is a copy of the check's result (Outcome and the rest set
	// when Done).
	Result Result
}

// Output is what a command wrote on one stream, cut in the middle when it
// was longer than the limit.
type Output struct {
	// Text is the kept bytes: the first half of the limit, then (when cut)
	// the last half.
	Text string
	// Bytes is how much the command wrote; Omitted how much of it is not
	// in Text (cut out between the head and the tail).
	Bytes, Omitted int64
	// Cut is the offset in Text where the omitted bytes were.
	Cut int
}

// Tail is the last keep lines of o (CRLF read as LF, the final line break
// dropped) with its heading: name, then how many lines were left out
// before them and how many bytes from the middle. Empty output (blank
// only) has no lines.
func (o Output) Tail(name string, keep int) (heading string, lines []string) {
	if strings.TrimSpace(o.Text) == "" {
		return name, nil
	}
	lines = strings.Split(strings.TrimRight(strings.ReplaceAll(o.Text, "\r\n", "\n"), "\n"), "\n")
	heading = name
	if len(lines) > keep {
		heading += fmt.Sprintf(" (last %d of %d lines)", keep, len(lines))
		lines = lines[len(lines)-keep:]
	}
	if o.Omitted > 0 {
		heading += fmt.Sprintf(" (%d bytes cut from the middle)", o.Omitted)
	}
	return heading, lines
}

// Result is one checklist item's verdict (or the legacy base_case's).
type Result struct {
	// Position is the item's 1-based place: [2 1] is the first item of
	// the second top-level item's group (as the objective view numbers it).
	Position []int
	Item     string
	// Kind is "check", "group", "any_of", or "" when the item has none.
	Kind  string
	Type  model.CheckType
	Value string

	Outcome Outcome
	// Evidence is worded as the loop's scripts word it.
	Evidence string
	// Reason says more where the script's evidence would mislead: a
	// missing program, a timeout, an empty value, a check a person judges.
	Reason string

	// Commands.
	Ran      bool // a shell was started (ExitCode is meaningful)
	ExitCode int  // -1 after a timeout; -N when killed by signal N
	TimedOut bool
	NotFound bool // the shell could not find or execute the program (127, 126)
	Stdout   Output
	Stderr   Output

	// File checks.
	Exists  bool
	IsGlob  bool
	Matches int

	// When the check ran and for how long (zero for checks not run).
	Started  time.Time
	Duration time.Duration

	// Children are a group's or an any_of's items.
	Children []*Result
}

// Pos is the position as the objective view shows it: "2.1".
func (r *Result) Pos() string { return PosString(r.Position) }

// PosString renders a position path: [2 1] is "2.1".
func PosString(p []int) string {
	parts := make([]string, len(p))
	for i, n := range p {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}

// Counts are the verdicts of the checks (leaves), not of the groups.
type Counts struct {
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	NotCheckable int `json:"not_checkable"`
	NotRun       int `json:"not_run"`
}

// Report is a whole run.
type Report struct {
	Dir     string
	Timeout time.Duration
	// Legacy is set for a base_case in the legacy {type, value} format.
	Legacy bool
	Items  []*Result
	// Outcome is the base_case's: fail when a checkable item fails; pass
	// when at least one item could be checked and none failed;
	// not_checkable when nothing could be checked here; not_run when the
	// run was stopped.
	Outcome  Outcome
	Counts   Counts
	Started  time.Time
	Duration time.Duration
	// Stopped is set when ctx ended the run early.
	Stopped bool
}

// Passed reports whether the base_case holds as far as it can be checked
// here (the CLI's exit code 0).
func (r *Report) Passed() bool { return r.Outcome == Pass }

// Planned is a check that a run would carry out.
type Planned struct {
	Position []int
	Item     string
	Type     model.CheckType
	Value    string
}

// Runs reports whether the check starts a process.
func (p Planned) Runs() bool { return p.Type == model.CheckCommand || p.Type == model.CheckNotCommand }

// Plan lists bc's checks in the order a run carries them out: every
// command, not_command, file and not_file check, including each
// alternative of an any_of (the script runs them all). Checks a person
// judges are not listed.
func Plan(bc model.BaseCase) []Planned {
	var out []Planned
	eachCheck(bc, func(pos []int, item string, c *model.Check) {
		switch c.Type {
		case model.CheckCommand, model.CheckNotCommand, model.CheckFile, model.CheckNotFile:
			out = append(out, Planned{Position: pos, Item: item, Type: c.Type, Value: c.Value})
		}
	})
	return out
}

// Judged is the number of checks of bc a person judges (assertion and
// quality): verification never runs them.
func Judged(bc model.BaseCase) int {
	n := 0
	eachCheck(bc, func(_ []int, _ string, c *model.Check) {
		if c.Type == model.CheckAssertion || c.Type == model.CheckQuality {
			n++
		}
	})
	return n
}

// ChecksKey identifies the checks of a base_case — items, nesting, types
// and values, not where they are in the file — to tell whether the loop
// changed them.
func ChecksKey(bc model.BaseCase) string {
	var b strings.Builder
	var walk func(items []model.ChecklistItem, depth int)
	walk = func(items []model.ChecklistItem, depth int) {
		for _, it := range items {
			fmt.Fprintf(&b, "%d|%q|%v|%v", depth, it.Item, it.IsGroup, it.IsAnyOf)
			if c := it.Check; c != nil {
				fmt.Fprintf(&b, "|%q|%q", c.Type, c.Value)
			}
			b.WriteByte('\n')
			walk(it.Group, depth+1)
			walk(it.AnyOf, depth+1)
		}
	}
	if bc.Legacy != nil {
		fmt.Fprintf(&b, "legacy|%q|%q\n", bc.Legacy.Type, bc.Legacy.Value)
	}
	walk(bc.Checklist, 0)
	return b.String()
}

// eachCheck calls fn for every check of bc in order, with its position
// (1-based, one number a level) and item name: the legacy single check
// as 1 "base_case", else the checklist's, groups and any_of walked into.
func eachCheck(bc model.BaseCase, fn func(pos []int, item string, c *model.Check)) {
	if !bc.IsChecklist {
		if bc.Legacy != nil {
			fn([]int{1}, "base_case", bc.Legacy)
		}
		return
	}
	var walk func(items []model.ChecklistItem, pos []int)
	walk = func(items []model.ChecklistItem, pos []int) {
		for i, it := range items {
			p := append(append([]int{}, pos...), i+1)
			switch kindOf(it) {
			case "group":
				walk(it.Group, p)
			case "any_of":
				walk(it.AnyOf, p)
			case "check":
				fn(p, itemName(it), it.Check)
			}
		}
	}
	walk(bc.Checklist, nil)
}

// Commands is the part of Plan that starts processes.
func Commands(bc model.BaseCase) []Planned {
	var out []Planned
	for _, p := range Plan(bc) {
		if p.Runs() {
			out = append(out, p)
		}
	}
	return out
}

// kindOf is what an item holds, with the script's precedence: group, then
// any_of, then check (model.ChecklistItem.Kind puts check first).
func kindOf(it model.ChecklistItem) string {
	switch {
	case it.IsGroup:
		return "group"
	case it.IsAnyOf:
		return "any_of"
	case it.Check != nil:
		return "check"
	}
	return ""
}

// itemName is the item's name, "Unknown" when it has none (as the script
// calls it).
func itemName(it model.ChecklistItem) string {
	if it.Item == "" {
		return "Unknown"
	}
	return it.Item
}

// runner carries one run's state.
type runner struct {
	ctx   context.Context
	opts  Options
	total int
	index int
}

// Run carries out bc's checks in order, one at a time, and judges the
// base_case. A cancelled ctx stops the command under way (its process
// group is killed) and leaves the checks after it not run.
func Run(ctx context.Context, bc model.BaseCase, opts Options) *Report {
	r := &runner{ctx: ctx, opts: opts, total: len(Plan(bc))}
	rep := &Report{Dir: opts.Dir, Timeout: opts.timeout(), Started: opts.now()}
	start := time.Now()
	if bc.IsChecklist {
		for i, it := range bc.Checklist {
			rep.Items = append(rep.Items, r.item(it, []int{i + 1}))
		}
	} else if bc.Legacy != nil {
		rep.Legacy = true
		res := &Result{Position: []int{1}, Item: "base_case", Kind: "check"}
		r.check(res, bc.Legacy)
		rep.Items = []*Result{res}
	}
	rep.Duration = time.Since(start)
	rep.Stopped = ctx.Err() != nil
	countLeaves(rep.Items, &rep.Counts)
	rep.Outcome = overall(rep.Items, rep.Counts)
	return rep
}

func (r *runner) item(it model.ChecklistItem, pos []int) *Result {
	res := &Result{Position: pos, Item: itemName(it), Kind: kindOf(it)}
	switch res.Kind {
	case "group", "any_of":
		children := it.Group
		if res.Kind == "any_of" {
			children = it.AnyOf
		}
		for i, c := range children {
			res.Children = append(res.Children, r.item(c, append(append([]int{}, pos...), i+1)))
		}
		judgeGroup(res)
	case "check":
		r.check(res, it.Check)
	default:
		res.Outcome = Fail
		res.Evidence = "No check, group, or any_of defined"
	}
	return res
}

// check runs (or judges) one check into res.
func (r *runner) check(res *Result, c *model.Check) {
	res.Type, res.Value = c.Type, c.Value
	switch c.Type {
	case model.CheckAssertion:
		res.Outcome = NotCheckable
		res.Evidence = "Assertion requires judgment: " + c.Value
		res.Reason = "not checkable here: an assertion is judged by a person (or the loop's verifier agent)"
		return
	case model.CheckQuality:
		res.Outcome = NotCheckable
		threshold := ""
		if c.HasThreshold {
			threshold = strconv.FormatFloat(c.PassThreshold, 'f', -1, 64)
		}
		res.Evidence = "Quality check requires LLM judgment (threshold: " + threshold + "): " + c.Criteria
		res.Reason = "not checkable here: a quality check is judged against its rubric by a person (or the loop's verifier agent)"
		return
	case model.CheckCommand, model.CheckNotCommand, model.CheckFile, model.CheckNotFile:
	default:
		res.Outcome = Fail
		res.Evidence = "Unknown check type: " + string(c.Type)
		return
	}
	idx := r.index
	r.index++
	if r.ctx.Err() != nil {
		res.Outcome = NotRun
		res.Reason = "not run: the run was stopped before this check"
		return
	}
	r.progress(idx, false, res)
	res.Started = r.opts.now()
	t0 := time.Now()
	if c.Type == model.CheckCommand || c.Type == model.CheckNotCommand {
		r.runCommand(res, c.Type == model.CheckNotCommand)
	} else {
		r.checkFile(res, c.Type == model.CheckNotFile)
	}
	res.Duration = time.Since(t0)
	r.progress(idx, true, res)
}

func (r *runner) progress(idx int, done bool, res *Result) {
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Index: idx, Total: r.total, Done: done, Result: *res})
	}
}

// judgeGroup decides a group (all of its checkable items pass) or an
// any_of (one of them passes) from its children. Items a person judges
// are left out; a group holding only those is itself not checkable.
func judgeGroup(g *Result) {
	var pass, fail, notRun, judged int
	for _, c := range g.Children {
		switch c.Outcome {
		case Pass:
			pass++
		case Fail:
			fail++
		case NotRun:
			notRun++
		case NotCheckable:
			judged++
		}
	}
	n := len(g.Children)
	if g.Kind == "group" {
		g.Evidence = "AND group: " + strconv.Itoa(pass) + "/" + strconv.Itoa(n) + " passed"
		switch {
		case fail > 0:
			g.Outcome = Fail
		case notRun > 0:
			g.Outcome = NotRun
		case n == 0:
			g.Outcome = Pass // all of nothing, as the script has it
			g.Reason = "the group is empty"
		case pass == 0:
			g.Outcome = NotCheckable
			g.Reason = "not checkable here: every item of the group is judged by a person"
		default:
			g.Outcome = Pass
		}
	} else {
		g.Evidence = "OR group: " + strconv.Itoa(pass) + "/" + strconv.Itoa(n) + " passed (need 1)"
		switch {
		case pass > 0:
			g.Outcome = Pass
		case notRun > 0:
			g.Outcome = NotRun
		case fail > 0:
			g.Outcome = Fail
			if judged > 0 {
				g.Reason = "no checkable alternative passed; " + textfmt.Plural(judged, "alternative") + " judged by a person could still pass it"
			}
		case n == 0:
			g.Outcome = Fail
			g.Reason = "the any_of is empty: nothing can pass it"
		default:
			g.Outcome = NotCheckable
			g.Reason = "not checkable here: every alternative is judged by a person"
		}
	}
	if judged > 0 && g.Reason == "" {
		g.Reason = textfmt.Plural(judged, "item") + " left to a person's judgement"
	}
}

// overall judges the top-level items: every checkable one must pass, and
// at least one check must have passed (an empty group alone proves
// nothing).
func overall(items []*Result, c Counts) Outcome {
	var notRun bool
	for _, it := range items {
		switch it.Outcome {
		case Fail:
			return Fail
		case NotRun:
			notRun = true
		}
	}
	switch {
	case notRun:
		return NotRun
	case c.Pass == 0:
		return NotCheckable
	}
	return Pass
}

func countLeaves(items []*Result, c *Counts) {
	for _, it := range items {
		if it.Kind == "group" || it.Kind == "any_of" {
			countLeaves(it.Children, c)
			continue
		}
		switch it.Outcome {
		case Pass:
			c.Pass++
		case Fail:
			c.Fail++
		case NotCheckable:
			c.NotCheckable++
		case NotRun:
			c.NotRun++
		}
	}
}

// Leaves are the checks of items (groups flattened), in order.
func Leaves(items []*Result) []*Result {
	var out []*Result
	for _, it := range items {
		if it.Kind == "group" || it.Kind == "any_of" {
			out = append(out, Leaves(it.Children)...)
			continue
		}
		out = append(out, it)
	}
	return out
}
