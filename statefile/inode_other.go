//go:build !unix

package statefile

import "io/fs"

// inode is 0 where the system has no inode numbers in a FileInfo: size,
// modification time and (where there is one) ctime tell versions apart.
func inode(fs.FileInfo) uint64 { return 0 }
