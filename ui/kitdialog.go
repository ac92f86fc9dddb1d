package ui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// kitDialog is a component's kit.Dialog on a loop's dialog stack: it
// draws with the root's context, and the Actions it answers become steps
// for that loop (a status goes to the loop's footer, whatever is on
// screen).
type kitDialog struct {
	d kit.Dialog
	// then is what the root does after each Action of the dialog, beyond
	// the Action (nil: nothing); a dialog that replaces it keeps it.
	then func(l *loop, a kit.Action)
}

// resizer is a kit.Dialog that lays itself out for a pane's size.
type resizer interface {
	Resize(ctx kit.Context, paneW, paneH int)
}

// pager is a kit.Dialog with text to scroll by the move keys.
type pager interface {
	By(n int)
	Page() int
	Home()
	End()
}

// pagerScroll is a pager as the move keys scroll it.
type pagerScroll struct{ p pager }

func (s pagerScroll) by(n int)  { s.p.By(n) }
func (s pagerScroll) page() int { return s.p.Page() }
func (s pagerScroll) home()     { s.p.Home() }
func (s pagerScroll) end()      { s.p.End() }

func (k *kitDialog) title() string      { return k.d.Title() }
func (k *kitDialog) width(m *Model) int { return k.d.Width(m.context(), m.width, m.bodyHeight()) }

func (k *kitDialog) resize(m *Model) {
	if r, ok := k.d.(resizer); ok {
		r.Resize(m.context(), m.width, m.bodyHeight())
	}
}

func (k *kitDialog) lines(m *Model, _ *loop, w, h int) []string {
	return k.d.Draw(m.context(), w, h)
}

// update hands msg to the dialog. A Close or Replace that carries a
// status shows it too, in l's footer.
func (k *kitDialog) update(m *Model, l *loop, msg tea.Msg) step {
	a := k.d.Update(m.context(), msg)
	if k.then != nil {
		k.then(l, a)
	}
	if a.Kind == kit.ShowStatus || a.Status.Text != "" {
		m.post(l, a.Status)
	}
	switch a.Kind {
	case kit.Close:
		return closed(a.Cmd)
	case kit.Replace:
		return replaceWith(&kitDialog{d: a.Dialog, then: k.then}, a.Cmd)
	}
	return stay(a.Cmd)
}
