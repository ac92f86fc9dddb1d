package textdiff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestUnifiedMatchesReference runs the unified diff statefile/diff.go
// printed (reference_test.go) and Unified on random inputs small enough
// for the reference not to give up. With Diff as it is the output must be
// byte for byte the same. With the divide-and-conquer search alone the
// alignment may differ among equally minimal ones: then the number of
// changed lines must still be the same, and the test logs how often the
// text differed.
func TestUnifiedMatchesReference(t *testing.T) {
	for _, m := range searchModes {
		t.Run(m.name, func(t *testing.T) {
			withBudget(m.budget, func() {
				r := rand.New(rand.NewPCG(4, 4))
				const runs = 6000
				differ := 0
				for i := range runs {
					a, b := randomPair(r, i)
					want := refUnifiedDiff("f.md", a, b)
					got := Unified("f.md", "f.md (corrected)", a, b, 3)
					if got == want {
						continue
					}
					if m.name == "default" {
						t.Fatalf("a = %q\nb = %q\ngot:\n%s\nwant:\n%s", a, b, got, want)
					}
					differ++
					if g, w := changedLines(got), changedLines(want); g != w {
						t.Fatalf("%d changed lines, the reference has %d\na = %q\nb = %q\ngot:\n%s\nwant:\n%s", g, w, a, b, got, want)
					}
				}
				if differ > 0 {
					t.Logf("%d of %d diffs differ in text from the reference, none in size", differ, runs)
				}
			})
		})
	}
}

// randomPair returns two texts: unrelated small ones from a tiny
// alphabet, or a larger one and a few edits to it.
func randomPair(r *rand.Rand, i int) (a, b []byte) {
	k := 1 + i%5
	var al, bl []string
	switch i % 3 {
	case 0, 1:
		al, bl = randomLines(r, 12, k), randomLines(r, 12, k)
	default:
		al = randomLines(r, 600, k+5)
		bl = mutate(r, al, 1+r.IntN(12), k+5)
	}
	return []byte(strings.Join(al, "")), []byte(strings.Join(bl, ""))
}

// changedLines counts the '-' and '+' lines of a unified diff.
func changedLines(diff string) int {
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--- ")) ||
			(strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++ ")) {
			n++
		}
	}
	return n
}

func TestUnifiedCases(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		ctx  int
		want string
	}{
		{"a\n", "a\n", 3, ""},
		{"", "x\n", 3, "--- A\n+++ B\n@@ -0,0 +1 @@\n+x\n"},
		{"x\n", "", 3, "--- A\n+++ B\n@@ -1 +0,0 @@\n-x\n"},
		{"a\nb", "a\nb\n", 3, "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"a\r\nb\r\n", "a\r\nc\r\n", 3, "--- A\n+++ B\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
		// Context 0: ranges of insertions are "after line p".
		{"a\nb\nc\n", "a\nx\nb\nc\ny\n", 0, "--- A\n+++ B\n@@ -1,0 +2 @@\n+x\n@@ -3,0 +5 @@\n+y\n"},
		// Negative context is 0.
		{"a\nb\nc\n", "a\nB\nc\n", -2, "--- A\n+++ B\n@@ -2 +2 @@\n-b\n+B\n"},
		// Changes 2·context lines apart share a hunk; one more splits it.
		{"1\n2\n3\n4\n", "x\n2\n3\ny\n", 1, "--- A\n+++ B\n@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n-4\n+y\n"},
		{"1\n2\n3\n4\n5\n", "x\n2\n3\n4\ny\n", 1, "--- A\n+++ B\n@@ -1,2 +1,2 @@\n-1\n+x\n 2\n@@ -4,2 +4,2 @@\n 4\n-5\n+y\n"},
	} {
		if got := Unified("A", "B", []byte(tc.a), []byte(tc.b), tc.ctx); got != tc.want {
			t.Errorf("Unified(%q, %q, %d):\n%s\nwant:\n%s", tc.a, tc.b, tc.ctx, got, tc.want)
		}
	}
}

// TestUnifiedApplies parses Unified's output for several context sizes
// and applies it to a, which must give b. It also checks each hunk's
// header against its lines, and that the hunks are as the format wants
// them: context lines of context around the changes where a has them,
// and no run of more than 2·context unchanged lines inside a hunk or
// less between two hunks.
func TestUnifiedApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for i := range 3000 {
		a, b := randomPair(r, i)
		ctx := i % 6
		d := Unified("A", "B", a, b, ctx)
		got, err := applyUnified(a, d, ctx)
		if err != nil {
			t.Fatalf("context %d: %v\na = %q\nb = %q\n%s", ctx, err, a, b, d)
		}
		if string(got) != string(b) {
			t.Fatalf("context %d: applying the diff gives %q, want %q\n%s", ctx, got, b, d)
		}
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyUnified applies a unified diff from "A" to "B" made with the given
// context to a, checking the hunks' shape on the way.
func applyUnified(a []byte, diff string, ctx int) ([]byte, error) {
	al := SplitLines(string(a))
	if diff == "" {
		return a, nil
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || lines[0] != "--- A\n" || lines[1] != "+++ B\n" || lines[len(lines)-1] != "" {
		return nil, fmt.Errorf("bad headers or ending")
	}
	lines = lines[2 : len(lines)-1]
	var out []string
	pos := 0         // lines of a used
	lastChange := -1 // where the last hunk's changes ended in a
	trail := 0       // the last hunk's context lines after its changes
	for len(lines) > 0 {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[0], "\n"))
		if m == nil {
			return nil, fmt.Errorf("bad hunk header %q", lines[0])
		}
		a0, na := hunkRange(m[1], m[2])
		b0, nb := hunkRange(m[3], m[4])
		if a0 < pos {
			return nil, fmt.Errorf("hunk at %d before %d", a0, pos)
		}
		out = append(out, al[pos:a0]...)
		pos = a0
		if b0 != len(out) && !(nb == 0 && b0 == len(out)) {
			return nil, fmt.Errorf("hunk at +%d, want %d", b0, len(out))
		}
		lines = lines[1:]
		seenA, seenB, lead, run := 0, 0, 0, 0
		changed := false
		for len(lines) > 0 && !strings.HasPrefix(lines[0], "@@") {
			l := lines[0]
			lines = lines[1:]
			text := l[1:]
			if len(lines) > 0 && lines[0] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				lines = lines[1:]
			}
			if l[0] == ' ' || l[0] == '-' {
				if pos >= len(al) || al[pos] != text {
					return nil, fmt.Errorf("line %d of a is not %q", pos+1, text)
				}
				pos++
				seenA++
			}
			switch l[0] {
			case ' ':
				out = append(out, text)
				seenB++
				run++
				if !changed {
					lead++
				}
			case '-', '+':
				if l[0] == '+' {
					out = append(out, text)
					seenB++
				}
				if !changed {
					first := a0 + lead
					if lastChange >= 0 && first-lastChange <= 2*ctx {
						return nil, fmt.Errorf("changes at %d and %d in two hunks", lastChange, first)
					}
					if want := min(ctx, first-max(lastChange, 0)); lead != want {
						return nil, fmt.Errorf("%d lines of context before line %d, want %d", lead, first, want)
					}
					if lastChange >= 0 && trail != ctx {
						return nil, fmt.Errorf("%d lines of context after line %d, want %d", trail, lastChange, ctx)
					}
				} else if run > 2*ctx {
					return nil, fmt.Errorf("%d unchanged lines inside a hunk", run)
				}
				changed, run = true, 0
			default:
				return nil, fmt.Errorf("bad line %q", l)
			}
		}
		if seenA != na || seenB != nb {
			return nil, fmt.Errorf("hunk header says %d,%d lines, has %d,%d", na, nb, seenA, seenB)
		}
		if !changed {
			return nil, fmt.Errorf("hunk with no changes")
		}
		trail = run
		lastChange = pos - run
	}
	if want := min(ctx, len(al)-lastChange); trail != want {
		return nil, fmt.Errorf("%d lines of context at the end, want %d", trail, want)
	}
	out = append(out, al[pos:]...)
	return []byte(strings.Join(out, "")), nil
}

// hunkRange reads a hunk header's "start,count" into the number of lines
// before the range and its length.
func hunkRange(start, count string) (before, n int) {
	s, _ := strconv.Atoi(start)
	n = 1
	if count != "" {
		n, _ = strconv.Atoi(count)
	}
	if n == 0 {
		return s, 0
	}
	return s - 1, n
}

// atomsFile returns a state file like the loop's with n atoms, each
// five lines long.
func atomsFile(n int) []byte {
	var sb strings.Builder
	sb.WriteString("---\nloop: bench\niteration: 4\natoms:\n")
	for i := 1; i <= n; i++ {
		deps := ""
		switch {
		case i%3 == 0 && i > 2:
			deps = fmt.Sprintf("A%d, A%d", i-1, i-2)
		case i > 1:
			deps = fmt.Sprintf("A%d", i-1)
		}
		fmt.Fprintf(&sb, "  - id: A%d\n    description: Implement step %d of the feature\n    status: pending\n    depends_on: [%s]\n\n", i, i, deps)
	}
	sb.WriteString("---\n")
	return []byte(sb.String())
}

// correctAtoms returns the file with a correction of the kind the tool
// writes: atom n/2 resolved and five new atoms after it (27 changed
// lines in the middle), and three lines appended at the end.
func correctAtoms(file []byte, n int) []byte {
	s := string(file)
	mid := fmt.Sprintf("  - id: A%d\n    description: Implement step %d of the feature\n    status: pending\n", n/2, n/2)
	var added strings.Builder
	for j := 1; j <= 5; j++ {
		fmt.Fprintf(&added, "  - id: A%d.%d\n    description: Split part %d\n    status: pending\n    depends_on: [A%d]\n\n", n/2, j, j, n/2)
	}
	s = strings.Replace(s, mid, strings.Replace(mid, "pending", "resolved", 1), 1)
	next := fmt.Sprintf("  - id: A%d\n", n/2+1)
	s = strings.Replace(s, next, added.String()+next, 1)
	s = strings.TrimSuffix(s, "---\n") + "corrections:\n  - at: 4\n    note: split A" + strconv.Itoa(n/2) + "\n---\n"
	return []byte(s)
}

// TestUnifiedLargeFile is the case that used to print a whole-file
// rewrite: a small correction to a 1,000- or 10,000-atom file must give a
// short diff with exactly the 30 changed lines, that applies.
func TestUnifiedLargeFile(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		a := atomsFile(n)
		b := correctAtoms(a, n)
		d := Unified("state.md", "state.md (corrected)", a, b, 3)
		lines := strings.Count(d, "\n")
		if lines >= 60 {
			t.Errorf("%d atoms: the diff has %d lines:\n%s", n, lines, d)
		}
		if c := changedLines(d); c != 30 {
			t.Errorf("%d atoms: the diff changes %d lines, want 30:\n%s", n, c, d)
		}
		d2 := Unified("A", "B", a, b, 3)
		if got, err := applyUnified(a, d2, 3); err != nil || string(got) != string(b) {
			t.Errorf("%d atoms: the diff does not apply (%v)", n, err)
		}
		t.Logf("%d atoms, %d lines: a %d-line diff", n, strings.Count(string(a), "\n"), lines)
	}
	// At 200 atoms the reference does not give up, and agrees.
	a := atomsFile(200)
	b := correctAtoms(a, 200)
	if got, want := Unified("s", "s (corrected)", a, b, 3), refUnifiedDiff("s", a, b); got != want {
		t.Errorf("200 atoms: got\n%s\nwant\n%s", got, want)
	}
}
