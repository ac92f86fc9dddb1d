package statefile

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// TestFirstReadRecordsHalves: Reparse's first read decodes a long atoms
// list in two parts at once, as Parse does, and records the problems of
// each atom, and of each top-level value after the list, where they are
// once the second part's are put in. An incremental read that fixes or
// makes a problem in either part, or in a value after the list, then
// gives what Parse gives.
func TestFirstReadRecordsHalves(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var b strings.Builder
	b.WriteString("---\nobjective:\n  goal: g\natoms:\n")
	for i := range 12 {
		status := "pending"
		if i == 2 || i == 9 {
			status = "[not, a, status]"
		}
		fmt.Fprintf(&b, "  - id: A%d\n    description: d%d\n    status: %s\n    depends_on: []\n", i, i, status)
	}
	b.WriteString("control:\n  iteration: 1\n  stall_count: x\nbindings:\n  A0:\n    summary: [not, text]\n  A1:\n    summary: ok\n" +
		"trail:\n  - iteration: x\n    event: e\n---\nbody\n")
	data := b.String()
	edits := []struct{ name, old, new string }{
		{"a problem fixed in the first part", "description: d2\n    status: [not, a, status]", "description: d2\n    status: pending"},
		{"a problem fixed in the second part", "description: d9\n    status: [not, a, status]", "description: d9\n    status: resolved"},
		{"a problem made in the second part", "description: d10\n    status: pending", "description: d10\n    status: {x: 1}"},
		{"a problem made in the first part", "description: d0\n    status: pending", "description: d0\n    status: [x]"},
		{"control after the list", "stall_count: x", "stall_count: 2"},
		{"a binding after the list", "summary: [not, text]", "summary: fine"},
		{"a trail entry after the list", "iteration: x", "iteration: 3"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			first, err := readMemo([]byte(data), nil, 4)
			want, wantErr := Parse([]byte(data))
			if err := sameDoc(first, want, err, wantErr); err != nil {
				t.Fatalf("the first read differs from Parse: %v", err)
			}
			if first.memo == nil || len(first.memo.spans["atoms"]) != 2*12 {
				t.Fatalf("the first read recorded no problems of the atoms: %+v", first.memo)
			}
			next := strings.Replace(data, e.old, e.new, 1)
			if next == data {
				t.Fatal("no change")
			}
			got := reparseEdits(first, []byte(next))
			if got == nil {
				t.Fatal("the incremental read did not take it")
			}
			want, wantErr = Parse([]byte(next))
			if err := sameDoc(got, want, nil, wantErr); err != nil {
				t.Fatalf("the incremental read differs from Parse: %v", err)
			}
		})
	}
}

// TestReparseBuildsNoTree: the watcher's first read of a large loop, and
// the read of a write the incremental read declines, allocate about what
// Parse allocates, not the node tree (some twenty times the file). The
// goal (issue 26) is at most four times the file at 10,000 atoms
// (BenchmarkReparseFirst: 3.7); a smaller file has less to spread the
// memo's slack over, hence 5 here. The declined write takes the entries
// that did not change from the version before.
func TestReparseBuildsNoTree(t *testing.T) {
	data, _ := gen.GenerateSpec(3000, 1)
	// Reparse, the bytes it allocated per byte of the file, and a check
	// that it gave what Parse gives.
	allocated := func(prev *Document, data []byte, what string) (*Document, float64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		doc, err := Reparse(prev, data)
		runtime.ReadMemStats(&after)
		want, wantErr := Parse(data)
		if err := sameDoc(doc, want, err, wantErr); err != nil {
			t.Fatalf("%s: Reparse differs from Parse: %v", what, err)
		}
		return doc, float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data))
	}
	first, perByte := allocated(nil, data, "first read")
	if perByte > 5 {
		t.Errorf("the first read allocated %.1f bytes per byte of the file, want at most 5", perByte)
	}
	moved := append([]byte("---\n# a line above everything\n"), data[4:]...)
	if reparseEdits(first, moved) != nil {
		t.Fatal("the incremental read took a line added above everything")
	}
	doc, perByte := allocated(first, moved, "a line above everything")
	if perByte > 5 {
		t.Errorf("the read of a declined write allocated %.1f bytes per byte of the file, want at most 5", perByte)
	}
	taken := 0
	for i, a := range doc.State.Atoms {
		if unsafe.StringData(a.Description) == unsafe.StringData(first.State.Atoms[i].Description) {
			taken++
		}
	}
	if taken != len(doc.State.Atoms) {
		t.Errorf("%d of %d atoms taken from the version before, want all", taken, len(doc.State.Atoms))
	}
}
