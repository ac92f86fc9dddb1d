package agent

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads the parts of one JSON value that the transcript reader
// needs and skips the rest without decoding it. A transcript line is
// mostly the content of tool results, files and thinking, which no summary
// needs: skipping a string is one bytes.IndexByte per quote, so a line is
// read several times faster than encoding/json could decode it (the
// 200 MB budget of docs/performance.md).
//
// It is tolerant: it never panics, and on what is not JSON it sets bad and
// stops; the caller counts the line as not recognised. What it does
// decode it decodes as encoding/json does (escapes, surrogates, invalid
// UTF-8 as U+FFFD), which FuzzParseLine checks against encoding/json.
type scanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads the object at the scanner, calling member with each key
// (raw, escapes undecoded unless esc) with the scanner at its value.
// member reads the value and returns true, or returns false to have it
// skipped. A value that is not an object is skipped and object is false.
func (s *scanner) object(member func(key []byte) bool) bool {
	if s.peek() != '{' {
		s.skip()
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for !s.bad {
		if s.peek() != '"' {
			s.bad = true
			return false
		}
		raw, esc := s.rawString()
		if s.bad {
			return false
		}
		key := raw
		if esc {
			key = []byte(decodeString(raw, -1))
		}
		if s.peek() != ':' {
			s.bad = true
			return false
		}
		s.i++
		if !member(key) {
			s.skip()
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			s.bad = true
			return false
		}
	}
	return false
}

// array reads the array at the scanner, calling elem with the scanner at
// each element; elem reads it and returns true, or returns false to have
// it skipped. A value that is not an array is skipped and array is false.
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		s.skip()
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for !s.bad {
		if s.peek() == 0 {
			s.bad = true
			return false
		}
		if !elem() {
			s.skip()
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			s.bad = true
			return false
		}
	}
	return false
}

// rawString reads the string at the scanner (which is at its opening
// quote) and returns its bytes between the quotes, escapes undecoded, and
// whether it holds any escape.
func (s *scanner) rawString() (raw []byte, esc bool) {
	start := s.i + 1
	j := start
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.bad = true
			s.i = len(s.b)
			return nil, false
		}
		q := j + k
		n := 0
		for p := q - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = q + 1
			raw = s.b[start:q]
			return raw, bytes.IndexByte(raw, '\\') >= 0
		}
		j = q + 1
	}
}

// str reads a string value, decoded, of at most limit bytes (a cut string
// ends at a rune boundary; limit < 0: all of it). ok is false, and the
// value skipped, when the value is not a string.
func (s *scanner) str(limit int) (v string, ok bool) {
	if s.peek() != '"' {
		s.skip()
		return "", false
	}
	raw, esc := s.rawString()
	if s.bad {
		return "", false
	}
	if !esc && utf8.Valid(raw) {
		if limit >= 0 && len(raw) > limit {
			raw = raw[:limit]
			for len(raw) > 0 && !utf8.Valid(raw) {
				raw = raw[:len(raw)-1]
			}
		}
		return string(raw), true
	}
	return decodeString(raw, limit), true
}

// strHash reads a string value and returns the FNV-1a hash of its decoded
// text and its first limit bytes, without keeping the rest.
func (s *scanner) strHash(limit int) (h uint64, prefix string, ok bool) {
	if s.peek() != '"' {
		s.skip()
		return 0, "", false
	}
	raw, esc := s.rawString()
	if s.bad {
		return 0, "", false
	}
	text := raw
	if esc || !utf8.Valid(raw) {
		text = []byte(decodeString(raw, -1))
	}
	h = fnv64(text)
	if len(text) > limit {
		text = text[:limit]
		for len(text) > 0 && !utf8.Valid(text) {
			text = text[:len(text)-1]
		}
	}
	return h, string(text), true
}

// number reads a number as an int64 (a fraction is cut; out of range is
// clamped); ok is false, and the value skipped, when it is not a number.
func (s *scanner) number() (int64, bool) {
	c := s.peek()
	if c != '-' && (c < '0' || c > '9') {
		s.skip()
		return 0, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	lit := string(s.b[start:s.i])
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f <= math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}

// boolean reads true or false; ok is false, and the value skipped, for
// anything else.
func (s *scanner) boolean() (v, ok bool) {
	s.ws()
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		s.i += 4
		return true, true
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		s.i += 5
		return false, true
	}
	s.skip()
	return false, false
}

// skip passes over the value at the scanner.
func (s *scanner) skip() {
	switch s.peek() {
	case 0:
		s.bad = true
	case '"':
		s.rawString()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.rawString()
				if s.bad {
					return
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
		s.bad = true
	case '}', ']', ',', ':':
		s.bad = true
	default:
		// a number or a literal
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
				if s.i == start {
					s.bad = true
				}
				return
			}
			s.i++
		}
	}
}

// decodeString decodes the escapes of a JSON string's raw bytes as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD),
// stopping at limit bytes of output (limit < 0: all), cut at a rune.
func decodeString(raw []byte, limit int) string {
	var b strings.Builder
	b.Grow(min(len(raw), max(limit, 0)+4))
	if limit < 0 {
		b.Grow(len(raw))
	}
	full := func(n int) bool { return limit >= 0 && b.Len()+n > limit }
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size <= 1 {
				r, size = utf8.RuneError, 1
			}
			if full(utf8.RuneLen(r)) {
				break
			}
			b.WriteRune(r)
			i += size
			continue
		}
		if i+1 >= len(raw) {
			break
		}
		var r rune
		switch raw[i+1] {
		case '"', '\\', '/', '\'':
			r = rune(raw[i+1])
			i += 2
		case 'b':
			r, i = '\b', i+2
		case 'f':
			r, i = '\f', i+2
		case 'n':
			r, i = '\n', i+2
		case 'r':
			r, i = '\r', i+2
		case 't':
			r, i = '\t', i+2
		case 'u':
			r1, ok := hex4(raw, i+2)
			if !ok {
				r, i = utf8.RuneError, i+2
				break
			}
			i += 6
			r = r1
			if utf16.IsSurrogate(r1) {
				r = utf8.RuneError
				if r2, ok := hex4(raw, i+2); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r1, r2); d != utf8.RuneError {
						r, i = d, i+6
					}
				}
			}
		default:
			r, i = utf8.RuneError, i+2
		}
		if full(utf8.RuneLen(r)) {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// fnv64 is the 64-bit FNV-1a hash of b.
func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// fnv64s is fnv64 of a string.
func fnv64s(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
