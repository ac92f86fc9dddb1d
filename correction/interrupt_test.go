package correction

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
)

const a2WentInProgress = "A2 went in progress after the correction was made; applying it again would interrupt its worker"

// wantNotInterrupted fails unless err reports the correction lost because
// A2 went in progress after it was made, and the file is theirs: A2 still
// in progress under its worker, and no entry that says it was interrupted.
func wantNotInterrupted(t *testing.T, err error, path, theirs string) {
	t.Helper()
	var lost *LostError
	if !errors.As(err, &lost) || lost.Defeated || !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), a2WentInProgress) {
		t.Fatalf("err %v; want the correction lost, saying %q", err, a2WentInProgress)
	}
	if strings.Contains(err.Error(), "--interrupt") {
		t.Fatalf("%q: advice for before a write, after it", err)
	}
	now, _ := os.ReadFile(path)
	if string(now) != theirs {
		t.Fatalf("the guard wrote over the loop's write:\n%s", now)
	}
	if bytes.Contains(now, []byte("interrupted the worker")) {
		t.Fatal("an entry says a worker was interrupted")
	}
}

// add-atom --required-by A2 while A2 is pending interrupts no worker, and
// the person was asked nothing. A loop script that read the file before
// our write sets A2 in progress (a worker took it): applying the
// correction again on that would send A2 back to pending under its
// worker, which nobody agreed to. The guard reports it lost instead.
func TestGuardDoesNotInterruptAWorkerNobodyAgreedTo(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	s := newSession(path)
	pr := run(t, s.Preview(requiredByA2, "")).(PreviewResult)
	if pr.Err != nil || len(pr.Preview.Plan.Interrupts) != 0 {
		t.Fatalf("%+v: the preview should interrupt nobody", pr)
	}
	if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
		t.Fatal(ar.Err)
	}
	theirs, r := loopSetsAtom(t, s, path, stale, "A2", "in_progress")
	if r.Reapplied {
		t.Fatalf("%+v: applied again", r)
	}
	wantNotInterrupted(t, r.Err, path, theirs)
	if jobs := s.Check(load(t, path)); len(jobs) != 0 {
		t.Fatal("the guard keeps trying")
	}
}

// The CLI's --interrupt is a yes to the workers its first plan names, not
// to any worker a later plan would find.
func TestRunDoesNotInterruptAWorkerNobodyAgreedTo(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	theirs, _ := updateAtom(string(stale), "A2", "in_progress")
	go func() {
		for !bytes.Contains(must(os.ReadFile(path)), []byte("Payment sandbox")) {
			time.Sleep(time.Millisecond)
		}
		loopWrite(t, path, []byte(theirs))
	}()
	out, err := Run(path, requiredByA2, RunOptions{Options: Options{Now: func() time.Time { return testNow }},
		Guard: 500 * time.Millisecond, Interrupt: true})
	if out == nil || out.Reapplied != 0 {
		t.Fatalf("outcome %+v: applied again", out)
	}
	wantNotInterrupted(t, err, path, theirs)
}

// The workers the person agreed to interrupt stay agreed: a loop write
// from before the correction, with A4's worker still on it, gets the
// correction again, and its entry says so again.
func TestGuardReappliesOverAnAgreedWorker(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	s := newSession(path)
	pr := run(t, s.Preview(model.AddAtom{Description: "Payment sandbox", RequiredBy: []string{"A4"}}, "")).(PreviewResult)
	if pr.Err != nil || len(pr.Preview.Plan.Interrupts) != 1 || pr.Preview.Plan.Interrupts[0].Atom != "A4" {
		t.Fatalf("%+v: the preview should name A4's worker", pr)
	}
	run(t, s.Apply(pr.Preview))
	staleWrite(t, path, stale, "W1")
	jobs := s.Check(load(t, path))
	if len(jobs) != 1 {
		t.Fatalf("%d jobs; want one", len(jobs))
	}
	if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
		t.Fatalf("%+v: want it applied again", r)
	}
	if st := load(t, path).State; !hasEntry(st, "(interrupted the worker on A4)") {
		t.Fatal("the entry applied again does not say A4's worker was interrupted")
	}
}

// Before anything was written (the command's plan made again on a loop
// write that landed first), the refusal says nothing was written.
func TestReplanBeforeTheWriteDoesNotInterruptEither(t *testing.T) {
	path := fixture(t, false)
	pl := &planner{req: requiredByA2, ctx: model.PlanContext{Now: testNow, Interrupt: true}}
	if _, err := pl.planFunc()(load(t, path)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	theirs, _ := updateAtom(string(data), "A2", "in_progress")
	_, err := pl.planFunc()(parseText(t, theirs))
	var ref *model.Refusal
	want := "A2 went in progress while the correction was being written; writing it now would interrupt its worker; nothing was written"
	if !errors.As(err, &ref) || ref.Rule != model.RuleInProgress || ref.Reason != want {
		t.Fatalf("err %v; want the refusal %q", err, want)
	}
}
