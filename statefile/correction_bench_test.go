package statefile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

// BenchmarkCorrectionWrite measures one correction end to end, as the CLI
// and the TUI make it: statefile.Update on a real file (read, parse, plan,
// apply the edits to the text, re-parse and re-validate, temp file, fsync,
// re-read, rename, fsync the directory). The file is restored between
// iterations, off the clock.
//
//	go test ./statefile -run '^$' -bench CorrectionWrite -benchtime 10x
func BenchmarkCorrectionWrite(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data := gen.Generate(gen.Options{Atoms: n, Seed: 1, Resolved: 0.5, ORGroups: n / 50, Decompositions: n / 100})
		doc, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		s := doc.State
		// A status-touching force-OR: the group whose resolved selection
		// has the most transitive dependents (all redone).
		f := model.Derive(s)
		var force model.ForceOR
		best := -1
		for _, g := range s.ORGroups {
			a, ok := s.Atom(g.Selected)
			if !ok || a.Status != model.StatusResolved {
				continue
			}
			if d := len(f.Dependents()[a.ID]); d > best {
				best = d
				other := g.Choices[0]
				if other == g.Selected {
					other = g.Choices[1]
				}
				force = model.ForceOR{Group: g.Name, Choice: other, Reason: "benchmark"}
			}
		}
		// A delete with --detach of the first pending atom others depend on.
		var del model.DeleteAtom
		for _, a := range s.Atoms {
			if a.Status == model.StatusPending && len(f.Dependents()[a.ID]) > 0 && f.ORGroupOf[a.ID] == "" {
				del = model.DeleteAtom{ID: a.ID, Detach: true}
				break
			}
		}
		if best < 0 || del.ID == "" {
			b.Fatalf("%d atoms: no resolved OR selection or no pending atom with dependents", n)
		}
		for _, c := range []struct {
			name string
			req  model.Request
		}{
			{"add-atom", model.AddAtom{Description: "Benchmark the write path", DependsOn: []string{"A1", "A2"}}},
			{"force-or", force},
			{"delete-atom", del},
		} {
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "aot-loop-state.md")
				plan := func(doc *Document) (*model.Plan, error) {
					return model.PlanCorrection(doc.State, c.req, model.PlanContext{Now: time.Unix(0, 0)})
				}
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					b.StopTimer()
					if err := os.WriteFile(path, data, 0o644); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					res, err := Update(path, UpdateOptions{}, plan)
					if err != nil || !res.Wrote || res.Attempts != 1 {
						b.Fatalf("%v (wrote %v)", err, res != nil && res.Wrote)
					}
				}
			})
		}
	}
}
