package history

import (
	"testing"

	"github.com/aot-loop/aot-tui/statefile"
)

// BenchmarkCompare10k is Compare of two versions of a 10,000-atom file a
// write apart (an atom's status and the iteration), as the TUI runs it
// for every version to mark it.
func BenchmarkCompare10k(b *testing.B) {
	next := loopWrites(10000)
	prev, err := statefile.Parse(next())
	if err != nil {
		b.Fatal(err)
	}
	cur, err := statefile.Parse(next())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if MarksOf(Compare(prev.State, cur.State)) != MarkStatus {
			b.Fatal("not a status change")
		}
	}
}
