package textdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkDiff checks that ops is a well-formed diff from a to b: it covers
// both in order, its Equal runs hold equal lines, consecutive Ops differ
// in Kind, a Delete never follows an Insert, and applying it to a (taking
// inserted lines from b) gives b. It returns the number of deleted plus
// inserted lines.
func checkDiff(a, b []string, ops []Op) (edits int, err error) {
	x, y := 0, 0
	var got []string
	for i, op := range ops {
		if op.A0 != x || op.B0 != y || op.A1 < op.A0 || op.B1 < op.B0 {
			return 0, fmt.Errorf("op %d %+v does not start at a[%d], b[%d]", i, op, x, y)
		}
		if op.A1 > len(a) || op.B1 > len(b) {
			return 0, fmt.Errorf("op %d %+v goes past the end", i, op)
		}
		if i > 0 && (ops[i-1].Kind == op.Kind || ops[i-1].Kind == Insert && op.Kind == Delete) {
			return 0, fmt.Errorf("op %d %c follows %c", i, op.Kind, ops[i-1].Kind)
		}
		switch op.Kind {
		case Equal:
			if op.A1-op.A0 != op.B1-op.B0 || op.A1 == op.A0 {
				return 0, fmt.Errorf("op %d %+v: bad Equal run", i, op)
			}
			if !slices.Equal(a[op.A0:op.A1], b[op.B0:op.B1]) {
				return 0, fmt.Errorf("op %d %+v: lines differ", i, op)
			}
			got = append(got, a[op.A0:op.A1]...)
		case Delete:
			if op.B1 != op.B0 || op.A1 == op.A0 {
				return 0, fmt.Errorf("op %d %+v: bad Delete run", i, op)
			}
			edits += op.A1 - op.A0
		case Insert:
			if op.A1 != op.A0 || op.B1 == op.B0 {
				return 0, fmt.Errorf("op %d %+v: bad Insert run", i, op)
			}
			got = append(got, b[op.B0:op.B1]...)
			edits += op.B1 - op.B0
		default:
			return 0, fmt.Errorf("op %d: kind %q", i, op.Kind)
		}
		x, y = op.A1, op.B1
	}
	if x != len(a) || y != len(b) {
		return 0, fmt.Errorf("ops end at a[%d], b[%d] of %d, %d", x, y, len(a), len(b))
	}
	if !slices.Equal(got, b) {
		return 0, fmt.Errorf("applying the ops gives %q, want %q", got, b)
	}
	return edits, nil
}

// lcsDistance is the fewest deleted plus inserted lines that turn a into
// b, by dynamic programming over the longest common subsequence.
func lcsDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}

// searchModes are the greedy search's trace budgets the tests run Diff
// with: as Diff has it, tiny (the greedy search only finishes small
// subproblems of the divide-and-conquer search), and none (the
// divide-and-conquer search alone, down to one-sided subproblems).
var searchModes = []struct {
	name   string
	budget func(int) int
}{
	{"default", traceBudget},
	{"smallTrace", func(int) int { return 15 }}, // D up to 4
	{"divideOnly", func(int) int { return 0 }},
}

// withBudget runs f with traceBudget set to budget.
func withBudget(budget func(int) int, f func()) {
	saved := traceBudget
	traceBudget = budget
	defer func() { traceBudget = saved }()
	f()
}

// inModes runs f as a subtest in each of searchModes.
func inModes(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, m := range searchModes {
		t.Run(m.name, func(t *testing.T) { withBudget(m.budget, func() { f(t) }) })
	}
}

// randomLines returns up to maxN lines drawn from the first k of a small
// alphabet that has the same letter with "\n", "\r\n" and no ending, the
// last only as the final line.
func randomLines(r *rand.Rand, maxN, k int) []string {
	n := r.IntN(maxN + 1)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = string(rune('a'+r.IntN(k))) + "\n"
		if r.IntN(8) == 0 {
			lines[i] = strings.Replace(lines[i], "\n", "\r\n", 1)
		}
	}
	if n > 0 && r.IntN(4) == 0 {
		lines[n-1] = strings.TrimRight(lines[n-1], "\r\n")
	}
	return lines
}

// mutate returns a copy of a with a few random runs deleted, replaced or
// inserted, using lines from the first k letters.
func mutate(r *rand.Rand, a []string, edits, k int) []string {
	b := slices.Clone(a)
	for range edits {
		at := r.IntN(len(b) + 1)
		del := min(r.IntN(4), len(b)-at)
		ins := make([]string, r.IntN(4))
		for i := range ins {
			ins[i] = fmt.Sprintf("%c%d\n", 'a'+r.IntN(k), r.IntN(3))
		}
		b = slices.Replace(b, at, at+del, ins...)
	}
	return b
}

func TestSplitLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"\n", []string{"\n"}},
		{"a\nb", []string{"a\n", "b"}},
		{"a\r\nb\r\n", []string{"a\r\n", "b\r\n"}},
		{"a\rb\n\n", []string{"a\rb\n", "\n"}},
	} {
		got := SplitLines(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("SplitLines(%q) does not join back", tc.in)
		}
	}
}

func TestDiffCases(t *testing.T) {
	l := func(s string) []string { return SplitLines(s) }
	for _, tc := range []struct {
		a, b string
		want []Op
	}{
		{"", "", nil},
		{"a\n", "a\n", []Op{{Equal, 0, 1, 0, 1}}},
		{"", "a\nb\n", []Op{{Insert, 0, 0, 0, 2}}},
		{"a\nb\n", "", []Op{{Delete, 0, 2, 0, 0}}},
		{"a\nb\nc\n", "a\nx\nc\n", []Op{{Equal, 0, 1, 0, 1}, {Delete, 1, 2, 1, 1}, {Insert, 2, 2, 1, 2}, {Equal, 2, 3, 2, 3}}},
		// Endings are part of the line.
		{"a\nb", "a\nb\n", []Op{{Equal, 0, 1, 0, 1}, {Delete, 1, 2, 1, 1}, {Insert, 2, 2, 1, 2}}},
		{"a\n", "a\r\n", []Op{{Delete, 0, 1, 0, 0}, {Insert, 1, 1, 0, 1}}},
		// Ties: the greedy search deletes first.
		{"a\nb\n", "b\na\n", []Op{{Delete, 0, 1, 0, 0}, {Equal, 1, 2, 0, 1}, {Insert, 2, 2, 1, 2}}},
	} {
		got := Diff(l(tc.a), l(tc.b))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Diff(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDiffMinimalSmall compares the edit count with the dynamic
// programming minimum on many small inputs from a tiny alphabet, where
// minimal diffs are far from unique.
func TestDiffMinimalSmall(t *testing.T) {
	inModes(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 12))
		for i := range 30000 {
			a, b := randomLines(r, 12, 1+i%4), randomLines(r, 12, 1+i%4)
			ops := Diff(a, b)
			edits, err := checkDiff(a, b, ops)
			if err != nil {
				t.Fatalf("Diff(%q, %q): %v\n%v", a, b, err, ops)
			}
			if want := lcsDistance(a, b); edits != want {
				t.Fatalf("Diff(%q, %q) has %d edits, want %d\n%v", a, b, edits, want, ops)
			}
		}
	})
}

// TestDiffMinimalMedium does the same on inputs of up to 300 lines, some
// unrelated and some a few edits apart.
func TestDiffMinimalMedium(t *testing.T) {
	inModes(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(2, 300))
		for i := range 400 {
			k := 2 + i%6
			a := randomLines(r, 300, k)
			var b []string
			if i%2 == 0 {
				b = randomLines(r, 300, k)
			} else {
				b = mutate(r, a, 1+r.IntN(20), k)
			}
			edits, err := checkDiff(a, b, Diff(a, b))
			if err != nil {
				t.Fatalf("%d lines to %d: %v", len(a), len(b), err)
			}
			if want := lcsDistance(a, b); edits != want {
				t.Fatalf("%d lines to %d: %d edits, want %d", len(a), len(b), edits, want)
			}
		}
	})
}

// TestDiffLarge checks well-formedness on large inputs, and that the
// three search modes find diffs of the same size.
func TestDiffLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5000))
	for i := range 12 {
		k := 3 + i*5
		a := randomLines(r, 5000, k)
		b := mutate(r, a, 1+r.IntN(400), k)
		if i%4 == 0 {
			b = randomLines(r, 5000, k)
		}
		var counts []int
		for _, m := range searchModes {
			withBudget(m.budget, func() {
				edits, err := checkDiff(a, b, Diff(a, b))
				if err != nil {
					t.Fatalf("%s: %d lines to %d: %v", m.name, len(a), len(b), err)
				}
				counts = append(counts, edits)
			})
		}
		if counts[0] != counts[1] || counts[0] != counts[2] {
			t.Fatalf("%d lines to %d: the modes found %v edits", len(a), len(b), counts)
		}
	}
}

// TestDiffNoCommonLines: when every line changes its ending, or every
// line is replaced, no line is in both; the diff is one Delete and one
// Insert and takes linear time, not the O(N²) the search would take on
// it (the lines one side alone has are set aside first).
func TestDiffNoCommonLines(t *testing.T) {
	file := string(atomsFile(10000))
	a := SplitLines(file)
	crlf := SplitLines(strings.ReplaceAll(file, "\n", "\r\n"))
	other := SplitLines("#" + strings.ReplaceAll(file[:len(file)-1], "\n", "\n#") + "\n")
	for _, b := range [][]string{crlf, other} {
		start := time.Now()
		ops := Diff(a, b)
		// About 20 ms; the search without the discard takes seconds.
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%d lines with none in common took %v", len(a)+len(b), el)
		}
		if _, err := checkDiff(a, b, ops); err != nil {
			t.Fatal(err)
		}
		want := []Op{{Delete, 0, len(a), 0, 0}, {Insert, len(a), len(a), 0, len(b)}}
		if !slices.Equal(ops, want) {
			t.Fatalf("got %v, want %v", ops, want)
		}
		// Nothing was left for the search.
		achg, bchg := make([]bool, len(a)), make([]bool, len(b))
		ai, bi := intern(a, b)
		if ka, kb, _, _ := discard(ai, bi, achg, bchg); len(ka) != 0 || len(kb) != 0 {
			t.Fatalf("%d and %d lines left after the discard", len(ka), len(kb))
		}
	}
}

// TestDiffFuncDeclinesWhereDiffSearchesOn: DiffFunc gives Diff's ops for
// a few changed lines, and declines (for the caller to call Diff) when
// the changes are past the greedy search's bound.
func TestDiffFuncDeclinesWhereDiffSearchesOn(t *testing.T) {
	a := SplitLines(string(atomsFile(300)))
	b := slices.Clone(a)
	b[10], b[200] = "changed\n", "changed too\n"
	eq := func(x, y []string) func(i, j int) bool { return func(i, j int) bool { return x[i] == y[j] } }
	ops, ok := DiffFunc(len(a), len(b), eq(a, b))
	if !ok || !slices.Equal(ops, Diff(a, b)) {
		t.Fatalf("a few changes: %v (%v), want Diff's %v", ops, ok, Diff(a, b))
	}
	far := make([]string, len(a))
	for i := range far {
		far[i] = fmt.Sprintf("other %d\n", i)
	}
	withBudget(func(int) int { return 0 }, func() {
		if _, ok := DiffFunc(len(a), len(far), eq(a, far)); ok {
			t.Fatal("DiffFunc answered past the greedy search's bound")
		}
	})
}
