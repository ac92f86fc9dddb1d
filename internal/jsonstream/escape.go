package jsonstream

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

// Encode writes v as indented JSON, two spaces a level, HTML characters
// as they are, and a line break, with every unsafe character escaped
// (Escape): the one way aot-tui prints a JSON value. It marshals
// compactly and indents into a buffer sized up front: for a 10,000-atom
// status, json.Encoder's own indenting grows and copies its buffers
// several times over.
func Encode(w io.Writer, v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := bytes.NewBuffer(make([]byte, 0, compact.Len()*2))
	if err := json.Indent(out, compact.Bytes(), "", "  "); err != nil {
		return err
	}
	_, err := w.Write(Escape(out.Bytes()))
	return err
}

// Marshal is json.Marshal with every unsafe character escaped (Escape):
// for JSON written one record a line (the journal).
func Marshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Escape(data), nil
}

// Escape rewrites JSON text as encoding/json writes it so that no rune
// internal/textsafe calls unsafe is left raw: DEL, the C1 controls and the
// bidirectional controls become \u escapes (encoding/json already escapes
// the C0 controls and U+2028/2029). Outside strings JSON is ASCII, so every
// such rune is inside a string, where its \u escape means the same
// character: the document decodes to the same values. Bytes that are not
// UTF-8 are left as they are. src is returned itself when nothing needs
// escaping (the common case: one pass over the bytes, nothing allocated).
func Escape(src []byte) []byte {
	i := firstUnsafe(src)
	if i < 0 {
		return src
	}
	out := make([]byte, 0, len(src)+32)
	for i >= 0 {
		r, size := utf8.DecodeRune(src[i:])
		out = append(out, src[:i]...)
		out = appendEscape(out, r)
		src = src[i+size:]
		i = firstUnsafe(src)
	}
	return append(out, src...)
}

// firstUnsafe is the index of the first unsafe rune in b, or -1. Only
// four bytes can start one (leads); every other byte is passed over
// without decoding, continuation bytes included (0x80-0xBF are none of
// the four).
func firstUnsafe(b []byte) int {
	for i := 0; i < len(b); i++ {
		if !leads[b[i]] {
			continue
		}
		if r, size := utf8.DecodeRune(b[i:]); textsafe.Unsafe(r) && !(r == utf8.RuneError && size == 1) {
			return i
		}
	}
	return -1
}

// leads are the first bytes of the UTF-8 encodings of the runes at or above
// DEL that textsafe calls unsafe: DEL itself, C2 (C1 controls), D8
// (U+061C) and E2 (U+200E-U+2069). TestLeadsCoverEveryUnsafeRune checks it.
var leads = [256]bool{0x7f: true, 0xc2: true, 0xd8: true, 0xe2: true}

// appendEscape appends r as \uXXXX (lower-case hex, as encoding/json
// writes \u001b; r is in the Basic Multilingual Plane).
func appendEscape(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
}
