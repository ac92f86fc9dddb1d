// Package tmuxrun runs aot-tui in a real terminal — a tmux server of its
// own — and reads what Linux /proc says about the process, for the
// measuring scripts (scripts/perf, scripts/fleetperf). Errors end the
// program with a message: these are scripts, not library code.
package tmuxrun

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// UserHZ is USER_HZ on Linux: the clock ticks of /proc/PID/stat per second.
const UserHZ = 100

// Session is a tmux server of its own (socket Socket) with one session
// "p" whose pane runs the command given to Start.
type Session struct {
	Socket string
	// name prefixes the messages a failure prints ("perf", "fleetperf").
	name string
}

// Start starts a tmux server named after the script (name) with a
// width×height pane running command through the shell.
func Start(name string, width, height int, command string) *Session {
	s := &Session{Socket: fmt.Sprintf("aot-%s-%d-%d", name, os.Getpid(), time.Now().UnixNano()), name: name}
	s.Tmux("-f", "/dev/null", "new-session", "-d", "-s", "p", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), command)
	return s
}

// Tmux runs a tmux command against the session's server and returns its
// output.
func (s *Session) Tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", s.Socket}, args...)...).CombinedOutput()
	if err != nil {
		Fail(fmt.Sprintf("tmux %v: %v: %s", args, err, out))
	}
	return string(out)
}

// Capture is the pane's text.
func (s *Session) Capture() string { return s.Tmux("capture-pane", "-p", "-t", "p") }

// WaitFor looks at the pane every poll until it shows text; false when it
// did not within timeout.
func (s *Session) WaitFor(text string, timeout, poll time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(s.Capture(), text) {
			return true
		}
		time.Sleep(poll)
	}
	return false
}

// PID is the pid of the pane's process.
func (s *Session) PID() int {
	p, err := strconv.Atoi(strings.TrimSpace(s.Tmux("display-message", "-p", "-t", "p", "#{pane_pid}")))
	if err != nil {
		Fail(s.name + ": no pane pid")
	}
	return p
}

// Stop kills the tmux server and what runs in it.
func (s *Session) Stop() { _ = exec.Command("tmux", "-L", s.Socket, "kill-server").Run() }

// CPUTicks is the user and system CPU time of pid, in UserHZ ticks.
func CPUTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		Fail(err.Error())
	}
	// Fields after the command name (which may contain spaces).
	f := strings.Fields(string(data)[strings.LastIndexByte(string(data), ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

// Status reads VmRSS, VmHWM (kB) and the thread count of pid.
func Status(pid int) (rss, hwm int64, threads int) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		Fail(err.Error())
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v
		case "VmHWM:":
			hwm = v
		case "Threads:":
			threads = int(v)
		}
	}
	return rss, hwm, threads
}

// Fail prints msg and exits with status 1.
func Fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}
