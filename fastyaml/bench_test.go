package fastyaml_test

import (
	"fmt"
	"testing"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// BenchmarkYAML compares yaml.v3 on the whole frontmatter with the split
// parse Parse uses for large files (two cores).
func BenchmarkYAML(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data, _ := gen.GenerateSpec(n, 1)
		fm, err := statefile.SplitFrontmatter(data)
		if err != nil {
			b.Fatal(err)
		}
		yml := fm.YAML(data)
		b.Run(fmt.Sprintf("whole/atoms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(yml)))
			for b.Loop() {
				if _, err := fastyaml.ParseWhole(yml); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("fast/atoms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(yml)))
			for b.Loop() {
				if fastyaml.FastParse(yml) == nil {
					b.Fatal("the fast parser refused a generated file")
				}
			}
		})
		b.Run(fmt.Sprintf("split/atoms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(yml)))
			for b.Loop() {
				if fastyaml.ParseSplit(yml) == nil {
					b.Fatal("not split")
				}
			}
		})
	}
}
