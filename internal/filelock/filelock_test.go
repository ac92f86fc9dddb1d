package filelock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain lets the test binary play the other process: with
// FILELOCK_HOLD=PATH it takes an exclusive lock on PATH, says so on
// stdout and waits to be killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("FILELOCK_HOLD"); path != "" {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			os.Exit(2)
		}
		if err := Lock(f); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		select {}
	}
	os.Exit(m.Run())
}

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestLockIsSeenByAnotherProcessAndDiesWithIt is the lease property the
// callers rely on: a lock another process holds makes TryLock fail, and
// it is gone once that process is killed (no clean-up ran).
func TestLockIsSeenByAnotherProcessAndDiesWithIt(t *testing.T) {
	if !Supported {
		t.Skip("no cross-process locks on this system")
	}
	path := filepath.Join(t.TempDir(), "lease")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("the other process did not take the lock: %q %v", line, err)
	}
	f := open(t, path)
	if err := TryLock(f); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("TryLock while another process holds the lock = %v, want ErrWouldBlock", err)
	}
	if err := TryRLock(f); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("TryRLock while another process holds an exclusive lock = %v, want ErrWouldBlock", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if err := TryLock(f); err != nil {
		t.Fatalf("TryLock after the holder died = %v, want the lock", err)
	}
	if err := Unlock(f); err != nil {
		t.Fatal(err)
	}
}

// TestSharedLocks: shared holders coexist; an exclusive lock is refused
// while one is held and granted once it is released.
func TestSharedLocks(t *testing.T) {
	if !Supported {
		t.Skip("no locks on this system")
	}
	path := filepath.Join(t.TempDir(), "lease")
	a, b, c := open(t, path), open(t, path), open(t, path)
	if err := RLock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryRLock(b); err != nil {
		t.Fatalf("a second shared lock = %v, want it granted", err)
	}
	if err := TryLock(c); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("an exclusive lock over shared ones = %v, want ErrWouldBlock", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil { // closing releases too
		t.Fatal(err)
	}
	if err := TryLock(c); err != nil {
		t.Fatalf("an exclusive lock once the shared ones are gone = %v, want it granted", err)
	}
}
