package yamledit

import (
	"math/rand"
	"testing"
	"unicode/utf8"
)

// TestYAMLChars compares the word-at-a-time check with the plain rule.
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
		if _, got := yamlChars(b); got != plain(b) {
			t.Fatalf("yamlChars(%q) ok = %v, want %v", b, got, !got)
		}
	}
}
