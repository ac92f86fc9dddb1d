package textdiff

import (
	"bytes"
	"slices"
	"strings"
)

// Conflict is a place where ours and theirs changed the same part of base
// in different ways. BaseStart and BaseEnd give the base lines involved,
// base[BaseStart:BaseEnd] counting from 0, with BaseStart == BaseEnd for a
// place between two lines where both sides inserted. Base is the text of
// those lines, and Ours and Theirs what each side has in their place.
type Conflict struct {
	BaseStart, BaseEnd int
	Base, Ours, Theirs string
}

// Merge3 merges line by line the changes from base to ours and from base
// to theirs: the result is base with both sets of changes applied. Each
// side's changes are the runs of deleted and inserted lines of a minimal
// [Diff] from base, each replacing a range of base lines (an empty range
// for a pure insertion). Two changes, one from each side:
//
//   - merge when their base ranges are disjoint, even when they touch:
//     ours changing line 10 and theirs line 11 keeps both, in base order.
//     An insertion at the start or end of the other side's range is
//     disjoint from it too, and goes before or after that range;
//   - merge once when they are identical: both sides made the same change;
//   - conflict when both insert at the same place with different text;
//   - conflict when their ranges overlap (an insertion strictly inside the
//     other side's range counts as overlapping) and the two sides' text
//     for the overlapped lines differs.
//
// Overlap is transitive: a chain of overlapping changes from both sides
// is one conflict, unless both sides end up with the same text for the
// chain's whole base range.
//
// One more rule keeps lines whole: a change whose text ends the file
// without a final newline also holds the place after the last base line,
// so an insertion there by the other side conflicts with it instead of
// being glued onto its last line.
//
// Lines are compared with their endings, so a change from "\n" to "\r\n"
// endings is a change to every line. When there are conflicts, Merge3
// returns a nil result and the conflicts in base order; otherwise it
// returns the merged text (never nil, even when empty) and no conflicts.
func Merge3(base, ours, theirs []byte) (merged []byte, conflicts []Conflict) {
	bl := SplitLines(string(base))
	ol, tl := SplitLines(string(ours)), SplitLines(string(theirs))
	oh := changes(bl, ol, false)
	th := changes(bl, tl, true)

	all := make([]change, 0, len(oh)+len(th))
	for i, j := 0, 0; i < len(oh) || j < len(th); {
		if j == len(th) || i < len(oh) && oh[i].lo <= th[j].lo {
			all = append(all, oh[i])
			i++
		} else {
			all = append(all, th[j])
			j++
		}
	}

	var out bytes.Buffer
	out.Grow(max(0, len(ours)+len(theirs)-len(base)))
	pos := 0 // base lines before pos are written out
	emit := func(s, e int, text []string) {
		for _, l := range bl[pos:s] {
			out.WriteString(l)
		}
		for _, l := range text {
			out.WriteString(l)
		}
		pos = e
	}
	for k := 0; k < len(all); {
		// The next change and every change that overlaps it or, in turn,
		// those.
		l, hi := k+1, all[k].hi
		for l < len(all) && all[l].lo <= hi {
			hi = max(hi, all[l].hi)
			l++
		}
		cluster := all[k:l]
		k = l
		if len(cluster) == 1 {
			emit(cluster[0].s, cluster[0].e, cluster[0].text)
			continue
		}
		s, e := cluster[0].s, cluster[0].e
		for _, c := range cluster[1:] {
			e = max(e, c.e)
		}
		o, t := applyChanges(bl, s, e, cluster, false), applyChanges(bl, s, e, cluster, true)
		if slices.Equal(o, t) {
			emit(s, e, o)
			continue
		}
		conflicts = append(conflicts, Conflict{
			BaseStart: s, BaseEnd: e,
			Base:   strings.Join(bl[s:e], ""),
			Ours:   strings.Join(o, ""),
			Theirs: strings.Join(t, ""),
		})
	}
	if len(conflicts) > 0 {
		return nil, conflicts
	}
	emit(len(bl), len(bl), nil)
	if out.Len() == 0 {
		return []byte{}, nil // not nil: nil means conflicts
	}
	return out.Bytes(), nil
}

// change is one side's replacement of base[s:e] by text. lo and hi place
// it on a line where base line i is the point 2i+1 and the place
// before it the point 2i: a change over lines s to e-1 spans
// 2s+1 to 2e-1, an insertion before line s the point 2s. Two changes
// overlap when their spans share a point.
type change struct {
	lo, hi int
	s, e   int
	text   []string
	theirs bool
}

// changes lists side's changes from base, in order. Changes of one side
// are separated by at least one unchanged line, so they never overlap.
func changes(base, side []string, theirs bool) []change {
	ops := Diff(base, side)
	var cs []change
	for i := 0; i < len(ops); i++ {
		if ops[i].Kind == Equal {
			continue
		}
		j := i
		for j+1 < len(ops) && ops[j+1].Kind != Equal {
			j++
		}
		c := change{s: ops[i].A0, e: ops[j].A1, text: side[ops[i].B0:ops[j].B1], theirs: theirs}
		if c.s == c.e {
			c.lo, c.hi = 2*c.s, 2*c.s
		} else {
			c.lo, c.hi = 2*c.s+1, 2*c.e-1
		}
		if n := len(c.text); n > 0 && ops[j].B1 == len(side) && !strings.HasSuffix(c.text[n-1], "\n") {
			c.hi = 2 * len(base) // the end of the file: see Merge3
		}
		cs = append(cs, c)
		i = j
	}
	return cs
}

// applyChanges returns base[s:e] with the changes of one side in cluster
// applied.
func applyChanges(base []string, s, e int, cluster []change, theirs bool) []string {
	var out []string
	pos := s
	for _, c := range cluster {
		if c.theirs != theirs {
			continue
		}
		out = append(out, base[pos:c.s]...)
		out = append(out, c.text...)
		pos = c.e
	}
	return append(out, base[pos:e]...)
}
