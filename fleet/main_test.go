package fleet

import (
	"os"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain reports the tests skipped for want of git (testenv).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
