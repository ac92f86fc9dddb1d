package model_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// The undo's tests: a correction planned on baseState and written, then
// what the loop (or someone) wrote since, then the undo planned on that.
// TestUndoProperty (statefile) checks over random states and corrections
// that an undo planned right after its correction restores the model.

var later = model.PlanContext{Now: now.Add(time.Hour)}

// corrected plans req on text and returns the versions before and after.
func corrected(t *testing.T, text string, req model.Request, c model.PlanContext) (before, after *statefile.Document) {
	t.Helper()
	before = parse(t, text)
	p := planOK(t, before, req, c)
	out, err := statefile.ApplyEdits(before, p.Edits)
	if err != nil {
		t.Fatal(err)
	}
	return before, parse(t, string(out))
}

// inverse is the undo of the correction between before and after.
func inverse(t *testing.T, before, after *statefile.Document) *model.Undo {
	t.Helper()
	u, err := model.Inverse(before.State, after.State)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// loopEdit rewrites one line of text (as the loop's line-based scripts
// do) and fails when the line is not there.
func loopEdit(t *testing.T, text string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(text, pairs[i]) {
			t.Fatalf("no %q in the file", pairs[i])
		}
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	return text
}

func text(d *statefile.Document) string { return string(d.Data) }

const laterStamp = "2026-03-01T14:30:00Z"

// checkUndoEntry checks the undo's corrections[] entry: the type of the
// correction undone, trail_cleared false, the description, last in the
// file.
func checkUndoEntry(t *testing.T, p *model.Plan, s *model.State, typ model.CorrectionType, desc string) {
	t.Helper()
	c := p.Correction
	if c == nil || c.Timestamp != laterStamp || c.Type != typ || c.TrailCleared || c.Description != desc {
		t.Fatalf("the undo's entry is %+v\nwant %s at %s: %s", c, typ, laterStamp, desc)
	}
	last := s.Corrections[len(s.Corrections)-1]
	if last.Timestamp != c.Timestamp || last.Type != c.Type || last.Description != c.Description || last.TrailCleared {
		t.Fatalf("corrections[] ends with %+v, the plan says %+v", last, *c)
	}
}

func TestUndoAfterLoopWrites(t *testing.T) {
	before, after := corrected(t, baseState, model.AddAtom{Description: "Changelog", DependsOn: []string{"A6"}, RequiredBy: []string{"A13"}}, ctx)
	u := inverse(t, before, after)
	// The loop moves on: the stop hook counts the iteration, a worker
	// resolves A2, add_binding.py records it, another atom is added.
	loop := loopEdit(t, text(after), "  iteration: 6", "  iteration: 7", "    description: \"Client\"\n    status: in_progress", "    description: \"Client\"\n    status: resolved",
		"bindings:\n", "bindings:\n  A2:\n    summary: \"Client done\"\n    artifacts: []\n")
	doc := parse(t, loop)
	p := planOK(t, doc, u, later)
	s := apply(t, doc, p)
	if _, ok := s.Atom("A16"); ok {
		t.Fatal("A16 is still there")
	}
	if a13 := atom(t, s, "A13"); strings.Join(a13.DependsOn, ",") != "A9" {
		t.Fatalf("A13 depends on %v", a13.DependsOn)
	}
	if atom(t, s, "A2").Status != model.StatusResolved || s.Control.Iteration != 7 {
		t.Fatal("the loop's writes are lost")
	}
	if _, ok := s.Binding("A2"); !ok {
		t.Fatal("the loop's binding is lost")
	}
	checkUndoEntry(t, p, s, model.CorrectionDAG, `undo of the dag_adjustment of 2026-03-01T13:30:00Z ("added A16 \"Changelog\" depending on A6"): A16 removed; A13 depends_on: without A16`)
	if p.Summary != `undid added A16 "Changelog" depending on A6` {
		t.Fatalf("summary %q", p.Summary)
	}
}

func TestUndoRefusals(t *testing.T) {
	addA16 := model.AddAtom{Description: "Changelog", DependsOn: []string{"A6"}}
	maxIters := 40
	for _, c := range []struct {
		name string
		req  model.Request
		rc   model.PlanContext
		// since rewrites the corrected file as the loop (or someone)
		// did after the correction.
		since func(t *testing.T, s string) string
		rule  string
		want  string
	}{
		{"added atom now in progress", addA16, ctx, func(t *testing.T, s string) string {
			return withStatus(t, s, "A16", "in_progress")
		}, model.RuleUndo, "A16, which the correction added, is in progress now: the loop started it (a worker is on it)"},
		{"added atom now resolved", addA16, ctx, func(t *testing.T, s string) string {
			return withStatus(t, s, "A16", "resolved")
		}, model.RuleUndo, "A16, which the correction added, is resolved now: the loop did it"},
		{"added atom depended on since", addA16, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "    description: \"Announce\"\n    status: pending\n    depends_on: [A9]", "    description: \"Announce\"\n    status: pending\n    depends_on: [A9, A16]")
		}, model.RuleUndo, "A13 depends on A16 now (a change since the correction); delete or detach it first"},
		{"added atom decomposed by the loop", addA16, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "decompositions:\n", "decompositions:\n  - parent: A16\n    children: [A13]\n    reason: \"split\"\n")
		}, model.RuleUndo, "A16 is in the decomposition of A16 now: the loop decomposed it"},
		{"deleted atom's id reused", model.DeleteAtom{ID: "A13"}, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "\ndecompositions:", "\n  - id: A13\n    description: \"Something else\"\n    status: pending\n    depends_on: []\n\ndecompositions:")
		}, model.RuleUndo, `the id A13 was reused: the file has A13 "Something else" now, not the deleted "Announce"`},
		{"OR group switched by the loop", model.ForceOR{Group: "fmt", Choice: "A12"}, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "    selected: A12", "    selected: A11")
		}, model.RuleUndo, "OR group fmt selects A11 now, not A12: it was switched since the correction"},
		{"redone atom in progress again", model.OverrideBinding{ID: "A5", Redo: true}, ctx, func(t *testing.T, s string) string {
			return withStatus(t, s, "A5", "in_progress")
		}, model.RuleUndo, "A5 is in progress again: the loop is redoing it (a worker is on it)"},
		{"redone atom resolved again", model.OverrideBinding{ID: "A5", Redo: true}, ctx, func(t *testing.T, s string) string {
			return withStatus(t, s, "A5", "resolved")
		}, model.RuleUndo, "A5 was resolved again since the correction: the loop redid it"},
		{"constraint changed again", model.ChangeConstraints{MaxIterations: &maxIters}, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "max_iterations: 40", "max_iterations: 50")
		}, model.RuleUndo, "max_iterations is 50 now, not the 40 the correction set: it changed since"},
		{"goal changed again", model.ChangeObjective{Goal: strp("Ship the store, fast")}, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, `goal: "Ship the store, fast"`, `goal: "Ship it"`)
		}, model.RuleUndo, "objective.goal changed since the correction"},
		{"stop acted on", model.Stop{Reason: "enough"}, ctx, func(t *testing.T, s string) string {
			return loopEdit(t, s, "  status: running", "  status: stopped")
		}, model.RuleUndo, "the loop has already stopped: its stop hook acted on the stop (a stopped loop is resumed with /enter-recursion)"},
		{"nothing left to undo", addA16, ctx, func(t *testing.T, s string) string {
			i := strings.Index(s, "  - id: A16\n")
			j := strings.Index(s, "decompositions:")
			return s[:i] + s[j:]
		}, model.RuleNoChange, `nothing to undo: the file already is as it was before the dag_adjustment of 2026-03-01T13:30:00Z ("added A16 \"Changelog\" depending on A6")`},
		// A choice the loop started since: the undo moves the selection
		// away from it, which interrupts its worker (asked for, as any
		// correction that does).
		{"selection moved off an atom in progress", model.ForceOR{Group: "fmt", Choice: "A12"}, ctx, func(t *testing.T, s string) string {
			return withStatus(t, s, "A12", "in_progress")
		}, model.RuleInProgress, "A12 is in progress (a worker is on it): this correction makes OR group fmt select A10 instead of it; the worker's result would overwrite it. Add --interrupt to do it anyway"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, after := corrected(t, baseState, c.req, c.rc)
			u := inverse(t, before, after)
			doc := parse(t, c.since(t, text(after)))
			_, err := model.PlanCorrection(doc.State, u, later)
			var ref *model.Refusal
			if !errors.As(err, &ref) || ref.Rule != c.rule || ref.Reason != c.want {
				t.Fatalf("got %v\nwant %q (rule %q)", err, c.want, c.rule)
			}
		})
	}
}

func strp(s string) *string { return &s }

// A deleted atom comes back with its fields, its dependents' edges, its
// place among the OR group's choices and its selection (recorded in the
// trail), and its decomposition; in progress when deleted, it comes back
// pending (its worker was interrupted).
func TestUndoDeleteOfASelectedChoice(t *testing.T) {
	text := variant(t, "    or_group: fmt\n\n  - id: A11", "    or_group: fmt\n    owner: \"sam\"\n\n  - id: A11",
		"    description: \"Announce\"\n    status: pending\n    depends_on: [A9]", "    description: \"Announce\"\n    status: pending\n    depends_on: [A9, A10]")
	text = withStatus(t, text, "A10", "in_progress")
	before, after := corrected(t, text, model.DeleteAtom{ID: "A10", Detach: true}, interrupting)
	if g := group(t, after.State, "fmt"); g.Selected != "A12" {
		t.Fatalf("the delete selected %s", g.Selected)
	}
	u := inverse(t, before, after)
	p := planOK(t, after, u, later)
	s := apply(t, after, p)
	a := atom(t, s, "A10")
	if a.Status != model.StatusPending || a.Description != "Markdown notes" || a.ORGroup != "fmt" || strings.Join(a.DependsOn, ",") != "A9" {
		t.Fatalf("A10 came back as %+v", a)
	}
	if v, ok := a.Extra.Get("owner"); !ok || v != "sam" {
		t.Fatalf("A10 came back without its unknown field: %+v", a.Extra)
	}
	if d := atom(t, s, "A13").DependsOn; strings.Join(d, ",") != "A9,A10" {
		t.Fatalf("A13 depends on %v", d)
	}
	g := group(t, s, "fmt")
	if g.Selected != "A10" || strings.Join(g.Choices, ",") != "A11,A12,A10" {
		t.Fatalf("fmt is %+v", g)
	}
	if tr := p.Trail; tr == nil || len(p.Trails) != 1 || tr.ORGroup != "fmt" || tr.Selected != "A10" || tr.Timestamp != laterStamp ||
		tr.Reason != "undo: A10 selected again, as before the correction of 2026-03-01T13:30:00Z" {
		t.Fatalf("trail entries %+v", p.Trails)
	}
	if last := s.Trail[len(s.Trail)-1]; last.Selected != "A10" || len(s.Trail) != len(after.State.Trail)+1 {
		t.Fatalf("the file's trail ends with %+v", last)
	}
	if !strings.Contains(p.Correction.Description, "A10 comes back pending: its worker was interrupted") {
		t.Fatalf("%q", p.Correction.Description)
	}
}

// An objective change clears the trail; its undo puts the objective and
// the trail back (with what was appended since after it), and records an
// objective_change that clears nothing.
func TestUndoObjectiveChange(t *testing.T) {
	before, after := corrected(t, baseState, model.ChangeObjective{Goal: strp("Ship it"),
		Checks: []model.CheckEdit{{Op: "set", Path: model.ChecklistPath{1, 0}, Type: model.CheckCommand, Value: "test -s docs/README.md"},
			{Op: "remove", Path: model.ChecklistPath{0}}}}, ctx)
	if len(after.State.Trail) != 0 {
		t.Fatal("the change did not clear the trail")
	}
	u := inverse(t, before, after)
	// switch_or_branch.py records a selection since.
	loop := loopEdit(t, text(after), "trail: []", "trail:\n  - or_group: fmt\n    selected: A12\n    reason: \"HTML failed\"\n    timestamp: \"2026-03-01T15:00:00Z\"")
	doc := parse(t, loop)
	p := planOK(t, doc, u, later)
	s := apply(t, doc, p)
	if s.Objective.Goal != "Ship the store" || baseCase(s) != baseCase(before.State) {
		t.Fatalf("objective %q / %s", s.Objective.Goal, baseCase(s))
	}
	var sel []string
	for _, e := range s.Trail {
		sel = append(sel, e.Selected+"@"+e.Timestamp)
	}
	if strings.Join(sel, " ") != "A3@2026-01-01T09:00:00Z A10@2026-01-01T09:30:00Z @2026-01-01T10:00:00Z A12@2026-03-01T15:00:00Z" {
		t.Fatalf("trail %v", sel)
	}
	checkUndoEntry(t, p, s, model.CorrectionObjective, `undo of the objective_change of 2026-03-01T13:30:00Z ("objective changed: goal → \"Ship it\""): goal → "Ship the store"; base_case as it was; 3 trail entries back`)
}

func baseCase(s *model.State) string {
	var b strings.Builder
	var walk func([]model.ChecklistItem)
	walk = func(items []model.ChecklistItem) {
		for _, it := range items {
			b.WriteString(it.Item + "{")
			if it.Check != nil {
				b.WriteString(string(it.Check.Type) + " " + it.Check.Value)
			}
			walk(it.Group)
			walk(it.AnyOf)
			b.WriteString("}")
		}
	}
	walk(s.Objective.BaseCase.Checklist)
	return b.String()
}

// A force-OR whose dropped choice was resolved redoes it and its
// dependents; the undo selects it again, resolves them again with their
// bindings and rewires the dependents back. A dependent the loop resolved
// since on the new choice cannot go back: refused.
func TestUndoForceORRedo(t *testing.T) {
	before, after := corrected(t, baseState, model.ForceOR{Group: "store", Choice: "A4", Reason: "S3 is cheaper"}, ctx)
	u := inverse(t, before, after)
	p := planOK(t, after, u, later)
	s := apply(t, after, p)
	for _, id := range []string{"A3", "A5"} {
		if atom(t, s, id).Status != model.StatusResolved {
			t.Fatalf("%s is %s", id, atom(t, s, id).Status)
		}
		if _, ok := s.Binding(id); !ok {
			t.Fatalf("%s has no binding", id)
		}
	}
	if g := group(t, s, "store"); g.Selected != "A3" || strings.Join(g.Failed, ",") != "A4" {
		t.Fatalf("store is %+v", g)
	}
	if d := atom(t, s, "A5").DependsOn; strings.Join(d, ",") != "A3" {
		t.Fatalf("A5 depends on %v", d)
	}
	// A13, pending and moved onto A4, resolved since: it cannot depend on
	// A3 again.
	before, after = corrected(t, variant(t, "    description: \"Announce\"\n    status: pending\n    depends_on: [A9]",
		"    description: \"Announce\"\n    status: pending\n    depends_on: [A9, A3]"), model.ForceOR{Group: "store", Choice: "A4"}, ctx)
	u = inverse(t, before, after)
	doc := parse(t, withStatus(t, text(after), "A13", "resolved"))
	_, err := model.PlanCorrection(doc.State, u, later)
	var ref *model.Refusal
	if !errors.As(err, &ref) || ref.Reason != "A13 was resolved since the correction without A3; a resolved atom does not gain a dependency" {
		t.Fatalf("%v", err)
	}
}

// A stop is taken back while the stop hook has not acted on it; it
// records no entry, as the stop records none; undoing that asks for the
// stop again.
func TestUndoStop(t *testing.T) {
	before, after := corrected(t, baseState, model.Stop{Reason: "enough"}, ctx)
	u := inverse(t, before, after)
	if u.Of != nil || u.What() != "stop" {
		t.Fatalf("%+v", u)
	}
	p := planOK(t, after, u, later)
	s := apply(t, after, p)
	if s.Control.StopRequested || s.Control.StopReason != "" || p.Correction != nil || p.Summary != "stop request withdrawn" {
		t.Fatalf("%+v / %+v", s.Control, p)
	}
	if !model.MarkOf(after.State, u, p).In(s) || model.MarkOf(after.State, u, p).In(after.State) {
		t.Fatal("the mark of a withdrawn stop")
	}
	out, _ := statefile.ApplyEdits(after, p.Edits)
	again := inverse(t, after, parse(t, string(out)))
	p2 := planOK(t, parse(t, string(out)), again, later)
	if s2 := apply(t, parse(t, string(out)), p2); !s2.Control.StopRequested || s2.Control.StopReason != "enough" {
		t.Fatalf("%+v", s2.Control)
	}
}

func TestInverseNeedsOneCorrection(t *testing.T) {
	doc := parse(t, baseState)
	if _, err := model.Inverse(doc.State, doc.State); err == nil {
		t.Fatal("an inverse of no correction")
	}
	_, one := corrected(t, baseState, model.AddAtom{Description: "x"}, ctx)
	_, two := corrected(t, text(one), model.AddAtom{Description: "y"}, later)
	_, err := model.Inverse(doc.State, two.State)
	var ref *model.Refusal
	if !errors.As(err, &ref) || ref.Reason != "the versions hold 2 corrections, not one: undo them one at a time" {
		t.Fatalf("%v", err)
	}
}
