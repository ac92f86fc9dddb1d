package correction

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// Apply only what was previewed (RunOptions.ExpectSHA256): the
// correction is written on the version previewed and on no other — a loop
// write after the preview refuses it, even one that lands inside the
// write, after the bytes were read and the correction planned on them.

func expectRun(path string, sum [sha256.Size]byte, dry bool) (*Outcome, error) {
	return Run(path, addRunbook, RunOptions{Options: Options{Now: func() time.Time { return testNow }},
		DryRun: dry, ExpectSHA256: &sum})
}

func TestExpectSHA256LandsExactlyThePreview(t *testing.T) {
	path := fixture(t, false)
	base, _ := os.ReadFile(path)
	preview, err := expectRun(path, sha256.Sum256(base), true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := expectRun(path, sha256.Sum256(base), false)
	if err != nil || !out.Result.Wrote {
		t.Fatalf("err %v, wrote %v", err, out != nil && out.Result.Wrote)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, preview.Result.After) {
		t.Fatalf("the file is not the preview:\n%s", statefileDiff(preview.Result.After, now))
	}
}

func TestExpectSHA256RefusesALoopWriteAfterThePreview(t *testing.T) {
	path := fixture(t, false)
	base, _ := os.ReadFile(path)
	// update_atom.py A8 in_progress: read, change a line, write in place.
	loop, ok := updateAtom(string(base), "A8", "in_progress")
	if !ok {
		t.Fatal("no A8")
	}
	loopWrite(t, path, []byte(loop))
	_, err := expectRun(path, sha256.Sum256(base), false)
	var np *NotPreviewedError
	if !errors.As(err, &np) || !errors.Is(err, ErrNotPreviewed) || np.Got != sha256.Sum256([]byte(loop)) {
		t.Fatalf("err %v; want a *NotPreviewedError naming the loop's version", err)
	}
	if now, _ := os.ReadFile(path); string(now) != loop {
		t.Fatal("the file is not the loop's write")
	}
}

// The loop writes after the correction's bytes were read and checked and
// the correction planned on them: the exchange finds other bytes, and the
// write is planned again on them — where the check refuses it. A check
// made by reading the file before the write would have let the correction
// land on the loop's version.
func TestExpectSHA256RefusesALoopWriteInsideTheWrite(t *testing.T) {
	path := fixture(t, false)
	base, _ := os.ReadFile(path)
	loop, _ := updateAtom(string(base), "A8", "in_progress")
	wrote := false
	testPlanHook = func(data []byte) {
		if !wrote {
			wrote = true
			loopWrite(t, path, []byte(loop))
		}
	}
	t.Cleanup(func() { testPlanHook = nil })
	_, err := expectRun(path, sha256.Sum256(base), false)
	if !wrote {
		t.Fatal("the hook did not run")
	}
	if !errors.Is(err, ErrNotPreviewed) {
		t.Fatalf("err %v; want ErrNotPreviewed", err)
	}
	if now, _ := os.ReadFile(path); string(now) != loop {
		t.Fatalf("the file is not the loop's write:\n%s", statefileDiff([]byte(loop), now))
	}
}

// After the write the guard re-applies the correction on the loop's
// writes as it always does: the previewed version binds the first write
// only.
func TestExpectSHA256LeavesTheGuardFree(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !bytes.Contains(must(os.ReadFile(path)), []byte("Write the runbook")) {
			time.Sleep(time.Millisecond)
		}
		loopWrite(t, path, withBinding(stale, "W4"))
	}()
	sum := sha256.Sum256(stale)
	out, err := Run(path, addRunbook, RunOptions{Guard: 300 * time.Millisecond, ExpectSHA256: &sum})
	<-done
	if err != nil || out.Reapplied != 1 {
		t.Fatalf("err %v, re-applied %d", err, out.Reapplied)
	}
	wantBoth(t, path, "W4")
}

func statefileDiff(want, got []byte) string {
	return statefile.UnifiedDiff("want → got", want, got)
}
