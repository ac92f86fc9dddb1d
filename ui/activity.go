package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"

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
	l.activityCh, l.prices = ch, o.Prices
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
	if ch == nil {
		return nil
	}
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
	prev := l.activity
	l.activity = msg.a
	m.refreshActivity(l)
	m.refreshDetails(l)
	var ring tea.Cmd
	if ny := msg.a.NeedsYou; ny != nil && (prev == nil || prev.NeedsYou == nil || !prev.NeedsYou.Since.Equal(ny.Since)) {
		// The loop began to wait for a person: alert, as for the other
		// transitions that need one.
		ring = m.alert(l, strings.TrimPrefix(needsYouText(msg.a), "⚠ "))
	}
	if l.follower != nil && l.st != nil {
		ids := make([]string, len(l.st.Atoms))
		for i, a := range l.st.Atoms {
			ids[i] = a.ID
		}
		l.follower.SetAtoms(ids)
	}
	return tea.Batch(ring, listenActivity(l))
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

// activityLines are the activity view (tab 7) of l at width w: what
// runs now, whether the loop waits for you, each agent with its recent
// steps (those attributed to sel only, when an atom is selected in the
// graph), and the tokens with their estimated cost, in total, by atom and
// by iteration.
func activityLines(a *agent.Activity, prices *agent.Prices, sel string, now time.Time, w int, s Styles) []string {
	if a == nil {
		return wrap("No Claude Code session of this loop read (yet). aot-tui reads the transcripts Claude Code keeps of the project under $CLAUDE_CONFIG_DIR/projects (~/.claude/projects); --no-activity turns this off.", w)
	}
	var out []string
	add := func(st lipgloss.Style, text string) {
		for _, l := range wrap(text, w) {
			out = append(out, st.Render(l))
		}
	}
	switch {
	case !a.Found:
		add(s.Muted, "No transcript directory of this project found under the Claude Code projects directory.")
	case !a.Ready:
		add(s.Muted, "reading the sessions' transcripts…")
	}
	if t := needsYouText(a); t != "" {
		add(s.Warn, t)
	}
	if t := nowText(a, now); t != "" {
		add(s.Atom(model.StatusInProgress), "now "+t)
	} else if a.Found {
		add(s.Muted, "nothing runs now")
	}
	out = append(out, "")
	steps := func(list []agent.Step) {
		for _, st := range list {
			mark := "✓"
			switch {
			case !st.Done:
				mark = "◐"
			case st.Failed:
				mark = "✗"
			}
			out = append(out, cells.Cut("  "+st.At.Local().Format("15:04:05")+" "+mark+" "+st.Line(), w))
		}
	}
	if sel != "" {
		out = append(out, s.Bold.Render("steps attributed to "+sel))
		if list := a.StepsOf(sel); len(list) > 0 {
			steps(list)
		} else {
			out = append(out, s.Muted.Render("  none read"))
		}
		out = append(out, "")
	}
	out = append(out, s.Bold.Render("agents"))
	for i := range a.Agents {
		ag := &a.Agents[i]
		head := "  " + ag.Name()
		if ag.Description != "" && ag.Description != ag.Name() {
			head += " — " + ag.Description
		}
		if ag.Ended {
			head += " (done)"
		}
		out = append(out, cells.Cut(head, w))
		if sel == "" {
			steps(ag.Steps)
		}
	}
	out = append(out, "", s.Bold.Render("tokens and estimated cost"))
	cost := func(name string, u agent.Usage) string {
		t := u.Tokens()
		line := fmt.Sprintf("  %-10s in %s · out %s · cache %s+%s", name, textfmt.Count(t.Input), textfmt.Count(t.Output), textfmt.Count(t.CacheCreation), textfmt.Count(t.CacheRead))
		if prices != nil {
			line += fmt.Sprintf(" · ~$%.2f", u.Cost(prices).USD)
		}
		return line
	}
	out = append(out, cells.Cut(cost("total", a.Total), w))
	for _, id := range sortedUsage(a.ByAtom) {
		name := id
		if name == "" {
			name = "(no atom)"
		}
		out = append(out, cells.Cut(cost(name, a.ByAtom[id]), w))
	}
	iters := make([]int, 0, len(a.ByIteration))
	for n := range a.ByIteration {
		iters = append(iters, n)
	}
	slices.Sort(iters)
	for _, n := range iters {
		out = append(out, cells.Cut(cost(fmt.Sprintf("iter %d", n), a.ByIteration[n]), w))
	}
	if prices != nil {
		add(s.Muted, "costs are estimates from the price table of "+prices.Date+", not a bill")
	}
	if t := a.NotRecognised(); t != "" {
		add(s.Muted, t)
	}
	for _, n := range a.Notes {
		add(s.Muted, n)
	}
	return out
}

// sortedUsage are the keys of a usage map, the largest use first.
func sortedUsage(m map[string]agent.Usage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := m[b].Tokens().Total() - m[a].Tokens().Total(); d != 0 {
			return int(max(-1, min(1, d)))
		}
		return strings.Compare(a, b)
	})
	return keys
}

// refreshActivity draws the activity view of l again (a snapshot came, the
// selection or the width changed): the steps of the atom selected in the
// graph, when one is.
func (m *Model) refreshActivity(l *loop) {
	if m.opts.Activity == nil {
		l.activityText.set(wrap("The loop's Claude Code sessions are not read (--no-activity).", l.activityText.width))
		return
	}
	sel := ""
	if l.facts != nil {
		if _, ok := l.facts.Index[l.graph.sel]; ok {
			sel = l.graph.sel
		}
	}
	l.activityText.set(activityLines(l.activity, l.prices, sel, m.now, l.activityText.width, m.styles))
}

// activityDetails is what an atom's details add from the loop's sessions:
// its tokens with their estimated cost and its last steps (none when
// nothing was attributed to it).
func activityDetails(a *agent.Activity, prices *agent.Prices, id string, w int, s Styles) []string {
	if a == nil {
		return nil
	}
	u, used := a.ByAtom[id]
	steps := a.StepsOf(id)
	if !used && len(steps) == 0 {
		return nil
	}
	out := []string{"", s.Title.Render("activity")}
	if used {
		t := u.Tokens()
		line := fmt.Sprintf("tokens in %s · out %s · cache %s+%s", textfmt.Count(t.Input), textfmt.Count(t.Output), textfmt.Count(t.CacheCreation), textfmt.Count(t.CacheRead))
		if prices != nil {
			line += fmt.Sprintf(" · ~$%.2f (estimate)", u.Cost(prices).USD)
		}
		out = append(out, wrap(line, w)...)
	}
	for _, st := range steps[max(0, len(steps)-3):] {
		out = append(out, cells.Cut(st.At.Local().Format("15:04:05")+" "+st.Line(), w))
	}
	return out
}
