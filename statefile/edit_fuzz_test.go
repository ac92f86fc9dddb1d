package statefile

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// FuzzApplyEdits applies random edits to fuzzed documents: ApplyEdits
// never panics, never changes its input, and either refuses the plan with
// an *EditError or returns a file that parses to exactly the intended
// values, with every line no edit targeted kept. Plans whose edits collide
// must be refused.
func FuzzApplyEdits(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.md")
	more, _ := filepath.Glob("testdata/edits/*.md")
	for i, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, int64(i), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed int64, n uint8) {
		doc, err := parseTree(data)
		if err != nil {
			return
		}
		r := rand.New(rand.NewSource(seed))
		edits, conflicting := randomEdits(r, doc.Root, 1+int(n%6))
		orig := bytes.Clone(data)
		out, err := ApplyEdits(doc, edits)
		if !bytes.Equal(doc.Data, orig) {
			t.Fatal("ApplyEdits changed its input")
		}
		if err != nil {
			var ee *EditError
			if out != nil || !errors.As(err, &ee) {
				t.Fatalf("error %v (%T) with %d bytes", err, err, len(out))
			}
			return
		}
		if conflicting {
			t.Fatalf("colliding edits were applied: %v\n%s", edits, out)
		}
		checkEdited(t, doc, edits, out)
		if err := untouchedKept(doc, edits, out); err != nil {
			t.Fatalf("%v\nedits: %v\n--- in\n%s\n--- out\n%s", err, edits, data, out)
		}
	})
}
