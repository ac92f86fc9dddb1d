//go:build unix

package statefile

import (
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens path without blocking (a FIFO's open would wait for a
// writer; O_NONBLOCK returns at once), refuses what fstat says is not a
// regular file, and hands back a regular file's descriptor in blocking
// mode, as os.Open would have opened it. O_NOCTTY: a terminal device at
// the path never becomes our controlling terminal.
func openRegular(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, openFailed(path, err)
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, notRegular(path, modeOf(uint32(st.Mode)))
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openFailed is the error for an open of path that failed with errno err:
// a symbolic link loop, something that cannot be opened because it is not
// a regular file (a socket: ENXIO), or err as os.Open reports it.
func openFailed(path string, err error) error {
	if isLoop(err) {
		return symlinkLoop(path)
	}
	if err != syscall.ENOENT && err != syscall.EACCES {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return notRegular(path, fi.Mode())
		}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

// modeOf is the fs.FileMode type bits of a stat mode.
func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
