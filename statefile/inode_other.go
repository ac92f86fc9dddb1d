//go:build !unix

package statefile

import (
	"io/fs"
	"time"
)

func inode(fs.FileInfo) uint64 { return 0 }

func ctime(fs.FileInfo) time.Time { return time.Time{} }
