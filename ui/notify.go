package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// notify sends the event of an alert about l to Options.Notify: the
// commands and webhooks of the config file hear of every transition the
// bell rings for, whatever the focus and --quiet (they are about the
// bell). In the fleet the table sends one for each loop (fleettable), so
// an opened loop sends only what the table cannot see: a lost correction.
func (m *Model) notify(l *loop, kind notify.Kind, why string) {
	if why == "" || m.opts.Notify == nil || (m.fleet != nil && kind != notify.CorrectionLost) {
		return
	}
	name := m.opts.LoopName
	if name == "" {
		name = l.name
	}
	m.opts.Notify.Send(notify.Event{Kind: kind, Loop: name, Path: l.target.Path, Reason: why, Time: m.now})
}

// alertKind is the kind of an alert by its words: alertReason's for a
// change of the file, needsYouText's for a session that waits.
func alertKind(why string) notify.Kind {
	switch {
	case why == whyCompleted:
		return notify.Completed
	case strings.HasPrefix(why, whyStopped):
		return notify.Stopped
	case strings.HasPrefix(why, "needs you"):
		return notify.NeedsYou
	}
	return notify.NeedsAttention
}

// notifyNotes says that the notifier has notes (what went wrong sending).
type notifyNotes struct{}

// listenNotes waits for the notifier's next notes (nil: no notifier).
func listenNotes(n *notify.Notifier) tea.Cmd {
	if n == nil {
		return nil
	}
	ch := n.Notes()
	return func() tea.Msg {
		<-ch
		return notifyNotes{}
	}
}

// onNotifyNotes puts the notifier's notes in the message log, one line
// each, and listens for more.
func (m *Model) onNotifyNotes() tea.Cmd {
	for _, s := range m.opts.Notify.TakeNotes() {
		m.logMessage("notify", kit.Warn, s)
	}
	return listenNotes(m.opts.Notify)
}
