//go:build darwin

package statefile

import "golang.org/x/sys/unix"

// exchangeCall names the exchange install uses here.
const exchangeCall = "renamex_np RENAME_SWAP"

// swap exchanges tmp and path in one step (renamex_np RENAME_SWAP), as
// renameat2 RENAME_EXCHANGE does on Linux (see swap_linux.go). ok is false
// where the volume refuses (darwinSwapRefusals: FAT, exFAT, network
// shares); the caller then renames.
func swap(tmp, path string) (ok bool, err error) {
	return swapOutcome(unix.RenamexNp(tmp, path, unix.RENAME_SWAP), darwinSwapRefusals)
}

// darwinSwapRefusals holds macOS's own numbers: a build for macOS fails
// here if x/sys disagrees with them (an array length must not be negative,
// and a non-zero one does not fit [0]int).
var (
	_ [0]int = [unix.ENOTSUP - 45]int{}
	_ [0]int = [unix.EOPNOTSUPP - 102]int{}
	_ [0]int = [unix.ENOSYS - 78]int{}
	_ [0]int = [unix.EINVAL - 22]int{}
)
