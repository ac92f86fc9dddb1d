//go:build !unix

package fleet

// openFilesLimit: no RLIMIT_NOFILE here (Windows' handles are limited by
// memory).
func openFilesLimit() uint64 { return 0 }
