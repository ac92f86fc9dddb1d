//go:build linux && amd64

package statefile

import (
	"syscall"
	"time"
	"unsafe"
)

// pathStat stats one path again and again without allocating: the path
// is made a C string once and the stat buffer is reused, where os.Stat
// allocates both and a FileInfo every time. The watcher's poll is this
// one fstatat every few seconds.
type pathStat struct {
	// cpath is the path, NUL-terminated (nil: the path holds a NUL and
	// names no file).
	cpath []byte
	st    syscall.Stat_t
}

func newPathStat(path string) *pathStat {
	p := &pathStat{}
	if c, err := syscall.ByteSliceFromString(path); err == nil {
		p.cpath = c
	}
	return p
}

// atFDCWD is AT_FDCWD: a relative path is taken from the working directory.
var atFDCWD = -100

// stamp is the path's stamp now, as stampOf makes it from os.Stat (the
// zero stamp when it cannot be stat'd).
func (p *pathStat) stamp() fileStamp {
	if p.cpath == nil {
		return fileStamp{}
	}
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_NEWFSTATAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&p.cpath[0])),
			uintptr(unsafe.Pointer(&p.st)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return fileStamp{}
		}
		break
	}
	st := &p.st
	return fileStamp{exists: true, size: st.Size, modTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec), ino: st.Ino,
		ctime: time.Unix(st.Ctim.Sec, st.Ctim.Nsec)}
}
