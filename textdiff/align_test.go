package textdiff

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// An entry added after one that ends with the same line shows as the whole
// new entry, not as the previous entry's last line and the new one but its
// last (what Diff's alignment gives).
func TestUnifiedAlignedShowsWholeEntries(t *testing.T) {
	// A force-OR: the selection changes above, an entry is added below.
	a := `selected: A5
trail:
  - or_group: g
    selected: A5
corrections:
  - timestamp: "11:00"
    type: constraint_change
    trail_cleared: false
  - timestamp: "11:20"
    type: dag_adjustment
    trail_cleared: false
---

# Prompt
`
	b := strings.Replace(a, "---\n", `  - timestamp: "12:00"
    type: dag_adjustment
    trail_cleared: false
---
`, 1)
	b = strings.Replace(b, "selected: A5\ntrail", "selected: A6\ntrail", 1)
	want := `--- f
+++ f (corrected)
@@ -1,4 +1,4 @@
-selected: A5
+selected: A6
 trail:
   - or_group: g
     selected: A5
@@ -9,6 +9,9 @@
   - timestamp: "11:20"
     type: dag_adjustment
     trail_cleared: false
+  - timestamp: "12:00"
+    type: dag_adjustment
+    trail_cleared: false
 ---
 
 # Prompt
`
	if got := UnifiedAligned("f", "f (corrected)", []byte(a), []byte(b), 3); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// Diff's own alignment is another: the new entry's first line comes
	// after the old entry's first, and Unified prints it so, as it did.
	if got := Unified("f", "f (corrected)", []byte(a), []byte(b), 3); !strings.Contains(got, "  - timestamp: \"11:20\"\n+    type: dag_adjustment\n") {
		t.Fatalf("Unified changed:\n%s", got)
	}
	// A paragraph added after a blank line keeps the blank line before it.
	a, b = "A\n\nC\n", "A\n\nB\n\nC\n"
	if got := UnifiedAligned("f", "f (corrected)", []byte(a), []byte(b), 0); got != "--- f\n+++ f (corrected)\n@@ -2,0 +3,2 @@\n+B\n+\n" {
		t.Fatalf("paragraph:\n%s", got)
	}
}

// indentedLines returns up to maxN lines like a YAML file's: a few words
// at three indentations, sequence items, and blank lines.
func indentedLines(r *rand.Rand, maxN int) []string {
	words := []string{"a\n", "b\n", "- c\n", "\n", "x: 1\n"}
	indents := []string{"", "  ", "    "}
	lines := make([]string, r.IntN(maxN+1))
	for i := range lines {
		w := words[r.IntN(len(words))]
		if w == "\n" {
			lines[i] = w
			continue
		}
		lines[i] = indents[r.IntN(len(indents))] + w
	}
	return lines
}

// Align keeps a diff a diff: on random inputs its ops still turn a into b
// with Diff's invariants and exactly as many changed lines, and the
// unified diff it prints applies.
func TestAlignKeepsTheDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 6))
	moved := 0
	for i := range 4000 {
		var a, b []string
		if i%2 == 0 {
			a, b = indentedLines(r, 14), indentedLines(r, 14)
		} else {
			a = indentedLines(r, 80)
			b = append([]string(nil), a...)
			for range 1 + r.IntN(4) {
				at := r.IntN(len(b) + 1)
				if r.IntN(2) == 0 && at < len(b) {
					b = append(b[:at], b[at+min(1+r.IntN(3), len(b)-at):]...)
					continue
				}
				b = append(b[:at], append(indentedLines(r, 4), b[at:]...)...)
			}
		}
		ops := Diff(a, b)
		want, err := checkDiff(a, b, ops)
		if err != nil {
			t.Fatal(err)
		}
		aligned := Align(a, b, ops)
		got, err := checkDiff(a, b, aligned)
		if err != nil || got != want {
			t.Fatalf("aligned: %v, %d changed lines, want %d\na = %q\nb = %q\nops %v\naligned %v", err, got, want, a, b, ops, aligned)
		}
		if !slices.Equal(aligned, ops) {
			moved++
		}
		ab, bb := []byte(strings.Join(a, "")), []byte(strings.Join(b, ""))
		d := UnifiedAligned("A", "B", ab, bb, i%4)
		if applied, err := applyUnified(ab, d, i%4); err != nil || string(applied) != string(bb) {
			t.Fatalf("the aligned diff does not apply (%v)\na = %q\nb = %q\n%s", err, a, b, d)
		}
	}
	if moved < 100 {
		t.Fatalf("Align moved a run in %d diffs of 4000: the test hardly exercises it", moved)
	}
}
