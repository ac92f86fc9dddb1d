package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// PhaseConfig configures a simulated phase loop (seed 004's
// .claude/autonomous-loop.json).
type PhaseConfig struct {
	// Path is the phase loop file; it must exist (SetupPhase writes one).
	Path string
	// Seed makes the run reproducible; Speed scales time as Config.Speed.
	Seed  uint64
	Speed float64
	// OnWrite, when set, sees every version written.
	OnWrite func(data []byte)
}

// SetupPhase writes a new phase loop, in its first phase, at dir's
// .claude/autonomous-loop.json.
func SetupPhase(dir, feature string, seed uint64) (string, error) {
	path := filepath.Join(dir, statefile.PhaseLoopRel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err == nil {
		return "", errors.New(path + " already exists; the simulator will not overwrite a loop")
	}
	now := time.Now().UTC().Format(time.RFC3339)
	p := &model.PhaseLoop{
		Version: 2, Feature: feature, Phase: model.Phases[0], MaxIterations: 30 + int(seed%20),
		MaxPhaseIterations: 6, MaxFixCycles: 3, PhasesCompleted: []string{},
		Receipts: []model.PhaseReceipt{}, Checkpoints: []model.PhaseCheckpoint{}, Errors: []model.PhaseError{},
		BudgetLimitUSD: 20, CompletionPromise: "SHIPPED", StartedAt: now, LastUpdated: now,
	}
	data, err := marshalPhase(p)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o644)
}

func marshalPhase(p *model.PhaseLoop) ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// RunPhase plays a phase loop until it ships or uses up max_iterations, or
// ctx ends (then it returns ctx.Err()). Each iteration spends a moment in
// the current phase and then stays in it (phase_iteration grows) or
// completes it (a receipt and a checkpoint; the next phase); a review may
// send the loop to fix and back (fix_review_cycles grows). It writes as
// the loop's scripts do, in place or by rename, alternately.
func RunPhase(ctx context.Context, cfg PhaseConfig) (*model.PhaseLoop, error) {
	if cfg.Speed <= 0 {
		cfg.Speed = 1
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9a5e))
	for n := 0; ; n++ {
		t := time.NewTimer(time.Duration(float64(400*time.Millisecond+time.Duration(rng.IntN(800))*time.Millisecond) / cfg.Speed))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		p, err := statefile.LoadPhaseLoop(cfg.Path, 0)
		if err != nil {
			return nil, err
		}
		if p.Shipped() || p.GlobalIteration >= p.EffectiveMaxIterations() {
			return p, nil
		}
		stepPhase(p, rng)
		data, err := marshalPhase(p)
		if err != nil {
			return nil, err
		}
		if err := writeAsTheLoop(cfg.Path, data, n%2 == 0); err != nil {
			return nil, err
		}
		if cfg.OnWrite != nil {
			cfg.OnWrite(data)
		}
	}
}

// stepPhase advances p by one iteration.
func stepPhase(p *model.PhaseLoop, rng *rand.Rand) {
	now := time.Now().UTC().Format(time.RFC3339)
	p.GlobalIteration++
	p.PhaseIteration++
	p.LastUpdated = now
	if rng.Float64() < 0.45 && p.PhaseIteration < p.EffectiveMaxPhaseIterations() {
		return // more work in this phase
	}
	if p.Phase == "re_review" && p.FixReviewCycles < p.EffectiveMaxFixCycles() && rng.Float64() < 0.35 {
		p.FixReviewCycles++ // the re-review found more to fix
		p.Phase, p.PhaseIteration = "fix", 0
		return
	}
	if !slices.Contains(p.PhasesCompleted, p.Phase) {
		p.PhasesCompleted = append(p.PhasesCompleted, p.Phase)
	}
	p.Receipts = append(p.Receipts, model.PhaseReceipt{Phase: p.Phase, Artifact: "docs/" + p.Phase + ".md", GitSHA: fmt.Sprintf("%07x", rng.Uint32()>>4), Timestamp: now})
	p.Checkpoints = append(p.Checkpoints, model.PhaseCheckpoint{Phase: p.Phase, Summary: "finished " + p.Phase, FailedApproaches: []any{}, Timestamp: now})
	if i := model.PhaseIndex(p.Phase); i >= 0 && i+1 < len(model.Phases) {
		p.Phase, p.PhaseIteration = model.Phases[i+1], 0
	}
}
