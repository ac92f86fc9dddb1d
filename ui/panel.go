package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// panelKind is which full-screen panel is open (focusPanel).
type panelKind int

const (
	panelNone     panelKind = iota
	panelChanges            // what changed in the version on screen
	panelMessages           // the message log
	panelProblems           // validation problems of the version on screen (problems.go)
)

// panelView is a full-screen, scrollable text over the views, like the
// help screen: what changed in a version, or the message log.
type panelView struct {
	kind  panelKind
	title string
	text  scrollText
	// builtFor is the width the lines were wrapped for; from what they
	// were built from (the problems: the document on screen).
	builtFor int
	from     any
}

// logEntry is one line of the message log.
type logEntry struct {
	at    time.Time
	loop  string
	level kit.Level
	text  string
	// n counts the same message said again in a row.
	n int
}

// messageLog keeps the footer's messages and the corrections that came in
// during this session, so that a message cut short in the footer, or gone
// before it was read, can be read in full (M).
type messageLog struct {
	entries []logEntry
}

// maxLogEntries bounds the message log; the oldest go first.
const maxLogEntries = 1000

// logMessage adds s, of level lv, to the message log, as said about the
// loop named who ("": the only loop; fleetLogName: the fleet table).
func (m *Model) logMessage(who string, lv kit.Level, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	log := &m.msgs
	if n := len(log.entries); n > 0 && log.entries[n-1].text == s && log.entries[n-1].loop == who && log.entries[n-1].level == lv {
		log.entries[n-1].n++
		log.entries[n-1].at = m.now
	} else {
		log.entries = append(log.entries, logEntry{at: m.now, loop: who, level: lv, text: s, n: 1})
		if len(log.entries) > maxLogEntries {
			log.entries = append([]logEntry(nil), log.entries[len(log.entries)-maxLogEntries:]...)
		}
	}
	if m.focus == focusPanel && m.panel.kind == panelMessages {
		m.buildMessages(false)
	}
}

// openMessages shows the message log, newest at the bottom.
func (m *Model) openMessages() {
	m.panel = panelView{kind: panelMessages}
	m.buildMessages(true)
	m.focus = focusPanel
}

func (m *Model) buildMessages(toEnd bool) {
	s := m.styles
	w := max(20, m.width)
	var lines []string
	for _, e := range m.msgs.entries {
		// The time, the level's word in its colour, the loop, the text.
		stamp := e.at.Local().Format("15:04:05") + "  "
		word := fmt.Sprintf("%-5s  ", e.level)
		head := len(stamp) + len(word)
		text := e.text
		if e.loop != "" {
			text = "[" + e.loop + "] " + text
		}
		if e.n > 1 {
			text += fmt.Sprintf(" (×%d)", e.n)
		}
		for i, line := range wrap(text, w-head) {
			if i == 0 {
				ws := s.Status(e.level)
				if e.level == kit.Info {
					ws = s.Muted // most lines are info: the others stand out
				}
				lines = append(lines, s.Muted.Render(stamp)+ws.Render(word)+line)
			} else {
				lines = append(lines, strings.Repeat(" ", head)+line)
			}
		}
	}
	if len(lines) == 0 {
		lines = []string{s.Muted.Render("no messages yet: what the footer says, and corrections that come in, are kept here")}
	}
	p := &m.panel
	p.title = fmt.Sprintf("message log — %d message%s of this session", len(m.msgs.entries), plural(len(m.msgs.entries)))
	p.text.width, p.text.height = m.width, m.panelHeight()
	p.builtFor = m.width
	top := p.text.top
	p.text.set(lines)
	p.text.top = top
	if toEnd {
		p.text.top = len(p.text.lines)
	}
	p.text.clamp()
}

// openWhatChanged shows what changed from the version before to the one
// on screen, in words.
func (m *Model) openWhatChanged(l *loop) {
	m.recordQueued(l)
	h := l.hist
	if h == nil || h.tl.Len() == 0 {
		m.report(l, kit.Info, "no versions yet: the timeline starts with the first state read")
		return
	}
	m.panel = panelView{kind: panelChanges}
	m.buildChanges(l)
	m.focus = focusPanel
}

func (m *Model) buildChanges(l *loop) {
	s := m.styles
	h := m.hist(l)
	i := h.current()
	p := &m.panel
	p.text.width, p.text.height = m.width, m.panelHeight()
	p.builtFor = m.width
	cur, err := m.parsedVersion(h, i)
	if err != nil {
		p.title = "what changed"
		p.text.set(wrap(err.Error(), max(20, m.width)))
		return
	}
	p.title = fmt.Sprintf("what changed — version %d of %d, %s", i+1, h.tl.Len(), versionTime(h.tl.Time(i), m.now))
	var lines []string
	var changes []history.Change
	if i <= h.tl.First() {
		what := "the first version seen"
		if i > 0 {
			what = "the oldest version still held"
		}
		lines = append(lines, s.Muted.Render("this is "+what+": nothing before it to compare with"))
		changes = history.Compare(nil, cur.doc.State)
	} else {
		prev, err := m.parsedVersion(h, i-1)
		if err != nil {
			p.text.set(wrap(err.Error(), max(20, m.width)))
			return
		}
		gap := h.tl.Time(i).Sub(h.tl.Time(i - 1)).Round(time.Second)
		lines = append(lines, s.Muted.Render(fmt.Sprintf("against version %d, %s (%s before)", i, versionTime(h.tl.Time(i-1), m.now), gap)))
		changes = history.Compare(prev.doc.State, cur.doc.State)
		if len(changes) == 0 {
			lines = append(lines, "", "nothing the schema defines changed (comments, layout or unknown fields only)")
		}
	}
	lines = append(lines, "")
	w := max(20, m.width-2)
	for _, c := range changes {
		st := changeStyle(s, c)
		for j, line := range wrap(c.Text, w-2) {
			lead := "  "
			if j == 0 {
				lead = st.Render("•") + " "
			}
			lines = append(lines, lead+st.Render(line))
		}
	}
	p.text.set(lines)
	p.text.top = 0
}

// changeStyle colours a change by what it means for the loop.
func changeStyle(s Styles, c history.Change) lipgloss.Style {
	switch c.Kind {
	case history.ChangeCorrection, history.ChangeObjective, history.ChangeConstraint:
		return s.Accent
	case history.ChangeBacktrack, history.ChangeTrailCleared, history.ChangeAtomRemoved:
		return s.Warn
	case history.ChangeStall:
		if strings.HasSuffix(c.Text, "↑") {
			return s.Warn
		}
	case history.ChangeAtomAdded, history.ChangeBinding:
		return s.OK
	case history.ChangeLoopStatus:
		return s.Bold
	}
	return s.Base
}

func (m *Model) panelHeight() int { return max0(m.height - 3) }

// renderPanel draws the open panel over the whole screen.
func (m *Model) renderPanel() string {
	s := m.styles
	p := &m.panel
	if p.builtFor != m.width || p.text.height != m.panelHeight() || p.kind == panelProblems && p.from != any(m.cur.doc) {
		switch p.kind {
		case panelMessages:
			m.buildMessages(false)
		case panelChanges:
			m.buildChanges(m.cur)
		case panelProblems:
			m.buildProblems(m.cur)
		}
	}
	k := m.keys
	hint := k.Back.Help().Key + " closes · j/k pgup/pgdn scroll"
	if p.kind == panelChanges {
		hint += fmt.Sprintf(" · %s/%s other versions · %s/%s changes", k.OlderVersion.Help().Key, k.NewerVersion.Help().Key,
			k.PrevChange.Help().Key, k.NextChange.Help().Key)
	}
	if h := m.moreHint(&p.text); h != "" {
		hint = h + " · " + hint
	}
	lines := []string{s.Title.Render(truncate(p.title, m.width)), ""}
	lines = append(lines, strings.Split(p.text.view(), "\n")...)
	lines = append(lines, s.Muted.Render(truncate(hint, m.width)))
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	for i := range lines {
		lines[i] = padTo(lines[i], m.width)
	}
	return strings.Join(lines[:m.height], "\n")
}
