//go:build !linux

package statefile

// swap is not available here: the caller renames (see swap_linux.go).
func swap(tmp, path string) (bool, error) { return false, nil }
