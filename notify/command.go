package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// commandSink runs a program for each event: argv as given (no shell),
// the event in AOT_* environment variables and as JSON on stdin.
type commandSink struct {
	argv    []string
	timeout time.Duration
	// killTree: the timeout kills the processes the command started as
	// well (treeKillSupported; tests turn it off to run the fallback).
	killTree bool
}

func (c *commandSink) name() string { return "command " + clean(c.argv[0], 100) }

// deliver runs the command once and waits for it, killing it at the
// timeout with what it started (where the system can: killTreeOnCancel),
// and giving up on its output a second later, when a child it started
// still holds it.
func (c *commandSink) deliver(ctx context.Context, ev Event) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Env = append(os.Environ(), ev.Env()...)
	cmd.Stdin = bytes.NewReader(append(ev.JSON(), '\n'))
	var stderr capped
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if c.killTree {
		killTreeOnCancel(cmd)
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0", nil
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("still running after %v: killed (notify.timeout)", c.timeout)
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Errorf("%s: not found (give its path, or put it on PATH)", c.argv[0])
	case errors.As(err, &ee):
		msg := ee.ProcessState.String() // "exit status 1", "signal: killed"
		if line := stderr.firstLine(); line != "" {
			msg += ": " + line
		}
		return "", errors.New(msg)
	}
	return "", err
}

// capped keeps the first 4 KiB written to it.
type capped struct{ buf bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := 4096 - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// firstLine is the first non-blank line kept.
func (c *capped) firstLine() string { return firstLine(c.buf.String()) }

// firstLine is the first non-blank line of s, sanitised and cut short.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if s := strings.TrimSpace(line); s != "" {
			return clean(s, 200)
		}
	}
	return ""
}
