package ui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aot-loop/aot-tui/fleet"
)

// With the real watcher the help says what it watches.
func TestFleetFlowHelpSaysWhatIsWatched(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a", "b"} {
		dir := filepath.Join(root, p, ".claude")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join("..", "testdata", "seed-complete.md"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "aot-loop-state.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := startFleetFlow(t, root, 160, 40)
	f.waitFor("2 loops")
	f.keys("?")
	_, want, err := fleet.Plan([]string{root}, fleet.Options{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.waitFor("watch: " + want.String())
}
