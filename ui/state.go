package ui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/termtext"
)

// onState applies a watch event: a new good state replaces the old one; a
// parse error, removal or wait keeps the last good state under a banner.
func (m *Model) onState(ev statefile.Event) tea.Cmd {
	switch ev.Kind {
	case statefile.EventLoaded:
		m.banner, m.bannerBad = "", false
		if ev.Data != nil && m.redirect.isOurs(ev.Data) {
			// Our own write coming back through the watcher.
		} else {
			m.noteChange(ev.At)
			if m.redirect.dlg != dlgNone && m.st != nil {
				m.redirect.moved = true
			}
		}
		var cmd tea.Cmd
		if ev.Phase != nil {
			m.phase = ev.Phase
			m.st, m.facts, m.doc = nil, nil, nil
		} else {
			prev := m.st
			m.doc, m.st, m.facts = ev.Doc, ev.Doc.State, ev.Facts
			m.outlook = model.PredictOutlook(m.st, m.facts)
			cmd = tea.Batch(cmd, m.layoutCmd(m.graph.setState(m.st, m.facts)))
			m.bindings.setRows(len(m.st.Bindings))
			m.trail.setRows(len(m.st.Trail))
			m.corrections.setRows(len(m.st.Corrections))
			cmd = tea.Batch(cmd, m.alertOn(prev, m.st))
		}
		if !m.opts.ReadOnly && m.target.Kind == statefile.KindAoT {
			if err := statefile.Writable(m.target.Path); err != nil {
				m.readOnly, m.readOnlyWhy = true, err.Error()
			} else {
				m.readOnly, m.readOnlyWhy = false, ""
			}
		}
		if m.st != nil {
			m.offerStaleFlag()
		}
		m.layout()
		return cmd
	case statefile.EventInvalid:
		m.bannerBad = true
		what := "the file is invalid or mid-write"
		if ev.Err != nil {
			what = describeFileError(ev.Err)
		}
		if m.st != nil || m.phase != nil {
			what = "last good state shown — " + what
		}
		m.banner = "⚠ " + termtext.Line(what)
	case statefile.EventRemoved:
		m.bannerBad = true
		m.banner = "⚠ " + termtext.Line(m.target.Path) + " was removed — showing the last state; waiting for it to return"
	case statefile.EventWaiting:
		m.bannerBad = false
		hint := "start the loop with /align-goal"
		if m.target.Kind == statefile.KindPhaseLoop {
			hint = "start the phase loop"
		}
		m.banner = "… waiting for " + termtext.Line(m.target.Path) + " — " + hint
	case statefile.EventError:
		m.bannerBad = true
		m.banner = "⚠ " + termtext.Line(fmt.Sprint(ev.Err))
	}
	m.layout()
	return nil
}

// noteChange records when the file's content changed, for the pace meter.
func (m *Model) noteChange(at time.Time) {
	if at.IsZero() {
		at = m.opts.Now()
	}
	m.changed = at
	m.changeTimes = append(m.changeTimes, at)
	if len(m.changeTimes) > 12 {
		m.changeTimes = m.changeTimes[len(m.changeTimes)-12:]
	}
}

// pace compares the quiet time with the loop's own recent pace: amber when
// quiet for over twice its median gap between changes, red for over four
// times (and at least 10 s / 30 s, so a fast loop is not flagged at once).
func (m *Model) pace() paceLevel {
	if m.st == nil || m.st.Control.Status != model.LoopRunning || len(m.changeTimes) < 3 {
		return paceNormal
	}
	gaps := make([]time.Duration, 0, len(m.changeTimes)-1)
	for i := 1; i < len(m.changeTimes); i++ {
		gaps = append(gaps, m.changeTimes[i].Sub(m.changeTimes[i-1]))
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	median := gaps[len(gaps)/2]
	quiet := m.now.Sub(m.changed)
	switch {
	case quiet > 4*median && quiet > 30*time.Second:
		return paceStuck
	case quiet > 2*median && quiet > 10*time.Second:
		return paceSlow
	}
	return paceNormal
}

// alertOn rings the bell and sends a desktop notification (OSC 9 and OSC
// 777) when the loop's status changes, its stall count reaches MAX-1, or it
// completes or stops — only while the pane is unfocused, and not --quiet.
func (m *Model) alertOn(prev, cur *model.State) tea.Cmd {
	if prev == nil || m.opts.Quiet || m.focused {
		return nil
	}
	why := alertReason(prev, cur)
	if why == "" {
		return nil
	}
	name := m.opts.LoopName
	if name == "" {
		name = m.loop.name
	}
	title := sanitizeOSC("aot-tui: " + name)
	body := sanitizeOSC(why)
	seq := "\a" + "\x1b]9;" + title + ": " + body + "\x07" +
		"\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\x07"
	return tea.Raw(seq)
}

// alertReason says why a change deserves an alert, or "".
func alertReason(prev, cur *model.State) string {
	pc, cc := prev.Control, cur.Control
	maxStall := cur.Objective.Constraints.EffectiveMaxStallCount()
	switch {
	case pc.Status != cc.Status && cc.Status == model.LoopCompleted:
		return "the loop completed"
	case pc.Status != cc.Status && cc.Status == model.LoopStopped:
		reason := cc.StopReason
		if reason == "" {
			reason = "no reason recorded"
		}
		return "the loop stopped: " + termtext.Line(reason)
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
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		dir := filepath.Dir(abs)
		if filepath.Base(dir) == ".claude" {
			dir = filepath.Dir(dir)
		}
		dirs[i] = strings.FieldsFunc(filepath.ToSlash(dir), func(r rune) bool { return r == '/' })
		files[i] = filepath.Base(abs)
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
func (m *Model) offerStaleFlag() {
	r := &m.redirect
	if r.staleOffered || r.touchedFlag() || m.readOnly || r.flagOurs || r.dlg != dlgNone || !m.st.Control.RedirectRequested {
		return
	}
	r.staleOffered = true
	r.dlg = dlgStaleFlag
}
