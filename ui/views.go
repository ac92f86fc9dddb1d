package ui

import (
	"fmt"
	"strings"

	"github.com/aot-loop/aot-tui/model"

	"github.com/aot-loop/aot-tui/ui/termtext"
	"github.com/charmbracelet/x/ansi"
)

// containsWords reports whether text holds every word of filter, ignoring
// case: the rule of / in the tables and the text views.
func containsWords(text, filter string) bool {
	hay := strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// setupTables wires the bindings, trail and corrections tables to the
// current state; cells are produced on demand for visible rows only.
func (m *Model) setupTables() {
	match := func(fields func(r int) []string) func(int, string) bool {
		return func(r int, filter string) bool { return containsWords(strings.Join(fields(r), " "), filter) }
	}

	m.bindings = tableView{
		cols:  []column{{Title: "atom", Width: 8}, {Title: "summary", MinWidth: 10}, {Title: "artifacts", MinWidth: 12}},
		empty: "no bindings yet: an atom gets one when it resolves",
		cell: func(r, c int) string {
			b := m.st.Bindings[r]
			switch c {
			case 0:
				return b.AtomID
			case 1:
				return firstLine(b.Summary)
			}
			return strings.Join(b.Artifacts, ", ")
		},
		preview: func(r, w int) []string {
			b := m.st.Bindings[r]
			out := []string{m.styles.Bold.Render(termtext.Line(b.AtomID)) + " " + m.atomTitle(b.AtomID)}
			out = append(out, wrap(b.Summary, w)...)
			if len(b.Artifacts) > 0 {
				out = append(out, m.styles.Muted.Render("artifacts: ")+termtext.Line(strings.Join(b.Artifacts, ", ")))
			}
			return out
		},
	}
	m.bindings.match = match(func(r int) []string {
		b := m.st.Bindings[r]
		return append([]string{b.AtomID, b.Summary}, b.Artifacts...)
	})

	m.trail = tableView{
		cols: []column{{Title: "#", Width: 3, Optional: true}, {Title: "when", Width: 16}, {Title: "ago", Width: 8, Optional: true},
			{Title: "what", Width: 22}, {Title: "reason", MinWidth: 12}},
		empty: "the trail is empty: OR selections and corrections appear here",
		cell: func(r, c int) string {
			t := m.st.Trail[r]
			switch c {
			case 0:
				return fmt.Sprint(r + 1)
			case 1:
				return shortTime(t.Timestamp)
			case 2:
				return relTime(t.Timestamp, m.now)
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
			t := m.st.Trail[r]
			out := []string{m.styles.Muted.Render(fmt.Sprintf("#%d  %s  %s", r+1, termtext.Line(t.Timestamp), relTime(t.Timestamp, m.now)))}
			out = append(out, wrap(trailWhat(t), w)...)
			return out
		},
	}
	m.trail.match = match(func(r int) []string {
		t := m.st.Trail[r]
		return []string{t.Type, t.ORGroup, t.Selected, t.Reason, t.Timestamp}
	})

	m.corrections = tableView{
		cols: []column{{Title: "when", Width: 16}, {Title: "type", Width: 17}, {Title: "trail", Width: 7, Optional: true},
			{Title: "picked up", Width: 12, Optional: true}, {Title: "description", MinWidth: 16}},
		empty: "no corrections: redirects made with r, a, d, o, c, e, b appear here",
		cell: func(r, c int) string {
			x := m.st.Corrections[r]
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
				short, _ := m.pickedUp(x)
				return short
			}
			return firstLine(x.Description)
		},
		preview: func(r, w int) []string {
			x := m.st.Corrections[r]
			head := fmt.Sprintf("%s  %s  %s", termtext.Line(string(x.Type)), termtext.Line(x.Timestamp), relTime(x.Timestamp, m.now))
			out := []string{m.styles.Muted.Render(head)}
			if _, long := m.pickedUp(x); long != "" {
				out = append(out, long)
			}
			return append(out, wrap(x.Description, w)...)
		},
	}
	m.corrections.match = match(func(r int) []string {
		x := m.st.Corrections[r]
		return []string{string(x.Type), x.Description, x.Timestamp}
	})
}

// atomTitle is an atom's status glyph and description, for previews.
func (m *Model) atomTitle(id string) string {
	i, ok := m.facts.Index[id]
	if !ok {
		return m.styles.Muted.Render("(not an atom)")
	}
	a := m.st.Atoms[i]
	return m.styles.Atom(a.Status).Render(AtomGlyph(a.Status)) + " " + termtext.Line(a.Description)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func truncate(s string, w int) string { return ansi.Truncate(s, max0(w), "…") }

// pickedUp says whether the loop has acted on a correction applied from
// this session: acknowledged once the iteration advances past the one it
// was applied at. Corrections from elsewhere have no record ("").
func (m *Model) pickedUp(c model.Correction) (short, long string) {
	at, ok := m.redirect.applied[correctionKey(c)]
	if !ok {
		return "", ""
	}
	since := m.st.Control.Iteration - at
	if since <= 0 {
		return "waiting", fmt.Sprintf("applied at iteration %d · the loop has not run an iteration since", at)
	}
	return fmt.Sprintf("✓ +%d it.", since), fmt.Sprintf("applied at iteration %d · loop has run %d iteration%s since", at, since, plural(since))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
