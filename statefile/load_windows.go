//go:build windows

package statefile

import (
	"os"

	"golang.org/x/sys/windows"
)

// openRegular stats the path first (a named pipe or a directory is refused
// before any open), then opens it sharing read, write *and delete*. Go's
// os.Open shares only read and write, and while a handle that does not
// share delete is open no other program can rename a new version over the
// file (the stop hook's mv, a script's os.replace): a read of ours, a
// millisecond long, would make the loop's write fail. Sharing delete does
// not make such a rename succeed everywhere — with Windows' older rename
// semantics a file any handle holds is not replaced at all — but where the
// file system applies POSIX semantics (NTFS on current Windows) it does.
// The open file is checked again (openChecked). Not run here: built and
// vetted by CI only.
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
