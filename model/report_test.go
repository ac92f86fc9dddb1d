package model

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestReportNamesTheAtoms: each finding names the atoms it is about, the
// atom its path is in or every atom of a cycle, for the TUI to mark.
func TestReportNamesTheAtoms(t *testing.T) {
	s := state(-1, 0, 1, "A1:pending<A3", "A2:pending<A1", "A3:pending<A2", "A4:pending<A42", "A5:done")
	for i := range s.Atoms {
		s.Atoms[i].Line = 10 * (i + 1)
		s.Atoms[i].Lines = LinesOf(map[string]int{"description": 10*i + 11, "status": 10*i + 12, "depends_on": 10*i + 13})
	}
	got := map[string][]string{}
	for _, p := range Validate(s).Problems {
		if p.Atoms != nil {
			got[p.Message] = p.Atoms
		}
	}
	want := map[string][]string{
		"circular dependency: A1 -> A3 -> A2 -> A1":                                  {"A1", "A3", "A2"},
		"atom A4 depends on A42, which does not exist (the loop could never finish)": {"A4"},
		`atom A5 has status "done"; expected pending, in_progress or resolved`:       {"A5"},
	}
	for msg, ids := range want {
		if !reflect.DeepEqual(got[msg], ids) {
			t.Errorf("%q names %v, want %v (all: %v)", msg, got[msg], ids, got)
		}
	}
	for _, p := range Validate(s).Problems {
		if p.Path == "objective" && p.Atoms != nil {
			t.Errorf("%q is about no atom: %v", p.Message, p.Atoms)
		}
	}
}

// TestSortedByLineIsStable checks the findings' order finish makes (a
// radix sort of their lines from 64 findings on) against a stable
// comparison sort: lines repeated many times, lines of every size up to
// millions, the largest line a power of the radix, none but line 0, and
// a negative line, which the radix sort leaves to the comparison sort.
func TestSortedByLineIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 5))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 20000} {
		for _, top := range []int{0, 1, 7, 2048, 1 << 22, 5_000_000, -1} {
			ps := make([]ReportProblem, n)
			for i := range ps {
				switch {
				case top < 0:
					ps[i].Line = r.IntN(100) - 1
				case top > 0:
					ps[i].Line = r.IntN(top + 1)
				}
			}
			if n > 0 && top > 0 {
				ps[r.IntN(n)].Line = top
			}
			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(ps[a].Line, ps[b].Line) })
			for k, o := range sortedByLine(ps) {
				if o.i != want[k] || o.line != ps[want[k]].Line {
					t.Fatalf("%d findings, lines up to %d: place %d holds finding %d (line %d), want %d", n, top, k, o.i, o.line, want[k])
				}
			}
		}
	}
}
