//go:build !unix

package notify

import "os/exec"

// treeKillSupported is false here: the timeout kills the command itself
// (exec's default), and a child it started is left to finish; its
// output is given up on a second later (WaitDelay).
const treeKillSupported = false

func killTreeOnCancel(*exec.Cmd) {}
