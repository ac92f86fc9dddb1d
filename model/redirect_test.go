package model_test

// The planner's tests build states from YAML text (statefile.Parse: model
// itself stays free of I/O; only its external test package reads text) and
// check what a plan means by applying it and reading the result back, so
// they hold whatever edits a plan chooses to reach the same file.

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
)

// baseState is a loop in the seed template's layout:
//
//	A1 ← A2 (in progress), A3 (resolved, selected in OR group store), A4
//	A3 ← A5 ← A7 (a child of A6, which is decomposed into A7 and A8)
//	A2, A6 ← A9 ← A10 (selected in OR group fmt), A11 (failed), A12; A9 ← A13
//
// store lists A15, which is not an atom (yet); A8 is resolved without a
// binding. The trail has an entry for each group and one user correction.
const baseState = `---
objective:
  goal: "Ship the store"
  base_case:
    checklist:
      - item: "Tests pass"
        check:
          type: command
          value: "go test ./..."
      - item: "Docs or runbook"
        any_of:
          - item: "Docs"
            check:
              type: file
              value: "docs/README.md"
  background_intent: "Data is lost today"
  deliverables: "A store"
  definition_of_done: "Every check passes"
  constraints:
    max_iterations: 20
    max_parallel_agents: 3
    max_stall_count: 3

control:
  status: running
  iteration: 6
  stall_count: 0
  prev_pending_count: 6
  stop_requested: false
  stop_reason: null
  redirect_requested: false

atoms:
  - id: A1
    description: "Schema"
    status: resolved
    depends_on: []

  - id: A2
    description: "Client"
    status: in_progress
    depends_on: [A1]

  - id: A3
    description: "Store in Postgres"
    status: resolved
    depends_on: [A1]
    or_group: store

  - id: A4
    description: "Store in S3"
    status: pending
    depends_on: [A1]
    or_group: store

  - id: A5
    description: "Wire the store"
    status: resolved
    depends_on: [A3]

  - id: A6
    description: "Docs"
    status: resolved
    depends_on: [A1]

  - id: A7
    description: "Store docs"
    status: resolved
    depends_on: [A1, A5]

  - id: A8
    description: "API docs"
    status: resolved
    depends_on: [A1]

  - id: A9
    description: "Release"
    status: pending
    depends_on: [A2, A6]

  - id: A10
    description: "Markdown notes"
    status: pending
    depends_on: [A9]
    or_group: fmt

  - id: A11
    description: "HTML notes"
    status: pending
    depends_on: [A9]
    or_group: fmt

  - id: A12
    description: "PDF notes"
    status: pending
    depends_on: [A9]
    or_group: fmt

  - id: A13
    description: "Announce"
    status: pending
    depends_on: [A9]

decompositions:
  - parent: A6
    children: [A7, A8]
    reason: "two kinds of docs"

or_groups:
  store:
    choices: [A3, A4, A15]
    selected: A3
    failed: [A4]
  fmt:
    choices: [A10, A11, A12]
    selected: A10
    failed: [A11]

bindings:
  A1:
    summary: "Schema in db/"
    artifacts: ["db/schema.sql"]
  A3:
    summary: "Postgres store"
    artifacts: ["store/pg.go"]
  A5:
    summary: "Store wired"
    artifacts: []
  A6:
    summary: "Docs via A7, A8"
    artifacts: []
  A7:
    summary: "Store docs written"
    artifacts: ["docs/store.md"]

trail:
  - or_group: store
    selected: A3
    reason: "Postgres first"
    timestamp: "2026-01-01T09:00:00Z"
  - or_group: fmt
    selected: A10
    reason: "Markdown is simplest"
    timestamp: "2026-01-01T09:30:00Z"
  - type: user_correction
    reason: "added A13"
    timestamp: "2026-01-01T10:00:00Z"

corrections: []
---

# Original Prompt

Build the store.
`

// now is deliberately not UTC: entries must be stamped in UTC.
var now = time.Date(2026, 3, 1, 14, 30, 0, 0, time.FixedZone("CET", 3600))

const stamp = "2026-03-01T13:30:00Z"

var ctx = model.PlanContext{Now: now}

// interrupting is ctx with the person's yes to interrupting workers.
var interrupting = model.PlanContext{Now: now, Interrupt: true}

// variant is baseState with each old text replaced (once) by the new one.
func variant(t *testing.T, pairs ...string) string {
	t.Helper()
	s := baseState
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("fixture has no %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// withStatus is baseState (or text) with atom id's status set to st.
func withStatus(t *testing.T, text, id, st string) string {
	t.Helper()
	at := strings.Index(text, "  - id: "+id+"\n")
	if at < 0 {
		t.Fatalf("fixture has no atom %s", id)
	}
	rest := text[at:]
	s := strings.Index(rest, "    status: ")
	e := s + strings.IndexByte(rest[s:], '\n')
	return text[:at] + rest[:s] + "    status: " + st + rest[e:]
}

func parse(t *testing.T, text string) *statefile.Document {
	t.Helper()
	doc, err := statefile.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// planOK plans req and fails the test on a refusal.
func planOK(t *testing.T, doc *statefile.Document, req model.Request, c model.PlanContext) *model.Plan {
	t.Helper()
	p, err := model.PlanCorrection(doc.State, req, c)
	if err != nil {
		t.Fatalf("%s refused: %v", req.Kind(), err)
	}
	return p
}

// apply applies the plan and reads the result back, failing when it does
// not parse or has a validation error the original did not have.
func apply(t *testing.T, doc *statefile.Document, p *model.Plan) *model.State {
	t.Helper()
	out, err := statefile.ApplyEdits(doc, p.Edits)
	if err != nil {
		t.Fatalf("applying %v: %v", p.Edits, err)
	}
	nd, err := statefile.Parse(out)
	if err != nil {
		t.Fatalf("the corrected file does not parse: %v\n%s", err, out)
	}
	old := map[string]bool{}
	for _, e := range model.Validate(doc.State).Errors {
		old[e] = true
	}
	for _, e := range model.Validate(nd.State).Errors {
		if !old[e] {
			t.Fatalf("the correction made the file invalid: %s\n%s", e, out)
		}
	}
	return nd.State
}

func atom(t *testing.T, s *model.State, id string) *model.Atom {
	t.Helper()
	a, ok := s.Atom(id)
	if !ok {
		t.Fatalf("no atom %s", id)
	}
	return a
}

func group(t *testing.T, s *model.State, name string) *model.ORGroup {
	t.Helper()
	g, ok := s.ORGroup(name)
	if !ok {
		t.Fatalf("no OR group %s", name)
	}
	return g
}

func statuses(s *model.State) map[string]model.AtomStatus {
	m := map[string]model.AtomStatus{}
	for _, a := range s.Atoms {
		m[a.ID] = a.Status
	}
	return m
}

func bound(s *model.State) []string {
	var ids []string
	for _, b := range s.Bindings {
		ids = append(ids, b.AtomID)
	}
	return ids
}

// checkRecorded checks the plan's corrections[] entry and that the file
// now ends with exactly that entry.
func checkRecorded(t *testing.T, p *model.Plan, s *model.State, typ model.CorrectionType, desc string, cleared bool) {
	t.Helper()
	c := p.Correction
	if c == nil {
		t.Fatal("the plan records no correction")
	}
	if c.Timestamp != stamp || c.Type != typ || c.TrailCleared != cleared || !strings.Contains(c.Description, desc) {
		t.Fatalf("correction %+v; want timestamp %s, type %s, trail_cleared %v, description containing %q", *c, stamp, typ, cleared, desc)
	}
	if len(s.Corrections) != 1 {
		t.Fatalf("corrections[] has %d entries, want 1", len(s.Corrections))
	}
	got := s.Corrections[0]
	if got.Timestamp != c.Timestamp || got.Type != c.Type || got.Description != c.Description || got.TrailCleared != c.TrailCleared {
		t.Fatalf("corrections[] holds %+v, the plan says %+v", got, *c)
	}
	if p.TrailCleared != cleared {
		t.Fatalf("Plan.TrailCleared %v, want %v", p.TrailCleared, cleared)
	}
}

// checkInterrupts checks the in-progress atoms a plan says it touches.
func checkInterrupts(t *testing.T, p *model.Plan, want ...model.Interrupt) {
	t.Helper()
	if !reflect.DeepEqual(p.Interrupts, want) {
		t.Fatalf("interrupts %+v, want %+v", p.Interrupts, want)
	}
}

// checkTrailAppended checks that the trail is the old one plus the plan's
// entry: an OR selection with the schema's four fields (seed 000 §4.7)
// and no others.
func checkTrailAppended(t *testing.T, p *model.Plan, old, s *model.State, group, selected, reason string) {
	t.Helper()
	tr := p.Trail
	if tr == nil || len(p.Trails) != 1 || !reflect.DeepEqual(p.Trails[0], *tr) {
		t.Fatalf("the plan appends no trail entry, or more than one: %+v", p.Trails)
	}
	if tr.Type != "" || tr.ORGroup != group || tr.Selected != selected || tr.Timestamp != stamp || !strings.Contains(tr.Reason, reason) {
		t.Fatalf("trail entry %+v; want no type, or_group %q, selected %q, reason containing %q at %s", *tr, group, selected, reason, stamp)
	}
	if len(s.Trail) != len(old.Trail)+1 {
		t.Fatalf("trail has %d entries, want %d", len(s.Trail), len(old.Trail)+1)
	}
	last := s.Trail[len(s.Trail)-1]
	if last.Type != "" || len(last.Extra) != 0 || last.ORGroup != tr.ORGroup || last.Selected != tr.Selected || last.Reason != tr.Reason || last.Timestamp != tr.Timestamp {
		t.Fatalf("the file's last trail entry %+v is not the plan's %+v", last, *tr)
	}
	checkTrailKept(t, old, s)
}

// checkNoTrail checks that the plan leaves the trail as it was.
func checkNoTrail(t *testing.T, p *model.Plan, old, s *model.State) {
	t.Helper()
	if p.Trail != nil || len(p.Trails) != 0 || len(s.Trail) != len(old.Trail) {
		t.Fatalf("the plan appends a trail entry (%+v); only a change of OR selection does", p.Trails)
	}
	checkTrailKept(t, old, s)
}

func checkTrailKept(t *testing.T, old, s *model.State) {
	t.Helper()
	for i := range old.Trail {
		if s.Trail[i].Reason != old.Trail[i].Reason || s.Trail[i].Selected != old.Trail[i].Selected {
			t.Fatalf("trail entry %d changed: %+v", i, s.Trail[i])
		}
	}
}

func TestRefusals(t *testing.T) {
	ptr := func(n int) *int { return &n }
	str := func(s string) *string { return &s }
	cases := []struct {
		name  string
		state string // "" is baseState
		req   model.Request
		rule  string
		says  string
	}{
		// Unknown ids.
		{"delete unknown", "", model.DeleteAtom{ID: "A99"}, model.RuleUnknownAtom, "no atom A99 (atoms: A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, … and 3 more)"},
		{"dependency unknown", "", model.AddAtom{Description: "x", DependsOn: []string{"A1", "A99"}}, model.RuleUnknownAtom, "no atom A99 (atoms: A1, A2,"},
		{"required-by unknown", "", model.AddAtom{Description: "x", RequiredBy: []string{"A98"}}, model.RuleUnknownAtom, "no atom A98 (atoms: A1, A2,"},
		{"override unknown", "", model.OverrideBinding{ID: "Z1", Redo: true}, model.RuleUnknownAtom, "no atom Z1 (atoms: A1, A2,"},
		{"add to unknown OR group", "", model.AddAtom{Description: "x", ORGroup: "nope"}, model.RuleORMember, "OR group nope does not exist"},
		{"force unknown OR group", "", model.ForceOR{Group: "nope", Choice: "A1"}, model.RuleORMember, "OR group nope does not exist"},
		// Ids.
		{"duplicate id", "", model.AddAtom{ID: "A4", Description: "x"}, model.RuleDuplicateID, "atom A4 already exists"},
		{"bad id: space", "", model.AddAtom{ID: "A 1", Description: "x"}, model.RuleBadID, `"A 1" is not a usable atom id`},
		{"bad id: leading dash", "", model.AddAtom{ID: "-A1", Description: "x"}, model.RuleBadID, "not a usable atom id"},
		{"bad id: yaml syntax", "", model.AddAtom{ID: "A1: x", Description: "x"}, model.RuleBadID, "not a usable atom id"},
		{"bad id: too long", "", model.AddAtom{ID: "A" + strings.Repeat("1", 64), Description: "x"}, model.RuleBadID, "not a usable atom id"},
		// Cycles.
		{"depends on itself", "", model.AddAtom{ID: "N1", Description: "x", DependsOn: []string{"N1"}}, model.RuleCycle, "N1 cannot depend on itself"},
		{"cycle through required-by", "", model.AddAtom{Description: "x", DependsOn: []string{"A13"}, RequiredBy: []string{"A9"}},
			model.RuleCycle, "that would make a cycle: A16 -> A13 -> A9 -> A16"},
		{"long cycle through required-by", "", model.AddAtom{Description: "x", DependsOn: []string{"A1", "A10"}, RequiredBy: []string{"A4", "A2"}},
			model.RuleCycle, "that would make a cycle: A16 -> A10 -> A9 -> A2 -> A16"},
		{"required-by resolved", "", model.AddAtom{Description: "x", RequiredBy: []string{"A5"}}, model.RuleResolved, "A5 is resolved; a resolved atom cannot gain a dependency"},
		// Deletes.
		{"delete resolved", "", model.DeleteAtom{ID: "A3", Detach: true}, model.RuleResolved, "A3 is resolved"},
		{"delete the only atom", "---\nobjective:\n  goal: g\ncontrol:\n  status: running\natoms:\n  - id: A1\n    description: \"x\"\n    status: pending\n    depends_on: []\n---\n",
			model.DeleteAtom{ID: "A1"}, model.RuleLastAtom, "A1 is the only atom"},
		{"delete with dependents", "", model.DeleteAtom{ID: "A9"}, model.RuleDependents, "A9 is needed by A10, A11, A12, A13; pass --detach"},
		{"delete selected choice", "", model.DeleteAtom{ID: "A10"}, model.RuleDependents, "A10 is the selected choice of OR group fmt; pass --detach"},
		// OR choices.
		{"choice not a member", "", model.ForceOR{Group: "store", Choice: "A1"}, model.RuleORMember, "A1 is not one of OR group store's choices (A3, A4, A15)"},
		{"choice not an atom", "", model.ForceOR{Group: "store", Choice: "A15"}, model.RuleORMember, "A15 is listed as a choice of store but no atom A15 exists"},
		{"choice already selected", "", model.ForceOR{Group: "store", Choice: "A3"}, model.RuleNoChange, "OR group store already selects A3"},
		// Forcing a choice moves the previous selection's dependents onto it.
		{"moving a dependent makes a cycle", variant(t, "depends_on: [A9]\n    or_group: fmt\n\n  - id: A13", "depends_on: [A9, A13]\n    or_group: fmt\n\n  - id: A13",
			"    depends_on: [A9]\n\ndecompositions", "    depends_on: [A9, A10]\n\ndecompositions"),
			model.ForceOR{Group: "fmt", Choice: "A12"}, model.RuleCycle, "A13 depends on A10; making it depend on A12 instead would make a cycle: A13 -> A12 -> A13"},
		{"the new choice depends on the old one", variant(t, "depends_on: [A9]\n    or_group: fmt\n\n  - id: A13", "depends_on: [A10]\n    or_group: fmt\n\n  - id: A13"),
			model.ForceOR{Group: "fmt", Choice: "A12"}, model.RuleCycle, "A12 depends on A10; making it depend on A12 instead would make a cycle: A12 -> A12"},
		// Limits.
		{"zero limit", "", model.ChangeConstraints{MaxIterations: ptr(0)}, model.RulePositiveLimit, "max_iterations must be a positive integer, not 0"},
		{"negative limit", "", model.ChangeConstraints{MaxIterations: ptr(30), MaxStallCount: ptr(-2)}, model.RulePositiveLimit, "max_stall_count must be a positive integer, not -2"},
		{"zero limit, no constraints yet", variant(t, "  constraints:\n    max_iterations: 20\n    max_parallel_agents: 3\n    max_stall_count: 3\n", ""),
			model.ChangeConstraints{MaxParallelAgents: ptr(0)}, model.RulePositiveLimit, "max_parallel_agents must be a positive integer"},
		{"same limits", "", model.ChangeConstraints{MaxIterations: ptr(20), MaxParallelAgents: ptr(3)}, model.RuleNoChange, "already have those values"},
		{"no limits given", "", model.ChangeConstraints{}, model.RuleNoChange, "nothing to change: give at least one of --max-iterations"},
		// Bindings.
		{"override in-progress atom", "", model.OverrideBinding{ID: "A2", Summary: str("x")}, model.RuleOverrideResolved, "A2 is in_progress; only a resolved atom's binding can be overridden"},
		{"redo pending atom", "", model.OverrideBinding{ID: "A4", Redo: true}, model.RuleOverrideResolved, "A4 is pending"},
		{"amend nothing", "", model.OverrideBinding{ID: "A1"}, model.RuleNoChange, "nothing to change: give a new --summary or --artifacts, or --redo"},
		{"amend same summary", "", model.OverrideBinding{ID: "A1", Summary: str(" Schema in db/ ")}, model.RuleNoChange, "the binding of A1 already says that"},
		{"amend same artifacts", "", model.OverrideBinding{ID: "A3", Artifacts: []string{"store/pg.go"}, SetArtifacts: true}, model.RuleNoChange, "already says that"},
		{"new binding without summary", "", model.OverrideBinding{ID: "A8", Artifacts: []string{"docs/api.md"}, SetArtifacts: true}, model.RuleEmpty, "A8 has no binding yet; give a --summary"},
		// Empty text.
		{"empty description", "", model.AddAtom{Description: " \t"}, model.RuleEmpty, "the new atom needs a description"},
		{"empty goal", "", model.ChangeObjective{Goal: str("  ")}, model.RuleEmpty, "objective.goal cannot be empty"},
		{"empty summary", "", model.OverrideBinding{ID: "A1", Summary: str("")}, model.RuleEmpty, "a binding summary cannot be empty"},
		{"empty check item", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "add", Type: model.CheckFile, Value: "x"}}}, model.RuleEmpty, "needs a name"},
		{"empty check value", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "add", Item: "x", Type: model.CheckFile}}}, model.RuleEmpty, "a file check needs a value"},
		// Nothing to change.
		{"objective unchanged", "", model.ChangeObjective{Goal: str("Ship the store"), Deliverables: str("A store")}, model.RuleNoChange, "nothing to change"},
		{"objective empty request", "", model.ChangeObjective{}, model.RuleNoChange, "nothing to change"},
		{"check unchanged", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "set", Path: model.ChecklistPath{0}, Value: "go test ./..."}}}, model.RuleNoChange, "already is command"},
		{"redirect flag unchanged", "", model.SetRedirect{Requested: false}, model.RuleNoChange, "redirect_requested already is false"},
		// Checklist addressing.
		{"check out of range", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "set", Path: model.ChecklistPath{5}, Value: "x"}}}, model.RuleChecklist, "no checklist item 6"},
		{"check type unknown", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "set", Path: model.ChecklistPath{0}, Type: "shell", Value: "x"}}}, model.RuleCheckType, `check type "shell" is not one of command, file, not_command, not_file, assertion, quality`},
		{"remove the last item", variant(t, "      - item: \"Docs or runbook\"\n        any_of:\n          - item: \"Docs\"\n            check:\n              type: file\n              value: \"docs/README.md\"\n", ""),
			model.ChangeObjective{Checks: []model.CheckEdit{{Op: "remove", Path: model.ChecklistPath{0}}}}, model.RuleChecklist, "is the last one"},
		{"remove the only choice of an any_of", "", model.ChangeObjective{Checks: []model.CheckEdit{{Op: "remove", Path: model.ChecklistPath{1, 0}}}},
			model.RuleChecklist, "checklist item 2.1 is the only choice of any_of 2"},
		// Stop.
		{"stop a stopped loop", variant(t, "  status: running", "  status: stopped"), model.Stop{}, model.RuleLoopState, "the loop is already stopped"},
		{"stop a completed loop", variant(t, "  status: running", "  status: completed"), model.Stop{}, model.RuleLoopState, "the loop is already completed"},
		{"stop twice", variant(t, "stop_requested: false", "stop_requested: true"), model.Stop{}, model.RuleNoChange, "a stop is already requested"},
		// In-progress atoms (A2; A7 and A3 in the variants) are touched
		// only with PlanContext.Interrupt: the refusal names the atom, what the
		// correction would do to it and what the worker's write would do.
		{"required-by an in-progress atom", "", model.AddAtom{Description: "x", RequiredBy: []string{"A2"}}, model.RuleInProgress,
			"A2 is in progress (a worker is on it): this correction resets it to pending and changes its depends_on; the worker's result would overwrite it. Add --interrupt to do it anyway"},
		{"delete an in-progress atom", "", model.DeleteAtom{ID: "A2", Detach: true}, model.RuleInProgress,
			"A2 is in progress (a worker is on it): this correction deletes it; the worker's update_atom.py A2 … will fail 'Atom A2 not found'. Add --interrupt"},
		{"force-or away from an in-progress selection", withStatus(t, withStatus(t, baseState, "A3", "in_progress"), "A5", "pending"), model.ForceOR{Group: "store", Choice: "A4"}, model.RuleInProgress,
			"A3 is in progress (a worker is on it): this correction resets it to pending and makes OR group store select A4 instead of it; the worker's result would overwrite it"},
		{"redo under an in-progress dependent", withStatus(t, baseState, "A7", "in_progress"), model.OverrideBinding{ID: "A3", Redo: true}, model.RuleInProgress,
			"A7 is in progress (a worker is on it): this correction resets it to pending"},
		{"detach from an in-progress dependent", withStatus(t, baseState, "A13", "in_progress"), model.DeleteAtom{ID: "A9", Detach: true}, model.RuleInProgress,
			"A13 is in progress (a worker is on it): this correction changes its depends_on; the worker still resolves it when it finishes, on the dependencies it started with (update_atom.py rewrites only the status). Add --interrupt to do it anyway"},
		{"delete a selection rewires an in-progress dependent", withStatus(t, withStatus(t, baseState, "A3", "pending"), "A5", "in_progress"), model.DeleteAtom{ID: "A3", Detach: true}, model.RuleInProgress,
			"A5 is in progress (a worker is on it): this correction changes its depends_on; the worker still resolves it when it finishes, on the dependencies it started with (update_atom.py rewrites only the status). Add --interrupt to do it anyway"},
		{"several in progress", withStatus(t, withStatus(t, baseState, "A7", "in_progress"), "A6", "in_progress"), model.OverrideBinding{ID: "A3", Redo: true}, model.RuleInProgress,
			"A6 is in progress (a worker is on it): this correction resets it to pending; the worker's result would overwrite it (also in progress: A7 resets it to pending)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := c.state
			if text == "" {
				text = baseState
			}
			doc := parse(t, text)
			p, err := model.PlanCorrection(doc.State, c.req, ctx)
			if err == nil {
				t.Fatalf("planned %q (%v), want a refusal", p.Summary, p.Edits)
			}
			r, ok := err.(*model.Refusal)
			if !ok {
				t.Fatalf("error %T %v, want *model.Refusal", err, err)
			}
			if r.Rule != c.rule || !strings.Contains(r.Reason, c.says) {
				t.Fatalf("refusal %q (rule %q); want rule %q and a reason containing %q", r.Reason, r.Rule, c.rule, c.says)
			}
			if strings.Contains(r.Error(), "\n") || !strings.HasSuffix(r.Error(), "(rule: "+c.rule+")") {
				t.Fatalf("the refusal is not one line naming its rule: %q", r.Error())
			}
		})
	}
}

// PlanCorrection must not modify the state it plans on (the TUI keeps
// showing it while a form is open).
func TestPlanLeavesStateAlone(t *testing.T) {
	str := func(s string) *string { return &s }
	reqs := []model.Request{
		model.AddAtom{Description: "x", DependsOn: []string{"A1"}, RequiredBy: []string{"A2"}, ORGroup: "fmt"},
		model.DeleteAtom{ID: "A10", Detach: true},
		model.ForceOR{Group: "store", Choice: "A4"},
		model.ChangeObjective{Goal: str("new"), Checks: []model.CheckEdit{{Op: "remove", Path: model.ChecklistPath{1}}}},
		model.OverrideBinding{ID: "A3", Redo: true},
		model.Stop{Reason: "x"},
	}
	for _, req := range reqs {
		doc, ref := parse(t, baseState), parse(t, baseState)
		planOK(t, doc, req, interrupting)
		if !reflect.DeepEqual(doc.State, ref.State) {
			t.Fatalf("%s modified the state it planned on", req.Kind())
		}
	}
}

func TestNextAtomID(t *testing.T) {
	// A15 is only an OR choice in baseState: the next id skips it.
	if got := model.NextAtomID(parse(t, baseState).State); got != "A16" {
		t.Fatalf("next id %s, want A16 (past choice A15)", got)
	}
	// Dependencies and decomposition children that name no atom count too;
	// ids that are not A<n> do not.
	for _, c := range []struct{ old, new, want string }{
		{"depends_on: [A9]\n\ndecompositions", "depends_on: [A9, A40]\n\ndecompositions", "A41"},
		{"children: [A7, A8]", "children: [A7, A8, A22]", "A23"},
		{"parent: A6", "parent: A30", "A31"},
		{"choices: [A3, A4, A15]", "choices: [A3, A4, B99, A07x]", "A14"},
	} {
		s := parse(t, variant(t, c.old, c.new)).State
		if got := model.NextAtomID(s); got != c.want {
			t.Errorf("after %q: next id %s, want %s", c.new, got, c.want)
		}
	}
}

func TestAddAtom(t *testing.T) {
	t.Run("next free id, deps, OR group, note", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.AddAtom{Description: " PDF via pandoc ", DependsOn: []string{"A9", "A1", "A9"}, ORGroup: "fmt"},
			model.PlanContext{Now: now, Note: " asked by finance "})
		s := apply(t, doc, p)
		a := atom(t, s, "A16")
		if a.Description != "PDF via pandoc" || a.Status != model.StatusPending || !slices.Equal(a.DependsOn, []string{"A9", "A1"}) || a.ORGroup != "fmt" {
			t.Fatalf("new atom %+v", *a)
		}
		if s.Atoms[len(s.Atoms)-1].ID != "A16" {
			t.Fatal("the new atom is not appended at the end of atoms")
		}
		if g := group(t, s, "fmt"); !slices.Equal(g.Choices, []string{"A10", "A11", "A12", "A16"}) || g.Selected != "A10" {
			t.Fatalf("fmt is %+v; the new atom should be its last choice", *g)
		}
		want := `added A16 "PDF via pandoc" depending on A9, A1 as a choice of OR group fmt; note: asked by finance`
		checkRecorded(t, p, s, model.CorrectionDAG, want, false)
		if p.Correction.Description != want {
			t.Fatalf("description %q, want %q", p.Correction.Description, want)
		}
		checkNoTrail(t, p, doc.State, s)
		if !slices.Equal(p.Affected, []string{"A16"}) || p.Summary != "added A16" || p.Kind != "add-atom" {
			t.Fatalf("plan %+v", *p)
		}
	})
	t.Run("given id, no deps", func(t *testing.T) {
		doc := parse(t, baseState)
		s := apply(t, doc, planOK(t, doc, model.AddAtom{ID: "A15", Description: "Store in SQLite"}, ctx))
		// A15 was a choice of store with no atom: now it is one.
		if a := atom(t, s, "A15"); len(a.DependsOn) != 0 || !a.Lines.Has("depends_on") {
			t.Fatalf("A15 %+v; want depends_on: []", *a)
		}
	})
	t.Run("an id the group already lists is not listed twice", func(t *testing.T) {
		doc := parse(t, baseState)
		s := apply(t, doc, planOK(t, doc, model.AddAtom{ID: "A15", Description: "Store in SQLite", DependsOn: []string{"A1"}, ORGroup: "store"}, ctx))
		if g := group(t, s, "store"); !slices.Equal(g.Choices, []string{"A3", "A4", "A15"}) {
			t.Fatalf("store's choices %v", g.Choices)
		}
		if a := atom(t, s, "A15"); a.ORGroup != "store" {
			t.Fatalf("A15 %+v", *a)
		}
	})
	t.Run("required-by", func(t *testing.T) {
		// A9 pending, A2 in progress, A12 pending without depends_on.
		doc := parse(t, variant(t, "    depends_on: [A9]\n    or_group: fmt\n\n  - id: A13", "    or_group: fmt\n\n  - id: A13"))
		if doc.State.Atoms[11].Lines.Has("depends_on") {
			t.Fatal("fixture: A12 should lack depends_on")
		}
		p := planOK(t, doc, model.AddAtom{Description: "Security review", DependsOn: []string{"A1"}, RequiredBy: []string{"A9", "A2", "A12"}}, interrupting)
		s := apply(t, doc, p)
		for id, deps := range map[string][]string{"A9": {"A2", "A6", "A16"}, "A2": {"A1", "A16"}, "A12": {"A16"}} {
			if got := atom(t, s, id).DependsOn; !slices.Equal(got, deps) {
				t.Errorf("%s depends on %v, want %v", id, got, deps)
			}
		}
		if st := atom(t, s, "A2").Status; st != model.StatusPending {
			t.Errorf("A2 (in progress, now waiting for A16) is %s, want pending", st)
		}
		if st := atom(t, s, "A9").Status; st != model.StatusPending {
			t.Errorf("A9 is %s", st)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "required by A9, A2, A12 (A2 in_progress → pending) (interrupted the worker on A2)", false)
		checkInterrupts(t, p, model.Interrupt{Atom: "A2", How: "resets it to pending and changes its depends_on"})
		if !slices.Equal(p.Affected, []string{"A9", "A2", "A12", "A16"}) {
			t.Fatalf("affected %v", p.Affected)
		}
	})
	t.Run("a file without atoms gets the section", func(t *testing.T) {
		doc := parse(t, "---\nobjective:\n  goal: g\ncontrol:\n  status: running\n---\n")
		s := apply(t, doc, planOK(t, doc, model.AddAtom{Description: "first"}, ctx))
		if len(s.Atoms) != 1 || s.Atoms[0].ID != "A1" || len(s.Corrections) != 1 || len(s.Trail) != 0 || s.Lines.Has("trail") {
			t.Fatalf("atoms %+v, corrections %d, trail %d", s.Atoms, len(s.Corrections), len(s.Trail))
		}
	})
}

func TestDeleteAtom(t *testing.T) {
	t.Run("detach from dependents", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.DeleteAtom{ID: "A9", Detach: true}, ctx)
		s := apply(t, doc, p)
		if _, ok := s.Atom("A9"); ok {
			t.Fatal("A9 still exists")
		}
		for _, id := range []string{"A10", "A11", "A12", "A13"} {
			if d := atom(t, s, id).DependsOn; len(d) != 0 {
				t.Errorf("%s still depends on %v", id, d)
			}
		}
		if len(s.Atoms) != len(doc.State.Atoms)-1 {
			t.Fatalf("%d atoms", len(s.Atoms))
		}
		checkRecorded(t, p, s, model.CorrectionDAG, `deleted A9 "Release" (was pending); detached from A10, A11, A12, A13`, false)
		checkNoTrail(t, p, doc.State, s)
		if !slices.Equal(p.Affected, []string{"A9", "A10", "A11", "A12", "A13"}) {
			t.Fatalf("affected %v", p.Affected)
		}
	})
	t.Run("selected choice moves to the next one that has not failed", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.DeleteAtom{ID: "A10", Detach: true}, ctx)
		s := apply(t, doc, p)
		g := group(t, s, "fmt")
		// A11 has failed: A12 is next.
		if !slices.Equal(g.Choices, []string{"A11", "A12"}) || g.Selected != "A12" || !slices.Equal(g.Failed, []string{"A11"}) {
			t.Fatalf("fmt is %+v", *g)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "OR group fmt now selects A12", false)
		// The selection changed: the trail records it.
		checkTrailAppended(t, p, doc.State, s, "fmt", "A12", "A10, the selected choice, was deleted; A12 is the next choice that has not failed")
	})
	t.Run("the selected choice's dependents move to the next choice", func(t *testing.T) {
		// The demo: A6 depends on A4, the selected choice of
		// session_strategy. Deleted, A4 hands A6 to A5, as the loop's own
		// backtrack does (A6 must not lose its session strategy).
		doc := parse(t, sim.DemoState)
		p := planOK(t, doc, model.DeleteAtom{ID: "A4", Detach: true}, ctx)
		s := apply(t, doc, p)
		if d := atom(t, s, "A6").DependsOn; !slices.Equal(d, []string{"A3", "A5"}) {
			t.Fatalf("A6 depends on %v, want [A3 A5]", d)
		}
		if g := group(t, s, "session_strategy"); g.Selected != "A5" {
			t.Fatalf("session_strategy selects %q", g.Selected)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, `deleted A4 "Stateless JWT tokens" (was pending); A6 now depends on A5 instead; OR group session_strategy now selects A5`, false)
		if !slices.Contains(p.Affected, "A6") {
			t.Fatalf("affected %v", p.Affected)
		}
	})
	t.Run("no choice left to select", func(t *testing.T) {
		doc := parse(t, variant(t, "choices: [A10, A11, A12]", "choices: [A10, A11, A20]"))
		p := planOK(t, doc, model.DeleteAtom{ID: "A10", Detach: true}, ctx)
		s := apply(t, doc, p)
		if g := group(t, s, "fmt"); g.Selected != "" || !slices.Equal(g.Choices, []string{"A11", "A20"}) {
			t.Fatalf("fmt is %+v; A11 failed and A20 is no atom, so nothing is selected", *g)
		}
		// Nothing is selected instead: no selection to record.
		checkNoTrail(t, p, doc.State, s)
	})
	t.Run("failed choice", func(t *testing.T) {
		doc := parse(t, baseState)
		s := apply(t, doc, planOK(t, doc, model.DeleteAtom{ID: "A11"}, ctx))
		if g := group(t, s, "fmt"); !slices.Equal(g.Choices, []string{"A10", "A12"}) || len(g.Failed) != 0 || g.Selected != "A10" {
			t.Fatalf("fmt is %+v", *g)
		}
	})
	// The decomposition cases need unresolved children: A6 back to pending
	// with A7 and A8 in progress (and no bindings for them).
	decomposing := func(t *testing.T) string {
		text := withStatus(t, baseState, "A7", "in_progress")
		text = withStatus(t, text, "A8", "pending")
		return withStatus(t, text, "A6", "pending")
	}
	t.Run("decomposition child", func(t *testing.T) {
		doc := parse(t, decomposing(t))
		p := planOK(t, doc, model.DeleteAtom{ID: "A7"}, interrupting)
		s := apply(t, doc, p)
		if len(s.Decompositions) != 1 || !slices.Equal(s.Decompositions[0].Children, []string{"A8"}) {
			t.Fatalf("decompositions %+v", s.Decompositions)
		}
		// A7 had a binding although in progress: it goes with the atom.
		if slices.Contains(bound(s), "A7") {
			t.Fatal("A7's stale binding is left behind")
		}
		checkRecorded(t, p, s, model.CorrectionDAG, `deleted A7 "Store docs" (was in_progress)`, false)
		if !strings.HasSuffix(p.Correction.Description, " (interrupted the worker on A7)") || !strings.HasSuffix(p.Summary, "(interrupted the worker on A7)") {
			t.Fatalf("description %q, summary %q: both must say the worker on A7 is interrupted", p.Correction.Description, p.Summary)
		}
		checkInterrupts(t, p, model.Interrupt{Atom: "A7", How: "deletes it", Deleted: true})
	})
	t.Run("only child", func(t *testing.T) {
		doc := parse(t, strings.Replace(decomposing(t), "children: [A7, A8]", "children: [A8]", 1))
		p := planOK(t, doc, model.DeleteAtom{ID: "A8"}, ctx)
		s := apply(t, doc, p)
		if len(s.Decompositions) != 0 {
			t.Fatalf("decompositions %+v; the record of A6 has no children left", s.Decompositions)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "decomposition of A6 removed (no children left)", false)
	})
	t.Run("decomposed parent", func(t *testing.T) {
		doc := parse(t, decomposing(t))
		p := planOK(t, doc, model.DeleteAtom{ID: "A6", Detach: true}, ctx)
		s := apply(t, doc, p)
		if len(s.Decompositions) != 0 || !slices.Equal(atom(t, s, "A9").DependsOn, []string{"A2"}) {
			t.Fatalf("decompositions %+v, A9 depends on %v", s.Decompositions, atom(t, s, "A9").DependsOn)
		}
		for _, id := range []string{"A7", "A8"} {
			atom(t, s, id) // the children stay
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "its decomposition record removed (children stay)", false)
	})
}

func TestForceOR(t *testing.T) {
	t.Run("resolved previous selection is redone with its dependents", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.ForceOR{Group: "store", Choice: "A4", Reason: "S3 has object lock now"}, ctx)
		s := apply(t, doc, p)
		g := group(t, s, "store")
		if g.Selected != "A4" || len(g.Failed) != 0 || !slices.Equal(g.Choices, []string{"A3", "A4", "A15"}) {
			t.Fatalf("store is %+v; A4 selected and no longer failed", *g)
		}
		// A3 was resolved: it and everything built on it go back to
		// pending: A5 depends on A3, A7 on A5, and A6 is A7's decomposed
		// parent (it resolved because A7 did). A8 and A1 are not built on A3.
		want := map[string]model.AtomStatus{"A1": "resolved", "A2": "in_progress", "A3": "pending", "A4": "pending", "A5": "pending",
			"A6": "pending", "A7": "pending", "A8": "resolved", "A9": "pending"}
		got := statuses(s)
		for id, st := range want {
			if got[id] != st {
				t.Errorf("%s is %s, want %s", id, got[id], st)
			}
		}
		if b := bound(s); !slices.Equal(b, []string{"A1"}) {
			t.Errorf("bindings left: %v; the redone atoms' bindings must go", b)
		}
		// A5 depended on A3 and now depends on A4.
		if d := atom(t, s, "A5").DependsOn; !slices.Equal(d, []string{"A4"}) {
			t.Errorf("A5 depends on %v, want [A4]", d)
		}
		checkRecorded(t, p, s, model.CorrectionDAG,
			"forced OR group store to A4 (was A3); A5 now depends on A4 instead of A3; A3 resolved → pending, A5 resolved → pending, A7 resolved → pending, A6 resolved → pending; reason: S3 has object lock now", false)
		checkTrailAppended(t, p, doc.State, s, "store", "A4", "S3 has object lock now")
		if !slices.Equal(p.Affected, []string{"A4", "A3", "A5", "A7", "A6"}) {
			t.Fatalf("affected %v", p.Affected)
		}
	})
	t.Run("in-progress previous selection goes back to pending", func(t *testing.T) {
		text := withStatus(t, baseState, "A3", "in_progress")
		text = withStatus(t, text, "A5", "pending")
		text = strings.Replace(text, "  A3:\n    summary: \"Postgres store\"\n    artifacts: [\"store/pg.go\"]\n", "", 1)
		doc := parse(t, text)
		p := planOK(t, doc, model.ForceOR{Group: "store", Choice: "A4"}, interrupting)
		s := apply(t, doc, p)
		got := statuses(s)
		if got["A3"] != "pending" || got["A5"] != "pending" || got["A7"] != "resolved" || got["A6"] != "resolved" {
			t.Fatalf("statuses %v; only A3 goes back to pending", got)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "forced OR group store to A4 (was A3); A5 now depends on A4 instead of A3; A3 in_progress → pending; reason: forced by user (interrupted the worker on A3)", false)
		checkInterrupts(t, p, model.Interrupt{Atom: "A3", How: "resets it to pending and makes OR group store select A4 instead of it"})
		checkTrailAppended(t, p, doc.State, s, "store", "A4", "forced by user")
	})
	t.Run("pending previous selection stays", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.ForceOR{Group: "fmt", Choice: "A11", Reason: "HTML after all"}, model.PlanContext{Now: now, Note: "per design review"})
		s := apply(t, doc, p)
		if g := group(t, s, "fmt"); g.Selected != "A11" || len(g.Failed) != 0 {
			t.Fatalf("fmt is %+v", *g)
		}
		if !reflect.DeepEqual(statuses(s), statuses(doc.State)) {
			t.Fatal("statuses changed")
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "forced OR group fmt to A11 (was A10); reason: HTML after all; note: per design review", false)
		checkTrailAppended(t, p, doc.State, s, "fmt", "A11", "HTML after all; note: per design review")
	})
	t.Run("dependents of the previous selection move to the new one", func(t *testing.T) {
		// A13 and A14 wait for the selected A10; A14 also lists A12.
		text := variant(t, "    depends_on: [A9]\n\ndecompositions", `    depends_on: [A9, A10]

  - id: A14
    description: "Publish"
    status: pending
    depends_on: [A10, A1, A12, A10]

decompositions`)
		doc := parse(t, text)
		p := planOK(t, doc, model.ForceOR{Group: "fmt", Choice: "A12"}, ctx)
		out, err := statefile.ApplyEdits(doc, p.Edits)
		if err != nil {
			t.Fatal(err)
		}
		s := apply(t, doc, p)
		// In place, in flow style (the loop's scripts read depends_on only
		// so); a list that already has A12 loses A10 instead.
		for _, want := range []string{
			"  - id: A13\n    description: \"Announce\"\n    status: pending\n    depends_on: [A9, A12]\n",
			"    depends_on: [A1, A12]\n",
			// The trail entry: the schema's four fields, in its order.
			"    timestamp: \"2026-01-01T10:00:00Z\"\n  - or_group: fmt\n    selected: A12\n    reason: \"forced by user\"\n    timestamp: \"" + stamp + "\"\n\ncorrections:",
		} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the corrected file lacks %q:\n%s", want, out)
			}
		}
		if d := atom(t, s, "A14").DependsOn; !slices.Equal(d, []string{"A1", "A12"}) {
			t.Errorf("A14 depends on %v", d)
		}
		if !reflect.DeepEqual(statuses(s), statuses(doc.State)) {
			t.Fatal("statuses changed: A10 was pending, nothing is redone")
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "forced OR group fmt to A12 (was A10); A13, A14 now depend on A12 instead of A10; reason: forced by user", false)
		checkTrailAppended(t, p, doc.State, s, "fmt", "A12", "forced by user")
		if !slices.Equal(p.Affected, []string{"A12", "A13", "A14"}) {
			t.Fatalf("affected %v", p.Affected)
		}
		// Nothing waits on the deselected A10 any more.
		f := model.Derive(s)
		if len(f.Dependents()["A10"]) != 0 {
			t.Fatalf("%v still depend on A10", f.Dependents()["A10"])
		}
	})
	t.Run("group without selection", func(t *testing.T) {
		doc := parse(t, variant(t, "    selected: A10\n", ""))
		p := planOK(t, doc, model.ForceOR{Group: "fmt", Choice: "A12"}, ctx)
		s := apply(t, doc, p)
		if g := group(t, s, "fmt"); g.Selected != "A12" {
			t.Fatalf("fmt is %+v", *g)
		}
		checkRecorded(t, p, s, model.CorrectionDAG, "(was none)", false)
	})
}

func TestChangeConstraints(t *testing.T) {
	ptr := func(n int) *int { return &n }
	doc := parse(t, baseState)
	p := planOK(t, doc, model.ChangeConstraints{MaxIterations: ptr(40), MaxParallelAgents: ptr(3), MaxStallCount: ptr(5)}, ctx)
	s := apply(t, doc, p)
	if c := s.Objective.Constraints; c.MaxIterations != 40 || c.MaxParallelAgents != 3 || c.MaxStallCount != 5 {
		t.Fatalf("constraints %+v", c)
	}
	checkRecorded(t, p, s, model.CorrectionConstraint, "max_iterations 20 → 40, max_stall_count 3 → 5", false)
	if p.Trail != nil || len(s.Trail) != len(doc.State.Trail) {
		t.Fatal("a constraint change keeps the trail as it is")
	}

	t.Run("at or below the iteration", func(t *testing.T) {
		p := planOK(t, doc, model.ChangeConstraints{MaxIterations: ptr(6)}, ctx)
		if !strings.Contains(p.Correction.Description, "iteration is already 6: the stop hook will end the loop") {
			t.Fatalf("description %q", p.Correction.Description)
		}
		// A preview shows it as a warning, not as plain text.
		if len(p.Warnings) != 1 || p.Warnings[0] != "iteration is already 6: the stop hook will end the loop" {
			t.Fatalf("warnings %q", p.Warnings)
		}
		if p := planOK(t, doc, model.ChangeConstraints{MaxIterations: ptr(7)}, ctx); len(p.Warnings) != 0 {
			t.Fatalf("a limit above the iteration warns %q", p.Warnings)
		}
	})
	t.Run("no constraints yet", func(t *testing.T) {
		doc := parse(t, variant(t, "  constraints:\n    max_iterations: 20\n    max_parallel_agents: 3\n    max_stall_count: 3\n", ""))
		p := planOK(t, doc, model.ChangeConstraints{MaxParallelAgents: ptr(1)}, ctx)
		s := apply(t, doc, p)
		c := s.Objective.Constraints
		if c.MaxIterations != model.DefaultMaxIterations || c.MaxParallelAgents != 1 || c.MaxStallCount != model.DefaultMaxStallCount {
			t.Fatalf("constraints %+v", c)
		}
		checkRecorded(t, p, s, model.CorrectionConstraint, "max_parallel_agents (default 3) → 1", false)
	})
	t.Run("one constraint missing", func(t *testing.T) {
		doc := parse(t, variant(t, "    max_stall_count: 3\n", ""))
		s := apply(t, doc, planOK(t, doc, model.ChangeConstraints{MaxStallCount: ptr(3)}, ctx))
		if c := s.Objective.Constraints; !c.Lines.Has("max_stall_count") || c.MaxStallCount != 3 {
			t.Fatalf("constraints %+v; writing the default explicitly is a change", c)
		}
	})
}

// Atom ids are taken in any case, as the TUI's ':' jump takes them, and
// written in the file's spelling; one that names no atom is refused with
// the atoms there are.
func TestIDsInAnyCase(t *testing.T) {
	doc := parse(t, baseState)
	in := model.PlanContext{Now: ctx.Now, Interrupt: true}
	s := apply(t, doc, planOK(t, doc, model.AddAtom{ID: "N1", Description: "x", DependsOn: []string{"a1", "A1", "a6"}, RequiredBy: []string{"a13"}}, in))
	if a := atom(t, s, "N1"); strings.Join(a.DependsOn, ",") != "A1,A6" {
		t.Fatalf("depends_on %v, want the file's spelling once each", a.DependsOn)
	}
	if a := atom(t, s, "A13"); !slices.Contains(a.DependsOn, "N1") {
		t.Fatalf("A13 depends on %v", a.DependsOn)
	}
	s = apply(t, doc, planOK(t, doc, model.DeleteAtom{ID: "a13"}, in))
	if _, ok := s.Atom("A13"); ok {
		t.Fatal("delete a13 kept A13")
	}
	s = apply(t, doc, planOK(t, doc, model.ForceOR{Group: "fmt", Choice: "a11"}, in))
	if g := group(t, s, "fmt"); g.Selected != "A11" {
		t.Fatalf("fmt selects %q", g.Selected)
	}
	p := planOK(t, doc, model.OverrideBinding{ID: "a1", Redo: true}, in)
	if !strings.HasPrefix(p.Correction.Description, "redo A1:") {
		t.Fatalf("description %q", p.Correction.Description)
	}
	for _, c := range []struct {
		req  model.Request
		rule string
		says string
	}{
		{model.AddAtom{ID: "a1", Description: "x"}, model.RuleDuplicateID, "atom A1 already exists"},
		{model.AddAtom{Description: "x", DependsOn: []string{"a99"}}, model.RuleUnknownAtom, "no atom a99 (atoms: A1, A2,"},
		{model.DeleteAtom{ID: "b4"}, model.RuleUnknownAtom, "no atom b4 (atoms: A1, A2,"},
	} {
		_, err := model.PlanCorrection(doc.State, c.req, in)
		var ref *model.Refusal
		if !errors.As(err, &ref) || ref.Rule != c.rule || !strings.Contains(ref.Reason, c.says) {
			t.Errorf("%s %+v: %v; want rule %q saying %q", c.req.Kind(), c.req, err, c.rule, c.says)
		}
	}
	// Two atoms whose ids differ only in case: each is found by its own
	// spelling, a third spelling names neither.
	two := parse(t, variant(t, "  - id: A12\n", "  - id: ab\n", "  - id: A13\n", "  - id: AB\n"))
	if _, err := model.PlanCorrection(two.State, model.DeleteAtom{ID: "AB"}, in); err != nil {
		t.Fatalf("delete AB: %v", err)
	}
	if _, err := model.PlanCorrection(two.State, model.DeleteAtom{ID: "Ab"}, in); err == nil || !strings.Contains(err.Error(), "no atom Ab: the ids of several differ from it only in case") {
		t.Fatalf("delete Ab: %v", err)
	}
}

func TestChangeObjective(t *testing.T) {
	str := func(s string) *string { return &s }
	doc := parse(t, baseState)
	p := planOK(t, doc, model.ChangeObjective{Goal: str("Ship the store with backups"), DefinitionOfDone: str("Every check passes"),
		Checks: []model.CheckEdit{
			{Op: "set", Path: model.ChecklistPath{0}, Value: "go test -race ./..."},
			{Op: "add", Path: model.ChecklistPath{1}, Item: "Runbook", Type: model.CheckFile, Value: "ops/runbook.md"},
			{Op: "add", Item: "Looks good", Type: model.CheckQuality, Value: "clear and short"},
		}}, ctx)
	s := apply(t, doc, p)
	o := s.Objective
	if o.Goal != "Ship the store with backups" || o.DefinitionOfDone != "Every check passes" || o.Deliverables != "A store" {
		t.Fatalf("objective %+v", o)
	}
	cl := o.BaseCase.Checklist
	if len(cl) != 3 || cl[0].Check.Value != "go test -race ./..." || len(cl[1].AnyOf) != 2 || cl[1].AnyOf[1].Check.Value != "ops/runbook.md" ||
		cl[2].Check.Type != model.CheckQuality || cl[2].Check.Criteria != "clear and short" || cl[2].Check.PassThreshold != 3 {
		t.Fatalf("checklist %+v", cl)
	}
	// Essentially a restart: the trail is cleared, and the entry says so.
	if len(s.Trail) != 0 || p.Trail != nil {
		t.Fatalf("trail %+v; an objective change clears it", s.Trail)
	}
	checkRecorded(t, p, s, model.CorrectionObjective,
		`objective changed: goal → "Ship the store with backups"; base_case item 1 → command "go test -race ./..."; base_case item "Runbook" added under 2 (file); base_case item "Looks good" added (quality)`, true)

	t.Run("remove an item, file without trail", func(t *testing.T) {
		doc := parse(t, variant(t, "trail:\n  - or_group: store\n    selected: A3\n    reason: \"Postgres first\"\n    timestamp: \"2026-01-01T09:00:00Z\"\n  - or_group: fmt\n    selected: A10\n    reason: \"Markdown is simplest\"\n    timestamp: \"2026-01-01T09:30:00Z\"\n  - type: user_correction\n    reason: \"added A13\"\n    timestamp: \"2026-01-01T10:00:00Z\"\n", ""))
		p := planOK(t, doc, model.ChangeObjective{Checks: []model.CheckEdit{{Op: "remove", Path: model.ChecklistPath{1}}}}, ctx)
		s := apply(t, doc, p)
		if cl := s.Objective.BaseCase.Checklist; len(cl) != 1 || cl[0].Item != "Tests pass" {
			t.Fatalf("checklist %+v", cl)
		}
		if !s.Lines.Has("trail") || len(s.Trail) != 0 {
			t.Fatal("the cleared trail should be written as an empty list")
		}
		checkRecorded(t, p, s, model.CorrectionObjective, `base_case item 2 ("Docs or runbook") removed`, true)
	})
	t.Run("legacy base_case", func(t *testing.T) {
		legacy := variant(t, "    checklist:\n      - item: \"Tests pass\"\n        check:\n          type: command\n          value: \"go test ./...\"\n      - item: \"Docs or runbook\"\n        any_of:\n          - item: \"Docs\"\n            check:\n              type: file\n              value: \"docs/README.md\"\n",
			"    type: command\n    value: \"go test ./...\"\n")
		doc := parse(t, legacy)
		p := planOK(t, doc, model.ChangeObjective{Checks: []model.CheckEdit{{Op: "set", Type: model.CheckFile, Value: "dist/store"}}}, ctx)
		s := apply(t, doc, p)
		if l := s.Objective.BaseCase.Legacy; l == nil || l.Type != model.CheckFile || l.Value != "dist/store" {
			t.Fatalf("base_case %+v", s.Objective.BaseCase)
		}
		if _, err := model.PlanCorrection(doc.State, model.ChangeObjective{Checks: []model.CheckEdit{{Op: "add", Item: "x", Type: model.CheckFile, Value: "y"}}}, ctx); err == nil {
			t.Fatal("adding an item to a legacy base_case should be refused")
		}
	})
}

func TestOverrideBinding(t *testing.T) {
	str := func(s string) *string { return &s }
	t.Run("amend", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.OverrideBinding{ID: "A3", Summary: str("Postgres store, partitioned"), Artifacts: []string{"store/pg.go", "store/part.go"}, SetArtifacts: true}, ctx)
		s := apply(t, doc, p)
		b, _ := s.Binding("A3")
		if b.Summary != "Postgres store, partitioned" || !slices.Equal(b.Artifacts, []string{"store/pg.go", "store/part.go"}) {
			t.Fatalf("binding %+v", *b)
		}
		checkRecorded(t, p, s, model.CorrectionBindingsFix, `amended binding of A3: summary → "Postgres store, partitioned", artifacts → [store/pg.go, store/part.go]`, false)
		if p.Trail != nil || len(s.Trail) != len(doc.State.Trail) || !reflect.DeepEqual(statuses(s), statuses(doc.State)) {
			t.Fatal("an amend changes neither the trail nor statuses")
		}
	})
	t.Run("amend creates a missing binding", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.OverrideBinding{ID: "A8", Summary: str("API docs written")}, ctx)
		s := apply(t, doc, p)
		if b, ok := s.Binding("A8"); !ok || b.Summary != "API docs written" || len(b.Artifacts) != 0 || !b.Lines.Has("artifacts") {
			t.Fatalf("binding of A8: %+v %v", b, ok)
		}
	})
	t.Run("redo", func(t *testing.T) {
		doc := parse(t, baseState)
		p := planOK(t, doc, model.OverrideBinding{ID: "A3", Redo: true}, model.PlanContext{Now: now, Note: "the schema was wrong"})
		s := apply(t, doc, p)
		want := map[string]model.AtomStatus{"A1": "resolved", "A3": "pending", "A5": "pending", "A7": "pending", "A6": "pending", "A8": "resolved", "A9": "pending"}
		got := statuses(s)
		for id, st := range want {
			if got[id] != st {
				t.Errorf("%s is %s, want %s", id, got[id], st)
			}
		}
		if b := bound(s); !slices.Equal(b, []string{"A1"}) {
			t.Errorf("bindings %v", b)
		}
		// The scope is A3 and everything built on it, A10 included (A10 ←
		// A9 ← A6): the trail entries selecting A3 and A10 go; the user
		// correction, which selects nothing, stays. Nothing is appended.
		if len(s.Trail) != 1 || s.Trail[0].Reason != "added A13" {
			t.Fatalf("trail %+v", s.Trail)
		}
		if p.Trail != nil {
			t.Fatal("a redo appends no trail entry")
		}
		checkRecorded(t, p, s, model.CorrectionBindingsFix,
			"redo A3: binding dropped; A3 resolved → pending, A5 resolved → pending, A7 resolved → pending, A6 resolved → pending; 2 trail entries of the affected scope cleared; note: the schema was wrong", true)
		if p.Summary != "redo A3 (4 atoms back to pending)" {
			t.Fatalf("summary %q", p.Summary)
		}
	})
	t.Run("redo with nothing in the trail to clear", func(t *testing.T) {
		// A8's scope is A8, its parent A6 and what depends on A6 (A9 and
		// its dependents); without the entry selecting A10 no trail
		// entry selects an atom of it.
		doc := parse(t, variant(t, "  - or_group: fmt\n    selected: A10\n    reason: \"Markdown is simplest\"\n    timestamp: \"2026-01-01T09:30:00Z\"\n", ""))
		p := planOK(t, doc, model.OverrideBinding{ID: "A8", Redo: true}, ctx)
		s := apply(t, doc, p)
		if got := statuses(s); got["A8"] != "pending" || got["A6"] != "pending" || got["A7"] != "resolved" {
			t.Fatalf("statuses %v", got)
		}
		if len(s.Trail) != 2 || !slices.Equal(p.Affected, []string{"A8", "A6"}) {
			t.Fatalf("trail %+v, affected %v", s.Trail, p.Affected)
		}
		checkRecorded(t, p, s, model.CorrectionBindingsFix, "redo A8: binding dropped; A8 resolved → pending, A6 resolved → pending", false)
	})
}

func TestStopAndRedirectFlag(t *testing.T) {
	doc := parse(t, baseState)
	p := planOK(t, doc, model.Stop{Reason: " enough for today "}, ctx)
	s := apply(t, doc, p)
	if !s.Control.StopRequested || s.Control.StopReason != "enough for today" || s.Control.Status != model.LoopRunning {
		t.Fatalf("control %+v", s.Control)
	}
	if p.Correction != nil || p.Trail != nil || len(s.Corrections) != 0 || len(s.Trail) != 3 {
		t.Fatal("a stop records no correction and no trail entry")
	}
	doc = parse(t, variant(t, "  stop_reason: null\n", ""))
	if s := apply(t, doc, planOK(t, doc, model.Stop{}, ctx)); !s.Control.StopRequested || s.Control.StopReason != "Stopped by user" {
		t.Fatalf("control %+v; the default reason is added", s.Control)
	}
	// A pending loop (not started yet) can be stopped too.
	planOK(t, parse(t, variant(t, "  status: running", "  status: pending")), model.Stop{}, ctx)

	for _, want := range []bool{true, false} {
		text := baseState
		if !want {
			text = variant(t, "redirect_requested: false", "redirect_requested: true")
		}
		doc := parse(t, text)
		p := planOK(t, doc, model.SetRedirect{Requested: want}, ctx)
		if s := apply(t, doc, p); s.Control.RedirectRequested != want || p.Correction != nil || len(s.Corrections) != 0 {
			t.Fatalf("redirect_requested %v, want %v", s.Control.RedirectRequested, want)
		}
	}
	// A missing flag is added even when false.
	doc = parse(t, variant(t, "  redirect_requested: false\n", ""))
	if s := apply(t, doc, planOK(t, doc, model.SetRedirect{Requested: false}, ctx)); !s.Control.Lines.Has("redirect_requested") {
		t.Fatal("the flag was not written")
	}
}

// Every correction that records one writes the same four fields, stamped
// with PlanContext.Now in UTC; a zero Now means the current time.
func TestCorrectionEntryFields(t *testing.T) {
	str := func(s string) *string { return &s }
	ptr := func(n int) *int { return &n }
	for _, req := range []model.Request{
		model.AddAtom{Description: "x"},
		model.DeleteAtom{ID: "A13"},
		model.ForceOR{Group: "fmt", Choice: "A12"},
		model.ChangeConstraints{MaxIterations: ptr(9)},
		model.ChangeObjective{Goal: str("g")},
		model.OverrideBinding{ID: "A1", Summary: str("s")},
	} {
		doc := parse(t, baseState)
		p := planOK(t, doc, req, model.PlanContext{Now: now, Note: "n"})
		c := p.Correction
		if c == nil || c.Timestamp != stamp || !c.Type.Known() || !strings.HasSuffix(c.Description, "; note: n") {
			t.Fatalf("%s: correction %+v", req.Kind(), c)
		}
		// Only a change of OR selection writes a trail entry.
		if (p.Trail != nil) != (req.Kind() == "force-or") {
			t.Fatalf("%s: trail entry %+v", req.Kind(), p.Trail)
		}
		if tr := p.Trail; tr != nil && (tr.Type != "" || tr.ORGroup == "" || tr.Selected == "" || tr.Timestamp != stamp || !strings.HasSuffix(tr.Reason, "; note: n")) {
			t.Fatalf("%s: trail entry %+v", req.Kind(), *tr)
		}
		out, err := statefile.ApplyEdits(doc, p.Edits)
		if err != nil {
			t.Fatal(err)
		}
		entry := "  - timestamp: \"" + stamp + "\"\n    type: " + string(c.Type) + "\n    description: "
		if !strings.Contains(string(out), entry) || strings.Count(string(out), "    trail_cleared: ") != 1 {
			t.Fatalf("%s: the corrections[] entry is not written with its four fields:\n%s", req.Kind(), out)
		}
	}
	before := time.Now().UTC().Truncate(time.Second)
	p := planOK(t, parse(t, baseState), model.AddAtom{Description: "x"}, model.PlanContext{})
	ts, err := time.Parse(time.RFC3339, p.Correction.Timestamp)
	if err != nil || !strings.HasSuffix(p.Correction.Timestamp, "Z") || ts.Before(before) || ts.After(time.Now().Add(time.Second)) {
		t.Fatalf("a zero Now should stamp the current UTC time, got %q", p.Correction.Timestamp)
	}
}
