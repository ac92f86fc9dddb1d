package statefile

import (
	"fmt"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

var benchSizes = []int{1000, 10000}

func BenchmarkParse(b *testing.B) {
	for _, n := range benchSizes {
		data, _ := gen.GenerateSpec(n, 1)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchState(b *testing.B, n int) *model.State {
	b.Helper()
	data, _ := gen.GenerateSpec(n, 1)
	doc, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	return doc.State
}

func BenchmarkDerive(b *testing.B) {
	for _, n := range benchSizes {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				model.Derive(s)
			}
		})
	}
}

// BenchmarkValidate includes the Derive it needs, as Validate does.
func BenchmarkValidate(b *testing.B) {
	for _, n := range benchSizes {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := model.Validate(s); !r.Valid {
					b.Fatal(r.Errors)
				}
			}
		})
	}
}

func BenchmarkParsePhaseLoop(b *testing.B) {
	data := []byte(`{"version": 2, "feature": "x", "phase": "work", "phase_iteration": 2, "global_iteration": 9,
"phases_completed": ["brainstorm", "plan"], "receipts": [{"phase": "plan", "artifact": "a", "git_sha": "b", "timestamp": "c"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePhaseLoop(data); err != nil {
			b.Fatal(err)
		}
	}
}
