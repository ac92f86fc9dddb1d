package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTUIOn opens the built binary in its own tmux server on the state
// file at path and waits for its graph.
func startTUIOn(t *testing.T, path string) *tmuxSession {
	t.Helper()
	s := startTmux(t, 100, 32, []string{"NO_COLOR=1"}, binary(t), "--no-journal", "-f", path)
	s.waitFor("Define the billing schema")
	return s
}

// pauseFiles are aot-tui's pause files beside the state file.
func pauseFiles(path string) []string {
	files, _ := filepath.Glob(path + ".aot-tui-pause*")
	return files
}

// waitPauseFiles polls until the pause files beside path are exactly n
// (a liveness bound).
func waitPauseFiles(t *testing.T, path string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		files := pauseFiles(path)
		if len(files) == n {
			return files
		}
		if time.Now().After(deadline) {
			t.Fatalf("pause files %v; want %d", files, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two TUIs (two processes of the built binary) on one loop: A opens c, B
// opens a, A cancels — the loop stays paused while B's form is open.
func TestE2ETwoTUIsShareThePause(t *testing.T) {
	a, path := startRichTUI(t)
	b := startTUIOn(t, path)
	a.send("c")
	a.waitFor("Change constraints")
	waitFileContains(t, path, "redirect_requested: true")
	b.waitFor("by another aot-tui (pid")
	b.send("a")
	b.waitFor("Add an atom")
	waitPauseFiles(t, path, 3) // both leases (B's is taken just after its form shows) and the lock
	a.send("Escape")
	a.waitFor("the loop stays paused: 1 other aot-tui form open")
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "redirect_requested: true") {
		t.Fatal("A cancelled while B's form is open: the loop is not paused")
	}
	b.send("Escape")
	waitFileContains(t, path, "redirect_requested: false")
	waitPauseFiles(t, path, 0)
}

// A TUI killed with a form open (SIGKILL: no clean-up runs) leaves the loop
// paused and its lease behind; the next TUI says whose it was, removes the
// dead lease, and clears the flag when its own form closes.
func TestE2EKilledTUIsPauseIsClearedByTheNext(t *testing.T) {
	a, path := startRichTUI(t)
	a.send("c")
	a.waitFor("Change constraints")
	waitFileContains(t, path, "redirect_requested: true")
	leases := waitPauseFiles(t, path, 2) // the lease, and the lock that says aot-tui set the flag
	var pid int
	for _, f := range leases {
		if _, rest, ok := strings.Cut(filepath.Base(f), ".aot-tui-pause-"); ok {
			pid, _ = strconv.Atoi(strings.Split(rest, "-")[0])
		}
	}
	p, err := os.FindProcess(pid)
	if pid == 0 || err != nil {
		t.Fatalf("no lease with a pid among %v (%v)", leases, err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); strings.TrimSpace(a.tmux("display", "-p", "-t", "e2e", "#{pane_dead}")) != "1"; {
		if time.Now().After(deadline) {
			t.Fatal("the killed TUI's pane never died")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "redirect_requested: true") || len(pauseFiles(path)) != 2 {
		t.Fatal("setup: the kill should leave the flag set and the lease behind")
	}

	b := startTmux(t, 100, 32, []string{"NO_COLOR=1"}, binary(t), "--no-journal", "-f", path)
	b.waitFor("no longer running (pid", fmt.Sprint(pid))
	b.send("n") // leave it: a form of ours will clear it
	b.send("a")
	b.waitFor("Add an atom")
	// The dead lease was removed by the look that found it (before the
	// question named it): now B's lease and the lock.
	for _, f := range waitPauseFiles(t, path, 2) {
		if strings.Contains(filepath.Base(f), fmt.Sprintf("-pause-%d-", pid)) {
			t.Fatalf("the dead lease %s is still there", f)
		}
	}
	b.send("Escape")
	waitFileContains(t, path, "redirect_requested: false")
	waitPauseFiles(t, path, 0)
}

// --idle-release: a form with no key for that long lets the loop go and
// stays open; the next key pauses the loop again.
func TestE2EIdleRelease(t *testing.T) {
	path := copyFixture(t, "rich.md")
	replaceInFile(t, path, "redirect_requested: true", "redirect_requested: false", true)
	s := startTmux(t, 100, 32, []string{"NO_COLOR=1"}, binary(t), "--no-journal", "--idle-release", "1s", "-f", path)
	s.waitFor("Define the billing schema")
	s.send("c")
	s.waitFor("Change constraints")
	waitFileContains(t, path, "redirect_requested: true")
	s.waitFor("no key for 1s: the loop was let go", "Change constraints")
	waitFileContains(t, path, "redirect_requested: false")
	s.send("Down")
	waitFileContains(t, path, "redirect_requested: true")
	s.send("Escape")
	waitFileContains(t, path, "redirect_requested: false")
	waitPauseFiles(t, path, 0)
}

func TestIdleReleaseFlagIsChecked(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := cli(t, "--idle-release", "-1s", dir); code != exitUsage || !strings.Contains(stderr, "--idle-release must be 0 (never) or more") {
		t.Fatalf("negative --idle-release: exit %d, %q", code, stderr)
	}
	t.Setenv("AOT_TUI_IDLE_RELEASE", "soon")
	if code, _, stderr := cli(t, dir); code != exitUsage || !strings.Contains(stderr, `AOT_TUI_IDLE_RELEASE="soon" is not a duration`) {
		t.Fatalf("a bad AOT_TUI_IDLE_RELEASE: exit %d, %q", code, stderr)
	}
}
