//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

// Writable reports whether corrections could be written to path, as
// Update decides: the file (when it exists) must not be read-only or
// owned by someone whose ownership the rewrite could not keep (see
// refusalFor), and it and its directory, where the temp file is created
// and renamed, must be writable. The error says which is not.
func Writable(path string) error {
	const wOK = 2 // W_OK
	if err := writableRefusal(path); err != nil {
		return err
	}
	if err := syscall.Access(path, wOK); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read-only: %s is not writable", path)
	}
	dir := filepath.Dir(path)
	if err := syscall.Access(dir, wOK|1); err != nil {
		return fmt.Errorf("read-only: its directory %s is not writable", dir)
	}
	return nil
}
