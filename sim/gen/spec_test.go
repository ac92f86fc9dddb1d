package gen

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFiles writes generated state files for timing the whole binary
// by hand: AOT_TUI_GEN_DIR=/tmp/gen go test -run TestWriteFiles ./sim/gen
// writes /tmp/gen/N/.claude/aot-loop-state.md for N in 1000 and 10000,
// then e.g. hyperfine 'aot-tui status --json -f /tmp/gen/10000'. Without
// the variable it does nothing.
func TestWriteFiles(t *testing.T) {
	dir := os.Getenv("AOT_TUI_GEN_DIR")
	if dir == "" {
		t.Skip("AOT_TUI_GEN_DIR not set")
	}
	for _, n := range []int{1000, 10000} {
		data, _ := GenerateSpec(n, 1)
		path := filepath.Join(dir, strconv.Itoa(n), ".claude", "aot-loop-state.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGenerateSpecIsDeterministic(t *testing.T) {
	a, _ := GenerateSpec(500, 7)
	b, _ := GenerateSpec(500, 7)
	c, _ := GenerateSpec(500, 8)
	if string(a) != string(b) || string(a) == string(c) {
		t.Error("GenerateSpec is not a function of its size and seed")
	}
}
