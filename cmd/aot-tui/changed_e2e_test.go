package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// The user's report, with the built binary: after touch -d '3 hours ago'
// on the state file, aot-tui's header says "changed 3h ago" (it said
// "2s ago" — counted from its own start — while the fleet table said 3h,
// and a dead loop looked alive).
func TestE2EHeaderCountsFromTheFilesTime(t *testing.T) {
	path := copyFixture(t, "seed-complete.md")
	old := time.Now().Add(-3*time.Hour - 10*time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 160, 30, []string{"NO_COLOR=1"}, binary(t), "--no-journal", path)
	screen := s.waitFor("iteration 5/20", "changed 3h ago")
	if strings.Contains(screen, "changed 0s ago") || strings.Contains(screen, "changed 1s ago") {
		t.Fatalf("the header counts from aot-tui's start:\n%s", screen)
	}
}
