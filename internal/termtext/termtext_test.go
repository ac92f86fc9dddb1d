package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

func TestLineEscapesEverythingThatCouldControlTheTerminal(t *testing.T) {
	cases := map[string]string{
		"plain":                      "plain",
		"tab\there":                  "tab here",
		"two\nlines":                 "two↵lines",
		"crlf\r\nend":                "crlf↵end",
		"lone\rcr":                   `lone\rcr`,
		"\x1b]0;pwned\x07title":      `\x1b]0;pwned\x07title`,
		"\x1b[31mred\x1b[0m":         `\x1b[31mred\x1b[0m`,
		"\x1b]52;c;ZXZpbA==\x07":     `\x1b]52;c;ZXZpbA==\x07`,
		"\x1b]8;;http://x\x1b\\link": `\x1b]8;;http://x\x1b\link`,
		"c1 \u009b31m csi":           `c1 \u009b31m csi`,
		"c1 \u009d0;osc":             `c1 \u009d0;osc`,
		"del\x7f":                    `del\x7f`,
		"bidi \u202eevil\u202c":      `bidi \u202eevil\u202c`,
		"iso \u2066x\u2069":          `iso \u2066x\u2069`,
		"bad \xff utf8":              `bad \xff utf8`,
		"文档 and émoji 🚀":             "文档 and émoji 🚀",
		"nul\x00":                    `nul\x00`,
	}
	for in, want := range cases {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBlockKeepsLineBreaks(t *testing.T) {
	if got := Block("a\r\nb\n\tc\x1b[2J"); got != "a\nb\n    c\\x1b[2J" {
		t.Fatalf("Block: %q", got)
	}
}

// FuzzLine checks that no output of Line or Block can carry a control
// character or invalid UTF-8 to the terminal, whatever the input.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;x\x07", "\u009b", "\xff\xfe", "a\r\nb", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Line": Line(s), "Block": Block(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) is not valid UTF-8: %q", name, s, out)
			}
			for _, r := range out {
				if textsafe.Unsafe(r) && !(name == "Block" && r == '\n') {
					t.Fatalf("%s(%q) emits %U", name, s, r)
				}
			}
			if name == "Line" && strings.Contains(out, "\n") {
				t.Fatalf("Line(%q) has a line break", s)
			}
		}
	})
}
