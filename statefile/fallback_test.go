package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The one loop write the rename fallback cannot keep: one renamed over the
// file between the moment install opens the file its rename will replace
// and the rename itself. The exchange hands that write back and it is
// kept; the rename replaces it unseen — the loss the README states and the
// stress test counts.
func TestLoopRenameJustBeforeOurRename(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		path, before := stateFile(t, 0o644)
		withHook(t, "held", func() { loopWrites[1].write(t, path, withBinding(before, "W10")) })
		res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
		if err != nil {
			t.Fatal(err)
		}
		st := readState(t, path)
		if !hasCorrection(st, "Write the runbook") || len(st.Atoms) != 9 {
			t.Fatalf("the correction is missing or there twice (%d atoms)", len(st.Atoms))
		}
		_, kept := st.Binding("W10")
		if exchangeOff.Load() {
			// What the fallback cannot see: the correction is written on
			// the bytes it checked, and the loop's write is gone.
			if kept || res.Merged != 0 {
				t.Fatalf("kept %v, merged %d: the rename fallback kept a write it cannot see — update the README's account of what it loses", kept, res.Merged)
			}
		} else if !kept || res.Merged != 1 {
			t.Fatalf("kept %v, merged %d: the exchange lost the loop's write", kept, res.Merged)
		}
		onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
	})
}

// AOT_TUI_EXCHANGE=off switches the exchange off for this process (and the
// aot-tui processes the tests start): the write above then takes the
// rename's path. Any other value is refused with a message naming the
// variable, and nothing is written.
func TestExchangeEnv(t *testing.T) {
	if !exchangeWorks(t) {
		t.Skip("no exchange here to switch off")
	}
	t.Setenv(ExchangeEnv, "off")
	path, before := stateFile(t, 0o644)
	withHook(t, "held", func() { loopWrites[1].write(t, path, withBinding(before, "W11")) })
	if _, err := Update(path, UpdateOptions{}, planOf(addAtom)); err != nil {
		t.Fatal(err)
	}
	if _, kept := readState(t, path).Binding("W11"); kept {
		t.Fatal("AOT_TUI_EXCHANGE=off: the write still went through the exchange")
	}

	t.Setenv(ExchangeEnv, "maybe")
	path, before = stateFile(t, 0o644)
	_, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if err == nil || !strings.Contains(err.Error(), `AOT_TUI_EXCHANGE="maybe": use on or off`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v; want a one-line refusal of the value", err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// The exchange falls back to a rename only where the file system refuses
// it: macOS answers renamex_np(RENAME_SWAP) on FAT, exFAT and network
// volumes with ENOTSUP (45), some with EOPNOTSUPP (102), ENOSYS (78) or
// EINVAL (22); anything else is a real failure (a rename would fail the
// same way, or hide it).
func TestSwapOutcome(t *testing.T) {
	link := func(errno syscall.Errno) error {
		return &os.LinkError{Op: "renamex_np", Old: "a", New: "b", Err: errno}
	}
	for _, c := range []struct {
		name     string
		err      error
		ok, fail bool
	}{
		{"exchanged", nil, true, false},
		{"ENOTSUP (FAT, exFAT, SMB)", link(45), false, false},
		{"EOPNOTSUPP", link(102), false, false},
		{"ENOSYS", syscall.Errno(78), false, false},
		{"EINVAL", link(22), false, false},
		{"EACCES", link(13), false, true},
		{"EPERM", link(1), false, true},
		{"ENOENT", link(2), false, true},
		{"not an errno", errors.New("boom"), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, err := swapOutcome(c.err, darwinSwapRefusals)
			if ok != c.ok || (err != nil) != c.fail {
				t.Fatalf("ok %v, err %v; want ok %v, failure %v", ok, err, c.ok, c.fail)
			}
			if c.fail && !errors.Is(err, c.err) {
				t.Fatalf("the failure %v is not the call's error", err)
			}
		})
	}
}

// The retries of a rename refused because another program holds the file
// open: 2 ms, doubling, at most 250 ms a pause, about 2 s in all.
func TestRetryPause(t *testing.T) {
	var pauses []time.Duration
	waited := time.Duration(0)
	for n := 1; ; n++ {
		p, ok := retryPause(n, waited)
		if !ok {
			break
		}
		pauses = append(pauses, p)
		waited += p
		if n > 100 {
			t.Fatal("the retries never end")
		}
	}
	if pauses[0] != 2*time.Millisecond || pauses[1] != 4*time.Millisecond {
		t.Fatalf("pauses %v; want 2ms, 4ms, …", pauses)
	}
	for i, p := range pauses {
		if p > 250*time.Millisecond || (i > 0 && p < pauses[i-1]) {
			t.Fatalf("pauses %v: not growing, or over 250ms", pauses)
		}
	}
	if waited > replaceBudget || waited < replaceBudget-250*time.Millisecond {
		t.Fatalf("waited %v in all; want about %v", waited, replaceBudget)
	}
	if !transient(&os.LinkError{Err: syscall.Errno(32)}, []syscall.Errno{5, 32, 33}) || transient(&os.LinkError{Err: syscall.Errno(2)}, []syscall.Errno{5, 32, 33}) {
		t.Fatal("transient: a sharing violation (32) is transient, a missing file (2) is not")
	}
}

// windowsReplace runs the rest of the test the way writes go on Windows,
// here: no exchange, no held file, and renames refused while heldOpen
// says another program holds the file (it is called before each try, with
// the try's number).
func windowsReplace(t *testing.T, heldOpen func(try int) bool) (slept *[]time.Duration) {
	t.Helper()
	withoutExchange(t)
	const sharingViolation = syscall.Errno(32)
	oldHold, oldTransient, oldReplace, oldSleep := holdsReplaced, replaceTransient, replaceFile, sleep
	t.Cleanup(func() {
		holdsReplaced, replaceTransient, replaceFile, sleep = oldHold, oldTransient, oldReplace, oldSleep
	})
	holdsReplaced, replaceTransient = false, []syscall.Errno{sharingViolation}
	tries := 0
	replaceFile = func(from, to string) error {
		tries++
		if heldOpen(tries) {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: sharingViolation}
		}
		return os.Rename(from, to)
	}
	slept = new([]time.Duration)
	sleep = func(d time.Duration) { *slept = append(*slept, d) }
	return slept
}

// Windows refuses to replace a file another program holds open (Python
// opens it without FILE_SHARE_DELETE): the rename is tried again with
// growing pauses, and goes through once the file is let go.
func TestWindowsReplaceRetriesWhileTheFileIsHeldOpen(t *testing.T) {
	slept := windowsReplace(t, func(try int) bool { return try <= 3 })
	path, _ := stateFile(t, 0o644)
	res, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !res.Wrote || !bytes.Equal(got, res.After) {
		t.Fatal("the correction is not in the file")
	}
	if len(*slept) != 3 || (*slept)[0] != 2*time.Millisecond || (*slept)[2] != 8*time.Millisecond {
		t.Fatalf("paused %v; want 2ms, 4ms, 8ms", *slept)
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// The program that held the file open was the loop writing it: what it
// wrote is read before the next try, and the correction planned again on
// it — never renamed over it.
func TestWindowsReplaceRechecksBeforeEachTry(t *testing.T) {
	var path string
	var theirs []byte
	windowsReplace(t, func(try int) bool {
		if try == 2 {
			// The script finishes its write_text and closes the file.
			if err := os.WriteFile(path, theirs, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return try <= 2
	})
	path, before := stateFile(t, 0o644)
	theirs = withBinding(before, "W12")
	res, err := Update(path, UpdateOptions{Carried: carriedRunbook}, planOf(addAtom))
	if err != nil {
		t.Fatal(err)
	}
	st := readState(t, path)
	if _, ok := st.Binding("W12"); !ok || !hasCorrection(st, "Write the runbook") || res.Attempts != 2 {
		t.Fatalf("the loop's write or the correction is missing (%d attempts)", res.Attempts)
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// A file held open for good: after about 2 s the write gives up with
// ErrConflict (exit 3) and a one-line message saying why and what to do;
// nothing is written and no temp file remains.
func TestWindowsReplaceGivesUp(t *testing.T) {
	slept := windowsReplace(t, func(int) bool { return true })
	path, before := stateFile(t, 0o644)
	res, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if !errors.Is(err, ErrConflict) || res.Wrote {
		t.Fatalf("err %v, wrote %v; want ErrConflict", err, res.Wrote)
	}
	msg := err.Error()
	if !strings.Contains(msg, "another program holds "+path+" open") || !strings.Contains(msg, "try again") || strings.Contains(msg, "\n") || strings.Contains(msg, ".aot-tui-") {
		t.Fatalf("message %q", msg)
	}
	total := time.Duration(0)
	for _, d := range *slept {
		total += d
	}
	if total > replaceBudget || total < replaceBudget/2 {
		t.Fatalf("waited %v in all; want about %v", total, replaceBudget)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
	onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
}

// Without a held file (Windows), a loop write landing between the last
// check and the rename is replaced: the loss the README states for
// Windows. (Everything up to the check is seen, as above.)
func TestWindowsReplaceLosesAWriteAfterTheLastCheck(t *testing.T) {
	windowsReplace(t, func(int) bool { return false })
	path, before := stateFile(t, 0o644)
	withHook(t, "held", func() { loopWrites[0].write(t, path, withBinding(before, "W13")) })
	if _, err := Update(path, UpdateOptions{}, planOf(addAtom)); err != nil {
		t.Fatal(err)
	}
	st := readState(t, path)
	if _, kept := st.Binding("W13"); kept || !hasCorrection(st, "Write the runbook") {
		t.Fatalf("kept %v: the Windows path kept a write it cannot see — update the README", kept)
	}
}

// The --help line says how writes replace the file here, in lines that fit
// a terminal.
func TestExchangeNote(t *testing.T) {
	note := ExchangeNote()
	want := "has no exchange"
	if HasExchange() {
		want = "(" + exchangeCall + ")"
	}
	if !strings.Contains(note, want) {
		t.Fatalf("note %q does not say %q", note, want)
	}
	for _, line := range strings.Split(note, "\n") {
		if len(line) > 80 {
			t.Fatalf("line %q is over 80 columns", line)
		}
	}
}

// Without the exchange, a loop write found in the file our rename replaced
// is written back; when that fails (here the file is gone by then), the
// write is kept beside the file and the error says where: it is not lost
// with the replaced file.
func TestLoopWriteThatCannotBePutBackIsKept(t *testing.T) {
	withoutExchange(t)
	needHeld(t)
	path, before := stateFile(t, 0o644)
	theirs := withBinding(before, "W15")
	withHook(t, "checked", func() {
		loopWrites[0].write(t, path, theirs)
		testHook = func(step string) {
			if step == "swapped" {
				os.Remove(path)
				testHook = nil
			}
		}
	})
	_, err := Update(path, UpdateOptions{}, planOf(addAtom))
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "could not be put back") || !strings.Contains(err.Error(), "kept in") {
		t.Fatalf("err %v; want the write kept beside the file", err)
	}
	kept, _ := filepath.Glob(path + ".aot-tui-kept-*")
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	if data, _ := os.ReadFile(kept[0]); !bytes.Equal(data, theirs) {
		t.Fatal("the kept file is not the loop's write")
	}
}
