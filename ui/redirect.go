package ui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

// The redirect flow is the state machine of ui/redirect: its boxes sit on
// the loop's dialog stack (flowBox), each key and each session result goes
// in with a snapshot of the loop (flowLoop), and what comes out is carried
// out here (flowStep): the next box, the redirect closed, a footer line,
// a session job run, the pause begun.

// sessionMsg is a session job's result (in its loop's envelope); from is
// the box that waits for it (nil: none does).
type sessionMsg struct {
	from redirect.Box
	res  correction.Result
}

// runJob runs a session job of l as a command (nil for no job).
func (m *Model) runJob(l *loop, from redirect.Box, job correction.Job) tea.Cmd {
	if job == nil {
		return nil
	}
	return l.send(func() tea.Msg { return sessionMsg{from: from, res: job()} })
}

// cannotRedirect says why no correction can start on l now ("" when one
// can).
func (m *Model) cannotRedirect(l *loop) string {
	switch {
	case l.readOnly:
		return "read-only (" + l.readOnlyWhy + "): corrections are disabled"
	case l.phase != nil:
		return "phase loops are read-only: the seed defines no redirect for them"
	case l.st == nil:
		return "no state to correct yet"
	case l.banner != "":
		return "the file is not readable right now; corrections wait until it is"
	}
	return ""
}

// flowLoop is the snapshot of l that the redirect flow decides with.
func (m *Model) flowLoop(l *loop) redirect.Loop {
	lp := redirect.Loop{State: l.st, Facts: l.facts, Blocked: m.cannotRedirect(l), Held: m.heldText(l),
		FlagOwnerGone: l.session.Pause().Marked, FlagOwner: m.goneText(l), Editor: m.env.editor,
		PaneW: m.width, BodyH: m.bodyHeight()}
	// The graph's selection counts only where it is on screen: from
	// another view a form starts from nothing selected.
	if l.view == viewGraph {
		lp.Selected = l.graph.sel
	}
	lp.LastUndo = l.session.LastUndoable()
	applied := l.session.Applied()
	for i := len(applied) - 1; i >= 0; i-- {
		if a := applied[i]; a.UndoneBy == 0 && a.Gone == "" {
			lp.Undoable = append(lp.Undoable, redirect.Undoable{ID: a.ID, Summary: a.Summary, Redo: a.Undoes != 0})
		}
	}
	for _, kind := range redirect.Kinds() {
		if bindingNamed(redirect.KeyName(kind)).Why(here{m: m, l: l, p: inMenu}) == "" {
			lp.Offered = append(lp.Offered, kind)
		}
	}
	return lp
}

// flowBox puts a box of the redirect flow on a loop's dialog stack.
type flowBox struct{ b redirect.Box }

func (f *flowBox) title() string                              { return f.b.Title() }
func (f *flowBox) width(m *Model) int                         { return f.b.Width(m.width) }
func (f *flowBox) resize(m *Model)                            { f.b.Resize(m.context(), m.width, m.bodyHeight()) }
func (f *flowBox) lines(m *Model, _ *loop, w, h int) []string { return f.b.Draw(m.context(), w, h) }
func (f *flowBox) update(m *Model, l *loop, msg tea.Msg) step {
	return m.flowStep(l, f.b.Update(m.context(), m.flowLoop(l), msg))
}

// flowStep carries out what the flow answered for l: the footer line, the
// pause of a form that opened, the session job; the step says what
// becomes of the box.
func (m *Model) flowStep(l *loop, a redirect.Action) step {
	cmds := []tea.Cmd{a.Cmd}
	if a.Pause != "" {
		l.status = statusLine{} // a hint from the menu or the graph is not about this form
		cmds = append(cmds, m.beginPause(l, a.Pause))
	}
	if a.Status.Text != "" {
		m.post(l, a.Status)
	}
	cmds = append(cmds, m.flowJob(l, a.Job))
	cmd := tea.Batch(cmds...)
	switch a.Kind {
	case kit.Replace:
		return replaceWith(&flowBox{a.Next}, cmd)
	case kit.Close:
		return closed(cmd)
	case kit.Quit:
		return closed(tea.Batch(cmd, m.quit()))
	}
	return stay(cmd)
}

// flowJob runs a job the flow asked for on l's correction session.
func (m *Model) flowJob(l *loop, j redirect.Job) tea.Cmd {
	switch j := j.(type) {
	case redirect.PreviewJob:
		return m.runJob(l, j.For, l.session.Preview(j.Request, j.Note))
	case redirect.ApplyJob:
		return m.runJob(l, j.For, l.session.Apply(j.Preview))
	case redirect.EndJob:
		return m.runJob(l, nil, l.session.End())
	case redirect.ClearFlagJob:
		return m.runJob(l, nil, l.session.ClearForeignFlag())
	case redirect.FollowJob:
		return m.runJob(l, nil, j.Job)
	case redirect.UndoPreviewJob:
		return m.runJob(l, j.For, l.session.PreviewUndo(j.ID, ""))
	}
	return nil
}

// openFlow carries out what opening the flow answered: its first box goes
// on l's stack, or the footer says why it cannot open.
func (m *Model) openFlow(l *loop, a redirect.Action) tea.Cmd {
	s := m.flowStep(l, a)
	if s.next != nil {
		m.push(l, s.next)
	}
	return s.cmd
}

// openMenu shows the redirect menu.
func (m *Model) openMenu(l *loop) tea.Cmd {
	return m.openFlow(l, redirect.Open(m.context(), m.flowLoop(l)))
}

// startForm opens the form of a correction kind from the view (its key).
func (m *Model) startForm(l *loop, kind string) tea.Cmd {
	return m.openFlow(l, redirect.OpenForm(m.context(), m.flowLoop(l), kind))
}

// flowTop is l's top box when it is one of the flow's (nil otherwise).
func flowTop(l *loop) redirect.Box {
	if f, ok := l.topDialog().(*flowBox); ok {
		return f.b
	}
	return nil
}

// isRedirectDialog reports whether d is a step of a redirect (the menu, a
// form, its preview, the busy box): the loop is paused while it is open.
func isRedirectDialog(d dialog) bool {
	f, ok := d.(*flowBox)
	return ok && redirect.Redirecting(f.b)
}

// undo is u: the undo of the last correction of this session, previewed;
// in the message log, the choice of any earlier one.
func (m *Model) undo(l *loop) tea.Cmd {
	if m.focus == focusPanel && m.panel.kind == panelMessages {
		m.closePanel()
		return m.openFlow(l, redirect.PickUndo(m.context(), m.flowLoop(l)))
	}
	return m.openFlow(l, redirect.Undo(m.flowLoop(l), 0))
}

// onSessionMsg turns a session job's result for l into what the person
// sees.
func (m *Model) onSessionMsg(l *loop, msg sessionMsg) tea.Cmd {
	switch r := msg.res.(type) {
	case correction.FlagResult:
		switch {
		case r.Err != nil:
			m.report(l, kit.Error, "could not write redirect_requested: "+r.Err.Error())
		case r.Held > 0 && !isRedirectDialog(l.topDialog()):
			m.report(l, kit.Info, m.heldText(l))
		}
	case correction.PauseResult:
		m.onPauseLook(l, r)
	case correction.PreviewResult, correction.ApplyResult:
		if r, ok := r.(correction.ApplyResult); ok && r.Plan != nil && r.Plan.Correction != nil {
			if l.applied == nil {
				l.applied = map[string]*appliedCorrection{}
			}
			l.applied[correctionKey(*r.Plan.Correction)] = &appliedCorrection{iteration: l.st.Control.Iteration}
		}
		top := flowTop(l)
		s := m.flowStep(l, redirect.Result(m.context(), m.flowLoop(l), top, msg.from, r))
		if top == nil || (s.next == nil && !s.close) {
			return s.cmd // only the flow's own box on top moves on
		}
		return m.apply(l, l.topDialog(), s)
	case correction.UndoResult: // an undo written without a preview (Session.Undo)
		switch {
		case r.Err != nil:
			m.report(l, kit.Error, "undo failed: "+r.Err.Error())
		default:
			m.report(l, kit.Success, "undone: "+r.Summary)
		}
	case correction.GuardResult:
		m.onGuard(l, r)
	}
	return nil
}

// onGuard reports the guard's work: a correction re-applied after a loop
// write undid it, a late loop write kept, a correction lost (a red banner),
// or not carried over to a file that is not the loop's work on ours (the
// footer and the message log: nothing went wrong, the file is someone
// else's now).
func (m *Model) onGuard(l *loop, r correction.GuardResult) {
	switch {
	case r.Err != nil && errors.Is(r.Err, correction.ErrStoodDown):
		m.report(l, kit.Warn, r.Err.Error())
	case r.Err != nil && errors.Is(r.Err, correction.ErrLost):
		l.lost = "✗ " + termtext.Line(r.Err.Error())
		m.notify(l, notify.CorrectionLost, r.Err.Error())
		m.layout()
	case r.Err != nil:
		m.report(l, kit.Error, "guard: "+r.Err.Error())
	case r.Reapplied:
		if r.Was != nil && r.Plan != nil && r.Was.Correction != nil && r.Plan.Correction != nil {
			a := l.applied[correctionKey(*r.Was.Correction)]
			if a == nil {
				a = &appliedCorrection{iteration: l.st.Control.Iteration}
			}
			a.reapplied++
			l.applied[correctionKey(*r.Plan.Correction)] = a
		}
		m.report(l, kit.Success, "re-applied after the loop overwrote it: "+r.Summary)
	case r.Flag:
		m.report(l, kit.Success, fmt.Sprintf("a loop write undid our redirect_requested: set back to %v", r.Set))
	case r.Merged > 0:
		m.report(l, kit.Success, "a loop write that went into the file ours replaced was kept")
	}
}
