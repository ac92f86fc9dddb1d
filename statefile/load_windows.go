//go:build windows

package statefile

import (
	"os"

	"golang.org/x/sys/windows"
)

// openRegular stats the path first (a named pipe or a directory is refused
// before any open), then opens it sharing read, write *and delete*: Go's
// os.Open shares only read and write, and while such a handle is open the
// loop cannot rename a new version over the file (the stop hook's mv, a
// script's os.replace) — a read of ours, a millisecond long, would make
// the loop's write fail. The open file is checked again, as openStatFirst
// does.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if isLoop(err) {
			return nil, symlinkLoop(path)
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(h), path)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}
