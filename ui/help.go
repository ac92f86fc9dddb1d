package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
)

// shortHelp is the footer's key hints for the current view.
func (m *Model) shortHelp(room int) string {
	l := m.cur
	s := m.styles
	var parts []string
	for _, b := range m.viewKeys().ShortHelp() {
		h := b.Help()
		st := s.Key
		desc := s.Muted
		if l.readOnly && isWriteBinding(m.keys, b) {
			st, desc = s.Muted, s.Muted.Strikethrough(!s.NoColor)
		}
		parts = append(parts, st.Render(h.Key)+" "+desc.Render(h.Desc))
	}
	out := ""
	for _, p := range parts {
		next := out
		if next != "" {
			next += "  "
		}
		next += p
		if lipgloss.Width(next) > room && out != "" {
			break
		}
		out = next
	}
	return out
}

// renderHelp draws the help screen for the current view; write keys are
// greyed out when the TUI is read-only.
func (m *Model) renderHelp() string {
	l := m.cur
	s := m.styles
	title := "help — " + viewNames[l.view]
	if l.phase != nil {
		title = "help — phase loop"
	}
	if m.fleetShown() {
		title = "help — fleet table"
	}
	// Each group is a block; blocks flow into as many columns as fit.
	var blocks [][]string
	for _, g := range m.viewKeys().groups() {
		head := g.Title
		if g.Write && l.readOnly {
			head += " (read-only: " + l.readOnlyWhy + ")"
		}
		block := []string{s.Bold.Render(head)}
		for _, b := range g.Keys {
			h := b.Help()
			ks, ds := s.Key, s.Base
			if g.Write && l.readOnly {
				ks, ds = s.Muted, s.Muted
			}
			block = append(block, "  "+ks.Render(padTo(h.Key, 10))+" "+ds.Render(h.Desc))
		}
		blocks = append(blocks, block)
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
	lines := []string{s.Title.Render(title), ""}
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
	if l.view == viewGraph && l.phase == nil && !m.fleetShown() {
		k := m.keys
		note := fmt.Sprintf("%s/%s scroll the details pane · %s/%s and %s/%s pan the drawing · mouse wheel scrolls · %s–%s switch views",
			k.DetailsDown.Help().Key, k.DetailsUp.Help().Key, k.PageUp.Help().Key, k.PageDown.Help().Key,
			k.PanLeft.Help().Key, k.PanRight.Help().Key, k.Views[0].Help().Key, k.Views[5].Help().Key)
		for _, line := range wrap(note, max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(line))
		}
	}
	if note := m.fleetWatchNote(); note != "" && m.fleetShown() {
		for _, line := range wrap(note, max(20, m.width-1)) {
			lines = append(lines, s.Muted.Render(line))
		}
	}
	lines = append(lines, s.Muted.Render(m.keys.Help.Help().Key+" or "+m.keys.Back.Help().Key+" closes this help · j/k scroll"))
	m.helpText.set(lines)
	out := strings.Split(m.helpText.view(), "\n")
	for len(out) < m.height {
		out = append(out, "")
	}
	for i := range out {
		out[i] = padTo(out[i], m.width)
	}
	return strings.Join(out[:m.height], "\n")
}
