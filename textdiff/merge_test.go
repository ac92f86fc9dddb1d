package textdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMerge3Cases(t *testing.T) {
	lines := func(from, to int) string {
		var sb strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&sb, "%d\n", i)
		}
		return sb.String()
	}
	base := lines(1, 20)
	with := func(repl ...string) string { // base with line n replaced
		s := base
		for i := 0; i < len(repl); i += 2 {
			s = strings.Replace(s, "\n"+repl[i]+"\n", "\n"+repl[i+1]+"\n", 1)
		}
		return s
	}
	for _, tc := range []struct {
		name               string
		base, ours, theirs string
		want               string // "" with conflicts
		conflicts          []Conflict
	}{
		{name: "nothing", want: ""},
		{name: "only ours", base: base, ours: with("10", "ten"), theirs: base, want: with("10", "ten")},
		{name: "only theirs", base: base, ours: base, theirs: with("10", "ten"), want: with("10", "ten")},
		{name: "adjacent lines", base: base, ours: with("10", "ten"), theirs: with("11", "eleven"),
			want: with("10", "ten", "11", "eleven")},
		{name: "adjacent ranges", base: base, ours: with("9\n10", "x"), theirs: with("11\n12", "y"),
			want: with("9\n10", "x", "11\n12", "y")},
		{name: "identical change", base: base, ours: with("10", "ten"), theirs: with("10", "ten"), want: with("10", "ten")},
		{name: "identical insertion", base: base, ours: with("10", "10\nnew"), theirs: with("10", "10\nnew"),
			want: with("10", "10\nnew")},
		{name: "insertion before a change", base: base, ours: with("10", "10\nnew"), theirs: with("11", "eleven"),
			want: with("10", "10\nnew", "11", "eleven")},
		{name: "insertion after a change", base: base, ours: with("11", "11\nnew"), theirs: with("11", "eleven"),
			want: with("11", "eleven\nnew")},
		{name: "insertion after a deletion", base: base, ours: with("11", "11\nnew"), theirs: strings.Replace(base, "\n11\n", "\n", 1),
			want: with("11", "new")},
		{name: "both delete the same line", base: base, ours: strings.Replace(base, "\n11\n", "\n", 1),
			theirs: strings.Replace(base, "\n11\n", "\n", 1), want: strings.Replace(base, "\n11\n", "\n", 1)},
		{name: "insertions at the same place", base: base, ours: with("10", "10\nours"), theirs: with("10", "10\ntheirs"),
			conflicts: []Conflict{{10, 10, "", "ours\n", "theirs\n"}}},
		{name: "same line changed differently", base: base, ours: with("10", "ours"), theirs: with("10", "theirs"),
			conflicts: []Conflict{{9, 10, "10\n", "ours\n", "theirs\n"}}},
		{name: "overlapping ranges", base: base, ours: with("9\n10", "ours"), theirs: with("10\n11", "theirs"),
			conflicts: []Conflict{{8, 11, "9\n10\n11\n", "ours\n11\n", "9\ntheirs\n"}}},
		{name: "insertion inside a deleted range", base: base, ours: with("10\n11", "10\nnew\n11"),
			theirs:    strings.Replace(base, "\n10\n11\n", "\n", 1),
			conflicts: []Conflict{{9, 11, "10\n11\n", "10\nnew\n11\n", ""}}},
		{name: "a chain of overlaps is one conflict", base: base, ours: with("9\n10", "a", "12\n13", "b"),
			theirs:    with("10\n11\n12", "c"),
			conflicts: []Conflict{{8, 13, "9\n10\n11\n12\n13\n", "a\n11\nb\n", "9\nc\n13\n"}}},
		{name: "two conflicts", base: base, ours: with("2", "x", "19", "y"), theirs: with("2", "X", "19", "Y"),
			conflicts: []Conflict{{1, 2, "2\n", "x\n", "X\n"}, {18, 19, "19\n", "y\n", "Y\n"}}},
		{name: "appends at the end", base: "a\nb\n", ours: "a\nb\nc\n", theirs: "a\nb\nd\n",
			conflicts: []Conflict{{2, 2, "", "c\n", "d\n"}}},
		{name: "no newline at the end, then an append", base: "a\nb\n", ours: "a\nc", theirs: "a\nb\nd\n",
			conflicts: []Conflict{{1, 2, "b\n", "c", "b\nd\n"}}},
		{name: "no newline at the end, an insertion before", base: "a\nb\n", ours: "a\nc", theirs: "a\nd\nb\n",
			want: "a\nd\nc"},
		{name: "line endings count", base: "a\nb\n", ours: "a\r\nb\n", theirs: "a\nB\n", want: "a\r\nB\n"},
		{name: "from empty", base: "", ours: "x\n", theirs: "", want: "x\n"},
		{name: "to empty", base: "x\n", ours: "", theirs: "x\n", want: ""},
	} {
		for _, swap := range []bool{false, true} {
			ours, theirs, conflicts := tc.ours, tc.theirs, tc.conflicts
			if swap {
				ours, theirs = theirs, ours
				conflicts = swapConflicts(conflicts)
			}
			got, gotC := Merge3([]byte(tc.base), []byte(ours), []byte(theirs))
			if !slices.Equal(gotC, conflicts) {
				t.Errorf("%s (swapped %v): conflicts %+v, want %+v", tc.name, swap, gotC, conflicts)
			}
			if tc.conflicts != nil {
				if got != nil {
					t.Errorf("%s (swapped %v): %q with conflicts", tc.name, swap, got)
				}
			} else if got == nil || string(got) != tc.want {
				t.Errorf("%s (swapped %v): %q, want %q", tc.name, swap, got, tc.want)
			}
		}
	}
}

func swapConflicts(cs []Conflict) []Conflict {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Ours, out[i].Theirs = out[i].Theirs, out[i].Ours
	}
	return out
}

// checkMerge3 checks the properties that hold for any inputs: a result
// or conflicts, never both; conflicts in order with their base text; the
// same outcome with ours and theirs swapped; and merging a side with
// base, or with itself, gives that side.
func checkMerge3(base, ours, theirs []byte) error {
	got, conflicts := Merge3(base, ours, theirs)
	if (got == nil) != (len(conflicts) > 0) {
		return fmt.Errorf("result %q with %d conflicts", got, len(conflicts))
	}
	bl := SplitLines(string(base))
	end := 0
	for _, c := range conflicts {
		if c.BaseStart < end || c.BaseEnd < c.BaseStart || c.BaseEnd > len(bl) {
			return fmt.Errorf("conflict over base lines %d to %d", c.BaseStart, c.BaseEnd)
		}
		if c.Base != strings.Join(bl[c.BaseStart:c.BaseEnd], "") || c.Ours == c.Theirs {
			return fmt.Errorf("conflict %+v", c)
		}
		end = c.BaseEnd
	}
	swapped, swappedC := Merge3(base, theirs, ours)
	if string(swapped) != string(got) || (swapped == nil) != (got == nil) || !slices.Equal(swappedC, swapConflicts(conflicts)) {
		return fmt.Errorf("swapped, the merge gives %q %+v, not %q %+v", swapped, swappedC, got, conflicts)
	}
	for _, tc := range []struct {
		name         string
		o, t, result []byte
	}{
		{"(base, ours, base)", ours, base, ours},
		{"(base, base, theirs)", base, theirs, theirs},
		{"(base, ours, ours)", ours, ours, ours},
	} {
		m, c := Merge3(base, tc.o, tc.t)
		if c != nil || m == nil || string(m) != string(tc.result) {
			return fmt.Errorf("Merge3%s gives %q %+v, want %q", tc.name, m, c, tc.result)
		}
	}
	return nil
}

// TestMerge3Properties runs checkMerge3 on random texts from a tiny
// alphabet, where diffs align in many ways and conflicts are common.
func TestMerge3Properties(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	conflicted := 0
	const runs = 20000
	for i := range runs {
		k := 1 + i%4
		base := randomLines(r, 10, k)
		ours, theirs := randomLines(r, 10, k), randomLines(r, 10, k)
		if i%2 == 1 {
			ours, theirs = mutate(r, base, 1+r.IntN(2), k), mutate(r, base, 1+r.IntN(2), k)
		}
		b, o, th := []byte(strings.Join(base, "")), []byte(strings.Join(ours, "")), []byte(strings.Join(theirs, ""))
		if err := checkMerge3(b, o, th); err != nil {
			t.Fatalf("%v\nbase   %q\nours   %q\ntheirs %q", err, b, o, th)
		}
		if _, c := Merge3(b, o, th); c != nil {
			conflicted++
		}
	}
	// Both outcomes must have been tried.
	if conflicted == 0 || conflicted == runs {
		t.Fatalf("%d of %d merges had conflicts", conflicted, runs)
	}
}

// edit replaces base[s:e] with text on one side.
type edit struct {
	s, e   int
	text   []string
	theirs bool
}

// disjointEdits returns random edits to n base lines, in order, each made
// by one side, that Merge3 must merge: one side's edits are at least one
// line apart, and the two sides' edits touch at most, never both
// inserting at the same place. Inserted lines are new and unique.
func disjointEdits(r *rand.Rand, n int, next *int) []edit {
	var edits []edit
	lastEnd := [2]int{-1, -1} // where each side's last edit ended
	lastIns := -1             // where the last pure insertion was
	pos := 0
	for pos <= n {
		pos += r.IntN(4)
		if pos > n {
			break
		}
		side := r.IntN(2)
		if pos <= lastEnd[side] && lastEnd[side] >= 0 {
			pos = lastEnd[side] + 1
			if pos > n {
				break
			}
		}
		e := min(n, pos+r.IntN(3))
		text := make([]string, r.IntN(3))
		for i := range text {
			*next++
			text[i] = fmt.Sprintf("%c%d\n", "OT"[side], *next)
		}
		if e == pos && (len(text) == 0 || pos == lastIns) {
			continue
		}
		edits = append(edits, edit{pos, e, text, side == 1})
		if e == pos {
			lastIns = pos
		}
		lastEnd[side] = e
		pos = e
	}
	return edits
}

// applyEdits applies to base the edits of the sides for which keep says
// so.
func applyEdits(base []string, edits []edit, keep func(theirs bool) bool) string {
	var sb strings.Builder
	pos := 0
	for _, e := range edits {
		if !keep(e.theirs) {
			continue
		}
		sb.WriteString(strings.Join(base[pos:e.s], ""))
		sb.WriteString(strings.Join(e.text, ""))
		pos = e.e
	}
	sb.WriteString(strings.Join(base[pos:], ""))
	return sb.String()
}

// TestMerge3DisjointEdits builds ours and theirs by editing disjoint, if
// often touching, regions of a base of unique lines: the merge must have
// both sides' edits, whichever side is ours.
func TestMerge3DisjointEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	next := 0
	for range 5000 {
		base := make([]string, r.IntN(30))
		for i := range base {
			base[i] = fmt.Sprintf("L%d\n", i)
		}
		edits := disjointEdits(r, len(base), &next)
		ours := applyEdits(base, edits, func(th bool) bool { return !th })
		theirs := applyEdits(base, edits, func(th bool) bool { return th })
		want := applyEdits(base, edits, func(bool) bool { return true })
		b := strings.Join(base, "")
		for _, swap := range []bool{false, true} {
			o, th := ours, theirs
			if swap {
				o, th = th, o
			}
			got, c := Merge3([]byte(b), []byte(o), []byte(th))
			if c != nil || string(got) != want {
				t.Fatalf("edits %v (swapped %v):\ngot  %q %v\nwant %q", edits, swap, got, c, want)
			}
		}
	}
}

// TestMerge3OverlappingEdits makes one edit on each side that overlap
// (or insert at the same place) with different text, among disjoint
// edits elsewhere: that must be reported as one conflict covering both,
// whose Ours and Theirs are what each side has there.
func TestMerge3OverlappingEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	next := 0
	newText := func(c byte, n int) []string {
		text := make([]string, n)
		for i := range text {
			next++
			text[i] = fmt.Sprintf("%c%d\n", c, next)
		}
		return text
	}
	for i := range 5000 {
		n := 1 + r.IntN(30)
		base := make([]string, n)
		for i := range base {
			base[i] = fmt.Sprintf("L%d\n", i)
		}
		var o, th edit
		switch i % 3 {
		case 0: // both insert at the same place
			p := r.IntN(n + 1)
			o = edit{p, p, newText('O', 1+r.IntN(2)), false}
			th = edit{p, p, newText('T', 1+r.IntN(2)), true}
		case 1: // overlapping ranges
			s1 := r.IntN(n)
			e1 := s1 + 1 + r.IntN(n-s1)
			s2 := s1 + r.IntN(e1-s1)
			e2 := s2 + 1 + r.IntN(n-s2)
			o = edit{s1, e1, newText('O', r.IntN(3)), false}
			th = edit{s2, e2, newText('T', r.IntN(3)), true}
			if len(o.text) == 0 && len(th.text) == 0 && s1 == s2 && e1 == e2 {
				th.text = newText('T', 1) // not both the same deletion
			}
		default: // an insertion strictly inside a range
			if n < 2 {
				continue
			}
			s := r.IntN(n - 1)
			e := s + 2 + r.IntN(n-s-1)
			p := s + 1 + r.IntN(e-s-1)
			o = edit{s, e, newText('O', r.IntN(3)), false}
			th = edit{p, p, newText('T', 1+r.IntN(2)), true}
		}
		if r.IntN(2) == 0 {
			o, th = edit{th.s, th.e, th.text, false}, edit{o.s, o.e, o.text, true}
		}
		ours := applyEdits(base, []edit{o}, func(bool) bool { return true })
		theirs := applyEdits(base, []edit{th}, func(bool) bool { return true })
		got, c := Merge3([]byte(strings.Join(base, "")), []byte(ours), []byte(theirs))
		if got != nil || len(c) != 1 {
			t.Fatalf("ours %v, theirs %v: got %q, %d conflicts", o, th, got, len(c))
		}
		cs, ce := c[0].BaseStart, c[0].BaseEnd
		if cs > min(o.s, th.s) || ce < max(o.e, th.e) {
			t.Fatalf("ours %v, theirs %v: conflict over %d to %d", o, th, cs, ce)
		}
		pre, post := strings.Join(base[:cs], ""), strings.Join(base[ce:], "")
		if pre+c[0].Ours+post != ours || pre+c[0].Theirs+post != theirs {
			t.Fatalf("ours %v, theirs %v: conflict %+v", o, th, c[0])
		}
	}
}

// TestMerge3StateFile is the case Merge3 is for: the loop wrote the file
// (a new iteration, two atoms' status) between our read and our write of
// a correction. Both must be in the result. Both appending to the end is
// a conflict.
func TestMerge3StateFile(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		base := atomsFile(n)
		ours := correctAtoms(base, n)
		loop := func(s string) string {
			s = strings.Replace(s, "iteration: 4\n", "iteration: 5\n", 1)
			for _, id := range []int{10, n/2 + 1} {
				at := fmt.Sprintf("  - id: A%d\n    description: Implement step %d of the feature\n    status: pending\n", id, id)
				s = strings.Replace(s, at, strings.Replace(at, "pending", "in_progress", 1), 1)
			}
			return s
		}
		theirs := []byte(loop(string(base)))
		want := loop(string(ours))
		for _, swap := range []bool{false, true} {
			o, th := ours, theirs
			if swap {
				o, th = th, o
			}
			got, c := Merge3(base, o, th)
			if c != nil || string(got) != want {
				t.Fatalf("%d atoms (swapped %v): %d conflicts %+v; the merge is right: %v", n, swap, len(c), c, string(got) == want)
			}
		}
		theirs = []byte(strings.TrimSuffix(string(theirs), "---\n") + "stopped: true\n---\n")
		if got, c := Merge3(base, ours, theirs); got != nil || len(c) != 1 || c[0].Theirs != "stopped: true\n" {
			t.Fatalf("%d atoms: both appending gives %d conflicts %+v", n, len(c), c)
		}
	}
}
