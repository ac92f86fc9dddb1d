// Package jsonstream writes the JSON aot-tui prints: Encode for a value
// (json.Encoder with HTML escaping off, then json.Indent with two spaces),
// Writer element by element for output too large to build as values first
// (aot-tui status --json at 10,000 atoms), the same bytes. Both write the
// characters internal/textsafe calls unsafe as \u escapes — C0 and C1
// controls, DEL, the bidirectional controls, U+2028/2029 — so that no JSON
// aot-tui writes carries one raw into the terminal or viewer that shows it
// (encoding/json alone leaves DEL, C1 and the bidi controls raw).
package jsonstream

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

// New returns a Writer writing to w through a buffer; End flushes it.
func New(w io.Writer) *Writer { return &Writer{w: w, out: make([]byte, 0, flushAt+4<<10)} }

// flushAt is how much of the output the Writer holds before it writes
// it to w: the elements are appended to a slice (a bufio.Writer's method
// per byte and string was half the time of the atoms of status --json).
const flushAt = 64 << 10

// End ends the document with a line break and flushes the buffer. It
// returns the first error writing to w met (after which nothing more was
// written).
func (j *Writer) End() error {
	j.out = append(j.out, '\n')
	j.flush()
	return j.err
}

// flush writes what the Writer holds to w.
func (j *Writer) flush() {
	if j.err == nil && len(j.out) > 0 {
		_, j.err = j.w.Write(j.out)
	}
	j.out = j.out[:0]
}

// Writer writes JSON as json.Encoder (HTML not escaped) and then
// json.Indent(dst, src, "", "  ") would: two spaces a level, "key": value,
// empty arrays and objects as [] and {}.
type Writer struct {
	w         io.Writer
	out       []byte // what is not yet written to w
	err       error  // the first error writing to w
	depth     int
	empty     bool // the container just opened has no element yet
	valueNext bool // a key was written: its value follows on the same line
}

// elem starts an element: a new line, after a comma unless it is the
// first, or nothing for the value of a key.
func (j *Writer) elem() {
	if len(j.out) >= flushAt {
		j.flush()
	}
	if j.valueNext {
		j.valueNext = false
		return
	}
	if j.depth == 0 {
		return
	}
	if j.empty {
		j.empty = false
	} else {
		j.out = append(j.out, ',')
	}
	j.newline()
}

func (j *Writer) newline() {
	if n := 1 + 2*j.depth; n <= len(indents) {
		j.out = append(j.out, indents[:n]...)
		return
	}
	j.out = append(j.out, '\n')
	for range j.depth {
		j.out = append(j.out, "  "...)
	}
}

// indents is a line break and the indentation of the first levels: one
// write for each line instead of one for each level.
var indents = "\n" + strings.Repeat("  ", 16)

// Open starts an array or object: c is [ or {.
func (j *Writer) Open(c byte) {
	j.elem()
	j.out = append(j.out, c)
	j.depth++
	j.empty = true
}

// Close ends the array or object Open started: c is ] or }.
func (j *Writer) Close(c byte) {
	j.depth--
	if j.empty {
		j.empty = false
	} else {
		j.newline()
	}
	j.out = append(j.out, c)
}

// Key writes an object key; its value follows.
func (j *Writer) Key(k string) {
	j.elem()
	j.quote(k)
	j.out = append(j.out, ": "...)
	j.valueNext = true
}

// Str writes a string.
func (j *Writer) Str(s string) {
	j.elem()
	j.quote(s)
}

// Int writes an integer.
func (j *Writer) Int(n int) {
	j.elem()
	j.out = strconv.AppendInt(j.out, int64(n), 10)
}

// Bool writes true or false.
func (j *Writer) Bool(b bool) {
	j.elem()
	if b {
		j.out = append(j.out, "true"...)
	} else {
		j.out = append(j.out, "false"...)
	}
}

// Null writes null.
func (j *Writer) Null() {
	j.elem()
	j.out = append(j.out, "null"...)
}

// Value writes v as Encode would write it at this place: nested values
// indented to the writer's depth, unsafe characters escaped.
func (j *Writer) Value(v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimRight(compact.Bytes(), "\n"), strings.Repeat("  ", j.depth), "  "); err != nil {
		return err
	}
	j.elem()
	j.out = append(j.out, Escape(out.Bytes())...)
	return nil
}

// strs writes a list of strings; nil is null when nilIsNull, else [].
func (j *Writer) Strs(list []string, nilIsNull bool) {
	if list == nil && nilIsNull {
		j.Null()
		return
	}
	j.Open('[')
	for _, s := range list {
		j.Str(s)
	}
	j.Close(']')
}

// quote writes s as a JSON string, escaped as encoding/json escapes it
// with HTML escaping off — quote, backslash and control characters (\b \f
// \n \r \t by name, the others as \u00XX), invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 — and, as Escape then does, DEL, the C1 controls and
// the bidirectional controls as \u escapes (internal/textsafe).
func (j *Writer) quote(s string) {
	if plain(s) {
		// Nothing to escape (most strings): straight into the buffer.
		j.out = append(j.out, '"')
		j.out = append(j.out, s...)
		j.out = append(j.out, '"')
		return
	}
	const hex = "0123456789abcdef"
	b := append(j.out, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if textsafe.Unsafe(r) {
			b = append(b, s[start:i]...)
			b = appendEscape(b, r)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	b = append(b, '"')
	j.out = b
}

// plain reports whether s is printable ASCII without a quote or a
// backslash: written as it is between quotes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
