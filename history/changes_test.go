package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// Pairing atoms and bindings up by place (a loop's usual write) lists the
// same changes in the same order as pairing them by id through a map, on
// random states with ids repeated, added, removed and moved.
func TestCompareByPlaceIsByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	statuses := []model.AtomStatus{"pending", "in_progress", "resolved"}
	atom := func() model.Atom {
		return model.Atom{ID: fmt.Sprint("A", r.IntN(30)), Status: statuses[r.IntN(3)], Description: fmt.Sprint("d", r.IntN(3))}
	}
	binding := func() model.Binding {
		return model.Binding{AtomID: fmt.Sprint("A", r.IntN(30)), Summary: fmt.Sprint("s", r.IntN(3))}
	}
	state := func() *model.State {
		st := &model.State{}
		for range r.IntN(12) {
			st.Atoms = append(st.Atoms, atom())
		}
		for range r.IntN(6) {
			st.Bindings = append(st.Bindings, binding())
		}
		return st
	}
	edit := func(prev *model.State) *model.State {
		st := &model.State{Atoms: slices.Clone(prev.Atoms), Bindings: slices.Clone(prev.Bindings)}
		for range r.IntN(4) {
			switch r.IntN(6) {
			case 0:
				if len(st.Atoms) > 0 {
					st.Atoms[r.IntN(len(st.Atoms))].Status = statuses[r.IntN(3)]
				}
			case 1:
				st.Atoms = append(st.Atoms, atom())
			case 2:
				st.Atoms = st.Atoms[:r.IntN(len(st.Atoms)+1)]
			case 3:
				r.Shuffle(len(st.Atoms), func(i, j int) { st.Atoms[i], st.Atoms[j] = st.Atoms[j], st.Atoms[i] })
			case 4:
				st.Bindings = append(st.Bindings, binding())
			case 5:
				if len(st.Bindings) > 0 {
					st.Bindings[r.IntN(len(st.Bindings))].Summary = "changed"
				}
				st.Bindings = st.Bindings[:r.IntN(len(st.Bindings)+1)]
			}
		}
		return st
	}
	defer func() { byPlace = samePlaces }()
	places := 0
	for i := range 20000 {
		prev := state()
		cur := edit(prev)
		byPlace = samePlaces
		got := Compare(prev, cur)
		if samePlaces(len(prev.Atoms), len(cur.Atoms), func(i int) string { return prev.Atoms[i].ID }, func(i int) string { return cur.Atoms[i].ID }) {
			places++
		}
		byPlace = func(int, int, func(int) string, func(int) string) bool { return false }
		want := Compare(prev, cur)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: by place\n%s\nby key\n%s", i, texts(got), texts(want))
		}
	}
	if places < 1000 {
		t.Fatalf("only %d cases paired by place", places)
	}
}
