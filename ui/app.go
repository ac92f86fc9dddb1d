// Package ui is aot-tui's Bubble Tea v2 program: one root model composing
// the header, the views (graph, bindings, trail, corrections, objective,
// prompt; the phase loop view), details, filter, help and alerts.
package ui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/graph"
	"github.com/aot-loop/aot-tui/ui/termtext"
)

// viewID names the main views, in tab order.
type viewID int

const (
	viewGraph viewID = iota
	viewBindings
	viewTrail
	viewCorrections
	viewObjective
	viewPrompt
	numViews
)

var viewNames = [numViews]string{"Graph", "Bindings", "Trail", "Corrections", "Objective", "Prompt"}
var viewShort = [numViews]string{"Graph", "Bind", "Trail", "Corr", "Obj", "Prompt"}

// Options configure the TUI.
type Options struct {
	Target statefile.Target
	// Targets, when set, are several loops to watch (switch with < and >);
	// Target is then ignored.
	Targets []statefile.Target
	// ReadOnly disables every write key (also set when the file or its
	// directory is not writable).
	ReadOnly bool
	// Quiet turns off the bell and desktop notifications.
	Quiet bool
	// NoColor drops colours (NO_COLOR is honoured by default).
	NoColor bool
	// Watch tunes the file watcher (tests use short intervals).
	Watch statefile.WatchOptions
	// Now is the clock (tests fix it).
	Now func() time.Time
	// LoopName names the loop in notifications (default: the project dir).
	LoopName string
	// SyncLayout lays the graph out inside Update instead of in the
	// background (tests and benchmarks that drive Update directly).
	SyncLayout bool
}

// Messages. Watch events carry the index of the loop they are about.
type (
	stateMsg struct {
		idx int
		ev  statefile.Event
	}
	tickMsg      time.Time
	watchStarted struct {
		idx int
		w   *statefile.Watcher
	}
)

// loop is everything the TUI keeps per watched loop. The root model embeds
// the current one, so switching loops (< and >) swaps one pointer.
type loop struct {
	idx    int
	target statefile.Target
	// name tells the loop apart from the others watched (loopNames).
	name    string
	events  chan statefile.Event
	watcher *statefile.Watcher

	// The last good state and what was derived from it.
	st    *model.State
	facts *model.Facts
	doc   *statefile.Document
	phase *model.PhaseLoop
	// outlook is the stop hook's next decision for st.
	outlook model.Outlook

	// banner explains a file problem (invalid, removed, waiting, error).
	banner    string
	bannerBad bool

	changed     time.Time
	changeTimes []time.Time
	// unseen is true when the loop changed while another one was shown.
	unseen bool

	view        viewID
	showDetails bool // narrow screens: details as an overlay
	filters     [numViews]string
	readOnly    bool
	readOnlyWhy string

	graph       graphView
	details     scrollText
	bindings    tableView
	trail       tableView
	corrections tableView
	objective   scrollText
	prompt      scrollText
	phaseText   scrollText

	redirect redirectState
}

// Model is the root model. Children are plain structs; the root owns the
// geometry, the focus and every message.
type Model struct {
	*loop
	loops []*loop

	opts   Options
	keys   KeyMap
	styles Styles
	isDark bool
	// laidOutDialogOnly is dialogOnly() as of the last layout.
	laidOutDialogOnly bool
	// gstyler colours the layered graph (nil: plain).
	gstyler graph.Styler
	// jumping is the ':' prompt (jump to an atom by id).
	jumping   bool
	jumpInput textinput.Model

	now time.Time

	width, height int
	wide          bool
	showHelp      bool
	filtering     bool
	filterInput   textinput.Model
	focused       bool
	status        string
	statusUntil   time.Time
	helpText      scrollText

	// bodyCache is the last rendered body (see renderBody).
	bodyCache    []string
	bodyCacheKey bodyKey
	bodyGen      uint64
}

// withLoop runs f with loop idx as the current one (for events about a
// loop that is not on screen).
func (m *Model) withLoop(idx int, f func()) {
	if idx < 0 || idx >= len(m.loops) {
		return
	}
	saved := m.loop
	m.loop = m.loops[idx]
	f()
	m.loop = saved
}

// New builds the root model; Init starts watching the file(s).
func New(opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !opts.NoColor && os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	targets := opts.Targets
	if len(targets) == 0 {
		targets = []statefile.Target{opts.Target}
	}
	m := &Model{
		opts:    opts,
		keys:    DefaultKeyMap(),
		isDark:  true,
		focused: true,
		now:     opts.Now(),
	}
	m.styles = NewStyles(m.isDark, opts.NoColor)
	m.gstyler = graphStyler(m.styles)
	for i, t := range targets {
		l := &loop{idx: i, target: t, events: make(chan statefile.Event, 16)}
		l.readOnly = opts.ReadOnly
		if opts.ReadOnly {
			l.readOnlyWhy = "--read-only"
		}
		if t.Kind == statefile.KindPhaseLoop {
			l.readOnly, l.readOnlyWhy = true, "phase loops are read-only"
		}
		m.loops = append(m.loops, l)
		m.loop = l
		m.setupTables()
	}
	paths := make([]string, len(m.loops))
	for i, l := range m.loops {
		paths[i] = l.target.Path
	}
	for i, name := range loopNames(paths) {
		m.loops[i].name = name
	}
	m.loop = m.loops[0]
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "id, text or status"
	m.filterInput = ti
	ji := textinput.New()
	ji.Prompt = ":"
	ji.Placeholder = "atom id, e.g. A7"
	m.jumpInput = ji
	return m
}

// Init starts the watchers, the clock and asks for the background colour.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tick(), tea.RequestBackgroundColor}
	for _, l := range m.loops {
		cmds = append(cmds, m.startWatch(l), listen(l))
	}
	return tea.Batch(cmds...)
}

// Close clears any redirect_requested flag this session set (when the TUI
// exits with a form open, or crashes) and stops the watchers; call it
// after the program returns.
func (m *Model) Close() {
	for _, l := range m.loops {
		if l.redirect.flagOurs {
			l.redirect.flagOurs = false
			fw := l.redirect.flagWriter()
			fw.want.Store(false)
			fw.write(l.target.Path, m.opts.Watch.MaxSize) // writes still in flight will find false too
		}
		if l.watcher != nil {
			l.watcher.Stop()
			l.watcher = nil
		}
	}
}

func (m *Model) startWatch(l *loop) tea.Cmd {
	t, opts, ch, idx := l.target, m.opts.Watch, l.events, l.idx
	return func() tea.Msg {
		w := statefile.StartWatch(t, opts, func(ev statefile.Event) { ch <- ev })
		return watchStarted{idx: idx, w: w}
	}
}

// listen waits for the next watch event of a loop; it is re-armed after
// each one.
func listen(l *loop) tea.Cmd {
	ch, idx := l.events, l.idx
	return func() tea.Msg { return stateMsg{idx: idx, ev: <-ch} }
}

// tick is the once-a-second clock for "changed 12s ago"; nothing polls
// faster than that.
func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update dispatches messages: keys go to the focused part, everything else
// is broadcast.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, tick := msg.(tickMsg); !tick {
		m.bodyGen++ // anything but the clock may change the body
	}
	model, cmd := m.update(msg)
	if m.laidOutDialogOnly != m.dialogOnly() {
		m.layout() // a dialog opened or closed in a short pane: the body's height changed
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.relayout()
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.styles = NewStyles(m.isDark, m.opts.NoColor)
		m.gstyler = graphStyler(m.styles)
		m.refreshText()
		return m, nil
	case layoutMsg:
		var cmd tea.Cmd
		m.withLoop(msg.idx, func() {
			m.graph.lay.install(msg, m.graph.sel)
			m.syncGraphSelection()
			cmd = m.layoutCmd(m.graph.shrinkJob())
		})
		return m, cmd
	case tea.FocusMsg:
		m.focused = true
		return m, nil
	case tea.BlurMsg:
		m.focused = false
		return m, nil
	case watchStarted:
		if msg.idx >= 0 && msg.idx < len(m.loops) {
			m.loops[msg.idx].watcher = msg.w
		}
		return m, nil
	case stateMsg:
		var cmd tea.Cmd
		cur := m.loop.idx
		m.withLoop(msg.idx, func() {
			had := m.st != nil || m.phase != nil
			cmd = m.onState(msg.ev)
			if msg.idx != cur && had {
				m.unseen = true
			}
		})
		return m, tea.Batch(cmd, listen(m.loops[msg.idx]))
	case tickMsg:
		prev := m.now
		m.now = m.opts.Now()
		if (m.view == viewTrail || m.view == viewCorrections) && m.now.Minute() != prev.Minute() {
			m.bodyGen++ // relative times ("3m ago") moved on
		}
		if !m.statusUntil.IsZero() && m.now.After(m.statusUntil) {
			m.status, m.statusUntil = "", time.Time{}
		}
		return m, tick()
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseWheelMsg:
		m.onWheel(msg)
		return m, nil
	}
	if cmd, ok := m.onRedirectMsg(msg); ok {
		return m, cmd
	}
	if m.redirect.dlg == dlgMenu || m.redirect.dlg == dlgForm {
		return m, m.onDialogMsg(msg)
	}
	if m.filtering {
		var cmd tea.Cmd
		m.filterInput, cmd = m.filterInput.Update(msg)
		return m, cmd
	}
	return m, nil
}

// layout computes the geometry once per resize and hands each part its size.
func (m *Model) layout() {
	m.laidOutDialogOnly = m.dialogOnly()
	m.wide = m.width >= 100
	bodyH := m.bodyHeight()
	w := m.width
	if m.phase != nil || m.target.Kind == statefile.KindPhaseLoop {
		m.phaseText.width, m.phaseText.height = w, bodyH
	}
	if m.wide {
		gw := m.graphWidth()
		m.graph.setSize(gw, bodyH)
		m.details.width, m.details.height = w-gw-1, bodyH
	} else {
		m.graph.setSize(w, bodyH)
		m.details.width, m.details.height = w, bodyH
	}
	for _, t := range []*tableView{&m.bindings, &m.trail, &m.corrections} {
		t.setSize(w, bodyH)
	}
	m.objective.width, m.objective.height = w, bodyH
	m.prompt.width, m.prompt.height = w, bodyH
	m.helpText.width, m.helpText.height = w, max0(m.height-1)
	m.filterInput.SetWidth(max0(w - 20))
	m.jumpInput.SetWidth(max0(w - 20))
	if r := &m.redirect; r.menu != nil {
		r.menu.WithWidth(m.menuWidth() - 4).WithHeight(m.menuHeight())
	}
	if r := &m.redirect; r.form != nil {
		r.form.WithWidth(m.dialogWidth() - 4).WithHeight(m.formHeight())
	}
	if r := &m.redirect; r.preview != nil {
		if w := m.dialogWidth() - 4; w != r.diff.width {
			r.diff.width = w
			r.diff.set(m.colorDiff(r.preview.diff, w)) // wrapped for the new width
		}
		r.diff.height = max(3, bodyH-8)
		r.diff.clamp()
	}
	m.refreshText()
}

// graphWidth is the graph pane's share of a wide screen: more for the
// drawing, which needs room, than for the list.
func (m *Model) graphWidth() int {
	if m.graph.lay.prefer || !m.graph.lay.chosen {
		if m.width*66/100 >= autoLayeredWidth {
			return m.width * 66 / 100
		}
	}
	return m.width * 58 / 100
}

// chromeHeight is what the header, tabs, banner and footer take.
// dialogOnly is true when a redirect dialog is open in a pane too short
// for it beside the header: the dialog gets every row but the footer.
func (m *Model) dialogOnly() bool { return m.redirect.dlg != dlgNone && m.height < 20 }

func (m *Model) chromeHeight() int {
	if m.dialogOnly() {
		return 1 // the footer
	}
	h := 3 + 1 + 1 // header (2) + outlook, tabs, footer
	if len(m.loops) > 1 {
		h++ // the loop bar
	}
	return h + len(m.bannerLines())
}

// bannerLines is the file-problem banner over the last good state,
// wrapped (up to three lines) so that its ending — what to do — shows.
func (m *Model) bannerLines() []string {
	if m.banner == "" || (m.st == nil && m.phase == nil) {
		return nil
	}
	lines := wrap(m.banner, max(20, m.width-1))
	if len(lines) > 3 {
		lines = append(lines[:2], truncate(strings.Join(lines[2:], " "), m.width))
	}
	return lines
}

func (m *Model) bodyHeight() int { return max0(m.height - m.chromeHeight()) }

// refreshText re-renders the width-dependent text views.
func (m *Model) refreshText() {
	if m.phase != nil {
		m.phaseText.set(renderPhase(m.phase, m.phaseText.width, m.styles))
	}
	if m.st == nil {
		return
	}
	m.objective.set(renderObjective(m.st, m.objective.width, m.styles))
	m.prompt.set(renderPrompt(m.st.Body, m.prompt.width, m.styles))
	m.refreshDetails()
}

func (m *Model) refreshDetails() {
	if m.st == nil {
		return
	}
	id := m.graph.sel
	if lay := m.graph.lay.gv; lay != nil && lay.Layout() != nil {
		if _, atom := m.facts.Index[id]; !atom {
			if folded := lay.Layout().Folded(id); len(folded) > 0 {
				m.details.set(renderFolded(m.st, m.facts, id, folded, lay.Layout().IsSummary(id), m.details.width, m.styles))
				return
			}
		}
	}
	m.details.set(renderDetails(m.st, m.facts, id, m.details.width, m.styles))
}

// setStatus shows a transient message in the footer.
func (m *Model) setStatus(s string, d time.Duration) {
	m.status = s
	m.statusUntil = m.now.Add(d)
}

// View renders the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.ReportFocus = true
	if m.st != nil {
		v.WindowTitle = "aot-tui " + windowTitle(m.st)
		v.ProgressBar = progressBar(m.st, m.facts)
	} else if m.phase != nil {
		v.WindowTitle = sanitizeOSC("aot-tui ▶ " + m.phase.Phase + " — " + m.phase.Feature)
		v.ProgressBar = tea.NewProgressBar(tea.ProgressBarDefault, m.phase.GlobalIteration*100/max(1, m.phase.EffectiveMaxIterations()))
	} else {
		v.WindowTitle = "aot-tui"
	}
	return v
}

// progressBar mirrors iteration progress in the terminal's progress bar.
func progressBar(st *model.State, f *model.Facts) *tea.ProgressBar {
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

// render draws the whole screen as a string of exactly height lines.
func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.styles
	var lines []string
	if len(m.loops) > 1 && !m.showHelp && !m.dialogOnly() {
		lines = append(lines, m.renderLoopBar())
	}
	switch {
	case m.showHelp:
		return m.renderHelp()
	case m.dialogOnly():
		lines = append(lines, m.renderBody()...)
		lines = append(lines, m.renderFooter())
		for i := range lines {
			lines[i] = padTo(lines[i], m.width)
		}
		return strings.Join(lines[:m.height], "\n")
	case m.phase != nil:
		lines = append(lines, renderPhaseHeader(m.phase, m.changed, m.now, m.width, s)...)
	case m.st != nil:
		lines = append(lines, renderHeader(headerData{State: m.st, Facts: m.facts, Outlook: m.outlook,
			Changed: m.changed, Now: m.now, Pace: m.pace()}, m.width, s)...)
	default:
		lines = append(lines, s.Title.Render("aot-tui"), s.Muted.Render(padTo(m.target.Path, m.width)), "")
	}
	for _, l := range m.bannerLines() {
		st := s.Banner
		if m.bannerBad {
			st = s.BannerBad
		}
		lines = append(lines, st.Render(padTo(l, m.width)))
	}
	lines = append(lines, m.renderTabs())
	body := m.renderBody()
	lines = append(lines, body...)
	lines = append(lines, m.renderFooter())
	for i := range lines {
		lines[i] = padTo(lines[i], m.width)
	}
	for len(lines) < m.height {
		lines = append(lines[:len(lines)-1], strings.Repeat(" ", m.width), lines[len(lines)-1])
	}
	return strings.Join(lines[:m.height], "\n")
}

func (m *Model) renderTabs() string {
	s := m.styles
	if m.phase != nil || m.target.Kind == statefile.KindPhaseLoop {
		return s.TabActive.Render(" Phase loop ") + s.Muted.Render(" "+m.target.Path)
	}
	build := func(names [numViews]string) string {
		var parts []string
		for i := viewID(0); i < numViews; i++ {
			label := string(rune('1'+i)) + " " + names[i]
			if i == m.view {
				parts = append(parts, s.TabActive.Render(label))
			} else {
				parts = append(parts, s.Tab.Render(label))
			}
		}
		return " " + strings.Join(parts, "  ")
	}
	out := build(viewNames)
	if lipgloss.Width(out) > m.width {
		out = build(viewShort)
	}
	if lipgloss.Width(out) > m.width {
		out = " " + s.TabActive.Render(string(rune('1'+m.view))+" "+viewNames[m.view]) + s.Muted.Render("  tab: next view")
	}
	return out
}

// renderBody draws the current view in exactly bodyHeight lines.
func (m *Model) renderBody() []string {
	h := m.bodyHeight()
	if h <= 0 {
		return nil
	}
	// The once-a-second clock only changes the header (and relative times
	// in the trail and corrections): reuse the body rendered last time.
	key := bodyKey{loop: m.loop, w: m.width, h: h, gen: m.bodyGen}
	if m.bodyCache != nil && m.bodyCacheKey == key {
		return m.bodyCache
	}
	lines := m.renderBodyNow(h)
	m.bodyCache, m.bodyCacheKey = lines, key
	return lines
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
	if m.redirect.dlg == dlgNone {
		return lines
	}
	// The dialog box, centred across the body, over the view dimmed (so
	// the graph a form talks about stays in sight).
	box := m.renderDialog(h)
	w := m.dialogWidth()
	if len(box) > 0 {
		w = ansi.StringWidth(box[0])
	}
	x := max0((m.width - w) / 2)
	for i, l := range lines {
		under := padTo(ansi.Strip(l), m.width)
		if i >= len(box) {
			lines[i] = m.styles.Muted.Render(under)
			continue
		}
		// A blank column each side keeps the view's text off the border.
		left, right := ansi.Cut(under, 0, max0(x-1)), ansi.Cut(under, x+w+1, m.width)
		lines[i] = m.styles.Muted.Render(left) + strings.Repeat(" ", x-ansi.StringWidth(left)) + box[i] +
			padTo("", min(1, max0(m.width-x-w))) + m.styles.Muted.Render(right)
	}
	return lines
}

// renderContent renders the current view's body, h lines tall.
func (m *Model) renderContent(h int) []string {
	s := m.styles
	var body string
	switch {
	case m.phase != nil:
		body = m.phaseText.view()
	case m.st == nil:
		// Nothing to show yet: say why in full, wrapped, mid-screen.
		msg := "reading " + m.target.Path + " …"
		if m.banner != "" {
			msg = m.banner
		}
		lines := wrap(msg, max(20, m.width-4))
		pad := max0((h - len(lines)) / 2)
		out := make([]string, pad, h)
		for _, l := range lines {
			out = append(out, "  "+l)
		}
		body = s.Muted.Render(strings.Join(out, "\n"))
	case m.view == viewGraph && m.wide:
		left := strings.Split(m.graph.view(s, m.gstyler), "\n")
		right := strings.Split(m.details.view(), "\n")
		sep := s.Border.Render("│")
		var rows []string
		for i := 0; i < h; i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			rows = append(rows, padTo(l, m.graph.width)+sep+padTo(r, m.details.width))
		}
		body = strings.Join(rows, "\n")
	case m.view == viewGraph && m.showDetails:
		body = m.details.view()
	case m.view == viewGraph:
		body = m.graph.view(s, m.gstyler)
	case m.view == viewBindings:
		body = m.bindings.view(s)
	case m.view == viewTrail:
		body = m.trail.view(s)
	case m.view == viewCorrections:
		body = m.corrections.view(s)
	case m.view == viewObjective:
		body = m.objective.view()
	case m.view == viewPrompt:
		body = m.prompt.view()
	}
	lines := strings.Split(body, "\n")
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

func (m *Model) renderFooter() string {
	s := m.styles
	if m.filtering {
		return m.filterInput.View()
	}
	if m.jumping {
		return m.jumpInput.View()
	}
	var right []string
	if m.view == viewGraph && m.graph.follow {
		right = append(right, s.Flag.Render(" FOLLOW "))
	}
	if m.view == viewGraph && m.st != nil {
		if ok, why := m.graph.layeredWhy(); !ok && why != "" {
			right = append(right, s.Muted.Render(truncate(why, m.width*2/3)))
		}
	}
	if f := m.filters[m.view]; f != "" {
		right = append(right, s.Accent.Render("filter: "+sanitizeOSC(f)))
	}
	if m.readOnly {
		right = append(right, s.Muted.Render("read-only"))
	}
	r := strings.Join(right, " ")
	room := m.width - lipgloss.Width(r) - 1
	left := ""
	switch {
	case m.status != "":
		left = s.Accent.Render(m.status)
	case m.redirect.dlg != dlgNone && m.redirect.dlg != dlgStaleFlag:
		msg := "redirect in progress: the loop pauses until you apply or cancel (esc)"
		if lipgloss.Width(msg) > room {
			msg = "loop paused until you apply or cancel (esc)"
		}
		left = s.Warn.Render(msg)
	default:
		left = m.shortHelp(room)
	}
	left = padTo(truncate(left, room), room)
	return left + " " + r
}

// How long transient footer messages stay.
const (
	statusShort = 3 * time.Second
	statusLong  = 6 * time.Second
)

// renderLoopBar lists the watched loops: number, project, status; the
// current one highlighted, • on those that changed out of sight.
func (m *Model) renderLoopBar() string {
	s := m.styles
	var parts []string
	for _, l := range m.loops {
		status, glyph := "waiting", "…"
		switch {
		case l.st != nil:
			status, glyph = string(l.st.Control.Status), LoopGlyph(l.st.Control.Status)
		case l.phase != nil:
			status, glyph = l.phase.Phase, "▶"
		}
		label := fmt.Sprintf("%d %s %s %s", l.idx+1, termtext.Line(l.name), glyph, termtext.Line(status))
		if l.unseen {
			label += " •"
		}
		if l == m.loop {
			parts = append(parts, s.TabActive.Render(label))
		} else {
			parts = append(parts, s.Tab.Render(label))
		}
	}
	prefix, sep := s.Muted.Render("loops < > "), s.Muted.Render(" │ ")
	// When they do not all fit, drop loops from the left until the one
	// shown does: the bar must always say which loop is on screen.
	for first := 0; first < m.loop.idx; first++ {
		lead := prefix
		if first > 0 {
			lead += s.Muted.Render("… ")
		}
		if lipgloss.Width(lead+strings.Join(parts[first:m.loop.idx+1], sep)) <= m.width {
			return truncate(lead+strings.Join(parts[first:], sep), m.width)
		}
	}
	lead := prefix
	if m.loop.idx > 0 {
		lead += s.Muted.Render("… ")
	}
	return truncate(lead+strings.Join(parts[m.loop.idx:], sep), m.width)
}

// relayout asks for a new layered layout when the pane's size changed the
// node width (for every loop: each keeps its own drawing).
func (m *Model) relayout() tea.Cmd {
	var cmds []tea.Cmd
	for _, l := range m.loops {
		m.withLoop(l.idx, func() {
			cmds = append(cmds, m.layoutCmd(m.graph.relayoutJob()))
		})
	}
	return tea.Batch(cmds...)
}

// layoutCmd runs a layout job of the current loop: in the background, or
// at once with Options.SyncLayout.
func (m *Model) layoutCmd(job *layoutJob) tea.Cmd {
	if job == nil {
		return nil
	}
	if m.opts.SyncLayout {
		for job != nil {
			msg := job.cmd(m.loop.idx)().(layoutMsg)
			m.graph.lay.install(msg, m.graph.sel)
			m.syncGraphSelection()
			job = m.graph.shrinkJob()
		}
		return nil
	}
	return job.cmd(m.loop.idx)
}

// syncGraphSelection makes the drawing's selection the pane's selection.
func (m *Model) syncGraphSelection() {
	g := &m.graph
	if g.lay.gv == nil || !g.isLayered() {
		return
	}
	if id := g.lay.gv.Selected(); id != "" && id != g.sel {
		g.sel = id
		m.details.top = 0
		m.refreshDetails()
	}
}
