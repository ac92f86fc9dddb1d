package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/verify"
	"github.com/charmbracelet/x/ansi"
)

// The verify flow (V): a box lists the commands the base_case would run
// and asks; only the preview's apply key runs them. One tea.Cmd runs the
// whole verification off the UI goroutine, another (re-armed after each
// event) brings its progress; the results then mark the objective view's
// checklist tree, with the output of the failed checks below it.

// verifyRun is one verification of a loop's base_case: under way, or done
// (report set).
type verifyRun struct {
	// bc is the base_case as confirmed: what runs, even if the loop
	// rewrites it meanwhile.
	bc      model.BaseCase
	plan    []verify.Planned
	dir     string
	timeout time.Duration
	started time.Time
	cancel  context.CancelFunc
	events  chan verifyEvent
	// current is the index in plan of the check under way (-1: none).
	current int
	// done are the checks finished so far, in order.
	done     []verify.Result
	report   *verify.Report
	stopping bool
}

// verifyEvent is a check starting or finishing, or the whole report.
type verifyEvent struct {
	progress verify.Progress
	report   *verify.Report
}

// verifyMsg carries a verifyEvent of run, a run of the loop whose
// envelope it comes in.
type verifyMsg struct {
	run *verifyRun
	ev  verifyEvent
}

func (m *Model) verifyTimeout() time.Duration {
	if m.opts.VerifyTimeout > 0 {
		return m.opts.VerifyTimeout
	}
	return verify.DefaultTimeout
}

// verifyKey opens the confirmation of a verification of l's base_case
// (verifyWhy has said it can be).
func (m *Model) verifyKey(l *loop) tea.Cmd {
	d := &verifyConfirmDialog{
		bc:   l.st.Objective.BaseCase,
		plan: verify.Plan(l.st.Objective.BaseCase),
		dir:  statefile.ProjectDir(l.target.Path),
	}
	m.push(l, d)
	d.resize(m)
	// The footer says what the box is for while it is open.
	m.post(l, kit.Status{Text: "verify: nothing runs until you confirm", TTL: time.Hour})
	return nil
}

// verifyConfirmDialog lists what a verification would run and asks.
type verifyConfirmDialog struct {
	bc   model.BaseCase
	plan []verify.Planned
	dir  string
	list scrollText
}

func (d *verifyConfirmDialog) title() string      { return "verify the base_case now?" }
func (d *verifyConfirmDialog) width(m *Model) int { return m.dialogWidth() }

func (d *verifyConfirmDialog) resize(m *Model) {
	w := d.width(m) - 4
	s := m.styles
	var lines []string
	pw := 0
	for _, p := range d.plan {
		pw = max(pw, len(verify.PosString(p.Position)))
	}
	for _, p := range d.plan {
		if !p.Runs() {
			continue
		}
		line := "  " + padTo(verify.PosString(p.Position), pw) + "  " + termtext.Line(p.Value)
		if p.Type == model.CheckNotCommand {
			line += s.Muted.Render("  (not_command: passes when it fails)")
		}
		lines = append(lines, ansi.Truncate(line, w, "…"))
	}
	d.list.width = w
	d.list.set(lines)
	d.list.height = min(len(lines), max(3, m.bodyHeight()-12))
	d.list.clamp()
}

// keysHint names the first two keys of b ("enter/y").
func keysHint(b key.Binding) string {
	k := b.Keys()
	return strings.Join(k[:min(2, len(k))], "/")
}

func (d *verifyConfirmDialog) lines(m *Model, l *loop, w, h int) []string {
	s := m.styles
	var cmds, files, judged int
	for _, p := range d.plan {
		if p.Runs() {
			cmds++
		} else {
			files++
		}
	}
	judged = verify.Judged(d.bc)
	var lines []string
	if l.st != nil && verify.ChecksKey(l.st.Objective.BaseCase) != verify.ChecksKey(d.bc) {
		for _, t := range wrap("⚠ the loop has changed the base_case since you pressed V: these are the checks that will run (V again shows the new ones)", w) {
			lines = append(lines, s.Warn.Render(t))
		}
	}
	dir := termtext.Line(d.dir)
	if cmds == 0 {
		lines = append(lines, wrap(fmt.Sprintf("No command will run: the base_case has %s, which look for paths in %s.", textfmt.Plural(files, "file check"), dir), w)...)
	} else {
		lines = append(lines, wrap(fmt.Sprintf("These commands come from the state file, which the loop's agent wrote. Confirmed, they run one at a time through /bin/sh in %s, each for at most %s:", dir, m.verifyTimeout()), w)...)
		lines = append(lines, "")
		list := d.list
		list.height = max(min(3, len(list.lines)), min(list.height, h-len(lines)-7))
		list.clamp()
		lines = append(lines, strings.Split(list.view(), "\n")...)
		if sh := list.scrollHint(); sh != "" {
			lines = append(lines, s.Muted.Render("  ("+sh+")"))
		}
	}
	var notes []string
	if cmds > 0 && files > 0 {
		notes = append(notes, textfmt.Plural(files, "file check")+" (no command)")
	}
	if judged > 0 {
		notes = append(notes, textfmt.Plural(judged, "item")+" judged by a person, not checkable here")
	}
	if len(notes) > 0 {
		lines = append(lines, "")
		for _, t := range wrap("Also: "+strings.Join(notes, "; ")+".", w) {
			lines = append(lines, s.Muted.Render(t))
		}
	}
	k := m.keys
	verb := "run them"
	if cmds == 0 {
		verb = "check"
	}
	hint := keysHint(k.Apply) + " " + verb + " · " + keysHint(k.Cancel) + " cancel"
	if d.list.scrollHint() != "" {
		hint += " · j/k scroll"
	}
	return append(lines, "", s.Key.Render(hint))
}

func (d *verifyConfirmDialog) update(m *Model, l *loop, msg tea.Msg) step {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return stay(nil)
	}
	switch {
	case key.Matches(k, m.keys.Apply):
		return m.startVerify(l, d)
	case key.Matches(k, m.keys.Cancel):
		m.report(l, kit.Info, "verify cancelled: nothing ran")
		return closed(nil)
	}
	return stay(nil)
}

// startVerify runs the confirmed checks: the box turns into the progress
// box and the view into the objective, where the results will show.
func (m *Model) startVerify(l *loop, d *verifyConfirmDialog) step {
	ctx, cancel := context.WithCancel(context.Background())
	run := &verifyRun{
		bc: d.bc, plan: d.plan, dir: d.dir, timeout: m.verifyTimeout(),
		started: m.opts.Now(), cancel: cancel, current: -1,
		// Room for every event: the run never waits on the UI.
		events: make(chan verifyEvent, 2*len(d.plan)+1),
	}
	if l.verify != nil {
		l.verify.cancel()
	}
	l.verify = run
	m.setView(l, viewObjective)
	m.refreshText(l)
	m.post(l, kit.Status{Text: fmt.Sprintf("verifying the base_case: 0 of %d checks done", len(d.plan)), TTL: time.Hour})
	ch, bc := run.events, run.bc
	opts := verify.Options{Dir: run.dir, Timeout: run.timeout, Now: m.opts.Now,
		Progress: func(p verify.Progress) { ch <- verifyEvent{progress: p} }}
	start := func() tea.Msg {
		ch <- verifyEvent{report: verify.Run(ctx, bc, opts)}
		return nil
	}
	return replaceWith(&verifyRunningDialog{run: run}, tea.Batch(start, listenVerify(l, run)))
}

// listenVerify waits for the next event of run, a run of l.
func listenVerify(l *loop, run *verifyRun) tea.Cmd {
	ch := run.events
	return l.send(func() tea.Msg { return verifyMsg{run: run, ev: <-ch} })
}

// onVerifyMsg records a check's progress, or the report: then the
// progress box closes and the objective view shows the results.
func (m *Model) onVerifyMsg(l *loop, msg verifyMsg) tea.Cmd {
	run := msg.run
	if l.verify != run {
		return nil // a run replaced by a newer one
	}
	if msg.ev.report == nil {
		p := msg.ev.progress
		if p.Done {
			run.done = append(run.done, p.Result)
			run.current = -1
		} else {
			run.current = p.Index
		}
		if !run.stopping {
			m.post(l, kit.Status{Text: fmt.Sprintf("verifying the base_case: %d of %d checks done", len(run.done), len(run.plan)), TTL: time.Hour})
		}
		m.refreshText(l)
		return listenVerify(l, run)
	}
	run.report = msg.ev.report
	run.current = -1
	run.cancel()
	if d, ok := l.topDialog().(*verifyRunningDialog); ok && d.run == run {
		m.apply(l, d, closed(nil))
	}
	m.refreshText(l)
	m.post(l, verifySummary(run.report, l.objective.lines))
	return nil
}

// verifySummary is the footer's word on a finished run: a pass is a
// success, a fail an error, a run that checked nothing a warning.
func verifySummary(rep *verify.Report, lines []string) kit.Status {
	c := rep.Counts
	s := fmt.Sprintf("%d pass · %d fail · %d not checkable", c.Pass, c.Fail, c.NotCheckable)
	switch rep.Outcome {
	case verify.Pass:
		return kit.Status{Text: "base_case verified: PASS — " + s, Level: kit.Success}
	case verify.Fail:
		s = "base_case verified: FAIL — " + s
		if outputAnchors(lines) != nil {
			s += " · enter shows what failed"
		}
		return kit.Status{Text: s, Level: kit.Error}
	case verify.NotCheckable:
		return kit.Status{Text: "base_case: nothing here could be checked — " + s, Level: kit.Warn}
	}
	return kit.Status{Text: fmt.Sprintf("verify stopped: %d checks not run", c.NotRun), Level: kit.Warn}
}

// stopVerifies stops every run under way (the TUI is closing).
func (m *Model) stopVerifies() {
	for _, l := range m.loops {
		if l.verify != nil {
			l.verify.cancel()
		}
	}
}

// verifyRunningDialog shows a run's progress; cancel stops it.
type verifyRunningDialog struct{ run *verifyRun }

func (d *verifyRunningDialog) title() string      { return "verifying the base_case" }
func (d *verifyRunningDialog) width(m *Model) int { return m.dialogWidth() }
func (d *verifyRunningDialog) resize(*Model)      {}

func (d *verifyRunningDialog) lines(m *Model, _ *loop, w, h int) []string {
	s := m.styles
	run := d.run
	lines := []string{s.Muted.Render(ansi.Truncate(fmt.Sprintf("in %s · at most %s each · started %s",
		termtext.Line(run.dir), run.timeout, run.started.Format("15:04:05")), w, "…")), ""}
	pw := 0
	for _, p := range run.plan {
		pw = max(pw, len(verify.PosString(p.Position)))
	}
	var rows []string
	for i, p := range run.plan {
		mark, note := " ", ""
		switch {
		case i < len(run.done):
			r := run.done[i]
			mark = outcomeMark(r.Outcome, s)
			note = resultNote(&r)
		case i == run.current:
			mark, note = s.Warn.Render("▸"), "running…"
		}
		row := "  " + mark + " " + padTo(verify.PosString(p.Position), pw) + "  "
		if note != "" {
			row += s.Muted.Render(termtext.Line(note) + " — ")
		}
		rows = append(rows, ansi.Truncate(row+string(p.Type)+" "+termtext.Line(p.Value), w, "…"))
	}
	// A long plan: the rows around the check under way.
	if room := max(3, h-7); len(rows) > room {
		at := len(run.done)
		first := min(max(0, at-room/2), len(rows)-room)
		rows = rows[first : first+room]
	}
	lines = append(lines, rows...)
	lines = append(lines, "", s.Muted.Render(fmt.Sprintf("%d of %d checks done", len(run.done), len(run.plan))))
	hint := keysHint(m.keys.Cancel) + " stops the run (the command under way is killed)"
	if run.stopping {
		hint = "stopping…"
	}
	return append(lines, s.Key.Render(hint))
}

func (d *verifyRunningDialog) update(m *Model, l *loop, msg tea.Msg) step {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, m.keys.Cancel) && !d.run.stopping {
		d.run.stopping = true
		d.run.cancel()
		m.post(l, kit.Status{Text: "stopping the verification…", TTL: time.Hour})
	}
	return stay(nil)
}

// outcomeMark is a verdict's glyph: ✓ pass, ✗ fail, ? not checkable here,
// · not run.
func outcomeMark(o verify.Outcome, s Styles) string {
	switch o {
	case verify.Pass:
		return s.OK.Render("✓")
	case verify.Fail:
		return s.Danger.Render("✗")
	case verify.NotCheckable:
		return s.Warn.Render("?")
	}
	return s.Muted.Render("·")
}

// resultNote says how a check came out, briefly (unsanitised: the caller
// sanitises).
func resultNote(r *verify.Result) string {
	switch {
	case r.Outcome == verify.NotCheckable:
		return "not checkable here — judged by a person"
	case r.Outcome == verify.NotRun:
		return "not run"
	case r.TimedOut:
		return r.Reason
	case r.Type == model.CheckCommand || r.Type == model.CheckNotCommand:
		if !r.Ran {
			return nonEmpty(r.Reason, r.Evidence)
		}
		note := fmt.Sprintf("exit %d · %s", r.ExitCode, roundDuration(r.Duration))
		if r.NotFound {
			note += " — " + r.Reason
		}
		return note
	case r.Type == model.CheckFile || r.Type == model.CheckNotFile:
		return nonEmpty(r.Reason, r.Evidence)
	}
	return r.Evidence
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// verifyView is what the objective view shows of l's last run (nil: none).
type verifyView struct {
	run *verifyRun
	// byPos are the results by position ("2.1").
	byPos map[string]*verify.Result
	// changed is set when the base_case is no longer the one verified:
	// only the items still the same are marked.
	changed bool
}

func (m *Model) verifyViewOf(l *loop) *verifyView {
	run := l.verify
	if run == nil || l.st == nil {
		return nil
	}
	v := &verifyView{run: run, changed: verify.ChecksKey(l.st.Objective.BaseCase) != verify.ChecksKey(run.bc)}
	if run.report != nil {
		v.byPos = map[string]*verify.Result{}
		var walk func(items []*verify.Result)
		walk = func(items []*verify.Result) {
			for _, r := range items {
				v.byPos[r.Pos()] = r
				walk(r.Children)
			}
		}
		walk(run.report.Items)
	}
	return v
}

// result is the verdict of the item it at pos, when the run had that
// same item there.
func (v *verifyView) result(pos string, it model.ChecklistItem) *verify.Result {
	if v == nil || v.byPos == nil {
		return nil
	}
	r := v.byPos[pos]
	if r == nil || r.Item != nonEmptyName(it.Item) {
		return nil
	}
	switch r.Kind {
	case "group":
		if !it.IsGroup {
			return nil
		}
	case "any_of":
		if !it.IsAnyOf || it.IsGroup {
			return nil
		}
	case "check":
		if it.IsGroup || it.IsAnyOf || it.Check == nil || it.Check.Type != r.Type || it.Check.Value != r.Value {
			return nil
		}
	}
	return r
}

// legacyResult is the legacy base_case's verdict, when it is the same check.
func (v *verifyView) legacyResult(c *model.Check) *verify.Result {
	if v == nil || v.byPos == nil || !v.run.report.Legacy || len(v.run.report.Items) != 1 {
		return nil
	}
	if r := v.run.report.Items[0]; r.Type == c.Type && r.Value == c.Value {
		return r
	}
	return nil
}

// nonEmptyName is an item's name as verify reports it.
func nonEmptyName(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

// header is the line over the tree: the run's verdict, or its progress.
func (v *verifyView) header(w int, s Styles) []string {
	run := v.run
	if run.report == nil {
		return []string{"  " + s.Warn.Render(fmt.Sprintf("⋯ verifying now: %d of %d checks done", len(run.done), len(run.plan)))}
	}
	rep := run.report
	c := rep.Counts
	tally := fmt.Sprintf("%d pass · %d fail · %d not checkable here", c.Pass, c.Fail, c.NotCheckable)
	if c.NotRun > 0 {
		tally += fmt.Sprintf(" · %d not run", c.NotRun)
	}
	when := fmt.Sprintf("verified %s (%s)", rep.Started.Format("15:04:05"), roundDuration(rep.Duration))
	var head string
	switch rep.Outcome {
	case verify.Pass:
		head = s.OK.Render("✓ PASS")
	case verify.Fail:
		head = s.Danger.Render("✗ FAIL")
	case verify.NotCheckable:
		head = s.Warn.Render("? nothing here could be checked")
	default:
		head = s.Muted.Render("· stopped")
	}
	out := []string{"  " + head + " " + when + ": " + tally}
	if v.changed {
		for _, t := range wrap("⚠ the loop has changed the base_case since: only the items still the same are marked (V verifies again)", w-4) {
			out = append(out, "  "+s.Warn.Render(t))
		}
	}
	return out
}

// resultLine is the line under a check with its verdict.
func (v *verifyView) resultLine(r *verify.Result, indent string, w int, s Styles) string {
	note := termtext.Line(resultNote(r))
	if !r.Started.IsZero() {
		note += " · " + r.Started.Format("15:04:05")
	}
	if r.Outcome == verify.Fail && r.Ran && (r.Stdout.Bytes > 0 || r.Stderr.Bytes > 0) {
		note += s.Muted.Render(" — output below (enter)")
	}
	return ansi.Truncate(indent+outcomeMark(r.Outcome, s)+" "+note, w, "…")
}

// outputHeading starts the output of a failed check in the objective
// view; enter there goes from one to the next.
const outputHeading = "▸ output of "

// outputSection lists the output of the checks that failed (the last
// lines of each stream).
func (v *verifyView) outputSection(w int, s Styles) []string {
	if v == nil || v.run.report == nil {
		return nil
	}
	var out []string
	for _, r := range verify.Leaves(v.run.report.Items) {
		if r.Outcome != verify.Fail || !r.Ran {
			continue
		}
		if len(out) == 0 {
			out = append(out, "", s.Title.Render("failed checks: their output"))
		}
		head := outputHeading + r.Pos() + " " + termtext.Line(r.Item) + " — " + termtext.Line(resultNote(r)) + " · " + r.Started.Format("15:04:05")
		out = append(out, ansi.Truncate(s.Danger.Render(head), w, "…"))
		for i, t := range wrap(r.Value, max(10, w-4)) {
			lead := "  " + s.Muted.Render("$ ")
			if i > 0 {
				lead = "    "
			}
			out = append(out, lead+t)
		}
		shown := false
		for _, st := range []struct {
			name string
			o    verify.Output
		}{{"stderr", r.Stderr}, {"stdout", r.Stdout}} {
			title, lines := st.o.Tail(st.name, 30)
			if lines == nil {
				continue
			}
			shown = true
			out = append(out, "  "+s.Bold.Render(title))
			for _, line := range lines {
				for _, t := range wrap(strings.ReplaceAll(line, "\r", ""), max(10, w-4)) {
					out = append(out, "  "+s.Muted.Render("│ ")+t)
				}
			}
		}
		if !shown {
			out = append(out, "  "+s.Muted.Render("(no output)"))
		}
	}
	return out
}

// outputAnchors are the lines of the objective view where a failed
// check's output starts.
func outputAnchors(lines []string) []int {
	var at []int
	for i, line := range lines {
		if strings.HasPrefix(ansi.Strip(line), outputHeading) {
			at = append(at, i)
		}
	}
	return at
}

// verifyDetailsKey handles enter in the objective view: to the next failed
// check's output (round again after the last). It reports whether the
// key was enter.
func (m *Model) verifyDetailsKey(l *loop, msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, m.keys.Details) {
		return false
	}
	at := outputAnchors(l.objective.lines)
	if len(at) == 0 {
		if run := l.verify; run != nil && run.report != nil {
			m.report(l, kit.Info, "no failed check has output to show")
		} else {
			m.report(l, kit.Info, m.keys.Verify.Help().Key+" verifies the base_case now; enter then shows what failed")
		}
		return true
	}
	t := &l.objective
	next := at[0]
	for _, i := range at {
		// The next heading below the top that the view can still scroll to
		// (near the end it cannot: then round again).
		if i > t.top && min(i, max0(len(t.lines)-t.height)) > t.top {
			next = i
			break
		}
	}
	t.top = next
	t.clamp()
	return true
}
