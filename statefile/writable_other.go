//go:build !unix

package statefile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Writable reports whether corrections could be written to path, as
// Update decides: the file (when it exists) must not be read-only (on
// Windows, the read-only attribute), and its directory must be there.
// It only looks (a stat): opening the file, even for a moment, could make
// another program's replace of it fail on Windows.
func Writable(path string) error {
	if err := writableRefusal(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("read-only: its directory %s is not there", dir)
	}
	return nil
}
