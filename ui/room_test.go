package ui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// With room to spare (200×60), the drawing shows every atom's description
// whole, wrapped at words where a box is narrower than it: top-down,
// left-right, with a decomposition collapsed and with resolved history
// collapsed.
func TestDrawingShowsWholeDescriptionsWhenThereIsRoom(t *testing.T) {
	path := demoState(t)
	for _, keys := range [][]string{nil, {"t"}, {":", "A", "3", "enter", "space"}, {"z"}} {
		m := modelOn(t, path, 200, 60, false)
		press(m, keys...)
		out := screen(m)
		// Box-drawing characters are not text: a word ends at a border.
		words := strings.Fields(strings.Map(func(r rune) rune {
			if r >= 0x2500 && r <= 0x257f {
				return ' '
			}
			return r
		}, leftOfDetails(m, out)))
		seen := map[string]bool{}
		for _, w := range words {
			seen[w] = true
		}
		for _, r := range m.cur.graph.lay.gv.Layout().IDs() {
			i, ok := m.cur.facts.Index[r]
			if !ok || len(m.cur.facts.ChildrenOf[r]) > 0 {
				continue // a summary, or a frame (its title is on its border)
			}
			for _, w := range strings.Fields(m.cur.st.Atoms[i].Description) {
				if !seen[w] {
					t.Errorf("keys %v: %s's %q is not shown whole:\n%s", keys, r, w, out)
				}
			}
		}
	}
}

// leftOfDetails is the screen's body left of the details pane.
func leftOfDetails(m *Model, out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		rs := []rune(l)
		if m.wide && len(rs) > m.cur.graph.width {
			rs = rs[:m.cur.graph.width]
		}
		b.WriteString(string(rs))
		b.WriteByte('\n')
	}
	return b.String()
}

// In left-right, the column of boxes at the pane's left edge shows each
// box's status glyph before its id: the view is not left with half a
// column cut off.
func TestLeftRightShowsTheLeftColumnsGlyphs(t *testing.T) {
	path := demoState(t)
	id := regexp.MustCompile(`A\d+\b`)
	for _, sz := range []struct{ w, h int }{{60, 20}, {80, 24}, {120, 40}} {
		m := modelOn(t, path, sz.w, sz.h, false)
		if !m.cur.graph.isLayered() {
			press(m, "v")
		}
		press(m, "t")
		for _, l := range strings.Split(leftOfDetails(m, screen(m)), "\n")[4 : 4+m.bodyHeight()-1] {
			for _, at := range id.FindAllStringIndex(l, -1) {
				before := []rune(l[:at[0]])
				if n := len(before); n < 2 || before[n-1] != ' ' || !strings.ContainsRune("○◐●?→", before[n-2]) {
					t.Errorf("%dx%d: an id without its status glyph: %q", sz.w, sz.h, l)
				}
			}
		}
	}
}

// The list keeps a description whole and leaves out the hints that do not
// fit after it (the details list them all).
func TestListKeepsDescriptionsWhole(t *testing.T) {
	m := modelOn(t, demoState(t), 60, 20, false)
	out := screen(m)
	for _, want := range []string{"◐ A5 Server-side sessions in Redis  ← A2", "◐ A9 Credential check against the user store  ← A1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the list should show %q:\n%s", want, out)
		}
	}
}

// Every list or text that scrolls says where it is, in the footer: the
// graph's list, a table, the objective, the details.
func TestScrollingListsSaySo(t *testing.T) {
	m := modelOn(t, generated(t, 300), 60, 20, false)
	footer := func() string {
		lines := strings.Split(screen(m), "\n")
		return lines[len(lines)-1]
	}
	rows := m.cur.graph.height
	press(m, "g")
	if want := "↓ 1–" + itoa(rows) + " of 300"; !strings.Contains(footer(), want) {
		t.Errorf("the list at its top: footer %q, want %q", footer(), want)
	}
	press(m, "G")
	if want := "↑ " + itoa(301-rows) + "–300 of 300"; !strings.Contains(footer(), want) {
		t.Errorf("the list at its end: footer %q, want %q", footer(), want)
	}
	press(m, "2")
	b := &m.cur.bindings
	if want := "↓ 1–" + itoa(b.bodyHeight()) + " of " + itoa(len(b.visible)); !strings.Contains(footer(), want) {
		t.Errorf("the bindings: footer %q, want %q", footer(), want)
	}
	press(m, "j", "j", "pgdown")
	if !strings.Contains(footer(), "↕ ") {
		t.Errorf("the bindings scrolled into the middle: footer %q", footer())
	}
	press(m, "5")
	if !strings.Contains(footer(), "↓ 1–") {
		t.Errorf("the objective at 60×20: footer %q", footer())
	}
	m = loadedModel(t, "rich.md", 60, 20)
	press(m, "g", "j", "j", "j", "j", "j", "enter") // A6's details: 18 lines
	if !strings.Contains(footer(), "↓ 1–15 of 18") {
		t.Errorf("the details at 60×20: footer %q", footer())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The details wrap a related atom's description under its first word
// instead of cutting it.
func TestDetailsWrapRelatedAtoms(t *testing.T) {
	m := loadedModel(t, "rich.md", 60, 20)
	press(m, "g", "j", "j", "j", "j", "j", "enter") // A6's details
	out := screen(m)
	if !strings.Contains(out, `✗ ○ A6 Audit log storage in S3 \x1b]0;pwned\x07 with`) || !strings.Contains(out, "         "+`\x1b[31mred\x1b[0m text`) {
		t.Fatalf("A6's description should wrap under its first word:\n%s", out)
	}
}
