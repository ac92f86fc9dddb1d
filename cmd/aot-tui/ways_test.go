package main

import (
	"os"
	"runtime"
	"testing"

	"github.com/aot-loop/aot-tui/statefile"
)

// bothWays runs f as two subtests: "exchange", corrections written with
// the exchange (where the system has one), and "rename", with it switched
// off (AOT_TUI_EXCHANGE=off, here and in the aot-tui processes the test
// starts): the fallback of systems without one, which must keep the
// loop's writes as well (statefile's tests land a write in each window;
// TestLoopRenameJustBeforeOurRename shows the one it cannot keep).
func bothWays(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("exchange", func(t *testing.T) {
		if !statefile.HasExchange() {
			t.Skipf("no exchange on %s: the rename subtest is the path writes take", runtime.GOOS)
		}
		f(t)
	})
	t.Run("rename", func(t *testing.T) {
		t.Setenv(statefile.ExchangeEnv, "off")
		f(t)
	})
}

// exchangeOff reports whether the test runs the rename fallback.
func exchangeOff() bool { return os.Getenv(statefile.ExchangeEnv) == "off" }
