package textdiff

import (
	"fmt"
	"strings"
	"testing"
)

// The benchmarks use the state files of TestUnifiedLargeFile: n atoms,
// five lines each, and a correction of 27 lines in the middle plus 3 at
// the end. Merge3 merges that correction with the loop's own write of
// three status lines elsewhere (TestMerge3StateFile).

func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		a := atomsFile(n)
		al, bl := SplitLines(string(a)), SplitLines(string(correctAtoms(a, n)))
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Diff(al, bl)
			}
		})
	}
}

func BenchmarkUnified(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		a := atomsFile(n)
		c := correctAtoms(a, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(a) + len(c)))
			for b.Loop() {
				Unified("state.md", "state.md (corrected)", a, c, 3)
			}
		})
	}
}

// BenchmarkUnifiedAligned is BenchmarkUnified with the runs aligned, as
// the correction previews and --dry-run print it.
func BenchmarkUnifiedAligned(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		a := atomsFile(n)
		c := correctAtoms(a, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(a) + len(c)))
			for b.Loop() {
				UnifiedAligned("state.md", "state.md (corrected)", a, c, 3)
			}
		})
	}
}

func BenchmarkMerge3(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		base := atomsFile(n)
		ours := correctAtoms(base, n)
		theirs := []byte(strings.Replace(strings.Replace(string(base), "iteration: 4\n", "iteration: 5\n", 1),
			"    description: Implement step 10 of the feature\n    status: pending\n",
			"    description: Implement step 10 of the feature\n    status: in_progress\n", 1))
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(base) + len(ours) + len(theirs)))
			for b.Loop() {
				if _, c := Merge3(base, ours, theirs); c != nil {
					b.Fatal(c)
				}
			}
		})
	}
}

// BenchmarkDiffWorstCase is the other end: every line of a 10,000-atom
// file changed (CRLF endings), and two unrelated 2,000-line texts from a
// small alphabet, where D is in the thousands and O((N+M)·D) shows.
func BenchmarkDiffWorstCase(b *testing.B) {
	file := string(atomsFile(10000))
	al := SplitLines(file)
	crlf := SplitLines(strings.ReplaceAll(file, "\n", "\r\n"))
	b.Run("crlf/atoms=10000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Diff(al, crlf)
		}
	})
	var x, y strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&x, "%d\n", (i*7919)%13)
		fmt.Fprintf(&y, "%d\n", (i*104729+17)%11)
	}
	xl, yl := SplitLines(x.String()), SplitLines(y.String())
	b.Run("unrelated/lines=2000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Diff(xl, yl)
		}
	})
}
