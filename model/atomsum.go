package model

// The atoms' statuses as Validate reads them: one byte an atom, so that
// the checks that look up the status of an atom's dependency, of an OR
// choice or of a binding's atom read 100 KB at 100,000 atoms rather than
// the atoms' 14 MB (issue 26).
const (
	stOther      uint8 = iota // a status the loop does not know, or none
	stPending                 // StatusPending
	stInProgress              // StatusInProgress
	stResolved                // StatusResolved
)

// statusCode is the code of status s.
func statusCode(s AtomStatus) uint8 {
	switch s {
	case StatusPending:
		return stPending
	case StatusInProgress:
		return stInProgress
	case StatusResolved:
		return stResolved
	}
	return stOther
}

// unresolvedCode is AtomStatus.Unresolved of the status of code c.
func unresolvedCode(c uint8) bool { return c == stPending || c == stInProgress }

// fieldNoID marks, beside fieldDescription, fieldStatus and
// fieldDependsOn, an atom without an id.
const fieldNoID uint8 = 1 << 3

// allFields are the fields an atom without a finding about them has.
const allFields = fieldDescription | fieldStatus | fieldDependsOn

// atomSum is what Validate reads of each atom, gathered in the pass over
// the atoms that builds the ids' table (scanAtoms): the checks then read
// these arrays and go back to an atom only for the text of a finding.
type atomSum struct {
	// st is each atom's status code (stPending, …).
	st []uint8
	// fields are the fields each atom has of those Validate asks about
	// (fieldDescription, …, fieldNoID).
	fields []uint8
	// depLine is the line of each atom's depends_on field (0: none).
	depLine []int32
	// orAtoms are the atoms with an or_group field, in order; orGroup
	// the first OR group of the name each names (names.first), -1 for
	// none, read from names (the shape's) as the atom is.
	orAtoms, orGroup []int32
	names            *groupNames
	groups           []ORGroup // those names indexes
	// lastGroup is the group the last atom with an or_group field named,
	// lastName that name (the next atom mostly names it too, or the
	// next group: names.firstNear).
	lastGroup int32
	lastName  string
	// off is where the dependencies of each atom start in g (and end:
	// len(atoms)+1 long), given to scanAtoms; g the atoms' dependencies
	// resolved, the shape's depGraph.
	off []int32
	g   depGraph
}

// add gathers atom i, a.
func (sum *atomSum) add(i int, a *Atom) {
	sum.st[i] = statusCode(a.Status)
	var has uint8
	for k := range a.Lines {
		switch a.Lines[k].Key {
		case "description":
			has |= fieldDescription
		case "status":
			has |= fieldStatus
		case "depends_on":
			if has&fieldDependsOn == 0 {
				sum.depLine[i] = int32(a.Lines[k].Line)
			}
			has |= fieldDependsOn
		}
	}
	if a.ID == "" {
		has |= fieldNoID
	}
	sum.fields[i] = has
	if a.ORGroup != "" {
		k := sum.lastGroup
		if a.ORGroup != sum.lastName || k < 0 {
			k = sum.names.firstNear(sum.groups, a.ORGroup, max(k, 0))
			sum.lastGroup, sum.lastName = k, a.ORGroup
		}
		sum.orAtoms, sum.orGroup = append(sum.orAtoms, int32(i)), append(sum.orGroup, k)
	}
}

// orAtomGroups calls each with every atom of s that has an or_group
// field, in order, and the first OR group of the name it names (-1: no
// group has it): from sum, which the pass over the atoms gathered them
// into, when there is one, else from the atoms.
func orAtomGroups(s *State, names *groupNames, sum *atomSum, each func(i int, k int32)) {
	if sum != nil {
		for x, i := range sum.orAtoms {
			each(int(i), sum.orGroup[x])
		}
		return
	}
	for i := range s.Atoms {
		if a := &s.Atoms[i]; a.ORGroup != "" {
			k, ok := names.first[a.ORGroup]
			if !ok {
				k = -1
			}
			each(i, k)
		}
	}
}

// groupNames indexes OR groups by name: of groups with one name the
// first is the one an or_group field names (State.ORGroup), the last the
// one whose selection counts (Facts.Outstanding).
type groupNames struct {
	// first is the first group of each name.
	first map[string]int32
	// firstOf, lastOf and next are, for each group, the first and the
	// last group of its name and the next one (-1: none).
	firstOf, lastOf, next []int32
}

// firstNear is first[name] (-1: no group has it), trying groups[k] and
// groups[k+1] (groups are those indexed) before the map: the names
// looked up one after another are mostly of one group or the next (a
// group's atoms, the trail's entries), and the map's keys are read at
// random, at 100,000 atoms from memory (issue 26).
func (gn *groupNames) firstNear(groups []ORGroup, name string, k int32) int32 {
	for c := max(k, 0); c <= k+1 && int(c) < len(groups); c++ {
		if groups[c].Name == name {
			return gn.firstOf[c]
		}
	}
	if f, ok := gn.first[name]; ok {
		return f
	}
	return -1
}

// nameGroups indexes groups by name.
func nameGroups(groups []ORGroup) *groupNames {
	n := len(groups)
	gn := &groupNames{first: make(map[string]int32, n), firstOf: make([]int32, n), lastOf: make([]int32, n), next: make([]int32, n)}
	for k := range groups {
		gn.next[k] = -1
		f, ok := gn.first[groups[k].Name]
		if !ok {
			f = int32(k)
			gn.first[groups[k].Name] = f
		} else {
			gn.next[gn.lastOf[f]] = int32(k)
		}
		// The last of the name so far is kept at its first.
		gn.firstOf[k], gn.lastOf[f] = f, int32(k)
	}
	for k := range groups {
		gn.lastOf[k] = gn.lastOf[gn.firstOf[k]]
	}
	return gn
}
