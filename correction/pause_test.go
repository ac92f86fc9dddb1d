package correction

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestMain lets the test binary play another aot-tui: with
// AOT_TUI_TEST_HOLD_PAUSE=PATH it opens a form on PATH (its session's
// Begin), says "paused" on stdout and waits to be killed.
func TestMain(m *testing.M) {
	testenv.ServeHelper("AOT_TUI_TEST_HOLD_PAUSE", "paused", func(path string) error {
		return NewSession(path, Options{}).BeginFor("constraints")().(FlagResult).Err
	})
	os.Exit(m.Run())
}

// holdPause starts another process that holds the pause of path with an
// open form; kill it with its Process.Kill (SIGKILL: no clean-up runs).
func holdPause(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	return testenv.StartHelper(t, "AOT_TUI_TEST_HOLD_PAUSE", path, "paused", "pause the loop")
}

// files lists the directory of path, for what aot-tui left beside the
// state file.
func files(t *testing.T, path string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func onlyTheStateFile(t *testing.T, path string) {
	t.Helper()
	if got := files(t, path); len(got) != 1 || got[0] != filepath.Base(path) {
		t.Fatalf("files beside the state file: %v; want only %s", got, filepath.Base(path))
	}
}

// twoSessions are two sessions on a fresh fixture (its flag clear), as two
// TUIs on one loop; they are closed when the test ends.
func twoSessions(t *testing.T) (path string, a, b *Session) {
	t.Helper()
	path = fixture(t, false)
	a, b = newSession(path), newSession(path)
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	return path, a, b
}

// cancel closes s's form: End's job, when it has one.
func cancel(t *testing.T, s *Session) {
	t.Helper()
	if j := s.End(); j != nil {
		run(t, j)
	}
}

// wantFlag fails the test, saying why, unless the file's
// redirect_requested is want.
func wantFlag(t *testing.T, path string, want bool, why string) {
	t.Helper()
	if flagOf(t, path) != want {
		t.Fatal(why)
	}
}

// Two TUIs on one loop: A opens a form, B opens one, A cancels — the loop
// must stay paused while B's form is open; B's cancel lets it go.
func TestTwoSessionsShareThePause(t *testing.T) {
	path, a, b := twoSessions(t)
	run(t, a.Begin())
	run(t, b.Begin())
	wantFlag(t, path, true, "two forms are open and redirect_requested is false")
	cancel(t, a)
	wantFlag(t, path, true, "A cancelled while B's form is open: redirect_requested is false, the loop is not paused")
	cancel(t, b)
	wantFlag(t, path, false, "the last form closed and redirect_requested is still true: the loop stays paused")
	onlyTheStateFile(t, path)
}

// The same in the other order, and with the first form reopened: the flag
// is cleared by whichever form closes last.
func TestTheLastFormToCloseClearsTheFlag(t *testing.T) {
	path, a, b := twoSessions(t)
	run(t, a.BeginFor("constraints"))
	run(t, b.BeginFor("add atom"))
	run(t, b.End())
	wantFlag(t, path, true, "B cancelled while A's form is open: the loop is not paused")
	v := a.Pause()
	if !v.Shared || !v.Ours || len(v.Others) != 0 || !v.Marked {
		t.Fatalf("A's view after B left: %+v", v)
	}
	run(t, b.BeginFor("add atom"))
	if v := b.Pause(); !v.Ours || len(v.Others) != 1 || v.Others[0].PID != os.Getpid() || v.Others[0].Form != "constraints" {
		t.Fatalf("B's view: %+v; want its own lease and A's constraints form", v)
	}
	run(t, a.End())
	wantFlag(t, path, true, "A cancelled while B's form is open: the loop is not paused")
	run(t, b.End())
	wantFlag(t, path, false, "the last form closed and the loop stays paused")
	onlyTheStateFile(t, path)
}

// "No other lease: clear" (A's cancel) and "a new lease: the flag is set
// already" (B's form) race; under the pause lock they cannot interleave,
// and B's form always finds the loop paused.
func TestCancelAndOpenAtTheSameTime(t *testing.T) {
	path := fixture(t, false)
	for i := range 30 {
		a, b := newSession(path), newSession(path)
		run(t, a.Begin())
		var wg sync.WaitGroup
		end, begin := a.End(), b.Begin()
		wg.Add(2)
		go func() { defer wg.Done(); end() }()
		go func() { defer wg.Done(); begin() }()
		wg.Wait()
		if !flagOf(t, path) {
			t.Fatalf("round %d: B's form is open and the loop is not paused", i)
		}
		b.Close()
		a.Close()
		if flagOf(t, path) {
			t.Fatalf("round %d: both forms closed and the loop stays paused", i)
		}
	}
	onlyTheStateFile(t, path)
}

// A TUI killed with a form open (kill -9, a closed terminal) leaves its
// lease with no lock on it: the next session sees the flag as aot-tui's,
// clears it when its own form closes, and removes the dead lease.
func TestAKilledHoldersPauseIsClearedByTheNextForm(t *testing.T) {
	path := fixture(t, false)
	other := holdPause(t, path)
	wantFlag(t, path, true, "the other process's form did not pause the loop")
	s := newSession(path)
	defer s.Close()
	run(t, s.Begin())
	if err := other.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	other.Wait()
	cancel(t, s)
	wantFlag(t, path, false, "the killed process's pause was left: the loop stays paused")
	onlyTheStateFile(t, path)
}

// While the other process lives, its form keeps the loop paused through
// ours; the views name it.
func TestAnotherProcessesFormKeepsTheLoopPaused(t *testing.T) {
	path := fixture(t, false)
	other := holdPause(t, path)
	s := newSession(path)
	defer s.Close()
	r := run(t, s.LookPause()).(PauseResult)
	if r.Err != nil || len(r.View.Others) != 1 || r.View.Others[0].PID != other.Process.Pid ||
		r.View.Others[0].Form != "constraints" || !r.View.Marked || r.View.Ours {
		t.Fatalf("look: %+v; want the other process's constraints form", r)
	}
	run(t, s.Begin())
	if r := run(t, s.End()).(FlagResult); r.Held != 1 || !flagOf(t, path) {
		t.Fatalf("%+v: our cancel let the loop go while another process's form is open", r)
	}
	other.Process.Kill()
	other.Wait()
	r = run(t, s.LookPause()).(PauseResult)
	if r.Err != nil || len(r.View.Others) != 0 || len(r.View.Gone) != 1 || r.View.Gone[0].PID != other.Process.Pid || !r.View.Marked {
		t.Fatalf("look after the kill: %+v; want its lease found dead, the flag still marked aot-tui's", r)
	}
	if got := files(t, path); len(got) != 2 || !strings.HasSuffix(got[1], ".aot-tui-pause.lock") {
		t.Fatalf("files: %v; want the state file and the lock that says aot-tui set the flag", got)
	}
	// The person clears the left-over flag (the stale-flag question).
	run(t, s.ClearForeignFlag())
	wantFlag(t, path, false, "the flag was not cleared")
	onlyTheStateFile(t, path)
}

// An aot-tui that does not know leases (a version before them: here a
// session that keeps the pause to itself) clears the flag under our open
// form: the guard sets it again, as ours.
func TestAFlagClearedUnderAnOpenFormIsSetAgain(t *testing.T) {
	path := fixture(t, false)
	old := NewSession(path, Options{SoloPause: true})
	s := newSession(path)
	defer s.Close()
	run(t, old.Begin())
	run(t, s.Begin()) // finds the flag set, by someone who did not mark it
	run(t, old.End())
	wantFlag(t, path, false, "setup: the old session did not clear the flag")
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the flag set again while our form is open", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Flag || !r.Set || !flagOf(t, path) {
		t.Fatalf("%+v: the loop is not paused again", r)
	}
	run(t, s.End())
	wantFlag(t, path, false, "the flag we set again was not cleared when our form closed")
	onlyTheStateFile(t, path)
}

// Someone else's true (the loop's own /redirect) with our form open and
// then cleared by its owner: set again while the form is open.
func TestAForeignFlagClearedUnderAnOpenFormIsSetAgain(t *testing.T) {
	path := fixture(t, true)
	s := newSession(path)
	defer s.Close()
	run(t, s.Begin())
	data, _ := os.ReadFile(path)
	loopWrite(t, path, bytes.Replace(data, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1))
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the flag set again", len(jobs))
	}
	run(t, jobs[0])
	wantFlag(t, path, true, "a form is open and the loop is not paused")
}

// An apply while another form holds the pause writes the correction and
// leaves the flag set — also when the preview, made while ours was the
// only form, said it would clear it: the write then differs from the
// preview only in that line.
func TestApplyLeavesThePauseToAnotherOpenForm(t *testing.T) {
	path, a, b := twoSessions(t)
	run(t, a.Begin())
	pr := run(t, a.Preview(addRunbook, "")).(PreviewResult)
	if pr.Err != nil || !pr.Preview.ClearsFlag {
		t.Fatalf("preview: %+v; alone, the apply clears the flag", pr)
	}
	run(t, b.Begin())
	ar := run(t, a.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.Plan == nil {
		t.Fatalf("apply: %+v", ar)
	}
	got, _ := os.ReadFile(path)
	want := bytes.Replace(pr.Preview.After, []byte("redirect_requested: false"), []byte("redirect_requested: true"), 1)
	if !bytes.Equal(got, want) {
		t.Fatalf("the apply wrote something else than the preview with the flag left set:\n%s", got)
	}
	if v := a.Pause(); v.Ours {
		t.Fatal("the applied form still holds a lease")
	}
	// B's preview is made while it is the last form: it clears the flag.
	pr = run(t, b.Preview(addRunbook, "second")).(PreviewResult)
	if pr.Err != nil || !pr.Preview.ClearsFlag {
		t.Fatalf("B's preview: %+v", pr)
	}
	if ar := run(t, b.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
		t.Fatal(ar.Err)
	}
	wantFlag(t, path, false, "the last form applied and the loop stays paused")
	onlyTheStateFile(t, path)
}

// The other way round: the preview was made while another form held the
// pause; it closed before the apply, so the apply is the last and clears.
func TestApplyAfterTheOtherFormClosedClearsTheFlag(t *testing.T) {
	path, a, b := twoSessions(t)
	run(t, b.Begin())
	run(t, a.Begin())
	pr := run(t, a.Preview(addRunbook, "")).(PreviewResult)
	if pr.Err != nil || pr.Preview.ClearsFlag {
		t.Fatalf("preview: %+v; with B's form open it must not clear the flag", pr)
	}
	run(t, b.End())
	if ar := run(t, a.Apply(pr.Preview)).(ApplyResult); ar.Err != nil || ar.Plan == nil {
		t.Fatalf("apply: %+v", ar)
	}
	st := load(t, path).State
	if st.Control.RedirectRequested || !hasEntry(st, "Write the runbook") {
		t.Fatal("the last form applied: the correction must be in and the flag clear")
	}
	// Undo restores the file as it was before the form opened, flag clear.
	if u := run(t, a.Undo()).(UndoResult); u.Err != nil || flagOf(t, path) {
		t.Fatalf("undo: %+v", u)
	}
	onlyTheStateFile(t, path)
}

// The idle release: a form stays open but lets the loop go (End), and the
// next key takes the pause again (BeginFor): the preview is then planned on
// the file as it is.
func TestFormLetsTheLoopGoAndTakesItBack(t *testing.T) {
	for _, solo := range []bool{false, true} {
		t.Run(fmt.Sprintf("solo=%v", solo), func(t *testing.T) {
			path := fixture(t, false)
			s := NewSession(path, Options{Now: func() time.Time { return testNow }, SoloPause: solo})
			defer s.Close()
			run(t, s.BeginFor("constraints"))
			run(t, s.End())
			wantFlag(t, path, false, "let go, the loop is still paused")
			data, _ := os.ReadFile(path)
			loopWrite(t, path, withBinding(data, "W9")) // the loop runs meanwhile
			run(t, s.BeginFor("constraints"))
			wantFlag(t, path, true, "the form took the pause again and the flag is not set")
			pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
			now, _ := os.ReadFile(path)
			if pr.Err != nil || !bytes.Equal(pr.Preview.Base, now) || !pr.Preview.ClearsFlag {
				t.Fatalf("preview: %+v; want it planned on the file as it is, clearing the flag", pr)
			}
			if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
				t.Fatal(ar.Err)
			}
			wantFlag(t, path, false, "the apply left the loop paused")
			wantBoth(t, path, "W9")
			onlyTheStateFile(t, path)
		})
	}
}

// The flag tests of session_test.go, with the pause kept to the session
// (no leases: what runs where file locks are not available).
func TestFlagsWithSoloPause(t *testing.T) {
	soloPause = true
	defer func() { soloPause = false }()
	for name, f := range map[string]func(*testing.T){
		"BeginSetsTheFlagAndEndClearsIt":          TestBeginSetsTheFlagAndEndClearsIt,
		"ForeignFlagIsLeftAlone":                  TestForeignFlagIsLeftAlone,
		"FlagReopenedRightAfterACancelIsSet":      TestFlagReopenedRightAfterACancelIsSet,
		"FlagWritesKeepTheirOrder":                TestFlagWritesKeepTheirOrder,
		"FlagThatCannotBeWritten":                 TestFlagThatCannotBeWritten,
		"FlagWriteOnAVanishedFile":                TestFlagWriteOnAVanishedFile,
		"PreviewApplyClearsTheFlagInTheSameWrite": TestPreviewApplyClearsTheFlagInTheSameWrite,
		"FlagGuard":                                TestFlagGuard,
		"FlagGuardIgnoresOurOwnVersionSeenLate":    TestFlagGuardIgnoresOurOwnVersionSeenLate,
		"UndoRestoresTheFileWithTheFlagCleared":    TestUndoRestoresTheFileWithTheFlagCleared,
		"CloseClearsOurFlag":                       TestCloseClearsOurFlag,
		"ForeignFlagIsLeftAloneByTheFlagGuard":     TestForeignFlagIsLeftAloneByTheFlagGuard,
		"ForeignFlagSurvivesAFormCancelledAtOnce":  TestForeignFlagSurvivesAFormCancelledAtOnce,
		"TheFallbackDoesNotSeeOtherForms":          testSoloDoesNotSeeOtherForms,
		"TheFallbackWritesNoFilesBesideTheLoop":    testSoloWritesNoFiles,
		"TheFallbackStillClearsWhatItSetWhenAlone": TestTwoSessionsShareThePauseSequentially,
	} {
		t.Run(name, f)
	}
}

// testSoloDoesNotSeeOtherForms states the fallback's limit: without
// leases a session clears the flag it set when its form closes, whatever
// another aot-tui has open (the README says so).
func testSoloDoesNotSeeOtherForms(t *testing.T) {
	path, a, b := twoSessions(t)
	run(t, a.Begin())
	run(t, b.Begin())
	cancel(t, a)
	wantFlag(t, path, false, "without leases the session clears the flag it set; the fallback changed")
	if v := a.Pause(); v.Shared {
		t.Fatal("the fallback claims to see other forms")
	}
}

func testSoloWritesNoFiles(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	run(t, s.Begin())
	onlyTheStateFile(t, path)
	run(t, s.End())
}

// One form after another (never two at once) behaves alike with leases
// and without.
func TestTwoSessionsShareThePauseSequentially(t *testing.T) {
	path, a, b := twoSessions(t)
	for _, s := range []*Session{a, b, a} {
		run(t, s.Begin())
		wantFlag(t, path, true, "a form is open and the loop is not paused")
		run(t, s.End())
		wantFlag(t, path, false, "no form is open and the loop stays paused")
	}
	onlyTheStateFile(t, path)
}

// A pause lock another process holds for too long (stopped with ctrl+z in
// the middle of a flag write, say) does not hang the session: the flag
// job fails with a message naming the lock file.
func TestPauseLockHeldTooLong(t *testing.T) {
	if !statefile.PauseLeasesSupported {
		t.Skip("no file locks here")
	}
	path := fixture(t, false)
	p, err := statefile.LockPauses(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Unlock()
	s := newSession(path)
	s.PauseWait = 50 * time.Millisecond
	r := run(t, s.Begin()).(FlagResult)
	if r.Err == nil || !strings.Contains(r.Err.Error(), statefile.PauseLockPath(path)) {
		t.Fatalf("%+v: want an error naming the pause lock", r)
	}
	if s.FlagOurs() {
		t.Fatal("the loop was not paused, yet the flag counts as ours")
	}
}

// A form opened and closed on someone else's true does not start the
// guard's window for our own clear: their flag, seen again, stays.
func TestForeignFlagIsLeftAloneByTheFlagGuard(t *testing.T) {
	path := fixture(t, true)
	s := newSession(path)
	defer s.Close()
	run(t, s.Begin())
	cancel(t, s)
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		for _, j := range jobs {
			run(t, j)
		}
		t.Fatalf("%d jobs after a form closed on someone else's flag (flag now %v)", len(jobs), flagOf(t, path))
	}
	wantFlag(t, path, true, "someone else's flag was cleared")
}

// Someone else's true through a form opened and cancelled at once (the
// cancel asked before the open's job ran) and then an applied correction:
// the guard does not take the true for our clear undone.
func TestForeignFlagSurvivesAFormCancelledAtOnce(t *testing.T) {
	path := fixture(t, true)
	s := newSession(path)
	defer s.Close()
	begin := s.Begin()
	cancel(t, s)
	run(t, begin)
	run(t, s.Begin())
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	if pr.Err != nil || pr.Preview.ClearsFlag {
		t.Fatalf("preview: %+v; the flag is not ours to clear", pr)
	}
	if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
		t.Fatal(ar.Err)
	}
	for _, j := range s.Check(load(t, path)) {
		run(t, j)
	}
	wantFlag(t, path, true, "someone else's flag was cleared after the apply")
}

// BenchmarkFormOpenAndCancel is a form's pause and its release (Begin,
// End: two flag writes), with leases and without: what the pause lock and
// the lease cost on top of the writes.
func BenchmarkFormOpenAndCancel(b *testing.B) {
	for _, solo := range []bool{false, true} {
		b.Run(fmt.Sprintf("solo=%v", solo), func(b *testing.B) {
			path := fixture(b, false)
			s := NewSession(path, Options{SoloPause: solo})
			defer s.Close()
			for b.Loop() {
				s.Begin()()
				s.End()()
			}
		})
	}
}

// BenchmarkLookPause is the look the TUI takes every 2 s while the loop is
// paused: the pause lock, the directory, one live lease.
func BenchmarkLookPause(b *testing.B) {
	path := fixture(b, false)
	other := NewSession(path, Options{})
	defer other.Close()
	other.Begin()()
	s := NewSession(path, Options{})
	defer s.Close()
	for b.Loop() {
		if r := s.LookPause()().(PauseResult); r.Err != nil || len(r.View.Others) != 1 {
			b.Fatalf("%+v", r)
		}
	}
}
