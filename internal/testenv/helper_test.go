package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

const helperEnv = "AOT_TUI_TESTENV_HELPER"

// TestMain serves the helper of the tests below: with helperEnv=PATH it
// writes its PID to PATH and holds; with helperEnv=fail it cannot. With
// versionEnv set, run as PROGRAM --version, it plays a program whose
// --version prints that (TestNeedGNUSed).
func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv(versionEnv); ok && len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(v)
		os.Exit(0)
	}
	ServeHelper(helperEnv, "holding", func(path string) error {
		if path == "fail" {
			return errors.New("nothing to hold")
		}
		return os.WriteFile(path, []byte(fmt.Sprint(os.Getpid())), 0o644)
	})
	os.Exit(m.Run())
}

// The helper has played its part when StartHelper returns, and lives until
// it is killed.
func TestStartHelperWaitsForTheHelper(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pid")
	cmd := StartHelper(t, helperEnv, path, "holding", "hold")
	if data, err := os.ReadFile(path); err != nil || string(data) != fmt.Sprint(cmd.Process.Pid) {
		t.Fatalf("the helper's part: %q %v; want its PID %d", data, err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper ended by itself; it must hold until it is killed")
	}
}

// fatalTB stops at its first Fatalf and keeps the message.
type fatalTB struct {
	*testing.T
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// A helper that cannot play its part fails the test, with what it said.
func TestStartHelperFailsWhenTheHelperCannotHold(t *testing.T) {
	f := &fatalTB{T: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != f {
				panic(r)
			}
		}()
		StartHelper(f, helperEnv, "fail", "holding", "hold")
	}()
	if want := `the other process did not hold: "error: nothing to hold\n" <nil>`; f.msg != want {
		t.Fatalf("StartHelper failed with %q, want %q", f.msg, want)
	}
}
