package statefile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/stategen"
	"gopkg.in/yaml.v3"
)

// sameTree reports where two node trees differ in anything but comments.
func sameTree(a, b *yaml.Node, path string) error {
	switch {
	case a == nil || b == nil:
		if a != b {
			return fmt.Errorf("%s: one tree is nil", path)
		}
		return nil
	case a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content):
		return fmt.Errorf("%s: %+v\n  vs %+v", path, *a, *b)
	case a.Kind == yaml.AliasNode:
		if a.Alias.Line != b.Alias.Line || a.Alias.Column != b.Alias.Column {
			return fmt.Errorf("%s: aliases point at different nodes", path)
		}
		return nil
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkSplit asserts that when parseSplit accepts yml, its tree is the tree
// of a whole parse. It reports whether the split was taken.
func checkSplit(t *testing.T, yml []byte) bool {
	t.Helper()
	split := parseSplit(yml)
	if split == nil {
		return false
	}
	whole, err := parseWhole(yml)
	if err != nil {
		t.Fatalf("parseSplit accepted YAML that yaml.v3 rejects: %v", err)
	}
	if err := sameTree(split, whole, "root"); err != nil {
		t.Fatalf("parseSplit differs from a whole parse: %v", err)
	}
	return true
}

func TestParseSplitGenerated(t *testing.T) {
	for _, n := range []int{50, 1000, 10000} {
		for seed := range uint64(3) {
			data, _ := stategen.Generate(n, seed)
			fm, err := SplitFrontmatter(data)
			if err != nil {
				t.Fatal(err)
			}
			if !checkSplit(t, fm.YAML(data)) {
				t.Errorf("%d atoms, seed %d: the template layout was not split", n, seed)
			}
		}
	}
}

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
