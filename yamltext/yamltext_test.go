package yamltext

import (
	"math/rand"
	"slices"
	"strings"
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

// TestLineMap compares LineMap with counting by hand on random text made
// of every kind of line break, and of bytes that start one without being
// one.
func TestLineMap(t *testing.T) {
	pieces := []string{"a", "é", "\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029", "\xc2", "\xe2\x80", "\xe2"}
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 20000; it++ {
		var b []byte
		for range r.Intn(12) {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		// want[k] is the file line of yaml.v3's line k+1: yaml.v3 breaks
		// at all of \n, \r\n, \r, NEL, LS and PS; the file at \n only.
		want := []int{1}
		simple := true
		for i, fl := 0, 1; i < len(b); i++ {
			n := 0
			switch s := string(b[i:]); {
			case strings.HasPrefix(s, "\r\n"):
				n = 2
			case strings.HasPrefix(s, "\n"):
				n = 1
			case strings.HasPrefix(s, "\r"):
				n = 1
			case strings.HasPrefix(s, "\u0085"):
				n = 2
			case strings.HasPrefix(s, "\u2028"), strings.HasPrefix(s, "\u2029"):
				n = 3
			default:
				continue
			}
			if BreakLen(b, i) != n {
				t.Fatalf("BreakLen(%q, %d) = %d, want %d", b, i, BreakLen(b, i), n)
			}
			if b[i+n-1] == '\n' {
				fl++
			} else {
				simple = false
			}
			i += n - 1
			want = append(want, fl)
		}
		if SimpleBreaks(b, false) != simple {
			t.Fatalf("SimpleBreaks(%q) = %v", b, !simple)
		}
		m := NewLineMap(b, 10)
		if m.SameLines() != simple || m.Offset() != 10 || m.File(0) != 0 {
			t.Fatalf("NewLineMap(%q): SameLines %v, Offset %d, File(0) %d", b, m.SameLines(), m.Offset(), m.File(0))
		}
		for k, fl := range want {
			if got := m.File(k + 1); got != fl+10 {
				t.Fatalf("NewLineMap(%q).File(%d) = %d, want %d", b, k+1, got, fl+10)
			}
		}
	}
}
