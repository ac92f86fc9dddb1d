//go:build linux

package statefile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// swap exchanges tmp and path in one step (renameat2 RENAME_EXCHANGE):
// path then names our file and tmp the file it replaced, whoever wrote it
// last. Unlike a rename, nothing the file held before is lost without our
// seeing it. ok is false where the file system cannot exchange; the caller
// then renames.
func swap(tmp, path string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return err == nil, err
}
