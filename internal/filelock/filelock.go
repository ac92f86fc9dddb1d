// Package filelock holds advisory locks on open files, across processes:
// flock on Unix, LockFileEx on Windows. A lock goes with its process: the
// system releases it when the process dies, however it dies, which is
// what makes a lock file a lease others can see (a lock file that exists
// but that nobody holds a lock on belongs to a process that is gone).
//
// Where neither is available (Plan 9, wasm), Supported is false: Lock and
// TryLock succeed without locking anything, and callers that depend on
// seeing other processes' locks must say what they cannot see.
package filelock

import (
	"errors"
	"os"
)

// ErrWouldBlock is TryLock's answer when another holder has a conflicting
// lock.
var ErrWouldBlock = errors.New("the file is locked by another process")

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error { return lock(f, true, true) }

// RLock takes a shared lock on f, waiting for it: several holders may
// share it; an exclusive lock waits for all of them.
func RLock(f *os.File) error { return lock(f, false, true) }

// TryLock takes an exclusive lock on f if no one holds a lock on it, and
// returns ErrWouldBlock otherwise.
func TryLock(f *os.File) error { return lock(f, true, false) }

// TryRLock takes a shared lock on f unless someone holds an exclusive one
// (ErrWouldBlock).
func TryRLock(f *os.File) error { return lock(f, false, false) }

// Unlock releases the lock this process holds on f. Closing f releases it
// too.
func Unlock(f *os.File) error { return unlock(f) }
