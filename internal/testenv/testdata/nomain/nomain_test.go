// Package nomain is run by testenv's tests through go test: it calls Need
// without running its tests through testenv.Main.
package nomain

import (
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

func TestNeedWithoutMain(t *testing.T) {
	testenv.Need(t, "go")
}
