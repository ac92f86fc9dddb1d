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
	// A base already at iteration 100 or beyond (1,000 atoms with 30 %
	// resolved is at 100): the first version's iteration is still new.
	for _, atoms := range []int{1000, 4000} {
		base := Generate(Options{Atoms: atoms, Seed: 11, Resolved: 0.3})
		was := iterationLine(t, base)
		if now := iterationLine(t, LoopWrites(base)()); now == was {
			t.Fatalf("%d atoms: the first write left %q as it was", atoms, now)
		}
	}
	if got := LoopWrites([]byte("no state here\n"))(); !bytes.Equal(got, []byte("no state here\n")) {
		t.Fatalf("a file without atoms or iteration became %q", got)
	}
}

func iterationLine(t *testing.T, data []byte) string {
	t.Helper()
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "  iteration: ") {
			return l
		}
	}
	t.Fatal("no iteration line")
	return ""
}
