package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// A TUI's corrections on a loop of another machine are previewed on the
// streamed bytes and written there by that machine's aot-tui
// (correction.Elsewhere, RemoteArgs). Here "there" is this process's CLI,
// run in process on a file of this machine: every correction a form
// makes, previewed by a session whose file is elsewhere, is written by
// the command line it becomes exactly as previewed — the bytes a session
// of this machine would write too.

// cliElsewhere is a file whose machine's aot-tui is this process's CLI.
type cliElsewhere struct {
	path string
	mu   sync.Mutex
	runs [][]string
	// holdCommand replaces "pause" in Hold's arguments (an older aot-tui
	// there); holds are the stdins of the holds running.
	holdCommand string
	holds       []*io.PipeWriter
}

func (e *cliElsewhere) Name() string { return "far" }

// Latest reads the file itself: no stream brings its versions, so the
// next may be there any time (a look again in 20 ms).
func (e *cliElsewhere) Latest() ([]byte, <-chan struct{}) {
	next := make(chan struct{})
	time.AfterFunc(20*time.Millisecond, func() { close(next) })
	data, err := os.ReadFile(e.path)
	if err != nil {
		return nil, next
	}
	return data, next
}

func (e *cliElsewhere) Run(_ context.Context, args []string) ([]byte, error) {
	e.mu.Lock()
	e.runs = append(e.runs, args)
	e.mu.Unlock()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		return out.Bytes(), fmt.Errorf("exit %d: %s", code, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func (e *cliElsewhere) lastRun() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.runs) == 0 {
		return nil
	}
	return e.runs[len(e.runs)-1]
}

// lineWriter calls onLine with each line written to it.
type lineWriter struct {
	mu     sync.Mutex
	buf    []byte
	onLine func([]byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.onLine(bytes.Clone(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func (e *cliElsewhere) Hold(args []string, onLine func([]byte), ended func(error)) (func(context.Context) error, error) {
	pr, pw := io.Pipe()
	e.mu.Lock()
	e.holds = append(e.holds, pw)
	if e.holdCommand != "" {
		args = append([]string{e.holdCommand}, args[1:]...)
	}
	e.mu.Unlock()
	out := &lineWriter{onLine: onLine}
	var errb bytes.Buffer
	root := newRootCmd(out, &errb)
	root.SetIn(pr)
	done := make(chan error, 1)
	go func() {
		var err error
		if code := execute(root, args, out, &errb); code != 0 {
			err = fmt.Errorf("exit %d: %s", code, strings.TrimSpace(errb.String()))
		}
		ended(err)
		done <- err
	}()
	return func(ctx context.Context) error {
		pw.Close()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}, nil
}

func ptr[T any](v T) *T { return &v }

// elsewhereSession is a session on the correction fixture whose machine
// is e (this process's CLI), closed when the test ends.
func elsewhereSession(t *testing.T) (string, *cliElsewhere, *correction.Session) {
	t.Helper()
	path := loopFixture(t)
	e := &cliElsewhere{path: path}
	s := correction.NewSession(path, correction.Options{Elsewhere: e})
	t.Cleanup(s.Close)
	return path, e, s
}

// loopMovesOn is a loop write: the iteration goes from 7 to 8 (in place).
func loopMovesOn(t *testing.T, path string) []byte {
	t.Helper()
	data := mustReadBytes(t, path)
	moved := bytes.Replace(data, []byte("iteration: 7"), []byte("iteration: 8"), 1)
	if bytes.Equal(moved, data) {
		t.Fatal("fixture: no iteration: 7")
	}
	if err := os.WriteFile(path, moved, 0o644); err != nil {
		t.Fatal(err)
	}
	return moved
}

// elsewhereRequests are corrections of every kind a form makes, with the
// values a command line finds hardest to carry: a leading dash, commas,
// spaces, newlines, quotes.
var elsewhereRequests = []struct {
	name string
	req  model.Request
}{
	{"add-atom", model.AddAtom{Description: "-v looks like a flag, has commas, \"quotes\"\nand a second line", DependsOn: []string{"A2"}}},
	{"add-atom-id-group-required", model.AddAtom{ID: "A20", Description: "Pick the audit store", ORGroup: "audit_store", RequiredBy: []string{"A7"}}},
	{"delete-atom", model.DeleteAtom{ID: "A8"}},
	{"delete-atom-detach", model.DeleteAtom{ID: "A7", Detach: true}},
	{"force-or", model.ForceOR{Group: "audit_store", Choice: "A6", Reason: "--reason: S3 has object lock, now"}},
	{"constraints", model.ChangeConstraints{MaxIterations: ptr(30), MaxParallelAgents: ptr(2), MaxStallCount: ptr(4)}},
	{"objective", model.ChangeObjective{Goal: ptr("Ship billing, with retries"), BackgroundIntent: ptr("-"), Deliverables: ptr("a\nb"), DefinitionOfDone: ptr("-x passes")}},
	{"objective-check-set", model.ChangeObjective{Goal: ptr("Ship billing with retries and an audit log"),
		Checks: []model.CheckEdit{{Op: "set", Path: model.ChecklistPath{0, 1}, Type: model.CheckCommand, Value: "go test -race -count=1 ./...", Item: "No race, ever"}}}},
	{"objective-check-add", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "add", Path: model.ChecklistPath{0}, Item: "Vet", Type: model.CheckCommand, Value: "go vet ./..."}}}},
	{"objective-check-add-top", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "add", Item: "--lint", Type: model.CheckNotCommand, Value: "golangci-lint run | grep ."}}}},
	{"objective-check-remove", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "remove", Path: model.ChecklistPath{2}}}}},
	{"override-binding", model.OverrideBinding{ID: "A3", Summary: ptr("Backoff 50ms, doubling"), SetArtifacts: true,
		Artifacts: []string{"internal/billing/retry.go", "docs/a file, with commas.md", "-dash.go"}}},
	{"override-binding-empty", model.OverrideBinding{ID: "A3", SetArtifacts: true, Artifacts: []string{}}},
	{"override-binding-redo", model.OverrideBinding{ID: "A3", Redo: true}},
	{"stop", model.Stop{Reason: "enough, for today\n-"}},
}

func TestElsewhereWritesWhatWasPreviewed(t *testing.T) {
	now := time.Date(2026, 11, 27, 21, 0, 0, 123456789, time.UTC)
	clock := func() time.Time { return now }
	for _, c := range elsewhereRequests {
		t.Run(c.name, func(t *testing.T) {
			path := loopFixture(t)
			start, _ := os.ReadFile(path)
			e := &cliElsewhere{path: path}
			s := correction.NewSession(path, correction.Options{Now: clock, Elsewhere: e})
			defer s.Close()
			pr := s.Preview(c.req, "from the other machine, -n")().(correction.PreviewResult)
			if pr.Err != nil {
				t.Fatalf("preview: %v", pr.Err)
			}
			// A session on this machine previews the same bytes.
			local := correction.NewSession(path, correction.Options{Now: clock})
			lp := local.Preview(c.req, "from the other machine, -n")().(correction.PreviewResult)
			local.Close()
			if lp.Err != nil || !bytes.Equal(lp.Preview.After, pr.Preview.After) {
				t.Fatalf("the local preview differs (%v):\n%s", lp.Err, statefile.UnifiedDiff("", pr.Preview.After, lp.Preview.After))
			}
			if !bytes.Equal(pr.Preview.Base, start) {
				t.Fatal("the preview was not planned on the file's bytes")
			}
			ar := s.Apply(pr.Preview)().(correction.ApplyResult)
			if ar.Err != nil || ar.Replanned != nil {
				t.Fatalf("apply: %v (replanned %v); ran %q", ar.Err, ar.Replanned != nil, e.lastRun())
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, pr.Preview.After) {
				t.Fatalf("ran %q; the file is not the preview:\n%s", e.lastRun(), statefile.UnifiedDiff("", pr.Preview.After, got))
			}
			if !s.IsOurs(got) {
				t.Fatal("the session does not know its write when it streams back")
			}
		})
	}
}

func TestElsewhereStaleIsPlannedAgain(t *testing.T) {
	path, _, s := elsewhereSession(t)
	pr := s.Preview(model.ChangeConstraints{MaxIterations: ptr(40)}, "")().(correction.PreviewResult)
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	// The loop writes between the preview and the apply.
	moved := loopMovesOn(t, path)
	ar := s.Apply(pr.Preview)().(correction.ApplyResult)
	if ar.Err != nil || ar.Replanned == nil {
		t.Fatalf("apply on a moved file: err %v, replanned %v", ar.Err, ar.Replanned != nil)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, moved) {
		t.Fatal("something was written on a version not previewed")
	}
	if !bytes.Equal(ar.Replanned.Base, moved) || !ar.Replanned.Replanned {
		t.Fatal("not planned again on the loop's version")
	}
	again := s.Apply(ar.Replanned)().(correction.ApplyResult)
	if again.Err != nil || again.Replanned != nil {
		t.Fatalf("apply again: %v", again.Err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, ar.Replanned.After) {
		t.Fatal("the second apply did not write its preview")
	}
}

func TestElsewhereUndo(t *testing.T) {
	path, e, s := elsewhereSession(t)
	pr := s.Preview(model.AddAtom{Description: "Write the runbook", DependsOn: []string{"A2"}}, "")().(correction.PreviewResult)
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	ar := s.Apply(pr.Preview)().(correction.ApplyResult)
	if ar.Err != nil {
		t.Fatal(ar.Err)
	}
	// The loop moves on; the atom is undone there, from that machine's
	// journal, exactly as previewed here.
	loopMovesOn(t, path)
	up := s.PreviewUndo(ar.ID, "")().(correction.PreviewResult)
	if up.Err != nil {
		t.Fatal(up.Err)
	}
	ur := s.Apply(up.Preview)().(correction.ApplyResult)
	if ur.Err != nil || ur.Replanned != nil {
		t.Fatalf("undo: %v; ran %q", ur.Err, e.lastRun())
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, up.Preview.After) {
		t.Fatalf("ran %q; not the undo's preview:\n%s", e.lastRun(), statefile.UnifiedDiff("", up.Preview.After, got))
	}
	if bytes.Contains(got, []byte("Write the runbook\n")) && bytes.Contains(got, []byte("- id: A9")) {
		t.Fatal("the atom is still there")
	}
	if s.CanUndo() {
		t.Fatal("the undone correction is still offered for undo")
	}
}

func TestElsewherePauseIsHeldThere(t *testing.T) {
	path, _, s := elsewhereSession(t)
	flag := func() bool {
		doc, err := statefile.Load(path, 0)
		if err != nil {
			t.Fatal(err)
		}
		return doc.State.Control.RedirectRequested
	}
	r := s.BeginFor("constraints")().(correction.FlagResult)
	if r.Err != nil || !r.Set || !r.Wrote || !flag() {
		t.Fatalf("begin: %+v, flag %v", r, flag())
	}
	// A correction applied while the pause is held is written without
	// the flag (the far side's redirect leaves it), and then the pause
	// there ends, as a session here clears the flag with its write.
	pr := s.Preview(model.ChangeConstraints{MaxIterations: ptr(25)}, "")().(correction.PreviewResult)
	if pr.Err != nil || pr.Preview.ClearsFlag || !strings.Contains(pr.Preview.FlagNote(), "the pause on far ends") {
		t.Fatalf("preview: %v, note %q", pr.Err, pr.Preview.FlagNote())
	}
	ar := s.Apply(pr.Preview)().(correction.ApplyResult)
	if ar.Err != nil || ar.Follow == nil {
		t.Fatalf("apply: %v, follow %v", ar.Err, ar.Follow != nil)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, pr.Preview.After) {
		t.Fatal("not the preview's bytes")
	}
	if r := ar.Follow().(correction.FlagResult); r.Err != nil || r.Set || !r.Wrote || flag() {
		t.Fatalf("after the apply: %+v, flag %v", r, flag())
	}
	if s.Pause().Ours {
		t.Fatal("the session still says it pauses the loop")
	}
	// A form opened and closed without a write.
	if r := s.BeginFor("objective")().(correction.FlagResult); r.Err != nil || !flag() {
		t.Fatalf("begin again: %+v", r)
	}
	if ours := s.IsOurs(mustReadBytes(t, path)); !ours {
		t.Fatal("the pause's write, streamed back, is not known as the session's own")
	}
	r = s.End()().(correction.FlagResult)
	if r.Err != nil || r.Set || !r.Wrote || flag() {
		t.Fatalf("end: %+v, flag %v", r, flag())
	}
	// A leftover flag is cleared there.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte("redirect_requested: false"), []byte("redirect_requested: true"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	r = s.ClearForeignFlag()().(correction.FlagResult)
	if r.Err != nil || flag() {
		t.Fatalf("clear: %+v, flag %v", r, flag())
	}
}

// The command line refuses what it cannot carry rather than send
// something else.
func TestRequestArgsRefuses(t *testing.T) {
	for _, req := range []model.Request{
		model.AddAtom{Description: "x", DependsOn: []string{"A1,A2"}},
		model.ChangeObjective{Checks: []model.CheckEdit{{Op: "set"}, {Op: "set"}}},
		&model.Undo{},
		model.SetRedirect{Requested: true},
	} {
		if args, err := correction.RequestArgs(req, 1); !errors.Is(err, correction.ErrNoCommand) {
			t.Errorf("%T: %q, %v", req, args, err)
		}
	}
}

func mustReadBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A far side whose aot-tui has no pause command fails the pause at once,
// saying why (not after RemoteTimeout with "no answer").
func TestElsewherePauseFailsFast(t *testing.T) {
	path := loopFixture(t)
	e := &cliElsewhere{path: path, holdCommand: "pause-of-a-later-release"}
	s := correction.NewSession(path, correction.Options{Elsewhere: e})
	defer s.Close()
	r := s.BeginFor("constraints")().(correction.FlagResult)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "unknown command") {
		t.Fatalf("begin: %+v", r)
	}
	if s.Pause().Ours {
		t.Fatal("a failed pause is taken for the session's")
	}
}

// A pause that ended there while the form is open (the link dropped, the
// process was killed) is taken again once the file shows it gone.
func TestElsewherePauseTakenAgain(t *testing.T) {
	path, e, s := elsewhereSession(t)
	if r := s.BeginFor("objective")().(correction.FlagResult); r.Err != nil || !r.Wrote {
		t.Fatalf("begin: %+v", r)
	}
	// Its stdin closes under it: that machine lets the pause go.
	e.mu.Lock()
	e.holds[0].Close()
	e.mu.Unlock()
	var doc *statefile.Document
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		d, err := statefile.Load(path, 0)
		if err == nil && !d.State.Control.RedirectRequested {
			doc = d
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pause there was not let go")
		}
	}
	var jobs []correction.Job
	for deadline := time.Now().Add(10 * time.Second); len(jobs) == 0; time.Sleep(20 * time.Millisecond) {
		jobs = s.Check(doc)
		if time.Now().After(deadline) {
			t.Fatal("the session never took the pause again")
		}
	}
	for _, j := range jobs {
		if r, ok := j().(correction.GuardResult); ok && (r.Err != nil || !r.Flag) {
			t.Fatalf("taking it again: %+v", r)
		}
	}
	if d, _ := statefile.Load(path, 0); !d.State.Control.RedirectRequested {
		t.Fatal("redirect_requested is not set again")
	}
	if r := s.End()().(correction.FlagResult); r.Err != nil || !r.Wrote {
		t.Fatalf("end: %+v", r)
	}
}
