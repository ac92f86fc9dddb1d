package gen

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Spec is what a file from GenerateSpec says, for checking a parser
// against.
type Spec struct {
	Atoms            []Atom
	Groups           []Group
	Decompositions   []Decomposition
	PrevPendingCount int
	MaxParallel      int
}

// Atom is one atom of a Spec.
type Atom struct {
	ID        string
	Status    string
	DependsOn []string
	ORGroup   string
}

// Group is one OR group of a Spec.
type Group struct {
	Name     string
	Choices  []string // may name one choice that is not an atom (the seed's example does)
	Selected string
	Failed   []string
}

// Decomposition is one decomposition of a Spec.
type Decomposition struct {
	Parent   string
	Children []string
}

// GenerateSpec returns a state file of n atoms, part way through its
// loop, and the Spec of what it says. The same n and seed give the same
// bytes.
func GenerateSpec(n int, seed uint64) ([]byte, *Spec) {
	r := rand.New(rand.NewPCG(seed, 0xA07))
	sp := &Spec{MaxParallel: 4}
	status := map[string]string{}
	id := atomID

	// pick chooses a status: resolved is likely early in the file and
	// rare late, as in a loop that is part way through; an atom whose
	// dependencies are not all resolved can only be pending.
	pick := func(i int, deps []string) string {
		for _, d := range deps {
			if status[d] != "resolved" {
				return "pending"
			}
		}
		p := 0.9
		switch {
		case i > n*7/10:
			p = 0.05
		case i > n/2:
			p = 0.4
		}
		switch x := r.Float64(); {
		case x < p:
			return "resolved"
		case x < p+0.15:
			return "in_progress"
		}
		return "pending"
	}
	randDeps := func(i int) []string {
		if i == 0 {
			return []string{}
		}
		k := r.IntN(4)
		lo := max(0, i-60)
		deps := []string{}
		for range k {
			d := id(lo + r.IntN(i-lo))
			dup := false
			for _, e := range deps {
				dup = dup || e == d
			}
			if !dup {
				deps = append(deps, d)
			}
		}
		return deps
	}
	add := func(a Atom) {
		status[a.ID] = a.Status
		sp.Atoms = append(sp.Atoms, a)
	}

	for len(sp.Atoms) < n {
		i := len(sp.Atoms)
		room := n - i
		switch x := r.Float64(); {
		case x < 0.05 && room >= 3:
			// An OR group: alternatives with the same dependencies; only
			// the selected one ever leaves pending.
			g := Group{Name: "g" + strconv.Itoa(len(sp.Groups)+1), Failed: []string{}}
			deps := randDeps(i)
			k := 2 + r.IntN(2)
			for j := range k {
				g.Choices = append(g.Choices, id(i+j))
			}
			g.Selected = g.Choices[r.IntN(k)]
			for _, c := range g.Choices {
				st := "pending"
				if c == g.Selected {
					st = pick(i, deps)
				} else if len(g.Failed) == 0 && r.IntN(3) == 0 {
					g.Failed = append(g.Failed, c)
				}
				add(Atom{ID: c, Status: st, DependsOn: deps, ORGroup: g.Name})
			}
			if r.IntN(4) == 0 {
				g.Choices = append(g.Choices, id(i)+"_alt")
			}
			sp.Groups = append(sp.Groups, g)
		case x < 0.09 && room >= 3:
			// A decomposition: the parent stays pending until its children,
			// which copy its dependencies, resolve (then it may be resolved
			// or still pending, i.e. executable).
			deps := randDeps(i)
			parent := id(i)
			k := 2 + r.IntN(2)
			d := Decomposition{Parent: parent}
			children := make([]Atom, k)
			all := true
			for j := range k {
				c := Atom{ID: id(i + 1 + j), DependsOn: deps}
				c.Status = pick(i+1+j, deps)
				all = all && c.Status == "resolved"
				children[j] = c
				d.Children = append(d.Children, c.ID)
			}
			pst := "pending"
			if all && r.IntN(2) == 0 {
				pst = "resolved"
			}
			add(Atom{ID: parent, Status: pst, DependsOn: deps})
			for _, c := range children {
				add(c)
			}
			sp.Decompositions = append(sp.Decompositions, d)
		default:
			deps := randDeps(i)
			add(Atom{ID: id(i), Status: pick(i, deps), DependsOn: deps})
		}
	}
	unresolved := 0
	for _, a := range sp.Atoms {
		if a.Status != "resolved" {
			unresolved++
		}
	}
	sp.PrevPendingCount = unresolved - 1 + r.IntN(3) // shrinking, stalled or expanding
	return renderSpec(sp), sp
}

func renderSpec(sp *Spec) []byte {
	var b strings.Builder
	b.Grow(len(sp.Atoms) * 160)
	b.WriteString(`---
objective:
  goal: "Generated loop of ` + strconv.Itoa(len(sp.Atoms)) + ` atoms"
  base_case:
    checklist:
      - item: "Tests pass"
        check:
          type: command
          value: "make test"
      - item: "Quality"
        check:
          type: quality
          criteria: "Readable"
          pass_threshold: 3
  background_intent: "Benchmarks and reference tests"
  deliverables: "Nothing real"
  definition_of_done: "All atoms resolved"
  constraints:
    max_iterations: 100000
    max_parallel_agents: ` + strconv.Itoa(sp.MaxParallel) + `
    max_stall_count: 3

control:
  status: running
  iteration: 7
  stall_count: 0
  prev_pending_count: ` + strconv.Itoa(sp.PrevPendingCount) + `
  stop_requested: false
  stop_reason: null
  redirect_requested: false

atoms:
`)
	resolved := 0
	for _, a := range sp.Atoms {
		writeAtom(&b, a.ID, "Work item "+a.ID, a.Status, a.DependsOn, a.ORGroup)
		if a.Status == "resolved" {
			resolved++
		}
	}
	writeSection(&b, "decompositions", "[]", len(sp.Decompositions))
	for _, d := range sp.Decompositions {
		writeDecomposition(&b, d.Parent, d.Children, "Split "+d.Parent)
	}
	b.WriteString("\n")
	writeSection(&b, "or_groups", "{}", len(sp.Groups))
	for _, g := range sp.Groups {
		writeGroup(&b, g.Name, g.Choices, g.Selected, g.Failed)
	}
	// Bindings in the styles the loop's agents write: summaries quoted or
	// as literal blocks, artifacts in flow or block lists.
	b.WriteString("\n")
	writeSection(&b, "bindings", "{}", resolved)
	bound := 0
	for _, a := range sp.Atoms {
		if a.Status != "resolved" {
			continue
		}
		bound++
		b.WriteString("  " + a.ID + ":\n")
		if bound%3 == 0 {
			b.WriteString("    summary: |\n      Resolved " + a.ID + ".\n      Tests added.\n")
		} else {
			b.WriteString("    summary: \"Resolved " + a.ID + "\"\n")
		}
		if bound%2 == 0 {
			b.WriteString("    artifacts:\n      - src/" + a.ID + ".go\n      - src/" + a.ID + "_test.go\n")
		} else {
			b.WriteString("    artifacts: [\"src/" + a.ID + ".go\"]\n")
		}
	}
	b.WriteString("\n")
	writeSection(&b, "trail", "[]", len(sp.Groups))
	for _, g := range sp.Groups {
		b.WriteString("  - or_group: " + g.Name + "\n    selected: " + g.Selected + "\n    reason: \"First choice\"\n    timestamp: \"2025-01-15T10:00:00Z\"\n")
	}
	b.WriteString("\ncorrections: []\n---\n\n# Original Prompt\n\nA generated loop.\n")
	return []byte(b.String())
}
