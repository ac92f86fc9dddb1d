//go:build !unix

package verify

import (
	"context"
	"os"
	"os/exec"
)

// shellCommand is Python's subprocess with shell=True on Windows:
// %COMSPEC% /c COMMAND.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	shell := os.Getenv("COMSPEC")
	if shell == "" {
		shell = "cmd.exe"
	}
	return exec.CommandContext(ctx, shell, "/c", command)
}

func setProcessGroup(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}
