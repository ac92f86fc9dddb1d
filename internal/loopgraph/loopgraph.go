// Package loopgraph turns an AoT loop's state into the input of the layout
// engine (dagdraw): one node per atom, its dependencies as edges, the OR
// groups and the decompositions. The TUI's graph pane and the post-mortem
// report draw from it; dagdraw itself knows nothing of the loop's model.
package loopgraph

import (
	"slices"

	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
)

// FromState builds the graph of an AoT loop state: one node per atom (first
// of duplicate ids), one edge per distinct depends_on entry, the OR groups
// and decompositions. Descriptions are sanitised with termtext.Line. f may
// be nil, in which case it is derived.
func FromState(s *model.State, f *model.Facts) dagdraw.Graph {
	if f == nil {
		f = model.Derive(s)
	}
	exec := make(map[string]bool, len(f.Executable))
	for _, id := range f.Executable {
		exec[id] = true
	}
	// first[i]: atom i is the first of its id (f.Index names it). This
	// runs on every write of the loop: one map lookup per atom, and edges
	// deduplicated within an atom's few dependencies by a scan rather than
	// a map per atom (7 ms and 4 MB a write at 10,000 atoms before).
	first := make([]bool, len(s.Atoms))
	n, edges := 0, 0
	var seen map[string]bool // ids f.Index does not name, if any
	for i, a := range s.Atoms {
		k, ok := f.Index[a.ID]
		if !ok {
			if seen == nil {
				seen = map[string]bool{}
			}
			k, ok = i, !seen[a.ID]
			seen[a.ID] = true
		}
		if ok && k == i {
			first[i] = true
			n++
			edges += len(a.DependsOn)
		}
	}
	var g dagdraw.Graph
	if n > 0 {
		g.Nodes = make([]dagdraw.Node, 0, n)
	}
	if edges > 0 {
		g.Edges = make([]dagdraw.Edge, 0, edges)
	}
	for i, a := range s.Atoms {
		if !first[i] {
			continue
		}
		g.Nodes = append(g.Nodes, dagdraw.Node{
			ID:         a.ID,
			Label:      termtext.Line(a.Description),
			Status:     StatusOf(a.Status),
			Executable: exec[a.ID],
		})
	}
	var deps map[string]bool
	for i, a := range s.Atoms {
		if !first[i] {
			continue
		}
		if len(a.DependsOn) > 16 {
			clear(deps)
			if deps == nil {
				deps = map[string]bool{}
			}
		}
		for k, d := range a.DependsOn {
			if len(a.DependsOn) > 16 {
				if deps[d] {
					continue
				}
				deps[d] = true
			} else if slices.Contains(a.DependsOn[:k], d) {
				continue
			}
			g.Edges = append(g.Edges, dagdraw.Edge{From: d, To: a.ID})
		}
	}
	for _, o := range s.ORGroups {
		g.ORGroups = append(g.ORGroups, dagdraw.ORGroup{
			Name:     o.Name,
			Choices:  append([]string(nil), o.Choices...),
			Selected: o.Selected,
			Failed:   append([]string(nil), o.Failed...),
		})
	}
	for _, d := range s.Decompositions {
		g.Decomps = append(g.Decomps, dagdraw.Decomp{Parent: d.Parent, Children: append([]string(nil), d.Children...)})
	}
	return g
}

// StatusOf is an atom's status in the drawing.
func StatusOf(s model.AtomStatus) dagdraw.Status {
	switch s {
	case model.StatusPending:
		return dagdraw.Pending
	case model.StatusInProgress:
		return dagdraw.InProgress
	case model.StatusResolved:
		return dagdraw.Resolved
	}
	return dagdraw.Unknown
}

// FlagsOf are the atoms validation findings are about, with their flag:
// ! (dagdraw.FlagError) for an atom an error names, ⚠
// (dagdraw.FlagWarning) for one only warnings name. Nil for none.
func FlagsOf(r *model.Report) map[string]dagdraw.Flag {
	if r == nil {
		return nil
	}
	var level map[string]dagdraw.Flag
	for _, p := range r.Problems {
		f := dagdraw.FlagWarning
		if p.Severity == "error" {
			f = dagdraw.FlagError
		}
		for _, id := range p.Atoms {
			if level == nil {
				level = map[string]dagdraw.Flag{}
			}
			level[id] = max(level[id], f)
		}
	}
	return level
}

// Flags flags the nodes of g that validation findings are about (FlagsOf).
func Flags(g *dagdraw.Graph, r *model.Report) {
	level := FlagsOf(r)
	if len(level) == 0 {
		return
	}
	for i := range g.Nodes {
		if f, ok := level[g.Nodes[i].ID]; ok {
			g.Nodes[i].Flag = f
		}
	}
}
