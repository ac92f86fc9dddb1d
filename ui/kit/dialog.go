package kit

import tea "charm.land/bubbletea/v2"

// Dialog is a box over a view that takes the keys while it is open: it
// draws itself into the size it is given and answers every message with
// an Action, never by reaching into the root.
type Dialog interface {
	// Title is the box's title.
	Title() string
	// Width is the box's width (its frame included) in a pane of the
	// given size.
	Width(ctx Context, paneW, paneH int) int
	// Draw is the box's content for an inner width w and at most h lines.
	Draw(ctx Context, w, h int) []string
	// Update handles a message meant for the dialog.
	Update(ctx Context, msg tea.Msg) Action
}

// DialogWidth is a box's width in a pane paneW columns wide: 90 columns,
// less in narrower panes (never wider than the pane: under 34 columns the
// box takes all of it).
func DialogWidth(paneW int) int {
	if w := min(paneW-4, 90); w >= 30 {
		return w
	}
	return max(10, min(paneW, 30))
}
