package ui

import (
	"fmt"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"strings"

	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/model"

	"github.com/aot-loop/aot-tui/internal/termtext"
)

// containsWords reports whether text holds every word of filter, ignoring
// case: the rule of / in the tables and the text views.
func containsWords(text, filter string) bool { return cells.HasWords(text, filter) }

// setupTables wires the bindings, trail and corrections tables to the
// current state; cells are produced on demand for visible rows only.
func (m *Model) setupTables(l *loop) {
	match := func(fields func(r int) []string) func(int, string) bool {
		return func(r int, filter string) bool { return containsWords(strings.Join(fields(r), " "), filter) }
	}

	l.bindings = tableView{
		cols:  []column{{Title: "atom", Width: 8}, {Title: "summary", MinWidth: 10}, {Title: "artifacts", MinWidth: 12}},
		empty: "no bindings yet: an atom gets one when it resolves",
		cell: func(r, c int) string {
			b := l.st.Bindings[r]
			switch c {
			case 0:
				return b.AtomID
			case 1:
				return firstLine(b.Summary)
			}
			return strings.Join(b.Artifacts, ", ")
		},
		preview: func(r, w int) []string {
			b := l.st.Bindings[r]
			out := []string{m.styles.Bold.Render(termtext.Line(b.AtomID)) + " " + m.atomTitle(l, b.AtomID)}
			out = append(out, wrap(b.Summary, w)...)
			if len(b.Artifacts) > 0 {
				out = append(out, m.styles.Muted.Render("artifacts: ")+termtext.Line(strings.Join(b.Artifacts, ", ")))
			}
			return out
		},
	}
	l.bindings.match = match(func(r int) []string {
		b := l.st.Bindings[r]
		return append([]string{b.AtomID, b.Summary}, b.Artifacts...)
	})

	l.trail = tableView{
		cols: []column{{Title: "#", Width: 3, Optional: true}, {Title: "when", Width: 16}, {Title: "ago", Width: 8, Optional: true},
			{Title: "what", Width: 22}, {Title: "reason", MinWidth: 12}},
		empty: "the trail is empty: OR selections and corrections appear here",
		cell: func(r, c int) string {
			t := l.st.Trail[r]
			switch c {
			case 0:
				return fmt.Sprint(r + 1)
			case 1:
				return shortTime(t.Timestamp)
			case 2:
				return m.relTimeNoted(t.Timestamp)
			case 3:
				what := t.ORGroup
				if t.Selected != "" {
					what += " → " + t.Selected
				}
				if t.Type != "" {
					what = strings.TrimSpace("[" + t.Type + "] " + what)
				}
				return what
			}
			return firstLine(t.Reason)
		},
		preview: func(r, w int) []string {
			t := l.st.Trail[r]
			out := []string{m.styles.Muted.Render(fmt.Sprintf("#%d  %s  %s", r+1, termtext.Line(t.Timestamp), m.relTimeNoted(t.Timestamp)))}
			out = append(out, wrap(trailWhat(t), w)...)
			return out
		},
	}
	l.trail.match = match(func(r int) []string {
		t := l.st.Trail[r]
		return []string{t.Type, t.ORGroup, t.Selected, t.Reason, t.Timestamp}
	})

	l.corrections = tableView{
		cols: []column{{Title: "when", Width: 16}, {Title: "type", Width: 17}, {Title: "trail", Width: 7, Optional: true},
			{Title: "picked up", Width: 12, Optional: true}, {Title: "description", MinWidth: 16}},
		empty: "no corrections: redirects made with r, a, d, o, c, e, b appear here",
		cell: func(r, c int) string {
			x := l.st.Corrections[r]
			switch c {
			case 0:
				return shortTime(x.Timestamp)
			case 1:
				return string(x.Type)
			case 2:
				if x.TrailCleared {
					return "cleared"
				}
				return "kept"
			case 3:
				short, _ := m.pickedUp(l, x)
				return short
			}
			return firstLine(x.Description)
		},
		preview: func(r, w int) []string {
			x := l.st.Corrections[r]
			head := fmt.Sprintf("%s  %s  %s", termtext.Line(string(x.Type)), termtext.Line(x.Timestamp), m.relTimeNoted(x.Timestamp))
			out := []string{m.styles.Muted.Render(head)}
			if _, long := m.pickedUp(l, x); long != "" {
				out = append(out, long)
			}
			return append(out, wrap(x.Description, w)...)
		},
	}
	l.corrections.match = match(func(r int) []string {
		x := l.st.Corrections[r]
		return []string{string(x.Type), x.Description, x.Timestamp}
	})
}

// atomTitle is an atom's status glyph and description, for previews.
func (m *Model) atomTitle(l *loop, id string) string {
	i, ok := l.facts.Index[id]
	if !ok {
		return m.styles.Muted.Render("(not an atom)")
	}
	a := l.st.Atoms[i]
	return m.styles.Atom(a.Status).Render(loopword.AtomGlyph(a.Status)) + " " + termtext.Line(a.Description)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func truncate(s string, w int) string { return cells.Cut(s, w) }

// scrollMark is cells.ScrollMark: "↓ 1–16 of 40" for a list or text that
// does not show all of itself.
func scrollMark(n, top, height int) string { return cells.ScrollMark(n, top, height) }

// scrollMark is where the view on screen is scrolled to when it does not
// show all of its list or text ("" when it does), for the footer: the
// graph's list, the details, a table's rows, the objective, the prompt, a
// phase loop. The drawing has its own position line.
func (m *Model) scrollMark(l *loop) string {
	text := func(t *scrollText) string { return scrollMark(len(t.lines), t.top, t.height) }
	switch {
	case l.phase != nil:
		return text(&l.phaseText)
	case l.st == nil:
		return ""
	case l.view == viewGraph && l.showDetails:
		return text(&l.details)
	case l.view == viewGraph:
		var marks []string
		if g := &l.graph; !g.isLayered() {
			marks = append(marks, scrollMark(len(g.visible), g.top, g.height))
		}
		if m.wide {
			if d := text(&l.details); d != "" {
				marks = append(marks, "details "+d)
			}
		}
		return strings.TrimSpace(strings.Join(marks, " · "))
	case l.view == viewObjective:
		return text(&l.objective)
	case l.view == viewPrompt:
		return text(&l.prompt)
	case l.view == viewActivity:
		return text(&l.activityText)
	}
	t := []*tableView{viewBindings: &l.bindings, viewTrail: &l.trail, viewCorrections: &l.corrections}[l.view]
	return scrollMark(len(t.visible), t.top, t.bodyHeight())
}

// pickedUp says whether the loop has acted on a correction applied from
// this session: acknowledged once the iteration advances past the one it
// was applied at; and whether a loop write undid it and it was applied
// again. Corrections from elsewhere have no record ("").
func (m *Model) pickedUp(l *loop, c model.Correction) (short, long string) {
	a, ok := l.applied[correctionKey(c)]
	if !ok {
		return "", ""
	}
	at := a.iteration
	again := ""
	if a.reapplied > 0 {
		again = fmt.Sprintf(" · re-applied %d× after the loop overwrote it", a.reapplied)
	}
	since := l.st.Control.Iteration - at
	if since <= 0 {
		return "waiting", fmt.Sprintf("applied at iteration %d%s · the loop has not run an iteration since", at, again)
	}
	return fmt.Sprintf("✓ +%d it.", since), fmt.Sprintf("applied at iteration %d%s · loop has run %d iteration%s since", at, again, since, plural(since))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
