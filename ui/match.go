package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// n and N: where / filters by showing only what matches (the graph's
// list, the tables, the objective and prompt views), every row or line in
// sight is a match, so stepping to the next match is stepping to the next
// of them, wrapping around at either end: the selection in the graph's
// list and the tables (the details and the preview follow it), a marked
// line in the text views. The footer says "match 3 of 7".

// matcher is what n and N step through in a view.
type matcher interface {
	// matches is how many there are.
	matches() int
	// stepMatch moves d matches on (wrapping) and says which one it is on
	// now, from 0.
	stepMatch(d int) int
}

// matcher is the view of h's place that n and N step through (nil where
// there is none).
func (h here) matcher() matcher {
	m, _ := h.loopView().(matcher)
	return m
}

// matchWhy says when n and N have nothing to step through.
func matchWhy(h here) string {
	f := h.l.filters[h.l.view]
	switch mt := h.matcher(); {
	case f == "":
		return fmt.Sprintf("%s and %s step through the matches of a filter: %s sets one",
			h.m.keys.NextMatch.Help().Key, h.m.keys.PrevMatch.Help().Key, h.m.keys.Filter.Help().Key)
	case mt == nil || mt.matches() == 0:
		return fmt.Sprintf("nothing matches %q", termtext.Line(f))
	}
	return ""
}

// runMatch steps to the next match (n) or the previous one (N).
func runMatch(h here, msg tea.KeyPressMsg) kit.Action {
	d := 1
	if key.Matches(msg, h.m.keys.PrevMatch) {
		d = -1
	}
	mt := h.matcher()
	var k int
	if h.p.Has(inGraph) {
		h.onGraph(func() { k = mt.stepMatch(d) })
	} else {
		if t, ok := mt.(*scrollText); ok {
			t.markStyle = h.m.styles.Selected
		}
		k = mt.stepMatch(d)
	}
	h.m.setStatus(fmt.Sprintf("match %d of %d", k+1, mt.matches()), statusShort)
	return kit.Action{}
}

// wrapStep is k moved d on among n, wrapping; from -1 (none yet) n goes
// to the first and N to the last.
func wrapStep(k, d, n int) int {
	if k < 0 && d < 0 {
		k = 0
	}
	return ((k+d)%n + n) % n
}

func (g *graphView) matches() int { return len(g.visible) }

func (g *graphView) stepMatch(d int) int {
	k := wrapStep(g.rowOfSel(), d, len(g.visible))
	g.follow = false
	g.selectRow(k)
	g.scrollToSel()
	return k
}

func (t *tableView) matches() int { return len(t.visible) }

func (t *tableView) stepMatch(d int) int {
	t.sel = wrapStep(t.sel, d, len(t.visible))
	t.clamp()
	return t.sel
}

func (t *scrollText) matches() int {
	if t.none {
		return 0
	}
	return len(t.lines)
}

// stepMatch marks the line d matches on from the marked one; the first
// step goes from just above the top line in sight (n marks it, N the one
// before it).
func (t *scrollText) stepMatch(d int) int {
	n := t.matches()
	k := t.mark - 1
	if t.mark == 0 {
		k = t.top - 1
		if d < 0 {
			k = t.top
		}
	}
	k = ((k+d)%n + n) % n
	t.mark = k + 1
	if k < t.top {
		t.top = k
	}
	if k >= t.top+t.height {
		t.top = k - t.height + 1
	}
	t.clamp()
	return k
}
