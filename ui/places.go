package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
	"github.com/aot-loop/aot-tui/ui/verifyview"
)

// The places where keys land. A binding's scope (bindings.go) is a set of
// them; the help screen of a place lists exactly the bindings that apply
// there.
const (
	inGraph       kit.Scope = 1 << iota // the graph view's list
	inDrawing                           // the graph drawing
	inDetails                           // the details over the graph (narrow screens)
	inBindings                          // the bindings table
	inTrail                             // the trail table
	inCorrections                       // the corrections table
	inObjective                         // the objective view
	inPrompt                            // the prompt view
	inActivity                          // the activity view
	inPhase                             // a phase loop
	inWaiting                           // a loop with no state read yet
	inFleet                             // the fleet table (aot-tui --scan)
	inHelp                              // the help screen
	inMessages                          // the message log
	inChanges                           // what changed in a version
	inProblems                          // the validation problems
	inMenu                              // the redirect menu
	inForm                              // a correction's form (huh takes the other keys)
	inPreview                           // a correction's preview
	inAsk                               // the preview asking whether to interrupt workers
	inBusy                              // "working…" while a job reads or writes
	inStale                             // the stale-flag question
	inVerify                            // verify's confirmation
	inVerifying                         // verify's progress
	inInput                             // the / prompt (typing)
	inPalette                           // the command palette (typing, and the keys of its list)
	numPlaces                           // (not a place)
)

// Conditions added to a view's place: they change what some keys say
// (esc), never which keys apply.
const (
	inOpened = numPlaces << iota // a loop opened from the fleet table
	inPast                       // the timeline's past (or a replay) on screen
)

const (
	inGraphs = inGraph | inDrawing | inDetails
	inTables = inBindings | inTrail | inCorrections
	inViews  = inGraphs | inTables | inObjective | inPrompt | inActivity
	inLoop   = inViews | inPhase
	inPanels = inMessages | inChanges | inProblems
	// inRedirect are the steps of a redirect: the loop is paused while one
	// is open.
	inRedirect = inMenu | inForm | inPreview | inAsk | inBusy
	// inScrolls are the places the move keys scroll.
	inScrolls = inLoop | inFleet | inHelp | inPanels | inPreview | inVerify
	// inBoxes are the dialogs whose keys are all bindings (a form's and a
	// prompt's are typing).
	inBoxes = inMenu | inPreview | inAsk | inBusy | inStale | inVerify | inVerifying
)

// placeNames name each place for help titles and keys-file errors.
var placeNames = map[kit.Scope]string{
	inGraph: "the graph view", inDrawing: "the graph drawing", inDetails: "the details",
	inBindings: "the bindings view", inTrail: "the trail view", inCorrections: "the corrections view",
	inObjective: "the objective view", inPrompt: "the prompt view", inActivity: "the activity view", inPhase: "a phase loop",
	inWaiting: "a loop not read yet", inFleet: "the fleet table", inHelp: "the help screen",
	inMessages: "the message log", inChanges: "what changed", inProblems: "the problems", inMenu: "the redirect menu",
	inForm: "a correction's form", inPreview: "the preview", inAsk: "the interrupt question",
	inBusy: "the working box", inStale: "the stale-flag question", inVerify: "verify's confirmation",
	inVerifying: "verify's progress", inInput: "the / prompt", inPalette: "the command palette",
}

// places lists every place, in the order of their bits.
func places() []kit.Scope {
	var out []kit.Scope
	for p := kit.Scope(1); p < numPlaces; p <<= 1 {
		out = append(out, p)
	}
	return out
}

// here is where a key press lands: the root, the loop on screen and the
// place (with its conditions). Binding handlers are given one.
type here struct {
	m *Model
	l *loop
	p kit.Scope
}

func (m *Model) here() here { return here{m: m, l: m.cur, p: m.place()} }

// place is where keys land now: what has the focus.
func (m *Model) place() kit.Scope {
	switch m.focus {
	case focusHelp:
		return inHelp
	case focusFilter:
		return inInput
	case focusPanel:
		switch m.panel.kind {
		case panelChanges:
			return inChanges
		case panelProblems:
			return inProblems
		}
		return inMessages
	case focusDialog:
		if p := dialogPlace(m.cur.topDialog()); p != 0 {
			return p
		}
	}
	if m.fleetShown() && m.fleet.Filtering() {
		return inInput
	}
	return m.viewPlace()
}

// viewPlace is the place of what is under the dialogs, the help and the
// panels: the view on screen, or the fleet table.
func (m *Model) viewPlace() kit.Scope {
	if m.fleetShown() {
		return inFleet
	}
	l := m.cur
	var p kit.Scope
	switch {
	case l.phase != nil:
		p = inPhase
	case l.st == nil:
		p = inWaiting
	case l.view == viewGraph && l.showDetails:
		p = inDetails
	case l.view == viewGraph && l.graph.isLayered():
		p = inDrawing
	default:
		p = []kit.Scope{inGraph, inBindings, inTrail, inCorrections, inObjective, inPrompt, inActivity}[l.view]
	}
	if m.fleet != nil {
		p |= inOpened // only the table has no loop on screen
	}
	if h := l.hist; h != nil && (h.replay != nil || h.inPast()) {
		p |= inPast
	}
	return p
}

// flowPlaces are the places of the redirect flow's boxes.
var flowPlaces = map[redirect.Place]kit.Scope{redirect.InMenu: inMenu, redirect.InForm: inForm, redirect.InPreview: inPreview,
	redirect.InAsk: inAsk, redirect.InBusy: inBusy, redirect.InStaleFlag: inStale}

// dialogPlace is the place of an open dialog.
func dialogPlace(d dialog) kit.Scope {
	switch d := d.(type) {
	case *flowBox:
		return flowPlaces[d.b.Place()]
	case *paletteBox:
		return inPalette
	case *kitDialog:
		switch d.d.(type) {
		case *verifyview.Confirm:
			return inVerify
		case *verifyview.Running:
			return inVerifying
		}
	}
	return 0
}

// placeTitle names a place on the help screen.
func (m *Model) placeTitle(p kit.Scope) string {
	switch {
	case p.Has(inViews):
		return viewNames[m.cur.view]
	case p.Has(inPhase):
		return "phase loop"
	case p.Has(inFleet):
		return "fleet table"
	}
	return placeNames[p&(numPlaces-1)]
}

// scroller is what the move keys scroll: a table, a text, the graph's
// list.
type scroller interface {
	by(n int)
	page() int
	home()
	end()
}

func (t *tableView) by(n int)   { t.move(n) }
func (t *tableView) page() int  { return max(1, t.bodyHeight()-1) }
func (t *scrollText) by(n int)  { t.scroll(n) }
func (t *scrollText) page() int { return max(1, t.height-1) }
func (t *scrollText) home()     { t.top = 0 }
func (t *scrollText) end()      { t.top = len(t.lines); t.clamp() }
func (g *graphView) by(n int)   { g.moveBy(n) }
func (g *graphView) page() int  { return max(1, g.height-1) }

// scrollKey moves s by the move key msg, and reports whether it was one:
// the one switch of the scroll keys, for every scrollable place.
func scrollKey(s scroller, msg tea.KeyPressMsg, k KeyMap) bool {
	switch {
	case key.Matches(msg, k.Down):
		s.by(1)
	case key.Matches(msg, k.Up):
		s.by(-1)
	case key.Matches(msg, k.PageDown):
		s.by(s.page())
	case key.Matches(msg, k.PageUp):
		s.by(-s.page())
	case key.Matches(msg, k.Top):
		s.home()
	case key.Matches(msg, k.Bottom):
		s.end()
	default:
		return false
	}
	return true
}

// scroller is what the move keys scroll at h (nil in the drawing, which
// moves the selection in space, and in the menu, which huh moves).
func (h here) scroller() scroller {
	m, l := h.m, h.l
	switch {
	case h.p.Has(inFleet):
		return fleetScroll{m.fleet}
	case h.p.Has(inHelp):
		return &m.helpText
	case h.p.Has(inPanels):
		return &m.panel.text
	case h.p.Has(inPhase):
		return &l.phaseText
	case h.p.Has(inDetails):
		return &l.details
	}
	if s, ok := h.loopView().(scroller); ok {
		return s
	}
	switch d := l.topDialog().(type) {
	case *flowBox:
		if p, ok := d.b.(pager); ok {
			return pagerScroll{p}
		}
	case *kitDialog:
		if p, ok := d.d.(pager); ok {
			return pagerScroll{p}
		}
	}
	return nil
}

// loopView is the view of the loop's tab in front at h (the graph, a
// table, a text; nil where none is): what the move keys scroll and n and
// N step through.
func (h here) loopView() any {
	l := h.l
	switch {
	case h.p.Has(inGraph):
		return &l.graph
	case h.p.Has(inBindings):
		return &l.bindings
	case h.p.Has(inTrail):
		return &l.trail
	case h.p.Has(inCorrections):
		return &l.corrections
	case h.p.Has(inObjective):
		return &l.objective
	case h.p.Has(inPrompt):
		return &l.prompt
	case h.p.Has(inActivity):
		return &l.activityText
	}
	return nil
}
