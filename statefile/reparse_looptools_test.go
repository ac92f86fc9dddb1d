package statefile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestReparseAtomWithoutIDAfterReusedAtom re-reads each loop-tools
// fixture with one atom's '- id:' line made another key: the loop's
// scripts then read that item's status and depends_on as the atom's
// before it, whose entry did not change. Reparse took that atom's reading
// from the version before and missed it (FuzzReparse found it on
// 32-depends-comment.md); it must read what Parse reads.
func TestReparseAtomWithoutIDAfterReusedAtom(t *testing.T) {
	files, err := filepath.Glob("../testdata/looptools/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	edits := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		first, err := Reparse(nil, data)
		if err != nil {
			continue // a fixture of a file aot-tui refuses
		}
		ids := bytes.Index(data, []byte("\n  - id: "))
		for ids >= 0 {
			next := bytes.Index(data[ids+1:], []byte("\n  - id: "))
			if next < 0 {
				break
			}
			at := ids + 1 + next + len("\n  - ")
			edited := append(append(append([]byte(nil), data[:at]...), "x"...), data[at+len("id"):]...)
			got, gotErr := Reparse(first, edited)
			want, wantErr := Parse(edited)
			if err := sameDoc(got, want, gotErr, wantErr); err != nil {
				t.Errorf("%s with the '- id:' at byte %d made '- x:': Reparse differs from Parse: %v", filepath.Base(name), at, err)
			}
			edits++
			ids = ids + 1 + next
		}
	}
	if edits < 20 {
		t.Fatalf("only %d edits: the fixtures changed?", edits)
	}
}
