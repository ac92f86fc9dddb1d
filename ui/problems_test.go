package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/sim"
	"github.com/charmbracelet/x/exp/golden"
)

// demoMidRun is the demo loop two iterations in: A1 resolved, A2 in
// progress, the rest pending; edit changes it further.
func demoMidRun(t *testing.T, edit func(string) string) string {
	t.Helper()
	s := sim.DemoState
	for _, r := range [][2]string{
		{"  status: pending\n  iteration: 0\n  stall_count: 0\n  prev_pending_count: -1",
			"  status: running\n  iteration: 2\n  stall_count: 0\n  prev_pending_count: 7"},
		{"    description: \"User model and migration\"\n    status: pending", "    description: \"User model and migration\"\n    status: resolved"},
		{"    description: \"Password hashing with argon2id\"\n    status: pending", "    description: \"Password hashing with argon2id\"\n    status: in_progress"},
		{"bindings: {}", "bindings:\n  A1:\n    summary: \"users table\"\n    artifacts: [\"db/0001_users.sql\"]"},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("the demo state changed: no %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	s = edit(s)
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replaceOnce replaces old, which must be in s, once.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("no %q to replace", old)
	}
	return strings.Replace(s, old, new, 1)
}

// invalidDemos are the two defects of issue 23, item 1: a dependency
// cycle (A3 → A7 → A6 → A3) and an atom that depends on one that does not
// exist (A8 on A42), each in a loop with other work still running.
func invalidDemos(t *testing.T) map[string]string {
	return map[string]string{
		"cycle": demoMidRun(t, func(s string) string {
			return replaceOnce(t, s, "    description: \"Authentication logic\"\n    status: pending\n    depends_on: [A1]",
				"    description: \"Authentication logic\"\n    status: pending\n    depends_on: [A1, A7]")
		}),
		"missing-dependency": demoMidRun(t, func(s string) string {
			return replaceOnce(t, s, "\ndecompositions: []",
				"\n  - id: A8\n    description: \"Rate-limit the login endpoint\"\n    status: pending\n    depends_on: [A42]\n\ndecompositions: []")
		}),
	}
}

// TestValidationProblemsShowInTheLoopScreen: a loop whose file validate
// calls invalid says so where the person looks, at 80×24 (and in the
// list of a 60×20 pane): the header counts the errors and warnings, the
// outlook says the loop cannot finish and why (not that it continues),
// the drawing and the list flag the atoms with ! and ! lists the
// problems with their lines.
func TestValidationProblemsShowInTheLoopScreen(t *testing.T) {
	for name, path := range invalidDemos(t) {
		for _, v := range []struct {
			name string
			w, h int
			keys []string
		}{{"drawing", 80, 24, nil}, {"list", 80, 24, []string{"v"}}, {"problems", 80, 24, []string{"!"}}, {"list-60x20", 60, 20, nil}} {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				m := modelOn(t, path, v.w, v.h, false)
				if m.cur.graph.isLayered() != (v.w == 80) {
					t.Fatalf("%d columns: drawing %v", v.w, m.cur.graph.isLayered())
				}
				pressDrawn(m, v.keys...)
				out := screen(m)
				checkFits(t, out, v.w, v.h)
				golden.RequireEqual(t, out)
				badge := "✗ 1 error"
				if v.w < 80 {
					badge = "✗1"
				}
				switch v.name {
				case "drawing", "list", "list-60x20":
					header := strings.Join(strings.Split(out, "\n")[:3], "\n")
					if !strings.Contains(header, badge) || strings.Contains(header, "continues") || !strings.Contains(header, "cannot finish") {
						t.Errorf("the header should count the error and say the loop cannot finish:\n%s", header)
					}
					if !strings.Contains(out, "!○") && !strings.Contains(out, "! ") {
						t.Errorf("no atom flagged with !:\n%s", out)
					}
				case "problems":
					if !strings.Contains(out, "✗ line ") {
						t.Errorf("the problems panel should list the error with its line:\n%s", out)
					}
				}
			})
		}
	}
}

// manyProblems is the demo with 22 more atoms, each depending on one that
// does not exist: 22 errors.
func manyProblems(t *testing.T) string {
	return demoMidRun(t, func(s string) string {
		var more strings.Builder
		for i := 8; i < 30; i++ {
			fmt.Fprintf(&more, "\n  - id: A%d\n    description: \"waits on nothing that exists\"\n    status: pending\n    depends_on: [B%d]\n", i, i)
		}
		return replaceOnce(t, s, "\ndecompositions: []", more.String()+"\ndecompositions: []")
	})
}

// TestProblemsPanelScrolls: a long list of problems says that it goes on
// and how to scroll it, and scrolls.
func TestProblemsPanelScrolls(t *testing.T) {
	m := modelOn(t, manyProblems(t), 60, 20, false)
	pressDrawn(m, "!")
	out := screen(m)
	checkFits(t, out, 60, 20)
	if !strings.Contains(out, "↓ more (j/k)") {
		t.Fatalf("a long list should say it goes on:\n%s", out)
	}
	pressDrawn(m, "G")
	out = screen(m)
	if !strings.Contains(out, "A29 depends on B29") || !strings.Contains(out, "↑ more (k)") {
		t.Fatalf("G should show the last problem:\n%s", out)
	}
	pressDrawn(m, "!")
	if m.focus != focusView {
		t.Fatalf("! should close the problems: focus %v", m.focus)
	}
}
