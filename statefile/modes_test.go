package statefile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// bothWays runs f as two subtests: "exchange", the write protocol with the
// exchange (where this system and file system have one), and "rename", the
// fallback of systems without one (and of AOT_TUI_EXCHANGE=off), which
// must keep the loop's writes just as well.
func bothWays(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("exchange", func(t *testing.T) {
		if !exchangeWorks(t) {
			t.Skipf("no exchange here (%s, or the file system refuses it): the rename subtest is the path writes take", runtime.GOOS)
		}
		f(t)
	})
	t.Run("rename", func(t *testing.T) {
		withoutExchange(t)
		f(t)
	})
}

// withoutExchange switches the exchange off for the rest of the test.
func withoutExchange(t *testing.T) {
	t.Helper()
	exchangeOff.Store(true)
	t.Cleanup(func() { exchangeOff.Store(false) })
}

// exchangeWorks reports whether install's exchange works in the test's
// temp directories.
func exchangeWorks(t *testing.T) bool {
	t.Helper()
	if on, _ := exchangeOn(); !on {
		return false
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok, err := swap(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// needHeld skips a rename-way test that lands a loop write in the instant
// before the rename where the fallback cannot hold the replaced file open
// to see it (Windows: see hold_windows.go; TestWindowsReplace* run that
// path on every system).
func needHeld(t *testing.T) {
	t.Helper()
	if exchangeOff.Load() && !holdsReplaced {
		t.Skip("Windows cannot replace a file held open, so its rename does not hold the file it replaces and a loop write landing in the instant before is lost (README)")
	}
}
