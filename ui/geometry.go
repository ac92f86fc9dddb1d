package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/statefile"
)

// layout computes the geometry of the loop on screen once per resize (and
// when the chrome changes) and hands each part its size.
func (m *Model) layout() {
	m.helpText.width, m.helpText.height = m.width, max0(m.height-1)
	m.filterInput.SetWidth(max0(m.width - 20))
	if m.cur != nil { // none before a loop is opened from the fleet table
		m.layoutLoop(m.cur)
	}
}

// layoutLoop sizes l's parts (a loop out of sight is sized as if on
// screen, so that its drawing is laid out for the pane).
func (m *Model) layoutLoop(l *loop) {
	if l == m.cur {
		m.laidOutDialogOnly, m.laidOutDialog = m.dialogOnly(), l.topDialog() != nil
	}
	m.wide = m.width >= 100
	bodyH := m.bodyHeightOf(l)
	w := m.width
	if l.phase != nil || l.target.Kind == statefile.KindPhaseLoop {
		l.phaseText.width, l.phaseText.height = w, bodyH
	}
	if m.wide {
		gw := m.graphWidth(l)
		l.graph.setSize(gw, bodyH)
		l.details.width, l.details.height = w-gw-1, bodyH
	} else {
		l.graph.setSize(w, bodyH)
		l.details.width, l.details.height = w, bodyH
	}
	for _, t := range []*tableView{&l.bindings, &l.trail, &l.corrections} {
		t.setSize(w, bodyH)
	}
	l.objective.width, l.objective.height = w, bodyH
	l.prompt.width, l.prompt.height = w, bodyH
	l.activityText.width, l.activityText.height = w, bodyH
	for _, d := range l.dialogs {
		d.resize(m)
	}
	m.refreshText(l)
}

// graphWidth is the graph pane's share of a wide screen: more for the
// drawing, which needs room, than for the list.
func (m *Model) graphWidth(l *loop) int {
	if l.graph.lay.prefer || !l.graph.lay.chosen {
		if m.width*66/100 >= autoLayeredWidth {
			return m.width * 66 / 100
		}
	}
	return m.width * 58 / 100
}

// dialogOnly is true when a redirect dialog is open in a pane too short
// for it beside the header: the dialog gets every row but the footer.
func (m *Model) dialogOnly() bool { return m.cur != nil && m.dialogOnlyOf(m.cur) }

func (m *Model) dialogOnlyOf(l *loop) bool { return l.topDialog() != nil && m.height < 20 }

// chromeHeight is what the header, tabs, banner and footer take.
func (m *Model) chromeHeight(l *loop) int {
	if m.dialogOnlyOf(l) {
		return 1 // the footer
	}
	h := 3 + 1 + 1 // header (2) + outlook, tabs, footer
	if len(m.loops) > 1 || m.fleet != nil {
		h++ // the loop bar
	}
	return h + len(m.bannerLines(l))
}

// banner is a warning over the view: a file problem, or a correction of
// this session that a loop write undid for good.
type banner struct {
	lines []string
	bad   bool
}

// banners are l's warnings over its last good state, wrapped (up to three
// lines each) so that their endings — what to do — show.
func (m *Model) banners(l *loop) []banner {
	if l.st == nil && l.phase == nil {
		return nil
	}
	var out []banner
	tl := m.timelineBanner(l)
	if tl != "" {
		// The version's time shows its date when it is not today's.
		m.noteClock(nextLocalMidnight(m.now))
	}
	for _, b := range []struct {
		text string
		bad  bool
	}{{l.banner, l.bannerBad}, {lostBanner(l), true}, {tl, false}} {
		if b.text == "" {
			continue
		}
		lines := wrap(b.text, max(20, m.width-1))
		if len(lines) > 3 {
			lines = append(lines[:2], truncate(strings.Join(lines[2:], " "), m.width))
		}
		out = append(out, banner{lines, b.bad})
	}
	return out
}

// lostBanner is the banner of a correction lost for good, with how to
// dismiss it: esc — but while a dialog is open esc is the dialog's (it
// cancels a form), so the banner waits until the dialog is closed.
func lostBanner(l *loop) string {
	switch {
	case l.lost == "":
		return ""
	case l.topDialog() != nil:
		return l.lost + " — esc dismisses this once the dialog is closed"
	}
	return l.lost + " — esc dismisses"
}

// bannerLines are the lines of l's banners.
func (m *Model) bannerLines(l *loop) []string {
	var out []string
	for _, b := range m.banners(l) {
		out = append(out, b.lines...)
	}
	return out
}

// bodyHeight is the height of the view of the loop on screen.
func (m *Model) bodyHeight() int { return m.bodyHeightOf(m.cur) }

func (m *Model) bodyHeightOf(l *loop) int { return max0(m.height - m.chromeHeight(l)) }

// refreshText re-renders l's width-dependent text views.
func (m *Model) refreshText(l *loop) {
	if l.phase != nil {
		l.phaseText.set(renderPhase(l.phase, l.phaseText.width, m.styles))
	}
	if l.st == nil {
		return
	}
	l.objective.set(renderObjective(l.st, l.loopTools, l.verify.Results(l.st), l.objective.width, m.styles))
	l.prompt.set(renderPrompt(l.st.Body, l.prompt.width, m.styles))
	m.refreshActivity(l)
	m.refreshDetails(l)
}

func (m *Model) refreshDetails(l *loop) {
	if l.st == nil {
		return
	}
	id := l.graph.sel
	if lay := l.graph.lay.gv; lay != nil && lay.Layout() != nil {
		if _, atom := l.facts.Index[id]; !atom {
			if folded := lay.Layout().Folded(id); len(folded) > 0 {
				l.details.set(renderFolded(l.st, l.facts, id, folded, lay.Layout().IsSummary(id), l.details.width, m.styles))
				return
			}
		}
	}
	l.details.set(append(renderDetails(l.st, l.facts, &l.report, id, l.details.width, m.styles),
		activityDetails(l.activity, l.prices, id, l.details.width, m.styles)...))
}

// relayout asks for a new layered layout when the pane's size changed the
// node width (for every loop: each keeps its own drawing).
func (m *Model) relayout() tea.Cmd {
	var cmds []tea.Cmd
	for _, l := range m.loops {
		cmds = append(cmds, m.layoutCmd(l, l.graph.relayoutJob()))
	}
	return tea.Batch(cmds...)
}

// layoutCmd runs a layout job of loop l: in the background, or at once
// with Options.SyncLayout.
func (m *Model) layoutCmd(l *loop, job *layoutJob) tea.Cmd {
	if job == nil {
		return nil
	}
	if m.opts.SyncLayout {
		for job != nil {
			l.graph.lay.install(job.run(), l.graph.sel)
			m.syncGraphSelection(l)
			job = l.graph.adjustJob()
		}
		return nil
	}
	j := *job // the job as it is now: the loop's next one replaces it
	beside := m.opts.BesideLoop
	return l.send(func() tea.Msg {
		workers := 0
		if beside != nil {
			var done func()
			workers, done = beside()
			defer done()
		}
		return j.runOn(workers)
	})
}

// syncGraphSelection makes the drawing's selection the pane's selection.
func (m *Model) syncGraphSelection(l *loop) {
	g := &l.graph
	if g.lay.gv == nil || !g.isLayered() {
		return
	}
	if id := g.lay.gv.Selected(); id != "" && id != g.sel {
		g.sel = id
		l.details.top = 0
		m.refreshDetails(l)
	}
}
