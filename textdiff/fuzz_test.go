package textdiff

import (
	"slices"
	"strings"
	"testing"
)

// FuzzDiff checks Diff and Unified on any two texts: the ops are a
// well-formed diff that turns a into b; on small inputs the edit count is
// the dynamic-programming minimum; the divide-and-conquer search alone
// finds a diff of the same size; Unified's output applies and, on inputs
// small enough that the old statefile diff neither gave up nor left the
// greedy search's budget, is byte for byte the old output.
func FuzzDiff(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nx\nc\n"), uint8(3))
	f.Add([]byte("a\r\nb"), []byte("a\nb\n"), uint8(0))
	f.Add(atomsFile(20), correctAtoms(atomsFile(20), 20), uint8(3))
	f.Fuzz(func(t *testing.T, a, b []byte, ctx uint8) {
		al, bl := SplitLines(string(a)), SplitLines(string(b))
		if len(al)+len(bl) > 4000 {
			return // O(N·D) is up to 16M steps already
		}
		ops := Diff(al, bl)
		edits, err := checkDiff(al, bl, ops)
		if err != nil {
			t.Fatalf("%v\n%v", err, ops)
		}
		// DiffFunc on the same lines gives Diff's ops, or declines.
		if fops, ok := DiffFunc(len(al), len(bl), func(i, j int) bool { return al[i] == bl[j] }); ok && !slices.Equal(fops, ops) {
			t.Fatalf("DiffFunc: %v, Diff: %v", fops, ops)
		}
		if len(al)*len(bl) <= 100*100 {
			if want := lcsDistance(al, bl); edits != want {
				t.Fatalf("%d edits, want %d\n%v", edits, want, ops)
			}
		}
		withBudget(func(int) int { return 0 }, func() {
			ops2 := Diff(al, bl)
			edits2, err := checkDiff(al, bl, ops2)
			if err != nil || edits2 != edits {
				t.Fatalf("divide and conquer: %d edits, %v\n%v", edits2, err, ops2)
			}
		})
		c := int(ctx % 8)
		d := Unified("A", "B", a, b, c)
		got, err := applyUnified(a, d, c)
		if err != nil || string(got) != string(b) {
			t.Fatalf("the diff with context %d does not apply: %v\n%s", c, err, d)
		}
		if len(al)+len(bl) <= 300 {
			if got, want := Unified("A", "A (corrected)", a, b, 3), refUnifiedDiff("A", a, b); got != want {
				t.Fatalf("not the old output:\n%s\nwant:\n%s", got, want)
			}
		}
	})
}

// FuzzMerge3 checks checkMerge3's properties on any three texts, and
// that insertions into base from both sides at different places merge.
func FuzzMerge3(f *testing.F) {
	f.Add([]byte("1\n2\n3\n4\n"), []byte("1\nx\n3\n4\n"), []byte("1\n2\ny\n4\n"))
	f.Add([]byte("a\nb\n"), []byte("a\nc"), []byte("a\nb\nd\n"))
	f.Add([]byte("a\na\nb\n"), []byte("a\nb\n"), []byte("b\na\nb\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		if len(base)+len(ours)+len(theirs) > 1<<14 {
			return // a few thousand lines at most
		}
		if err := checkMerge3(base, ours, theirs); err != nil {
			t.Fatalf("%v\nbase   %q\nours   %q\ntheirs %q", err, base, ours, theirs)
		}
		// Ours' lines inserted in the middle of base's and theirs'
		// appended to it must merge to both. Marks at the start of the
		// lines keep the three sets apart, so that the diffs cannot place
		// the insertions anywhere else.
		mark := func(m string, text []byte) ([]string, string) {
			lines := SplitLines(string(text))
			for i, l := range lines {
				if !strings.HasSuffix(l, "\n") {
					l += "\n"
				}
				lines[i] = m + l
			}
			return lines, strings.Join(lines, "")
		}
		bl, b := mark(" ", base)
		ol, o := mark("<", ours)
		tl, th := mark(">", theirs)
		if len(bl) == 0 || len(ol) == 0 || len(tl) == 0 {
			return
		}
		mid := len(bl) / 2
		o = strings.Join(bl[:mid], "") + o + strings.Join(bl[mid:], "")
		th = b + th
		if err := checkMerge3([]byte(b), []byte(o), []byte(th)); err != nil {
			t.Fatalf("%v\nbase   %q\nours   %q\ntheirs %q", err, b, o, th)
		}
		got, c := Merge3([]byte(b), []byte(o), []byte(th))
		if want := o + strings.Join(tl, ""); c != nil || string(got) != want {
			t.Fatalf("inserted %q in the middle and %q at the end of %q: got %q %+v, want %q", ol, tl, bl, got, c, want)
		}
	})
}
