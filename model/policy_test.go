package model_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// WritePolicy on states alone: a correction never adds an error; on a
// file with errors it is written only when it removes one, or when the
// plan is written on any file (a stop, the handshake flag).
func TestWritePolicy(t *testing.T) {
	const path = ".claude/aot-loop-state.md"
	state := func(pairs ...string) *model.State {
		t.Helper()
		return parse(t, variant(t, pairs...)).State
	}
	// A1 depends on A2, which depends on A1; a duplicate A12 besides.
	cycle := []string{"    depends_on: []\n\n  - id: A2", "    depends_on: [A2]\n\n  - id: A2"}
	dup := []string{"  - id: A13", "  - id: A12"}
	more := []string{"max_iterations: 20", "max_iterations: 30"}
	// Three lines more above the atoms: every error's line moves.
	moved := []string{"  deliverables: \"A store\"", "  deliverables: \"A store\"\n  # one\n  # two\n  # three"}
	valid := parse(t, baseState).State
	for _, st := range []*model.State{state(cycle...), state(dup...)} {
		if model.Validate(st).Valid {
			t.Fatal("fixture: the broken state is valid")
		}
	}
	cases := []struct {
		name          string
		before, after *model.State
		anyFile       bool
		rule          string // "" for nil
		says          []string
	}{
		{"valid to valid", valid, state(more...), false, "", nil},
		{"an error added", valid, state(cycle...), false, model.RuleStaysValid,
			[]string{"the correction would make " + path + " invalid: line ", "circular dependency", "; nothing was written"}},
		{"an error added, even on any file", valid, state(cycle...), true, model.RuleStaysValid, nil},
		{"an invalid file", state(cycle...), state(append(cycle, more...)...), false, model.RuleFileProblems,
			[]string{path + " fails validation (line ", "circular dependency", "only when it removes an error", "aot-tui validate -f " + path, "nothing was written"}},
		// "duplicate atom id A12 (first defined on line …)": the line it
		// names moves, the error stays the same.
		{"an invalid file, its errors' lines moved", state(dup...), state(append(dup, moved...)...), false, model.RuleFileProblems,
			[]string{"duplicate atom id A12 (first defined on line "}},
		{"several errors, the first named", state(append(cycle, dup...)...), state(append(append(cycle, dup...), more...)...), false, model.RuleFileProblems,
			[]string{"circular dependency: A1 -> A2 -> A1 and " + strconv.Itoa(len(model.Validate(state(append(cycle, dup...)...)).Errors)-1) + " more)"}},
		{"an invalid file, on any file", state(cycle...), state(append(cycle, more...)...), true, "", nil},
		{"one of two errors removed", state(append(cycle, dup...)...), state(dup...), false, "", nil},
		{"the only error removed", state(cycle...), valid, false, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := model.WritePolicy(path, c.before, c.after, c.anyFile)
			if c.rule == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ref *model.Refusal
			if !errors.As(err, &ref) || ref.Rule != c.rule {
				t.Fatalf("err %v; want a refusal by rule %q", err, c.rule)
			}
			for _, w := range c.says {
				if !strings.Contains(ref.Reason, w) {
					t.Errorf("%q does not say %q", ref.Reason, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
		})
	}
}

// The exemption comes from the plan: a stop and the handshake flag are
// written on any file, every correction that records an entry is not.
func TestAnyFileComesFromThePlan(t *testing.T) {
	str := func(s string) *string { return &s }
	iters := 30
	for _, c := range []struct {
		req  model.Request
		want bool
	}{
		{model.AddAtom{Description: "x", DependsOn: []string{"A1"}}, false},
		{model.DeleteAtom{ID: "A10", Detach: true}, false},
		{model.ForceOR{Group: "store", Choice: "A4"}, false},
		{model.ChangeConstraints{MaxIterations: &iters}, false},
		{model.ChangeObjective{Goal: str("new")}, false},
		{model.OverrideBinding{ID: "A3", Redo: true}, false},
		{model.Stop{Reason: "x"}, true},
		{model.SetRedirect{Requested: true}, true},
	} {
		if p := planOK(t, parse(t, baseState), c.req, interrupting); p.AnyFile != c.want {
			t.Errorf("%s: AnyFile %v, want %v", c.req.Kind(), p.AnyFile, c.want)
		}
	}
}
