package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
)

// TestMain lets the test binary hold a pause lease from another process:
// with AOT_TUI_TEST_LEASE=PATH it takes a lease on PATH's pause, says
// "leased" on stdout and waits to be killed.
func TestMain(m *testing.M) {
	testenv.ServeHelper("AOT_TUI_TEST_LEASE", "leased", func(path string) error {
		p, err := LockPauses(path, 5*time.Second)
		if err != nil {
			return err
		}
		if _, err := p.Take("add atom", time.Now()); err != nil {
			return err
		}
		if err := p.SetMarked(true); err != nil {
			return err
		}
		p.Unlock()
		return nil
	})
	os.Exit(m.Run())
}

func pausePath(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, []byte("---\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bothRemovalOrders runs f with the lock file removed while open (Unix)
// and after it is closed (the order Windows needs).
func bothRemovalOrders(t *testing.T, f func(t *testing.T)) {
	for _, open := range []bool{true, false} {
		t.Run("removeWhileOpen="+strconv.FormatBool(open), func(t *testing.T) {
			was := removeWhileOpen
			removeWhileOpen = open
			defer func() { removeWhileOpen = was }()
			f(t)
		})
	}
}

// A lease another process holds is seen as live with its facts; once that
// process is killed (no clean-up runs) it is seen as dead and removed.
func TestPauseLeaseOfAKilledProcessIsFoundDeadAndRemoved(t *testing.T) {
	if !PauseLeasesSupported {
		t.Skip("no file locks here")
	}
	path := pausePath(t)
	cmd := testenv.StartHelper(t, "AOT_TUI_TEST_LEASE", path, "leased", "take a lease")
	p, err := LockPauses(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	live, dead, err := p.Scan()
	host, _ := os.Hostname()
	if err != nil || len(dead) != 0 || len(live) != 1 || live[0].PID != cmd.Process.Pid || live[0].Form != "add atom" ||
		live[0].Host != host || live[0].Started.IsZero() || !p.Marked() {
		t.Fatalf("live %+v dead %+v marked %v err %v; want the other process's lease", live, dead, p.Marked(), err)
	}
	p.Unlock()

	cmd.Process.Kill()
	cmd.Wait()
	p, err = LockPauses(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	live, dead, err = p.Scan()
	if err != nil || len(live) != 0 || len(dead) != 1 || dead[0].PID != cmd.Process.Pid {
		t.Fatalf("live %+v dead %+v err %v; want its lease found dead", live, dead, err)
	}
	if _, err := os.Stat(dead[0].File); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the dead lease %s is still there (%v)", dead[0].File, err)
	}
	if !p.Marked() {
		t.Fatal("the mark that aot-tui set the flag was lost with the process")
	}
	p.SetMarked(false)
	p.Unlock()
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// This process's own leases are live; dropped, they are gone; the lock
// file lives only while it is marked.
func TestPauseLeasesAndLockFileComeAndGo(t *testing.T) {
	if !PauseLeasesSupported {
		t.Skip("no file locks here")
	}
	bothRemovalOrders(t, func(t *testing.T) {
		path := pausePath(t)
		p, err := LockPauses(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		a, err := p.Take("constraints", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.Take("", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if a.Holder().File == b.Holder().File {
			t.Fatal("two leases share a file")
		}
		live, dead, err := p.Scan()
		if err != nil || len(live) != 2 || len(dead) != 0 {
			t.Fatalf("live %+v dead %+v err %v", live, dead, err)
		}
		if err := p.SetMarked(true); err != nil {
			t.Fatal(err)
		}
		if err := p.Unlock(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(PauseLockPath(path)); err != nil {
			t.Fatalf("the marked lock file is gone: %v", err)
		}
		p, err = LockPauses(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Marked() {
			t.Fatal("the mark did not outlive the lock")
		}
		if err := p.Drop(a); err != nil {
			t.Fatal(err)
		}
		if err := p.Drop(b); err != nil {
			t.Fatal(err)
		}
		if live, _, _ := p.Scan(); len(live) != 0 {
			t.Fatalf("dropped leases still live: %+v", live)
		}
		if err := p.SetMarked(false); err != nil {
			t.Fatal(err)
		}
		if err := p.Unlock(); err != nil {
			t.Fatal(err)
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// The pause lock excludes: a second taker waits, and gives up after its
// wait with ErrPauseLockBusy naming the file.
func TestPauseLockExcludes(t *testing.T) {
	if !PauseLeasesSupported {
		t.Skip("no file locks here")
	}
	path := pausePath(t)
	p, err := LockPauses(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockPauses(path, 20*time.Millisecond); !errors.Is(err, ErrPauseLockBusy) {
		t.Fatalf("a second lock = %v, want ErrPauseLockBusy", err)
	}
	p.Unlock()
	q, err := LockPauses(path, time.Second)
	if err != nil {
		t.Fatalf("the lock once let go = %v", err)
	}
	q.Unlock()
}

// Mutual exclusion holds while holders remove the lock file on the way
// out: a read-modify-write of a counter under the lock from many
// goroutines (each its own open file, as separate processes have) loses
// no increment. (Only in this system's own removal order: the Windows
// order — close, then remove — is safe only where the system refuses to
// remove a file another process holds open, which Unix does not.)
func TestPauseLockExcludesThroughRemovals(t *testing.T) {
	if !PauseLeasesSupported {
		t.Skip("no file locks here")
	}
	path := pausePath(t)
	counter := filepath.Join(t.TempDir(), "n")
	if err := os.WriteFile(counter, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				p, err := LockPauses(path, 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				data, _ := os.ReadFile(counter)
				n, _ := strconv.Atoi(string(data))
				os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644)
				if err := p.Unlock(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(counter)
	if n, _ := strconv.Atoi(string(data)); n != workers*rounds {
		t.Fatalf("counter %d, want %d: two holders held the lock at once", n, workers*rounds)
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

func TestLeasePID(t *testing.T) {
	prefix := "aot-loop-state.md.aot-tui-pause-"
	for name, want := range map[string]int{
		prefix + "4242-1":                      4242,
		prefix + "7-123456":                    7,
		"aot-loop-state.md.aot-tui-pause.lock": 0,
		prefix + "x-1":                         0,
		prefix + "12":                          0,
		prefix + "12-":                         0,
		prefix + "0-1":                         0,
		"other.md.aot-tui-pause-1-1":           0,
	} {
		if got, ok := leasePID(name, prefix); got != want || ok != (want != 0) {
			t.Errorf("leasePID(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}
