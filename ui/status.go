package ui

import (
	"time"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// The footer's status line is typed (kit.Status: text, level, time to
// live) and belongs to what it is about: each loop has its own, the fleet
// table its own. A loop's line shows only while that loop is on screen;
// switching to it shows it if it is still live. Every line is also kept
// in the message log (M) under its loop's name, with its level.

// statusLine is a status as set: it shows until its Until.
type statusLine = kit.Shown

// fleetLogName is the name the fleet table's own lines are logged under.
const fleetLogName = "fleet"

// report sets loop l's status line to text, at level lv, for the level's
// time to live: l is the loop the line is about, on screen or not.
func (m *Model) report(l *loop, lv kit.Level, text string) {
	m.post(l, kit.Status{Text: text, Level: lv})
}

// post sets loop l's status line to st and logs it under l's name.
// Whatever it quotes (a path, an error, text from the file) is shown with
// its control and bidi characters escaped; escaping twice changes nothing.
func (m *Model) post(l *loop, st kit.Status) {
	l.status = m.said(m.logName(l), st)
}

// setStatus is the hint of a key on the screen in front (kit.Info, for
// d): the fleet table's when it is on screen, else the loop's on screen.
// What is about a loop, a result above all, is report's or post's, with
// the loop it is about.
func (m *Model) setStatus(s string, d time.Duration) {
	m.showStatus(kit.Status{Text: s, Level: kit.Info, TTL: d})
}

// showStatus sets the status line of what is on screen (the fleet table
// or the loop) to st: a component's kit.ShowStatus action.
func (m *Model) showStatus(st kit.Status) {
	if st.TTL == 0 {
		st.TTL = statusLong
	}
	if m.fleetShown() {
		m.fleet.SetStatus(m.said(fleetLogName, st))
		return
	}
	m.post(m.cur, st)
}

// said logs st under who and returns it as a status line from now.
func (m *Model) said(who string, st kit.Status) statusLine {
	st.Text = termtext.Line(st.Text)
	m.logMessage(who, st.Level, st.Text)
	return statusLine{Status: st, Until: m.now.Add(st.Life())}
}

// screenStatus is the status line of what is on screen (the fleet table
// or the loop), zero when it has gone.
func (m *Model) screenStatus() statusLine {
	if m.fleetShown() {
		return m.fleet.Status(m.now)
	}
	return m.cur.status.At(m.now)
}

// drawStatus draws the status line on screen in its level's style ("" when
// none is live) and notes when it goes.
func (m *Model) drawStatus() string {
	s := m.screenStatus()
	if s.Text == "" {
		return ""
	}
	m.noteClock(s.Until.Add(time.Nanosecond))
	return m.styles.Status(s.Level).Render(markText(s.Level, s.Text))
}

// markText is text after its level's glyph (none for info).
func markText(lv kit.Level, text string) string {
	return kit.Status{Text: text, Level: lv}.Line()
}

// logName is the name loop l's lines are logged under: none while it is
// the only loop there is.
func (m *Model) logName(l *loop) string {
	if len(m.loops) > 1 || m.fleet != nil {
		return l.name
	}
	return ""
}
