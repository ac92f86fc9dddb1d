// Package textsafe is the one rule for the characters aot-tui never lets
// through raw — to a terminal (internal/termtext shows them escaped, \x1b and
// \u202e) or into a JSON document (internal/jsonstream writes them as \u
// escapes): the control characters, which drive terminals, and the
// invisible format characters that reorder or hide text on screen (Trojan
// Source), which a JSON document must not carry raw into the terminal,
// log viewer or editor that shows it.
package textsafe

// Control reports the C0 controls (U+0000–U+001F), DEL (U+007F) and the C1
// controls (U+0080–U+009F, among them CSI U+009B, OSC U+009D and ST U+009C,
// which some terminals obey as ESC [, ESC ] and ESC \).
func Control(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// Invisible reports the bidirectional controls — the Arabic letter mark
// (U+061C), the left-to-right and right-to-left marks (U+200E, U+200F),
// the embeddings and overrides (U+202A–U+202E) and the isolates
// (U+2066–U+2069) — and the line and paragraph separators (U+2028,
// U+2029), which some terminals and viewers take for line breaks.
func Invisible(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Unsafe reports the runes that are never written raw: Control or Invisible.
func Unsafe(r rune) bool { return Control(r) || Invisible(r) }
