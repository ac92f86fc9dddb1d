//go:build windows

package statefile

import (
	"os"

	"golang.org/x/sys/windows"
)

// openRegular stats the path first (a named pipe or a directory is refused
// before any open), then opens it sharing read, write *and delete*. Go's
// os.Open shares only read and write: while such a handle is open, no
// program can rename a new version over the file in any way. With delete
// shared, a rename that asks for POSIX semantics
// (FILE_RENAME_FLAG_POSIX_SEMANTICS, Windows 10 1709 and later) still
// replaces the file while we read it; MoveFileEx — what os.Rename, Python's
// os.replace and most mv's do — is refused while any handle is open,
// shared or not (hold_windows.go). The open file is checked again
// (openChecked). Not run here: built and vetted by CI only.
func openRegular(path string) (*os.File, error) { return openChecked(path, openSharingDelete) }

func openSharingDelete(path string) (*os.File, error) {
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
	return os.NewFile(uintptr(h), path), nil
}
