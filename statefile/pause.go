package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aot-loop/aot-tui/internal/filelock"
)

// Pause leases are how several aot-tui processes share the loop's pause
// (control.redirect_requested): every open redirect form holds a lease, and
// the flag is cleared only when the last lease goes. This file is their
// disk side; the policy (when to set or clear the flag) is the correction
// package's. Beside the state file PATH:
//
//   - PATH.aot-tui-pause-<pid>-<n> is a lease: one open form of process
//     <pid>, holding a few facts as JSON (PauseHolder). Its process keeps a
//     shared lock on it for as long as the form is open; the system drops
//     the lock when the process dies, however it dies. A lease on which
//     nobody holds a lock belongs to a process that is gone: whoever meets
//     it removes it. (Shared, not exclusive, so that the facts stay
//     readable on Windows, where a lock also guards reads; a look takes an
//     exclusive lock, which any holder's shared lock refuses.)
//   - PATH.aot-tui-pause.lock is the lock every look at the leases and
//     every change of them and of the flag is made under: exclusive, held
//     for a few milliseconds, so that "no other lease, clear the flag" and
//     "a new lease, set the flag" cannot interleave between processes. It
//     also keeps the one fact that outlives a form: that aot-tui set the
//     flag (Marked), so that the last lease to go — or the next aot-tui,
//     after a crash — knows the flag is aot-tui's to clear. The file exists
//     only while that is so (or while the lock is held).
//
// Nothing is left behind by aot-tui processes that end normally.

// PauseLeasesSupported reports whether other processes' leases can be seen
// here (filelock.Supported): where they cannot, a session keeps the pause
// to itself.
const PauseLeasesSupported = filelock.Supported

const (
	pauseLockSuffix  = ".aot-tui-pause.lock"
	pauseLeaseInfix  = ".aot-tui-pause-"
	pauseMarkText    = "redirect_requested was set by aot-tui: the last aot-tui form on this loop to close clears it\n"
	maxPauseFactSize = 4096
)

// removeWhileOpen says whether the lock file can be removed while it is
// open and locked (Unix) or only once it is closed (Windows, where a file
// another process holds open cannot be removed, and Go opens files
// without FILE_SHARE_DELETE). Tests switch it off to run the Windows order
// here.
var removeWhileOpen = runtime.GOOS != "windows"

// leaseSeq numbers this process's leases.
var leaseSeq atomic.Int64

// PauseLockPath is the pause lock file of the state file at path.
func PauseLockPath(path string) string { return path + pauseLockSuffix }

// PauseHolder is what a lease says about the form that holds it.
type PauseHolder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	// Form names the form ("constraints"); empty when not known.
	Form string `json:"form"`
	// File is the lease's path (not stored in it).
	File string `json:"-"`
}

// Pauses is the pause lock of one state file, held (LockPauses). Every
// method is to be called while it is held; Unlock ends it.
type Pauses struct {
	path   string
	f      *os.File
	marked bool
}

// ErrPauseLockBusy is wrapped by LockPauses's error when another process
// held the lock for longer than the wait.
var ErrPauseLockBusy = errors.New("the pause lock is held by another aot-tui")

// LockPauses takes the pause lock of the state file at path, waiting at
// most wait for another holder to let it go.
func LockPauses(path string, wait time.Duration) (*Pauses, error) {
	name := PauseLockPath(path)
	deadline := time.Now().Add(wait)
	nap := time.Millisecond
	for {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("pause lock %s: %w", name, err)
		}
		err = filelock.TryLock(f)
		if err == nil {
			// The holder before us may have removed the file between our
			// open and our lock: then the lock we hold is on a file no one
			// else will open, and the file at the name is the real one.
			if same, serr := sameFile(f, name); serr != nil || same {
				if serr != nil {
					f.Close()
					return nil, fmt.Errorf("pause lock %s: %w", name, serr)
				}
				p := &Pauses{path: path, f: f}
				var buf [1]byte
				n, _ := f.ReadAt(buf[:], 0)
				p.marked = n > 0
				return p, nil
			}
		}
		f.Close()
		if err != nil && !errors.Is(err, filelock.ErrWouldBlock) {
			return nil, fmt.Errorf("pause lock %s: %w", name, err)
		}
		if time.Now().After(deadline) {
			// The lock dies with its holder: a busy one has a live holder
			// (an aot-tui stopped with ctrl+z keeps it until it resumes).
			// Removing the file would not free it, only let two processes
			// lock two files of that name.
			return nil, fmt.Errorf("%w: %s has been held for more than %v by another aot-tui on this loop (one stopped with ctrl+z holds it until it resumes or quits); try again", ErrPauseLockBusy, name, wait)
		}
		time.Sleep(nap)
		nap = min(2*nap, 20*time.Millisecond)
	}
}

// sameFile reports whether the open file f is the file at name.
func sameFile(f *os.File, name string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// Marked reports whether aot-tui set the flag (and has not cleared it).
func (p *Pauses) Marked() bool { return p.marked }

// SetMarked records whether aot-tui set the flag.
func (p *Pauses) SetMarked(v bool) error {
	if p.f == nil || v == p.marked {
		return nil
	}
	if err := p.f.Truncate(0); err != nil {
		return fmt.Errorf("pause lock %s: %w", p.f.Name(), err)
	}
	if v {
		if _, err := p.f.WriteAt([]byte(pauseMarkText), 0); err != nil {
			return fmt.Errorf("pause lock %s: %w", p.f.Name(), err)
		}
	}
	p.marked = v
	return nil
}

// Unlock lets the lock go; the lock file is removed unless it is marked.
func (p *Pauses) Unlock() error {
	f := p.f
	if f == nil {
		return nil
	}
	p.f = nil
	if p.marked {
		return f.Close()
	}
	name := f.Name()
	if removeWhileOpen {
		// Removed while still held: whoever opened it meanwhile finds,
		// once it has the lock, that the name is no longer this file.
		err := os.Remove(name)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return err
	}
	// Closed first: the system refuses to remove an open file. Someone who
	// opened it meanwhile keeps it (the removal fails), which is as good.
	err := f.Close()
	_ = os.Remove(name)
	return err
}

// A PauseLease is one form's lease, held by this process.
type PauseLease struct {
	f      *os.File
	holder PauseHolder
}

// Holder is what the lease says.
func (l *PauseLease) Holder() PauseHolder { return l.holder }

// Take creates and holds a new lease for a form.
func (p *Pauses) Take(form string, now time.Time) (*PauseLease, error) {
	host, _ := os.Hostname()
	h := PauseHolder{PID: os.Getpid(), Host: host, Started: now.UTC().Truncate(time.Second), Form: form}
	data, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	for range 100 {
		name := fmt.Sprintf("%s%s%d-%d", p.path, pauseLeaseInfix, h.PID, leaseSeq.Add(1))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // a lease of a process that had our pid before us
		}
		if err != nil {
			return nil, fmt.Errorf("pause lease %s: %w", name, err)
		}
		if _, err = f.Write(data); err == nil {
			err = filelock.TryRLock(f)
		}
		if err != nil {
			f.Close()
			os.Remove(name)
			return nil, fmt.Errorf("pause lease %s: %w", name, err)
		}
		h.File = name
		return &PauseLease{f: f, holder: h}, nil
	}
	return nil, fmt.Errorf("pause lease beside %s: no free name", p.path)
}

// Drop ends a lease of this process and removes its file.
func (p *Pauses) Drop(l *PauseLease) error { return l.release() }

// ReleaseUnlocked ends a lease without the pause lock: for a process that
// could not get it (and is about to end). Someone looking at the leases
// meanwhile takes the lease for a dead one and removes it, which is what
// it now is.
func (l *PauseLease) ReleaseUnlocked() error { return l.release() }

func (l *PauseLease) release() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if rerr := os.Remove(l.holder.File); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// Scan looks at every lease of the state file: live are those some
// process holds (this one's included: compare File), dead those whose
// process is gone — they are removed.
func (p *Pauses) Scan() (live, dead []PauseHolder, err error) {
	dir, base := filepath.Split(p.path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("pause leases in %s: %w", dir, err)
	}
	prefix := base + pauseLeaseInfix
	for _, e := range entries {
		pid, ok := leasePID(e.Name(), prefix)
		if !ok {
			continue
		}
		name := filepath.Join(dir, e.Name())
		h, alive, err := lookAtLease(name)
		var odd *OddFileError
		if errors.Is(err, fs.ErrNotExist) || errors.As(err, &odd) {
			continue // gone, or not a lease of ours (a pipe named like one)
		}
		if err != nil {
			return live, dead, err
		}
		if h.PID == 0 {
			h.PID = pid
		}
		h.File = name
		if alive {
			live = append(live, h)
			continue
		}
		dead = append(dead, h)
	}
	return live, dead, nil
}

// leasePID reads <pid> from a lease's name (<prefix><pid>-<n>).
func leasePID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	a, b, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(a)
	if _, err2 := strconv.ParseUint(b, 10, 64); err != nil || err2 != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// lookAtLease reads a lease's facts and whether a process holds it; a
// lease no one holds is removed.
func lookAtLease(name string) (PauseHolder, bool, error) {
	var h PauseHolder
	f, err := OpenRegular(name)
	if err != nil {
		return h, false, err
	}
	lerr := filelock.TryLock(f)
	if lerr != nil && !errors.Is(lerr, filelock.ErrWouldBlock) {
		f.Close()
		return h, false, lerr
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxPauseFactSize))
	_ = json.Unmarshal(data, &h) // facts that do not parse leave the pid of the name
	if lerr != nil {
		f.Close()
		return h, true, nil
	}
	// Ours now, so no one's: the process that held it is gone.
	f.Close()
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return h, false, fmt.Errorf("pause lease %s (of a process that is gone): %w", name, err)
	}
	return h, false, nil
}
