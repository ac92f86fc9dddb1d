package ui

import (
	"cmp"
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
	"github.com/aot-loop/aot-tui/statefile"
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
	if len(l.iterMarks) > 0 {
		o.Iterations = slices.Clone(l.iterMarks)
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

// noteIteration marks when the state file's iteration changed, from a
// version the watcher read (its modification time), and tells the
// follower: tokens are then counted against the iteration the file says
// ran, not the one guessed from the transcript (which the follower still
// uses before the first version this TUI read).
func noteIteration(l *loop, ev statefile.Event) {
	if ev.Doc == nil || ev.Doc.State == nil {
		return
	}
	n := ev.Doc.State.Control.Iteration
	at := versionAt(ev)
	if k := len(l.iterMarks); k > 0 {
		last := l.iterMarks[k-1]
		if last.N == n {
			return
		}
		if at.Before(last.At) {
			// A clock moved back, or a touch -d: keep the marks in order.
			at = last.At
		}
	}
	l.iterMarks = append(l.iterMarks, agent.IterationMark{At: at, N: n})
	if l.follower != nil {
		l.follower.SetIterations(l.iterMarks)
	}
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
	return tea.Batch(ring, listenActivity(l))
}

// giveAtoms hands the follower the atom ids of st, a version the watcher
// read (new Task descriptions are matched against them; onLoaded), when
// they are not those it was given last. A follower that is given atoms
// makes a new snapshot: handed over with every snapshot, as they were,
// they kept one coming every 50 ms while nothing changed (issue 26: a
// redraw each, and at 10,000 atoms a copy and a map of every id).
func giveAtoms(l *loop, st *model.State) {
	if l.follower == nil || st == nil {
		return
	}
	if len(l.followerAtoms) == len(st.Atoms) {
		same := true
		for i := range st.Atoms {
			if l.followerAtoms[i] != st.Atoms[i].ID {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	ids := make([]string, len(st.Atoms))
	for i, a := range st.Atoms {
		ids[i] = a.ID
	}
	l.followerAtoms = ids
	l.follower.SetAtoms(ids)
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
// by iteration, sorted by the column by (order is the atoms' order in the
// state file, for sorting by name).
func activityLines(a *agent.Activity, prices *agent.Prices, sel string, order map[string]int, by costSort, now time.Time, w int, s Styles) []string {
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
		if d := agentDescription(ag); d != "" {
			head += " — " + d
		}
		if ag.Ended {
			head += " (done)"
		}
		out = append(out, cells.Cut(head, w))
		if sel == "" {
			steps(ag.Steps)
		}
	}
	out = append(out, "")
	out = append(out, costTables(a, prices, order, by, w, s)...)
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

// agentDescription is what an agent's line adds to its name: its Task
// description, without the atom id the name already starts with ("A5
// worker — Server-side sessions", not "A5 worker — A5 Server-side
// sessions"); "" when it says no more than the name.
func agentDescription(ag *agent.Agent) string {
	d, name := ag.Description, ag.Name()
	if d == "" || d == name {
		return ""
	}
	if first, _, ok := strings.Cut(name, " "); ok {
		if rest, ok := strings.CutPrefix(d, first+" "); ok {
			d = strings.TrimLeft(rest, " -–—:")
		}
	}
	return d
}

// costSort is the column the activity view's cost tables are sorted by.
type costSort int

const (
	byCost costSort = iota
	byTokens
	byName
	numCostSorts
)

var costSortNames = [numCostSorts]string{"cost", "tokens", "name"}

// costRow is one row of a cost table: an atom or an iteration.
type costRow struct {
	name  string
	rank  int // the order by name: the atom's place in the file, the iteration's number
	usage agent.Usage
	usd   float64
}

// costTables are the activity view's tokens and estimated cost: the
// total, then one table by atom and one by iteration, each sorted by the
// column by (the largest first; by name in the file's order of atoms and
// by iteration number), with each row's share of the total.
func costTables(a *agent.Activity, prices *agent.Prices, order map[string]int, by costSort, w int, s Styles) []string {
	if prices == nil && by == byCost {
		by = byTokens
	}
	usd := func(u agent.Usage) float64 {
		if prices == nil {
			return 0
		}
		return u.Cost(prices).USD
	}
	atoms := make([]costRow, 0, len(a.ByAtom))
	for id, u := range a.ByAtom {
		r := costRow{name: id, usage: u, usd: usd(u), rank: len(order) + 1}
		if i, ok := order[id]; ok {
			r.rank = i
		}
		if id == "" {
			r.name, r.rank = "(no atom)", len(order)+2
		}
		atoms = append(atoms, r)
	}
	iters := make([]costRow, 0, len(a.ByIteration))
	for n, u := range a.ByIteration {
		iters = append(iters, costRow{name: fmt.Sprintf("iter %d", n), rank: n, usage: u, usd: usd(u)})
	}
	cmp := func(x, y costRow) int {
		switch by {
		case byCost:
			if x.usd != y.usd {
				return cmp.Compare(y.usd, x.usd)
			}
			fallthrough
		case byTokens:
			if d := cmp.Compare(y.usage.Tokens().Total(), x.usage.Tokens().Total()); d != 0 {
				return d
			}
		}
		if x.rank != y.rank {
			return cmp.Compare(x.rank, y.rank)
		}
		return strings.Compare(x.name, y.name)
	}
	slices.SortFunc(atoms, cmp)
	slices.SortFunc(iters, cmp)

	nameW := len("by iteration")
	for _, r := range append(slices.Clone(atoms), iters...) {
		nameW = max(nameW, min(lipgloss.Width(r.name), 16))
	}
	total := a.Total.Tokens().Total()
	totalUSD := usd(a.Total)
	row := func(r costRow) string {
		t := r.usage.Tokens()
		line := fmt.Sprintf("  %s %7s %7s %7s %7s", cells.Pad(cells.Cut(r.name, nameW), nameW), textfmt.Count(t.Input), textfmt.Count(t.Output),
			textfmt.Count(t.CacheCreation+t.CacheRead), textfmt.Count(t.Total()))
		share := 0.0
		if prices != nil {
			line += fmt.Sprintf(" %8s", dollars(r.usd))
			if totalUSD > 0 {
				share = r.usd / totalUSD
			}
		} else if total > 0 {
			share = float64(t.Total()) / float64(total)
		}
		return cells.Cut(line+fmt.Sprintf(" %5.0f%%", 100*share), w)
	}
	head := func(what string) string {
		line := fmt.Sprintf("  %s %7s %7s %7s %7s", cells.Pad(what, nameW), "input", "output", "cache", "total")
		if prices != nil {
			line += fmt.Sprintf(" %8s", "cost")
		}
		return s.Bold.Render(cells.Cut(line+"  share", w))
	}
	next := costSortNames[(by+1)%numCostSorts]
	if prices == nil && by == byName {
		next = costSortNames[byTokens]
	}
	out := []string{s.Bold.Render("tokens and estimated cost"),
		s.Muted.Render(cells.Cut("sorted by "+costSortNames[by]+" · s sorts by "+next, w)),
		head(""), row(costRow{name: "total", usage: a.Total, usd: totalUSD})}
	if len(atoms) > 0 {
		out = append(out, "", head("by atom"))
		for _, r := range atoms {
			out = append(out, row(r))
		}
	}
	if len(iters) > 0 {
		out = append(out, "", head("by iteration"))
		for _, r := range iters {
			out = append(out, row(r))
		}
	}
	return out
}

// dollars is an estimated cost, to the cent: "~$0.42", "<$0.01".
func dollars(usd float64) string {
	if usd > 0 && usd < 0.005 {
		return "<$0.01"
	}
	return fmt.Sprintf("~$%.2f", usd)
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
	var order map[string]int
	if l.facts != nil {
		order = l.facts.Index
	}
	l.activityText.set(activityLines(l.activity, l.prices, sel, order, l.costSort, m.now, l.activityText.width, m.styles))
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
