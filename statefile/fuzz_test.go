package statefile

import (
	"bytes"
	"slices"
	"testing"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/model"
)

// FuzzParse runs what reading a state file runs — frontmatter split,
// parse (and the fast and split parses, each compared with yaml.v3's, and
// the direct reading, compared with the node tree's decoding), derive,
// validate, gate, outlook, and the phase loop reader on the same bytes —
// and checks that it never panics, that errors are *Error values naming a
// line of the input, and that the derived facts hold their invariants.
// The seed corpus is in testdata/fuzz/FuzzParse: the fixtures and tricky
// cases (BOM, CRLF, aliases, nesting, bad UTF-8).
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\natoms: []\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		fm, splitErr := SplitFrontmatter(data)
		if splitErr == nil {
			// Large files are parsed in pieces, and files in the usual
			// layout by the fast parser: whenever either is accepted, it
			// must give the tree a whole parse with yaml.v3 gives.
			if _, _, err := fastyaml.Verify(fm.YAML(data)); err != nil {
				t.Fatal(err)
			}
		}
		// Parse reads the frontmatter straight into the model when the
		// Reader takes it (which Verify checked against the fast
		// parser): the Document must be the one the tree gives, errors
		// and lines included, with the atoms in one piece or in halves.
		checkDirect(t, data, "the input")
		doc, err := Parse(data)
		if err != nil {
			e, ok := ParseError(err)
			if !ok {
				t.Fatalf("Parse returned %T %v, want *Error", err, err)
			}
			if e.Line < 0 || e.Line > lines {
				t.Fatalf("error names line %d of %d: %v", e.Line, lines, err)
			}
			if bytes.ContainsRune([]byte(err.Error()), '\n') {
				t.Fatalf("error is not one line: %q", err)
			}
		} else {
			if splitErr != nil {
				t.Fatalf("Parse succeeded where SplitFrontmatter failed: %v", splitErr)
			}
			if doc.FM != fm {
				t.Fatalf("FM = %+v, SplitFrontmatter = %+v", doc.FM, fm)
			}
			if !(0 <= fm.YAMLStart && fm.YAMLStart <= fm.YAMLEnd && fm.YAMLEnd <= fm.BodyStart && fm.BodyStart <= len(data)) {
				t.Fatalf("offsets out of order: %+v", fm)
			}
			checkState(t, doc.State, lines)
		}

		p, err := ParsePhaseLoop(data)
		if err != nil {
			if _, ok := ParseError(err); !ok {
				t.Fatalf("ParsePhaseLoop returned %T %v", err, err)
			}
			return
		}
		r := model.ValidatePhaseLoop(p)
		if r.Valid != (len(r.Errors) == 0) {
			t.Fatalf("phase loop report: Valid %v with %d errors", r.Valid, len(r.Errors))
		}
		for _, pr := range r.Problems {
			if pr.Line < 0 || pr.Line > lines {
				t.Fatalf("phase loop problem on line %d of %d: %+v", pr.Line, lines, pr)
			}
		}
		p.RemainingPhases()
	})
}

func checkState(t *testing.T, s *model.State, lines int) {
	f := model.Derive(s)
	c := f.Counts
	if c.Total != len(s.Atoms) || c.Pending+c.InProgress+c.Resolved+c.Other != c.Total {
		t.Fatalf("Counts = %+v for %d atoms", c, len(s.Atoms))
	}
	seen := map[string]bool{}
	for _, id := range f.Executable {
		i, ok := f.Index[id]
		if !ok || s.Atoms[i].Status != model.StatusPending || seen[id] {
			t.Fatalf("Executable lists %q (index %d, ok %v, seen %v)", id, i, ok, seen[id])
		}
		seen[id] = true
	}
	if len(f.NextBatch) > len(f.Executable) || !slices.Equal(f.NextBatch, f.Executable[:len(f.NextBatch)]) {
		t.Fatalf("NextBatch %v is not a prefix of Executable %v", f.NextBatch, f.Executable)
	}
	for k, id := range f.LongestChain {
		i, ok := f.Index[id]
		if !ok || !s.Atoms[i].Status.Unresolved() {
			t.Fatalf("LongestChain has %q", id)
		}
		if k > 0 && !slices.Contains(s.Atoms[i].DependsOn, f.LongestChain[k-1]) {
			t.Fatalf("LongestChain: %s does not depend on %s", id, f.LongestChain[k-1])
		}
	}
	r := model.ValidateWith(s, f)
	if r.Valid != (len(r.Errors) == 0) || r.AtomCount != len(s.Atoms) {
		t.Fatalf("report: Valid %v, %d errors, atom_count %d of %d", r.Valid, len(r.Errors), r.AtomCount, len(s.Atoms))
	}
	for _, p := range r.Problems {
		if p.Line < 0 || p.Line > lines {
			t.Fatalf("problem on line %d of %d: %+v", p.Line, lines, p)
		}
	}
	g := model.GateWith(s, r)
	if g.Ready && (!r.Valid || len(g.Missing) != 0) {
		t.Fatalf("gate ready with %v", g.Missing)
	}
	model.PredictOutlook(s, f)
}
