package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The loop's own tools do not parse YAML: its SubagentStop hook
// (hooks/subagent-stop-hook.sh in the plugin) and its Python scripts read
// the state file line by line. Where they read a value differently from
// aot-tui, they act on what they read. LoopRead records their reading
// (statefile computes it from the bytes, see internal/looptools); this
// file turns it into what the hook will decide and into warnings.

// LoopToolsKind is the kind of the validation findings about what the
// loop's own tools will read differently (ReportProblem.Kind).
const LoopToolsKind = "loop-tools"

// LoopRead is how the loop's own tools read a state file's bytes.
type LoopRead struct {
	// Hook is what the stop hook reads.
	Hook HookRead
	// Findings are the differences found in the bytes themselves: the
	// hook's atom counts and sed rewrites, and the Python scripts' reading
	// of the atoms. LoopToolsWarnings adds those about the hook's fields.
	Findings []Problem
}

// HookField is one value the stop hook reads with its extract_field
// (subagent-stop-hook.sh lines 61-69).
type HookField uint8

// The values the stop hook reads, in the order it reads them.
const (
	HookStatus HookField = iota
	HookIteration
	HookStallCount
	HookStopRequested
	HookRedirectRequested
	HookPrevPendingCount
	HookMaxIterations
	HookMaxStallCount
	NumHookFields
)

var hookFields = [NumHookFields]struct {
	key, path string
	// indent: control fields at 2 spaces, constraints at 4 (hook lines
	// 41 and 58). def: the hook's default for an empty value (lines
	// 73-77).
	indent int
	def    string
}{
	HookStatus:            {"status", "control.status", 2, ""},
	HookIteration:         {"iteration", "control.iteration", 2, "0"},
	HookStallCount:        {"stall_count", "control.stall_count", 2, "0"},
	HookStopRequested:     {"stop_requested", "control.stop_requested", 2, ""},
	HookRedirectRequested: {"redirect_requested", "control.redirect_requested", 2, ""},
	HookPrevPendingCount:  {"prev_pending_count", "control.prev_pending_count", 2, "-1"},
	HookMaxIterations:     {"max_iterations", "constraints.max_iterations", 4, "20"},
	HookMaxStallCount:     {"max_stall_count", "constraints.max_stall_count", 4, "3"},
}

// Key is the field's key, as the hook's pattern names it.
func (f HookField) Key() string { return hookFields[f].key }

// Indent is how many spaces the hook's pattern puts before the key.
func (f HookField) Indent() int { return hookFields[f].indent }

// Path is where the field is in the state.
func (f HookField) Path() string { return hookFields[f].path }

// HookFrame says whether the hook's frontmatter is the one aot-tui reads.
// The hook takes the lines between the first two lines that are exactly
// '---' (awk '/^---$/', hook line 36); aot-tui also accepts a BOM, CRLF
// line ends and blanks after the dashes.
type HookFrame uint8

// Why the hook's frontmatter differs from aot-tui's.
const (
	FrameSame   HookFrame = iota
	FrameBOM              // a UTF-8 byte order mark before the opening '---'
	FrameCRLF             // '---\r': CRLF line ends
	FrameBlanks           // blanks after a delimiter's dashes
)

// HookRead is what the stop hook reads from the file.
type HookRead struct {
	Frame HookFrame
	// FrameLine is the delimiter line the hook does not see as one
	// (Frame != FrameSame).
	FrameLine int
	// FirstLine and LastLine are the lines the hook takes as the
	// frontmatter (0 when it finds none).
	FirstLine, LastLine int
	Values              [NumHookFields]HookValue
	// Pending, InProgress and Resolved are its grep -c counts of lines
	// starting '    status: pending' and so on (hook lines 97-99).
	Pending, InProgress, Resolved int
	// CountWhy says why the counts differ from the atoms' statuses ("" when
	// they do not), with a line: "line 82 reads '    status: "pending"'".
	CountWhy string
}

// HookValue is one value as the hook reads it: the text after the key's
// colon and spaces, one leading and one trailing quote removed, with any
// comment and trailing blanks kept (extract_field, hook lines 46-53).
type HookValue struct {
	Text string
	// Line is the file line it was read from; 0 when no line matched.
	Line int
	// Quoted is true when a quote was removed from it.
	Quoted bool
}

// LoopToolsWarnings are the warnings about what the loop's own tools will
// read differently from aot-tui, ordered by line; nil for a State not read
// from a file. Validate reports them with the kind LoopToolsKind.
func LoopToolsWarnings(s *State) []Problem {
	if s.LoopRead == nil {
		return nil
	}
	out := hookFieldFindings(s)
	if len(out) == 0 {
		return s.LoopRead.Findings
	}
	out = append(out, s.LoopRead.Findings...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// yamlField is field f as aot-tui parsed it, written as the hook would
// read it from a template-layout line, and the line it is on.
func yamlField(s *State, f HookField) (text string, line int, has bool) {
	c, k := s.Control, s.Objective.Constraints
	lines := c.Lines
	if f == HookMaxIterations || f == HookMaxStallCount {
		lines = k.Lines
	}
	line, has = lines.Get(f.Key())
	if !has {
		return "", 0, false
	}
	switch f {
	case HookStatus:
		text = string(c.Status)
	case HookIteration:
		text = strconv.Itoa(c.Iteration)
	case HookStallCount:
		text = strconv.Itoa(c.StallCount)
	case HookPrevPendingCount:
		text = strconv.Itoa(c.PrevPendingCount)
	case HookStopRequested:
		text = strconv.FormatBool(c.StopRequested)
	case HookRedirectRequested:
		text = strconv.FormatBool(c.RedirectRequested)
	case HookMaxIterations:
		text = strconv.Itoa(k.MaxIterations)
	case HookMaxStallCount:
		text = strconv.Itoa(k.MaxStallCount)
	}
	return text, line, true
}

// hookSame reports whether the hook's text for f means what want (a
// yamlField text, "" for absent) means to the hook.
func hookSame(f HookField, got, want string) bool {
	if got == want {
		return true
	}
	switch f {
	case HookStatus:
		return false
	case HookStopRequested, HookRedirectRequested:
		// Only the exact text true counts (hook lines 114 and 123).
		return (got == "true") == (want == "true")
	}
	if got == "" {
		got = hookFields[f].def
	}
	if want == "" {
		want = hookFields[f].def
	}
	g, w := bashArith(got), bashArith(want)
	return g.kind == bashNumber && w.kind == bashNumber && g.n == w.n
}

// misread describes how the hook reads field f differently from aot-tui
// ("" when it does not), as "the stop hook reads control.status as
// 'running   # …' (inline comment, line 65)". A field missing for both is
// not a misreading (see missingEffect).
func misread(s *State, f HookField) string {
	v := s.LoopRead.Hook.Values[f]
	want, line, has := yamlField(s, f)
	if v.Line == 0 {
		if !has {
			return ""
		}
		// extract_field matches '^' + indent spaces + key + ':' only.
		return fmt.Sprintf("the stop hook does not find %s on line %d (it reads only a line indented %d spaces)", f.Path(), line, f.Indent())
	}
	if hookSame(f, v.Text, want) {
		return ""
	}
	why := valueWhy(v.Text)
	switch {
	case has && v.Line != line:
		why = fmt.Sprintf("from line %d, not line %d", v.Line, line)
	case !has:
		why = fmt.Sprintf("from line %d; aot-tui finds no %s", v.Line, f.Path())
	case why != "":
		why += fmt.Sprintf(", line %d", v.Line)
	case v.Quoted:
		why = fmt.Sprintf("its quotes removed, line %d", v.Line)
	case (f == HookStopRequested || f == HookRedirectRequested) && strings.EqualFold(v.Text, "true"):
		why = fmt.Sprintf("line %d; only 'true' counts", v.Line)
	default:
		why = fmt.Sprintf("line %d", v.Line)
	}
	return fmt.Sprintf("the stop hook reads %s as %s (%s)", f.Path(), shownValue(v.Text), why)
}

// valueWhy names what makes a value read as text differ from its YAML
// value: an inline comment, trailing blanks, a quote left over.
func valueWhy(t string) string {
	switch {
	case CommentAt(t) >= 0:
		return "inline comment"
	case t != strings.TrimRight(t, " \t"):
		return "trailing blanks"
	case strings.ContainsAny(t, `"'`):
		return "quotes"
	case strings.HasSuffix(t, "\r"):
		return "a CR line end"
	}
	return ""
}

// The wording of the loop-tools findings, here and in internal/looptools
// (which reads the bytes as the loop's tools do): values and lines of the
// file are shown quoted and cut, a comment in a value cut to '# …'.

// CommentAt is where a YAML comment starts in a value read as text (what
// follows "key:" on its line, as the loop's tools take it): a '#' at its
// start or after a blank (-1: none).
func CommentAt(t string) int {
	for i := 0; i < len(t); i++ {
		if t[i] == '#' && (i == 0 || t[i-1] == ' ' || t[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// QuoteValue quotes a value read from the file as text for a message: a
// comment is cut to '# …', blanks before it to three, the rest to width
// characters (QuoteText).
func QuoteValue(t string, width int) string {
	if i := CommentAt(t); i >= 0 {
		j := i
		for j > 0 && (t[j-1] == ' ' || t[j-1] == '\t') && i-j < 3 {
			j--
		}
		k := j
		for k > 0 && (t[k-1] == ' ' || t[k-1] == '\t') {
			k--
		}
		t = t[:k] + t[j:i] + "# …"
	}
	return QuoteText(t, width)
}

// QuoteText quotes text from the file for a message, cut to width
// characters (the last of them an ellipsis when cut).
func QuoteText(t string, width int) string {
	if utf8.RuneCountInString(t) > width {
		n := 0
		for i := range t {
			if n == width-1 {
				t = t[:i] + "…"
				break
			}
			n++
		}
	}
	return "'" + t + "'"
}

// shownValue is QuoteValue as the hook's findings show values.
func shownValue(t string) string { return QuoteValue(t, 40) }

// hookFieldFindings are the loop-tools warnings about the fields the hook
// reads: read differently from aot-tui, with what the hook will do then,
// and missing keys the hook needs.
func hookFieldFindings(s *State) []Problem {
	h := &s.LoopRead.Hook
	if h.Frame != FrameSame {
		return []Problem{frameFinding(h)}
	}
	var out []Problem
	for f := HookField(0); f < NumHookFields; f++ {
		want, line, has := yamlField(s, f)
		if !has && h.Values[f].Line == 0 {
			// Without a control section at all, validation's error says it.
			if msg := missingEffect(f); msg != "" && s.Lines.Has("control") {
				out = append(out, Problem{Line: s.Lines.Line("control"), Path: f.Path(), Message: msg})
			}
			continue
		}
		if m := misread(s, f); m != "" {
			if effect, fix := fieldEffect(s, f, want); effect != "" {
				if hasProblem(s, f.Path()) {
					// aot-tui could not read the value either: want is
					// the zero it decoded, no advice.
					fix = "; write " + map[bool]string{true: "true or false", false: "a number"}[f == HookStopRequested || f == HookRedirectRequested]
				}
				if l := h.Values[f].Line; l != 0 {
					line = l
				}
				out = append(out, Problem{Line: line, Path: f.Path(), Message: m + ": " + effect + fix})
			}
		}
	}
	return out
}

// missingEffect is what the hook does when field f is not in the file at
// all (and aot-tui does not find it either).
func missingEffect(f HookField) string {
	switch f {
	case HookStatus:
		return "control.status is missing: the stop hook reads no status and ends the loop; add status: running"
	case HookIteration:
		// Its sed rewrites an existing line only (hook line 206).
		return "control.iteration is missing: the stop hook reads 0 each time and its sed cannot record the count, so the loop never reaches max_iterations; add iteration: 0"
	case HookStallCount:
		// Its sed and awk write after an existing line only (hook
		// lines 207 and 214).
		return "control.stall_count is missing: the stop hook reads 0 each time and cannot record stalls, so the loop never stops for lack of progress; add stall_count: 0"
	}
	return ""
}

// fieldEffect says what the hook does because it reads field f as it does
// (want is aot-tui's value, "" when absent) and how to fix it; "" when it
// makes no difference to the hook.
func fieldEffect(s *State, f HookField, want string) (effect, fix string) {
	v := s.LoopRead.Hook.Values[f]
	fix = "; " + fixFor(f, v, want)
	if v.Line == 0 {
		// Not found: the hook uses its default, and its sed and awk
		// (hook lines 206-216) find no line to write.
		switch f {
		case HookIteration:
			return "it reads 0 each time and cannot record the count, so the loop never reaches max_iterations", fix
		case HookStallCount:
			return "it reads 0 each time and cannot record stalls, so the loop never stops for lack of progress", fix
		case HookPrevPendingCount:
			return "it takes every iteration as the first and adds a prev_pending_count line after stall_count", fix
		}
	}
	t := orDefault(v.Text, f)
	switch f {
	case HookStatus:
		if want != string(LoopRunning) {
			return "", "" // the hook leaves alone a loop that is not running either way
		}
		return "the loop will end", fix
	case HookStopRequested:
		switch {
		case want == "true":
			return "the hook does not see the stop request, and the loop goes on", fix
		case t == "true":
			return "the hook stops the loop", fix
		}
		return "", ""
	case HookRedirectRequested:
		switch {
		case want == "true":
			return "the hook does not pause the loop for the redirect", fix
		case t == "true":
			return "the hook pauses the loop", fix
		}
		return "", ""
	}
	b := bashArith(t)
	switch b.kind {
	case bashFatal:
		return fmt.Sprintf("bash stops the hook (%s) and the loop ends", b.msg), fix
	case bashUnknown:
		return "bash evaluates it as an expression, and aot-tui cannot tell what the hook decides", fix
	case bashNumber:
		w := bashArith(orDefault(want, f))
		if w.kind == bashNumber && w.n == b.n {
			return "", ""
		}
		return fmt.Sprintf("the hook uses %d, aot-tui %s", b.n, orDefault(want, f)), fix
	}
	switch f {
	case HookIteration:
		// Line 137 is false; line 197 is abandoned, and line 206 or 212
		// then reads the unset NEXT_ITERATION under set -u.
		return "bash cannot read it as a number, so the hook fails when it counts the next iteration and the loop ends", fix
	case HookStallCount:
		// Line 162 is abandoned: NEW_STALL_COUNT keeps the text, which the
		// sed writes back and line 166 cannot compare.
		return "bash cannot read it as a number, so stalls are not counted and the loop does not stop for lack of progress", fix
	case HookPrevPendingCount:
		// Lines 154 and 157 are false: the else branch counts a stall.
		return "bash cannot compare it, so the hook counts every iteration as a stall", fix
	case HookMaxIterations:
		return "bash cannot compare with it, so the hook never stops at the iteration limit", fix
	case HookMaxStallCount:
		return "bash cannot compare with it, so the hook never stops for lack of progress", fix
	}
	return "", ""
}

// fixFor says how to make the hook read field f as aot-tui does.
func fixFor(f HookField, v HookValue, want string) string {
	switch {
	case v.Line == 0:
		return fmt.Sprintf("indent it as '%s%s: %s'", strings.Repeat(" ", f.Indent()), f.Key(), want)
	case CommentAt(v.Text) >= 0:
		return "remove the comment"
	case v.Text != strings.TrimRight(v.Text, " \t"):
		return "remove the trailing blanks"
	case want == "":
		return fmt.Sprintf("move the line under %s", f.Path()[:strings.IndexByte(f.Path(), '.')])
	}
	return fmt.Sprintf("write %s: %s", f.Key(), want)
}

// frameFinding is the warning for a file whose frontmatter the hook does
// not find where aot-tui does.
func frameFinding(h *HookRead) Problem {
	p := Problem{Line: max(h.FrameLine, 1)}
	switch h.Frame {
	case FrameBOM:
		p.Message = "the file starts with a UTF-8 byte order mark: the stop hook's awk finds no '---' line to open the frontmatter and ends the loop, and validate_state.py reports \"Missing YAML frontmatter\"; save the file without the BOM"
	case FrameCRLF:
		p.Message = "the file has CRLF line ends: the stop hook's awk finds no '---' line without a CR and ends the loop (the loop's Python scripts rewrite the file with LF line ends); save it with LF line ends"
	default:
		where := "finds no frontmatter"
		if h.FirstLine > 0 {
			where = fmt.Sprintf("reads lines %d-%d as the frontmatter", h.FirstLine, h.LastLine)
		}
		p.Message = fmt.Sprintf("the '---' on line %d has blanks after it: the stop hook's awk does not take it as a delimiter and %s; remove the blanks", h.FrameLine, where)
	}
	return p
}

// The stop hook's decision, as the step of the script that makes it.
type hookStep uint8

const (
	stepCompleted     hookStep = iota // line 80: status completed, approve
	stepNotRunning                    // line 89: status not running, exit 0
	stepRedirect                      // line 114
	stepManualStop                    // line 123
	stepMaxIterations                 // line 137
	stepStall                         // line 166
	stepNoAtoms                       // line 182
	stepContinue                      // line 228: block, next iteration
	stepAbort                         // bash failed under set -u: exit 1
	stepUnknown                       // an expression aot-tui does not evaluate
)

// hookVerdict is the outcome of the hook on what it read.
type hookVerdict struct {
	step hookStep
	// stall is NEW_STALL_COUNT: stallText when bash could not compute it.
	stall     int64
	stallText string
	iter, max int64
	maxStall  int64
	// failed is the field bash failed on (stepAbort, stepUnknown) and msg
	// bash's complaint; failedNext is set when it failed on the unset
	// NEXT_ITERATION after an abandoned $((ITERATION + 1)).
	failed     HookField
	msg        string
	failedNext bool
}

func (a hookVerdict) same(b hookVerdict) bool {
	if a.step != b.step {
		return false
	}
	switch a.step {
	case stepContinue, stepStall:
		return a.stall == b.stall && a.stallText == b.stallText
	}
	return true
}

// simulateHook runs the hook's decision logic (hook lines 71-228) on the
// values it reads, with bash's arithmetic. Its outcomes for the loop: a
// "block" decision continues it; an "approve" or no decision lets the
// subagent stop, and the loop ends; so does a failure: bash under set -u
// exits 1, and Claude Code treats a hook's exit status other than 2 as a
// non-blocking error and lets the stop proceed (2 would block it, but
// nothing in the file makes this hook exit 2).
func simulateHook(h *HookRead) hookVerdict {
	val := func(f HookField) string {
		if t := h.Values[f].Text; t != "" {
			return t
		}
		return hookFields[f].def
	}
	var v hookVerdict
	status := h.Values[HookStatus].Text
	switch {
	case status == "completed":
		v.step = stepCompleted
		return v
	case status != "running":
		v.step = stepNotRunning
		return v
	}
	unresolved := int64(h.Pending + h.InProgress)
	if h.Values[HookRedirectRequested].Text == "true" {
		v.step = stepRedirect
		return v
	}
	if h.Values[HookStopRequested].Text == "true" {
		v.step = stepManualStop
		return v
	}
	// fail ends the simulation when bash stopped or aot-tui cannot follow.
	fail := func(f HookField, b bashValue) hookVerdict {
		v.failed, v.msg = f, b.msg
		v.step = stepAbort
		if b.kind == bashUnknown {
			v.step = stepUnknown
		}
		return v
	}
	// test is [[ A op B ]]: ok is false when bash stopped or is unknown;
	// an error makes the test false.
	test := func(a bashValue, fa HookField, b bashValue, fb HookField, op func(x, y int64) bool) (res, ok bool) {
		for _, x := range []struct {
			v bashValue
			f HookField
		}{{a, fa}, {b, fb}} {
			switch x.v.kind {
			case bashFatal, bashUnknown:
				v = fail(x.f, x.v)
				return false, false
			case bashError:
				return false, true
			}
		}
		return op(a.n, b.n), true
	}
	ge := func(x, y int64) bool { return x >= y }
	lt := func(x, y int64) bool { return x < y }
	num := func(n int64) bashValue { return bashValue{kind: bashNumber, n: n} }
	iter, maxIter := bashArith(val(HookIteration)), bashArith(val(HookMaxIterations))
	v.iter, v.max = iter.n, maxIter.n
	// Line 137.
	if r, ok := test(iter, HookIteration, maxIter, HookMaxIterations, ge); !ok {
		return v
	} else if r {
		v.step = stepMaxIterations
		return v
	}
	// Lines 153-163.
	stallText := val(HookStallCount)
	stall, prev := bashArith(stallText), bashArith(val(HookPrevPendingCount))
	v.stall, v.stallText = 0, ""
	r, ok := test(prev, HookPrevPendingCount, num(0), HookPrevPendingCount, lt)
	if !ok {
		return v
	}
	if !r {
		if r, ok = test(num(unresolved), HookPrevPendingCount, prev, HookPrevPendingCount, lt); !ok {
			return v
		}
	}
	if !r {
		switch stall.kind {
		case bashFatal, bashUnknown:
			return fail(HookStallCount, stall)
		case bashError:
			// The if compound is abandoned: NEW_STALL_COUNT keeps the
			// text of STALL_COUNT from line 153.
			v.stallText = stallText
		default:
			v.stall = stall.n + 1
		}
	}
	newStall := num(v.stall)
	if v.stallText != "" {
		newStall = stall
	}
	// Line 166.
	maxStall := bashArith(val(HookMaxStallCount))
	v.maxStall = maxStall.n
	if r, ok := test(newStall, HookStallCount, maxStall, HookMaxStallCount, ge); !ok {
		return v
	} else if r {
		v.step = stepStall
		return v
	}
	// Line 182.
	if unresolved == 0 && h.Resolved == 0 {
		v.step = stepNoAtoms
		return v
	}
	// Line 197, then the write at lines 204-218.
	switch iter.kind {
	case bashFatal, bashUnknown:
		return fail(HookIteration, iter)
	case bashError:
		v = fail(HookIteration, bashValue{kind: bashFatal, msg: "NEXT_ITERATION: unbound variable"})
		v.failedNext = true
		return v
	}
	v.step = stepContinue
	return v
}

// idealRead is what the hook would read from a template-layout file with
// the values aot-tui parsed: simulating it gives the decision the parsed
// values call for (the outlook's own prediction).
func idealRead(s *State, f *Facts) HookRead {
	var h HookRead
	for fl := HookField(0); fl < NumHookFields; fl++ {
		h.Values[fl].Text, h.Values[fl].Line, _ = yamlField(s, fl)
	}
	cons := s.Objective.Constraints
	h.Values[HookMaxIterations].Text = strconv.Itoa(cons.EffectiveMaxIterations())
	h.Values[HookMaxStallCount].Text = strconv.Itoa(cons.EffectiveMaxStallCount())
	h.Values[HookPrevPendingCount].Text = strconv.Itoa(s.Control.PrevPendingCount)
	h.Pending, h.InProgress, h.Resolved = f.Counts.Pending, f.Counts.InProgress, f.Counts.Resolved
	return h
}

// followHook checks the outlook o, made from aot-tui's parse, against what
// the stop hook reads from the bytes. Where the hook will decide otherwise,
// the outlook says what it will do and why; where it decides the same but
// misreads a value that matters later, the outlook says that too.
func followHook(s *State, f *Facts, o Outlook) Outlook {
	h := &s.LoopRead.Hook
	ideal := idealRead(s, f)
	want, got := simulateHook(&ideal), simulateHook(h)
	if got.same(want) {
		if note := latentMisread(s, got); note != "" {
			o.Text += "; " + note
			o.Warning = true
		}
		return o
	}
	cause := hookCause(s, f, h, &ideal, got)
	maxStall := s.Objective.Constraints.EffectiveMaxStallCount()
	if got.maxStall > 0 {
		maxStall = int(got.maxStall)
	}
	out := Outlook{Decision: DecisionStop, Warning: true, NextStall: s.Control.StallCount}
	switch got.step {
	case stepCompleted:
		out.Decision, out.Warning = DecisionDone, false
		out.Text = "completed — " + cause
	case stepNotRunning:
		if s.Control.Status != LoopRunning && h.Frame == FrameSame {
			return o
		}
		out.Text = cause + ": the loop will end"
	case stepRedirect:
		out.Decision = DecisionPause
		out.Text = "paused for redirect — " + cause
	case stepManualStop:
		out.Text = "stops: manual stop requested — " + cause
	case stepMaxIterations:
		out.Text = fmt.Sprintf("stops: max iterations reached (%d/%d) — %s", got.iter, got.max, cause)
	case stepStall:
		out.NextStall = int(got.stall)
		out.Text = fmt.Sprintf("stops: no progress, %s — %s", stallAfter(int(got.stall), maxStall), cause)
	case stepNoAtoms:
		out.Text = "stops: no atoms in the work graph — " + cause
	case stepContinue:
		out.Decision = DecisionContinue
		how := ""
		switch {
		case got.stallText != "":
			how = ", not counting the stall"
		case got.stall > 0:
			out.NextStall = int(got.stall)
			how = ", " + stallAfter(int(got.stall), maxStall)
		default:
			out.NextStall = 0
			out.Warning = false
		}
		out.Text = "continues" + how + " — " + cause
		if st := StuckAtoms(s, f); len(st.IDs) > 0 {
			// The hook goes on, but the loop can never complete: say that,
			// not that it continues.
			out.Warning = true
			out.Text = cannotFinish(st) + "; the stop hook goes on" + how + " — " + cause
		}
	case stepAbort:
		out.Text = cause + ": the loop will end"
	case stepUnknown:
		o.Warning = true
		o.Text = cause + "; aot-tui cannot tell what the stop hook decides"
		return o
	}
	return out
}

// hookCause says why the hook decides got: the first value it reads
// differently whose right reading changes its decision, or, failing
// that, the first it reads differently.
func hookCause(s *State, f *Facts, h, ideal *HookRead, got hookVerdict) string {
	if h.Frame != FrameSame {
		switch h.Frame {
		case FrameBOM:
			return "the stop hook finds no frontmatter (the file starts with a UTF-8 byte order mark)"
		case FrameCRLF:
			return "the stop hook finds no frontmatter (CRLF line ends: no line is exactly '---')"
		}
		return fmt.Sprintf("the stop hook does not take the '---' on line %d as a delimiter (blanks after it)", h.FrameLine)
	}
	if got.step == stepAbort {
		v := h.Values[got.failed]
		if got.failedNext {
			why := valueWhy(v.Text)
			if why != "" {
				why += ", "
			}
			return fmt.Sprintf("the stop hook fails: bash cannot add 1 to %s %s (%sline %d) and then stops on the unset NEXT_ITERATION",
				got.failed.Path(), shownValue(v.Text), why, v.Line)
		}
		return fmt.Sprintf("the stop hook fails on %s %s (line %d; bash: %s)", got.failed.Path(), shownValue(v.Text), v.Line, got.msg)
	}
	var first string
	for fl := HookField(0); fl < NumHookFields; fl++ {
		m := misread(s, fl)
		if m == "" {
			continue
		}
		if fl != HookStatus && fl != HookStopRequested && fl != HookRedirectRequested {
			if b := bashArith(orDefault(h.Values[fl].Text, fl)); b.kind == bashError {
				m += ", which bash cannot read as a number"
			}
		}
		fixed := *h
		fixed.Values[fl] = ideal.Values[fl]
		if !simulateHook(&fixed).same(got) {
			return m
		}
		if first == "" {
			first = m
		}
	}
	if c := countsCause(h, f); c != "" {
		return c
	}
	if first != "" {
		return first
	}
	// No value is read differently: the hook decides on the values
	// themselves where aot-tui falls back on its defaults (a limit of 0).
	fl := HookMaxIterations
	if got.step == stepStall {
		fl = HookMaxStallCount
	}
	v := h.Values[fl]
	return fmt.Sprintf("the stop hook reads %s as %s (line %d) where aot-tui uses its default", fl.Path(), shownValue(orDefault(v.Text, fl)), v.Line)
}

func orDefault(t string, f HookField) string {
	if t == "" {
		return hookFields[f].def
	}
	return t
}

// countsCause says how the hook's atom counts differ from aot-tui's (""
// when they do not).
func countsCause(h *HookRead, f *Facts) string {
	c := f.Counts
	if h.Pending == c.Pending && h.InProgress == c.InProgress && h.Resolved == c.Resolved {
		return ""
	}
	msg := fmt.Sprintf("the stop hook counts %d unresolved and %d resolved atoms, aot-tui %d and %d",
		h.Pending+h.InProgress, h.Resolved, c.Unresolved(), c.Resolved)
	if h.CountWhy != "" {
		msg += " (" + h.CountWhy + ")"
	}
	return msg
}

// latentMisread is a note on a value the hook reads differently that does
// not change its next decision but will change a later one ("" if none).
func latentMisread(s *State, got hookVerdict) string {
	if got.step != stepContinue {
		return ""
	}
	for _, fl := range []HookField{HookMaxIterations, HookMaxStallCount, HookStallCount, HookIteration, HookPrevPendingCount, HookStopRequested, HookRedirectRequested} {
		m := misread(s, fl)
		if m == "" {
			continue
		}
		want, _, _ := yamlField(s, fl)
		if effect, _ := fieldEffect(s, fl, want); effect != "" {
			return "but " + m + ": " + effect
		}
	}
	return ""
}

// hasProblem reports whether decoding found the value at path of the wrong
// type.
func hasProblem(s *State, path string) bool {
	for _, p := range s.Problems {
		if p.Path == path {
			return true
		}
	}
	return false
}
