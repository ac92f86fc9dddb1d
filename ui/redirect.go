package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// The redirect flow: the menu, a form, its preview, apply. The file work
// is the loop's correction.Session's; this file turns key presses into
// its jobs and its results into dialog transitions. Every result leads
// out of the busy box: to the preview, back to the form with the reason,
// or closed (and the flag this session set cleared).

// sessionMsg is a session job's result (in its loop's envelope); from is
// the dialog that waits for it (nil: none does).
type sessionMsg struct {
	from dialog
	res  correction.Result
}

// runJob runs a session job of l as a command (nil for no job).
func (m *Model) runJob(l *loop, from dialog, job correction.Job) tea.Cmd {
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

// openMenu shows the redirect menu.
func (m *Model) openMenu(l *loop) tea.Cmd {
	if why := m.cannotRedirect(l); why != "" {
		m.report(l, kit.Info, why)
		return nil
	}
	d := m.newMenu(l)
	m.push(l, d)
	return d.form.Init()
}

// startForm opens the form of a correction kind from the view (its key).
func (m *Model) startForm(l *loop, kind string) tea.Cmd {
	if why := m.cannotRedirect(l); why != "" {
		m.report(l, kit.Info, why)
		return nil
	}
	d, why := m.formFor(l, kind, nil, "")
	if d == nil {
		m.post(l, kit.Status{Text: why, Level: kit.Info, TTL: statusLong})
		return nil
	}
	l.status = statusLine{} // a hint from the menu or the graph is not about this form
	m.push(l, d)
	return tea.Batch(d.form.Init(), m.beginPause(l, kind))
}

// toForm is the step into the form of kind, from another dialog: the form
// (with refusal shown above it) replaces the dialog, and the loop is
// paused if it is not yet. When the form cannot open on the state as it
// is now, the redirect closes, clearing a flag this session set, and the
// footer says why.
func (m *Model) toForm(l *loop, kind string, values *formValues, refusal string) step {
	if why := m.cannotRedirect(l); why != "" {
		m.report(l, kit.Error, why)
		return closed(m.runJob(l, nil, l.session.End()))
	}
	d, why := m.formFor(l, kind, values, refusal)
	if d == nil {
		if refusal != "" {
			why = refusal + " — " + why
		}
		m.report(l, kit.Error, why)
		return closed(m.runJob(l, nil, l.session.End()))
	}
	l.status = statusLine{}
	return replaceWith(d, tea.Batch(d.form.Init(), m.beginPause(l, kind)))
}

// cancelRedirect closes the redirect without writing; a flag this session
// set is cleared.
func (m *Model) cancelRedirect(l *loop) step {
	m.report(l, kit.Info, "correction cancelled; nothing was written")
	return closed(m.runJob(l, nil, l.session.End()))
}

// formFor builds the form of kind on l's state (fresh values from the
// state and the selection when values is nil), or says why it cannot open.
func (m *Model) formFor(l *loop, kind string, values *formValues, refusal string) (*formDialog, string) {
	st, f := l.st, l.facts
	switch {
	case kind == formForceOR && len(st.ORGroups) == 0:
		return nil, "this loop has no OR groups"
	case kind == formBinding && f.Counts.Resolved == 0:
		return nil, "no resolved atom has a binding to override yet"
	case kind == formDeleteAtom && f.Counts.Unresolved() == 0:
		return nil, "every atom is resolved; nothing can be deleted"
	case kind == formStop && (st.Control.Status == model.LoopStopped || st.Control.Status == model.LoopCompleted):
		return nil, "the loop has already ended (" + string(st.Control.Status) + ")"
	}
	if values == nil {
		// The graph's selection counts only where it is on screen: from
		// another view a form starts from nothing selected.
		sel := ""
		if l.view == viewGraph {
			sel = l.graph.sel
		}
		values = newFormValues(kind, st, f, sel)
		if kind == formDeleteAtom || kind == formBinding {
			// d and b act on the selected atom.
			a, ok := st.Atom(sel)
			switch {
			case !ok:
				return nil, "select an atom first"
			case kind == formDeleteAtom && a.Status == model.StatusResolved:
				return nil, a.ID + " is resolved: resolved work is not deleted (b → redo undoes it)"
			case kind == formBinding && a.Status != model.StatusResolved:
				return nil, a.ID + " is " + string(a.Status) + ": only a resolved atom's binding can be overridden"
			}
			values.ID = a.ID
		}
	}
	if _, ok := st.Atom(values.ID); !ok && (kind == formDeleteAtom || kind == formBinding) {
		return nil, "atom " + termtext.Line(values.ID) + " is gone"
	}
	d := &formDialog{kind: kind, values: values, refusal: refusal}
	height := m.bodyHeight() - 5
	d.form = buildForm(kind, values, func() *model.State { return l.st }, m.dialogWidth()-4, height, m.env.editor).WithTheme(m.formTheme())
	d.resize(m)
	return d, ""
}

func (m *Model) formTheme() huh.Theme {
	if m.opts.NoColor {
		// The base theme tells the chosen button only by its colours:
		// without them, bracket it.
		return huh.ThemeFunc(func(isDark bool) *huh.Styles {
			t := huh.ThemeBase(isDark)
			t.Focused.FocusedButton = t.Focused.FocusedButton.Transform(func(s string) string { return "[" + s + "]" })
			t.Focused.BlurredButton = t.Focused.BlurredButton.Transform(func(s string) string { return " " + s + " " })
			t.Blurred.FocusedButton, t.Blurred.BlurredButton = t.Focused.FocusedButton, t.Focused.BlurredButton
			return t
		})
	}
	return huh.ThemeFunc(huh.ThemeCharm)
}

// undo restores the bytes from before the last correction of this
// session, only while the file is still exactly what it wrote.
func (m *Model) undo(l *loop) tea.Cmd {
	if l.readOnly {
		m.report(l, kit.Info, "read-only ("+l.readOnlyWhy+"): corrections are disabled")
		return nil
	}
	job := l.session.Undo()
	if job == nil {
		m.report(l, kit.Info, "nothing to undo: no correction was applied from this session")
		return nil
	}
	return m.runJob(l, nil, job)
}

// onSessionMsg turns a session job's result for l into what the person
// sees.
func (m *Model) onSessionMsg(l *loop, msg sessionMsg) tea.Cmd {
	waiting := msg.from != nil && l.topDialog() == msg.from
	busy, _ := msg.from.(*busyDialog)
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
	case correction.PreviewResult:
		if !waiting || busy == nil {
			return nil // the person left meanwhile
		}
		if r.Err != nil {
			return m.apply(l, busy, m.toForm(l, busy.kind, busy.values, refusalText(r.Err, "")))
		}
		return m.apply(l, busy, replaceWith(m.newPreview(busy.kind, busy.values, r.Preview), nil))
	case correction.ApplyResult:
		return m.onApplied(l, msg.from, waiting, r)
	case correction.UndoResult:
		switch {
		case errors.Is(r.Err, statefile.ErrStale):
			m.report(l, kit.Error, "cannot undo: the file changed since aot-tui wrote it (the loop picked it up); correct it again instead")
		case r.Err != nil:
			m.report(l, kit.Error, "undo failed: "+r.Err.Error())
		default:
			m.report(l, kit.Success, "undone: "+r.Summary+" — the file is back as it was")
		}
	case correction.GuardResult:
		m.onGuard(l, r)
	}
	return nil
}

// onApplied follows an apply: closed on success, the new preview when the
// loop wrote meanwhile, back to the form with the reason on failure.
func (m *Model) onApplied(l *loop, from dialog, waiting bool, r correction.ApplyResult) tea.Cmd {
	busy, _ := from.(*busyDialog)
	switch {
	case r.Plan != nil:
		c := r.Plan.Correction
		text := r.Plan.Summary + " — written"
		if c != nil {
			if l.applied == nil {
				l.applied = map[string]*appliedCorrection{}
			}
			l.applied[correctionKey(*c)] = &appliedCorrection{iteration: l.st.Control.Iteration}
			text = fmt.Sprintf("%s: %s — recorded in corrections", c.Type, r.Plan.Summary)
		}
		if r.Merged > 0 {
			text += " (a loop write that landed at the same moment was kept)"
		}
		if held := m.heldText(l); held != "" {
			text += " — " + held
		}
		m.report(l, kit.Success, text)
		follow := m.runJob(l, nil, r.Follow)
		if waiting {
			return m.apply(l, busy, closed(follow))
		}
		return follow
	case r.Replanned != nil && waiting && busy != nil:
		return m.apply(l, busy, replaceWith(m.newPreview(busy.kind, busy.values, r.Replanned), nil))
	case r.Replanned != nil:
		m.report(l, kit.Error, "not written: the loop wrote the file meanwhile")
	case waiting && busy != nil:
		return m.apply(l, busy, m.toForm(l, busy.kind, busy.values, refusalText(r.Err, "not written: ")))
	default:
		m.report(l, kit.Error, refusalText(r.Err, "not written: "))
	}
	return nil
}

// refusalText words why a plan or write failed, for the form or footer
// (both sanitise what they draw).
func refusalText(err error, prefix string) string {
	var ref *model.Refusal
	switch {
	case errors.As(err, &ref) && (ref.Rule == model.RuleFileProblems || ref.Rule == statefile.RuleEditable):
		// The file itself is in the way, not a change since the form opened.
		return prefix + "refused: " + ref.Reason
	case errors.As(err, &ref):
		return prefix + "no longer possible: " + ref.Reason
	case errors.Is(err, statefile.ErrConflict):
		return prefix + "the loop kept writing the file; try again"
	}
	return prefix + err.Error()
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

// colorDiff colours a unified diff and wraps lines wider than width: a
// continuation starts with the line's own +/- and ↪, so nothing the
// correction writes is hidden past the dialog's edge.
func (m *Model) colorDiff(d string, width int) []string {
	s := m.styles
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		l = termtext.Line(l)
		st := s.Muted
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			st = s.Bold
		case strings.HasPrefix(l, "@@"):
			st = s.Accent
		case strings.HasPrefix(l, "+"):
			st = s.OK
		case strings.HasPrefix(l, "-"):
			st = s.Danger
		}
		if width < 8 || ansi.StringWidth(l) <= width {
			out = append(out, st.Render(l))
			continue
		}
		mark := " "
		if l != "" && (l[0] == '+' || l[0] == '-') {
			mark = l[:1]
		}
		for i, part := range strings.Split(ansi.Hardwrap(l, width-2, false), "\n") {
			if i > 0 {
				part = mark + "↪" + part
			}
			out = append(out, st.Render(part))
		}
	}
	return out
}

// matchWriteKey maps a write key to its form kind.
func (m *Model) matchWriteKey(msg tea.KeyPressMsg) (string, bool) {
	k := m.keys
	for _, x := range []struct {
		b    key.Binding
		kind string
	}{{k.AddAtom, formAddAtom}, {k.DeleteAtom, formDeleteAtom}, {k.ForceOR, formForceOR}, {k.Constraints, formConstraints},
		{k.Objective, formObjective}, {k.Binding, formBinding}, {k.Stop, formStop}} {
		if key.Matches(msg, x.b) {
			return x.kind, true
		}
	}
	return "", false
}
