package yamltext

import (
	"math/rand"
	"slices"
	"testing"
	"unicode/utf8"
)

// TestYAMLChars compares the word-at-a-time check with the plain rule:
// BadChar finds the first character the rule refuses, and says whether
// the text before it is ASCII.
func TestYAMLChars(t *testing.T) {
	plain := func(b []byte) bool {
		if !utf8.Valid(b) {
			return false
		}
		for _, r := range string(b) {
			switch {
			case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7E, r == 0x85,
				r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000:
			default:
				return false
			}
		}
		return true
	}
	r := rand.New(rand.NewSource(1))
	for it := 0; it < 100000; it++ {
		b := make([]byte, r.Intn(40))
		for i := range b {
			b[i] = byte(0x20 + r.Intn(0x5F))
		}
		if len(b) > 0 && r.Intn(2) == 0 {
			b[r.Intn(len(b))] = byte(r.Intn(256))
		}
		if len(b) > 3 && r.Intn(4) == 0 {
			copy(b[r.Intn(len(b)-3):], []string{"é", "\u2028", "\ufffe", "\U0001F389"}[r.Intn(4)])
		}
		bad, ascii := BadChar(b)
		if got := bad < 0; got != plain(b) {
			t.Fatalf("BadChar(%q) ok = %v, want %v", b, got, !got)
		}
		end := len(b)
		if bad >= 0 {
			end = bad
		}
		if !plain(b[:end]) {
			t.Fatalf("BadChar(%q) = %d, after the first bad character", b, bad)
		}
		if want := !slices.ContainsFunc(b[:end], func(c byte) bool { return c >= utf8.RuneSelf }); ascii != want {
			t.Fatalf("BadChar(%q) ascii = %v, want %v", b, ascii, want)
		}
	}
}
