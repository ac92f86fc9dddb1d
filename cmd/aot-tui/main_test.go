package main

import (
	"os"
	"testing"
)

// TestMain shortens the CLI's guard after a correction (1 s by default)
// for the tests that do not test the guard itself: they run hundreds of
// corrections. Tests of the guard pass --guard.
func TestMain(m *testing.M) {
	if os.Getenv("AOT_TUI_GUARD") == "" {
		os.Setenv("AOT_TUI_GUARD", "20ms")
	}
	os.Exit(m.Run())
}
