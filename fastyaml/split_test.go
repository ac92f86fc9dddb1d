package fastyaml

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseSplitRefusesOrAgrees(t *testing.T) {
	atoms := func(n int, item string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, item, i)
		}
		return b.String()
	}
	tests := []struct {
		name string
		yml  string
		take bool
	}{
		{"plain", "objective: {}\natoms:\n" + atoms(20, "  - id: A%d\n    status: pending\n"), true},
		{"unindented sequence", "atoms:\n" + atoms(20, "- id: A%d\n  depends_on: []\n") + "trail: []\n", true},
		{"bindings hold the middle", "atoms: []\nbindings:\n" + atoms(20, "  A%d:\n    summary: |\n      text\n\n    artifacts: []\n") + "trail: []\n", true},
		{"alias to an anchor before the cut", "x: &d [A1]\natoms:\n" + atoms(20, "  - id: A%d\n    depends_on: *d\n"), false},
		{"anchor redefined after the cut", "atoms:\n  - &a {id: A0}\n" + atoms(10, "  - id: A%d\n") + "  - &a {id: B}\n  - *a\n" + atoms(10, "  - id: C%d\n"), true},
		{"flow list over the cut", "atoms: [\n" + atoms(20, "  - id: A%d,\n") + "]\n", false},
		{"quoted text over the cut", "goal: \"start\n" + atoms(20, "  - id: A%d\n") + "end\"\natoms: []\n", false},
		{"document end marker", "atoms:\n" + atoms(20, "  - id: A%d\n") + "...\nmore: 1\n", false},
		{"directive", "%YAML 1.2\natoms:\n" + atoms(20, "  - id: A%d\n"), false},
		{"line separator", "goal: \"a\u2028b\"\natoms:\n" + atoms(20, "  - id: A%d\n"), false},
		{"block scalar keeping blank lines", "atoms:\n" + atoms(20, "  - id: A%d\n    note: |+\n      kept\n\n") + "trail: []\n", true},
		{"comments at the cut", "atoms:\n" + atoms(20, "  # item %d\n  - id: X\n") + "# end\ntrail: []\n", true},
		{"duplicate top-level keys", "atoms:\n" + atoms(20, "  - id: A%d\n") + "atoms: []\n", true},
		{"mapping at column 1 is not cut", "bindings:\n" + atoms(20, "A%d: {}\n"), false},
		{"bad indentation after the cut", "atoms:\n" + atoms(10, "  - id: A%d\n") + " x: 1\n" + atoms(10, "  - id: B%d\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if took := checkSplit(t, []byte(tt.yml)); took != tt.take {
				t.Errorf("split taken = %v, want %v", took, tt.take)
			}
		})
	}
}
