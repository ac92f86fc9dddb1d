package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/verifyview"
)

// The verify flow (V) is the component ui/verifyview: its boxes sit on
// the loop's dialog stack (kitDialog), its run's events come in the loop's
// envelope (verifyview.Msg) and go to the loop's Verifier. The root only
// opens the box, shows the objective view when a run starts, and closes
// the progress box when the report comes.

// verifyKey opens the confirmation of a verification of l's base_case
// (verifyWhy has said it can be).
func (m *Model) verifyKey(l *loop) tea.Cmd {
	if l.verify == nil {
		l.verify = verifyview.New(verifyview.Config{
			Dir: statefile.ProjectDir(l.target.Path), Timeout: m.opts.VerifyTimeout, Send: l.send,
			State: func() *model.State { return l.st },
		})
	}
	a := l.verify.Open(l.st.Objective.BaseCase)
	// A run started: the results show in the objective view.
	started := func(l *loop, a kit.Action) {
		if a.Kind == kit.Replace {
			m.setView(l, viewObjective)
			m.refreshText(l)
		}
	}
	d := &kitDialog{d: a.Dialog, then: started}
	m.push(l, d)
	d.resize(m)
	m.post(l, a.Status)
	return a.Cmd
}

// onVerifyMsg hands a run's event to l's Verifier: a check's progress, or
// the report (then the progress box closes and the objective view shows
// the results).
func (m *Model) onVerifyMsg(l *loop, msg verifyview.Msg) tea.Cmd {
	if l.verify == nil {
		return nil
	}
	a := l.verify.Update(m.context(), msg)
	if a.Kind == kit.None && a.Cmd == nil {
		return nil // a run replaced by a newer one
	}
	if d, ok := l.topDialog().(*kitDialog); ok && a.Kind == kit.Close && l.verify.Shows(d.d) {
		m.apply(l, d, closed(nil))
	}
	m.refreshText(l)
	if a.Kind != kit.None {
		m.post(l, a.Status)
	}
	return a.Cmd
}

// stopVerifies stops every run under way (the TUI is closing).
func (m *Model) stopVerifies() {
	for _, l := range m.loops {
		l.verify.Stop()
	}
}

// verifyStopping reports whether l's top dialog is a verification's
// progress box whose run was asked to stop.
func verifyStopping(l *loop) bool {
	d, ok := l.topDialog().(*kitDialog)
	if !ok {
		return false
	}
	r, ok := d.d.(*verifyview.Running)
	return ok && r.Stopping()
}

// verifyDetails is enter in l's objective view: to the next failed
// check's output (round again after the last), or a word on why not.
func (m *Model) verifyDetails(l *loop) {
	t := &l.objective
	top, a := l.verify.Details(m.context(), t.lines, t.top, t.height)
	if a.Kind == kit.ShowStatus {
		m.post(l, a.Status)
		return
	}
	t.top = top
	t.clamp()
}
