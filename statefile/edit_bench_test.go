package statefile

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// BenchmarkApplyEdits applies one correction (a status replace and an
// appended atom) to generated template-layout files; parsing is not timed.
func BenchmarkApplyEdits(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n)+"atoms", func(b *testing.B) {
			data := genState(rand.New(rand.NewSource(1)), n, layouts[0])
			doc, err := Parse(data)
			if err != nil {
				b.Fatal(err)
			}
			edits := []model.Edit{
				model.Replace(P("atoms", n/2, "status"), "resolved"),
				model.Append(P("atoms"), model.Map{
					{Key: "id", Value: "A" + strconv.Itoa(n+1)},
					{Key: "description", Value: "Rate-limit login attempts"},
					{Key: "status", Value: "pending"},
					{Key: "depends_on", Value: model.Flow{"A1", "A4"}},
				}),
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ApplyEdits(doc, edits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse is the parse that precedes an edit, for scale.
func BenchmarkParseForEdit(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(strconv.Itoa(n)+"atoms", func(b *testing.B) {
			data := genState(rand.New(rand.NewSource(1)), n, layouts[0])
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
