//go:build !unix

package statefile

import "io/fs"

func inode(fs.FileInfo) uint64 { return 0 }
