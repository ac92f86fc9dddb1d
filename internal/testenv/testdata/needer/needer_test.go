// Package needer is run by testenv's tests through go test: two tests
// need a program no machine has, one needs go.
package needer

import (
	"os"
	"testing"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

func TestNeedsAMissingProgram(t *testing.T) {
	testenv.Need(t, "aot-tui-testenv-missing")
	t.Fatal("Need returned without the program")
}

func TestNeedsItToo(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		testenv.Need(t, "aot-tui-testenv-missing")
		t.Fatal("Need returned without the program")
	})
}

func TestNeedsGo(t *testing.T) {
	if p := testenv.Need(t, "go"); p == "" {
		t.Fatal("Need found no path for go")
	}
}
