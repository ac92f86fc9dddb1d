package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
)

// View renders the screen, and arms the clock for the moment text on it
// next reads differently.
func (m *Model) View() tea.View {
	text := m.render()
	if m.changed || text != m.drawn {
		// Anything but the clock may change more than the text (the
		// title, a resize's repaint); the clock changes only the text.
		m.frames.ask()
	}
	m.changed, m.drawn = false, text
	v := tea.NewView(text)
	m.clock.arm(m.frameNext, m.opts.Now())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true
	l := m.cur
	switch {
	case l == nil:
		v.WindowTitle = "aot-tui"
	case l.st != nil:
		v.WindowTitle = "aot-tui " + windowTitle(l.st)
		v.ProgressBar = progressBar(l.st)
	case l.phase != nil:
		v.WindowTitle = termtext.Line("aot-tui ▶ " + l.phase.Phase + " — " + l.phase.Feature)
		v.ProgressBar = tea.NewProgressBar(tea.ProgressBarDefault, l.phase.GlobalIteration*100/max(1, l.phase.EffectiveMaxIterations()))
	default:
		v.WindowTitle = "aot-tui"
	}
	if m.fleet != nil {
		m.fleetTitle(&v)
	}
	return v
}

// progressBar mirrors iteration progress in the terminal's progress bar.
func progressBar(st *model.State) *tea.ProgressBar {
	c := st.Control
	maxIter := st.Objective.Constraints.EffectiveMaxIterations()
	pct := c.Iteration * 100 / max(1, maxIter)
	switch c.Status {
	case model.LoopCompleted:
		return tea.NewProgressBar(tea.ProgressBarDefault, 100)
	case model.LoopStopped:
		return tea.NewProgressBar(tea.ProgressBarError, pct)
	case model.LoopPending:
		return tea.NewProgressBar(tea.ProgressBarNone, 0)
	}
	if c.StallCount > 0 && c.StallCount >= st.Objective.Constraints.EffectiveMaxStallCount()-1 {
		return tea.NewProgressBar(tea.ProgressBarWarning, pct)
	}
	return tea.NewProgressBar(tea.ProgressBarDefault, pct)
}

// render draws the whole screen as a string of exactly height lines. The
// frame is drawn again only when a message came in since the last one
// (anything may have changed) or time-dependent text in it now reads
// differently; otherwise the clock's wake-up costs a comparison.
func (m *Model) render() string {
	key := frameKey{gen: m.bodyGen, w: m.width, h: m.height, status: m.screenStatus()}
	if m.frameOK && m.frameKey == key && m.stillReads(m.frameAt, m.frameNext) {
		return m.frame
	}
	m.clockNext = time.Time{}
	out := m.renderFrame()
	m.frame, m.frameKey, m.frameAt, m.frameNext, m.frameOK = out, key, m.now, m.clockNext, true
	return out
}

// stillReads says whether text drawn at the time at, which next changes
// at next (zero: never), reads the same at m.now. A clock that went back
// (the wall clock was set back) draws again.
func (m *Model) stillReads(at, next time.Time) bool {
	return !m.now.Before(at) && (next.IsZero() || m.now.Before(next))
}

// frameKey is what a drawn frame depends on besides the time: the
// generation bumped by every message but the clock's, the size and the
// status line on screen (which tests set directly).
type frameKey struct {
	gen    uint64
	w, h   int
	status statusLine
}

// renderFrame draws the screen; body lines come padded from renderBody,
// the others are padded here.
func (m *Model) renderFrame() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.focus == focusHelp {
		return m.renderHelp()
	}
	if m.fleetShown() {
		m.noteClock(m.fleet.NextChange())
		return m.fleet.View(m.context())
	}
	if m.focus == focusPanel {
		return m.renderPanel()
	}
	s := m.styles
	l := m.cur
	var lines []string
	if (len(m.loops) > 1 || m.fleet != nil) && !m.dialogOnly() {
		lines = append(lines, m.renderLoopBar())
	}
	switch {
	case m.dialogOnly():
		for i := range lines {
			lines[i] = padTo(lines[i], m.width)
		}
		_, footer := m.tabsAndFooter()
		lines = append(lines, m.renderBody()...)
		lines = append(lines, footer)
		return strings.Join(lines[:m.height], "\n")
	case l.phase != nil:
		m.noteChanged(l)
		lines = append(lines, renderPhaseHeader(l.phase, l.changed, m.now, m.width, s)...)
	case l.st != nil:
		m.noteChanged(l)
		lines = append(lines, renderHeader(headerData{State: l.st, Facts: l.facts, Outlook: l.outlook,
			Problems: &l.report, Changed: changedShown(l), Now: m.now, Pace: m.pace(l), Pause: m.pauseText(l), Resume: l.resume,
			Doing: nowText(l.activity, m.now), NeedsYou: needsYouText(l.activity)}, m.width, s)...)
	default:
		lines = append(lines, s.Title.Render("aot-tui"), s.Muted.Render(padTo(termtext.Line(l.target.Path), m.width)), "")
	}
	for _, b := range m.banners(l) {
		st := s.Banner
		if b.bad {
			st = s.BannerBad
		}
		for _, text := range b.lines {
			lines = append(lines, st.Render(padTo(text, m.width)))
		}
	}
	for i := range lines {
		lines[i] = padTo(lines[i], m.width)
	}
	tabs, footer := m.tabsAndFooter()
	m.shown.tabsY, m.shown.bodyY = len(lines), len(lines)+1
	lines = append(lines, tabs)
	lines = append(lines, m.renderBody()...)
	lines = append(lines, footer)
	for len(lines) < m.height {
		lines = append(lines[:len(lines)-1], strings.Repeat(" ", m.width), lines[len(lines)-1])
	}
	return strings.Join(lines[:m.height], "\n")
}

func (m *Model) renderTabs() string {
	s := m.styles
	l := m.cur
	m.shown.tabs = nil
	if l.phase != nil || l.target.Kind == statefile.KindPhaseLoop {
		return s.TabActive.Render(" Phase loop ") + s.Muted.Render(" "+termtext.Line(l.target.Path))
	}
	var spans []tabSpan
	build := func(names [numViews]string) string {
		var parts []string
		spans = spans[:0]
		x := 1
		for i := viewID(0); i < numViews; i++ {
			label := string(rune('1'+i)) + " " + names[i]
			if i == l.view {
				parts = append(parts, s.TabActive.Render(label))
			} else {
				parts = append(parts, s.Tab.Render(label))
			}
			w := lipgloss.Width(parts[len(parts)-1])
			spans = append(spans, tabSpan{x: x, w: w, view: i})
			x += w + 2
		}
		return " " + strings.Join(parts, "  ")
	}
	out := build(viewNames)
	if lipgloss.Width(out) > m.width {
		out = build(viewShort)
	}
	if lipgloss.Width(out) > m.width {
		return " " + s.TabActive.Render(string(rune('1'+l.view))+" "+viewNames[l.view]) + s.Muted.Render("  tab: next view")
	}
	m.shown.tabs = spans
	return out
}

// renderBody draws the current view in exactly bodyHeight lines, each
// padded to the width.
func (m *Model) renderBody() []string {
	h := m.bodyHeight()
	if h <= 0 {
		return nil
	}
	// The clock's wake-ups mostly change the header alone: reuse the body
	// drawn last time unless relative times in it (the trail's "3m ago")
	// now read differently.
	key := bodyKey{loop: m.cur, w: m.width, h: h, gen: m.bodyGen}
	if m.bodyCache != nil && m.bodyCacheKey == key && m.stillReads(m.bodyAt, m.bodyNext) {
		m.noteClock(m.bodyNext)
		return m.bodyCache
	}
	var lines []string
	m.bodyNext = m.collectClock(func() {
		lines = m.renderBodyNow(h)
		m.bodyPad.pad(lines, m.width)
	})
	m.bodyCache, m.bodyCacheKey, m.bodyAt = lines, key, m.now
	return lines
}

// fitLines is lines cut or filled with empty lines to n lines.
func fitLines(lines []string, n int) []string {
	if len(lines) >= n {
		return lines[:n]
	}
	return append(lines, make([]string, n-len(lines))...)
}

// padMemo pads lines to a width as padTo does, remembering the lines it
// padded last. Measuring the lines is most of what drawing a frame costs,
// and after a write of the loop most lines are those of the frame before:
// a line at the place and width it had last time takes last time's
// padding.
type padMemo struct {
	w           int
	raw, padded []string
}

// pad pads each of lines to w cells, in place.
func (p *padMemo) pad(lines []string, w int) {
	lastRaw, lastPadded, same := p.raw, p.padded, p.w == w
	p.raw, p.padded, p.w = make([]string, len(lines)), make([]string, len(lines)), w
	for i, line := range lines {
		p.raw[i] = line
		if same && i < len(lastRaw) && lastRaw[i] == line {
			lines[i] = lastPadded[i]
		} else {
			lines[i] = padTo(line, w)
		}
		p.padded[i] = lines[i]
	}
}

// collectClock runs draw and returns the earliest instant its text next
// changes at (noteClock), noting it for the frame as well.
func (m *Model) collectClock(draw func()) time.Time {
	outer := m.clockNext
	m.clockNext = time.Time{}
	draw()
	next := m.clockNext
	m.clockNext = outer
	m.noteClock(next)
	return next
}

// chromeCache is the tabs and footer line drawn last (see tabsAndFooter).
type chromeCache struct {
	ok           bool
	key          frameKey
	at, next     time.Time
	tabs, footer string
}

// tabsAndFooter are the tab bar and the footer, padded to the width: drawn
// again when a message came in or the footer's message went, not when
// only the header's "changed 12s ago" moved on.
func (m *Model) tabsAndFooter() (tabs, footer string) {
	c := &m.chrome
	key := frameKey{gen: m.bodyGen, w: m.width, h: m.height, status: m.screenStatus()}
	if c.ok && c.key == key && m.stillReads(c.at, c.next) {
		m.noteClock(c.next)
		return c.tabs, c.footer
	}
	c.next = m.collectClock(func() {
		c.tabs, c.footer = padTo(m.renderTabs(), m.width), padTo(m.renderFooter(), m.width)
	})
	c.ok, c.key, c.at = true, key, m.now
	return c.tabs, c.footer
}

// noteChanged notes when the header's "changed 12s ago" of l next reads
// differently.
func (m *Model) noteChanged(l *loop) {
	if at := changedShown(l); !at.IsZero() {
		m.noteClock(nextAgoChange(at, m.now))
	}
}

// bodyKey identifies a rendered body: the loop shown, the size and a
// generation bumped by every message but the clock's tick.
type bodyKey struct {
	loop *loop
	w, h int
	gen  uint64
}

func (m *Model) renderBodyNow(h int) []string {
	lines := m.renderContent(h)
	l := m.cur
	if l.topDialog() == nil {
		return lines
	}
	// The dialog box, centred across the body; below it the view stays,
	// dimmed (so the graph a form talks about stays in sight). Beside the
	// box there is nothing: the view's lines cut there left fragments of
	// words and boxes at its edges.
	box := m.renderDialog(l, h)
	w := l.topDialog().width(m)
	if len(box) > 0 {
		w = ansi.StringWidth(box[0])
	}
	x := max0((m.width - w) / 2)
	for i, line := range lines {
		if i >= len(box) {
			lines[i] = m.styles.Muted.Render(padTo(ansi.Strip(line), m.width))
			continue
		}
		lines[i] = strings.Repeat(" ", x) + box[i] + strings.Repeat(" ", max0(m.width-x-w))
	}
	return lines
}

// renderContent renders the current view's body, h lines tall.
func (m *Model) renderContent(h int) []string {
	s := m.styles
	l := m.cur
	var body string
	m.shown.body = shownBody{loop: l, height: h}
	switch {
	case l.phase != nil:
		body = l.phaseText.view()
	case l.st == nil:
		// Nothing to show yet: say why in full, wrapped, mid-screen.
		msg := "reading " + termtext.Line(l.target.Path) + " …"
		if l.banner != "" {
			msg = l.banner
		}
		lines := wrap(msg, max(20, m.width-4))
		pad := max0((h - len(lines)) / 2)
		out := make([]string, pad, h)
		for _, line := range lines {
			out = append(out, "  "+line)
		}
		body = s.Muted.Render(strings.Join(out, "\n"))
	case l.view == viewGraph && m.wide:
		left := strings.Split(l.graph.view(s, m.gstyler), "\n")
		right := strings.Split(l.details.view(), "\n")
		sep := s.Border.Render("│")
		left, right = fitLines(left, h), fitLines(right, h)
		m.leftPad.pad(left, l.graph.width)
		m.rightPad.pad(right, l.details.width)
		rows := make([]string, h)
		for i := range rows {
			rows[i] = left[i] + sep + right[i]
		}
		body = strings.Join(rows, "\n")
		m.shown.body.graph = l.graph.width
	case l.view == viewGraph && l.showDetails:
		body = l.details.view()
	case l.view == viewGraph:
		body = l.graph.view(s, m.gstyler)
		m.shown.body.graph = l.graph.width
	case l.view == viewBindings:
		body, m.shown.body.table = l.bindings.view(s), &l.bindings
	case l.view == viewTrail:
		body, m.shown.body.table = l.trail.view(s), &l.trail
	case l.view == viewCorrections:
		body, m.shown.body.table = l.corrections.view(s), &l.corrections
	case l.view == viewObjective:
		body = l.objective.view()
	case l.view == viewPrompt:
		body = l.prompt.view()
	case l.view == viewActivity:
		body = l.activityText.view()
	}
	lines := strings.Split(body, "\n")
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

func (m *Model) renderFooter() string {
	s := m.styles
	l := m.cur
	switch m.focus {
	case focusFilter:
		return m.filterInput.View()
	}
	var right []string
	if l.view == viewGraph && l.graph.follow {
		right = append(right, s.Flag.Render(" FOLLOW "))
	}
	if l.view == viewGraph && l.st != nil {
		if ok, why := l.graph.layeredWhy(); !ok && why != "" {
			right = append(right, s.Muted.Render(truncate(why, m.width*2/3)))
		}
	}
	if f := l.filters[l.view]; f != "" {
		right = append(right, s.Accent.Render("filter: "+termtext.Line(f)))
	}
	if mark := m.scrollMark(l); mark != "" {
		right = append(right, s.Muted.Render(mark))
	}
	if l.readOnly {
		right = append(right, s.Muted.Render("read-only"))
	}
	r := strings.Join(right, " ")
	room := m.width - lipgloss.Width(r) - 1
	left := m.drawStatus()
	switch {
	case left != "":
	case isRedirectDialog(l.topDialog()):
		left = m.redirectFooter(l, room)
	default:
		left = m.shortHelp(room)
	}
	left = padTo(truncate(left, room), room)
	return left + " " + r
}

// loopStatus is loop l's status for the loop bars, with its glyph: a
// phase loop's phase; before a state was read, invalid when the file is
// there and cannot be read as one (as the fleet table says), else waiting.
func loopStatus(l *loop) (status, glyph string) {
	switch {
	case l.st != nil:
		return string(l.st.Control.Status), loopword.LoopGlyph(l.st.Control.Status)
	case l.phase != nil:
		return l.phase.Phase, "▶"
	case l.bannerBad:
		return "invalid", "✗"
	}
	return "waiting", "…"
}

// renderLoopBar lists the watched loops: number, project, status; the
// current one highlighted, • on those that changed out of sight.
func (m *Model) renderLoopBar() string {
	if m.fleet != nil {
		return m.renderFleetBar()
	}
	s := m.styles
	var parts []string
	for _, l := range m.loops {
		status, glyph := loopStatus(l)
		label := fmt.Sprintf("%d %s %s %s", l.idx+1, termtext.Line(l.name), glyph, termtext.Line(status))
		if l.unseen {
			label += " •"
		}
		if l == m.cur {
			parts = append(parts, s.TabActive.Render(label))
		} else {
			parts = append(parts, s.Tab.Render(label))
		}
	}
	prefix, sep := s.Muted.Render("loops < > "), s.Muted.Render(" │ ")
	idx := m.cur.idx
	// When they do not all fit, drop loops from the left until the one
	// shown does: the bar must always say which loop is on screen.
	for first := 0; first < idx; first++ {
		lead := prefix
		if first > 0 {
			lead += s.Muted.Render("… ")
		}
		if lipgloss.Width(lead+strings.Join(parts[first:idx+1], sep)) <= m.width {
			return truncate(lead+strings.Join(parts[first:], sep), m.width)
		}
	}
	lead := prefix
	if idx > 0 {
		lead += s.Muted.Render("… ")
	}
	return truncate(lead+strings.Join(parts[idx:], sep), m.width)
}
