package main

import (
	"os"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain shortens the CLI's guard after a correction (1 s by default)
// for the tests that do not test the guard itself: they run hundreds of
// corrections. Tests of the guard pass --guard. It reports the tests
// skipped for want of tmux, python3 or git (testenv).
func TestMain(m *testing.M) {
	if os.Getenv("AOT_TUI_GUARD") == "" {
		os.Setenv("AOT_TUI_GUARD", "20ms")
	}
	os.Exit(testenv.Main(m))
}
