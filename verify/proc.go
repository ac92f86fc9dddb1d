package verify

import (
	"errors"
	"os"
	"os/exec"
)

// procTree kills a command and what it started: on Unix its process
// group, on Windows its job object, elsewhere the shell alone
// (shellTree). runCommand makes one before the command starts, tells it
// once the command has started, kills it when the timeout strikes (the
// command's Cancel) and again once the command is done (what it left in
// the background), and closes it last.
type procTree interface {
	// started is called right after the command started.
	started(cmd *exec.Cmd)
	// kill kills the command and everything it started; it returns
	// os.ErrProcessDone when nothing was left to kill.
	kill() error
	// close releases what the tree holds.
	close()
	// killed says what a kill kills, for a timeout's reason: "its
	// process group was killed".
	killed() string
}

// newProcTree makes cmd's procTree before it starts (tests replace it).
var newProcTree = platformProcTree

// shellTree is the fallback where the system offers no way to kill a
// process tree: it kills the shell only, and what the shell started in
// the background lives on.
type shellTree struct{ cmd *exec.Cmd }

func newShellTree(cmd *exec.Cmd) procTree { return &shellTree{cmd: cmd} }

func (t *shellTree) started(*exec.Cmd) {}

func (t *shellTree) kill() error {
	if t.cmd.Process == nil {
		return os.ErrProcessDone
	}
	err := t.cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return os.ErrProcessDone
	}
	return err
}

func (t *shellTree) close() {}

func (t *shellTree) killed() string {
	return "the shell was killed (what it started in the background may still run)"
}
