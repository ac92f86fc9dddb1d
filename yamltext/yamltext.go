// Package yamltext holds the low-level facts about YAML text that reading,
// parsing and editing a state file's frontmatter all need: which
// characters YAML accepts, where yaml.v3 breaks lines, and how its line
// numbers map to the file's. It works on bytes alone and imports nothing
// of aot-tui, so statefile, fastyaml and yamledit can share it.
package yamltext

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// BOM is the UTF-8 byte order mark.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// BadChar returns the offset of the first character YAML does not accept
// (invalid UTF-8, a control character other than tab and the line breaks,
// a surrogate, U+FFFE or U+FFFF), as yaml.v3's reader checks them, or -1;
// and whether b is all ASCII up to there.
func BadChar(b []byte) (bad int, ascii bool) {
	ascii = true
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(b); {
		// Eight ASCII bytes at a time, none of them 0x7F: the bytes below
		// 0x20 among them (a line break in most words of a state file)
		// must each be a tab or a line break. Neither sum carries from one
		// byte into the next: each byte is at most 0x7E.
		if i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if w&hi == 0 && (w+lo)&hi == 0 {
				for ctrl := ^(w + 0x60*lo) & hi; ctrl != 0; ctrl &= ctrl - 1 {
					k := i + bits.TrailingZeros64(ctrl)/8
					if c := b[k]; c != '\t' && c != '\n' && c != '\r' {
						return k, ascii
					}
				}
				i += 8
				continue
			}
		}
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
				return i, ascii
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i, ascii
		}
		switch {
		case r == 0x85, r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return i, ascii
		}
		ascii = false
		i += n
	}
	return -1, ascii
}

// BreakLen is the length of the line break at b[i], or 0. yaml.v3 breaks
// lines at \n, \r\n, a lone \r, NEL (U+0085), LS (U+2028) and PS (U+2029).
func BreakLen(b []byte, i int) int {
	switch c := b[i]; {
	case c == '\n':
		return 1
	case c == '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xC2 && i+1 < len(b) && b[i+1] == 0x85:
		return 2
	case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
		return 3
	}
	return 0
}

// SimpleBreaks reports whether every line break in b is \n or \r\n (no
// lone CR, NEL, LS or PS), so that yaml.v3 counts b's lines as editors
// do. It is how most files are, and checking takes a few fast scans.
// ascii says b is known to be all ASCII, which rules out NEL, LS and PS.
func SimpleBreaks(b []byte, ascii bool) bool {
	if !ascii && (bytes.Contains(b, []byte("\u0085")) || bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029"))) {
		return false
	}
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		if i+1 >= len(b) || b[i+1] != '\n' {
			return false
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// LineBounds returns the end of the line starting at pos (the index of its
// '\n', or len(data)) and the start of the next line.
func LineBounds(data []byte, pos int) (end, next int) {
	i := bytes.IndexByte(data[pos:], '\n')
	if i < 0 {
		return len(data), len(data)
	}
	return pos + i, pos + i + 1
}

// LineMap converts yaml.v3's line numbers into the file's. yaml.v3 also
// breaks lines at a lone CR, NEL (U+0085), LS (U+2028) and PS (U+2029),
// which editors and the rest of aot-tui do not count: one LS in a quoted
// description would shift every later line by one.
type LineMap struct {
	// off is what to add to a frontmatter line to get the file line.
	off int
	// lines[k] is the frontmatter line (counting \n only) on which
	// yaml.v3's line k+1 starts; nil when the two counts agree.
	lines []int
}

// NewLineMap maps the lines of the YAML text yml, whose first line is
// line off+1 of the file.
func NewLineMap(yml []byte, off int) LineMap {
	if SimpleBreaks(yml, false) {
		return LineMap{off: off}
	}
	var lines []int
	yl, fl := 1, 1
	for i := 0; i < len(yml); i++ {
		n := BreakLen(yml, i)
		if n == 0 {
			continue
		}
		fileBreak := yml[i+n-1] == '\n' // \n or \r\n
		i += n - 1
		yl++
		if fileBreak {
			fl++
		}
		if lines == nil && yl != fl {
			// The counts agreed up to here: lines 1..yl-1 are the same.
			lines = make([]int, yl-1, yl+16)
			for k := range lines {
				lines[k] = k + 1
			}
		}
		if lines != nil {
			lines = append(lines, fl)
		}
	}
	return LineMap{off: off, lines: lines}
}

// File returns the file line of yaml.v3's line n (0 stays 0: no line).
func (m LineMap) File(n int) int {
	switch {
	case n <= 0:
		return 0
	case m.lines == nil:
		return n + m.off
	case n > len(m.lines):
		return m.lines[len(m.lines)-1] + m.off
	}
	return m.lines[n-1] + m.off
}

// Offset is what to add to a line of the YAML text, counted at \n only,
// to get the file line.
func (m LineMap) Offset() int { return m.off }

// SameLines reports whether yaml.v3 counts the text's lines as the file
// does: its only line breaks are \n and \r\n.
func (m LineMap) SameLines() bool { return m.lines == nil }
