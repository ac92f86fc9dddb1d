//go:build unix

package statefile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openModes runs f once with each way OpenRegular opens a file: the
// non-blocking open of Unix, and the stat-first open of the platforms
// without one (Windows), which the tests run here too.
func openModes(t *testing.T, f func(t *testing.T)) {
	for _, m := range []struct {
		name      string
		statFirst bool
	}{{"nonblocking", false}, {"stat-first", true}} {
		t.Run(m.name, func(t *testing.T) {
			defer func(old bool) { statFirst = old }(statFirst)
			statFirst = m.statFirst
			f(t)
		})
	}
}

// mkfifo makes a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// returns runs f in a goroutine and fails the test when it has not
// returned after a generous bound: a liveness guard, so that a read that
// blocks on a named pipe fails the test instead of hanging it. The pipes
// are then opened for writing, which lets a blocked open go on.
func returns(t *testing.T, what string, fifos []string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// Let every open that waits go on (each read opens again), so
		// that the test ends.
		for i := 0; i < 100; i++ {
			unblock(fifos...)
			select {
			case <-done:
				i = 100
			case <-time.After(50 * time.Millisecond):
			}
		}
		t.Fatalf("%s blocked on a named pipe", what)
	}
}

// unblock opens the named pipes at paths for writing, which lets an open
// for reading that waits on one of them go on.
func unblock(paths ...string) {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
	}
}

// oddFiles makes, in dir, one path of each kind that is not a regular
// file, and says what each error must call it.
func oddFiles(t *testing.T, dir string) (paths map[string]string, fifos []string) {
	t.Helper()
	paths = map[string]string{}
	fifo := filepath.Join(dir, "fifo.md")
	mkfifo(t, fifo)
	fifos = append(fifos, fifo)
	paths[fifo] = "is a named pipe (FIFO), not a regular file: aot-tui reads only regular files; replace it with the state file"

	linkToFIFO := filepath.Join(dir, "link-to-fifo.md")
	if err := os.Symlink("fifo.md", linkToFIFO); err != nil {
		t.Fatal(err)
	}
	paths[linkToFIFO] = "is a named pipe (FIFO), not a regular file"

	sub := filepath.Join(dir, "dir.md")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	paths[sub] = "is a directory, not a regular file"

	loop := filepath.Join(dir, "loop.md")
	if err := os.Symlink("loop.md", loop); err != nil {
		t.Fatal(err)
	}
	paths[loop] = "is a symbolic link loop (too many levels of symbolic links): aot-tui reads only regular files; point the link at the state file or remove it"

	// A socket's path is short enough for sun_path only in a short dir.
	sdir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sdir) })
	sock := filepath.Join(sdir, "s.md")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	paths[sock] = "is a socket, not a regular file"

	if fi, err := os.Stat("/dev/null"); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		paths["/dev/null"] = "is a character device, not a regular file"
	}
	return paths, fifos
}

// Anything that is not a regular file is refused at once, with a message
// that names the path and what is there; nothing waits for a writer.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	openModes(t, func(t *testing.T) {
		dir := t.TempDir()
		paths, fifos := oddFiles(t, dir)
		for path, want := range paths {
			var errs []error
			returns(t, "reading "+path, fifos, func() {
				_, err := ReadFile(path, 0)
				errs = append(errs, err)
				_, err = Load(path, 0)
				errs = append(errs, err)
				_, err = LoadPhaseLoop(path, 0)
				errs = append(errs, err)
				f, err := OpenRegular(path)
				if f != nil {
					f.Close()
				}
				errs = append(errs, err)
			})
			for _, err := range errs {
				if err == nil || err.Error() != path+" "+want && !strings.HasPrefix(err.Error(), path+" "+want) {
					t.Errorf("%s: got %v, want %q", path, err, path+" "+want)
				}
				var odd *OddFileError
				if !errors.As(err, &odd) || odd.Path != path {
					t.Errorf("%s: %v is not an *OddFileError for the path", path, err)
				}
				if strings.Contains(want, "loop") != errors.Is(err, ErrSymlinkLoop) || strings.Contains(want, "loop") == errors.Is(err, ErrNotRegular) {
					t.Errorf("%s: %v wraps the wrong sentinel", path, err)
				}
			}
		}
		// A link to a regular file is read through, and a regular file
		// read after the refusals is read as ever.
		real := filepath.Join(dir, "real.md")
		if err := os.WriteFile(real, docWithIter("4"), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link.md")
		if err := os.Symlink("real.md", link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{real, link} {
			doc, err := Load(p, 0)
			if err != nil || doc.State.Control.Iteration != 4 {
				t.Fatalf("Load(%s): %v", p, err)
			}
		}
		if _, err := ReadFile(filepath.Join(dir, "none.md"), 0); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a missing file: %v, want ErrNotExist", err)
		}
	})
}

// A regular file opened by OpenRegular reads and blocks as os.Open's does:
// the descriptor is not left non-blocking.
func TestOpenRegularLeavesTheDescriptorBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.md")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := fcntlFlags(f.Fd())
	if err != nil {
		t.Fatal(err)
	}
	if flags&syscall.O_NONBLOCK != 0 {
		t.Fatalf("flags %#x: O_NONBLOCK left on", flags)
	}
}

func fcntlFlags(fd uintptr) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// Discover refuses a named pipe, a directory named like the state file and
// a symbolic link loop, at the path itself or inside a project; the TUI may
// wait at each (CanWait).
func TestDiscoverOddFiles(t *testing.T) {
	root := t.TempDir()
	project := func(name string) (dir, state string) {
		dir = filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir, filepath.Join(dir, AoTStateRel)
	}
	fifoDir, fifo := project("fifo")
	mkfifo(t, fifo)
	dirDir, dirState := project("dir")
	if err := os.Mkdir(dirState, 0o755); err != nil {
		t.Fatal(err)
	}
	loopDir, loopState := project("loop")
	if err := os.Symlink("aot-loop-state.md", loopState); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		arg, path string
		sentinel  error
		what      string
	}{
		{fifoDir, fifo, ErrNotRegular, "a named pipe (FIFO)"},
		{fifo, fifo, ErrNotRegular, "a named pipe (FIFO)"},
		{filepath.Join(fifoDir, ".claude"), fifo, ErrNotRegular, "a named pipe (FIFO)"},
		{dirDir, dirState, ErrNotRegular, "a directory"},
		// Named like the state file: not taken for a project to wait in.
		{dirState, dirState, ErrNotRegular, "a directory"},
		{loopDir, loopState, ErrSymlinkLoop, "a symbolic link loop"},
		{loopState, loopState, ErrSymlinkLoop, "a symbolic link loop"},
	}
	for _, c := range cases {
		tgt, err := Discover(c.arg)
		if !errors.Is(err, c.sentinel) || !CanWait(err) {
			t.Errorf("Discover(%s): %v, want %v", c.arg, err, c.sentinel)
			continue
		}
		if tgt.Path != c.path || tgt.Exists || tgt.Kind != KindAoT {
			t.Errorf("Discover(%s): target %+v, want %s", c.arg, tgt, c.path)
		}
		if want := c.path + " is " + c.what; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Discover(%s): %q, want it to start %q", c.arg, err, want)
		}
	}
	// A project whose directory is named like a file is still a project,
	// and a regular phase loop file beside an odd AoT path is the loop.
	named, state := project("site.md")
	if err := os.WriteFile(state, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tgt, err := Discover(named); err != nil || tgt.Path != state || !tgt.Exists {
		t.Fatalf("Discover(%s): %+v %v", named, tgt, err)
	}
	// So is one whose state file has not come yet: it is waited for.
	empty := filepath.Join(root, "notes.md")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if tgt, err := Discover(empty); !errors.Is(err, ErrNotFound) || tgt.Path != filepath.Join(empty, AoTStateRel) {
		t.Fatalf("Discover(%s), a project directory named like a file with no loop yet: %+v %v, want its state file waited for", empty, tgt, err)
	}
	phase := filepath.Join(fifoDir, PhaseLoopRel)
	if err := os.WriteFile(phase, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tgt, err := Discover(fifoDir); err != nil || tgt.Path != phase || tgt.Kind != KindPhaseLoop {
		t.Fatalf("Discover(%s) with a phase loop beside the FIFO: %+v %v", fifoDir, tgt, err)
	}
	// Nothing there at all is still ErrNotFound.
	if _, err := Discover(filepath.Join(root, "none")); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotRegular) {
		t.Fatalf("missing: %v", err)
	}
}

// The watcher says at once that a named pipe is not a state file, and reads
// the regular file that replaces it; a symbolic link loop is waited on
// like a missing file. Bytes equal to the last ones read are news again
// after the file was away.
func TestWatchOddFilesAndRecovery(t *testing.T) {
	openModes(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "aot-loop-state.md")
		mkfifo(t, path)
		log, stop := startTestWatch(t, path)
		// A watcher stuck in an open of the FIFO stops all the same.
		defer returns(t, "stopping the watcher", []string{path}, stop)
		replace := func(data []byte) {
			t.Helper()
			tmp := filepath.Join(dir, "tmp")
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}
		ev := log.next(t) // fails the test if the watcher blocks on the FIFO
		if ev.Kind != EventError || !errors.Is(ev.Err, ErrNotRegular) || !strings.Contains(ev.Err.Error(), "named pipe") {
			t.Fatalf("first event on a FIFO: %v %v", ev.Kind, ev.Err)
		}
		replace(docWithIter("5"))
		if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 5 {
			t.Fatalf("after the FIFO was replaced: %v %v", ev.Kind, ev.Err)
		}

		// A FIFO again, then the same bytes as before: read again.
		tmp := filepath.Join(dir, "fifo.tmp")
		mkfifo(t, tmp)
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if ev = log.next(t); ev.Kind != EventError || !errors.Is(ev.Err, ErrNotRegular) {
			t.Fatalf("a FIFO over the file: %v %v", ev.Kind, ev.Err)
		}
		replace(docWithIter("5"))
		if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 5 {
			t.Fatalf("the same bytes back after the FIFO: %v %v", ev.Kind, ev.Err)
		}

		// A symbolic link loop: removed, says why; a directory: an error.
		link := filepath.Join(dir, "link.tmp")
		if err := os.Symlink("aot-loop-state.md", link); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(link, path); err != nil {
			t.Fatal(err)
		}
		if ev = log.next(t); ev.Kind != EventRemoved || !errors.Is(ev.Err, ErrSymlinkLoop) {
			t.Fatalf("a link loop over the file: %v %v", ev.Kind, ev.Err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if ev = log.next(t); ev.Kind != EventError || !strings.Contains(ev.Err.Error(), "is a directory, not a regular file") {
			t.Fatalf("a directory at the path: %v %v", ev.Kind, ev.Err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		replace(docWithIter("6"))
		for ev = log.next(t); ev.Kind == EventRemoved; ev = log.next(t) {
		}
		if ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 6 {
			t.Fatalf("after the directory went: %v %v", ev.Kind, ev.Err)
		}
	})
}

// A watch that starts on a symbolic link loop waits, saying so, and loads
// the file once the link points at one.
func TestWatchWaitsOnASymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.Symlink("aot-loop-state.md", path); err != nil {
		t.Fatal(err)
	}
	log, stop := startTestWatch(t, path)
	defer stop()
	ev := log.next(t)
	if ev.Kind != EventWaiting || !errors.Is(ev.Err, ErrSymlinkLoop) || !strings.HasPrefix(ev.Err.Error(), path+" is a symbolic link loop") {
		t.Fatalf("first event on a link loop: %v %v", ev.Kind, ev.Err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real.md"), docWithIter("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "link.tmp")
	if err := os.Symlink("real.md", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 3 {
		t.Fatalf("after the link was mended: %v %v", ev.Kind, ev.Err)
	}
}

// BenchmarkReadFile: what the refusal of odd files costs a read of a
// small state file — the non-blocking open (open, fstat, fcntl twice), the
// stat-first open of other platforms — against a plain os.ReadFile.
func BenchmarkReadFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		read func() error
	}{
		{"os.ReadFile", func() error { _, err := os.ReadFile(path); return err }},
		{"nonblocking", func() error { statFirst = false; _, err := ReadFile(path, 0); return err }},
		{"stat-first", func() error { statFirst = true; _, err := ReadFile(path, 0); return err }},
	} {
		b.Run(m.name, func(b *testing.B) {
			defer func(old bool) { statFirst = old }(statFirst)
			for b.Loop() {
				if err := m.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A named pipe named like a pause lease is not a lease: looking at the
// leases neither blocks on it nor fails for it.
func TestPauseScanSkipsAPipeNamedLikeALease(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, []byte("---\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := path + pauseLeaseInfix + "4242-1"
	mkfifo(t, fifo)
	returns(t, "looking at the pause leases", []string{fifo}, func() {
		p, err := LockPauses(path, time.Second)
		if err != nil {
			t.Error(err)
			return
		}
		defer p.Unlock()
		live, dead, err := p.Scan()
		if err != nil || len(live)+len(dead) != 0 {
			t.Errorf("Scan with a pipe named like a lease = %v, %v, %v; want no lease and no error", live, dead, err)
		}
	})
}
