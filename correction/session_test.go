package correction

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// fixture writes testdata/rich.md (its flag clear unless flagged) into a
// fresh project and returns the state file's path.
func fixture(t testing.TB, flagged bool) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	if !flagged {
		data = bytes.Replace(data, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1)
	}
	dir := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// soloPause makes newSession's sessions keep the pause to themselves, as
// where file locks are not available (TestFlagsWithSoloPause).
var soloPause bool

func newSession(path string) *Session {
	return NewSession(path, Options{Now: func() time.Time { return testNow }, SoloPause: soloPause})
}

func load(t *testing.T, path string) *statefile.Document {
	t.Helper()
	doc, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func run(t *testing.T, j Job) Result {
	t.Helper()
	if j == nil {
		t.Fatal("no job")
	}
	done := make(chan Result, 1)
	go func() { done <- j() }()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("the job never finished")
	}
	return nil
}

func flagOf(t *testing.T, path string) bool { return load(t, path).State.Control.RedirectRequested }

var addRunbook = model.AddAtom{Description: "Write the runbook", DependsOn: []string{"A2"}}

func hasEntry(st *model.State, substr string) bool {
	for _, c := range st.Corrections {
		if strings.Contains(c.Description, substr) {
			return true
		}
	}
	return false
}

// loopWrite writes data as the loop's scripts do: in place.
func loopWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantBoth fails unless the file has the loop's binding and the runbook
// correction.
func wantBoth(t *testing.T, path, binding string) {
	t.Helper()
	st := load(t, path).State
	if _, ok := st.Binding(binding); !ok || !hasEntry(st, "Write the runbook") {
		t.Fatalf("the loop's write (%s) or the correction is missing", binding)
	}
}

func withBinding(data []byte, name string) []byte {
	return bytes.Replace(data, []byte("\nbindings:\n"), []byte("\nbindings:\n  "+name+":\n    summary: \"loop write\"\n    artifacts: []\n"), 1)
}

func TestBeginSetsTheFlagAndEndClearsIt(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	if r := run(t, s.Begin()).(FlagResult); r.Err != nil || !r.Set || !flagOf(t, path) || !s.FlagOurs() {
		t.Fatalf("Begin: %+v; the flag must be set and ours", r)
	}
	if s.Begin() != nil {
		t.Fatal("a second Begin asked for the flag again")
	}
	if r := run(t, s.End()).(FlagResult); r.Err != nil || r.Set || flagOf(t, path) || s.FlagOurs() {
		t.Fatalf("End: %+v; the flag must be clear", r)
	}
	if s.End() != nil {
		t.Fatal("End without a flag of ours wrote")
	}
}

func TestForeignFlagIsLeftAlone(t *testing.T) {
	path := fixture(t, true) // someone's /redirect set it
	s := newSession(path)
	if r := run(t, s.Begin()).(FlagResult); r.Err != nil || s.FlagOurs() {
		t.Fatalf("%+v: Begin took over someone else's flag", r)
	}
	if j := s.End(); j != nil {
		run(t, j) // with shared pauses: the form's lease goes
	}
	if !flagOf(t, path) {
		t.Fatal("End cleared someone else's flag")
	}
	// Cleared on purpose (the stale-flag question), it is cleared.
	if r := run(t, s.ClearForeignFlag()).(FlagResult); r.Err != nil || flagOf(t, path) {
		t.Fatalf("%+v: the flag was not cleared", r)
	}
}

func TestFlagReopenedRightAfterACancelIsSet(t *testing.T) {
	// The cancel's clear has landed but the UI has not seen it yet when
	// the form opens again: the flag must still be set (the loop pauses).
	path := fixture(t, false)
	s := newSession(path)
	run(t, s.Begin())
	run(t, s.End())
	if flagOf(t, path) {
		t.Fatal("the cancel did not clear the flag")
	}
	if r := run(t, s.Begin()).(FlagResult); r.Err != nil || !flagOf(t, path) || !s.FlagOurs() {
		t.Fatalf("%+v: a form is open and the flag is not set", r)
	}
}

func TestFlagWritesKeepTheirOrder(t *testing.T) {
	// A form opened and cancelled at once: the jobs are run in the
	// opposite order; the file ends with the flag clear.
	path := fixture(t, false)
	s := newSession(path)
	begin := s.Begin()
	end := s.End()
	run(t, end)
	run(t, begin)
	for s.Pending() > 0 {
		time.Sleep(time.Millisecond)
	}
	if flagOf(t, path) {
		t.Fatal("the flag is left set: the loop stays paused")
	}
}

func TestFlagThatCannotBeWritten(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only directories")
	}
	path := fixture(t, false)
	dir := filepath.Dir(path)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	s := newSession(path)
	r := run(t, s.Begin()).(FlagResult)
	if r.Err == nil || s.FlagOurs() {
		t.Fatalf("%+v: want the error, and no flag of ours to clear", r)
	}
}

func TestFlagWriteOnAVanishedFile(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	os.Remove(path)
	r := run(t, s.Begin()).(FlagResult)
	if r.Err == nil || s.FlagOurs() {
		t.Fatalf("%+v: want the error, and no flag of ours to clear", r)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the flag write created the file")
	}
}

func TestPreviewApplyClearsTheFlagInTheSameWrite(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	run(t, s.Begin())
	pr := run(t, s.Preview(addRunbook, "a note")).(PreviewResult)
	if pr.Err != nil || !pr.Preview.ClearsFlag || !strings.Contains(pr.Preview.Diff, `+    description: "Write the runbook"`) {
		t.Fatalf("preview: %+v", pr)
	}
	before, _ := os.ReadFile(path)
	if !bytes.Equal(before, pr.Preview.Base) {
		t.Fatal("the preview was not planned on the file as it is")
	}
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.Plan == nil || ar.Replanned != nil {
		t.Fatalf("apply: %+v", ar)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, pr.Preview.After) {
		t.Fatal("what was written is not what was previewed")
	}
	st := load(t, path).State
	if st.Control.RedirectRequested || s.FlagOurs() || !hasEntry(st, "a note") {
		t.Fatal("the flag is still set, or the correction is missing")
	}
	if !s.IsOurs(after) || !s.CanUndo() {
		t.Fatal("the write is not known as ours / cannot be undone")
	}
	if ar.Follow != nil {
		s.Grace = 10 * time.Millisecond
	}
}

func TestPreviewRefused(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	r := run(t, s.Preview(model.DeleteAtom{ID: "A1"}, "")).(PreviewResult)
	var ref *model.Refusal
	if !errors.As(r.Err, &ref) || r.Preview != nil {
		t.Fatalf("%+v: want the refusal", r)
	}
}

func TestPreviewOnAnInvalidFile(t *testing.T) {
	path := fixture(t, false)
	os.WriteFile(path, []byte("---\nobjective: [\n---\n"), 0o644)
	s := newSession(path)
	r := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	if _, ok := statefile.ParseError(r.Err); !ok {
		t.Fatalf("%+v: want the parse error", r)
	}
}

func TestApplyAfterTheLoopWroteReplans(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	data, _ := os.ReadFile(path)
	loopWrite(t, path, withBinding(data, "W1"))
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.Plan != nil || ar.Replanned == nil || !ar.Replanned.Replanned {
		t.Fatalf("%+v: want a new preview and nothing written", ar)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, withBinding(data, "W1")) {
		t.Fatal("a stale preview was written")
	}
	if !bytes.Contains(ar.Replanned.Base, []byte("  W1:\n")) {
		t.Fatal("the new preview is not planned on the loop's write")
	}
	if r := run(t, s.Apply(ar.Replanned)).(ApplyResult); r.Err != nil || r.Plan == nil {
		t.Fatalf("apply of the new preview: %+v", r)
	}
	wantBoth(t, path, "W1")
}

func TestApplyNoLongerPossible(t *testing.T) {
	// The atom the preview deletes is resolved by the loop before apply.
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(model.DeleteAtom{ID: "A8"}, "")).(PreviewResult)
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	data, _ := os.ReadFile(path)
	doc, _ := statefile.Parse(data)
	i := model.Derive(doc.State).Index["A8"]
	out, err := statefile.ApplyEdits(doc, []model.Edit{model.Replace(model.P("atoms", i, "status"), "resolved")})
	if err != nil {
		t.Fatal(err)
	}
	loopWrite(t, path, out)
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	var ref *model.Refusal
	if !errors.As(ar.Err, &ref) || ar.Plan != nil {
		t.Fatalf("%+v: want the refusal on the new state", ar)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, out) {
		t.Fatal("the file changed")
	}
}

func TestApplyThatCannotWrite(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only directories")
	}
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	os.Chmod(filepath.Dir(path), 0o555)
	defer os.Chmod(filepath.Dir(path), 0o755)
	if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err == nil || s.CanUndo() {
		t.Fatalf("%+v: want the error and nothing to undo", ar)
	}
}

// appliedRunbook is a session that has written the runbook binding
// (addRunbook) into a fixture, and the file as a loop script read it
// before that write.
func appliedRunbook(t *testing.T) (path string, s *Session, stale []byte) {
	t.Helper()
	path = fixture(t, false)
	s = newSession(path)
	stale, _ = os.ReadFile(path)
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	return path, s, stale
}

func TestGuardReappliesAfterALoopWriteUndoesTheCorrection(t *testing.T) {
	// A loop script read the file before our write and writes after it:
	// its own change plus what it read, without the correction.
	path, s, stale := appliedRunbook(t)
	loopWrite(t, path, withBinding(stale, "W2"))
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want one re-apply", len(jobs))
	}
	r := run(t, jobs[0]).(GuardResult)
	if r.Err != nil || !r.Reapplied {
		t.Fatalf("%+v: want the correction re-applied", r)
	}
	st := load(t, path).State
	if _, ok := st.Binding("W2"); !ok || !hasEntry(st, "Write the runbook") || len(st.Corrections) != 3 {
		t.Fatalf("the loop's write or the correction is missing (%d corrections)", len(st.Corrections))
	}
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the guard acts on a file that carries the correction")
	}
	// Undo now undoes the re-applied correction.
	u := run(t, s.Undo()).(UndoResult)
	if st := load(t, path).State; u.Err != nil || hasAtom(st, "Write the runbook") || !hasEntry(st, "undo of the dag_adjustment") {
		t.Fatalf("undo after a re-apply: %+v", u)
	}
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the guard re-applies a correction the person undid")
	}
}

func TestGuardReportsACorrectionThatCanNoLongerBeApplied(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	stale, _ := os.ReadFile(path)
	pr := run(t, s.Preview(model.DeleteAtom{ID: "A8"}, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	// The loop's write brings A8 back, resolved.
	doc, _ := statefile.Parse(stale)
	i := model.Derive(doc.State).Index["A8"]
	out, _ := statefile.ApplyEdits(doc, []model.Edit{model.Replace(model.P("atoms", i, "status"), "resolved")})
	loopWrite(t, path, out)
	r := run(t, s.Check(load(t, path))[0]).(GuardResult)
	var lost *LostError
	if !errors.As(r.Err, &lost) || !errors.Is(r.Err, ErrLost) || !strings.Contains(r.Err.Error(), "deleted A8") {
		t.Fatalf("%+v: want the correction reported lost", r)
	}
	if s.CanUndo() {
		t.Fatal("a lost correction can still be undone")
	}
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the guard keeps trying a lost correction")
	}
}

func TestGuardGivesUpOnALoopThatKeepsUndoingIt(t *testing.T) {
	path, s, stale := appliedRunbook(t)
	var last GuardResult
	for i := 0; i <= maxReapply; i++ {
		// A script that read the file before our write and changed
		// nothing (update_atom.py A1 resolved): exactly the bytes from
		// before the correction, within the loop window.
		loopWrite(t, path, stale)
		jobs := s.Check(load(t, path))
		if len(jobs) != 1 {
			t.Fatalf("round %d: %d jobs", i, len(jobs))
		}
		last = run(t, jobs[0]).(GuardResult)
	}
	if !errors.Is(last.Err, ErrLost) {
		t.Fatalf("%+v: want lost after %d re-applies", last, maxReapply)
	}
}

func TestFlagGuard(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	stale, _ := os.ReadFile(path)
	run(t, s.Begin())
	// A loop write from before the form opened clears our flag: it is set
	// again (the loop must stay paused while the form is open).
	loopWrite(t, path, stale)
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the flag set again", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Flag || !r.Set || !flagOf(t, path) {
		t.Fatalf("%+v", r)
	}
	flagged, _ := os.ReadFile(path)
	run(t, s.End())
	// Just after the cancel, a loop write from before it sets the flag
	// again: cleared again (else the loop stays paused).
	loopWrite(t, path, flagged)
	jobs = s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the flag cleared again", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || r.Set || flagOf(t, path) {
		t.Fatalf("%+v", r)
	}
	// Later, a true flag is someone's /redirect: left alone.
	s.FlagGuard = 0
	loopWrite(t, path, flagged)
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the session cleared a flag someone set later")
	}
}

// A form opened and cancelled at once: the watcher may deliver our own
// flagged version after our clear was written. The check finds the file
// already clear, writes nothing and reports nothing (it used to say "a
// loop write undid our redirect_requested" over "correction cancelled"),
// and such a false alarm does not use up the bound on real fixes.
func TestFlagGuardIgnoresOurOwnVersionSeenLate(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	before, _ := os.ReadFile(path)
	run(t, s.Begin())
	flagged := load(t, path) // our true, as the watcher will deliver it
	run(t, s.End())
	for range maxReapply + 1 {
		jobs := s.Check(flagged)
		if len(jobs) != 1 {
			t.Fatalf("%d jobs; want one check of the flag", len(jobs))
		}
		if r := run(t, jobs[0]).(GuardResult); r.Err != nil || r.Flag {
			t.Fatalf("%+v: nothing should have been written or reported", r)
		}
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, before) {
		t.Fatal("the file changed")
	}
	// A real late loop write of true is still cleared.
	data, _ := os.ReadFile(path)
	loopWrite(t, path, bytes.Replace(data, []byte("redirect_requested: false"), []byte("redirect_requested: true"), 1))
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the flag cleared again", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Flag || r.Set || flagOf(t, path) {
		t.Fatalf("%+v", r)
	}
}

// hasAtom reports whether st has an atom described desc.
func hasAtom(st *model.State, desc string) bool {
	for _, a := range st.Atoms {
		if a.Description == desc {
			return true
		}
	}
	return false
}

// On a running loop the loop rewrites the file within a second of a
// correction: its stop hook counts the iteration on, a worker's
// update_atom.py resolves an atom. Undo is a correction of its own,
// planned on what the loop wrote: the atom added is removed, the loop's
// writes stay, and the undo has its own corrections[] entry. (Undo used
// to restore the bytes from before the correction only while the file
// was still exactly ours, and said "cannot undo: the file changed".)
func TestUndoAfterTheLoopMovedOn(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	if s.Undo() != nil || s.CanUndo() {
		t.Fatal("undo with nothing to undo")
	}
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.ID != 1 {
		t.Fatalf("apply: %+v", ar)
	}
	data, _ := os.ReadFile(path)
	text, ok := updateAtom(hookContinue(string(data)), "A2", "in_progress")
	if !ok {
		t.Fatal("no A2")
	}
	loopWrite(t, path, []byte(text))
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the guard acts on a loop write that carries the correction")
	}
	u := run(t, s.Undo()).(UndoResult)
	if u.Err != nil || u.Plan == nil || u.Summary != "added A9" || u.ID != 2 {
		t.Fatalf("%+v: want the undo written", u)
	}
	st := load(t, path).State
	if hasAtom(st, "Write the runbook") {
		t.Fatal("the atom added is still there")
	}
	if a, _ := st.Atom("A2"); st.Control.Iteration != 8 || a.Status != model.StatusInProgress {
		t.Fatalf("the loop's writes are lost: iteration %d, A2 %s", st.Control.Iteration, a.Status)
	}
	last := st.Corrections[len(st.Corrections)-1]
	if last.Type != model.CorrectionDAG || last.Description != `undo of the dag_adjustment of 2026-01-01T12:00:00Z ("added A9 \"Write the runbook\" depending on A2"): A9 removed` {
		t.Fatalf("the undo's entry is %+v", last)
	}
	if s.CanUndo() || s.Undo() != nil {
		t.Fatal("the correction undone can be undone again by u")
	}
	got := s.Applied()
	if len(got) != 2 || got[0].UndoneBy != 2 || got[1].Undoes != 1 || got[1].Correction == nil || got[1].Correction.Description != last.Description {
		t.Fatalf("Applied: %+v", got)
	}
}

// The undo is refused, with the file untouched, where the loop's later
// work makes it impossible: the atom the correction added is in progress
// now (a worker is on it).
func TestUndoRefusedWhenTheLoopStartedTheAtom(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(model.AddAtom{Description: "Write the runbook"}, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	data, _ := os.ReadFile(path)
	text, _ := updateAtom(string(data), "A9", "in_progress")
	loopWrite(t, path, []byte(text))
	u := run(t, s.Undo()).(UndoResult)
	var ref *model.Refusal
	if !errors.As(u.Err, &ref) || ref.Rule != model.RuleUndo || ref.Reason != "A9, which the correction added, is in progress now: the loop started it (a worker is on it)" {
		t.Fatalf("%+v: want the refusal", u)
	}
	if now, _ := os.ReadFile(path); string(now) != text {
		t.Fatal("a refused undo wrote the file")
	}
	if !s.CanUndo() {
		t.Fatal("a refused undo used up the correction")
	}
}

// Any earlier correction of the session can be undone, not just the
// last, with a preview like any other; and the undo can be undone, which
// puts the correction back.
func TestPreviewUndoOfAnEarlierCorrection(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	iters := 30
	for _, req := range []model.Request{model.ChangeConstraints{MaxIterations: &iters}, addRunbook} {
		pr := run(t, s.Preview(req, "")).(PreviewResult)
		if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
			t.Fatal(ar.Err)
		}
	}
	pr := run(t, s.PreviewUndo(1, "too many")).(PreviewResult)
	if pr.Err != nil || pr.Preview.Plan.Kind != "undo" || !strings.Contains(pr.Preview.Diff, "-    max_iterations: 30") ||
		!strings.Contains(pr.Preview.Diff, "+    max_iterations: 20") {
		t.Fatalf("%+v", pr)
	}
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.ID != 3 {
		t.Fatalf("apply: %+v", ar)
	}
	st := load(t, path).State
	if st.Objective.Constraints.MaxIterations != 20 || !hasAtom(st, "Write the runbook") {
		t.Fatal("the undo did not undo the first correction alone")
	}
	last := st.Corrections[len(st.Corrections)-1]
	if last.Type != model.CorrectionConstraint || !strings.HasSuffix(last.Description, "max_iterations 30 → 20; note: too many") {
		t.Fatalf("the undo's entry is %+v", last)
	}
	// u now undoes the runbook, the last correction not undone.
	if a := s.Applied(); a[0].UndoneBy != 3 || a[1].UndoneBy != 0 || !s.CanUndo() || s.LastUndoable() != 2 {
		t.Fatalf("%+v", a)
	}
	// Undoing the undo puts max_iterations 30 back.
	pr = run(t, s.PreviewUndo(3, "")).(PreviewResult)
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	run(t, s.Apply(pr.Preview))
	if st := load(t, path).State; st.Objective.Constraints.MaxIterations != 30 {
		t.Fatalf("max_iterations %d after the undo of the undo", st.Objective.Constraints.MaxIterations)
	}
	// Nothing left to undo of the first: the file already is as before it.
	pr = run(t, s.PreviewUndo(3, "")).(PreviewResult)
	var ref *model.Refusal
	if !errors.As(pr.Err, &ref) || ref.Rule != model.RuleNoChange {
		t.Fatalf("%+v: want nothing to undo", pr)
	}
	if pr := run(t, s.PreviewUndo(9, "")).(PreviewResult); pr.Err == nil {
		t.Fatal("an undo of a correction the session did not make")
	}
}

// The undo is guarded like any correction: a loop script that read the
// file before it and writes after it puts the undone correction back,
// and the undo is applied again on what it wrote; the correction undone
// is no longer guarded (its guard would take the undo for a loop write).
func TestUndoIsGuarded(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	pr := run(t, s.Preview(model.DeleteAtom{ID: "A8"}, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	stale, _ := os.ReadFile(path)
	if r := run(t, s.Undo()).(UndoResult); r.Err != nil {
		t.Fatal(r.Err)
	}
	if st := load(t, path).State; !hasAtom(st, "文档：计费服务的运行手册 and docs") {
		t.Fatal("A8 is not back")
	}
	a8, _ := load(t, path).State.Atom("A8")
	if v, ok := a8.Extra.Get("owner"); !ok || v != "sam" {
		t.Fatalf("A8 came back without its unknown field: %+v", a8)
	}
	// The loop's write from before the undo.
	text, _ := updateAtom(string(stale), "A2", "in_progress")
	loopWrite(t, path, []byte(text))
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the undo re-applied (and nothing of the delete's guard)", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
		t.Fatalf("%+v", r)
	}
	st := load(t, path).State
	if a, _ := st.Atom("A2"); !hasAtom(st, "文档：计费服务的运行手册 and docs") || a.Status != model.StatusInProgress {
		t.Fatal("the undo or the loop's write is missing")
	}
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatalf("%d jobs on a file that carries the undo", len(jobs))
	}
}

func TestUndoRestoresTheFileWithTheFlagCleared(t *testing.T) {
	path := fixture(t, false)
	before, _ := os.ReadFile(path)
	s := newSession(path)
	run(t, s.Begin())
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	run(t, s.Apply(pr.Preview))
	u := run(t, s.Undo()).(UndoResult)
	if u.Err != nil {
		t.Fatal(u.Err)
	}
	// The file is as before the form opened but for the two entries.
	now, _ := os.ReadFile(path)
	if !bytes.Equal(u.Restored, now) || flagOf(t, path) {
		t.Fatal("the undo's result is not what the file holds, or the flag is set")
	}
	entries := strings.Index(string(now), "  - timestamp: \"2026-01-01T12:00:00Z\"")
	if entries < 0 || !bytes.HasPrefix(before, now[:entries]) {
		t.Fatalf("undo did not restore the file as it was before the form opened:\n%s", now)
	}
}

func TestCloseClearsOurFlag(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	s.Begin() // not even run: Close still orders it
	s.Close()
	if flagOf(t, path) {
		t.Fatal("the flag is left set after Close")
	}
}

func TestRun(t *testing.T) {
	t.Run("written", func(t *testing.T) {
		path := fixture(t, false)
		out, err := Run(path, addRunbook, RunOptions{Options: Options{Now: func() time.Time { return testNow }}})
		if err != nil || !out.Result.Wrote || !hasEntry(load(t, path).State, "Write the runbook") {
			t.Fatalf("%v %+v", err, out)
		}
	})
	t.Run("refused", func(t *testing.T) {
		path := fixture(t, false)
		_, err := Run(path, model.DeleteAtom{ID: "A1"}, RunOptions{})
		var ref *model.Refusal
		if !errors.As(err, &ref) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("dry run", func(t *testing.T) {
		path := fixture(t, false)
		before, _ := os.ReadFile(path)
		out, err := Run(path, addRunbook, RunOptions{DryRun: true, Guard: time.Second})
		if now, _ := os.ReadFile(path); err != nil || out.Result.Wrote || !bytes.Equal(now, before) {
			t.Fatal("a dry run wrote")
		}
	})
	t.Run("guard re-applies", func(t *testing.T) {
		path := fixture(t, false)
		stale, _ := os.ReadFile(path)
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Wait for the correction, then write over it from the stale read.
			for !bytes.Contains(must(os.ReadFile(path)), []byte("Write the runbook")) {
				time.Sleep(time.Millisecond)
			}
			loopWrite(t, path, withBinding(stale, "W4"))
		}()
		out, err := Run(path, addRunbook, RunOptions{Guard: 300 * time.Millisecond})
		<-done
		if err != nil || out.Reapplied != 1 {
			t.Fatalf("err %v, re-applied %d", err, out.Reapplied)
		}
		st := load(t, path).State
		if _, ok := st.Binding("W4"); !ok || !hasEntry(st, "Write the runbook") {
			t.Fatal("the loop's write or the correction is missing")
		}
	})
	t.Run("guard reports lost", func(t *testing.T) {
		path := fixture(t, false)
		stale, _ := os.ReadFile(path)
		doc, _ := statefile.Parse(stale)
		i := model.Derive(doc.State).Index["A8"]
		resolved, _ := statefile.ApplyEdits(doc, []model.Edit{model.Replace(model.P("atoms", i, "status"), "resolved")})
		go func() {
			for bytes.Contains(must(os.ReadFile(path)), []byte("  - id: A8\n")) {
				time.Sleep(time.Millisecond)
			}
			loopWrite(t, path, resolved)
		}()
		_, err := Run(path, model.DeleteAtom{ID: "A8"}, RunOptions{Guard: 300 * time.Millisecond})
		if !errors.Is(err, ErrLost) {
			t.Fatalf("err %v; want ErrLost", err)
		}
	})
}

func must(b []byte, _ error) []byte { return b }

// A script that opened the file for writing before our write, and writes
// after it, writes into the file ours replaced: the session's follow-up
// job sees it and merges it in.
func TestFollowMergesALateLoopWrite(t *testing.T) {
	path := fixture(t, false)
	s := newSession(path)
	s.Grace = 500 * time.Millisecond
	stale, _ := os.ReadFile(path)
	pr := run(t, s.Preview(addRunbook, "")).(PreviewResult)
	f, err := os.OpenFile(path, os.O_RDWR, 0) // the script opens the file
	if err != nil {
		t.Fatal(err)
	}
	ar := run(t, s.Apply(pr.Preview)).(ApplyResult)
	if ar.Err != nil || ar.Follow == nil {
		t.Fatalf("%+v: want a follow-up job", ar)
	}
	done := make(chan Result, 1)
	go func() { done <- ar.Follow() }()
	theirs := withBinding(stale, "W5")
	f.Truncate(0)
	f.WriteAt(theirs, 0) // into the replaced file
	f.Close()
	r := (<-done).(GuardResult)
	if r.Err != nil || r.Merged != 1 {
		t.Fatalf("%+v: want the late write merged", r)
	}
	wantBoth(t, path, "W5")
}

func TestRunMergesALateLoopWrite(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for !bytes.Contains(must(os.ReadFile(path)), []byte("Write the runbook")) {
			time.Sleep(time.Millisecond)
		}
		f.Truncate(0)
		f.WriteAt(withBinding(stale, "W6"), 0)
		f.Close()
	}()
	out, err := Run(path, addRunbook, RunOptions{Guard: 300 * time.Millisecond})
	if err != nil || out.Merged != 1 {
		t.Fatalf("err %v, merged %d", err, out.Merged)
	}
	wantBoth(t, path, "W6")
}

// The CLI's guard watches each of its re-applies as long as its first
// write: a script that read the file just before a re-apply near the end
// of --guard writes after it and undoes it. The guard used to end as soon
// as --guard had passed since it started, whatever it had just written:
// the correction ended exit 0 and was gone (TestStressLoopWriters under
// load, "1 silently lost"; the write log showed the guard's last look
// re-apply it, a Python script that had read the file 1 ms before write
// it back 20 ms later, and the CLI exit).
func TestRunGuardsItsLastReapplyAsLongAsItsFirstWrite(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path) // read by the loop's scripts before our write
	const guard = 200 * time.Millisecond
	reapplied := false
	testGuardHook = func(event string) {
		switch {
		case event == "started":
			// A script that read the file before the write writes it back.
			staleWrite(t, path, stale, "W1")
		case event == "rewrote" && !reapplied:
			reapplied = true
			// The re-apply took the rest of the guard's time, and another
			// script, which read the file before it, writes it back.
			time.Sleep(guard)
			staleWrite(t, path, withBinding(stale, "W1"), "W2")
		}
	}
	t.Cleanup(func() { testGuardHook = nil })
	out, err := Run(path, addRunbook, RunOptions{Guard: guard})
	if err != nil {
		t.Fatal(err)
	}
	wantBoth(t, path, "W2")
	if out.Reapplied != 2 {
		t.Fatalf("re-applied %d times, want 2", out.Reapplied)
	}
}

// Our own write is ours from the moment the file holds it: a watcher that
// reads the flag write before the job returns must not take it for the
// loop's (the TUI marked its just-opened form "the loop wrote the file").
func TestOurWriteIsOursAsSoonAsTheFileHoldsIt(t *testing.T) {
	for range 20 {
		path := fixture(t, false)
		before, _ := os.ReadFile(path)
		s := newSession(path)
		seen := make(chan bool, 1)
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					seen <- true
					return
				default:
				}
				if now, err := os.ReadFile(path); err == nil && !bytes.Equal(now, before) {
					seen <- s.IsOurs(now)
					return
				}
			}
		}()
		run(t, s.Begin())
		close(stop)
		if !<-seen {
			t.Fatal("the flag write, read from the file, was not ours yet")
		}
		s.Close()
	}
}

// loopSetsAtom writes what update_atom.py makes of from (a version the
// script read) with atom set to status, lets s's guard look at it, and
// returns the bytes written and the one job's result.
func loopSetsAtom(t *testing.T, s *Session, path string, from []byte, atom, status string) (string, GuardResult) {
	t.Helper()
	theirs, ok := updateAtom(string(from), atom, status)
	if !ok {
		t.Fatalf("no %s", atom)
	}
	loopWrite(t, path, []byte(theirs))
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want the guard to look once", len(jobs))
	}
	return theirs, run(t, jobs[0]).(GuardResult)
}

// A loop write that undoes a correction while a job of its guard is under
// way (its re-apply has just written, a merge runs) is skipped by Check;
// when it is the loop's last write there is no later version to look at,
// so the look is owed: Recheck makes it once the guard is free.
func TestGuardLooksAgainAtAVersionItSkippedWhileBusy(t *testing.T) {
	path, s, stale := appliedRunbook(t)
	s.mu.Lock()
	g := s.guarded[0]
	g.busy++ // a job of the guard is running
	s.mu.Unlock()
	loopWrite(t, path, withBinding(stale, "W2"))
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatalf("%d jobs while the guard is busy", len(jobs))
	}
	if jobs := s.Recheck(); jobs != nil {
		t.Fatal("looked again while the guard is still busy")
	}
	s.mu.Lock()
	g.busy--
	s.mu.Unlock()
	jobs := s.Recheck()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs owed; want the re-apply", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
		t.Fatalf("%+v: want the correction re-applied", r)
	}
	wantBoth(t, path, "W2")
	if jobs := s.Recheck(); jobs != nil {
		t.Fatal("a look owed twice")
	}
}
