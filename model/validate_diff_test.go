package model_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// checkAgainstRef compares ValidateWith, StuckAtoms and PredictOutlook on
// s and f with the implementations they replaced (ValidateRef,
// StuckAtomsRef), which look every id up in f's maps; f also without its
// shape, as facts made otherwise come.
func checkAgainstRef(t *testing.T, what string, s *model.State, f *model.Facts) {
	t.Helper()
	// Validate derives what it reads itself, in its own pass over the
	// atoms (the status codes, fields and OR group members it gathers).
	if got, want := model.Validate(s), model.ValidateRef(s, model.Derive(s)); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Validate\n%+v\nwant\n%+v", what, got, want)
	}
	for _, facts := range []*model.Facts{f, model.WithoutShape(f)} {
		if got, want := model.ValidateWith(s, facts), model.ValidateRef(s, facts); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ValidateWith\n%+v\nwant\n%+v", what, got, want)
		}
		got, want := model.StuckAtoms(s, facts), model.StuckAtomsRef(s, facts)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: StuckAtoms\n%+v\nwant\n%+v", what, got, want)
		}
	}
}

// TestValidateMatchesReference checks the validator and the stuck finder,
// which read the work graph from the facts' shape, against the ones that
// looked each id up, on every state file of the test data, on generated
// loops and on random states full of what real ones lack.
func TestValidateMatchesReference(t *testing.T) {
	var files []string
	for _, dir := range []string{"valid", "invalid", "looptools"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	files = append(files, filepath.Join("..", "testdata", "rich.md"), filepath.Join("..", "testdata", "seed-complete.md"))
	parsed := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := statefile.Parse(data)
		if err != nil {
			continue // does not parse: nothing to validate
		}
		parsed++
		checkAgainstRef(t, name, doc.State, model.Derive(doc.State))
	}
	if parsed < 40 {
		t.Fatalf("only %d files of the test data parsed", parsed)
	}
	for _, n := range []int{1, 7, 60, 400} {
		for seed := uint64(1); seed <= 3; seed++ {
			data, _ := gen.GenerateSpec(n, seed)
			data2 := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 10, Decompositions: n / 12})
			for _, d := range [][]byte{data, data2} {
				doc, err := statefile.Parse(d)
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstRef(t, fmt.Sprintf("generated %d/%d", n, seed), doc.State, model.Derive(doc.State))
			}
		}
	}
	r := rand.New(rand.NewPCG(26, 4))
	for k := 0; k < 4000; k++ {
		s := richState(r)
		checkAgainstRef(t, fmt.Sprintf("random state %d", k), s, model.Derive(s))
	}
}

// TestValidateAlongDeriver validates chains of states as the watcher
// derives them, with one Deriver: most steps keep the work graph's shape
// (statuses, OR selections, lines, bindings change), so the facts share
// the shape of an earlier state, which the validator reads.
//
// A Validator goes along each chain too, with the Deriver's facts and
// with facts derived afresh (no shape shared): what it keeps of the last
// state must never show in its reports, nor in its outlooks (its memo of
// the stuck atoms), which must be PredictOutlook's.
func TestValidateAlongDeriver(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 5))
	clear := 0
	for chain := 0; chain < 300; chain++ {
		var d model.Deriver
		var shared, fresh model.Validator
		s := richState(r)
		for step := 0; step < 20; step++ {
			what := fmt.Sprintf("chain %d step %d", chain, step)
			f := d.Derive(s)
			checkAgainstRef(t, what, s, f)
			if got, want := shared.Validate(s, f), model.ValidateRef(s, f); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Validator\n%+v\nwant\n%+v", what, got, want)
			}
			if got, want := fresh.Validate(s, model.Derive(s)), model.ValidateRef(s, f); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Validator on fresh facts\n%+v\nwant\n%+v", what, got, want)
			}
			if got, want := shared.PredictOutlook(s, f), model.PredictOutlook(s, f); got != want {
				t.Fatalf("%s: Validator's outlook\n%+v\nwant\n%+v", what, got, want)
			}
			if got, want := fresh.PredictOutlook(s, model.Derive(s)), model.PredictOutlook(s, f); got != want {
				t.Fatalf("%s: Validator's outlook on fresh facts\n%+v\nwant\n%+v", what, got, want)
			}
			if shared.StuckClear() {
				clear++
			}
			s = richMutate(r, s)
		}
	}
	if clear < 50 {
		t.Fatalf("the stuck memo held no atom stuck in only %d of 6,000 steps", clear)
	}
}

// TestValidatorAlongReparse validates the versions of a loop's file as
// the watcher reads them (statefile.Reparse, which shares the entries
// whose text did not change, and a Deriver) with one Validator: the
// loop's writes, and edits that remove a field, add a dependency on
// nothing or on an atom twice, add a line above everything and add a
// binding, and a status the loop does not know. Its reports must be
// ValidateRef's, its outlooks PredictOutlook's.
func TestValidatorAlongReparse(t *testing.T) {
	base := gen.Generate(gen.Options{Atoms: 80, Seed: 4, Resolved: 0.4, ORGroups: 6, Decompositions: 5})
	// The writes start at iteration 100: past max_iterations, the outlook
	// would not look for stuck atoms.
	base = []byte(strings.Replace(string(base), "max_iterations: 40\n", "max_iterations: 100000\n", 1))
	next := gen.LoopWrites(base)
	r := rand.New(rand.NewPCG(26, 7))
	var doc *statefile.Document
	var d model.Deriver
	var vr model.Validator
	edits := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return replaceNth(r, s, "    description: ", "    note: ") },
		func(s string) string { return replaceNth(r, s, "    depends_on: [", "    depends_on: [X404, ") },
		func(s string) string { return replaceNth(r, s, "    depends_on: [A1", "    depends_on: [A1, A1") },
		func(s string) string { return strings.Replace(s, "---\n", "---\n# moved down\n", 1) },
		func(s string) string {
			return strings.Replace(s, "\nbindings:\n", "\nbindings:\n  A2:\n    summary: \"x\"\n", 1)
		},
		func(s string) string { return replaceNth(r, s, "    status: pending", "    status: blocked") },
	}
	checked, clear := 0, 0
	for step := 0; step < 120; step++ {
		data := edits[r.IntN(len(edits))](string(next()))
		var err error
		if doc, err = statefile.Reparse(doc, []byte(data)); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		f := d.Derive(doc.State)
		got, want := vr.Validate(doc.State, f), model.ValidateRef(doc.State, f)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: Validator\n%+v\nwant\n%+v", step, got, want)
		}
		if len(got.Problems) > 0 {
			checked++
		}
		if got, want := vr.PredictOutlook(doc.State, f), model.PredictOutlook(doc.State, f); got != want {
			t.Fatalf("step %d: Validator's outlook\n%+v\nwant\n%+v", step, got, want)
		}
		if vr.StuckClear() {
			clear++
		}
	}
	if checked < 20 || clear < 20 {
		t.Fatalf("only %d of 120 versions had findings, %d were taken as having no stuck atom", checked, clear)
	}
}

// replaceNth replaces a random one of the occurrences of old in s.
func replaceNth(r *rand.Rand, s, old, new string) string {
	n := strings.Count(s, old)
	if n == 0 {
		return s
	}
	k := r.IntN(n)
	at := 0
	for range k + 1 {
		i := strings.Index(s[at:], old)
		at += i + len(old)
	}
	return s[:at-len(old)] + new + s[at:]
}

// richState is randomState with what validation reads besides the work
// graph: the lines of each atom's fields (some missing), empty ids,
// descriptions, bindings, decoder problems, the sections' lines.
func richState(r *rand.Rand) *model.State {
	s := randomState(r)
	keys := []string{"id", "description", "status", "depends_on", "or_group"}
	for i := range s.Atoms {
		a := &s.Atoms[i]
		a.Line = 10 + 6*i
		a.Lines = model.Lines{}
		for k, key := range keys {
			if r.IntN(8) > 0 {
				a.Lines = a.Lines.With(key, a.Line+k)
			}
		}
		if r.IntN(2) == 0 {
			a.Description = "work " + a.ID
		}
		if r.IntN(25) == 0 {
			a.ID = ""
		}
	}
	for _, a := range s.Atoms {
		if r.IntN(3) == 0 {
			s.Bindings = append(s.Bindings, model.Binding{AtomID: a.ID, Line: 500 + len(s.Bindings)})
		}
	}
	if r.IntN(4) == 0 {
		s.Bindings = append(s.Bindings, model.Binding{AtomID: "nobody", Line: 499})
	}
	if len(s.Atoms) > 0 && r.IntN(5) == 0 {
		k := r.IntN(len(s.Atoms))
		s.Problems = append(s.Problems, model.Problem{Line: s.Atoms[k].Line, Path: fmt.Sprintf("atoms[%d].status", k), Message: "status should be text"})
	}
	s.Lines = model.LinesOf(map[string]int{"objective": 2, "control": 4})
	if r.IntN(6) > 0 {
		s.Lines = s.Lines.With("atoms", 9)
	}
	if r.IntN(2) == 0 {
		s.Lines = s.Lines.With("bindings", 498)
	}
	s.Control.Status = []model.LoopStatus{model.LoopRunning, model.LoopRunning, model.LoopCompleted, model.LoopStopped}[r.IntN(4)]
	for k := range s.ORGroups {
		g := &s.ORGroups[k]
		g.Line = 400 + 5*k
		g.Lines = model.LinesOf(map[string]int{"choices": g.Line + 1, "selected": g.Line + 2})
		if r.IntN(3) == 0 && len(g.Choices) > 0 {
			g.Failed = []string{g.Choices[r.IntN(len(g.Choices))]}
			g.Lines = g.Lines.With("failed", g.Line+3)
		}
	}
	return s
}

// richMutate is mutate, and now and then a change of what validation
// reads besides the work graph.
func richMutate(r *rand.Rand, s *model.State) *model.State {
	c := mutate(r, s)
	if c.Lines == nil {
		return richState(r) // mutate made a new state
	}
	switch r.IntN(5) {
	case 0: // the lines move (a line added above the atoms)
		c.Atoms = slices.Clone(c.Atoms)
		for i := range c.Atoms {
			a := &c.Atoms[i]
			a.Line++
			lines := model.Lines{}
			for _, kl := range a.Lines {
				lines = append(lines, model.KeyLine{Key: kl.Key, Line: kl.Line + 1})
			}
			a.Lines = lines
		}
	case 1: // a binding added or removed
		if len(c.Atoms) > 0 && r.IntN(2) == 0 {
			c.Bindings = append(slices.Clone(c.Bindings), model.Binding{AtomID: c.Atoms[r.IntN(len(c.Atoms))].ID, Line: 600})
		} else if len(c.Bindings) > 0 {
			c.Bindings = c.Bindings[:len(c.Bindings)-1]
		}
	case 2: // a field goes missing
		if len(c.Atoms) > 0 {
			c.Atoms = slices.Clone(c.Atoms)
			a := &c.Atoms[r.IntN(len(c.Atoms))]
			lines := model.Lines{}
			for _, kl := range a.Lines {
				if !strings.HasPrefix(kl.Key, "d") {
					lines = append(lines, kl)
				}
			}
			a.Lines = lines
		}
	case 3, 4: // a field renamed: as many fields as before, one of them other
		if len(c.Atoms) > 0 {
			c.Atoms = slices.Clone(c.Atoms)
			a := &c.Atoms[r.IntN(len(c.Atoms))]
			lines := model.Lines{}
			for _, kl := range a.Lines {
				if kl.Key == "status" || kl.Key == "description" {
					kl.Key = "x_" + kl.Key
				}
				lines = append(lines, kl)
			}
			model.SortLines(lines)
			a.Lines = lines
		}
	}
	return c
}

// TestValidatorAfterADecoderProblem validates a state whose decoder
// problem hides a finding about an atom (its status is of the wrong type,
// so the missing status is reported as that), then the next version with
// the same atoms and the problem gone: the Validator's memo of the atoms
// it found nothing about must not hide the finding now.
func TestValidatorAfterADecoderProblem(t *testing.T) {
	lines := model.LinesOf(map[string]int{"id": 10, "description": 11, "depends_on": 12})
	s := &model.State{
		Lines: model.LinesOf(map[string]int{"objective": 2, "control": 4, "atoms": 9}),
		Atoms: []model.Atom{
			{ID: "A1", Status: model.StatusPending, Line: 10, Lines: lines},
			{ID: "A2", Status: model.StatusPending, Line: 14, Lines: model.LinesOf(map[string]int{"id": 14, "description": 15, "status": 16, "depends_on": 17})},
		},
		Problems: []model.Problem{{Line: 11, Path: "atoms[0].status", Message: "status should be text"}},
	}
	var d model.Deriver
	var vr model.Validator
	for step := range 3 {
		f := d.Derive(s)
		if got, want := vr.Validate(s, f), model.ValidateRef(s, f); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: Validator\n%+v\nwant\n%+v", step, got, want)
		}
		c := *s
		c.Problems = nil
		c.Atoms = slices.Clone(s.Atoms)
		c.Atoms[1].Status = model.StatusInProgress
		s = &c
	}
}
