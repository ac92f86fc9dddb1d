//go:build windows

package verify

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobTree puts the shell in a job object right after it starts; what it
// starts joins the job, and terminating the job kills them all. The job
// is made to kill what is left in it when its handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), so nothing outlives the check
// even if aot-tui itself ends first. Where a job cannot be made or
// joined, it kills the shell alone, as shellTree does.
//
// The timeout's kill comes from os/exec's own goroutine, possibly while
// started runs: the job handle is locked.
type jobTree struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle // 0: no job
}

func platformProcTree(cmd *exec.Cmd) procTree {
	t := &jobTree{cmd: cmd}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return t
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return t
	}
	t.job = job
	return t
}

// started puts the shell in the job. Its children join the job as they
// are created; one started in the instant between the shell's start and
// this call would not (cmd.exe takes milliseconds to start one).
func (t *jobTree) started(cmd *exec.Cmd) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job == 0 || cmd.Process == nil {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(t.job, h)
		_ = windows.CloseHandle(h)
	}
	if err != nil {
		t.closeLocked()
	}
}

func (t *jobTree) kill() error {
	t.mu.Lock()
	job := t.job
	t.mu.Unlock()
	if job != 0 {
		// The shell may not be in the job yet (a timeout in the instant
		// after the start): kill it by its own handle too.
		err := windows.TerminateJobObject(job, 1)
		if t.cmd.Process != nil {
			_ = t.cmd.Process.Kill()
		}
		return err
	}
	if t.cmd.Process == nil {
		return os.ErrProcessDone
	}
	err := t.cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return os.ErrProcessDone
	}
	return err
}

func (t *jobTree) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked()
}

func (t *jobTree) closeLocked() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
		t.job = 0
	}
}

func (t *jobTree) killed() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		return "its job object (the shell and what it started) was killed"
	}
	return "the shell was killed (what it started in the background may still run)"
}
