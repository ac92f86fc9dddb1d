//go:build unix

package notify

import (
	"errors"
	"os"
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
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			// Already gone: not a failure of the command's (exec.Cmd.Cancel).
			return os.ErrProcessDone
		}
		return err
	}
}
