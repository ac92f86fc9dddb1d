package gen

import (
	"bytes"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

func TestGenerateIsValidAndDeterministic(t *testing.T) {
	for _, n := range []int{1, 2, 5, 12, 50, 300, 1000} {
		for seed := uint64(1); seed <= 5; seed++ {
			o := Options{Atoms: n, Seed: seed, Resolved: 0.3, ORGroups: n / 20, Decompositions: n / 30}
			data := Generate(o)
			doc, err := statefile.Parse(data)
			if err != nil {
				t.Fatalf("n=%d seed=%d: %v", n, seed, err)
			}
			r := model.Validate(doc.State)
			if !r.Valid {
				t.Fatalf("n=%d seed=%d: invalid: %v", n, seed, r.Errors)
			}
			if len(doc.State.Atoms) != n {
				t.Fatalf("n=%d: %d atoms", n, len(doc.State.Atoms))
			}
			if !bytes.Equal(data, Generate(o)) {
				t.Fatalf("n=%d seed=%d: not deterministic", n, seed)
			}
		}
	}
}
