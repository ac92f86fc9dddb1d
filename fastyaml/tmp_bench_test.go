package fastyaml

import (
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/yamltext"
)

func BenchmarkTmpSafe(b *testing.B) {
	data := gen.Generate(gen.Options{Atoms: 10000, Seed: 11, Resolved: 0.3, ORGroups: 400, Decompositions: 250})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		fastSafeText(data)
	}
}
func BenchmarkTmpBadChar(b *testing.B) {
	data := gen.Generate(gen.Options{Atoms: 10000, Seed: 11, Resolved: 0.3, ORGroups: 400, Decompositions: 250})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		yamltext.BadChar(data)
	}
}
func BenchmarkTmpSplitLines(b *testing.B) {
	data := gen.Generate(gen.Options{Atoms: 10000, Seed: 11, Resolved: 0.3, ORGroups: 400, Decompositions: 250})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p := &fastParser{src: string(data)}
		p.splitLines(true)
	}
}
