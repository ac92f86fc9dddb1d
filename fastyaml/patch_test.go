package fastyaml

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/yamltext"
)

// TestPatchMatchesParseMemo: for edits inside entries, Edits finds each
// changed entry (or the whole section that is not lean) and Patch gives
// the memo ParseMemo records for the new text with the old memo as prev:
// the same entries at the same places and lines, taken from the same
// entries of the old memo, mapping keys on the same lines. Edits refuses
// changes between entries, a changed key, a changed indentation and a
// line count that changes above a section that is not lean.
func TestPatchMatchesParseMemo(t *testing.T) {
	lean := func(key string) bool { return key == "atoms" || key == "bindings" }
	memo := func(text string, prev *Memo) *Memo {
		t.Helper()
		yml := []byte(text)
		_, m, err := ParseMemo(yml, yamltext.NewLineMap(yml, 0), prev, lean)
		if err != nil || m == nil {
			t.Fatalf("ParseMemo: %v, memo %v", err, m)
		}
		m.Release()
		return m
	}
	low := strings.Replace(memoText, "control:\n  iteration: 1\n", "", 1) + "control:\n  iteration: 1\n"
	cases := []struct {
		name, base, old, new string
		edits                int // -1: refused
	}{
		{"status", memoText, "    status: pending\n", "    status: resolved\n", 1},
		{"iteration", memoText, "iteration: 1", "iteration: 22", 1},
		{"both", memoText, "iteration: 1\natoms:\n  - id: A1\n    status: pending", "iteration: 2\natoms:\n  - id: A1\n    status: done", 2},
		{"grows", memoText, "    status: pending\n", "    status: pending\n    note: |\n      a\n\n      b\n", 1},
		{"shrinks", memoText, "  - id: A2\n    status: pending\n", "  - id: A2\n", 1},
		{"binding grows", memoText, "    summary: one\n", "    summary: one\n    artifacts: [a]\n", 1},
		{"low control, atom grows", low, "    status: pending\n", "    status: pending\n    x: 1\n", -1},
		{"low control, atom and control", low, "    status: pending\n  - id: A2", "    status: pending\n    x: 1\n  - id: A2", -1},
		{"key changed", memoText, "  A2:\n", "  A3:\n", -1},
		{"indent changed", memoText, "  - id: A2\n", "   - id: A2\n", -1},
		{"between sections", memoText, "bindings:\n", "extra: 1\nbindings:\n", -1},
		{"entry added", memoText, "  - id: A2\n", "  - id: A9\n  - id: A2\n", -1},
		{"last entry grows", memoText, "    summary: two\n", "    summary: two\n    artifacts: []\n", 1},
		{"last atom grows", memoText, "  - id: A2\n    status: pending\n", "  - id: A2\n    status: pending\n    x: 1\n", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m1 := memo(c.base, nil)
			next := strings.Replace(c.base, c.old, c.new, 1)
			if next == c.base {
				t.Fatal("no change")
			}
			edits, ok := m1.Edits([]byte(next), 8)
			if !ok {
				if c.edits >= 0 {
					t.Fatalf("Edits refused it")
				}
				return
			}
			if c.edits < 0 || len(edits) != c.edits {
				t.Fatalf("Edits: %+v, want %d", edits, c.edits)
			}
			got, want := m1.Patch([]byte(next), edits), memo(next, m1)
			for key, ws := range want.sections {
				gs := got.sections[key]
				if (ws == nil) != (gs == nil) {
					t.Fatalf("%s: section %v, want %v", key, gs, ws)
				}
				if ws == nil {
					continue
				}
				if gs.bare {
					// A section read again: one entry spanning its entries.
					if gs.entries[0].start != ws.entries[0].start || gs.end() != ws.end() {
						t.Fatalf("%s: bare section at %d-%d, want %d-%d", key, gs.entries[0].start, gs.end(), ws.entries[0].start, ws.end())
					}
					continue
				}
				if len(gs.entries) != len(ws.entries) {
					t.Fatalf("%s: %d entries, want %d", key, len(gs.entries), len(ws.entries))
				}
				G, W := Section{gs}, Section{ws}
				for i := range ws.entries {
					ga, gb, _ := G.Span(i)
					wa, wb, _ := W.Span(i)
					gf, gd, _ := G.Origin(i)
					wf, wd, _ := W.Origin(i)
					if ga != wa || gb != wb || G.Line(i) != W.Line(i) || gf != wf || (gf >= 0 && gd != wd) {
						t.Fatalf("%s[%d]: %d-%d line %d from %d (%+d), want %d-%d line %d from %d (%+d)", key, i, ga, gb, G.Line(i), gf, gd, wa, wb, W.Line(i), wf, wd)
					}
					if gk, wk := gs.node(i).key, ws.node(i).key; (gk == nil) != (wk == nil) || gk != nil && (gk.Line != wk.Line || gk.Value != wk.Value) {
						t.Fatalf("%s[%d]: key %v, want %v", key, i, gk, wk)
					}
				}
			}
		})
	}
}
