package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// runCmd runs cmd (the built aot-tui, mostly) with no stdin and returns
// its exit code, stdout and stderr. A run that has not ended after a
// minute is killed and fails the test: a liveness bound (a read that
// blocks on a named pipe, a TUI that waits when it should refuse), not a
// timing assertion.
func runCmd(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s %s did not return: it blocked", cmd.Path, strings.Join(cmd.Args[1:], " "))
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// runBin runs the aot-tui at bin with args (see runCmd).
func runBin(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, exec.Command(bin, args...))
}
