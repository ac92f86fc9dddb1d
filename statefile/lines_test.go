package statefile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// manyKeysFile is a state file whose first atom has extra unknown fields
// and its status twice, and whose bindings name the last atom twice, each
// mapping with more than manyKeys keys when extra is that large: the
// decoder then finds a repeated key by its index rather than by looking.
func manyKeysFile(extra int) (data string, statusLine, firstStatus int) {
	var b strings.Builder
	line := 0
	w := func(s string) { b.WriteString(s + "\n"); line++ }
	w("---")
	w("objective:")
	w("  goal: \"g\"")
	w("control:")
	w("  status: running")
	w("atoms:")
	w("  - id: A0")
	w("    status: pending")
	firstStatus = line
	for i := range extra {
		w(fmt.Sprintf("    x_%02d: %d", i, i))
	}
	w("    status: resolved")
	statusLine = line
	for i := 1; i <= extra; i++ {
		w(fmt.Sprintf("  - id: A%d", i))
		w("    status: resolved")
	}
	w("bindings:")
	for i := 0; i <= extra; i++ {
		w(fmt.Sprintf("  A%d:", i))
		w("    summary: \"s\"")
	}
	w(fmt.Sprintf("  A%d:", extra))
	w("    summary: \"again\"")
	w("---")
	w("")
	return b.String(), statusLine, firstStatus
}

// TestRepeatedKeysInLargeMappings checks that a key written twice is a
// problem and keeps its last line, in mappings small and large, read
// directly and through the tree alike.
func TestRepeatedKeysInLargeMappings(t *testing.T) {
	for _, extra := range []int{2, manyKeys - 3, manyKeys, 3 * manyKeys} {
		data, statusLine, firstStatus := manyKeysFile(extra)
		for _, read := range []struct {
			name string
			f    func([]byte) (*Document, error)
		}{{"direct", Parse}, {"tree", parseTree}, {"reparse", func(b []byte) (*Document, error) { return Reparse(nil, b) }}} {
			doc, err := read.f([]byte(data))
			if err != nil {
				t.Fatalf("%d extra fields, %s: %v", extra, read.name, err)
			}
			a := doc.State.Atoms[0]
			if got := a.Lines.Line("status"); got != statusLine {
				t.Errorf("%d extra fields, %s: status on line %d, want %d (the last; the first is on %d)", extra, read.name, got, statusLine, firstStatus)
			}
			if len(a.Lines) != extra+2 || !slicesSorted(a.Lines) {
				t.Errorf("%d extra fields, %s: Lines %v: want id, status and the %d others once each, sorted", extra, read.name, a.Lines, extra)
			}
			var twice []string
			for _, p := range doc.State.Problems {
				if strings.Contains(p.Message, "twice") {
					twice = append(twice, p.Message)
				}
			}
			want := []string{`atoms[0] has the key "status" twice`, fmt.Sprintf(`bindings has the key "A%d" twice`, extra)}
			if strings.Join(twice, "|") != strings.Join(want, "|") {
				t.Errorf("%d extra fields, %s: problems %q, want %q", extra, read.name, twice, want)
			}
		}
	}
}

func slicesSorted(l model.Lines) bool {
	for i := 1; i < len(l); i++ {
		if l[i-1].Key >= l[i].Key {
			return false
		}
	}
	return true
}

// TestManyKeysFileReadsDirectly makes sure the test above reads the file
// directly too, not through the tree twice.
func TestManyKeysFileReadsDirectly(t *testing.T) {
	for _, extra := range []int{2, 3 * manyKeys} {
		if data, _, _ := manyKeysFile(extra); !readsDirectly([]byte(data)) {
			t.Errorf("%d extra fields: not read directly", extra)
		}
	}
}
