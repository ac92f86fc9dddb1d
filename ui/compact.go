package ui

import (
	"container/heap"
	"sort"
	"strings"

	"github.com/aot-loop/aot-tui/model"
)

// structureKey fingerprints what a graph layout depends on: ids, edges,
// OR groups and decompositions, not statuses or text. Layouts are rebuilt
// only when it changes. It is FNV-1a over each part followed by a zero
// byte, hashed in place: it runs on every write, and hash.Hash's Write
// copied each part to the heap.
func structureKey(s *model.State) uint64 {
	h := fnvKey(fnvOffset)
	for _, a := range s.Atoms {
		h = h.add("a").add(a.ID).add(a.ORGroup).add(a.DependsOn...)
	}
	for _, g := range s.ORGroups {
		h = h.add("g").add(g.Name).add(g.Choices...)
	}
	for _, d := range s.Decompositions {
		h = h.add("d").add(d.Parent).add(d.Children...)
	}
	return uint64(h)
}

// fnvKey is a 64-bit FNV-1a hash (hash/fnv's New64a) being computed.
type fnvKey uint64

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// add hashes each part and a zero byte after it.
func (h fnvKey) add(parts ...string) fnvKey {
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h ^= fnvKey(p[i])
			h *= fnvPrime
		}
		h *= fnvPrime // the zero byte: h ^= 0 changes nothing
	}
	return h
}

// compactLayout is the list layout of the work graph: atoms in topological
// order (file order where the graph allows), indented by dependency depth.
// It serves narrow panes and graphs too big for the layered drawing.
type compactLayout struct {
	key uint64
	// order lists atom indexes (into State.Atoms) in display order.
	order []int
	// depth is each atom's dependency depth (longest path from a root).
	depth []int
	// row maps an atom id to its position in order.
	row map[string]int
	// layers is the number of depths; widest the most atoms of one depth
	// that the drawing shows as boxes (a decomposed parent is a frame).
	layers, widest int
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// buildCompact orders atoms with Kahn's algorithm, taking the earliest atom
// in the file among those ready, so the list reads like the file wherever
// the dependencies allow. Atoms on a cycle (a validation error) are
// appended in file order.
func buildCompact(s *model.State, f *model.Facts) *compactLayout {
	n := len(s.Atoms)
	l := &compactLayout{key: structureKey(s), depth: make([]int, n), row: make(map[string]int, n)}
	indeg := make([]int, n)
	outs := make([][]int, n)
	first := func(i int) bool { return f.Index[s.Atoms[i].ID] == i }
	for i, a := range s.Atoms {
		if !first(i) {
			continue
		}
		seen := map[int]bool{}
		for _, d := range a.DependsOn {
			j, ok := f.Index[d]
			if !ok || seen[j] || j == i {
				continue
			}
			seen[j] = true
			indeg[i]++
			outs[j] = append(outs[j], i)
		}
	}
	h := &intHeap{}
	for i := 0; i < n; i++ {
		if first(i) && indeg[i] == 0 {
			*h = append(*h, i)
		}
	}
	heap.Init(h)
	placed := make([]bool, n)
	for h.Len() > 0 {
		i := heap.Pop(h).(int)
		placed[i] = true
		l.order = append(l.order, i)
		for _, j := range outs[i] {
			if l.depth[i]+1 > l.depth[j] {
				l.depth[j] = l.depth[i] + 1
			}
			indeg[j]--
			if indeg[j] == 0 {
				heap.Push(h, j)
			}
		}
	}
	for i := 0; i < n; i++ {
		if !placed[i] {
			l.order = append(l.order, i) // cycles and duplicate ids
		}
	}
	for r, i := range l.order {
		if _, ok := l.row[s.Atoms[i].ID]; !ok {
			l.row[s.Atoms[i].ID] = r
		}
	}
	perDepth := map[int]int{}
	for i, d := range l.depth {
		l.layers = max(l.layers, d+1)
		if len(f.ChildrenOf[s.Atoms[i].ID]) == 0 {
			perDepth[d]++
			l.widest = max(l.widest, perDepth[d])
		}
	}
	return l
}

// atomMatches reports whether an atom matches a filter: its id, its
// description, or its status ("pending", "in_progress", "resolved", also
// "status:pending"), case-insensitively. Every word must match.
func atomMatches(a *model.Atom, filter string) bool {
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		w = strings.TrimPrefix(w, "status:")
		if strings.Contains(strings.ToLower(a.ID), w) ||
			strings.Contains(strings.ToLower(a.Description), w) ||
			strings.Contains(strings.ToLower(string(a.Status)), w) ||
			(w == "in progress" || w == "running") && a.Status == model.StatusInProgress ||
			strings.Contains(strings.ToLower(a.ORGroup), w) {
			continue
		}
		return false
	}
	return true
}

// sortedIDs returns ids ordered by their display row (unknown ids last).
func (l *compactLayout) sortedIDs(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, oki := l.row[out[i]]
		rj, okj := l.row[out[j]]
		if oki != okj {
			return oki
		}
		return ri < rj
	})
	return out
}
