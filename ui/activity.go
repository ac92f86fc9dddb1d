package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/internal/textfmt"
)

// The loop's Claude Code sessions (agent/), followed live while the loop
// is watched: the header says what the loop is doing now and whether it
// waits for a person. Options.Activity turns it on (the command line's
// --no-activity leaves it off).

// activityMsg is a snapshot of the loop's sessions (in its envelope).
type activityMsg struct{ a *agent.Activity }

// startActivity follows l's sessions when the options ask for it: the
// follower's snapshots go to a channel that keeps the latest, read by
// listenActivity.
func (m *Model) startActivity(l *loop) tea.Cmd {
	if m.opts.Activity == nil || l.follower != nil || l.phase != nil {
		return nil
	}
	o, ok := m.opts.Activity(l.target.Path)
	if !ok {
		return nil
	}
	ch := make(chan *agent.Activity, 1)
	l.activityCh = ch
	l.follower = agent.StartFollow(o, func(a *agent.Activity) {
		// Keep only the latest: a snapshot not read yet is replaced.
		select {
		case <-ch:
		default:
		}
		ch <- a
	})
	return listenActivity(l)
}

// listenActivity waits for l's next snapshot.
func listenActivity(l *loop) tea.Cmd {
	ch := l.activityCh
	return l.send(func() tea.Msg {
		a, ok := <-ch
		if !ok {
			return nil
		}
		return activityMsg{a: a}
	})
}

// onActivity takes a snapshot and listens for the next.
func (m *Model) onActivity(l *loop, msg activityMsg) tea.Cmd {
	l.activity = msg.a
	if l.follower != nil && l.st != nil {
		ids := make([]string, len(l.st.Atoms))
		for i, a := range l.st.Atoms {
			ids[i] = a.ID
		}
		l.follower.SetAtoms(ids)
	}
	return listenActivity(l)
}

// stopActivities stops every follower (the TUI is closing).
func (m *Model) stopActivities() {
	for _, l := range m.loops {
		if l.follower != nil {
			l.follower.Stop()
			l.follower = nil
		}
	}
}

// nowText is what the loop's sessions do now, for the header: the atom,
// the agent, its step and for how long ("◐ A5 worker: Edit login.go ·
// 14s"; "" when nothing runs or nothing is known). What it quotes from the
// transcripts is sanitised already (agent.Activity).
func nowText(a *agent.Activity, now time.Time) string {
	if a == nil || a.Now == nil {
		return ""
	}
	n := a.Now
	who := n.Agent
	if n.Atom != "" && !strings.Contains(who, n.Atom) {
		who = n.Atom + " " + who
	}
	text := "◐ " + who + ": " + n.Step.Line()
	if !n.Since.IsZero() && now.After(n.Since) {
		text += " · " + textfmt.Ago(now.Sub(n.Since))
	}
	return text
}

// needsYouText is the header's word that the loop waits for a person
// ("" when it does not).
func needsYouText(a *agent.Activity) string {
	if a == nil || a.NeedsYou == nil {
		return ""
	}
	ny := a.NeedsYou
	text := "⚠ needs you: " + ny.Message
	if ny.Message == "" {
		text = "⚠ needs you: " + strings.ReplaceAll(ny.Kind, "_", " ")
	}
	if ny.Inferred {
		text += " (read from the transcript; aot-tui hook install gives exact answers)"
	}
	return text
}
