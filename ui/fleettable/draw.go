package fleettable

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// cachedLine is a row's drawn line and what it was drawn from: its head
// (every cell but "changed") is kept apart, so that a line whose
// "changed" text alone moved on (on the shared clock, every ClockStep,
// for every row that wrote) costs that cell, not the row.
type cachedLine struct {
	row      fleet.Row
	ago      string
	selected bool
	head     string
	line     string
}

// lineLayout is what every cached line depends on beyond its row (the
// colours too: a new background drops the cache).
type lineLayout struct {
	width, longest int
	noColor        bool
}

// Refresh draws what changed since it last ran into what View shows: the
// rows on screen (from the line cache), the preview, the key hints
// (hints gives them for a number of cells) and when time-dependent text
// among them next reads differently (NextChange). The root calls it after
// every message while the table is on screen, so that View only reads.
func (t *Table) Refresh(ctx kit.Context, hints func(room int) string) {
	now := ctx.Now()
	t.next = time.Time{}
	if t.status.Live(now) {
		t.noteNext(now, t.status.Until.Add(time.Nanosecond))
	}
	if room := t.hintsWidth(); t.hintsRoom != room || t.hints == "" {
		t.hints, t.hintsRoom = cells.Pad(cells.Cut(hints(room), room), room), room
	}
	t.shown = t.shown[:0]
	if t.err != "" {
		t.body = nil
		for _, l := range cells.Wrap("⚠ "+termtext.Line(t.err), max(20, t.width-4)) {
			t.body = append(t.body, cells.Pad(ctx.Styles.Danger.Render("  "+l), t.width))
		}
		return
	}
	t.body = t.drawTable(ctx.Styles, now)
}

// NextChange is when the text Refresh drew next reads differently (zero:
// never): a "changed" column, the status line going.
func (t *Table) NextChange() time.Time { return t.next }

func (t *Table) noteNext(now, at time.Time) {
	if at.After(now) && (t.next.IsZero() || at.Before(t.next)) {
		t.next = at
	}
}

// ago is the "changed" column of r at now, noting when it next changes.
// Every row reads its time at the same whole second (now cut to it), and
// the column is drawn again on one shared clock that ticks on the
// ClockStep grid of the wall clock: however many rows count seconds or
// minutes, each at its own moment, their texts change together, at most
// once every ClockStep — one wake-up and one frame, not one per row, nor
// one a second (each frame costs Bubble Tea a diff of the whole screen:
// issue 26). A text is exact when drawn and at most ClockStep behind
// between ticks; anything else that redraws the table draws it exact.
func (t *Table) ago(r fleet.Row, now time.Time) string {
	if r.Changed.IsZero() {
		return "—"
	}
	sec := now.Truncate(time.Second)
	t.noteNext(now, ceilStep(textfmt.NextAgoChange(r.Changed, sec)))
	return textfmt.Ago(sec.Sub(r.Changed))
}

// ClockStep is the grid of the fleet's shared clock (see ago).
const ClockStep = 5 * time.Second

// ceilStep is the first tick of the shared clock (a multiple of
// ClockStep of the wall clock) at or after at: the tick on which text that
// changes at at is drawn.
func ceilStep(at time.Time) time.Time {
	if s := at.Truncate(ClockStep); !s.Equal(at) {
		return s.Add(ClockStep)
	}
	return at
}

// View draws the fleet screen: a title with the summary, the table with a
// preview of the selected loop (as Refresh drew them), the footer. It
// changes nothing.
func (t *Table) View(ctx kit.Context) string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	s := ctx.Styles
	var summary string
	switch {
	case t.err != "":
		summary = s.Danger.Render("scan failed")
	case !t.ready && len(t.rows) == 0:
		summary = s.Muted.Render("scanning…")
	default:
		summary = t.SummaryText(s)
	}
	// A narrow pane keeps the summary whole and shortens the name.
	title := summary
	for _, name := range []string{"aot-tui fleet", "fleet"} {
		if len(name)+3+lipgloss.Width(summary) <= t.width {
			title = s.Title.Render(name) + s.Muted.Render(" │ ") + summary
			break
		}
	}
	if t.where != "" && lipgloss.Width(title)+8 <= t.width { // where, if some of it fits
		title += s.Muted.Render(fmt.Sprintf(" │ %s · depth %d", termtext.Line(t.where), t.cfg.Options.Depth))
	}
	if hs := t.hostsText(s); hs != "" {
		title += s.Muted.Render(" │ ") + hs
	}
	lines := append([]string{cells.Pad(cells.Cut(title, t.width), t.width)}, t.body...)
	blank := strings.Repeat(" ", t.width)
	for len(lines) < t.height-1 {
		lines = append(lines, blank)
	}
	lines = append(lines[:max(1, t.height-1)], cells.Pad(t.footer(ctx), t.width))
	return strings.Join(lines[:t.height], "\n")
}

// SummaryText is the summary, coloured: attention in the danger colour
// when there is any.
func (t *Table) SummaryText(s kit.Styles) string {
	sum := t.sum
	parts := []string{s.Bold.Render(textfmt.Plural(sum.Loops, "loop")),
		s.Loop(model.LoopRunning).Render(fmt.Sprintf("%d running", sum.Running))}
	if sum.NeedsAttention > 0 {
		verb := "need"
		if sum.NeedsAttention == 1 {
			verb = "needs"
		}
		parts = append(parts, s.Danger.Bold(true).Render(fmt.Sprintf("%d %s attention", sum.NeedsAttention, verb)))
	}
	if sum.Completed > 0 {
		parts = append(parts, s.Loop(model.LoopCompleted).Render(fmt.Sprintf("%d completed", sum.Completed)))
	}
	return strings.Join(parts, s.Muted.Render(" · "))
}

// drawTable draws the header, the visible rows and the preview in exactly
// the table's height, each line the pane's width.
func (t *Table) drawTable(s kit.Styles, now time.Time) []string {
	c, w := &t.cur, t.width
	cols := fleetColumns(w, t.longest, t.cfg.Options.Activity != nil, t.hostWidth())
	var head []string
	for _, col := range cols {
		head = append(head, cells.Pad(col.title, col.width))
	}
	// "changed" is the last column, when it is there at all (a narrow
	// pane drops it, and then the time changes nothing on screen).
	headCols, agoWidth := cols, 0
	if n := len(cols); n > 0 && cols[n-1].id == "changed" {
		headCols, agoWidth = cols[:n-1], cols[n-1].width
	}
	headWidth := max(0, len(headCols)-1)
	for _, c := range headCols {
		headWidth += c.width
	}
	lines := []string{cells.Pad(s.Muted.Bold(true).Render(strings.Join(head, " ")), w)}
	h := c.bodyHeight()
	if len(c.visible) == 0 {
		msg := "no loops found yet — a .claude/aot-loop-state.md or .claude/autonomous-loop.json appears here as soon as it is created"
		if c.filter != "" {
			msg = fmt.Sprintf("nothing matches %q — esc clears the filter", termtext.Line(c.filter))
		} else if !t.ready {
			msg = "scanning…"
		}
		for _, l := range cells.Wrap(msg, max(20, w-2)) {
			lines = append(lines, cells.Pad(s.Muted.Render(l), w))
		}
	}
	if layout := (lineLayout{w, t.longest, s.NoColor}); layout != t.linesFor || t.lines == nil {
		t.lines, t.linesFor, t.agoCells = map[string]cachedLine{}, layout, map[string]string{}
	}
	// The "changed" cells drawn, by their text: fifty rows counting
	// seconds share a few dozen of them.
	agoCell := func(text string) string {
		c, ok := t.agoCells[text]
		if !ok {
			if len(t.agoCells) > 512 {
				clear(t.agoCells)
			}
			c = s.Muted.Render(text)
			t.agoCells[text] = c
		}
		return c
	}
	for k := c.top; k < len(c.visible) && k < c.top+h; k++ {
		r := t.rows[c.visible[k]]
		t.shown = append(t.shown, r.Key())
		cl := cachedLine{row: r, selected: k == c.sel}
		if agoWidth > 0 {
			cl.ago = t.ago(r, now)
		}
		old, ok := t.lines[r.Key()]
		switch {
		case ok && old.row == cl.row && old.selected == cl.selected && old.ago == cl.ago:
			lines = append(lines, old.line)
			continue
		case ok && old.row == cl.row && old.selected == cl.selected:
			cl.head = old.head
		default:
			cl.head = rowHead(s, r, headCols, cl.selected)
		}
		cl.line = rowLine(s, cl.head, headWidth, cl.ago, agoWidth, w, cl.selected, agoCell)
		t.lines[r.Key()] = cl
		lines = append(lines, cl.line)
	}
	blank := strings.Repeat(" ", w)
	for len(lines) < 1+h {
		lines = append(lines, blank)
	}
	lines = lines[:1+h]
	if ph := c.previewHeight(); ph > 0 {
		lines = append(lines, s.Border.Render(strings.Repeat("─", w)))
		var pv []string
		if r, ok := t.Selected(); ok {
			pv = preview(s, r, t.polled(r), w, ph-1)
		}
		for k := 0; k < ph-1; k++ {
			l := blank
			if k < len(pv) {
				l = cells.Pad(pv[k], w)
			}
			lines = append(lines, l)
		}
	}
	return lines
}

// polled says why r's loop is followed by the stat poll alone ("" when
// its .claude directory is watched), or how the link to its host stands
// when that is not live.
func (t *Table) polled(r fleet.Row) string {
	if r.Host != "" {
		return t.hostNote(r.Host)
	}
	if t.watch == nil {
		return ""
	}
	if rep := t.watch(); rep.IsPolled(r.Path) {
		return "⟳ " + rep.PolledWhy()
	}
	return ""
}

// filterWords is the footer's right part: the filter and how many rows
// pass it, and where the rows on screen are when they do not all show
// ("" without either).
func (t *Table) filterWords() string {
	mark := cells.ScrollMark(len(t.cur.visible), t.cur.top, t.cur.bodyHeight())
	if t.cur.filter == "" {
		return mark
	}
	return strings.TrimSpace(fmt.Sprintf("filter: %s (%d of %d) %s", termtext.Line(t.cur.filter), len(t.cur.visible), len(t.rows), mark))
}

// hintsWidth is the room the footer leaves the key hints or the status.
func (t *Table) hintsWidth() int { return t.width - lipgloss.Width(t.filterWords()) - 1 }

// footer is the filter being typed, else the status line (or the key
// hints) and the filter.
func (t *Table) footer(ctx kit.Context) string {
	s := ctx.Styles
	if t.filtering {
		return t.input.View()
	}
	right, room := t.filterWords(), t.hintsWidth()
	if right != "" {
		right = s.Accent.Render(right)
	}
	if st := t.Status(ctx.Now()); st.Text != "" {
		return cells.Pad(cells.Cut(s.Status(st.Level).Render(st.Line()), room), room) + " " + right
	}
	return t.hints + " " + right
}
