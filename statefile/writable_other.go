//go:build !unix

package statefile

import "os"

// Writable reports whether corrections could be written to path.
func Writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
