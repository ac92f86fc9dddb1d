package history

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
)

func parse(t *testing.T, s string) *model.State {
	t.Helper()
	doc, err := statefile.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc.State
}

func texts(cs []Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Kind)+": "+c.Text)
	}
	return strings.Join(out, "\n")
}

func TestCompareInWords(t *testing.T) {
	base := sim.DemoState
	r := strings.NewReplacer
	for _, c := range []struct {
		name string
		edit *strings.Replacer
		want []string
		mark Mark
	}{
		{"status and stall", r("  stall_count: 0", "  stall_count: 1", "id: A1\n    description: \"User model and migration\"\n    status: pending",
			"id: A1\n    description: \"User model and migration\"\n    status: in_progress"),
			[]string{"stall: stall 0 → 1 ↑", "status: A1 pending → in_progress"}, MarkStatus | MarkStall},
		{"loop and iteration", r("status: pending\n  iteration: 0", "status: running\n  iteration: 1"),
			[]string{"loop_status: loop pending → running", "iteration: iteration 0 → 1"}, MarkLoop},
		{"backtrack", r("selected: A4\n    failed: []", "selected: A5\n    failed: [A4]", "corrections: []", "trail_x: 1\ncorrections: []"),
			[]string{"backtrack: OR group session_strategy backtracked: A4 failed, A5 selected"}, MarkBacktrack},
		{"correction, trail cleared, atom added", r("corrections: []", "corrections:\n  - timestamp: \"2026-02-03T04:05:06Z\"\n    type: objective_change\n    description: \"Goal narrowed\"\n    trail_cleared: true",
			"trail:\n  - or_group: session_strategy\n    selected: A4\n    reason: \"Tokens keep the API stateless\"\n    timestamp: \"2026-01-01T09:00:00Z\"", "trail: []",
			"decompositions: []", "  - id: A8\n    description: \"Rate limiting\"\n    status: pending\n    depends_on: [A6]\n\ndecompositions: []"),
			[]string{"atom_added: A8 added (pending, depends on A6): Rate limiting", "trail_cleared: trail cleared: 1 entry removed",
				"correction: correction added: objective_change (trail cleared) — Goal narrowed"}, MarkAtoms | MarkCorrection | MarkTrail},
		{"constraints and goal", r("max_stall_count: 3", "max_stall_count: 5", `goal: "Add user authentication to the web API"`, `goal: "Add login"`),
			[]string{`objective: goal "Add user authentication to the web API" → "Add login"`, "constraint: max_stall_count 3 → 5"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur := c.edit.Replace(base)
			if cur == base {
				t.Fatal("the edit changed nothing")
			}
			got := Compare(parse(t, base), parse(t, cur))
			all := texts(got)
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("missing %q in:\n%s", w, all)
				}
			}
			if m := MarksOf(got); m != c.mark {
				t.Errorf("marks %b, want %b", m, c.mark)
			}
		})
	}
	if got := Compare(nil, parse(t, base)); len(got) != 1 || MarksOf(got) != MarkFirst {
		t.Fatalf("first version: %v", got)
	}
	if got := Compare(parse(t, base), parse(t, base)); len(got) != 0 {
		t.Fatalf("no change: %v", got)
	}
}
