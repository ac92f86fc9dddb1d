package statefile

import (
	"bytes"
	"errors"
	"flag"
	"math/rand"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

var (
	propSeed  = flag.Int64("edit.seed", 1, "seed of TestApplyEditsProperties")
	propIters = flag.Int("edit.n", 400, "iterations of TestApplyEditsProperties")
)

// atomCount draws a state size: mostly small, sometimes up to 500 atoms.
func atomCount(r *rand.Rand) int {
	switch x := r.Intn(20); {
	case x < 14:
		return 1 + r.Intn(30)
	case x < 19:
		return 30 + r.Intn(120)
	}
	return 150 + r.Intn(351)
}

// TestApplyEditsProperties: random corrections on generated states in
// every layout parse, decode to exactly the intended values, and leave
// every line no edit targeted unchanged and in order; plans with an edit
// that must fail are refused whole.
func TestApplyEditsProperties(t *testing.T) {
	iterations := *propIters
	if testing.Short() {
		iterations = 60
	}
	r := rand.New(rand.NewSource(*propSeed))
	for it := 0; it < iterations; it++ {
		lay := layouts[it%len(layouts)]
		n := atomCount(r)
		data := genState(r, n, lay)
		doc, err := parseTree(data)
		if err != nil {
			t.Fatalf("iteration %d (%s, %d atoms): generated state does not parse: %v\n%s", it, lay.name, n, err, data)
		}
		if len(doc.State.Problems) > 0 {
			t.Fatalf("iteration %d: generated state has problems: %v", it, doc.State.Problems)
		}
		var edits []model.Edit
		if it%4 == 3 {
			edits, _ = randomEdits(r, doc.Root, 1+r.Intn(4))
			p := &planner{}
			for _, e := range edits {
				p.add(e)
			}
			edits = p.edits
		} else {
			edits = domainEdits(r, doc, 1+r.Intn(6))
		}
		wantErr := r.Intn(10) == 0
		if wantErr {
			edits = append(edits, badEdit(r, doc))
			r.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
		}
		orig := bytes.Clone(data)
		out, err := ApplyEdits(doc, edits)
		if !bytes.Equal(doc.Data, orig) {
			t.Fatalf("iteration %d: ApplyEdits changed the input", it)
		}
		if wantErr {
			var ee *EditError
			if err == nil || out != nil || !errors.As(err, &ee) {
				t.Fatalf("iteration %d (%s): plan with a bad edit: err %v, %d bytes\nedits: %v", it, lay.name, err, len(out), edits)
			}
			continue
		}
		if err != nil {
			t.Fatalf("iteration %d (%s, %d atoms): %v\nedits: %v\n%s", it, lay.name, n, err, edits, data)
		}
		checkEdited(t, doc, edits, out)
		if err := untouchedKept(doc, edits, out); err != nil {
			t.Fatalf("iteration %d (%s): %v\nedits: %v\n--- in\n%s\n--- out\n%s", it, lay.name, err, edits, data, out)
		}
	}
}
