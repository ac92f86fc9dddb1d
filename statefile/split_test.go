package statefile

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/yamltext"
)

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		yaml      string
		body      string
		firstLine int
		bom, crlf bool
	}{
		{name: "plain", in: "---\na: 1\n---\nbody\n", yaml: "a: 1\n", body: "body\n", firstLine: 2},
		{name: "BOM", in: "\xEF\xBB\xBF---\na: 1\n---\nbody\n", yaml: "a: 1\n", body: "body\n", firstLine: 2, bom: true},
		{name: "CRLF", in: "---\r\na: 1\r\n---\r\nbody\r\n", yaml: "a: 1\r\n", body: "body\r\n", firstLine: 2, crlf: true},
		{name: "BOM and CRLF", in: "\xEF\xBB\xBF---\r\na: 1\r\n---\r\n", yaml: "a: 1\r\n", body: "", firstLine: 2, bom: true, crlf: true},
		{name: "leading blank lines", in: "\n  \n\t\n---\na: 1\n---\n", yaml: "a: 1\n", body: "", firstLine: 5},
		{name: "leading CRLF blank lines", in: "\r\n\r\n---\r\na: 1\r\n---\r\n", yaml: "a: 1\r\n", body: "", firstLine: 4, crlf: true},
		{name: "delimiters with trailing spaces", in: "---  \na: 1\n--- \t\nbody\n", yaml: "a: 1\n", body: "body\n", firstLine: 2},
		{name: "--- inside the body", in: "---\na: 1\n---\n# Prompt\n\n---\n\nmore\n---\n", yaml: "a: 1\n", body: "# Prompt\n\n---\n\nmore\n---\n", firstLine: 2},
		{name: "indented --- is YAML, not a delimiter", in: "---\na: |\n  ---\n  x\n---\nbody", yaml: "a: |\n  ---\n  x\n", body: "body", firstLine: 2},
		{name: "--- followed by text is not a delimiter", in: "---\na: 1\n--- x\n---\n", yaml: "a: 1\n--- x\n", body: "", firstLine: 2},
		{name: "closing delimiter at EOF without newline", in: "---\na: 1\n---", yaml: "a: 1\n", body: "", firstLine: 2},
		{name: "empty frontmatter", in: "---\n---\nbody", yaml: "", body: "body", firstLine: 2},
		{name: "four dashes are not a delimiter", in: "---\na: ----\n----\n---\n", yaml: "a: ----\n----\n", body: "", firstLine: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.in)
			fm, err := SplitFrontmatter(data)
			if err != nil {
				t.Fatalf("SplitFrontmatter: %v", err)
			}
			if got := string(fm.YAML(data)); got != tt.yaml {
				t.Errorf("YAML = %q, want %q", got, tt.yaml)
			}
			if got := string(fm.Body(data)); got != tt.body {
				t.Errorf("Body = %q, want %q", got, tt.body)
			}
			if fm.FirstLine != tt.firstLine {
				t.Errorf("FirstLine = %d, want %d", fm.FirstLine, tt.firstLine)
			}
			if fm.BOM != tt.bom || fm.CRLF != tt.crlf {
				t.Errorf("BOM, CRLF = %v, %v; want %v, %v", fm.BOM, fm.CRLF, tt.bom, tt.crlf)
			}
			if !(0 <= fm.YAMLStart && fm.YAMLStart <= fm.YAMLEnd && fm.YAMLEnd <= fm.BodyStart && fm.BodyStart <= len(data)) {
				t.Errorf("offsets out of order: %+v (len %d)", fm, len(data))
			}
		})
	}
}

func TestSplitFrontmatterErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"empty file", "", ErrNoFrontmatter},
		{"only blank lines", "\n\n  \n", ErrNoFrontmatter},
		{"only a BOM", "\xEF\xBB\xBF", ErrNoFrontmatter},
		{"no frontmatter", "# Original Prompt\n\nhello\n", ErrNoFrontmatter},
		{"YAML without delimiters", "objective:\n  goal: x\n", ErrNoFrontmatter},
		{"indented opening delimiter", "  ---\na: 1\n---\n", ErrNoFrontmatter},
		{"text before the opening delimiter", "hello\n---\na: 1\n---\n", ErrNoFrontmatter},
		{"unclosed", "---\na: 1\nb: 2\n", ErrUnclosed},
		{"unclosed, opening line only", "---", ErrUnclosed},
		{"unclosed, closing line indented", "---\na: 1\n ---\n", ErrUnclosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SplitFrontmatter([]byte(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// splitRef is SplitFrontmatter as it was, looking at every line for the
// closing one.
func splitRef(data []byte) (Frontmatter, error) {
	f, err := SplitFrontmatter(data)
	if err != nil && err != ErrUnclosed {
		return f, err
	}
	f.YAMLEnd, f.BodyStart = 0, 0
	for pos := f.YAMLStart; pos < len(data); {
		end, next := yamltext.LineBounds(data, pos)
		if bytes.Equal(trimRightSpace(data[pos:end]), dashes) {
			f.YAMLEnd, f.BodyStart = pos, next
			return f, nil
		}
		pos = next
	}
	return f, ErrUnclosed
}

// TestSplitFindsTheClosingLineAsEveryLineWould compares SplitFrontmatter,
// which jumps from a line starting with "---" to the next, with a look at
// every line, on texts made of lines that are, nearly are or contain the
// closing line.
func TestSplitFindsTheClosingLineAsEveryLineWould(t *testing.T) {
	parts := []string{"---", "--- ", "---\r", "----", " ---", "---x", "a: ---", "a: 1", "", "-", "--", "\t---", "---\t \r"}
	r := rand.New(rand.NewPCG(7, 26))
	for range 20000 {
		var b strings.Builder
		b.WriteString("---\n")
		for n := r.IntN(8); n > 0; n-- {
			b.WriteString(parts[r.IntN(len(parts))])
			if n > 1 || r.IntN(3) > 0 {
				b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
			}
		}
		data := []byte(b.String())
		got, gerr := SplitFrontmatter(data)
		want, werr := splitRef(data)
		if got != want || gerr != werr {
			t.Fatalf("%q: got %+v, %v; want %+v, %v", data, got, gerr, want, werr)
		}
	}
}
