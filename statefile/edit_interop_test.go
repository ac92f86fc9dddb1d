package statefile

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/aot-loop/aot-tui/internal/looptools"
	"github.com/aot-loop/aot-tui/model"
)

// agree checks that the loop's own line-based tools read data as Parse
// does (internal/looptools).
func agree(data []byte) error {
	doc, err := Parse(data)
	if err != nil {
		return fmt.Errorf("does not parse: %v", err)
	}
	return looptools.Agree(data, doc.State)
}

// interopEdits are what corrections do to a template-layout file.
func interopEdits(r *rand.Rand, doc *Document) []model.Edit {
	var edits []model.Edit
	for _, e := range domainEdits(r, doc, 1+r.Intn(6)) {
		// A block depends_on is what the scripts cannot read: corrections
		// write model.Flow there.
		if _, block := e.Value.([]any); block && len(e.Path) == 3 && e.Path[2].Key == "depends_on" {
			continue
		}
		edits = append(edits, e)
	}
	p := &planner{edits: edits}
	switch r.Intn(3) {
	case 0:
		p.add(model.Replace(P("control", "status"), []string{"running", "stopped", "completed"}[r.Intn(3)]))
	case 1:
		p.add(model.Replace(P("control", "iteration"), r.Intn(30)))
	}
	// Descriptions that look like the lines the tools look for.
	for _, s := range []string{"status: pending\n    status: pending", "- id: A99\n- id: A98", "depends_on: [A1]"} {
		if r.Intn(4) == 0 {
			p.add(model.Replace(P("atoms", r.Intn(len(doc.State.Atoms)), "description"), s))
		}
	}
	return p.edits
}

// TestApplyEditsInterop: after corrections on template-layout files, the
// loop's line-based readings agree with Parse.
func TestApplyEditsInterop(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var inputs [][]byte
	for _, f := range []string{seedComplete, seedChecklist, "../testdata/seed-initial-legacy.md", inCommented} {
		inputs = append(inputs, readInput(t, f))
	}
	for i := 0; i < 40; i++ {
		inputs = append(inputs, genState(r, atomCount(r), templateLayouts[i%len(templateLayouts)]))
	}
	for i, data := range inputs {
		if err := agree(data); err != nil {
			t.Fatalf("input %d disagrees before any edit: %v", i, err)
		}
		doc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 5; round++ {
			edits := interopEdits(r, doc)
			out, err := ApplyEdits(doc, edits)
			if err != nil {
				t.Fatalf("input %d: %v\nedits: %v", i, err, edits)
			}
			if err := agree(out); err != nil {
				t.Fatalf("input %d: after %v: %v\n%s", i, edits, err, out)
			}
		}
	}
}
