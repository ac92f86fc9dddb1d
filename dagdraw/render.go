package dagdraw

import "strings"

// Styler maps a class to what goes before and after a run of cells of that
// class: ANSI SGR sequences from the UI's theme, markup in tests, nothing
// for NO_COLOR.
type Styler interface {
	Style(Class) (prefix, suffix string)
}

// StyleFunc adapts a function to Styler.
type StyleFunc func(Class) (prefix, suffix string)

// Style calls f.
func (f StyleFunc) Style(c Class) (string, string) { return f(c) }

// Plain renders the canvas as text, one line per row with trailing blanks
// removed: what golden tests compare.
func (c *Canvas) Plain() string {
	var b strings.Builder
	for y := 0; y < c.H; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(c.line(y, nil), " "))
	}
	return b.String()
}

// Lines renders each row with runs of one class wrapped by s's prefix and
// suffix. A nil Styler gives plain rows (trailing blanks kept, so every row
// is exactly W cells wide).
func (c *Canvas) Lines(s Styler) []string {
	out := make([]string, c.H)
	for y := range out {
		out[y] = c.line(y, s)
	}
	return out
}

// Render is Lines joined by newlines.
func (c *Canvas) Render(s Styler) string { return strings.Join(c.Lines(s), "\n") }

func (c *Canvas) line(y int, s Styler) string {
	var b strings.Builder
	row := c.Row(y)
	cur := Class(255)
	suffix := ""
	for _, cell := range row {
		if cell.Width == 0 {
			continue
		}
		if s != nil && cell.Class != cur {
			b.WriteString(suffix)
			var pre string
			pre, suffix = s.Style(cell.Class)
			b.WriteString(pre)
			cur = cell.Class
		}
		switch {
		case cell.Cluster != "":
			b.WriteString(cell.Cluster)
		case cell.Rune == 0:
			b.WriteByte(' ')
		default:
			b.WriteRune(cell.Rune)
		}
	}
	b.WriteString(suffix)
	return b.String()
}
