package looptools_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// An id that YAML reads as none while the scripts read a text ('- id: # A8':
// the scripts read "# A8"; '- id: ~') is named as such: a value that is
// wholly a comment is an inline comment in the scripts' findings as in the
// hook's (model.CommentAt: a '#' at the start of a value counts), and the
// finding asks for an id, not for "write id: " or an "Atom  not found".
func TestAnIDThatYAMLReadsAsNone(t *testing.T) {
	data, err := os.ReadFile("../../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, want string }{
		{"  - id: # A8", "the loop's scripts read atoms[7].id as '# …' (inline comment, line 95), where aot-tui reads no id; write the atom's id in place of the comment"},
		{"  - id: ~", "the loop's scripts read atoms[7].id as '~' (line 95), where aot-tui reads no id; write the atom's id"},
	} {
		doc, err := statefile.Parse(bytes.Replace(data, []byte("\n  - id: A8\n"), []byte("\n"+c.line+"\n"), 1))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range model.LoopToolsWarnings(doc.State) {
			if strings.Contains(p.Message, "atoms[7].id") {
				got = append(got, p.Message)
			}
		}
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: warnings about atoms[7].id %q, want one: %q", c.line, got, c.want)
		}
	}
}
