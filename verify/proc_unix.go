//go:build unix

package verify

import (
	"context"
	"os"
	"os/exec"
	"syscall"
)

// shellCommand is Python's subprocess with shell=True on POSIX:
// /bin/sh -c COMMAND.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}

// groupTree starts the shell in a process group of its own, so that a
// timeout kills what it started as well.
type groupTree struct{ cmd *exec.Cmd }

func platformProcTree(cmd *exec.Cmd) procTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &groupTree{cmd: cmd}
}

func (t *groupTree) started(*exec.Cmd) {}

func (t *groupTree) kill() error {
	if t.cmd.Process == nil {
		return os.ErrProcessDone
	}
	err := syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}

func (t *groupTree) close() {}

func (t *groupTree) killed() string { return "its process group was killed" }

// exitCode is the code as Python's returncode has it: -N when a signal N
// ended the process.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal())
	}
	return ps.ExitCode()
}
