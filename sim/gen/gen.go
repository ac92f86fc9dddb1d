// Package gen generates large, valid AoT state files in the seed
// template's layout (two-space sections, "  - id:" items, four-space
// fields, flow-style depends_on), which the loop's own tools write and
// read line by line. Output is deterministic: the same arguments give the
// same bytes. It depends on nothing else of aot-tui, so any package's
// tests can use it. There are two entry points, for two kinds of user:
//
//   - Generate shapes a loop to Options (atoms, how much is resolved, how
//     many OR groups and decompositions, control.status): the simulator's
//     --atoms runs, the UI's layout tests and benchmarks, and the
//     correction tests.
//   - GenerateSpec makes a loop part way through from a size and a seed,
//     with bindings in more of YAML's styles (literal block summaries,
//     block and flow artifact lists), a trail and an OR choice that is not
//     an atom, and returns the Spec of what the file says, for checking a
//     parser against: the statefile and fastyaml tests and the parse and
//     status benchmarks.
//
// Both write the sections they share (atoms, decompositions, or_groups)
// through the same functions.
package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Options shape a generated state file.
type Options struct {
	// Atoms is the number of atoms (at least 1).
	Atoms int
	// Seed makes the graph reproducible.
	Seed uint64
	// Resolved is the fraction of atoms (the earliest) already resolved,
	// with bindings; the first unresolved ones are in progress.
	Resolved float64
	// ORGroups is the number of two-choice OR groups.
	ORGroups int
	// Decompositions is the number of decomposed parents.
	Decompositions int
	// Status is control.status (default running).
	Status string
}

// Generate writes a valid AoT state file in the seed template's layout:
// a random DAG whose dependencies point to recent earlier atoms (so it has
// depth and width like real loops), OR groups, decompositions, bindings and
// a trail. The same options give the same bytes.
func Generate(o Options) []byte {
	n := max(o.Atoms, 1)
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	status := o.Status
	if status == "" {
		status = "running"
	}
	resolvedUpTo := int(float64(n) * o.Resolved)
	iteration, prev := resolvedUpTo/3, n-resolvedUpTo+1
	if status == "pending" {
		resolvedUpTo, iteration, prev = 0, 0, -1
	}
	var b strings.Builder
	b.Grow(n * 140)
	b.WriteString("---\n")
	b.WriteString(`objective:
  goal: "Generated loop with ` + fmt.Sprint(n) + ` atoms"
  base_case:
    checklist:
      - item: "Tests pass"
        check:
          type: command
          value: "go test ./..."
      - item: "Docs or runbook"
        any_of:
          - item: "Docs"
            check:
              type: file
              value: "docs/README.md"
          - item: "Runbook"
            check:
              type: file
              value: "ops/runbook.md"
  background_intent: "Exercise aot-tui at scale"
  deliverables: "A generated work graph"
  definition_of_done: "Every atom resolved"
  constraints:
    max_iterations: ` + fmt.Sprint(max(20, n/2)) + `
    max_parallel_agents: 3
    max_stall_count: 3

control:
  status: ` + status + `
  iteration: ` + fmt.Sprint(iteration) + `
  stall_count: 0
  prev_pending_count: ` + fmt.Sprint(prev) + `
  stop_requested: false
  stop_reason: null
  redirect_requested: false

atoms:
`)
	// OR groups: pairs of consecutive atoms (i, i+1) with the same deps.
	groupOf := map[int]string{}
	var groups []int
	for g := 0; g < o.ORGroups && n > 4; g++ {
		i := 2 + r.IntN(n-3)
		if groupOf[i] != "" || groupOf[i+1] != "" || groupOf[i-1] != "" {
			continue
		}
		name := fmt.Sprintf("choice_%d", len(groups)+1)
		groupOf[i], groupOf[i+1] = name, name
		groups = append(groups, i)
	}
	deps := make([][]int, n)
	for i := 1; i < n; i++ {
		if groupOf[i] != "" && groupOf[i-1] == groupOf[i] {
			deps[i] = deps[i-1] // the second choice has the first's deps
			continue
		}
		k := r.IntN(3)
		window := min(i, 12)
		seen := map[int]bool{}
		for d := 0; d < k; d++ {
			j := i - 1 - r.IntN(window)
			// Depending on an unselected OR choice would block forever.
			if groupOf[j] != "" && groupOf[j-1] == groupOf[j] {
				j--
			}
			if !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
			}
		}
	}
	statusOf := func(i int) string {
		switch {
		case i < resolvedUpTo:
			return "resolved"
		case i < resolvedUpTo+2 && status == "running":
			return "in_progress"
		}
		return "pending"
	}
	// Decompositions: a pending parent and the next two atoms as its
	// children, which copy the parent's dependencies as the loop does.
	type decomp struct{ p, c1, c2 int }
	var decomps []decomp
	inDecomp := map[int]bool{}
	for p := 0; p < n-3 && len(decomps) < o.Decompositions; p += max(1, n/(o.Decompositions+1)) {
		c1, c2 := p+1, p+2
		if statusOf(p) != "pending" || groupOf[p] != "" || groupOf[c1] != "" || groupOf[c2] != "" || inDecomp[p] || inDecomp[c1] || inDecomp[c2] {
			continue
		}
		inDecomp[p], inDecomp[c1], inDecomp[c2] = true, true, true
		deps[c1], deps[c2] = deps[p], deps[p]
		decomps = append(decomps, decomp{p, c1, c2})
	}
	// Nothing may depend on a decomposed parent's child through the parent
	// in reverse: drop dependencies of a parent on its own children.
	for _, d := range decomps {
		var keep []int
		for _, x := range deps[d.p] {
			if x != d.c1 && x != d.c2 {
				keep = append(keep, x)
			}
		}
		deps[d.p] = keep
	}
	for i := 0; i < n; i++ {
		st := statusOf(i)
		if g := groupOf[i]; g != "" && i > 0 && groupOf[i-1] == g {
			st = "pending"
		}
		writeAtom(&b, atomID(i), describe(r, i), st, atomIDs(deps[i]...), groupOf[i])
	}
	writeSection(&b, "decompositions", "[]", len(decomps))
	for _, d := range decomps {
		writeDecomposition(&b, atomID(d.p), atomIDs(d.c1, d.c2), "split for parallel work")
	}
	b.WriteString("\n")
	writeSection(&b, "or_groups", "{}", len(groups))
	for _, i := range groups {
		writeGroup(&b, groupOf[i], atomIDs(i, i+1), atomID(i), nil)
	}
	b.WriteString("\n")
	writeSection(&b, "bindings", "{}", resolvedUpTo)
	for i := 0; i < resolvedUpTo; i++ {
		if g := groupOf[i]; g != "" && i > 0 && groupOf[i-1] == g {
			continue
		}
		fmt.Fprintf(&b, "  A%d:\n    summary: \"Done: %s\"\n    artifacts: [\"src/part_%d.go\"]\n", i+1, describe(r, i), i+1)
	}
	b.WriteString("\ntrail: []\n\ncorrections: []\n---\n\n# Original Prompt\n\nA generated loop for aot-tui tests.\n")
	return []byte(b.String())
}

// atomID is the id of the atom at index i: A1 for 0.
func atomID(i int) string { return "A" + strconv.Itoa(i+1) }

// atomIDs are the ids of the atoms at indexes is.
func atomIDs(is ...int) []string {
	ids := make([]string, len(is))
	for k, i := range is {
		ids[k] = atomID(i)
	}
	return ids
}

// The layout both generators write, a piece at a time.

// writeSection writes the key line of a top-level section, with empty
// ("[]" or "{}") after the key when the section has no entries (n == 0).
func writeSection(b *strings.Builder, key, empty string, n int) {
	b.WriteString(key + ":")
	if n == 0 {
		b.WriteString(" " + empty)
	}
	b.WriteString("\n")
}

// writeAtom writes an item of atoms, then a blank line.
func writeAtom(b *strings.Builder, id, description, status string, dependsOn []string, orGroup string) {
	b.WriteString("  - id: " + id + "\n    description: \"" + description + "\"\n    status: " + status +
		"\n    depends_on: [" + strings.Join(dependsOn, ", ") + "]\n")
	if orGroup != "" {
		b.WriteString("    or_group: " + orGroup + "\n")
	}
	b.WriteString("\n")
}

// writeDecomposition writes an item of decompositions.
func writeDecomposition(b *strings.Builder, parent string, children []string, reason string) {
	b.WriteString("  - parent: " + parent + "\n    children: [" + strings.Join(children, ", ") + "]\n    reason: \"" + reason + "\"\n")
}

// writeGroup writes an entry of or_groups.
func writeGroup(b *strings.Builder, name string, choices []string, selected string, failed []string) {
	b.WriteString("  " + name + ":\n    choices: [" + strings.Join(choices, ", ") + "]\n    selected: " + selected +
		"\n    failed: [" + strings.Join(failed, ", ") + "]\n")
}

var verbs = []string{"Implement", "Test", "Document", "Refactor", "Wire", "Design", "Benchmark", "Review", "Migrate", "Harden"}
var nouns = []string{"the parser", "the cache", "retries", "the audit log", "auth", "the schema", "metrics", "the CLI", "the API", "backups", "rate limits", "the scheduler"}

func describe(r *rand.Rand, i int) string {
	return fmt.Sprintf("%s %s (%d)", verbs[(i*7+r.IntN(3))%len(verbs)], nouns[(i*5)%len(nouns)], i+1)
}
