package sim

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// run plays a loop at high speed, validating every version written.
func runChecked(t *testing.T, cfg Config) (Result, []string) {
	t.Helper()
	var mu sync.Mutex
	var whats []string
	cfg.OnWrite = func(what string, data []byte) {
		doc, err := statefile.Parse(data)
		if err != nil {
			t.Errorf("after %q the file does not parse: %v", what, err)
			return
		}
		if r := model.Validate(doc.State); !r.Valid {
			t.Errorf("after %q the file is invalid: %v", what, r.Errors)
		}
		mu.Lock()
		whats = append(whats, what)
		mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, whats
}

func TestDemoRunShowsEveryFeatureAndCompletes(t *testing.T) {
	path, err := Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, whats := runChecked(t, Config{Path: path, Seed: 1, Speed: 200, Demo: true})
	if res.Status != model.LoopCompleted {
		t.Fatalf("status %s (%s), want completed", res.Status, res.StopReason)
	}
	joined := strings.Join(whats, "\n")
	for _, want := range []string{"decompose A3", "backtrack A4", "stall A5", "contract", "completed", "hook continue"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the demo never did %q; writes:\n%s", want, joined)
		}
	}
	doc, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !allDone(doc.State) {
		t.Fatal("the demo completed with work left")
	}
	g, _ := doc.State.ORGroup("session_strategy")
	if g.Selected != "A5" || len(g.Failed) != 1 || g.Failed[0] != "A4" {
		t.Fatalf("OR group after the backtrack: %+v", g)
	}
	if len(doc.State.Trail) != 2 {
		t.Fatalf("the backtrack should append to the trail: %+v", doc.State.Trail)
	}
	if res.Iterations < 5 {
		t.Fatalf("only %d iterations", res.Iterations)
	}
}

func TestRandomRunIsDeterministicAndValid(t *testing.T) {
	var finals [2]string
	for k := range finals {
		path, err := Setup(t.TempDir(), 40, 7)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := runChecked(t, Config{Path: path, Seed: 7, Speed: 1000})
		if res.Status != model.LoopCompleted && res.Status != model.LoopStopped {
			t.Fatalf("run ended in %s", res.Status)
		}
		data, _ := os.ReadFile(path)
		// Timestamps differ between runs; everything else must not.
		finals[k] = stripTimestamps(string(data))
	}
	if finals[0] != finals[1] {
		t.Fatal("two runs with the same seed ended differently")
	}
}

func stripTimestamps(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "timestamp:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestStopRequestedStops(t *testing.T) {
	path, err := Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Config{Path: path, Seed: 1, Speed: 20, Demo: true, Logf: t.Logf})
		done <- res
	}()
	waitFor(t, path, "iteration: 1")
	correct(t, path, model.Stop{Reason: "from the test"})
	select {
	case res := <-done:
		if res.Status != model.LoopStopped || res.StopReason != "from the test" {
			t.Fatalf("got %s %q", res.Status, res.StopReason)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not stop")
	}
}

func TestRedirectPausesAndAddedAtomIsResolved(t *testing.T) {
	path, err := Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Config{Path: path, Seed: 1, Speed: 40, Demo: true})
		done <- res
	}()
	waitFor(t, path, "iteration: 1")
	correct(t, path, model.SetRedirect{Requested: true})
	time.Sleep(100 * time.Millisecond)
	before, _ := os.ReadFile(path)
	time.Sleep(1500 * time.Millisecond) // ~60 s of loop time at this speed
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the loop made progress while redirect_requested was true")
	}
	// Add an atom as a correction would, and release the loop.
	plan := correct(t, path, model.AddAtom{Description: "Added by a correction", DependsOn: []string{"A1"}})
	correct(t, path, model.SetRedirect{Requested: false})
	select {
	case res := <-done:
		if res.Status != model.LoopCompleted {
			t.Fatalf("status %s", res.Status)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the loop did not finish")
	}
	final, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := final.State.Atom(plan.Affected[0])
	if !ok || a.Status != model.StatusResolved {
		t.Fatalf("the added atom %s should be resolved: %+v", plan.Affected[0], a)
	}
	if len(final.State.Corrections) != 1 {
		t.Fatal("the correction entry was lost")
	}
}

func waitFor(t *testing.T, path, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), text) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never contained %q", path, text)
}

// correct writes a correction the way aot-tui does (statefile.Update:
// re-read, plan, re-check, rename).
func correct(t *testing.T, path string, req model.Request) *model.Plan {
	t.Helper()
	var plan *model.Plan
	_, err := statefile.Update(path, statefile.UpdateOptions{}, func(doc *statefile.Document) (*model.Plan, error) {
		p, err := model.PlanCorrection(doc.State, req, model.PlanContext{})
		plan = p
		return p, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// Forcing an OR group to another choice must not deadlock the loop: the
// demo's A6 depends on A4, so forcing session_strategy to A5 right after
// the start has to move A6 onto A5 (as the loop's own backtrack does), or
// A6 and A7 can never run and the stop hook ends the loop on its stall
// limit instead of completing it.
func TestForceORAtStartCompletes(t *testing.T) {
	path, err := Setup(t.TempDir(), 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	var mu sync.Mutex
	var whats []string
	go func() {
		res, _ := Run(context.Background(), Config{Path: path, Seed: 1, Speed: 100, Demo: true,
			OnWrite: func(what string, data []byte) {
				doc, err := statefile.Parse(data)
				if err != nil {
					t.Errorf("after %q the file does not parse: %v", what, err)
				} else if r := model.Validate(doc.State); !r.Valid {
					t.Errorf("after %q the file is invalid: %v", what, r.Errors)
				}
				mu.Lock()
				whats = append(whats, what)
				mu.Unlock()
			}})
		done <- res
	}()
	waitFor(t, path, "status: running")
	// As /redirect does it: pause the loop, correct, resume — each write
	// guarded against the loop's own writes (the simulator writes the
	// file between its reads as the loop does; a write of ours it read
	// around would otherwise be undone and the test would race it).
	guarded := correction.RunOptions{Guard: 300 * time.Millisecond}
	if _, err := correction.Run(path, model.SetRedirect{Requested: true}, guarded); err != nil {
		t.Fatal(err)
	}
	out, err := correction.Run(path, model.ForceOR{Group: "session_strategy", Choice: "A5", Reason: "sessions work behind the proxy"}, guarded)
	if err != nil {
		t.Fatal(err)
	}
	plan := out.Plan
	if _, err := correction.Run(path, model.SetRedirect{Requested: false}, guarded); err != nil {
		t.Fatal(err)
	}
	if d := plan.Correction.Description; !strings.Contains(d, "A6 now depends on A5 instead of A4") {
		t.Errorf("the correction does not say how A6 is rewired: %q", d)
	}
	var res Result
	select {
	case res = <-done:
	case <-time.After(40 * time.Second):
		t.Fatal("the loop did not finish")
	}
	if res.Status != model.LoopCompleted {
		t.Fatalf("status %s (%s), want completed", res.Status, res.StopReason)
	}
	final, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := final.State
	if a, _ := st.Atom("A6"); a.Status != model.StatusResolved || !slices.Equal(a.DependsOn, []string{"A3", "A5"}) {
		t.Fatalf("A6 is %s depending on %v; want resolved, depending on [A3 A5]", a.Status, a.DependsOn)
	}
	if a, _ := st.Atom("A4"); a.Status != model.StatusPending {
		t.Fatalf("A4, no longer selected, is %s", a.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range whats {
		if w == "start A4" || w == "backtrack A4" {
			t.Fatalf("the loop worked on A4 after it was deselected: %v", whats)
		}
	}
}

// The scripted demo lasts about a minute at speed 1, as demo --help and
// the README say (TestDemoHelpSaysHowLongItLasts): its script's waits sum
// to 50–80 s whatever the seed. (Speed 500 keeps the test short; the
// sum is of the script's own waits, whatever the clock did.)
func TestDemoLastsAboutAMinute(t *testing.T) {
	shortest, longest := time.Duration(1<<62), time.Duration(0)
	for seed := uint64(1); seed <= 12; seed++ {
		path, err := Setup(t.TempDir(), 0, seed)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := runChecked(t, Config{Path: path, Seed: seed, Speed: 500, Demo: true})
		if res.Status != model.LoopCompleted {
			t.Fatalf("seed %d: %s", seed, res.Status)
		}
		shortest, longest = min(shortest, res.Paced), max(longest, res.Paced)
		if seed == 1 {
			t.Logf("the default demo (seed 1) waits %v", res.Paced)
		}
	}
	t.Logf("seeds 1–12: %v to %v", shortest, longest)
	if shortest < 50*time.Second || longest > 80*time.Second {
		t.Fatalf("the demo lasts %v to %v at speed 1: not about a minute; say what it lasts in demo --help and the README", shortest, longest)
	}
}
