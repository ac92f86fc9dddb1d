package model

import (
	"fmt"
	"slices"
)

// Phases is the phase loop's pipeline, in order.
var Phases = []string{"brainstorm", "plan", "spec_test", "deepen", "work", "review", "fix", "re_review", "compound", "test", "ship"}

// PhaseIndex returns the position of phase in Phases, or -1.
func PhaseIndex(phase string) int { return slices.Index(Phases, phase) }

// Phase loop defaults (seed 004's field table).
const (
	DefaultPhaseMaxIterations      = 50
	DefaultPhaseMaxPhaseIterations = 10
	DefaultPhaseMaxFixCycles       = 3
)

// PhaseLoop is .claude/autonomous-loop.json, schema version 2. The JSON
// tags are the file's own field names, which `status --json` keeps.
type PhaseLoop struct {
	Version            int               `json:"version"`
	Feature            string            `json:"feature"`
	Phase              string            `json:"phase"`
	PhaseIteration     int               `json:"phase_iteration"`
	GlobalIteration    int               `json:"global_iteration"`
	MaxIterations      int               `json:"max_iterations"`
	MaxPhaseIterations int               `json:"max_phase_iterations"`
	FixReviewCycles    int               `json:"fix_review_cycles"`
	MaxFixCycles       int               `json:"max_fix_cycles"`
	PhasesCompleted    []string          `json:"phases_completed"`
	Artifacts          PhaseArtifacts    `json:"artifacts"`
	Receipts           []PhaseReceipt    `json:"receipts"`
	Checkpoints        []PhaseCheckpoint `json:"checkpoints"`
	Errors             []PhaseError      `json:"errors"`
	BudgetLimitUSD     float64           `json:"budget_limit_usd"`
	CompletionPromise  string            `json:"completion_promise"`
	SkipBrainstorm     bool              `json:"skip_brainstorm"`
	SkipTestReview     bool              `json:"skip_test_review"`
	StartedAt          string            `json:"started_at"`
	LastUpdated        string            `json:"last_updated"`
	Extra              map[string]any    `json:"-"`
	Present            map[string]bool   `json:"-"`
	// Lines maps each top-level key, and each element of a top-level array
	// ("receipts[2]"), to its 1-based line in the file.
	Lines    map[string]int `json:"-"`
	Problems []Problem      `json:"-"`
}

// PhaseArtifacts are the paths a phase loop has produced; nil means not yet.
type PhaseArtifacts struct {
	BrainstormFile      *string        `json:"brainstorm_file"`
	PlanFile            *string        `json:"plan_file"`
	AcceptanceTestsFile *string        `json:"acceptance_tests_file"`
	ProgressFile        *string        `json:"progress_file"`
	PRURL               *string        `json:"pr_url"`
	Branch              *string        `json:"branch"`
	Extra               map[string]any `json:"-"`
}

// PhaseReceipt is proof that a phase produced its artifact.
type PhaseReceipt struct {
	Phase     string `json:"phase"`
	Artifact  string `json:"artifact"`
	GitSHA    string `json:"git_sha"`
	Timestamp string `json:"timestamp"`
}

// PhaseCheckpoint is a per-phase summary for re-anchoring after a context reset.
type PhaseCheckpoint struct {
	Phase            string `json:"phase"`
	Summary          string `json:"summary"`
	FailedApproaches []any  `json:"failed_approaches"`
	Timestamp        string `json:"timestamp"`
}

// PhaseError is an error the phase loop recorded.
type PhaseError struct {
	Phase     string `json:"phase"`
	Message   string `json:"message"`
	Iteration int    `json:"iteration"`
	Timestamp string `json:"timestamp"`
}

// EffectiveMaxIterations is max_iterations or its default when absent.
func (p *PhaseLoop) EffectiveMaxIterations() int {
	if !p.Present["max_iterations"] {
		return DefaultPhaseMaxIterations
	}
	return p.MaxIterations
}

// EffectiveMaxPhaseIterations is max_phase_iterations or its default.
func (p *PhaseLoop) EffectiveMaxPhaseIterations() int {
	if !p.Present["max_phase_iterations"] {
		return DefaultPhaseMaxPhaseIterations
	}
	return p.MaxPhaseIterations
}

// EffectiveMaxFixCycles is max_fix_cycles or its default.
func (p *PhaseLoop) EffectiveMaxFixCycles() int {
	if !p.Present["max_fix_cycles"] {
		return DefaultPhaseMaxFixCycles
	}
	return p.MaxFixCycles
}

// Shipped reports whether the loop has completed its last phase.
func (p *PhaseLoop) Shipped() bool { return slices.Contains(p.PhasesCompleted, "ship") }

// RemainingPhases lists the phases after the current one, in order.
func (p *PhaseLoop) RemainingPhases() []string {
	i := PhaseIndex(p.Phase)
	if i < 0 {
		return nil
	}
	return slices.Clone(Phases[i+1:])
}

// ValidatePhaseLoop checks a phase loop: phase names, counters and limits.
// Each finding names the line of the field it is about (p.Lines).
func ValidatePhaseLoop(p *PhaseLoop) Report {
	var r Report
	for _, pr := range p.Problems {
		r.add(true, pr)
	}
	errf := func(key, format string, args ...any) {
		r.add(true, Problem{Line: p.Lines[key], Path: key, Message: fmt.Sprintf(format, args...)})
	}
	warnf := func(key, format string, args ...any) {
		r.add(false, Problem{Line: p.Lines[key], Path: key, Message: fmt.Sprintf(format, args...)})
	}

	for _, f := range []string{"version", "phase", "phase_iteration", "global_iteration"} {
		if !p.Present[f] {
			errf(f, "missing required field %s", f)
		}
	}
	if p.Present["version"] && p.Version != 2 {
		warnf("version", "version is %d; aot-tui reads schema version 2", p.Version)
	}
	if p.Present["phase"] && PhaseIndex(p.Phase) < 0 {
		errf("phase", "phase %q is not a phase; expected one of %v", p.Phase, Phases)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"phase_iteration", p.PhaseIteration}, {"global_iteration", p.GlobalIteration}, {"fix_review_cycles", p.FixReviewCycles}} {
		if c.v < 0 {
			errf(c.name, "%s is %d; counters cannot be negative", c.name, c.v)
		}
	}
	for _, lim := range []struct {
		name string
		v    int
	}{{"max_iterations", p.MaxIterations}, {"max_phase_iterations", p.MaxPhaseIterations}, {"max_fix_cycles", p.MaxFixCycles}} {
		if p.Present[lim.name] && lim.v <= 0 {
			errf(lim.name, "%s is %d; limits must be positive", lim.name, lim.v)
		}
	}
	if p.GlobalIteration > p.EffectiveMaxIterations() {
		warnf("global_iteration", "global_iteration %d is past max_iterations %d", p.GlobalIteration, p.EffectiveMaxIterations())
	}
	if p.PhaseIteration > p.EffectiveMaxPhaseIterations() {
		warnf("phase_iteration", "phase_iteration %d is past max_phase_iterations %d", p.PhaseIteration, p.EffectiveMaxPhaseIterations())
	}
	if p.FixReviewCycles > p.EffectiveMaxFixCycles() {
		warnf("fix_review_cycles", "fix_review_cycles %d is past max_fix_cycles %d", p.FixReviewCycles, p.EffectiveMaxFixCycles())
	}
	if p.PhaseIteration > p.GlobalIteration {
		warnf("phase_iteration", "phase_iteration %d is larger than global_iteration %d", p.PhaseIteration, p.GlobalIteration)
	}
	seen := map[string]bool{}
	cur := PhaseIndex(p.Phase)
	for i, ph := range p.PhasesCompleted {
		key := fmt.Sprintf("phases_completed[%d]", i)
		j := PhaseIndex(ph)
		switch {
		case j < 0:
			errf(key, "phases_completed names %q, which is not a phase", ph)
		case seen[ph]:
			warnf(key, "phases_completed lists %s twice", ph)
		case cur >= 0 && j > cur && !(ph == "ship" && p.Phase == "ship"):
			warnf(key, "phases_completed lists %s, which comes after the current phase %s", ph, p.Phase)
		}
		seen[ph] = true
	}
	for i, rc := range p.Receipts {
		if PhaseIndex(rc.Phase) < 0 {
			warnf(fmt.Sprintf("receipts[%d]", i), "receipts[%d] names phase %q, which is not a phase", i, rc.Phase)
		}
	}
	for i, c := range p.Checkpoints {
		if PhaseIndex(c.Phase) < 0 {
			warnf(fmt.Sprintf("checkpoints[%d]", i), "checkpoints[%d] names phase %q, which is not a phase", i, c.Phase)
		}
	}
	for i, e := range p.Errors {
		if PhaseIndex(e.Phase) < 0 {
			warnf(fmt.Sprintf("errors[%d]", i), "errors[%d] names phase %q, which is not a phase", i, e.Phase)
		}
	}
	r.finish()
	return r
}
