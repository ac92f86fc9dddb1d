// Package termtext makes text from a state file safe to draw: control
// characters and escape sequences are shown escaped, never emitted, so a
// description cannot retitle the terminal, write the clipboard or move the
// cursor.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

// Line returns s for a single-line context: line breaks become "↵", tabs a
// space, and every other control character, escape sequence introducer,
// bidirectional override and invalid byte is shown escaped (\x1b, \u202e).
func Line(s string) string {
	if isPlain(s) {
		return s
	}
	return render(s, false)
}

// Block returns s for a multi-line context: line breaks are kept (CRLF
// becomes LF), tabs become four spaces, everything else as Line.
func Block(s string) string {
	if isPlain(s) {
		return s
	}
	return render(s, true)
}

// isPlain is the fast path: printable ASCII only.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func render(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\n':
			if multiline {
				b.WriteByte('\n')
			} else {
				b.WriteString("↵")
			}
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				continue // CRLF: the \n that follows is the line break
			}
			b.WriteString(`\r`)
		case r == '\t':
			if multiline {
				b.WriteString("    ")
			} else {
				b.WriteByte(' ')
			}
		case r < 0x80 && textsafe.Control(r): // C0 and DEL
			fmt.Fprintf(&b, `\x%02x`, r)
		case textsafe.Unsafe(r): // C1 (CSI 0x9b, OSC 0x9d) and the invisible format characters
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
