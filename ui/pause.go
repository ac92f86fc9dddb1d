package ui

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/ui/redirect"
)

// The pause a redirect form holds (redirect_requested), as the TUI shows
// and drives it. The session shares it with other aot-tui processes
// (correction's pause.go): the header says who holds it, looked at again
// every pauseLookEvery while it matters, since other processes' forms come
// and go without a write to the file. A form with no key for
// Options.IdleRelease lets the loop go and stays open; the next key
// pauses it again.

// DefaultIdleRelease is how long a redirect dialog may go without a key
// before it lets the loop go. The stop hook reads redirect_requested each
// time a worker or the coordinator stops, a few minutes apart in a
// running loop; every form here is filled in well within five minutes,
// so a pause longer than that is a form forgotten in a pane, not one
// being written — and it holds the loop for at most about one iteration.
const DefaultIdleRelease = 5 * time.Minute

// pauseLookEvery is how often the TUI looks at who holds the pause while
// the loop is paused or a form of this TUI is open.
const pauseLookEvery = 2 * time.Second

type (
	// pauseTickMsg: time to look at the loop's pause again.
	pauseTickMsg struct{}
	// idleMsg: the idle time of the loop's redirect may be over.
	idleMsg struct{}
)

// idleRelease is the idle time in effect (0: never).
func (m *Model) idleRelease() time.Duration {
	switch d := m.opts.IdleRelease; {
	case d < 0:
		return 0
	case d == 0:
		return DefaultIdleRelease
	default:
		return d
	}
}

// beginPause pauses the loop for a form of kind that opens (the session's
// BeginFor) and starts its idle time.
func (m *Model) beginPause(l *loop, kind string) tea.Cmd {
	l.form = kind
	l.keyAt, l.letGo = time.Now(), 0
	return tea.Batch(m.runJob(l, nil, l.session.BeginFor(kind)), m.armIdle(l), m.watchPause(l))
}

// redirectKey notes a key pressed in a redirect dialog: the idle time
// starts again, and a form that let the loop go pauses it again — before
// the key does anything else, so that a preview or an apply it starts is
// planned on the file with the loop paused.
func (m *Model) redirectKey(l *loop) tea.Cmd {
	l.keyAt = time.Now()
	if l.letGo == 0 {
		return nil
	}
	l.letGo = 0
	m.report(l, kit.Info, "the loop is paused again while the form is open")
	return tea.Batch(m.runJob(l, nil, l.session.BeginFor(l.form)), m.armIdle(l))
}

// idleRecheck is how often the idle timer looks again once the idle time
// is over but the redirect cannot let the loop go yet (a write is under
// way): the release waits for the write, at most this long after it.
const idleRecheck = time.Second

// armIdle starts the idle timer of l's redirect when none runs: for when
// the idle time since the last key is over, or, when it is over already,
// idleRecheck from now.
func (m *Model) armIdle(l *loop) tea.Cmd {
	idle := m.idleRelease()
	if idle <= 0 || l.idleArmed {
		return nil
	}
	l.idleArmed = true
	d := time.Until(l.keyAt.Add(idle))
	if d <= 0 {
		d = idleRecheck
	}
	return l.send(tea.Tick(d, func(time.Time) tea.Msg { return idleMsg{} }))
}

// onIdle lets the loop go when the redirect has had no key for the idle
// time; the form stays open with what was typed.
func (m *Model) onIdle(l *loop) tea.Cmd {
	l.idleArmed = false
	top := l.topDialog()
	if !isRedirectDialog(top) || l.letGo != 0 {
		return nil
	}
	idle := m.idleRelease()
	if redirect.Busy(flowTop(l)) || time.Since(l.keyAt) < idle {
		return m.armIdle(l) // a key came meanwhile, or a write is under way
	}
	l.letGo = idle
	m.report(l, kit.Warn, "no key for "+textfmt.Ago(idle)+": the loop was let go; it pauses again when you type")
	return m.runJob(l, nil, l.session.End())
}

// letGoNote is the line a redirect dialog shows once it let the loop go.
func letGoNote(l *loop) string {
	return "⏵ no key for " + textfmt.Ago(l.letGo) + ": the loop was let go — it pauses again when you type"
}

// pauseMatters: who holds the pause is worth a look (the loop is paused,
// or a form of ours is open).
func pauseMatters(l *loop) bool {
	return l.st != nil && (l.st.Control.RedirectRequested || isRedirectDialog(l.topDialog()))
}

// watchPause looks at who holds the pause now and keeps looking every
// pauseLookEvery while it matters (nothing where leases are not used). A
// read-only loop is not looked at: a look takes the pause lock (a file
// created and removed beside the state file) and removes the leases of
// processes that are gone, and a read-only TUI writes nothing there.
func (m *Model) watchPause(l *loop) tea.Cmd {
	if l.readOnly || !pauseMatters(l) || !l.session.SharesPause() {
		return nil
	}
	cmd := m.lookPause(l)
	if l.pauseTicking {
		return cmd
	}
	l.pauseTicking = true
	return tea.Batch(cmd, l.send(tea.Tick(pauseLookEvery, func(time.Time) tea.Msg { return pauseTickMsg{} })))
}

// onPauseTick looks again, and sets the flag again if the file lost it
// under an open form while a job was under way when that state came in
// (Check skips the flag then).
func (m *Model) onPauseTick(l *loop) tea.Cmd {
	l.pauseTicking = false
	var fix tea.Cmd
	if l.st != nil && !l.hist.inPast() {
		fix = m.runJob(l, nil, l.session.CheckFlag(l.st))
	}
	return tea.Batch(fix, m.watchPause(l))
}

// lookPause runs one look (none while one is under way).
func (m *Model) lookPause(l *loop) tea.Cmd {
	if l.looking {
		return nil
	}
	job := l.session.LookPause()
	if job == nil {
		return nil
	}
	l.looking = true
	return m.runJob(l, nil, job)
}

// onPauseLook takes a look's result: the header reads the session's view
// when it draws. A flag another aot-tui's open form holds is no left-over:
// the stale-flag question, asked before the first look came back, is
// withdrawn (and may be asked again if that aot-tui dies with it set); a
// flag no open form holds may be one to offer to clear.
//
// A look that failed says so once (until a look succeeds again), since
// the header's account of who holds the pause is then out of date; one
// skipped because another aot-tui held the pause lock past the wait says
// nothing: the next look, pauseLookEvery later, tries again.
func (m *Model) onPauseLook(l *loop, r correction.PauseResult) {
	l.looking = false
	switch {
	case r.Err == nil:
		l.pauseErr = ""
	case errors.Is(r.Err, statefile.ErrPauseLockBusy):
	case r.Err.Error() != l.pauseErr:
		l.pauseErr = r.Err.Error()
		m.report(l, kit.Error, "could not look at who holds the pause: "+l.pauseErr)
	}
	if len(r.View.Gone) > 0 {
		l.goneHolders = r.View.Gone
	}
	if b := flowTop(l); b != nil && b.Place() == redirect.InStaleFlag {
		if len(r.View.Others) > 0 {
			l.dialogs = l.dialogs[:len(l.dialogs)-1]
			l.staleOffered = false
			m.refocus()
			return
		}
		// The question says who set the flag as this look knows it.
		l.dialogs[len(l.dialogs)-1] = &flowBox{redirect.AskStaleFlag(m.flowLoop(l))}
	}
	if l.st != nil {
		m.offerStaleFlag(l)
	}
}

// pauseText says who holds the pause, for the outlook line ("" when there
// is nothing to add to "paused for redirect").
func (m *Model) pauseText(l *loop) string {
	if l.st == nil || !l.st.Control.RedirectRequested || l.hist.inPast() || l.readOnly {
		return ""
	}
	v := l.session.Pause()
	if !v.Shared || v.At.IsZero() {
		return ""
	}
	var names []string
	for _, h := range v.Others {
		names = append(names, m.holderText(h))
	}
	switch {
	case v.Ours && len(v.Others) == 0:
		return ""
	case v.Ours:
		return fmt.Sprintf("‖ %d forms open (this one and %s)", len(v.Others)+1, strings.Join(names, "; "))
	case len(v.Others) == 1:
		return "‖ by another aot-tui (" + names[0] + ")"
	case len(v.Others) > 1:
		return fmt.Sprintf("‖ by %d other aot-tui forms (%s)", len(v.Others), strings.Join(names, "; "))
	case v.Marked:
		return "‖ left set by an aot-tui that is no longer running" + m.goneText(l)
	}
	return ""
}

// thisHost is this machine's name, asked once: holderText compares each
// holder's to it on every frame.
var thisHost = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	return host
})

// holderText names a form that holds the pause: "pid 4242, constraints
// form, 2m" (and the host when it is another machine's).
func (m *Model) holderText(h statefile.PauseHolder) string {
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Host != "" && h.Host != thisHost() {
		s += " on " + termtext.Line(h.Host)
	}
	if h.Form != "" {
		s += ", " + termtext.Line(h.Form) + " form"
	}
	if age := m.now.Sub(h.Started); !h.Started.IsZero() && age >= 0 {
		s += ", " + textfmt.Ago(age)
	}
	return s
}

// goneText names the forms of processes that died holding the pause, as
// the last look that found them saw them.
func (m *Model) goneText(l *loop) string {
	if len(l.goneHolders) == 0 {
		return ""
	}
	var names []string
	for _, h := range l.goneHolders {
		names = append(names, m.holderText(h))
	}
	return " (" + strings.Join(names, "; ") + ")"
}

// redirectFooter is the footer while a redirect dialog is open: whether
// the loop is paused, as the file has it.
func (m *Model) redirectFooter(l *loop, room int) string {
	s := m.styles
	switch {
	case l.letGo != 0:
		return s.Warn.Render("no key for " + textfmt.Ago(l.letGo) + ": the loop was let go — type to pause it again")
	case l.st != nil && !l.st.Control.RedirectRequested && l.session.Pending() == 0:
		return s.Warn.Render("redirect open, but redirect_requested is false: the loop is not paused")
	}
	msg := "redirect in progress: the loop pauses until you apply or cancel (esc)"
	if lipgloss.Width(msg) > room {
		msg = "loop paused until you apply or cancel (esc)"
	}
	return s.Warn.Render(msg)
}

// heldText is what closing a form says when other forms keep the loop
// paused ("" when none does).
func (m *Model) heldText(l *loop) string {
	v := l.session.Pause()
	if len(v.Others) == 0 {
		return ""
	}
	var names []string
	for _, h := range v.Others {
		names = append(names, fmt.Sprintf("pid %d", h.PID))
	}
	return "the loop stays paused: " + textfmt.Plural(len(v.Others), "other aot-tui form") + " open (" + strings.Join(names, ", ") + ")"
}

// closesRedirect reports whether b closes the redirect at h (esc; the
// preview's cancel keys): no reason to pause the loop again for it.
func (m *Model) closesRedirect(h here, b *binding) bool {
	return b != nil && (b.Name == "back" || b.Name == "cancel" && h.p.Has(inPreview))
}
