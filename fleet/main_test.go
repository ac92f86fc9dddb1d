package fleet

import (
	"os"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain reports the tests skipped for want of git (testenv).
// Run with AOT_FLEET_FAR_SIDE set, the test binary plays a remote host's
// `status --scan --json --follow` instead (remote_test.go).
func TestMain(m *testing.M) {
	if mode := os.Getenv("AOT_FLEET_FAR_SIDE"); mode != "" {
		farSide(mode)
		return
	}
	os.Exit(testenv.Main(m))
}
