package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain shortens the CLI's guard after a correction (1 s by default)
// for the tests that do not test the guard itself: they run hundreds of
// corrections. Tests of the guard pass --guard. It keeps the journals of
// every TUI the tests start (and of the binary they run) in a directory of
// its own, never the user's state directory (XDG_STATE_HOME, which every
// system honours first: history.DefaultJournalDir), and reads Claude
// Code's transcripts (CLAUDE_CONFIG_DIR) and the config files
// (XDG_CONFIG_HOME) from there too. It reports the tests
// skipped for want of tmux, python3 or git (testenv).
func TestMain(m *testing.M) {
	if os.Getenv("AOT_TUI_GUARD") == "" {
		os.Setenv("AOT_TUI_GUARD", "20ms")
	}
	state, err := os.MkdirTemp("", "aot-tui-test-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	// Claude Code's transcripts: the tests' own, never the user's.
	os.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(state, "claude"))
	// The config files too: a person's notify.command never runs from a test.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(state, "config"))
	code := testenv.Main(m)
	os.RemoveAll(state)
	os.Exit(code)
}
