//go:build !linux && !darwin

package statefile

// exchangeCall is empty: this system has no exchange, and install renames
// (see swap_linux.go).
const exchangeCall = ""

// swap is not available here: the caller renames.
func swap(tmp, path string) (bool, error) { return false, nil }
