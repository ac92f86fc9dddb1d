package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// dialog is one box over the view: the redirect menu, a correction's
// form, its preview, "working…" while the file is read or written, the
// stale-flag question, and a verification's confirmation and progress
// (verify.go). Dialogs live on their loop's stack; the top one
// takes the key presses (and huh's own messages) and answers with a step.
type dialog interface {
	// update handles a message meant for the dialog.
	update(m *Model, l *loop, msg tea.Msg) step
	// title is the box's title; lines its content for an inner width w and
	// at most h lines (the box keeps the first lines and the last, the key
	// hint, when they do not fit).
	title() string
	lines(m *Model, l *loop, w, h int) []string
	// width is the box's width (the frame included).
	width(m *Model) int
	// resize adapts what the dialog holds to a new pane size.
	resize(m *Model)
}

// step is a dialog's transition: stay (and run cmd), replace itself with
// next, or close the redirect (the whole stack).
type step struct {
	next  dialog
	close bool
	cmd   tea.Cmd
}

func stay(cmd tea.Cmd) step                { return step{cmd: cmd} }
func replaceWith(d dialog, c tea.Cmd) step { return step{next: d, cmd: c} }
func closed(cmd tea.Cmd) step              { return step{close: true, cmd: cmd} }

// push opens d on top of l's stack.
func (m *Model) push(l *loop, d dialog) {
	l.dialogs = append(l.dialogs, d)
	m.refocus()
}

// apply carries out a step taken by from, l's top dialog.
func (m *Model) apply(l *loop, from dialog, s step) tea.Cmd {
	if l.topDialog() != from {
		return s.cmd // a step of a dialog no longer open: only its command
	}
	switch {
	case s.close:
		l.dialogs = l.dialogs[:0]
	case s.next != nil:
		l.dialogs[len(l.dialogs)-1] = s.next
		s.next.resize(m)
	}
	m.refocus()
	return s.cmd
}

// onDialogMsg hands a key press or one of huh's messages to the top
// dialog of the loop on screen.
func (m *Model) onDialogMsg(msg tea.Msg) tea.Cmd {
	l := m.cur
	d := l.topDialog()
	if d == nil {
		return nil
	}
	return m.apply(l, d, d.update(m, l, msg))
}

// renderDialog draws l's top dialog in h lines of the body.
func (m *Model) renderDialog(l *loop, h int) []string {
	d := l.topDialog()
	w := d.width(m)
	lines := d.lines(m, l, w-4, h)
	if l.letGo != 0 && isRedirectDialog(d) {
		var note []string
		for _, line := range wrap(letGoNote(l), w-4) {
			note = append(note, m.styles.Warn.Render(line))
		}
		lines = append(note, lines...)
	}
	return boxed(lines, d.title(), w, h, m.styles)
}

// boxed frames lines in a rounded box of width w, at most h lines tall.
func boxed(lines []string, title string, w, h int, s Styles) []string {
	inner := w - 4
	top := "╭─ " + title + " "
	top = ansi.Truncate(top, w-1, "…")
	top += strings.Repeat("─", max0(w-1-ansi.StringWidth(top))) + "╮"
	out := []string{s.Border.Render(top)}
	maxBody := max0(h - 2)
	switch {
	case len(lines) > maxBody && maxBody > 1:
		// Keep the top (titles, warnings) and the last line (the key hint).
		lines = append(append([]string{}, lines[:maxBody-1]...), lines[len(lines)-1])
	case len(lines) > maxBody:
		lines = lines[len(lines)-maxBody:] // a tiny pane: the hint, or only the frame
	}
	for _, l := range lines {
		out = append(out, s.Border.Render("│ ")+padTo(ansi.Truncate(l, inner, "…"), inner)+s.Border.Render(" │"))
	}
	out = append(out, s.Border.Render("╰"+strings.Repeat("─", max0(w-2))+"╯"))
	return out
}
