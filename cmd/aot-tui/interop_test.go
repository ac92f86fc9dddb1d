package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// agreeWithLoopTools checks that the loop's own line-based tools read
// data as our parser does: no loop-tools warning (internal/looptools).
func agreeWithLoopTools(data []byte) error {
	doc, err := statefile.Parse(data)
	if err != nil {
		return err
	}
	if v := model.Validate(doc.State); !v.Valid {
		return fmt.Errorf("invalid: %v", v.Errors)
	}
	if w := model.LoopToolsWarnings(doc.State); len(w) > 0 {
		return fmt.Errorf("the loop's tools read it otherwise: %v", w)
	}
	return nil
}

// interopStates are generated template-layout states (of 40 and 150
// atoms) with what the corrections below need: an OR group whose selection
// is resolved, a decomposition, an in-progress atom and a pending atom with
// dependents.
func interopStates(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, n := range []int{40, 40, 150} {
		for seed := uint64(len(out)*1000 + 1); ; seed++ {
			data := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 12, Decompositions: n / 12})
			doc, err := statefile.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if pickAtoms(doc.State) != nil && len(doc.State.Decompositions) > 0 {
				out = append(out, data)
				break
			}
			if seed > uint64(len(out)*1000+200) {
				t.Fatal("no generated state has what the test needs")
			}
		}
	}
	return out
}

type interopAtoms struct {
	group, choice, inProgress, pendingWithDeps, resolvedWithDeps string
}

func pickAtoms(s *model.State) *interopAtoms {
	f := model.Derive(s)
	var p interopAtoms
	for _, g := range s.ORGroups {
		if a, ok := s.Atom(g.Selected); ok && a.Status == model.StatusResolved && len(f.Dependents()[a.ID]) > 0 {
			p.group, p.choice = g.Name, g.Choices[1]
		}
	}
	for _, a := range s.Atoms {
		switch {
		case a.Status == model.StatusInProgress:
			p.inProgress = a.ID
		case a.Status == model.StatusPending && len(f.Dependents()[a.ID]) > 0 && f.ORGroupOf[a.ID] == "":
			p.pendingWithDeps = a.ID
		case a.Status == model.StatusResolved && len(f.Dependents()[a.ID]) > 0 && f.ORGroupOf[a.ID] == "":
			p.resolvedWithDeps = a.ID
		}
	}
	if p.group == "" || p.inProgress == "" || p.pendingWithDeps == "" || p.resolvedWithDeps == "" {
		return nil
	}
	return &p
}

func TestLoopToolsReadCorrectedFiles(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	for i, data := range interopStates(t) {
		t.Run(strconv.Itoa(i), func(t *testing.T) { loopToolsReadCorrections(t, data) })
	}
}

func loopToolsReadCorrections(t *testing.T, data []byte) {
	if err := agreeWithLoopTools(data); err != nil {
		t.Fatalf("the generated state itself: %v", err)
	}
	doc, _ := statefile.Parse(data)
	p := pickAtoms(doc.State)
	dir := filepath.Join(t.TempDir(), ".claude")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The corrections record their versions in the state file's journal
	// (in the tests' journal directory), and redirect undo reads them.
	// Each correction type, one after the other on the same file, with
	// text that line-based readers could trip on, and undos of them (an
	// undo of an undo puts the correction back).
	undo := []string{"redirect", "undo", "--interrupt", "--note", "status: pending is not a line either"}
	steps := [][]string{
		{"redirect", "add-atom", "Review: the \"retry\" path # twice", "--depends-on", p.resolvedWithDeps + "," + p.pendingWithDeps, "--required-by", p.inProgress, "--interrupt"},
		{"redirect", "add-atom", "A choice: the third way", "--or-group", p.group, "--depends-on", "A1"},
		{"redirect", "add-atom", "No dependencies at all", "--id", "extra-1"},
		{"redirect", "delete-atom", p.pendingWithDeps, "--detach", "--interrupt", "--note", "status: pending is not a line"},
		undo,
		{"redirect", "force-or", p.group, p.choice, "--interrupt", "--reason", "the selected choice: wrong"},
		undo,
		undo,
		{"redirect", "constraints", "--max-iterations", "45", "--max-stall-count", "4"},
		{"redirect", "override-binding", "A1", "--summary", "Amended: \"quoted\" summary", "--artifacts", "a.go,b.go"},
		{"redirect", "override-binding", "A1", "--redo", "--interrupt"},
		undo,
		{"redirect", "objective", "--goal", "New goal: ship it", "--add-item", "Lint", "--type", "command", "--value", "make lint"},
		undo,
		{"redirect", "objective", "--definition-of-done", "All green"},
		{"stop", "--reason", "time's up: 5pm"},
	}
	for _, args := range steps {
		code, out, errs := runCLI(t, append(args, "-f", dir+"/..")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		got, _ := os.ReadFile(path)
		if err := agreeWithLoopTools(got); err != nil {
			t.Fatalf("after %v: %v\n%s", args, err, got)
		}
	}
	final, _ := os.ReadFile(path)
	fdoc, _ := statefile.Parse(final)
	if n := len(fdoc.State.Corrections); n != len(steps)-1 {
		t.Fatalf("%d corrections recorded, want %d", n, len(steps)-1)
	}

	// The hook's own stop: sed "s/^  status: .*/  status: stopped/" on
	// every line. On a corrected file it hits control.status only.
	sed := regexp.MustCompile(`(?m)^  status: .*$`)
	stopped := sed.ReplaceAll(final, []byte("  status: stopped"))
	a, b := strings.Split(string(final), "\n"), strings.Split(string(stopped), "\n")
	changed := 0
	for i := range a {
		if a[i] != b[i] {
			changed++
		}
	}
	sdoc, err := statefile.Parse(stopped)
	if err != nil {
		t.Fatal(err)
	}
	if changed != 1 || sdoc.State.Control.Status != model.LoopStopped {
		t.Fatalf("the hook's sed changed %d lines; control.status is %s", changed, sdoc.State.Control.Status)
	}
	want := fdoc.State.Control
	want.Status = model.LoopStopped
	if controlString(sdoc.State.Control) != controlString(want) || !bytes.Equal(bytes.Replace(final, []byte("  status: running"), []byte("  status: stopped"), 1), stopped) {
		t.Fatal("the hook's sed changed more than control.status")
	}
	if err := agreeWithLoopTools(stopped); err != nil {
		t.Fatal(err)
	}
}

func controlString(c model.Control) string {
	return fmt.Sprintf("%s/%d/%d/%d/%v/%q/%v", c.Status, c.Iteration, c.StallCount, c.PrevPendingCount, c.StopRequested, c.StopReason, c.RedirectRequested)
}
