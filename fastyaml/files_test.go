package fastyaml_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/yamltext"
)

// The layouts the loop, the seed template, our own writes and the
// generators produce all take the fast path, and agree with yaml.v3.
func TestFastParseTakesStateFiles(t *testing.T) {
	var files []string
	for _, glob := range []string{"../testdata/valid/*.md", "../statefile/testdata/edits/*.md", "../sim/testdata/*.md"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	taken := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fm, err := statefile.SplitFrontmatter(data)
		if err != nil {
			continue
		}
		if fastyaml.CheckFast(t, fm.YAML(data)) {
			taken++
		} else {
			_, why := fastyaml.FastParseWhy(fm.YAML(data), yamltext.NewLineMap(fm.YAML(data), 0))
			t.Logf("%s: left to yaml.v3: %s", f, why)
		}
	}
	if taken < len(files)/2 {
		t.Errorf("the fast path took %d of %d fixtures", taken, len(files))
	}
	for _, n := range []int{1, 50, 1000} {
		for seed := range uint64(3) {
			a, _ := gen.GenerateSpec(n, seed)
			b := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.5, ORGroups: n / 10, Decompositions: n / 10})
			for _, data := range [][]byte{a, b} {
				fm, err := statefile.SplitFrontmatter(data)
				if err != nil {
					t.Fatal(err)
				}
				if !fastyaml.CheckFast(t, fm.YAML(data)) {
					t.Errorf("%d atoms, seed %d: a generated file did not take the fast path", n, seed)
				}
			}
		}
	}
}

func TestParseSplitGenerated(t *testing.T) {
	for _, n := range []int{50, 1000, 10000} {
		for seed := range uint64(3) {
			data, _ := gen.GenerateSpec(n, seed)
			fm, err := statefile.SplitFrontmatter(data)
			if err != nil {
				t.Fatal(err)
			}
			if !fastyaml.CheckSplit(t, fm.YAML(data)) {
				t.Errorf("%d atoms, seed %d: the template layout was not split", n, seed)
			}
		}
	}
}
