package statefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// brokenFile writes rich.md with each old → new replacement made and
// returns its path and bytes; it fails unless every replacement applied.
func brokenFile(t *testing.T, pairs ...string) (string, []byte) {
	t.Helper()
	path, data := stateFile(t, 0o644)
	for i := 0; i < len(pairs); i += 2 {
		if !bytes.Contains(data, []byte(pairs[i])) {
			t.Fatalf("fixture: %q is not in rich.md", pairs[i])
		}
		data = bytes.Replace(data, []byte(pairs[i]), []byte(pairs[i+1]), 1)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// cycle makes A2 depend on A8, which depends on A7, which depends on A2.
var cycle = []string{"    depends_on: [A1]\n  - id: A3", "    depends_on: [A8]\n  - id: A3"}

// A correction on a file that fails validation is refused, whatever it
// is, unless it removes an error: the refusal names the first error with
// its line and says how to see them all, and the file is not touched.
func TestWritePolicyRefusesInvalidFiles(t *testing.T) {
	iters := 30
	for _, c := range []struct {
		name  string
		pairs []string
		req   model.Request
		first string
	}{
		{"a cycle, add-atom", cycle, addAtom, "(line 69: circular dependency: A2 -> A8 -> A7 -> A2)"},
		{"a cycle, constraints", cycle, model.ChangeConstraints{MaxIterations: &iters}, "line 69: circular dependency"},
		{"duplicate ids", []string{"  - id: A8\n", "  - id: A7\n"}, addAtom, "(line 95: duplicate atom id A7 (first defined on line 91))"},
		{"no atoms", []string{"atoms:\n  - id: A1", "atoms: []\nold_atoms:\n  - id: A1"}, model.ChangeConstraints{MaxIterations: &iters}, "no atoms defined"},
		{"a missing objective", []string{"objective:\n", "old_objective:\n"}, addAtom, "(missing required section: objective)"},
		{"a type error", []string{"iteration: 7", "iteration: seven"}, addAtom, "line 58: control.iteration should be an integer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, before := brokenFile(t, c.pairs...)
			res, err := Update(path, UpdateOptions{}, planOf(c.req))
			var ref *model.Refusal
			if !errors.As(err, &ref) || ref.Rule != model.RuleFileProblems {
				t.Fatalf("err %v; want a refusal by rule %q", err, model.RuleFileProblems)
			}
			msg := err.Error()
			for _, want := range []string{path + " fails validation", c.first, "aot-tui validate -f " + path, "nothing was written"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("the refusal is not one line: %q", msg)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) || res.Wrote {
				t.Fatal("the invalid file was written")
			}
			onlyFiles(t, filepath.Dir(path), "aot-loop-state.md")
		})
	}
}

// A correction that removes an error is written on an invalid file: the
// errors after it are a strict subset of those before.
func TestWritePolicyLetsRepairsThrough(t *testing.T) {
	t.Run("deleting the atom in a cycle", func(t *testing.T) {
		path, _ := brokenFile(t, cycle...)
		res, err := Update(path, UpdateOptions{}, planOf(model.DeleteAtom{ID: "A8", Detach: true}))
		if err != nil {
			t.Fatal(err)
		}
		if v := model.Validate(res.NewDoc.State); !v.Valid {
			t.Fatalf("still invalid: %v", v.Errors)
		}
	})
	t.Run("one of two errors", func(t *testing.T) {
		// The duplicate id stays, the cycle goes (A2 depends on A1 again).
		path, _ := brokenFile(t, append([]string{"  - id: A5\n", "  - id: A3\n    description: twice\n    status: pending\n    depends_on: []\n  - id: A5\n"}, cycle...)...)
		doc, _ := Load(path, 0)
		if v := model.Validate(doc.State); len(v.Errors) != 2 {
			t.Fatalf("fixture: %v", v.Errors)
		}
		edits := []model.Edit{model.Replace(model.P("atoms", 1, "depends_on", 0), "A1")}
		res, err := Update(path, UpdateOptions{}, func(*Document) (*model.Plan, error) { return &model.Plan{Edits: edits}, nil })
		if err != nil {
			t.Fatal(err)
		}
		if v := model.Validate(res.NewDoc.State); len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "duplicate atom id A3") {
			t.Fatalf("errors after: %v", v.Errors)
		}
	})
	t.Run("a type error set right", func(t *testing.T) {
		path, _ := brokenFile(t, "max_iterations: 20", "max_iterations: many")
		iters := 30
		res, err := Update(path, UpdateOptions{}, planOf(model.ChangeConstraints{MaxIterations: &iters}))
		if err != nil {
			t.Fatal(err)
		}
		if v := model.Validate(res.NewDoc.State); !v.Valid || res.NewDoc.State.Objective.Constraints.MaxIterations != 30 {
			t.Fatalf("after: %v, max_iterations %d", v.Errors, res.NewDoc.State.Objective.Constraints.MaxIterations)
		}
	})
}

// A stop, and the /redirect handshake flag (set and cleared), are written
// on any file that parses: stopping a broken loop is what a person needs
// most, and a flag that could not clear would pause the loop for good.
func TestWritePolicyStopAndFlagAlwaysWrite(t *testing.T) {
	for name, pairs := range map[string][]string{
		"a cycle":      cycle,
		"a type error": {"iteration: 7", "iteration: seven"},
		"no objective": {"objective:\n", "old_objective:\n"},
	} {
		t.Run(name, func(t *testing.T) {
			path, _ := brokenFile(t, pairs...)
			res, err := Update(path, UpdateOptions{}, planOf(model.SetRedirect{Requested: false}))
			if err != nil || !res.Wrote || res.NewDoc.State.Control.RedirectRequested {
				t.Fatalf("clearing the flag: %v", err)
			}
			res, err = Update(path, UpdateOptions{}, planOf(model.SetRedirect{Requested: true}))
			if err != nil || !res.Wrote || !res.NewDoc.State.Control.RedirectRequested {
				t.Fatalf("setting the flag: %v", err)
			}
			res, err = Update(path, UpdateOptions{}, planOf(model.Stop{Reason: "broken"}))
			if err != nil || !res.Wrote {
				t.Fatalf("stop: %v", err)
			}
			c := res.NewDoc.State.Control
			if !c.StopRequested || c.StopReason != "broken" {
				t.Fatalf("control after the stop: %+v", c)
			}
		})
	}
}

// A correction whose text is YAML aot-tui does not rewrite (corrections:
// an alias) is a refusal naming the file and the line, not an I/O error.
func TestWritePolicyAliasIsARefusal(t *testing.T) {
	path, before := brokenFile(t,
		"corrections:\n  - timestamp",
		"old_corrections: &old []\ncorrections: *old\nolder_corrections:\n  - timestamp")
	_, err := Update(path, UpdateOptions{}, planOf(addAtom))
	var ref *model.Refusal
	if !errors.As(err, &ref) || ref.Rule != RuleEditable || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "is an alias") || !strings.Contains(err.Error(), "(line ") {
		t.Fatalf("err %v; want a refusal naming the file, the alias and the line", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("the file was written")
	}
}
