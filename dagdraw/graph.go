// Package dagdraw draws an AoT loop's work graph (the atom DAG) as a layered
// graph in box-drawing characters: Sugiyama layering by dependency depth,
// crossing reduction, compact coordinates, orthogonal edge routing, OR groups
// and decompositions as labelled frames, and a viewport that paints only the
// cells on screen.
//
// The package is pure: a Graph goes in, cells with style classes come out.
// It does not import Bubble Tea or choose colours; the UI maps each Class to
// a style (see Styler).
//
// Structure and decoration are separate. Structure (ids, edges, groups,
// decompositions, collapse state, orientation, node width) decides where
// every cell goes and is laid out by NewLayout / Layout.Update; decoration
// (status, executable, labels' text, OR selection, the cursor) only picks
// glyphs and classes at paint time. A status change therefore never re-runs
// layout and never moves a cell.
package dagdraw

import (
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"slices"
)

// Status is an atom's status as the graph shows it.
type Status uint8

// Statuses. Unknown covers values the schema does not define and atoms that
// are referenced but not defined.
const (
	Pending Status = iota
	InProgress
	Resolved
	Unknown
)

// Glyph is the status glyph drawn in a node: ○ pending, ◐ in progress,
// ● resolved, ? unknown.
func (s Status) Glyph() rune {
	switch s {
	case Pending:
		return '○'
	case InProgress:
		return '◐'
	case Resolved:
		return '●'
	}
	return '?'
}

// String names the status as the schema does.
func (s Status) String() string {
	switch s {
	case Pending:
		return "pending"
	case InProgress:
		return "in_progress"
	case Resolved:
		return "resolved"
	}
	return "unknown"
}

// Node is one atom. Only ID is structure; the rest is decoration.
type Node struct {
	ID string
	// Label is the atom's description. The caller sanitises it (no control
	// characters or escape sequences); it is measured in terminal cells and
	// truncated to the node's box.
	Label      string
	Status     Status
	Executable bool
}

// Edge is a dependency: To depends on From. From is drawn above (top-down)
// or left of (left-right) To, and the arrowhead is at To.
type Edge struct {
	From, To string
}

// ORGroup is a named set of alternative atoms. Name and Choices are
// structure; Selected and Failed are decoration.
type ORGroup struct {
	Name     string
	Choices  []string
	Selected string
	Failed   []string
}

// Decomp records that Parent was split into Children. The parent is drawn as
// a frame around its children when they share a layer, otherwise as a box
// with dotted "part of" links from each child.
type Decomp struct {
	Parent   string
	Children []string
}

// Graph is the input: nodes in a stable order (file order), edges, OR groups
// and decompositions. Ids referenced but not defined are drawn as dashed
// "missing" nodes rather than dropped.
type Graph struct {
	Nodes    []Node
	Edges    []Edge
	ORGroups []ORGroup
	Decomps  []Decomp
}

// FromState builds the graph of an AoT loop state: one node per atom (first
// of duplicate ids), one edge per distinct depends_on entry, the OR groups
// and decompositions. Descriptions are sanitised with termtext.Line. f may
// be nil, in which case it is derived.
func FromState(s *model.State, f *model.Facts) Graph {
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
	var g Graph
	if n > 0 {
		g.Nodes = make([]Node, 0, n)
	}
	if edges > 0 {
		g.Edges = make([]Edge, 0, edges)
	}
	for i, a := range s.Atoms {
		if !first[i] {
			continue
		}
		g.Nodes = append(g.Nodes, Node{
			ID:         a.ID,
			Label:      termtext.Line(a.Description),
			Status:     statusOf(a.Status),
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
			g.Edges = append(g.Edges, Edge{From: d, To: a.ID})
		}
	}
	for _, o := range s.ORGroups {
		g.ORGroups = append(g.ORGroups, ORGroup{
			Name:     o.Name,
			Choices:  append([]string(nil), o.Choices...),
			Selected: o.Selected,
			Failed:   append([]string(nil), o.Failed...),
		})
	}
	for _, d := range s.Decompositions {
		g.Decomps = append(g.Decomps, Decomp{Parent: d.Parent, Children: append([]string(nil), d.Children...)})
	}
	return g
}

func statusOf(s model.AtomStatus) Status {
	switch s {
	case model.StatusPending:
		return Pending
	case model.StatusInProgress:
		return InProgress
	case model.StatusResolved:
		return Resolved
	}
	return Unknown
}
