package testenv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// A test that needs another process to hold something — a lock, a lease,
// an open form — starts the test binary again as that process: a helper.
// The package's TestMain calls ServeHelper first, and the test calls
// StartHelper.

// ServeHelper makes this process the helper when the variable env is set:
// play(its value) takes what the helper holds, then the helper says ready
// on stdout and waits to be killed (so that no clean-up runs); if play
// fails it says "error: …" and exits 2. Without env it returns at once.
func ServeHelper(env, ready string, play func(value string) error) {
	v := os.Getenv(env)
	if v == "" {
		return
	}
	if err := play(v); err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println(ready)
	select {}
}

// StartHelper starts the test binary as the helper, with env set to value
// and no tests to run, and waits for it to say ready: a helper that says
// anything else fails t ("the other process did not <what>"). The helper
// is killed (SIGKILL) when t ends, if the test has not killed it.
func StartHelper(t testing.TB, env, value, ready, what string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != ready+"\n" {
		t.Fatalf("the other process did not %s: %q %v", what, line, err)
	}
	return cmd
}
