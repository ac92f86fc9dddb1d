//go:build !unix

package verify

import (
	"context"
	"os"
	"os/exec"
)

// shellCommand is Python's subprocess with shell=True off Unix (Windows):
// %COMSPEC% /c COMMAND, cmd.exe when COMSPEC is unset.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	shell := os.Getenv("COMSPEC")
	if shell == "" {
		shell = "cmd.exe"
	}
	return exec.CommandContext(ctx, shell, "/c", command)
}

// exitCode is the process's exit code (no signals here).
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}
