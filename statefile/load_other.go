//go:build !unix && !windows

package statefile

import "os"

// openRegular has no non-blocking open here: the path is stat'd first (a
// named pipe or a directory is refused before any open), then the open
// file checked again.
func openRegular(path string) (*os.File, error) { return openStatFirst(path) }
