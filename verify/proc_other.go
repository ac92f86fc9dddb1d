//go:build !unix && !windows

package verify

import (
	"context"
	"os"
	"os/exec"
)

// shellCommand runs the command through the system's shell, %COMSPEC% or
// cmd.exe, as Python's subprocess with shell=True does on Windows.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	shell := os.Getenv("COMSPEC")
	if shell == "" {
		shell = "cmd.exe"
	}
	return exec.CommandContext(ctx, shell, "/c", command)
}

// platformProcTree: no process groups or jobs here, the shell alone is
// killed.
func platformProcTree(cmd *exec.Cmd) procTree { return newShellTree(cmd) }

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}
