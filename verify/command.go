package verify

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// waitDelay is how long a finished shell's output pipes may stay open
// (held by a process it left in the background) before they are closed.
const waitDelay = 500 * time.Millisecond

// runCommand runs a command or not_command check as verify_command.py
// does: through the shell, in Dir, with a timeout. Unlike the script it
// gives the command no stdin (it must not read the terminal), kills the
// whole process tree (procTree) on a timeout and when the command is done
// (so nothing it started lingers), keeps what was written before a timeout,
// and fails a not_command whose program could not be found: its failing
// proves nothing.
func (r *runner) runCommand(res *Result, expectFail bool) {
	if strings.TrimSpace(res.Value) == "" {
		res.Outcome = Fail
		res.ExitCode = -1
		res.Evidence = "No command given"
		res.Reason = "the check's value is empty: there is no command to run"
		return
	}
	timeout := r.opts.timeout()
	ctx, cancel := context.WithTimeout(r.ctx, timeout)
	defer cancel()
	cmd := shellCommand(ctx, res.Value)
	cmd.Dir = r.opts.Dir
	cmd.Env = r.opts.Env
	limit := r.opts.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	stdout, stderr := newCapture(limit), newCapture(limit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	tree := newProcTree(cmd)
	defer tree.close()
	cmd.Cancel = tree.kill
	cmd.WaitDelay = waitDelay
	err := cmd.Start()
	if err == nil {
		tree.started(cmd)
		err = cmd.Wait()
		_ = tree.kill() // what it left running in the background
	}
	res.Stdout, res.Stderr = stdout.output(), stderr.output()
	res.Ran = cmd.Process != nil
	res.ExitCode = -1
	var exitErr *exec.ExitError
	switch {
	case r.ctx.Err() != nil:
		res.Outcome = NotRun
		res.Evidence = "Command stopped before it finished"
		res.Reason = "not run to the end: the run was stopped while this command ran"
		return
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		res.Outcome = Fail
		res.TimedOut = true
		res.Evidence = "Command timed out after " + seconds(timeout)
		res.Reason = "timed out after " + seconds(timeout) + "; " + tree.killed()
		return
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		res.ExitCode = exitCode(cmd.ProcessState)
	case errors.As(err, &exitErr):
		res.ExitCode = exitCode(exitErr.ProcessState)
	default:
		res.Outcome = Fail
		res.Evidence = "Command failed to execute: " + err.Error()
		res.Reason = "the shell could not be started: " + err.Error()
		return
	}
	code := res.ExitCode
	if code == 126 || code == 127 {
		res.NotFound = true
		what := "find"
		if code == 126 {
			what = "execute"
		}
		res.Reason = "the shell could not " + what + " the program (exit " + strconv.Itoa(code) + ")"
		if line := lastLine(res.Stderr.Text); line != "" {
			res.Reason += ": " + line
		}
	}
	passed := code == 0
	switch {
	case !expectFail && passed:
		res.Evidence = fmt.Sprintf("Command exited with code %d (success)", code)
	case !expectFail:
		res.Evidence = fmt.Sprintf("Command exited with code %d (failure)", code)
	case res.NotFound:
		passed = false
		res.Evidence = fmt.Sprintf("Command exited with code %d (the program could not be run, which proves nothing)", code)
	case code != 0:
		passed = true
		res.Evidence = fmt.Sprintf("Command exited with code %d (expected non-zero)", code)
	default:
		passed = false
		res.Evidence = "Command exited with code 0 (expected failure)"
	}
	res.Outcome = Fail
	if passed {
		res.Outcome = Pass
	}
}

// seconds formats a timeout as the script does ("120s"), with a fraction
// when there is one ("0.5s").
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// lastLine is the last non-blank line of s (the shell's complaint).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// OutputSummary is verify_command.py's output_summary: up to 2,000
// characters of stdout and, for a check that did not pass, "STDERR: " and
// up to 500 characters of stderr, at most 3,000 characters in all; after
// a timeout, the timeout's message.
func (r *Result) OutputSummary() string {
	if r.TimedOut {
		return r.Evidence
	}
	if !r.Ran {
		return ""
	}
	var parts []string
	if out := pyText(r.Stdout.Text); out != "" {
		parts = append(parts, prefixRunes(prefixRunes(out, 5000), 2000))
	}
	if errText := pyText(r.Stderr.Text); errText != "" && r.Outcome != Pass {
		parts = append(parts, "STDERR: "+prefixRunes(prefixRunes(errText, 2000), 500))
	}
	return prefixRunes(strings.Join(parts, "\n"), 3000)
}

// pyText is output as Python reads it in text mode: universal newlines.
func pyText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// prefixRunes is s[:n] in characters, as Python slices a str.
func prefixRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// capture keeps the first and the last half of limit bytes written to it.
type capture struct {
	half  int
	head  []byte
	tail  []byte
	total int64
}

func newCapture(limit int) *capture { return &capture{half: max(1, limit/2)} }

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.half - len(c.head); room > 0 {
		take := min(room, len(p))
		c.head = append(c.head, p[:take]...)
		p = p[take:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		if len(c.tail) > 2*c.half {
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.half:]...)
		}
	}
	return n, nil
}

func (c *capture) output() Output {
	tail := c.tail
	if len(tail) > c.half {
		tail = tail[len(tail)-c.half:]
	}
	kept := int64(len(c.head) + len(tail))
	return Output{
		Text:    string(c.head) + string(tail),
		Bytes:   c.total,
		Omitted: c.total - kept,
		Cut:     len(c.head),
	}
}
