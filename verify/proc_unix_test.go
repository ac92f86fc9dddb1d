//go:build unix

package verify

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitGone fails unless process pid ends (or is a zombie: killed, waiting
// for whoever adopted it to reap it) within a few seconds.
func waitGone(t *testing.T, pid int, why string) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no pid: %s", why)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(stat[bytesIndexAfterComm(stat):])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs: %s", pid, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bytesIndexAfterComm is where /proc/PID/stat goes on after "(comm)".
func bytesIndexAfterComm(stat []byte) int {
	return strings.LastIndexByte(string(stat), ')') + 1
}
