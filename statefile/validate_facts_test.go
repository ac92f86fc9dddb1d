package statefile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

// Validate derives only the facts it reads (issue 26: building the rest
// grew faster than the atoms); its report must be the one of
// ValidateWith(s, Derive(s)), every finding and line, on every fixture
// (valid and invalid: cycles, duplicate ids, OR groups, decompositions,
// bindings) and on generated loops, with duplicate ids added.
func TestValidateReadsNoMoreThanItDerives(t *testing.T) {
	var files []string
	for _, dir := range []string{"valid", "invalid", "looptools", "."} {
		names, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, names...)
	}
	same := func(name string, data []byte) {
		t.Helper()
		doc, err := Parse(data)
		if err != nil {
			return // not a state: nothing to validate
		}
		s := doc.State
		got, want := model.Validate(s), model.ValidateWith(s, model.Derive(s))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Validate gives\n%+v\nValidateWith(s, Derive(s)) gives\n%+v", name, got, want)
		}
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		same(f, data)
		n++
	}
	if n < 20 {
		t.Fatalf("only %d fixtures found", n)
	}
	for _, size := range []int{40, 300, 2000} {
		data, _ := gen.GenerateSpec(size, uint64(size))
		same("generated", data)
		// The first atom again at the end, and an atom that depends on
		// it: a duplicate id, and a dependency on it.
		doc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		s := doc.State
		dup := s.Atoms[0]
		dup.Line = 0
		dep := s.Atoms[1]
		dep.ID, dep.DependsOn, dep.Line = "zz-dependent", []string{dup.ID, "no-such-atom"}, 0
		s.Atoms = append(s.Atoms, dup, dep)
		got, want := model.Validate(s), model.ValidateWith(s, model.Derive(s))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("generated %d with a duplicate id: the reports differ", size)
		}
		if !strings.Contains(strings.Join(got.Errors, "\n"), "duplicate atom id") {
			t.Errorf("generated %d with a duplicate id: no duplicate finding in %v", size, got.Errors)
		}
	}
}
