//go:build windows

package verify

import (
	"testing"

	"golang.org/x/sys/windows"
)

// waitGone fails unless process pid ends within a few seconds.
func waitGone(t *testing.T, pid int, why string) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no pid: %s", why)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return // no such process: gone
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, 5000); ev != windows.WAIT_OBJECT_0 {
		_ = windows.TerminateProcess(h, 1)
		t.Fatalf("process %d still runs: %s", pid, why)
	}
}
