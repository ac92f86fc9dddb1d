package yamledit

import (
	"errors"
	"testing"

	"github.com/aot-loop/aot-tui/yamlpatch"
)

// TestApplyInput: Apply edits the YAML span of Data and copies the rest,
// writes new lines with CRLF when asked, names lines through FileLine,
// and refuses an Input it cannot edit instead of panicking.
func TestApplyInput(t *testing.T) {
	yml := "a: 1\nlist: [x]\n"
	data := []byte("head\n" + yml + "tail\n")
	in := parseIn(t, data, len("head\n"), len("head\n")+len(yml))
	out, err := Apply(in, []yamlpatch.Edit{yamlpatch.Replace(yamlpatch.P("a"), 2), yamlpatch.Append(yamlpatch.P("list"), "A2"), yamlpatch.AddKey(yamlpatch.P(), "b", true)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "head\na: 2\nlist: [x, A2]\nb: true\ntail\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if string(data) != "head\n"+yml+"tail\n" {
		t.Error("Apply changed its input")
	}

	crlf := []byte("---\r\na: 1\r\n---\r\n")
	in = parseIn(t, crlf, len("---\r\n"), len("---\r\na: 1\r\n"))
	in.CRLF = true
	out, err = Apply(in, []yamlpatch.Edit{yamlpatch.AddKey(yamlpatch.P(), "b", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\r\na: 1\r\nb: 2\r\n---\r\n"; string(out) != want {
		t.Errorf("CRLF: got %q, want %q", out, want)
	}

	in = parseIn(t, data, len("head\n"), len("head\n")+len(yml))
	missing := []yamlpatch.Edit{yamlpatch.Replace(yamlpatch.P("list", 3), "z")}
	for _, c := range []struct {
		fileLine func(int) int
		line     int
	}{{nil, 2}, {func(n int) int { return n + 10 }, 12}} {
		in.FileLine = c.fileLine
		_, err := Apply(in, missing)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrNotFound) || e.Line != c.line || e.Index != 0 {
			t.Errorf("error %v (%#v), want ErrNotFound on line %d", err, e, c.line)
		}
	}

	for name, bad := range map[string]Input{
		"no root":        {Data: data, Start: 0, End: len(data)},
		"span past data": {Data: data, Start: 0, End: len(data) + 1, Root: in.Root},
		"span reversed":  {Data: data, Start: 6, End: 5, Root: in.Root},
	} {
		if out, err := Apply(bad, missing); err == nil || out != nil {
			t.Errorf("%s: %d bytes, error %v", name, len(out), err)
		}
	}
}
