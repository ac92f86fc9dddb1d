package statefile

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
)

// ExchangeEnv names the environment variable that switches the exchange
// off: AOT_TUI_EXCHANGE=off writes by rename, as systems without an
// exchange do (a diagnostic, and how the tests run that path on Linux).
const ExchangeEnv = "AOT_TUI_EXCHANGE"

// exchangeOff, set by tests, switches the exchange off in this process as
// AOT_TUI_EXCHANGE=off does.
var exchangeOff atomic.Bool

// exchangeOn reports whether install may try the exchange: the system has
// one (exchangeCall) and neither the tests nor AOT_TUI_EXCHANGE switched it
// off. The variable is read at every write, so that a test's setting
// reaches this process and the aot-tui processes it starts alike.
func exchangeOn() (bool, error) {
	switch v := os.Getenv(ExchangeEnv); v {
	case "", "on":
		return exchangeCall != "" && !exchangeOff.Load(), nil
	case "off":
		return false, nil
	default:
		return false, fmt.Errorf("%s=%q: use on or off (off writes by rename instead of the exchange, a diagnostic) — fix it or unset it", ExchangeEnv, v)
	}
}

// HasExchange reports whether this system has the exchange that writes
// use (unless AOT_TUI_EXCHANGE=off): Linux and macOS.
func HasExchange() bool { return exchangeCall != "" }

// ExchangeNote says how a correction replaces the state file on this
// system, and what is weaker where there is no exchange, in a sentence
// wrapped for --help (the README's "How writing stays safe" has the
// details).
func ExchangeNote() string {
	if exchangeCall != "" {
		return "Writes exchange the file in one step (" + exchangeCall + "):\n" +
			"a loop write made at the same instant is kept."
	}
	note := "Writes rename the file here (" + runtime.GOOS + " has no exchange): a loop write\n" +
		"renamed over it at the same instant is lost"
	if len(replaceTransient) > 0 {
		note += "; a file another program holds open\nis retried for 2s, then exit 3"
	}
	return note + "."
}

// swapOutcome maps the exchange call's error: ok when the files were
// exchanged; neither ok nor an error when the file system refused the
// exchange (refusals: the errnos it answers with there), and the caller
// renames instead; otherwise the error.
func swapOutcome(err error, refusals []syscall.Errno) (ok bool, _ error) {
	if err == nil {
		return true, nil
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && slices.Contains(refusals, errno) {
		return false, nil
	}
	return false, err
}

// darwinSwapRefusals are the errnos with which a macOS file system refuses
// renamex_np(RENAME_SWAP): ENOTSUP (45) from volumes without
// VOL_CAP_INT_RENAME_SWAP — FAT and exFAT, whose drivers have no
// vnop_renamex, and network shares — EOPNOTSUPP (102) and ENOSYS (78)
// from some network and FUSE file systems, EINVAL (22) from one that does
// not know the flag. (Numbers, so that the decision is tested on every
// system; swap_darwin.go checks them against golang.org/x/sys/unix when
// built for macOS. A rename fails as it should where EINVAL meant
// something else.)
var darwinSwapRefusals = []syscall.Errno{45, 102, 78, 22}

// replaceBudget bounds the retries of a rename over a file that another
// program holds open (Windows refuses to replace it meanwhile).
const replaceBudget = 2 * time.Second

// retryPause is the pause after try n (1, 2, …) of a replace that another
// program's open handle refused, given the time already waited: 2 ms,
// doubling, at most 250 ms; ok is false once the next pause would take the
// wait past replaceBudget (about 14 tries in all).
func retryPause(n int, waited time.Duration) (pause time.Duration, ok bool) {
	pause = min(time.Millisecond<<min(n, 8), 250*time.Millisecond)
	if waited+pause > replaceBudget {
		return 0, false
	}
	return pause, true
}

// transient reports whether err is another program holding the file open
// (codes: the errnos that say so here, replaceTransient), which goes away
// when it lets go; other errors are final.
func transient(err error, codes []syscall.Errno) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && slices.Contains(codes, errno)
}

// heldOpenError is install's error when the file stayed held open past
// replaceBudget.
func heldOpenError(path string, waited time.Duration, err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // the system's words, without the temp file's name
	}
	return fmt.Errorf("%w: another program holds %s open (or access to it is denied) and it could not be replaced for %v (%v); try again when it lets go",
		ErrConflict, path, waited.Round(100*time.Millisecond), err)
}

// Seams for the tests, which run the Windows path on Linux: the rename
// that replaces the file, and the pause between tries.
var (
	replaceFile = os.Rename
	sleep       = time.Sleep
)
