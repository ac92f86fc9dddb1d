//go:build unix

package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// A loop whose state file became a named pipe (or a symbolic link loop)
// after the scan found it is a row that says so, read at once: the row's
// read never waits for a writer of the pipe.
func TestReadRowOfAnOddFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", ".claude", "aot-loop-state.md")
	loop := filepath.Join(dir, "loop", ".claude", "aot-loop-state.md")
	for _, p := range []string{fifo, loop} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("aot-loop-state.md", loop); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: fifo + " is a named pipe (FIFO), not a regular file",
		loop: loop + " is a symbolic link loop",
	} {
		l := Loop{Target: statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true}, Project: filepath.Dir(filepath.Dir(path))}
		done := make(chan Row, 1)
		go func() { done <- Read(l, statefile.WatchOptions{}) }()
		select {
		case r := <-done:
			if r.File != FileError || !strings.HasPrefix(r.Error, want) {
				t.Errorf("row of %s: file %q error %q, want %q", path, r.File, r.Error, want)
			}
		case <-time.After(10 * time.Second): // a liveness bound
			if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd) // let the blocked read end
			}
			t.Fatalf("reading the row of %s blocked", path)
		}
	}
}
