//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// treeKillSupported: a command and every process it started can be
// killed together (its own process group).
const treeKillSupported = true

// killTreeOnCancel starts cmd in a process group of its own and makes its
// cancel kill the whole group: a notify script that started a child
// (curl in the background, a sleep) leaves nothing running after the
// timeout.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
