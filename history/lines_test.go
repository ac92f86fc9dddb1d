package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/textdiff"
)

func TestSplitGivesSplitLines(t *testing.T) {
	for _, s := range []string{"", "a", "a\n", "\n", "\n\n", "a\nb", "a\r\nb\r\n", "a\n\nb\n", "x\ry\n"} {
		tx := split([]byte(s))
		var got []string
		for i := range tx.lines() {
			got = append(got, string(tx.line(i)))
		}
		if want := textdiff.SplitLines(s); !slices.Equal(got, want) {
			t.Errorf("split(%q) = %q, want %q", s, got, want)
		}
		if n := tx.lines(); string(tx.span(0, n)) != s {
			t.Errorf("span of all of %q = %q", s, tx.span(0, n))
		}
	}
}

// diff must give textdiff.Diff's very ops (the journal's records are
// what they were), on small edits, on edits far apart, and on texts so
// different that the greedy search gives up.
func TestDiffIsTextdiffDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	check := func(name string, a, b string) {
		t.Helper()
		ta, tb := split([]byte(a)), split([]byte(b))
		got := diff(&ta, &tb)
		want := textdiff.Diff(textdiff.SplitLines(a), textdiff.SplitLines(b))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: diff\n%v\nwant\n%v", name, got, want)
		}
	}
	// Random texts from a small alphabet of lines, with random edits.
	alphabet := []string{"a\n", "b\n", "c\n", "a\r\n", "status: x\n", "\n", "d"}
	randText := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = alphabet[r.IntN(len(alphabet)-1)]
		}
		if n > 0 && r.IntN(3) == 0 {
			out[n-1] = alphabet[len(alphabet)-1] // no final newline
		}
		return out
	}
	for i := range 3000 {
		a := randText(r.IntN(40))
		b := slices.Clone(a)
		for range r.IntN(6) {
			k := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = slices.Insert(b, k, alphabet[r.IntN(len(alphabet)-1)])
			case 1:
				if k < len(b) {
					b = slices.Delete(b, k, k+1)
				}
			case 2:
				if k < len(b) {
					b[k] = alphabet[r.IntN(len(alphabet)-1)]
				}
			}
		}
		if r.IntN(10) == 0 {
			b = randText(r.IntN(40))
		}
		check(fmt.Sprint("random ", i), strings.Join(a, ""), strings.Join(b, ""))
	}
	// A loop's writes on a big file.
	versions := evolve(300, 40, 7)
	for i := 1; i < len(versions); i++ {
		check(fmt.Sprint("version ", i), string(versions[i-1]), string(versions[i]))
	}
	check("to empty", string(versions[0]), "")
	check("from empty", "", string(versions[0]))
	// Past the greedy search's bound: every line differs.
	var x, y strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&x, "%d\n", (i*7919)%13)
		fmt.Fprintf(&y, "%d\n", (i*104729+17)%11)
	}
	check("unrelated", x.String(), y.String())
	check("crlf", string(versions[0]), strings.ReplaceAll(string(versions[0]), "\n", "\r\n"))
}
