package sim

import (
	"context"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

func TestPhaseRunShipsOrStopsWithValidFiles(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		path, err := SetupPhase(t.TempDir(), "a feature", seed)
		if err != nil {
			t.Fatal(err)
		}
		writes := 0
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		p, err := RunPhase(ctx, PhaseConfig{Path: path, Seed: seed, Speed: 400, OnWrite: func(data []byte) {
			writes++
			p, err := statefile.ParsePhaseLoop(data)
			if err != nil {
				t.Fatalf("write %d does not parse: %v", writes, err)
			}
			if r := model.ValidatePhaseLoop(p); !r.Valid {
				t.Fatalf("write %d is invalid: %v", writes, r.Errors)
			}
		}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !p.Shipped() && p.GlobalIteration < p.EffectiveMaxIterations() {
			t.Fatalf("seed %d ended in phase %s at %d/%d", seed, p.Phase, p.GlobalIteration, p.EffectiveMaxIterations())
		}
		if writes != p.GlobalIteration {
			t.Fatalf("seed %d: %d writes for %d iterations", seed, writes, p.GlobalIteration)
		}
	}
}
