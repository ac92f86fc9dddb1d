//go:build !unix

package statefile

import (
	"io/fs"
	"os"
)

// ownerRefusal refuses nothing here: files have no owner in a FileInfo,
// and a rewritten file gets its directory's permissions.
func ownerRefusal(string, fs.FileInfo) *NotWritableError { return nil }

// keepOwner has nothing to keep here (see ownerRefusal).
func keepOwner(*os.File, fs.FileInfo, string) error { return nil }

// chownKept has nothing to do here.
func chownKept(string, fs.FileInfo) {}
