//go:build unix

package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// At the timeout, what the command started goes with it (where the
// system can kill a process group); elsewhere the command alone is
// killed and its output given up on a second later — the fallback, run
// here too.
func TestCommandTimeoutKillsWhatItStarted(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tree := range []bool{true, false} {
		t.Run(fmt.Sprintf("tree=%v", tree), func(t *testing.T) {
			if tree && !treeKillSupported {
				t.Skip("no process groups here")
			}
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child")
			c := &commandSink{argv: []string{"sh", "-c", `sleep 60 & echo $! > "$0"; wait`, pidFile}, timeout: 300 * time.Millisecond, killTree: tree}
			start := time.Now()
			_, err := c.deliver(context.Background(), Event{Kind: Completed, Loop: "x", Time: when})
			if err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("deliver: %v", err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("deliver took %v", took)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			p, _ := os.FindProcess(pid)
			defer p.Kill()
			alive := func() bool {
				// Signal 0 (unix): does it exist (and is not a zombie of ours:
				// sleep's parent was the shell, reaped by init).
				return p.Signal(syscall.Signal(0)) == nil
			}
			deadline := time.Now().Add(3 * time.Second)
			for tree && alive() && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if alive() == tree {
				t.Fatalf("the command's child alive: %v, with the tree killed: %v", alive(), tree)
			}
		})
	}
}
