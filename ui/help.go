package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// footerKeys are the actions the footer hints at, by place: a choice of
// the most used, each shown only where keyTable says it applies.
func footerKeys(p kit.Scope) []string {
	switch {
	case p.Has(inPalette):
		return []string{"submit", "palette_up", "palette_down", "back", "help", "force_quit"}
	case p.Has(inFleet):
		return []string{"open_loop", "filter", "up", "down", "help", "quit"}
	case p.Has(inPhase | inWaiting):
		return []string{"up", "down", "help", "quit"}
	case p.Has(inGraphs):
		return []string{"details", "filter", "redirect", "help", "quit", "follow", "add_atom", "stop", "next_view"}
	}
	return []string{"filter", "redirect", "help", "quit", "up", "down", "next_view"}
}

// shortHelp is the footer's key hints for the view on screen (or the
// command palette over it, whose keys are the ones that act); a key that
// is disabled there (read-only) is greyed.
func (m *Model) shortHelp(room int) string {
	s := m.styles
	p := m.viewPlace()
	if m.place().Has(inPalette) {
		p = inPalette
	}
	h := here{m: m, l: m.cur, p: p}
	names := footerKeys(p)
	if p.Has(inViews) && len(m.cur.report.Problems) > 0 {
		names = append([]string{"problems"}, names...) // the header's badge says there are some
	}
	var parts []string
	for _, name := range names {
		b := bindingNamed(name)
		if !b.Applies(p) {
			continue
		}
		st, desc := s.Key, s.Muted
		if b.Why(h) != "" {
			st, desc = s.Muted, s.Muted.Strikethrough(!s.NoColor)
		}
		help := b.Help
		if p == inPalette {
			_, help = b.HelpIn(p) // enter runs, esc closes: no default says so
		}
		parts = append(parts, st.Render(b.keys(&m.keys).Help().Key)+" "+desc.Render(help))
	}
	// The width of the parts joined is the sum of theirs and the gaps'
	// (one line each, joined by spaces): each is measured once.
	out, w := "", 0
	for _, p := range parts {
		next, nw := out, w+lipgloss.Width(p)
		if next != "" {
			next += "  "
			nw += 2
		}
		next += p
		if nw > room && out != "" {
			break
		}
		out, w = next, nw
	}
	return out
}

// helpRow is a key on the help screen: its label, what it does there,
// and why it is disabled ("" when it is not).
type helpRow struct{ key, desc, why string }

// helpGroup is one titled column of the help screen.
type helpGroup struct {
	title string
	rows  []helpRow
}

// helpGroups are the help screen's columns for place p: every binding of
// keyTable that applies there, in its group.
func (m *Model) helpGroups(p kit.Scope) []helpGroup {
	h := here{m: m, l: m.cur, p: p}
	rows := map[string][]helpRow{}
	for i := range keyTable {
		b := &keyTable[i]
		if !b.Applies(p) {
			continue
		}
		g, desc := b.HelpIn(p)
		rows[g] = append(rows[g], helpRow{key: b.keys(&m.keys).Help().Key, desc: desc, why: b.Why(h)})
	}
	var out []helpGroup
	for _, g := range groupOrder {
		if len(rows[g]) > 0 {
			out = append(out, helpGroup{title: g, rows: rows[g]})
		}
	}
	return out
}

// helpScreenHint is the help screen's own keys, from keyTable: "? esc q
// close this help · ↑/k ↓/j … scroll · ctrl+c quit from anywhere".
func (m *Model) helpScreenHint() string {
	var order []string
	labels := map[string][]string{}
	for i := range keyTable {
		b := &keyTable[i]
		if !b.Applies(inHelp) {
			continue
		}
		g, desc := b.HelpIn(inHelp)
		if g == "move" {
			desc = "scroll"
		}
		if labels[desc] == nil {
			order = append(order, desc)
		}
		labels[desc] = append(labels[desc], b.keys(&m.keys).Help().Key)
	}
	var parts []string
	for _, desc := range order {
		parts = append(parts, strings.Join(labels[desc], " ")+" "+desc)
	}
	return strings.Join(parts, " · ")
}

// renderHelp draws the help screen of the place it was opened on;
// disabled keys are greyed, with why below, then the legend of what the
// place shows (legend.go). When it does not fit, its last line says so
// and how to scroll.
func (m *Model) renderHelp() string {
	s := m.styles
	p := m.helpOf
	// Each group is a block; blocks flow into as many columns as fit.
	var blocks [][]string
	var reasons []string
	keysOf := map[string][]string{}
	for _, g := range m.helpGroups(p) {
		block := []string{s.Bold.Render(g.title)}
		for _, r := range g.rows {
			ks, ds := s.Key, s.Base
			if r.why != "" {
				ks, ds = s.Muted, s.Muted
				if keysOf[r.why] == nil {
					reasons = append(reasons, r.why)
				}
				keysOf[r.why] = append(keysOf[r.why], r.key)
			}
			block = append(block, "  "+ks.Render(padTo(r.key, 10))+" "+ds.Render(r.desc))
		}
		blocks = append(blocks, block)
	}
	if legend := m.legendBlock(p); legend != nil {
		blocks = append(blocks, legend)
	}
	const colW = 36
	ncols := max(1, min(len(blocks), m.width/colW))
	cols := make([][]string, ncols)
	for _, b := range blocks {
		// The shortest column takes the next block.
		c := 0
		for k := range cols {
			if len(cols[k]) < len(cols[c]) {
				c = k
			}
		}
		if len(cols[c]) > 0 {
			cols[c] = append(cols[c], "")
		}
		cols[c] = append(cols[c], b...)
	}
	lines := []string{s.Title.Render("help — " + m.placeTitle(p)), ""}
	for r := 0; ; r++ {
		more := false
		row := ""
		for c := range cols {
			cell := ""
			if r < len(cols[c]) {
				cell, more = cols[c][r], true
			}
			if ncols > 1 && c < ncols-1 {
				cell = padTo(truncate(cell, colW-1), colW)
			}
			row += cell
		}
		if !more {
			break
		}
		lines = append(lines, row)
	}
	lines = append(lines, "")
	// Why the greyed keys cannot act here now.
	for _, why := range reasons {
		for _, line := range wrap("greyed "+strings.Join(keysOf[why], " ")+": "+why, max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(line))
		}
	}
	if p.Has(inPalette) {
		for _, line := range wrap(paletteNote, max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(line))
		}
	}
	for _, note := range m.fleetNotes(p) {
		for _, line := range wrap(note, max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(line))
		}
	}
	for _, line := range wrap(m.helpScreenHint(), max(20, m.width-1)) {
		lines = append(lines, s.Muted.Render(line))
	}
	m.helpText.set(lines)
	m.helpText.clamp()
	out := strings.Split(m.helpText.view(), "\n")
	if more := m.moreHint(&m.helpText); more != "" {
		out = append(out, s.Muted.Render(more))
	}
	for len(out) < m.height {
		out = append(out, "")
	}
	for i := range out {
		out[i] = padTo(out[i], m.width)
	}
	return strings.Join(out[:m.height], "\n")
}

// paletteNote is the palette's help screen's word on what is typed into
// it, which no binding says.
const paletteNote = "Any other key is typed: the palette lists the actions whose name, help or group holds every word typed " +
	"(in any order, ignoring case), and the atoms whose id starts with it; an atom whose id is typed comes first, " +
	"and enter on no match looks for the id as typed."

// fleetNotes are the help screen's lines on how the fleet table watches
// the loops and what its cost column is, in its place p (none elsewhere;
// each only once there is something to say).
func (m *Model) fleetNotes(p kit.Scope) []string {
	if !p.Has(inFleet) {
		return nil
	}
	var out []string
	for _, n := range []string{m.fleet.WatchNote(), m.fleet.CostNote()} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}
