package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// recordedTo is the journal the command line records the state file at
// path to (in the tests' journal directory).
func recordedTo(path string) string {
	j, _ := journalFiles(path)
	return j
}

// journaled is loopFixture with its journal (as the TUI leaves one),
// holding the fixture's version.
func journaled(t *testing.T) string {
	t.Helper()
	path := loopFixture(t)
	data, _ := os.ReadFile(path)
	j, err := history.OpenJournal(recordedTo(path), history.JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(history.Version{At: time.Now(), Data: data}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	return path
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
	}
	return out
}

func stateOf(t *testing.T, path string) *model.State {
	t.Helper()
	doc, err := statefile.Load(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return doc.State
}

// loopEdits rewrites the file as the loop's line-based writers do.
func loopEdits(t *testing.T, path string, pairs ...string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	s := string(data)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("no %q in the file", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A correction made from the command line, the loop's writes after it,
// then redirect undo: the correction is undone on what the loop wrote,
// with an entry of its own; undoing the undo puts it back.
func TestRedirectUndo(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	path := journaled(t)
	mustCLI(t, "redirect", "add-atom", "Write the runbook", "--depends-on", "A2", "--required-by", "A8", "--guard", "0", "-f", path)
	loopEdits(t, path, "  iteration: 7", "  iteration: 8",
		"    description: \"Payment client with retries\"\n    status: pending", "    description: \"Payment client with retries\"\n    status: in_progress")
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:05:00Z")
	out := mustCLI(t, "redirect", "undo", "--guard", "0", "-f", path)
	if out != "dag_adjustment: undid added A9 \"Write the runbook\" depending on A2 — recorded in corrections ("+path+")\n" {
		t.Fatalf("output %q", out)
	}
	st := stateOf(t, path)
	if _, ok := st.Atom("A9"); ok {
		t.Fatal("A9 is still there")
	}
	a2, _ := st.Atom("A2")
	a8, _ := st.Atom("A8")
	if st.Control.Iteration != 8 || a2.Status != model.StatusInProgress || strings.Join(a8.DependsOn, ",") != "A7" {
		t.Fatalf("iteration %d, A2 %s, A8 depends on %v", st.Control.Iteration, a2.Status, a8.DependsOn)
	}
	last := st.Corrections[len(st.Corrections)-1]
	if last.Timestamp != "2026-01-01T12:05:00Z" || last.Type != model.CorrectionDAG || last.TrailCleared ||
		last.Description != `undo of the dag_adjustment of 2026-01-01T12:00:00Z ("added A9 \"Write the runbook\" depending on A2"): A9 removed; A8 depends_on: without A9` {
		t.Fatalf("the undo's entry: %+v", last)
	}
	// The undo is the last entry now: undoing it puts A9 back.
	var j struct {
		Written bool `json:"written"`
		Plan    struct {
			Kind string `json:"kind"`
		} `json:"plan"`
		Correction map[string]any `json:"correction"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "redirect", "undo", "--json", "--guard", "0", "-f", path)), &j); err != nil {
		t.Fatal(err)
	}
	if !j.Written || j.Plan.Kind != "undo" || j.Correction["type"] != "dag_adjustment" {
		t.Fatalf("--json: %+v", j)
	}
	if a9, ok := stateOf(t, path).Atom("A9"); !ok || a9.Description != "Write the runbook" {
		t.Fatal("A9 is not back")
	}
	// --index names an entry: the add-atom (the fixture has two entries
	// before it) is undone again.
	mustCLI(t, "redirect", "undo", "--index", "3", "--guard", "0", "-f", path)
	if _, ok := stateOf(t, path).Atom("A9"); ok {
		t.Fatal("A9 is back after undoing the add-atom again")
	}
}

func TestRedirectUndoRefusals(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	for _, c := range []struct {
		name string
		// before runs the correction and the loop's writes.
		before func(t *testing.T, path string)
		args   []string
		want   string
	}{
		{"no journal", func(t *testing.T, path string) {
			os.Remove(recordedTo(path))
			mustCLI(t, "redirect", "constraints", "--max-iterations", "30", "--guard", "0", "--no-journal", "-f", path)
		}, nil, `refused: the constraint_change of 2026-01-01T12:00:00Z ("max_iterations 20 → 30") cannot be undone from the command line: no journal of its versions`},
		{"not recorded", func(t *testing.T, path string) {
			mustCLI(t, "redirect", "constraints", "--max-iterations", "30", "--guard", "0", "--no-journal", "-f", path)
		}, nil, `refused: the constraint_change of 2026-01-01T12:00:00Z ("max_iterations 20 → 30") cannot be undone from the command line: the journal holds no version with it`},
		{"the loop started the atom", func(t *testing.T, path string) {
			mustCLI(t, "redirect", "add-atom", "Write the runbook", "--guard", "0", "-f", path)
			loopEdits(t, path, "    description: \"Write the runbook\"\n    status: pending", "    description: \"Write the runbook\"\n    status: in_progress")
		}, nil, "refused: A9, which the correction added, is in progress now: the loop started it (a worker is on it) (rule: " + model.RuleUndo + ")"},
		// The journal missed the version the correction was planned on:
		// the loop resolved A4 and add_binding.py recorded it in between.
		{"journal without the version planned on", func(t *testing.T, path string) {
			loopEdits(t, path, "    description: \"Idempotency keys\"\n    status: in_progress", "    description: \"Idempotency keys\"\n    status: resolved",
				"bindings:\n", "bindings:\n  A4:\n    summary: \"keys\"\n    artifacts: []\n")
			mustCLI(t, "redirect", "delete-atom", "A8", "--guard", "0", "--no-journal", "-f", path)
			data, _ := os.ReadFile(path)
			j, _ := history.OpenJournal(recordedTo(path), history.JournalOptions{})
			j.Append(history.Version{At: time.Now(), Data: data})
			j.Close()
		}, nil, `refused: the dag_adjustment of 2026-01-01T12:00:00Z ("deleted A8 \"文档：计费服务的运行手册 and docs\" (was pending)") cannot be undone from the command line: the journal lacks the version it was planned on (A4 changed too between the versions it holds)`},
		{"no such entry", func(t *testing.T, path string) {}, []string{"--at", "2030-01-01T00:00:00Z"}, `refused: no corrections[] entry has the timestamp "2030-01-01T00:00:00Z"`},
		{"made before the journal", func(t *testing.T, path string) {}, []string{"--index", "1"},
			`refused: the constraint_change of 2026-01-01T11:00:00Z ("max_parallel_agents 3 → 2") cannot be undone from the command line: the journal starts after it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := journaled(t)
			c.before(t, path)
			before, _ := os.ReadFile(path)
			code, out, errs := runCLI(t, append([]string{"redirect", "undo", "--guard", "0", "-f", path}, c.args...)...)
			if code != exitInvalid || out != "" || !strings.HasPrefix(errs, "aot-tui: "+c.want) || !strings.HasSuffix(errs, " — "+path+" is unchanged\n") {
				t.Fatalf("exit %d, stdout %q\nstderr %q\nwant exit 1 and %q", code, out, errs, c.want)
			}
			if now, _ := os.ReadFile(path); string(now) != string(before) {
				t.Fatal("a refused undo wrote the file")
			}
		})
	}
}
