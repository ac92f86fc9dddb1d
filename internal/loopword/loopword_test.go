package loopword

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// The glyphs tell the statuses apart without colour: each status the
// seed defines has its own, and anything else reads as "?".
func TestGlyphsAreDistinct(t *testing.T) {
	loops := map[string]model.LoopStatus{}
	for _, st := range []model.LoopStatus{model.LoopPending, model.LoopRunning, model.LoopStopped, model.LoopCompleted} {
		g := LoopGlyph(st)
		if g == "?" || loops[g] != "" {
			t.Errorf("LoopGlyph(%q) = %q, shared with %q or unknown", st, g, loops[g])
		}
		loops[g] = st
	}
	atoms := map[string]model.AtomStatus{}
	for _, st := range []model.AtomStatus{model.StatusPending, model.StatusInProgress, model.StatusResolved} {
		g := AtomGlyph(st)
		if g == "?" || atoms[g] != "" {
			t.Errorf("AtomGlyph(%q) = %q, shared with %q or unknown", st, g, atoms[g])
		}
		atoms[g] = st
	}
	if g := LoopGlyph("paused"); g != "?" {
		t.Errorf("LoopGlyph(paused) = %q, want ?", g)
	}
	if g := AtomGlyph("blocked"); g != "?" {
		t.Errorf("AtomGlyph(blocked) = %q, want ?", g)
	}
}

func TestWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{StatusText(""), "unknown"},
		{StatusText(model.LoopStopped), "stopped"},
		{AtomCounts(model.Counts{Total: 9, Pending: 3, InProgress: 1, Resolved: 5}), "○3 ◐1 ●5"},
		{PhaseGlyph(true, false), "✓"},
		{PhaseGlyph(true, true), "✓"},
		{PhaseGlyph(false, true), "▶"},
		{PhaseGlyph(false, false), "·"},
		{PhaseCount(2, 7), "2/7 phases"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for p, want := range map[model.Progress][2]string{
		model.ProgressShrinking: {"↓ shrinking", "↓"},
		model.ProgressStalled:   {"→ stalled", "→"},
		model.ProgressExpanding: {"↑ expanding", "↑"},
		model.ProgressFirst:     {"· first iteration", "·"},
	} {
		if full, compact := ProgressLabel(p); full != want[0] || compact != want[1] {
			t.Errorf("ProgressLabel(%v) = %q, %q; want %q, %q", p, full, compact, want[0], want[1])
		}
	}
}

// A stopped loop says how it resumes, and what the gate finds in the way.
func TestResume(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	state := func(old, new string) *model.State {
		doc, err := statefile.Parse([]byte(strings.Replace(string(data), old, new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return doc.State
	}
	stopped := state("status: running", "status: stopped")
	if got := Resume(stopped); got != "/enter-recursion resumes it (the gate passes)" {
		t.Errorf("a stopped loop ready to resume: %q", got)
	}
	noGoal := state("status: running", "status: stopped")
	noGoal.Objective.Goal = " "
	if got := Resume(noGoal); got != "/enter-recursion resumes it once the gate passes (it fails: objective.goal (empty))" {
		t.Errorf("a stopped loop the gate refuses: %q", got)
	}
	for _, s := range []*model.State{state("", ""), nil} {
		if got := Resume(s); got != "" {
			t.Errorf("a loop that is not stopped: %q", got)
		}
	}
}
