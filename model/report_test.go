package model

import (
	"reflect"
	"testing"
)

// TestReportNamesTheAtoms: each finding names the atoms it is about, the
// atom its path is in or every atom of a cycle, for the TUI to mark.
func TestReportNamesTheAtoms(t *testing.T) {
	s := state(-1, 0, 1, "A1:pending<A3", "A2:pending<A1", "A3:pending<A2", "A4:pending<A42", "A5:done")
	for i := range s.Atoms {
		s.Atoms[i].Line = 10 * (i + 1)
		s.Atoms[i].Lines = LinesOf(map[string]int{"description": 10*i + 11, "status": 10*i + 12, "depends_on": 10*i + 13})
	}
	got := map[string][]string{}
	for _, p := range Validate(s).Problems {
		if p.Atoms != nil {
			got[p.Message] = p.Atoms
		}
	}
	want := map[string][]string{
		"circular dependency: A1 -> A3 -> A2 -> A1":                                  {"A1", "A3", "A2"},
		"atom A4 depends on A42, which does not exist (the loop could never finish)": {"A4"},
		`atom A5 has status "done"; expected pending, in_progress or resolved`:       {"A5"},
	}
	for msg, ids := range want {
		if !reflect.DeepEqual(got[msg], ids) {
			t.Errorf("%q names %v, want %v (all: %v)", msg, got[msg], ids, got)
		}
	}
	for _, p := range Validate(s).Problems {
		if p.Path == "objective" && p.Atoms != nil {
			t.Errorf("%q is about no atom: %v", p.Message, p.Atoms)
		}
	}
}
