package model_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// FuzzValidate parses state files and checks Validate (one pass over the
// atoms, then its compact arrays) and ValidateWith on derived facts
// against the reference validator. The seeds are the test data's state
// files and small generated loops.
func FuzzValidate(f *testing.F) {
	for _, dir := range []string{"valid", "invalid", "looptools", "."} {
		names, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.md"))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, n := range []int{1, 5, 40} {
		data, _ := gen.GenerateSpec(n, uint64(n))
		f.Add(data)
		f.Add(gen.Generate(gen.Options{Atoms: n, Seed: 3, Resolved: 0.4, ORGroups: n/5 + 1, Decompositions: n / 8}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := statefile.Parse(data)
		if err != nil {
			return
		}
		s := doc.State
		want := model.ValidateRef(s, model.Derive(s))
		if got := model.Validate(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Validate\n%+v\nwant\n%+v", got, want)
		}
		if got := model.ValidateWith(s, model.Derive(s)); !reflect.DeepEqual(got, want) {
			t.Fatalf("ValidateWith\n%+v\nwant\n%+v", got, want)
		}
	})
}
