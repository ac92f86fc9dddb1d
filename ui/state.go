package ui

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

// onState applies a watch event to loop l: a new good state replaces the
// old one; a parse error, removal or wait keeps the last good state under
// a banner. Each new state is checked by the loop's correction session
// (its guard), which may answer with jobs.
func (m *Model) onState(l *loop, ev statefile.Event) tea.Cmd { return m.onEvent(l, ev, nil) }

// onEvent is onState with the checks of a loaded state, when they were
// made with the event (nil: setShown makes them).
func (m *Model) onEvent(l *loop, ev statefile.Event, c *checks) tea.Cmd {
	switch ev.Kind {
	case statefile.EventLoaded:
		return m.onLoaded(l, ev, c)
	case statefile.EventInvalid:
		l.bannerBad = true
		what := "the file is invalid or mid-write"
		if ev.Err != nil {
			what = describeFileError(ev.Err)
		}
		if l.st != nil || l.phase != nil {
			what = "last good state shown — " + what
		}
		l.banner = "⚠ " + termtext.Line(what)
	case statefile.EventRemoved:
		l.bannerBad = true
		if ev.Err != nil { // a symbolic link loop now
			l.banner = "⚠ " + termtext.Line(ev.Err.Error()) + " — showing the last state; waiting for the state file to return"
			break
		}
		l.banner = "⚠ " + termtext.Line(l.target.Path) + " was removed — showing the last state; waiting for it to return"
	case statefile.EventWaiting:
		if ev.Err != nil { // a symbolic link loop
			l.bannerBad = true
			l.banner = "⚠ " + termtext.Line(ev.Err.Error()) + " — waiting for the state file there"
			break
		}
		l.bannerBad = false
		hint := "start the loop with /align-goal"
		if l.target.Kind == statefile.KindPhaseLoop {
			hint = "start the phase loop"
		}
		l.banner = "… waiting for " + termtext.Line(l.target.Path) + " — " + hint + "; " + m.keys.Quit.Help().Key + " quits"
	case statefile.EventError:
		l.bannerBad = true
		what := fmt.Sprint(ev.Err)
		switch {
		case errors.Is(ev.Err, statefile.ErrNotRegular) && (l.st != nil || l.phase != nil):
			what += " — showing the last state; waiting for the state file to return"
		case errors.Is(ev.Err, statefile.ErrNotRegular):
			what += " — waiting for the state file there"
		}
		l.banner = "⚠ " + termtext.Line(what)
	}
	m.layoutLoop(l)
	return nil
}

func (m *Model) onLoaded(l *loop, ev statefile.Event, c *checks) tea.Cmd {
	record := m.queueVersion(l, ev)
	noteIteration(l, ev)
	if ev.Doc != nil {
		giveAtoms(l, ev.Doc.State)
	}
	if l.hist.inPast() {
		return tea.Batch(record, m.onLoadedInPast(l, ev))
	}
	l.banner, l.bannerBad = "", false
	again := ev.Data != nil && l.doc != nil && bytes.Equal(ev.Data, l.doc.Data)
	if !again && (ev.Data == nil || !l.session.IsOurs(ev.Data)) {
		// Not our own write coming back through the watcher, nor the
		// bytes on screen reported again (a second event for one write).
		m.noteChange(l, versionAt(ev))
		if l.st != nil {
			for _, d := range l.dialogs {
				if f, ok := d.(*flowBox); ok {
					var st *model.State
					if ev.Doc != nil {
						st = ev.Doc.State
					}
					redirect.Moved(f.b, st)
				}
			}
		}
	}
	cmds := []tea.Cmd{record}
	if ev.Phase != nil {
		l.phase = ev.Phase
		l.st, l.facts, l.doc = nil, nil, nil
	} else {
		prev := l.st
		l.gone = model.KeepGone(l.gone, prev, ev.Doc.State)
		cmds = append(cmds, m.setShown(l, shownState{doc: ev.Doc, facts: ev.Facts, checks: c}))
		cmds = append(cmds, m.alertOn(l, prev, l.st))
		for _, job := range l.session.Check(ev.Doc) {
			cmds = append(cmds, m.runJob(l, nil, job))
		}
	}
	m.noteWritable(l, ev)
	if l.st != nil {
		cmds = append(cmds, m.watchPause(l))
		m.offerStaleFlag(l)
	}
	m.layoutLoop(l)
	return tea.Batch(cmds...)
}

// noteWritable follows whether an AoT loop's file can be written (unless
// the whole TUI is --read-only): the write keys are off while it cannot.
func (m *Model) noteWritable(l *loop, ev statefile.Event) {
	if m.opts.ReadOnly || l.target.Kind != statefile.KindAoT {
		return
	}
	if ev.NotWritable != nil {
		l.readOnly, l.readOnlyWhy = true, ev.NotWritable.Error()
	} else {
		l.readOnly, l.readOnlyWhy = false, ""
	}
}

// versionAt is when the version an event read was written: the file's
// modification time (a loop dead for hours reads "changed 3h ago" from the
// start; one whose clock is behind, or a touch -d, moves it back), else
// when it was read.
func versionAt(ev statefile.Event) time.Time {
	if !ev.ModTime.IsZero() {
		return ev.ModTime
	}
	return ev.At
}

// noteChange records when the file's content changed (the header's
// "changed 12s ago"), for the pace meter too.
func (m *Model) noteChange(l *loop, at time.Time) {
	if at.IsZero() {
		at = m.opts.Now()
	}
	l.changed = at
	l.changeTimes = append(l.changeTimes, at)
	if len(l.changeTimes) > 12 {
		l.changeTimes = l.changeTimes[len(l.changeTimes)-12:]
	}
}

// pace compares the quiet time with the loop's own recent pace: amber when
// quiet for over twice its median gap between changes, red for over four
// times (and at least 10 s / 30 s, so a fast loop is not flagged at once).
// The frame being drawn notes when that changes (paceAt).
func (m *Model) pace(l *loop) paceLevel {
	if l.st == nil || l.st.Control.Status != model.LoopRunning || l.hist.inPast() || (l.hist != nil && l.hist.replay != nil) {
		return paceNormal // in the past, "changed" is the version's time
	}
	level, next := paceAt(l.changeTimes, l.changed, m.now)
	m.noteClock(next)
	return level
}

// alertOn rings the bell and sends a desktop notification (OSC 9 and OSC
// 777) when the loop's status changes, its stall count reaches MAX-1, or it
// completes or stops — only while the pane is unfocused, and not --quiet.
func (m *Model) alertOn(l *loop, prev, cur *model.State) tea.Cmd {
	if prev == nil {
		return nil
	}
	return m.alert(l, alertReason(prev, cur))
}

// alert rings the bell and sends a desktop notification (OSC 9 and 777)
// saying why, about l: when there is a why, the terminal is not in focus
// and alerts are not off (in the fleet, the table's alert speaks for
// every loop); Options.Notify hears of it in any case (notify).
func (m *Model) alert(l *loop, why string) tea.Cmd {
	m.notify(l, alertKind(why), why)
	if why == "" || m.opts.Quiet || m.focused || m.fleet != nil {
		return nil
	}
	name := m.opts.LoopName
	if name == "" {
		name = l.name
	}
	title := termtext.Line("aot-tui: " + name)
	body := termtext.Line(why)
	seq := "\a" + "\x1b]9;" + title + ": " + body + "\x07" +
		"\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\x07"
	return tea.Raw(seq)
}

// The words of the alerts on completing and stopping (alertKind).
const whyCompleted, whyStopped = "the loop completed", "the loop stopped: "

// alertReason says why a change deserves an alert, or "".
func alertReason(prev, cur *model.State) string {
	pc, cc := prev.Control, cur.Control
	maxStall := cur.Objective.Constraints.EffectiveMaxStallCount()
	switch {
	case pc.Status != cc.Status && cc.Status == model.LoopCompleted:
		return whyCompleted
	case pc.Status != cc.Status && cc.Status == model.LoopStopped:
		reason := cc.StopReason
		if reason == "" {
			reason = "no reason recorded"
		}
		return whyStopped + termtext.Line(reason)
	case pc.Status != cc.Status:
		return fmt.Sprintf("status %s → %s", pc.Status, cc.Status)
	case cc.StallCount != pc.StallCount && cc.StallCount == maxStall-1 && cc.StallCount > 0:
		return fmt.Sprintf("stall %d/%d: one more stalled iteration stops the loop", cc.StallCount, maxStall)
	}
	return ""
}

// loopNames names each loop by its project directory (the directory that
// holds .claude/, else the file's own), with as many parent directories as
// it takes to tell two projects of the same name apart, and the file name
// when two files share a directory.
func loopNames(paths []string) []string {
	dirs := make([][]string, len(paths))
	files := make([]string, len(paths))
	for i, p := range paths {
		dir := statefile.ProjectDir(p)
		dirs[i] = strings.FieldsFunc(filepath.ToSlash(dir), func(r rune) bool { return r == '/' })
		files[i] = filepath.Base(p)
	}
	names := make([]string, len(paths))
	for i := range paths {
		for n := 1; ; n++ {
			names[i] = lastParts(dirs[i], n)
			clash, sameDir := false, false
			for j := range paths {
				if j != i && lastParts(dirs[j], n) == names[i] {
					clash = true
					sameDir = sameDir || strings.Join(dirs[j], "/") == strings.Join(dirs[i], "/")
				}
			}
			if !clash || n >= len(dirs[i]) || sameDir {
				if sameDir {
					names[i] += "/" + files[i]
				}
				break
			}
		}
	}
	// Two files of one project with the same name (p/.claude/x.md and
	// p/x.md): only the whole path tells them apart.
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	for i, n := range names {
		if count[n] > 1 {
			names[i] = filepath.Clean(paths[i])
		}
	}
	return names
}

// lastParts joins the last n elements of parts with "/" ("/" for none).
func lastParts(parts []string, n int) string {
	if len(parts) == 0 {
		return "/"
	}
	return strings.Join(parts[max(0, len(parts)-n):], "/")
}

// describeFileError words a parse error for the banner: the line first,
// without repeating the path the screen already shows.
func describeFileError(err error) string {
	pe, ok := statefile.ParseError(err)
	if !ok {
		return "invalid: " + err.Error()
	}
	var b strings.Builder
	b.WriteString("invalid")
	if pe.Line > 0 {
		fmt.Fprintf(&b, " at line %d", pe.Line)
	}
	b.WriteString(": " + pe.Msg)
	if pe.Hint != "" {
		b.WriteString(" — " + pe.Hint)
	}
	return b.String()
}

// offerStaleFlag offers, once, to clear a redirect_requested that no dialog
// of this session set (a previous run may have died with a form open).
// Where the pause is shared, not before a recent look found no other
// aot-tui form holding it: a look under way decides (onPauseLook asks
// again), so that no question pops up over another aot-tui's live pause
// and takes the keys meant for the view.
func (m *Model) offerStaleFlag(l *loop) {
	if l.staleOffered || l.session.FlagTouched() || l.readOnly || l.topDialog() != nil || !l.st.Control.RedirectRequested {
		return
	}
	if l.session.SharesPause() {
		v := l.session.Pause()
		fresh := !v.At.IsZero() && time.Since(v.At) < 3*pauseLookEvery
		if (!fresh && l.looking) || (fresh && len(v.Others) > 0) {
			return
		}
	}
	l.staleOffered = true
	l.dialogs = append(l.dialogs, &flowBox{redirect.AskStaleFlag(m.flowLoop(l))})
	m.refocus()
}
