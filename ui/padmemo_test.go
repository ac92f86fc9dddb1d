package ui

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A padMemo pads as padTo does, whatever lines it padded before: the same
// lines at the same places, lines changed, moved, added and removed, at
// one width and another, with styles and wide characters.
func TestPadMemoPadsAsPadTo(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 8))
	pieces := []string{"A12 ○", "\x1b[1m● done\x1b[0m", "│ ", "漢字", "──┐", "", "a much longer line of text that runs past the pane's edge"}
	line := func() string {
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	var p padMemo
	lines := []string{}
	for step := 0; step < 2000; step++ {
		switch k := r.IntN(6); {
		case k < 3 && len(lines) > 0:
			lines[r.IntN(len(lines))] = line()
		case k == 3:
			lines = append(lines, line())
		case k == 4 && len(lines) > 0:
			lines = slices.Delete(lines, 0, 1)
		}
		w := 20 + 10*r.IntN(2)
		got := slices.Clone(lines)
		p.pad(got, w)
		for i, l := range lines {
			if want := padTo(l, w); got[i] != want {
				t.Fatalf("step %d line %d at width %d: %q, want %q", step, i, w, got[i], want)
			}
		}
	}
	if len(p.raw) != len(lines) {
		t.Fatalf("kept %d lines, padded %d", len(p.raw), len(lines))
	}
}
