package ui

import (
	"bytes"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// menuDialog is the redirect menu (r).
type menuDialog struct {
	form   *huh.Form
	choice string
}

// menuCancel is the menu's cancel entry; an empty value would make huh
// start the cursor on it.
const menuCancel = "cancel"

// newMenu builds the menu of l's redirect: the corrections that can
// start from the view it opens on (delete and override act on the graph's
// selection, so they are offered from the graph only).
func (m *Model) newMenu(l *loop) *menuDialog {
	d := &menuDialog{}
	var opts []huh.Option[string]
	for _, e := range []struct{ action, label, kind string }{
		{"add_atom", "add an atom", formAddAtom},
		{"delete_atom", "delete an atom", formDeleteAtom},
		{"force_or", "force an OR choice", formForceOR},
		{"constraints", "change constraints", formConstraints},
		{"objective", "change the objective", formObjective},
		{"override_binding", "override a binding", formBinding},
		{"stop", "stop the loop", formStop},
	} {
		b := bindingNamed(e.action)
		if b.Why(here{m: m, l: l, p: inMenu}) == "" {
			opts = append(opts, huh.NewOption(padTo(b.keys(&m.keys).Help().Key, 3)+e.label, e.kind))
		}
	}
	opts = append(opts, huh.NewOption("   cancel", menuCancel))
	d.form = huh.NewForm(huh.NewGroup(huh.NewSelect[string]().Title("Redirect the loop").
		Description("the loop pauses while a form is open").
		Options(opts...).Height(len(opts) + 2).Value(&d.choice))).WithShowHelp(false).WithTheme(m.formTheme()) // title, description, the entries
	d.resize(m)
	return d
}

func (d *menuDialog) title() string { return "redirect" }

func (d *menuDialog) width(m *Model) int { return min(m.dialogWidth(), 48) }

func (d *menuDialog) resize(m *Model) {
	d.form.WithWidth(d.width(m) - 4).WithHeight(min(m.dialogHeight(false), 10))
}

func (d *menuDialog) lines(m *Model, _ *loop, _, _ int) []string {
	lines := collapseBlankRuns(strings.Split(d.form.View(), "\n"))
	return append(lines, "", m.styles.Muted.Render("enter choose · esc close"))
}

func (d *menuDialog) update(m *Model, l *loop, msg tea.Msg) step {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(k, m.keys.Back) {
			return closed(nil)
		}
		// The letters beside the entries open their form at once, as they
		// do from the graph.
		if kind, ok := m.matchWriteKey(k); ok {
			return m.toForm(l, kind, nil, "")
		}
	}
	fm, cmd := d.form.Update(msg)
	d.form = fm.(*huh.Form)
	switch d.form.State {
	case huh.StateCompleted:
		if d.choice == "" || d.choice == menuCancel {
			return closed(cmd)
		}
		s := m.toForm(l, d.choice, nil, "")
		s.cmd = tea.Batch(cmd, s.cmd)
		return s
	case huh.StateAborted:
		return closed(cmd)
	}
	return stay(cmd)
}

// formDialog is a correction's form.
type formDialog struct {
	kind   string
	values *formValues
	form   *huh.Form
	// refusal is why the last attempt was refused (shown above the form).
	refusal string
	// moved is set when the loop wrote the file while the form was open.
	moved bool
}

func (d *formDialog) title() string      { return formTitles[d.kind] }
func (d *formDialog) width(m *Model) int { return m.dialogWidth() }

func (d *formDialog) resize(m *Model) {
	d.form.WithWidth(d.width(m) - 4).WithHeight(m.dialogHeight(d.refusal != "" || d.moved))
}

func (d *formDialog) lines(m *Model, _ *loop, w, _ int) []string {
	s := m.styles
	var lines []string
	if d.moved {
		for _, l := range wrap("⚠ the loop wrote the file: the correction will be planned on the new state", w) {
			lines = append(lines, s.Warn.Render(l))
		}
	}
	if d.refusal != "" {
		for _, l := range wrap("✗ "+termtext.Line(d.refusal), w) {
			lines = append(lines, s.Danger.Render(l))
		}
	}
	lines = append(lines, collapseBlankRuns(strings.Split(d.form.View(), "\n"))...)
	return append(lines, s.Muted.Render("esc cancels · nothing is written before the preview"))
}

func (d *formDialog) update(m *Model, l *loop, msg tea.Msg) step {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, m.keys.Back) {
		return m.cancelRedirect(l)
	}
	fm, cmd := d.form.Update(msg)
	d.form = fm.(*huh.Form)
	switch d.form.State {
	case huh.StateAborted:
		s := m.cancelRedirect(l)
		s.cmd = tea.Batch(cmd, s.cmd)
		return s
	case huh.StateCompleted:
		req, err := d.values.request(d.kind)
		if err != nil {
			// A value the form let through but the request cannot use:
			// back to a fresh form, with the reason.
			s := m.toForm(l, d.kind, d.values, err.Error())
			s.cmd = tea.Batch(cmd, s.cmd)
			return s
		}
		busy := &busyDialog{kind: d.kind, values: d.values, what: "planning the correction…"}
		return replaceWith(busy, tea.Batch(cmd, m.runJob(l, busy, l.session.Preview(req, d.values.Note))))
	}
	return stay(cmd)
}

// previewDialog shows the diff a correction would write and its
// corrections[] entry: apply, edit or cancel.
type previewDialog struct {
	kind   string
	values *formValues
	p      *correction.Preview
	diff   scrollText
	// moved is set when the loop wrote the file since this preview.
	moved bool
	// asking is set while the preview asks whether to interrupt the
	// workers of the in-progress atoms the correction touches.
	asking bool
}

func (m *Model) newPreview(kind string, values *formValues, p *correction.Preview) *previewDialog {
	d := &previewDialog{kind: kind, values: values, p: p}
	d.resize(m)
	return d
}

func (d *previewDialog) title() string      { return "preview: " + formTitles[d.kind] }
func (d *previewDialog) width(m *Model) int { return m.dialogWidth() }

func (d *previewDialog) resize(m *Model) {
	if w := d.width(m) - 4; w != d.diff.width || d.diff.lines == nil {
		d.diff.width = w
		d.diff.set(m.colorDiff(d.p.Diff, w)) // wrapped for the width
	}
	d.diff.height = max(3, m.bodyHeight()-8)
	d.diff.clamp()
}

func (d *previewDialog) lines(m *Model, _ *loop, w, h int) []string {
	s := m.styles
	p := d.p
	var lines []string
	note := ""
	switch {
	case p.Replanned:
		note = "⚠ the loop wrote the file meanwhile: this is the correction re-planned on the new state"
	case d.moved:
		note = "⚠ the loop wrote the file since this preview: apply re-plans it on the new state first"
	}
	if note != "" {
		for _, l := range wrap(note, w) {
			lines = append(lines, s.Warn.Render(l))
		}
	}
	if c := p.Plan.Correction; c != nil {
		lines = append(lines, s.Bold.Render("corrections[] entry"))
		for _, l := range wrap(fmt.Sprintf("%s · trail_cleared: %v · %s", c.Type, c.TrailCleared, c.Description), w-2) {
			lines = append(lines, "  "+l)
		}
	} else {
		lines = append(lines, s.Bold.Render(termtext.Line(p.Plan.Summary))+s.Muted.Render(" (no corrections[] entry)"))
	}
	if p.ClearsFlag && !bytes.Equal(p.Base, p.After) {
		lines = append(lines, s.Muted.Render("  and redirect_requested back to false: the loop resumes"))
	}
	for _, in := range p.Plan.Interrupts {
		text := fmt.Sprintf("⚠ %s is in progress (a worker is on it, which aot-tui cannot stop): this correction %s; %s",
			termtext.Line(in.Atom), termtext.Line(in.How), termtext.Line(in.Consequence()))
		for _, l := range wrap(text, w) {
			lines = append(lines, s.Danger.Render(l))
		}
	}
	if d.asking {
		lines = append(lines, "")
		k := m.keys
		for _, l := range wrap(interruptQuestion(p.Plan.Interrupts, k.Interrupt.Help().Key), w) {
			lines = append(lines, s.Bold.Render(l))
		}
		return append(lines, "", s.Key.Render(k.Interrupt.Help().Key+" interrupt and apply · "+k.Cancel.Help().Key+" back to the preview"))
	}
	lines = append(lines, "")
	diff := d.diff
	diff.height = max(3, h-len(lines)-4)
	diff.clamp()
	lines = append(lines, strings.Split(diff.view(), "\n")...)
	k := m.keys
	hint := k.Apply.Help().Key + " apply · " + k.Edit.Help().Key + " edit · " + k.Cancel.Help().Key + " cancel"
	if sh := diff.scrollHint(); sh != "" {
		hint += " · j/k scroll (" + sh + ")"
	}
	return append(lines, "", s.Key.Render(hint))
}

func (d *previewDialog) update(m *Model, l *loop, msg tea.Msg) step {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return stay(nil)
	}
	if d.asking {
		// Only the interrupt key (i) applies; the cancel keys go back to
		// the preview, and no other key reaches here (inAsk), so no press
		// of an apply key (enter, y, a) — twice by reflex — can interrupt
		// a worker.
		d.asking = false
		if key.Matches(k, m.keys.Interrupt) {
			busy := &busyDialog{kind: d.kind, values: d.values, what: "writing the correction…"}
			return replaceWith(busy, m.runJob(l, busy, l.session.Apply(d.p)))
		}
		return stay(nil)
	}
	switch {
	case key.Matches(k, m.keys.Apply) && len(d.p.Plan.Interrupts) > 0:
		d.asking = true
	case key.Matches(k, m.keys.Apply):
		busy := &busyDialog{kind: d.kind, values: d.values, what: "writing the correction…"}
		return replaceWith(busy, m.runJob(l, busy, l.session.Apply(d.p)))
	case key.Matches(k, m.keys.Edit):
		return m.toForm(l, d.kind, d.values, "")
	case key.Matches(k, m.keys.Cancel):
		return m.cancelRedirect(l)
	}
	return stay(nil)
}

// interruptQuestion asks whether to interrupt the workers of in-progress
// atoms: "A9 is in progress: interrupt its worker? (i: yes)", key being
// the interrupt key.
func interruptQuestion(ins []model.Interrupt, key string) string {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = termtext.Line(in.Atom)
	}
	if len(ids) == 1 {
		return ids[0] + " is in progress: interrupt its worker? (" + key + ": yes)"
	}
	return strings.Join(ids, ", ") + " are in progress: interrupt their workers? (" + key + ": yes)"
}

// busyDialog stands while a job reads or writes the file. Every result
// leads out of it (see onSessionMsg); esc leaves at once — what is on its
// way still finishes, and says so in the footer.
type busyDialog struct {
	kind   string
	values *formValues
	what   string
}

func (d *busyDialog) title() string      { return "redirect" }
func (d *busyDialog) width(m *Model) int { return m.dialogWidth() }
func (d *busyDialog) resize(*Model)      {}

func (d *busyDialog) lines(m *Model, _ *loop, _, _ int) []string {
	return []string{m.styles.Muted.Render(d.what), "", m.styles.Muted.Render("esc closes this box; what is under way still finishes")}
}

func (d *busyDialog) update(m *Model, l *loop, msg tea.Msg) step {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, m.keys.Back) {
		return m.cancelRedirect(l)
	}
	return stay(nil)
}

// staleFlagDialog asks about a redirect_requested no dialog of this
// session set.
type staleFlagDialog struct{}

func (staleFlagDialog) title() string      { return "redirect_requested is set" }
func (staleFlagDialog) width(m *Model) int { return m.dialogWidth() }
func (staleFlagDialog) resize(*Model)      {}

func (staleFlagDialog) lines(m *Model, l *loop, w, _ int) []string {
	text := "control.redirect_requested is true, but no redirect is open in this aot-tui. It may be left over from an earlier session that ended abruptly, or someone may be running /redirect right now. While it is true the loop's stop hook pauses the loop."
	if l.session.Pause().Marked {
		text = "control.redirect_requested is true, set by an aot-tui that is no longer running" + m.goneText(l) + ": its form was open when it ended. While it is true the loop's stop hook pauses the loop."
	}
	lines := wrap(text, w)
	k := m.keys
	return append(lines, "", m.styles.Key.Render(k.Yes.Help().Key+" clear it · "+k.No.Help().Key+" leave it (default)"))
}

func (staleFlagDialog) update(m *Model, l *loop, msg tea.Msg) step {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
		return stay(nil)
	case key.Matches(k, m.keys.Quit):
		return closed(m.quit())
	case key.Matches(k, m.keys.Yes):
		m.report(l, kit.Info, "clearing redirect_requested")
		return closed(m.runJob(l, nil, l.session.ClearForeignFlag()))
	case key.Matches(k, m.keys.No):
		m.report(l, kit.Info, "redirect_requested left as it is")
		return closed(nil)
	}
	return stay(nil)
}

// isRedirectDialog reports whether d is a step of a redirect (the menu, a
// form, its preview, the busy box): the loop is paused while it is open.
func isRedirectDialog(d dialog) bool {
	switch d.(type) {
	case *menuDialog, *formDialog, *previewDialog, *busyDialog:
		return true
	}
	return false
}

// markMoved notes on the open form or preview that the loop wrote the file.
func markMoved(d dialog) {
	switch d := d.(type) {
	case *formDialog:
		d.moved = true
	case *previewDialog:
		d.moved = true
	}
}
