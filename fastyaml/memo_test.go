package fastyaml

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

const memoText = `control:
  iteration: 1
atoms:
  - id: A1
    status: pending
  - id: A2
    status: pending
bindings:
  A1:
    summary: one
  A2:
    summary: two
`

// TestLeanSectionsKeepNoNodes: the memo keeps no nodes of a lean
// section's entries (the key of a mapping entry in an allocation of its
// own), an entry taken from it is the Stub in the tree, with its key moved
// to its line, and after Release the memo keeps no collection; a section
// that is not lean keeps its nodes.
func TestLeanSectionsKeepNoNodes(t *testing.T) {
	lean := func(key string) bool { return key == "atoms" || key == "bindings" }
	parse := func(text string, prev *Memo) (*yaml.Node, *Memo) {
		t.Helper()
		yml := []byte(text)
		root, memo, err := ParseMemo(yml, yamltext.NewLineMap(yml, 0), prev, lean)
		if err != nil || memo == nil {
			t.Fatalf("ParseMemo: %v, memo %v", err, memo)
		}
		return root, memo
	}
	section := func(root *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				return root.Content[i+1]
			}
		}
		t.Fatalf("no %s", key)
		return nil
	}
	root1, m1 := parse(memoText, nil)
	if s := m1.Section("atoms", section(root1, "atoms")); s.Len() != 2 {
		t.Fatalf("atoms section knows %d entries, want 2", s.Len())
	}
	m1.Release()
	if s := m1.Section("atoms", section(root1, "atoms")); s.Len() != 0 {
		t.Fatal("a released memo still knows its sections")
	}
	for key, sec := range m1.sections {
		if sec.coll != nil {
			t.Fatalf("%s: the released memo keeps its collection", key)
		}
		for i := range sec.entries {
			e := sec.node(i)
			if sec.lean != lean(key) {
				t.Fatalf("%s is lean: %v", key, sec.lean)
			}
			if sec.lean && e.val != nil {
				t.Fatalf("%s entry %d: a lean section keeps the value's nodes", key, i)
			}
			if !sec.lean && e.val == nil {
				t.Fatalf("%s entry %d: a section that is not lean keeps no nodes", key, i)
			}
		}
	}
	// A2's status changes, and a line above everything moves all entries.
	next := "# top\n" + strings.Replace(memoText, "  - id: A2\n    status: pending", "  - id: A2\n    status: resolved", 1)
	root2, m2 := parse(next, m1)
	atoms, bindings := section(root2, "atoms"), section(root2, "bindings")
	if atoms.Content[0] != Stub || atoms.Content[1] == Stub {
		t.Fatalf("atoms: want the first taken (a stub), the second parsed: %v %v", atoms.Content[0], atoms.Content[1])
	}
	if bindings.Content[1] != Stub || bindings.Content[3] != Stub {
		t.Fatal("bindings: want both values taken (stubs)")
	}
	if k := bindings.Content[2]; k.Value != "A2" || k.Line != 12 {
		t.Fatalf("the taken key A2 is %q on line %d, want line 12", k.Value, k.Line)
	}
	sec := m2.Section("bindings", bindings)
	if from, delta, ok := sec.Origin(1); !ok || from != 1 || delta != 1 {
		t.Fatalf("binding 1 came from %d moved %d (%v), want from 1 moved 1", from, delta, ok)
	}
	if ctl := section(root2, "control"); len(ctl.Content) != 2 || ctl.Content[1].Value != "1" || ctl.Content[1].Line != 3 {
		t.Fatalf("control, taken and moved, is %+v", ctl.Content)
	}
}
