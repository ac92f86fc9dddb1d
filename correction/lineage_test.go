package correction

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

var atomIDRE = regexp.MustCompile(`(?m)^  - id: (\S+)$`)

// loopStep applies one of the loop's writers, chosen at random, to text.
// monotone reports a write that leaves a trace no older version has (an
// iteration, an atom, a decomposition, a trail entry, a correction).
func loopStep(text string, r *rand.Rand, n int) (out string, monotone bool) {
	ids := atomIDRE.FindAllStringSubmatch(text, -1)
	pick := func() string { return ids[r.IntN(len(ids))][1] }
	switch r.IntN(11) {
	case 0, 1:
		return hookContinue(text), true
	case 2, 3:
		if len(ids) > 0 {
			st := []string{"pending", "in_progress", "resolved"}[r.IntN(3)]
			out, _ := updateAtom(text, pick(), st)
			return out, false
		}
	case 4:
		return addBinding(text, fmt.Sprintf("W%d", n), "writer "+fmt.Sprint(n)), false
	case 5:
		return setStatus(text, []string{"running", "stopped", "completed"}[r.IntN(3)]), false
	case 6:
		return hookStop(text), false
	case 7:
		if len(ids) > 0 {
			return addAtom(text, fmt.Sprintf("N%d", n), "new atom "+fmt.Sprint(n), pick()), true
		}
	case 8:
		if len(ids) > 0 {
			return decompose(text, pick(), nil, fmt.Sprintf("C%da", n), fmt.Sprintf("C%db", n)), true
		}
	case 9:
		if g := regexp.MustCompile(`(?m)^  (\w+):\n    choices: \[(\w+), (\w+)`).FindStringSubmatch(text); g != nil {
			return switchOR(text, g[1], g[2+r.IntN(2)]), true
		}
	case 10:
		// Someone's /redirect: a constraint change, a goal change or a
		// deletion, with its corrections[] entry.
		switch r.IntN(3) {
		case 0:
			text = strings.Replace(text, "    max_stall_count: 3", "    max_stall_count: 4", 1)
			return appendCorrection(text, n, "constraint_change"), true
		case 1:
			text = regexp.MustCompile(`(?m)^  goal: .*$`).ReplaceAllString(text, fmt.Sprintf(`  goal: "changed by someone %d"`, n))
			return appendCorrection(text, n, "objective_change"), true
		default:
			if len(ids) > 1 {
				last := ids[len(ids)-1][1]
				text = regexp.MustCompile(`(?ms)^  - id: `+regexp.QuoteMeta(last)+`\n(    .*?\n)*`).ReplaceAllString(text, "")
				return appendCorrection(text, n, "dag_adjustment"), true
			}
		}
	}
	return hookContinue(text), true
}

func parseText(t *testing.T, text string) *statefile.Document {
	t.Helper()
	doc, err := statefile.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return doc
}

// guarding returns a planner that planned and wrote a constraint change
// on text, as a guard holds it.
func guarding(t *testing.T, text string) *planner {
	t.Helper()
	v := 99
	pl := &planner{req: model.ChangeConstraints{MaxIterations: &v}, ctx: model.PlanContext{Now: testNow}}
	if _, err := pl.planFunc()(parseText(t, text)); err != nil {
		t.Fatal(err)
	}
	pl.replaced = append(pl.replaced, replacedVersion{sum: sha256.Sum256([]byte(text)), at: time.Now()})
	return pl
}

// pastTheLoopWindow dates pl's writes back by loopWindow: the loop's
// scripts that read the file before them have had their time.
func pastTheLoopWindow(pl *planner) {
	for i := range pl.replaced {
		pl.replaced[i].at = pl.replaced[i].at.Add(-loopWindow)
	}
	for i := range pl.refs {
		pl.refs[i].at = pl.refs[i].at.Add(-loopWindow)
	}
}

func standDownKind(err error) StandDownKind {
	var sd *StandDownError
	if errors.As(err, &sd) {
		return sd.Kind
	}
	return ""
}

// The lineage rule accepts whatever the loop's writers make of the
// version a correction was planned on, in any order and number (the
// pre-correction bytes included, within the loop window: writers that
// changed nothing), and rejects a new loop, an older version of the same
// loop and, after the window, the pre-correction bytes.
func TestLineageOverLoopWritesAndReplacements(t *testing.T) {
	rich, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	bases := []string{
		string(rich),
		string(gen.Generate(gen.Options{Atoms: 40, Seed: 1, Resolved: 0.3, ORGroups: 2, Decompositions: 2})),
		string(gen.Generate(gen.Options{Atoms: 12, Seed: 2, Status: "pending"})),
		string(gen.Generate(gen.Options{Atoms: 60, Seed: 3, Resolved: 0.5, ORGroups: 3})),
	}
	r := rand.New(rand.NewPCG(7, 11))
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	n := 0
	for round := range rounds {
		base := bases[r.IntN(len(bases))]
		// The version planned on: base after a few loop writes, at least
		// one of them leaving a trace an older version lacks.
		older := base
		for range r.IntN(3) {
			n++
			older, _ = loopStep(older, r, n)
		}
		planned, monotone := older, false
		for k := 0; k < 1+r.IntN(4) || !monotone; k++ {
			n++
			var m bool
			planned, m = loopStep(planned, r, n)
			monotone = monotone || m
		}
		pl := guarding(t, planned)

		// Accepted: the loop's writes on it.
		later := planned
		var steps []int
		for range 1 + r.IntN(6) {
			n++
			steps = append(steps, n)
			later, _ = loopStep(later, r, n)
		}
		if err := pl.descends(parseText(t, later)); err != nil {
			t.Fatalf("round %d: the loop's writes %v on the planned version were taken for %v\n--- planned\n%s\n--- later\n%s", round, steps, err, planned, later)
		}

		// Rejected: a new loop (from /align-goal, or a generated one),
		// with or without loop writes on it.
		fresh := string(gen.Generate(gen.Options{Atoms: 8 + r.IntN(50), Seed: 100 + uint64(round), Resolved: r.Float64() * 0.5,
			ORGroups: r.IntN(3), Status: []string{"", "pending"}[r.IntN(2)]}))
		if r.IntN(2) == 0 {
			n++
			fresh, _ = loopStep(fresh, r, n)
		}
		if k := standDownKind(pl.descends(parseText(t, fresh))); k != StandDownNewLoop {
			t.Fatalf("round %d: a new loop was taken for %q\n--- planned\n%s\n--- new\n%s", round, k, planned, fresh)
		}

		// Rejected: an older version of the same loop, even with status
		// writes on it — a person's restore, after the loop window (within
		// it, one that lacks only the last corrections[] entries is a loop
		// script that read the file before them: see
		// TestGuardWaitsForACorrectionJustBeforeOurs).
		pastTheLoopWindow(pl)
		old := older
		for range r.IntN(3) {
			n++
			if out, ok := updateAtom(old, atomIDRE.FindAllStringSubmatch(old, -1)[0][1], "in_progress"); ok {
				old = out
			}
		}
		if k := standDownKind(pl.descends(parseText(t, old))); k != StandDownOlderVersion && k != StandDownNewLoop {
			t.Fatalf("round %d: an older version was taken for %q\n--- planned\n%s\n--- older\n%s", round, k, planned, old)
		}

		// Rejected: the bytes from before the correction, once the loop's
		// scripts have had their time.
		if k := standDownKind(pl.descends(parseText(t, planned))); k != StandDownRevert {
			t.Fatalf("round %d: the pre-correction bytes were taken for %q", round, k)
		}
	}
}

// newLoop is a state a brand-new loop starts with: another /align-goal.
func newLoop() []byte {
	return gen.Generate(gen.Options{Atoms: 12, Seed: 42, Resolved: 0.2})
}

var to99 = func() model.ChangeConstraints { v := 99; return model.ChangeConstraints{MaxIterations: &v} }()

// The defect: a running TUI re-applied an old correction to whatever file
// later sat at the same path. Now its guard stands down, says so once, and
// leaves the file alone.
func TestGuardStandsDownWhenTheFileIsReplaced(t *testing.T) {
	cases := []struct {
		name string
		// prepare runs loop writes before the correction; replace returns
		// what is put at the path after it, given the bytes before it.
		prepare func(path string)
		replace func(pre, original []byte) []byte
		kind    StandDownKind
		words   string
	}{
		{"new loop", nil, func(_, _ []byte) []byte { return newLoop() }, StandDownNewLoop, "the file was replaced by a new loop"},
		{"new loop started", nil, func(_, _ []byte) []byte { return []byte(hookContinue(string(newLoop()))) }, StandDownNewLoop, "replaced by a new loop"},
		{"older version", func(path string) {
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(hookContinue(string(data))), 0o644)
		}, func(_, original []byte) []byte { return original }, StandDownOlderVersion, "an older version of this loop"},
		{"revert", nil, func(pre, _ []byte) []byte { return pre }, StandDownRevert, "went back to the version before the correction (a revert?)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, false)
			original, _ := os.ReadFile(path)
			if c.prepare != nil {
				c.prepare(path)
			}
			pre, _ := os.ReadFile(path)
			s := newSession(path)
			pr := run(t, s.Preview(to99, "")).(PreviewResult)
			if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
				t.Fatal(ar.Err)
			}
			replacement := c.replace(pre, original)
			if c.kind == StandDownRevert {
				// A person's revert, after the loop window.
				pastTheLoopWindow(s.guarded[0].pl)
			}
			loopWrite(t, path, replacement) // cp over it: in place
			jobs := s.Check(load(t, path))
			if len(jobs) != 1 {
				t.Fatalf("%d jobs; want one", len(jobs))
			}
			r := run(t, jobs[0]).(GuardResult)
			var sd *StandDownError
			if !errors.As(r.Err, &sd) || !errors.Is(r.Err, ErrStoodDown) || errors.Is(r.Err, ErrLost) || r.Reapplied {
				t.Fatalf("%+v: want a stand-down", r)
			}
			if sd.Kind != c.kind || !strings.Contains(r.Err.Error(), c.words) || !strings.Contains(r.Err.Error(), `"max_iterations 20 → 99" was not carried over`) {
				t.Fatalf("%q (%s): want %s, saying %q", r.Err, sd.Kind, c.kind, c.words)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, replacement) {
				t.Fatalf("the guard wrote into the replacement:\n%s", now)
			}
			// Once: the guard has ended.
			loopWrite(t, path, []byte(hookContinue(string(replacement))))
			if jobs := s.Check(load(t, path)); len(jobs) != 0 {
				t.Fatal("the guard still acts after standing down")
			}
			if s.CanUndo() {
				t.Fatal("a correction not carried over can still be undone")
			}
		})
	}
}

// The CLI's guard (redirect … --guard) stands down the same way.
func TestRunStandsDownWhenTheFileIsReplaced(t *testing.T) {
	path := fixture(t, false)
	go func() {
		for !bytes.Contains(must(os.ReadFile(path)), []byte("max_iterations 20 → 99")) {
			time.Sleep(time.Millisecond)
		}
		loopWrite(t, path, newLoop())
	}()
	out, err := Run(path, to99, RunOptions{Options: Options{Now: func() time.Time { return testNow }}, Guard: 500 * time.Millisecond})
	var sd *StandDownError
	if !errors.As(err, &sd) || sd.Kind != StandDownNewLoop || !sd.Written || out == nil || out.Reapplied != 0 {
		t.Fatalf("err %v, outcome %+v: want a stand-down", err, out)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, newLoop()) {
		t.Fatalf("the guard wrote into the new loop:\n%s", now)
	}
}

// Each of the loop's writers, run on the version from before the
// correction (a script that read it before our write and writes after
// it), is still the loop's work: the correction is applied again.
func TestGuardStillReappliesOnEachLoopWriter(t *testing.T) {
	writers := map[string]func(string) string{
		"stop hook":          hookContinue,
		"stop hook stopping": hookStop,
		"update_atom.py": func(s string) string {
			out, _ := updateAtom(s, "A4", "resolved")
			return out
		},
		"add_binding.py":      func(s string) string { return addBinding(s, "A4", "idempotency done") },
		"set_status.py":       func(s string) string { return setStatus(s, "completed") },
		"add_atom.py":         func(s string) string { return addAtom(s, "A9", "Load test", "A2") },
		"decompose_atom.py":   func(s string) string { return decompose(s, "A7", []string{"A2", "A5"}, "A10", "A11") },
		"switch_or_branch.py": func(s string) string { return switchOR(s, "audit_store", "A6") },
	}
	for name, w := range writers {
		t.Run(name, func(t *testing.T) {
			path := fixture(t, false)
			stale, _ := os.ReadFile(path)
			s := newSession(path)
			pr := run(t, s.Preview(to99, "")).(PreviewResult)
			run(t, s.Apply(pr.Preview))
			theirs := w(string(stale))
			if theirs == string(stale) {
				t.Fatal("the writer changed nothing")
			}
			loopWrite(t, path, []byte(theirs))
			jobs := s.Check(load(t, path))
			if len(jobs) != 1 {
				t.Fatalf("%d jobs", len(jobs))
			}
			if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
				t.Fatalf("%+v: want the correction applied again", r)
			}
			st := load(t, path).State
			if st.Objective.Constraints.MaxIterations != 99 {
				t.Fatal("the correction is not in the file")
			}
		})
	}
}

// The plugin's scripts write even when they change nothing. One that read
// the file before our write puts back exactly the bytes from before the
// correction: within the loop window that is the loop's work, not a
// revert, and the correction is applied again.
func TestGuardReappliesOverALoopWriteThatChangedNothing(t *testing.T) {
	writers := map[string]func(string) string{
		"update_atom.py A1 resolved": func(s string) string {
			out, _ := updateAtom(s, "A1", "resolved")
			return out
		},
		"set_status.py running": func(s string) string { return setStatus(s, "running") },
	}
	for name, w := range writers {
		t.Run(name, func(t *testing.T) {
			path := fixture(t, false)
			stale, _ := os.ReadFile(path)
			if w(string(stale)) != string(stale) {
				t.Fatal("fixture: the writer changes something")
			}
			s := newSession(path)
			pr := run(t, s.Preview(to99, "")).(PreviewResult)
			if ar := run(t, s.Apply(pr.Preview)).(ApplyResult); ar.Err != nil {
				t.Fatal(ar.Err)
			}
			loopWrite(t, path, []byte(w(string(stale))))
			jobs := s.Check(load(t, path))
			if len(jobs) != 1 {
				t.Fatalf("%d jobs", len(jobs))
			}
			if r := run(t, jobs[0]).(GuardResult); r.Err != nil || !r.Reapplied {
				t.Fatalf("%+v: want the correction applied again", r)
			}
			if load(t, path).State.Objective.Constraints.MaxIterations != 99 {
				t.Fatal("the correction is not in the file")
			}
		})
	}
}

// The CLI's guard, likewise.
func TestRunReappliesOverALoopWriteThatChangedNothing(t *testing.T) {
	path := fixture(t, false)
	stale, _ := os.ReadFile(path)
	go func() {
		for !bytes.Contains(must(os.ReadFile(path)), []byte("max_iterations 20 → 99")) {
			time.Sleep(time.Millisecond)
		}
		theirs, _ := updateAtom(string(stale), "A1", "resolved")
		loopWrite(t, path, []byte(theirs))
	}()
	out, err := Run(path, to99, RunOptions{Options: Options{Now: func() time.Time { return testNow }}, Guard: 500 * time.Millisecond})
	if err != nil || out == nil || out.Reapplied != 1 {
		t.Fatalf("err %v, outcome %+v: want the correction applied again once", err, out)
	}
	if load(t, path).State.Objective.Constraints.MaxIterations != 99 {
		t.Fatal("the correction is not in the file")
	}
}

// Someone else's correction X, then ours, then a loop script that read the
// file before X writes: both are gone. The file lacks only X besides ours:
// a loop script's write, which ours is applied again on — whether X's
// writer puts X back (another TUI's guard) or never will (a CLI whose
// guard ended, one that gave up with exit 3: the stress test's "added A133
// … not carried over (it lacks the last 1 of the 156 corrections …)",
// which the guard used to say after waiting a second for X). Only long
// after ours was planned (past the loop window: no loop script takes that
// long) is such a file taken for an older version, once X's writer has had
// a second to put X back.
func TestGuardWaitsForACorrectionJustBeforeOurs(t *testing.T) {
	goal := "Ship the redirected goal"
	redirectGoal := model.ChangeObjective{Goal: &goal}
	for _, c := range []struct {
		name         string
		x            model.Request
		putBack, old bool
	}{
		{"put back", addRunbook, true, false},
		{"never put back", addRunbook, false, false},
		// The file then has the goal from before X: explained by X, not
		// another loop's goal.
		{"a goal change never put back", redirectGoal, false, false},
		{"never put back, past the loop window", addRunbook, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, false)
			before, _ := os.ReadFile(path)
			other := newSession(path) // another TUI
			pr := run(t, other.Preview(c.x, "")).(PreviewResult)
			run(t, other.Apply(pr.Preview))
			s := newSession(path)
			pr = run(t, s.Preview(to99, "")).(PreviewResult)
			run(t, s.Apply(pr.Preview))
			if c.old {
				pastTheLoopWindow(s.guarded[0].pl)
			}
			loopWrite(t, path, withBinding(before, "W1")) // read before X
			doc := load(t, path)
			ours := s.Check(doc)
			if len(ours) != 1 {
				t.Fatalf("%d jobs", len(ours))
			}
			done := make(chan Result, 1)
			go func() { done <- ours[0]() }()
			if c.putBack {
				theirs := other.Check(doc)
				if len(theirs) != 1 {
					t.Fatalf("%d jobs for the other session", len(theirs))
				}
				if r := run(t, theirs[0]).(GuardResult); !r.Reapplied {
					t.Fatalf("the other correction: %+v", r)
				}
			}
			r := (<-done).(GuardResult)
			st := load(t, path).State
			if c.old {
				if k := standDownKind(r.Err); k != StandDownOlderVersion || !strings.Contains(r.Err.Error(), "it lacks the last 1 of the 3 corrections") {
					t.Fatalf("%v: want a stand-down naming the missing correction", r.Err)
				}
				return
			}
			if r.Err != nil || !r.Reapplied || st.Objective.Constraints.MaxIterations != 99 {
				t.Fatalf("%+v: want ours applied again", r)
			}
			if x := hasEntry(st, "Write the runbook") || st.Objective.Goal == goal; x != c.putBack {
				t.Fatalf("X in the file: %v; its writer put it back: %v", x, c.putBack)
			}
			if _, ok := st.Binding("W1"); !ok {
				t.Fatal("the loop's write is lost")
			}
		})
	}
}

// The first write waits as a guard's does: a command planned on a version
// with someone else's correction X; before it writes, a loop script that
// read the file before X writes it back without X. The file is only
// behind — X's writer's guard puts X back in a moment, and the command
// then writes on that, instead of refusing at once.
func TestFirstWriteWaitsForACorrectionJustBeforeOurs(t *testing.T) {
	path := fixture(t, false)
	before, _ := os.ReadFile(path)
	other := newSession(path) // a TUI that wrote X
	pr := run(t, other.Preview(addRunbook, "")).(PreviewResult)
	run(t, other.Apply(pr.Preview))
	pl := &planner{req: to99, ctx: model.PlanContext{Now: testNow}}
	if _, err := pl.planFunc()(load(t, path)); err != nil { // planned on X's version
		t.Fatal(err)
	}
	// Long ago: within the loop window, a file lacking only X is the
	// loop's work at once (TestGuardWaitsForACorrectionJustBeforeOurs).
	pastTheLoopWindow(pl)
	loopWrite(t, path, withBinding(before, "W1")) // read before X
	done := make(chan error, 1)
	go func() {
		_, err := pl.update(path, statefile.UpdateOptions{Carried: pl.carried})
		done <- err
	}()
	theirs := other.Check(load(t, path))
	if len(theirs) != 1 {
		t.Fatalf("%d jobs for the other session", len(theirs))
	}
	if r := run(t, theirs[0]).(GuardResult); !r.Reapplied {
		t.Fatalf("the other correction: %+v", r)
	}
	if err := <-done; err != nil {
		t.Fatalf("%v: want the write made once X was put back", err)
	}
	st := load(t, path).State
	if st.Objective.Constraints.MaxIterations != 99 || !hasEntry(st, "Write the runbook") {
		t.Fatal("want both corrections in the file")
	}
	if _, ok := st.Binding("W1"); !ok {
		t.Fatal("the loop's write is lost")
	}
}
