package statefile

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// incrementalBase is a generated loop with a trail, whose control block
// comes before the atoms.
func incrementalBase(t *testing.T) []byte {
	t.Helper()
	base := gen.Generate(gen.Options{Atoms: 40, Seed: 5, Resolved: 0.3, ORGroups: 3, Decompositions: 2})
	trail := "trail:\n  - type: or_selection\n    or_group: choice_1\n    selected: A31\n    reason: \"first\"\n" +
		"  - type: or_selection\n    or_group: choice_2\n    selected: A29\n    reason: \"second\"\n"
	out := bytes.Replace(base, []byte("trail: []\n"), []byte(trail), 1)
	if bytes.Equal(out, base) {
		t.Fatal("the generated loop has no 'trail: []' line")
	}
	return out
}

// replaceOnce replaces the first old in s with new, failing when s has
// no old.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("no %q in the file", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestIncrementalReparse checks the edits the incremental read takes (the
// loop's: a status, the hook's control fields, both at once, a binding's
// summary, an entry growing or shrinking by lines) and those it must leave
// to the whole read (an entry added or removed, a changed key or
// indentation, characters and line breaks outside the subset, a change
// between entries or in the body, a section that would move whose lines
// it cannot move): either way Reparse gives what Parse gives, and the
// Document it returns reads the next version right too, both ways.
func TestIncrementalReparse(t *testing.T) {
	base := string(incrementalBase(t))
	clean, err := os.ReadFile("../testdata/looptools/01-clean.md")
	if err != nil {
		t.Fatal(err)
	}
	// 01-clean with its control block after the corrections.
	ctl := "control:\n  status: running\n  iteration: 2\n  stall_count: 0\n  prev_pending_count: 3\n  stop_requested: false\n  stop_reason: null\n  redirect_requested: false\n\n"
	lowControl := replaceOnce(t, string(clean), ctl, "")
	lowControl = replaceOnce(t, lowControl, "corrections: []\n", "corrections: []\n"+strings.TrimSuffix(ctl, "\n"))
	const (
		taken = iota
		declined
		either
	)
	cases := []struct {
		name string
		base string
		edit func(s string) string
		want int
	}{
		{"status", base, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: in_progress\n")
		}, taken},
		{"iteration", base, func(s string) string { return replaceOnce(t, s, "  iteration: 4\n", "  iteration: 5\n") }, taken},
		{"status and the hook's fields", base, func(s string) string {
			s = replaceOnce(t, s, "  iteration: 4\n  stall_count: 0\n", "  iteration: 5\n  stall_count: 1\n")
			s = replaceOnce(t, s, "  prev_pending_count: 29\n", "  prev_pending_count: 28\n")
			return replaceOnce(t, s, "    status: in_progress\n", "    status: resolved\n")
		}, taken},
		{"binding summary", base, func(s string) string {
			return replaceOnce(t, s, "summary: \"Done: Test the parser (1)\"", "summary: \"Redone\"")
		}, taken},
		{"binding summary as a block", base, func(s string) string {
			return replaceOnce(t, s, "    summary: \"Done: Test the parser (1)\"\n", "    summary: |\n      one\n      two\n")
		}, taken},
		{"description grows by lines", base, func(s string) string {
			return replaceOnce(t, s, "    description: \"Harden the schema (2)\"\n", "    description: >-\n      Harden\n\n      the schema\n    # why\n")
		}, taken},
		{"field removed", base, func(s string) string {
			return replaceOnce(t, s, "    description: \"Harden the schema (2)\"\n", "")
		}, taken},
		{"control line removed", base, func(s string) string { return replaceOnce(t, s, "  stop_reason: null\n", "") }, taken},
		{"comment inside an entry", base, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: pending  # soon\n    # note\n")
		}, taken},
		{"trail reason", base, func(s string) string { return replaceOnce(t, s, "reason: \"first\"", "reason: \"changed\"") }, taken},
		{"goal", base, func(s string) string { return replaceOnce(t, s, "  goal:", "  goal: x\n  goal_was:") }, either},
		{"status made a problem", base, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: [pending, x]\n    depends_on: 7\n")
		}, taken},
		{"status with CRLF", base, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: pending\r\n")
		}, taken},
		{"low control, atom grows", lowControl, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: pending\n    note: x\n")
		}, declined},
		{"low control, atom grows and control", lowControl, func(s string) string {
			s = replaceOnce(t, s, "    status: pending\n", "    status: pending\n    note: x\n")
			return replaceOnce(t, s, "  iteration: 2\n", "  iteration: 3\n")
		}, taken},
		{"low control, status", lowControl, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "    status: resolved\n")
		}, taken},
		{"atom added", base, func(s string) string {
			return replaceOnce(t, s, "  - id: A2\n", "  - id: N1\n    status: pending\n\n  - id: A2\n")
		}, declined},
		{"atom split", base, func(s string) string {
			return replaceOnce(t, s, "    description: \"Harden the schema (2)\"\n", "  - id: N1\n    description: \"Harden the schema (2)\"\n")
		}, declined},
		{"atom removed", base, func(s string) string {
			return replaceOnce(t, s, "  - id: A2\n    description: \"Harden the schema (2)\"\n    status: resolved\n    depends_on: []\n\n", "")
		}, declined},
		{"atom indented", base, func(s string) string { return replaceOnce(t, s, "  - id: A2\n", "   - id: A2\n") }, declined},
		{"binding key changed", base, func(s string) string { return replaceOnce(t, s, "\n  A1:\n    summary", "\n  A2:\n    summary") }, declined},
		{"tab", base, func(s string) string { return replaceOnce(t, s, "    status: pending\n", "    status:\tpending\n") }, declined},
		{"anchor", base, func(s string) string { return replaceOnce(t, s, "    status: pending\n", "    status: &s pending\n") }, declined},
		{"line separator", base, func(s string) string {
			return replaceOnce(t, s, "(2)\"\n", "(2)\u2028more\"\n")
		}, declined},
		{"next line", base, func(s string) string { return replaceOnce(t, s, "(2)\"\n", "(2)\u0085more\"\n") }, declined},
		{"lone CR", base, func(s string) string { return replaceOnce(t, s, "(2)\"\n", "(2)\rmore\"\n") }, declined},
		{"document marker in a block", base, func(s string) string {
			return replaceOnce(t, s, "    description: \"Harden the schema (2)\"\n", "    description: |\n      a\n---\n      b\n")
		}, declined},
		{"document end in a block", base, func(s string) string {
			return replaceOnce(t, s, "    description: \"Harden the schema (2)\"\n", "    description: |\n      a\n...\n")
		}, declined},
		{"comment at column 0 in an entry", base, func(s string) string {
			return replaceOnce(t, s, "    status: pending\n", "# here\n    status: pending\n")
		}, either},
		{"comment between entries", base, func(s string) string {
			return replaceOnce(t, s, "\n  - id: A2\n", "\n# here\n  - id: A2\n")
		}, either},
		{"key between sections", base, func(s string) string { return replaceOnce(t, s, "\natoms:\n", "\nextra: 1\natoms:\n") }, declined},
		{"body", base, func(s string) string { return s + "more\n" }, declined},
		{"closing delimiter moved", base, func(s string) string {
			return replaceOnce(t, s, "  - id: A2\n", "---\n  - id: A2\n")
		}, declined},
		{"nothing", base, func(s string) string { return s }, taken},
		// As the plugin's scripts write: update_atom.py rewrites the
		// status line of the atom whose '- id:' it saw last (indentation
		// kept, the rest of the line dropped); the stop hook's sed
		// rewrites '^  KEY: .*' lines, and its awk adds prev_pending_count
		// after stall_count when the file has none.
		{"update_atom's rewrite", base, func(s string) string { return scriptStatus(t, s, "A7", "resolved") }, taken},
		{"update_atom's rewrite of a commented status", base, func(s string) string {
			s = replaceOnce(t, s, "  - id: A9\n", "  - id: A9\n    # the ninth\n")
			return scriptStatus(t, scriptStatus(t, s, "A9", "in_progress"), "A9", "resolved")
		}, either},
		{"the hook's sed", base, func(s string) string {
			return hookSed(s, map[string]string{"iteration": "5", "stall_count": "1", "prev_pending_count": "28", "status": "stopped"})
		}, taken},
		{"the hook's awk", base, func(s string) string {
			s = replaceOnce(t, s, "  prev_pending_count: 29\n", "")
			return replaceOnce(t, s, "  stall_count: 0\n", "  stall_count: 0\n  prev_pending_count: 29\n")
		}, taken},
		{"the hook's sed on atoms at column 0", string(mustRead(t, "../testdata/looptools/27-atoms-col0.md")), func(s string) string {
			return hookSed(s, map[string]string{"status": "stopped", "iteration": "9"})
		}, either},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prev := checkReparse(t, nil, []byte(c.base), "first read")
			next := c.edit(c.base)
			got := reparseEdits(prev, []byte(next)) != nil
			switch {
			case c.want == taken && !got:
				t.Errorf("the incremental read did not take it")
			case c.want == declined && got:
				t.Errorf("the incremental read took it")
			}
			doc := checkReparse(t, prev, []byte(next), "the edit")
			if doc == nil {
				return
			}
			// And back, from the Document the edit gave: incrementally
			// and the whole way.
			checkReparse(t, doc, []byte(c.base), "back")
			incrementalOff.Store(true)
			defer incrementalOff.Store(false)
			checkReparse(t, doc, []byte(c.base), "back, the whole way")
		})
	}
}

// TestIncrementalReparseChain reads a run of loop writes — a status and
// the iteration each time, problems made and fixed, entries growing and
// shrinking — each on the Document of the one before, and checks every
// Document against Parse and that the incremental read took them all.
func TestIncrementalReparseChain(t *testing.T) {
	base := incrementalBase(t)
	writes := gen.LoopWrites(base)
	prev := checkReparse(t, nil, base, "first read")
	steps := []func(s string) string{
		func(s string) string { return strings.Replace(s, "    status: pending\n", "    status: [bad]\n", 1) },
		func(s string) string {
			return strings.Replace(s, "    depends_on: []\n", "    depends_on: []\n    extra: {a: 1}\n", 1)
		},
		func(s string) string { return strings.Replace(s, "    status: [bad]\n", "    status: pending\n", 1) },
		func(s string) string { return strings.Replace(s, "    extra: {a: 1}\n", "", 1) },
		func(s string) string {
			return strings.Replace(s, "    artifacts: [\"src/part_1.go\"]\n", "    artifacts: 3\n", 1)
		},
		func(s string) string { return strings.Replace(s, "  stall_count: 0\n", "  stall_count: x\n", 1) },
	}
	for i := 0; i < 60; i++ {
		data := writes()
		if k := i % (len(steps) + 1); k < len(steps) && i < 40 {
			for _, f := range steps[:k+1] {
				data = []byte(f(string(data)))
			}
		}
		if reparseEdits(prev, data) == nil {
			t.Fatalf("write %d: the incremental read did not take it", i)
		}
		prev = checkReparse(t, prev, data, "a write")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scriptStatus sets the status of atom id as the plugin's update_atom.py
// does: line by line, the first 'status:' line after the '- id: <id>' line
// is replaced by its indentation and 'status: <status>'.
func scriptStatus(t *testing.T, s, id, status string) string {
	t.Helper()
	lines := strings.Split(s, "\n")
	in, found := false, false
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		if strings.HasPrefix(trim, "- id:") {
			in = strings.Trim(strings.TrimSpace(strings.SplitN(trim, ":", 2)[1]), `"'`) == id
		}
		if in && strings.HasPrefix(trim, "status:") {
			lines[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + "status: " + status
			in, found = false, true
		}
	}
	if !found {
		t.Fatalf("no atom %s with a status", id)
	}
	return strings.Join(lines, "\n")
}

// hookSed rewrites every line '  KEY: …' (two spaces, the key) to
// '  KEY: value', as the stop hook's sed expressions do.
func hookSed(s string, set map[string]string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		for k, v := range set {
			if strings.HasPrefix(l, "  "+k+": ") {
				lines[i] = "  " + k + ": " + v
			}
		}
	}
	return strings.Join(lines, "\n")
}
