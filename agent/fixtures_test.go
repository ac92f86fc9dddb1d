package agent

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// openFixture reads a fixture's transcripts as Open does for the project
// /home/u/shop.
func openFixture(t *testing.T, dir string) *Activity {
	t.Helper()
	a := Open(Options{Project: "/home/u/shop", Root: filepath.Join("testdata", dir)})
	if !a.Found || !a.Ready {
		t.Fatalf("%s: found %v ready %v, notes %q", dir, a.Found, a.Ready, a.Notes)
	}
	return a
}

// golden compares a (its time taken out) with testdata/golden/NAME.json.
func golden(t *testing.T, name string, a *Activity) {
	t.Helper()
	c := *a
	c.At = time.Time{}
	c.Dirs = nil
	c.Sessions = slices.Clone(c.Sessions)
	for i := range c.Sessions {
		c.Sessions[i].File = filepath.ToSlash(c.Sessions[i].File)
	}
	got, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./agent -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (go test ./agent -run %s -update rewrites it after a check):\n%s", name, path, t.Name(), got)
	}
}

func tok(in, out, cc, cr int64, cc1h ...int64) Tokens {
	if len(cc1h) > 0 {
		return Tokens{Input: in, Output: out, CacheCreation: cc, CacheRead: cr, CacheCreation1h: cc1h[0]}
	}
	return Tokens{Input: in, Output: out, CacheCreation: cc, CacheRead: cr}
}

func checkUsage(t *testing.T, what string, u Usage, responses int, want Tokens) {
	t.Helper()
	if u.Responses != responses || u.Tokens() != want {
		t.Errorf("%s: %d responses, %+v; want %d, %+v", what, u.Responses, u.Tokens(), responses, want)
	}
}

func checkCost(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s: cost %.9f, want %.9f", what, got, want)
	}
}

// The older era: sub-agents written into the main file as isSidechain
// lines, told apart by their parentUuid chains and matched to their Task
// by the prompt. Each total below was added up by hand from the fixture.
func TestSidechainEra(t *testing.T) {
	a := openFixture(t, "era-sidechain")
	checkUsage(t, "total", a.Total, 11, tok(75, 504, 6160, 19700))
	checkUsage(t, "A1", a.ByAtom["A1"], 4, tok(23, 255, 3150, 8500))
	checkUsage(t, "A2", a.ByAtom["A2"], 1, tok(2, 80, 0, 3300))
	checkUsage(t, "no atom", a.ByAtom[""], 6, tok(50, 169, 3010, 7900))
	checkUsage(t, "iteration 0", a.ByIteration[0], 1, tok(10, 50, 1000, 0))
	checkUsage(t, "iteration 1", a.ByIteration[1], 6, tok(46, 315, 5150, 12100))
	checkUsage(t, "iteration 2", a.ByIteration[2], 4, tok(19, 139, 10, 7600))
	if a.IterationsFrom != "transcript" {
		t.Errorf("iterations from %q", a.IterationsFrom)
	}
	// Opus 4.1 at 15/75/18.75/1.50 and Sonnet 4.5 at 3/15/3.75/0.30 a million.
	checkCost(t, "total", a.Total.Cost(DefaultPrices()).USD, 0.111795+0.014436)
	if a.Lines != 27 || a.Unrecognised != 2 || a.UnknownTypes["weird-future-type"] != 1 || a.UnknownBlocks["server_tool_use"] != 1 {
		t.Errorf("lines %d, unrecognised %d %v, blocks %v", a.Lines, a.Unrecognised, a.UnknownTypes, a.UnknownBlocks)
	}
	if got := a.NotRecognised(); got != "2 lines not recognised (1 of type weird-future-type, 1 not JSON objects)" {
		t.Errorf("note %q", got)
	}
	// main, coordinator 1, the A1 worker, coordinator 2
	if len(a.Agents) != 4 {
		t.Fatalf("%d agents: %+v", len(a.Agents), a.Agents)
	}
	roles := ""
	for _, ag := range a.Agents {
		roles += ag.Name() + ";"
	}
	if roles != "main;coordinator;A1 worker;coordinator;" {
		t.Errorf("agents %s", roles)
	}
	w := a.Agents[2]
	if !w.Ended || w.Description != "Execute A1 - fetch source text" || len(w.Steps) != 1 || w.Steps[0].Line() != "Write src/source.md" || !w.Steps[0].Done {
		t.Errorf("worker %+v", w)
	}
	c1 := a.Agents[1]
	if !c1.Ended || c1.Steps[0].Line() != "Bash python3 …update_atom.py A1 in_progress" || c1.Steps[1].Line() != "Task worker: Execute A1 - fetch source text" {
		t.Errorf("coordinator 1: %+v", c1.Steps)
	}
	// Waiting for a person: the AskUserQuestion with no answer, inferred.
	n := a.NeedsYou
	if n == nil || !n.Inferred || n.Kind != "question" || n.Message != "AskUserQuestion Use Postgres or SQLite for A2?" || n.Agent != "coordinator" {
		t.Errorf("needs you %+v", n)
	}
	if a.Now == nil || a.Now.Step.Tool != "AskUserQuestion" || a.Now.Atom != "A2" {
		t.Errorf("now %+v", a.Now)
	}
	golden(t, "era-sidechain", a)
}

// The newer era: sub-agents in <session>/subagents/agent-<id>.jsonl, two
// workers in parallel, one response written on two lines (counted once),
// one-hour cache writes priced apart.
func TestSubagentEra(t *testing.T) {
	a := openFixture(t, "era-subagents")
	checkUsage(t, "total", a.Total, 8, tok(33, 535, 5400, 6500, 200))
	if a.Total.Tokens().CacheCreation1h != 200 {
		t.Errorf("1h cache writes %d", a.Total.Tokens().CacheCreation1h)
	}
	checkUsage(t, "A3", a.ByAtom["A3"], 2, tok(8, 240, 4000, 4100))
	checkUsage(t, "A4", a.ByAtom["A4"], 2, tok(4, 70, 800, 900))
	checkUsage(t, "no atom", a.ByAtom[""], 4, tok(21, 225, 600, 1500, 200))
	checkUsage(t, "iteration 3", a.ByIteration[3], 8, tok(33, 535, 5400, 6500, 200))
	c := a.Total.Cost(DefaultPrices())
	checkCost(t, "total", c.USD, 0.01098+0.019854+0.001444)
	if !c.Estimate || c.PricesDate == "" {
		t.Errorf("cost %+v", c)
	}
	checkCost(t, "A3", a.ByAtom["A3"].Cost(DefaultPrices()).USD, 0.019854)
	if a.UnknownBlocks["image"] != 1 || a.Unrecognised != 0 {
		t.Errorf("unknown blocks %v, unrecognised %d", a.UnknownBlocks, a.Unrecognised)
	}
	names := ""
	for _, ag := range a.Agents {
		names += ag.Name() + ";"
	}
	if names != "main;coordinator;A3 worker;A4 worker;" {
		t.Errorf("agents %s", names)
	}
	// Now: the A3 worker's go test, started last and not answered.
	if a.Now == nil || a.Now.Agent != "A3 worker" || a.Now.Step.Line() != "Bash go test ./internal/auth/..." {
		t.Errorf("now %+v", a.Now)
	}
	if a4 := a.Agent("22222222-2222-4222-8222-222222222222", "5e55a4a4"); a4 == nil || !a4.Ended {
		t.Errorf("A4 worker %+v", a4)
	}
	if a3 := a.Agent("22222222-2222-4222-8222-222222222222", "5e55a3a3"); a3 == nil || a3.Ended || a3.Steps[0].Line() != "Edit internal/auth/login.go" {
		t.Errorf("A3 worker %+v", a3)
	}
	if a.NeedsYou != nil {
		t.Errorf("needs you %+v", a.NeedsYou)
	}
	if got := a.StepsOf("A4"); len(got) != 4 || got[0].Line() != "Bash python3 …update_atom.py A4 in_progress" || got[1].Line() != "Task worker: Execute A4 - Login form" ||
		got[2].Line() != "Write web/login.html" || got[3].Line() != "Bash python3 …update_atom.py A4 resolved" {
		t.Errorf("steps of A4: %+v", got)
	}
	golden(t, "era-subagents", a)
}

// The iterations read from the state file's versions take precedence over
// the transcript's marks from the first of them on, and count every
// response again when they change.
func TestIterationsFromTheStateFile(t *testing.T) {
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	a := Open(Options{Project: "/home/u/shop", Root: filepath.Join("testdata", "era-subagents"),
		Iterations: []IterationMark{{At: ts("2026-11-21T11:00:10Z"), N: 8}, {At: ts("2026-11-21T11:00:00Z"), N: 7}}})
	if a.IterationsFrom != "state" {
		t.Fatalf("iterations from %q", a.IterationsFrom)
	}
	// Before 11:00:10: msg_B1, B2, B3; after: B4 to B8.
	checkUsage(t, "iteration 7", a.ByIteration[7], 3, tok(19, 190, 600, 900, 200))
	checkUsage(t, "iteration 8", a.ByIteration[8], 5, tok(14, 345, 4800, 5600))
	if len(a.ByIteration) != 2 {
		t.Errorf("iterations %v", a.ByIteration)
	}
	tr := NewTracker(TrackerOptions{})
	tr.Feed(FileRef{Session: "s"}, []byte(assistant(lineOpts{session: "s", uuid: "u", at: at(5)}, "m", opus, tok(1, 0, 0, 0), textBlock("x"))))
	if got := tr.Snapshot(at(6)).ByIteration[0].Responses; got != 1 {
		t.Fatalf("before any mark: %d", got)
	}
	tr.SetIterations([]IterationMark{{At: at(1), N: 4}})
	if got := tr.Snapshot(at(6)).ByIteration[4].Responses; got != 1 {
		t.Fatalf("after the marks came: %v", tr.Snapshot(at(6)).ByIteration)
	}
}
