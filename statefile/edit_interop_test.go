package statefile

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// movingNumbers are the line numbers and list positions a message names.
var movingNumbers = regexp.MustCompile(`line \d+|\[\d+\]`)

// loopToolsKeys are the loop-tools warnings on data (what the loop's own
// line-based tools read otherwise than Parse), without the line numbers
// and list positions that move when a correction adds or removes lines.
func loopToolsKeys(data []byte) (map[string]int, error) {
	doc, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	keys := map[string]int{}
	for _, p := range model.LoopToolsWarnings(doc.State) {
		// A comment the file had stays the same finding when an edit
		// changes the rest of its line (a dependency removed before it).
		if strings.HasPrefix(p.Message, "and ") {
			continue // "and 3 more like the above": counted by kind above
		}
		k := movingNumbers.ReplaceAllString(p.Message, "#")
		if strings.Contains(p.Message, "(inline comment") {
			k = movingNumbers.ReplaceAllString(p.Path, "#") + ": inline comment"
		}
		keys[k]++
	}
	return keys, nil
}

// agree checks that an edit of before into after leaves the loop's own
// tools no new value to misread.
func agree(before, after []byte) error {
	old, err := loopToolsKeys(before)
	if err != nil {
		return err
	}
	now, err := loopToolsKeys(after)
	if err != nil {
		return err
	}
	for k, n := range now {
		if n > old[k] {
			return fmt.Errorf("the loop's tools misread something new: %s", k)
		}
	}
	return nil
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

// TestApplyEditsInterop: corrections on template-layout files give the
// loop's line-based tools nothing new to misread (model.LoopToolsWarnings).
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
		// The template layout has the seed's trailing comments, which the
		// loop's tools misread; the bare one must read as it parses.
		if keys, err := loopToolsKeys(data); err != nil || i >= 4 && (i-4)%2 == 1 && len(keys) > 0 {
			t.Fatalf("input %d: the loop's tools misread the generated state: %v %v", i, keys, err)
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
			if err := agree(data, out); err != nil {
				t.Fatalf("input %d: after %v: %v\n%s", i, edits, err, out)
			}
		}
	}
}
