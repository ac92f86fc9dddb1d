//go:build !unix

package history

import "os"

// lockFile is a no-op where flock is missing: two processes appending to
// one journal at once may then break each other's diff chains (the reader
// skips such records with a note, up to the next full record).
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
