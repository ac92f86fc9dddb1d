//go:build !unix && !windows

package verify

import "os/exec"

// platformProcTree: no process groups or jobs here, the shell alone is
// killed.
func platformProcTree(cmd *exec.Cmd) procTree { return newShellTree(cmd) }
