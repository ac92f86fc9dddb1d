package gen

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoopWrites: each version differs from the one before in one atom's
// status and the iteration, and nothing else.
func TestLoopWrites(t *testing.T) {
	base := Generate(Options{Atoms: 50, Seed: 2})
	next := LoopWrites(base)
	prev := base
	for n := 0; n < 5; n++ {
		v := next()
		a, b := strings.Split(string(prev), "\n"), strings.Split(string(v), "\n")
		if len(a) != len(b) {
			t.Fatalf("write %d changed the number of lines", n)
		}
		var changed []string
		for i := range a {
			if a[i] != b[i] {
				changed = append(changed, strings.TrimSpace(b[i]))
			}
		}
		if len(changed) != 2 || !strings.HasPrefix(changed[0], "iteration: 10") || !strings.HasPrefix(changed[1], "status: ") {
			t.Fatalf("write %d changed %q, want the iteration and one status", n, changed)
		}
		prev = v
	}
	if got := LoopWrites([]byte("no state here\n"))(); !bytes.Equal(got, []byte("no state here\n")) {
		t.Fatalf("a file without atoms or iteration became %q", got)
	}
}
