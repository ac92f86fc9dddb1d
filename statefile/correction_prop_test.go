package statefile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"go.yaml.in/yaml/v3"
)

var correctionSeed = flag.Uint64("correction-seed", 0, "replay one state of TestCorrectionProperty (the seed it logs on failure)")

// TestCorrectionProperty: random valid states (gen.Generate, 1–500 atoms,
// in the template layout and converted to CRLF, with comment lines
// sprinkled in, or without blank lines) × random requests of every type
// with random arguments, valid and invalid. A planned correction applies,
// parses, validates with no new error, does what it says (checked against
// an oracle written here, not the planner's code), changes no line it did
// not target, and touches no atom it does not list as affected. A refused
// one is a *model.Refusal, and Update leaves the file's bytes alone.
func TestCorrectionProperty(t *testing.T) {
	states, perState := 160, 8
	if testing.Short() {
		states = 40
	}
	seeds := make([]uint64, 0, states)
	if *correctionSeed != 0 {
		seeds = append(seeds, *correctionSeed)
	} else {
		for i := range states {
			seeds = append(seeds, uint64(i+1)*0x9e3779b97f4a7c15)
		}
	}
	kinds := map[string][2]int{} // kind → planned, refused
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		data, layout := randomState(r, seed)
		doc, err := parseTree(data)
		if err != nil {
			t.Fatalf("seed %d (%s): generated state does not parse: %v", seed, layout, err)
		}
		if v := model.Validate(doc.State); !v.Valid {
			t.Fatalf("seed %d (%s): generated state is invalid: %v", seed, layout, v.Errors)
		}
		for k := range perState {
			req := randomRequest(r, doc.State)
			c := model.PlanContext{Now: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), Note: pick(r, "", "", "a note", "why: \"x\"")}
			planned, err := checkCorrection(doc, req, c)
			if err != nil {
				t.Fatalf("seed %d (%s, %d atoms), request %d: %s %#v\n%v\n(replay with -correction-seed %d)",
					seed, layout, len(doc.State.Atoms), k, req.Kind(), req, err, seed)
			}
			// Every fourth request also goes through Update on a real
			// file: the same bytes are written, or none when refused.
			if k%4 == 0 {
				if err := checkThroughUpdate(t, data, req, c); err != nil {
					t.Fatalf("seed %d (%s), request %d through Update: %s %#v\n%v", seed, layout, k, req.Kind(), req, err)
				}
			}
			n := kinds[req.Kind()]
			if planned {
				n[0]++
			} else {
				n[1]++
			}
			kinds[req.Kind()] = n
		}
		// Planning, refused or not, never modified the state it read.
		if fresh, _ := Parse(data); !reflect.DeepEqual(fresh.State, doc.State) {
			t.Fatalf("seed %d: planning modified the parsed state", seed)
		}
	}
	t.Logf("planned/refused by kind: %v", kinds)
	if *correctionSeed == 0 {
		for kind, n := range kinds {
			if n[0] == 0 || n[1] == 0 {
				t.Errorf("%s was planned %d and refused %d times: the generator should reach both", kind, n[0], n[1])
			}
		}
	}
}

// randomState is a generated state in one of four layouts.
func randomState(r *rand.Rand, seed uint64) ([]byte, string) {
	var n int
	switch x := r.IntN(10); {
	case x < 6:
		n = 1 + r.IntN(30)
	case x < 9:
		n = 31 + r.IntN(120)
	default:
		n = 151 + r.IntN(350)
	}
	data := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: r.Float64() * 0.9,
		ORGroups: r.IntN(n/6 + 2), Decompositions: r.IntN(n/10 + 2), Status: pick(r, "running", "running", "pending", "stopped")})
	switch r.IntN(4) {
	case 1:
		return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), "CRLF"
	case 2:
		return sprinkleComments(r, data), "comments"
	case 3:
		return dropBlankLines(data), "compact"
	}
	return data, "template"
}

// sprinkleComments inserts comment lines into the frontmatter, each
// indented like the line after it.
func sprinkleComments(r *rand.Rand, data []byte) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	var b strings.Builder
	inFM := false
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == "---" {
			if i > 0 {
				inFM = false
			} else {
				b.WriteString(l)
				inFM = true
				continue
			}
		}
		if inFM && r.IntN(6) == 0 {
			indent := len(l) - len(strings.TrimLeft(l, " "))
			fmt.Fprintf(&b, "%s# comment %d: keep me\n", strings.Repeat(" ", indent), i)
		}
		b.WriteString(l)
	}
	return []byte(b.String())
}

func dropBlankLines(data []byte) []byte {
	fm, _ := SplitFrontmatter(data)
	yml := strings.ReplaceAll(string(fm.YAML(data)), "\n\n", "\n")
	return []byte(string(data[:fm.YAMLStart]) + yml + string(data[fm.YAMLEnd:]))
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// texts are descriptions, reasons and summaries that stress quoting.
var texts = []string{
	"Plain words", "with: a colon", "# not a comment", `"quoted"`, "it's", "- a dash", "null", "true", "123", "2026-01-01",
	"[A1, A2]", "{a: b}", "two\nlines", "tab\there", "ünïcödé 文档 🚀", "trailing space ", "*star &amp !bang |pipe >gt %pct @at `tick`",
	"--- dashes", "...", "a # b", "    status: pending", "\x1b[31mred\x1b[0m", "", "   ",
}

func randomText(r *rand.Rand) string { return texts[r.IntN(len(texts))] }

// randomID is an existing atom's id most of the time.
func randomID(r *rand.Rand, s *model.State) string {
	if len(s.Atoms) > 0 && r.IntN(10) < 8 {
		return s.Atoms[r.IntN(len(s.Atoms))].ID
	}
	return pick(r, "A9999", "Z1", "", "a b", "A1 ")
}

func randomIDs(r *rand.Rand, s *model.State, max int) []string {
	var ids []string
	for range r.IntN(max + 1) {
		ids = append(ids, randomID(r, s))
	}
	return ids
}

func randomRequest(r *rand.Rand, s *model.State) model.Request {
	intp := func() *int {
		if r.IntN(3) == 0 {
			return nil
		}
		n := r.IntN(60) - 2
		return &n
	}
	strp := func(cur string) *string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return &cur
		}
		t := randomText(r)
		return &t
	}
	switch r.IntN(9) {
	case 0, 1:
		req := model.AddAtom{Description: randomText(r), DependsOn: randomIDs(r, s, 3)}
		switch r.IntN(6) {
		case 0:
			req.ID = randomID(r, s)
		case 1:
			req.ID = pick(r, "N1", "new-atom", "x.y_z", "bad id", "-x", "A"+strconv.Itoa(len(s.Atoms)+2))
		}
		if r.IntN(3) == 0 && len(s.ORGroups) > 0 {
			req.ORGroup = s.ORGroups[r.IntN(len(s.ORGroups))].Name
		} else if r.IntN(10) == 0 {
			req.ORGroup = "no_such_group"
		}
		if r.IntN(2) == 0 {
			req.RequiredBy = randomIDs(r, s, 2)
		}
		return req
	case 2:
		return model.DeleteAtom{ID: randomID(r, s), Detach: r.IntN(2) == 0}
	case 3:
		if len(s.ORGroups) == 0 || r.IntN(8) == 0 {
			return model.ForceOR{Group: pick(r, "no_such_group", "choice_1"), Choice: randomID(r, s)}
		}
		g := s.ORGroups[r.IntN(len(s.ORGroups))]
		choice := randomID(r, s)
		if r.IntN(4) > 0 {
			choice = g.Choices[r.IntN(len(g.Choices))]
		}
		return model.ForceOR{Group: g.Name, Choice: choice, Reason: randomText(r)}
	case 4:
		return model.ChangeConstraints{MaxIterations: intp(), MaxParallelAgents: intp(), MaxStallCount: intp()}
	case 5:
		o := s.Objective
		req := model.ChangeObjective{Goal: strp(o.Goal), BackgroundIntent: strp(o.BackgroundIntent),
			Deliverables: strp(o.Deliverables), DefinitionOfDone: strp(o.DefinitionOfDone)}
		if r.IntN(2) == 0 {
			var path model.ChecklistPath
			for range r.IntN(3) {
				path = append(path, r.IntN(3))
			}
			typ := pick(r, model.CheckCommand, model.CheckFile, model.CheckQuality, model.CheckNotFile, "", "bogus")
			req.Checks = []model.CheckEdit{{Op: pick(r, "set", "add", "remove", "rename"), Path: path, Item: pick(r, "", "New check", "Docs"),
				Type: typ, Value: pick(r, "", "make test", "docs/README.md", "go test ./...")}}
		}
		return req
	case 6:
		// Mostly resolved atoms: the others are refused.
		id := randomID(r, s)
		for range 5 {
			if a, ok := s.Atom(id); ok && a.Status == model.StatusResolved {
				break
			}
			id = randomID(r, s)
		}
		req := model.OverrideBinding{ID: id}
		switch r.IntN(3) {
		case 0:
			req.Redo = true
		default:
			if r.IntN(3) > 0 {
				t := randomText(r)
				req.Summary = &t
			}
			if r.IntN(2) == 0 {
				req.SetArtifacts = true
				req.Artifacts = [][]string{{}, {"a.go"}, {"src/x.go", "docs/y.md"}}[r.IntN(3)]
			}
		}
		return req
	case 7:
		return model.Stop{Reason: randomText(r)}
	}
	return model.SetRedirect{Requested: r.IntN(2) == 0}
}

// checkCorrection plans req on doc and checks the property; it reports
// whether the request was planned.
func checkCorrection(doc *Document, req model.Request, c model.PlanContext) (bool, error) {
	p, err := model.PlanCorrection(doc.State, req, c)
	if err != nil {
		var ref *model.Refusal
		if !errors.As(err, &ref) {
			return false, fmt.Errorf("planning failed with %T, not a refusal: %v", err, err)
		}
		if p != nil {
			return false, errors.New("a refusal came with a plan")
		}
		if ref.Rule == "" || strings.Contains(ref.Reason, "\n") {
			return false, fmt.Errorf("the refusal does not name its rule in one line: %q", ref.Error())
		}
		return false, nil
	}
	out, err := ApplyEdits(doc, p.Edits)
	if err != nil {
		return true, fmt.Errorf("the plan does not apply: %v\nedits: %v", err, p.Edits)
	}
	nd, err := parseTree(out)
	if err != nil {
		return true, fmt.Errorf("the corrected file does not parse: %v", err)
	}
	// On any file: only a new error is refused then (RuleStaysValid).
	if err := model.WritePolicy("state", doc.State, nd.State, true); err != nil {
		return true, fmt.Errorf("the corrected file has a new validation error: %v\n%s", err, UnifiedDiff("state", doc.Data, out))
	}
	if err := untouchedKept(doc, p.Edits, out); err != nil {
		return true, fmt.Errorf("%v\n%s", err, UnifiedDiff("state", doc.Data, out))
	}
	if err := sameLayout(doc.Data, out); err != nil {
		return true, err
	}
	if err := trailEntryKeys(nd, len(p.Trails)); err != nil {
		return true, err
	}
	if err := reflects(doc.State, req, p, nd.State); err != nil {
		return true, fmt.Errorf("%v\n%s", err, UnifiedDiff("state", doc.Data, out))
	}
	return true, nil
}

// trailEntryKeys checks that the last n trail entries of doc are written
// with exactly the schema's keys, in its order (seed 000 §4.7).
func trailEntryKeys(doc *Document, n int) error {
	if n == 0 {
		return nil
	}
	var trail *yaml.Node
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		if doc.Root.Content[i].Value == "trail" {
			trail = doc.Root.Content[i+1]
		}
	}
	if trail == nil || len(trail.Content) < n {
		return fmt.Errorf("the corrected file lacks the %d trail entries the plan appends", n)
	}
	for _, item := range trail.Content[len(trail.Content)-n:] {
		var keys []string
		for i := 0; i < len(item.Content); i += 2 {
			keys = append(keys, item.Content[i].Value)
		}
		if want := []string{"or_group", "selected", "reason", "timestamp"}; !slices.Equal(keys, want) {
			return fmt.Errorf("an appended trail entry has the keys %v, want %v", keys, want)
		}
	}
	return nil
}

// sameLayout: the body is byte-identical and a CRLF file stays CRLF.
func sameLayout(before, after []byte) error {
	fa, _ := SplitFrontmatter(before)
	fb, err := SplitFrontmatter(after)
	if err != nil {
		return err
	}
	if !bytes.Equal(fa.Body(before), fb.Body(after)) {
		return errors.New("the Markdown body changed")
	}
	if bytes.Contains(before, []byte("\r\n")) && bytes.Count(after, []byte("\n")) != bytes.Count(after, []byte("\r\n")) {
		return errors.New("a CRLF file gained bare LF line endings")
	}
	return nil
}

func checkThroughUpdate(t *testing.T, data []byte, req model.Request, c model.PlanContext) error {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	doc, _ := Parse(data)
	p, planErr := model.PlanCorrection(doc.State, req, c)
	res, err := Update(path, UpdateOptions{}, func(d *Document) (*model.Plan, error) {
		return model.PlanCorrection(d.State, req, c)
	})
	got, rerr := os.ReadFile(path)
	if rerr != nil {
		return rerr
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		return fmt.Errorf("files left next to the state file: %v", entries)
	}
	if planErr != nil {
		if !reflect.DeepEqual(err, planErr) || !bytes.Equal(got, data) {
			return fmt.Errorf("refused with %v; Update said %v and the file changed: %v", planErr, err, !bytes.Equal(got, data))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("Update failed on a plan that applies: %v", err)
	}
	want, _ := ApplyEdits(doc, p.Edits)
	if !res.Wrote || res.Attempts != 1 || !bytes.Equal(got, want) {
		return fmt.Errorf("Update wrote %v in %d attempts; the file is not ApplyEdits' output", res.Wrote, res.Attempts)
	}
	return nil
}

// reflects checks that the new state is the old one with the correction
// applied, by an oracle independent of the planner's code.
func reflects(old *model.State, req model.Request, p *model.Plan, nw *model.State) error {
	oldAtoms, newAtoms := atomMap(old), atomMap(nw)
	affected := map[string]bool{}
	for _, id := range p.Affected {
		affected[id] = true
	}
	// Atoms the plan does not list keep everything but their line.
	for _, a := range old.Atoms {
		if affected[a.ID] {
			continue
		}
		b, ok := newAtoms[a.ID]
		if !ok {
			return fmt.Errorf("atom %s is gone but not listed as affected", a.ID)
		}
		if a.Status != b.Status || a.Description != b.Description || !slices.Equal(a.DependsOn, b.DependsOn) || a.ORGroup != b.ORGroup {
			return fmt.Errorf("atom %s changed (%+v → %+v) but is not listed as affected", a.ID, a, b)
		}
	}
	for _, b := range old.Bindings {
		if affected[b.AtomID] {
			continue
		}
		if nb, ok := nw.Binding(b.AtomID); !ok || nb.Summary != b.Summary || !slices.Equal(nb.Artifacts, b.Artifacts) {
			return fmt.Errorf("the binding of %s changed but it is not listed as affected", b.AtomID)
		}
	}
	// corrections[]: one entry more when the plan records one.
	want := slices.Clone(old.Corrections)
	if c := p.Correction; c != nil {
		if c.Timestamp != "2026-02-03T04:05:06Z" || !c.Type.Known() || c.Description == "" {
			return fmt.Errorf("correction entry %+v", *c)
		}
		want = append(want, *c)
	}
	if err := sameCorrections(want, nw.Corrections); err != nil {
		return err
	}
	expect := correctionExpect{trail: old.Trail, affected: map[string]bool{}, control: old.Control, objective: old.Objective}

	switch r := req.(type) {
	case model.AddAtom:
		var id string
		for _, a := range nw.Atoms {
			if _, ok := oldAtoms[a.ID]; !ok {
				if id != "" {
					return fmt.Errorf("two new atoms: %s and %s", id, a.ID)
				}
				id = a.ID
			}
		}
		if id == "" {
			return errors.New("no new atom")
		}
		if given := strings.TrimSpace(r.ID); given != "" && id != given {
			return fmt.Errorf("new atom %s, asked for %s", id, given)
		} else if given == "" && id != nextFreeID(old) {
			return fmt.Errorf("new atom %s, the next free id is %s", id, nextFreeID(old))
		}
		a := newAtoms[id]
		if a.Status != model.StatusPending || a.Description != strings.TrimSpace(r.Description) || !slices.Equal(a.DependsOn, trimmedSet(r.DependsOn)) ||
			a.ORGroup != r.ORGroup || !a.Lines.Has("depends_on") {
			return fmt.Errorf("new atom %+v for %#v", a, r)
		}
		if r.ORGroup != "" {
			g, _ := nw.ORGroup(r.ORGroup)
			if n := count(g.Choices, id); n != 1 {
				return fmt.Errorf("OR group %s lists %s %d times", r.ORGroup, id, n)
			}
		}
		expect.affected[id] = true
		for _, rb := range trimmedSet(r.RequiredBy) {
			b := newAtoms[rb]
			if !slices.Equal(b.DependsOn, append(slices.Clone(oldAtoms[rb].DependsOn), id)) || b.Status != model.StatusPending {
				return fmt.Errorf("required-by atom %s is %+v", rb, b)
			}
			expect.affected[rb] = true
		}
	case model.DeleteAtom:
		if _, ok := newAtoms[r.ID]; ok || len(nw.Atoms) != len(old.Atoms)-1 {
			return fmt.Errorf("atom %s not deleted", r.ID)
		}
		expect.affected[r.ID] = true
		// The selected choice of an OR group hands its dependents to the
		// group's next choice (the first group that selects it); other
		// atoms' dependents lose the dependency.
		next := ""
		for _, g := range old.ORGroups {
			if g.Selected == r.ID {
				next = nextLiveChoice(g, oldAtoms, r.ID)
				break
			}
		}
		for _, a := range old.Atoms {
			if slices.Contains(a.DependsOn, r.ID) {
				expect.affected[a.ID] = true
				want := without(a.DependsOn, r.ID)
				if next != "" {
					want = movedDeps(a.DependsOn, r.ID, next)
				}
				if !slices.Equal(newAtoms[a.ID].DependsOn, want) {
					return fmt.Errorf("%s depends on %v, want %v", a.ID, newAtoms[a.ID].DependsOn, want)
				}
			}
		}
		if _, ok := nw.Binding(r.ID); ok {
			return fmt.Errorf("the binding of %s is left", r.ID)
		}
		for _, g := range old.ORGroups {
			ng, _ := nw.ORGroup(g.Name)
			if !slices.Equal(ng.Choices, without(g.Choices, r.ID)) || !slices.Equal(ng.Failed, without(g.Failed, r.ID)) {
				return fmt.Errorf("OR group %s is %+v", g.Name, ng)
			}
			sel := g.Selected
			if sel == r.ID {
				sel = nextLiveChoice(g, oldAtoms, r.ID)
			}
			if ng.Selected != sel {
				return fmt.Errorf("OR group %s selects %q, want %q", g.Name, ng.Selected, sel)
			}
			// The selection moved to another choice: the trail records it.
			if g.Selected == r.ID && sel != "" {
				expect.selections = append(expect.selections, model.TrailEntry{ORGroup: g.Name, Selected: sel})
			}
		}
		var wantDecomps []string
		for _, d := range old.Decompositions {
			if kids := without(d.Children, r.ID); d.Parent != r.ID && len(kids) > 0 {
				wantDecomps = append(wantDecomps, d.Parent+":"+strings.Join(kids, ","))
			}
		}
		var gotDecomps []string
		for _, d := range nw.Decompositions {
			gotDecomps = append(gotDecomps, d.Parent+":"+strings.Join(d.Children, ","))
		}
		if !slices.Equal(gotDecomps, wantDecomps) {
			return fmt.Errorf("decompositions %v, want %v", gotDecomps, wantDecomps)
		}
	case model.ForceOR:
		g, _ := old.ORGroup(r.Group)
		ng, _ := nw.ORGroup(r.Group)
		if ng.Selected != r.Choice || slices.Contains(ng.Failed, r.Choice) || !slices.Equal(ng.Choices, g.Choices) {
			return fmt.Errorf("OR group %s is %+v after forcing %s", r.Group, ng, r.Choice)
		}
		expect.selections = append(expect.selections, model.TrailEntry{ORGroup: r.Group, Selected: r.Choice})
		expect.affected[r.Choice] = true
		// What depended on the previous selection depends on the new
		// choice instead (once: a list that had both keeps only the new).
		if g.Selected != "" {
			for _, a := range old.Atoms {
				if !slices.Contains(a.DependsOn, g.Selected) {
					continue
				}
				want := movedDeps(a.DependsOn, g.Selected, r.Choice)
				if got := newAtoms[a.ID].DependsOn; !slices.Equal(got, want) {
					return fmt.Errorf("%s depends on %v, want %v (moved from %s to %s)", a.ID, got, want, g.Selected, r.Choice)
				}
				expect.affected[a.ID] = true
			}
		}
		if prev, ok := oldAtoms[g.Selected]; ok {
			var scope []string
			switch prev.Status {
			case model.StatusInProgress:
				scope = []string{prev.ID}
			case model.StatusResolved:
				scope = redoScope(old, prev.ID)
			}
			if err := resetTo(old, nw, scope, expect.affected); err != nil {
				return err
			}
		}
	case model.ChangeConstraints:
		c := &expect.objective.Constraints
		for _, f := range []struct {
			v    *int
			into *int
		}{{r.MaxIterations, &c.MaxIterations}, {r.MaxParallelAgents, &c.MaxParallelAgents}, {r.MaxStallCount, &c.MaxStallCount}} {
			if f.v != nil {
				*f.into = *f.v
			}
		}
	case model.ChangeObjective:
		o := &expect.objective
		for _, f := range []struct {
			v    *string
			into *string
		}{{r.Goal, &o.Goal}, {r.BackgroundIntent, &o.BackgroundIntent}, {r.Deliverables, &o.Deliverables}, {r.DefinitionOfDone, &o.DefinitionOfDone}} {
			if f.v != nil {
				*f.into = strings.TrimSpace(*f.v)
			}
		}
		expect.trail = nil
		if !p.TrailCleared || p.Correction.Type != model.CorrectionObjective || !p.Correction.TrailCleared {
			return errors.New("an objective change clears the trail and says so")
		}
		if err := checklistReflects(old, r, nw); err != nil {
			return err
		}
		expect.objective.BaseCase = nw.Objective.BaseCase
	case model.OverrideBinding:
		if r.Redo {
			scope := redoScope(old, r.ID)
			if err := resetTo(old, nw, scope, expect.affected); err != nil {
				return err
			}
			expect.trail = nil
			for _, t := range old.Trail {
				if t.Selected == "" || !slices.Contains(scope, t.Selected) {
					expect.trail = append(expect.trail, t)
				}
			}
			if cleared := len(expect.trail) < len(old.Trail); p.Correction.TrailCleared != cleared {
				return fmt.Errorf("trail_cleared %v, but %d of %d trail entries were cleared", p.Correction.TrailCleared, len(old.Trail)-len(expect.trail), len(old.Trail))
			}
			break
		}
		expect.affected[r.ID] = true
		b, ok := nw.Binding(r.ID)
		if !ok {
			return fmt.Errorf("no binding for %s", r.ID)
		}
		if r.Summary != nil && b.Summary != strings.TrimSpace(*r.Summary) || r.SetArtifacts && !slices.Equal(b.Artifacts, r.Artifacts) {
			return fmt.Errorf("binding %+v for %#v", b, r)
		}
	case model.Stop:
		expect.control.StopRequested = true
		expect.control.StopReason = strings.TrimSpace(r.Reason)
		if expect.control.StopReason == "" {
			expect.control.StopReason = "Stopped by user"
		}
	case model.SetRedirect:
		expect.control.RedirectRequested = r.Requested
	default:
		return fmt.Errorf("no oracle for %T", req)
	}

	// Trail: an entry appended for each OR selection the correction makes
	// (seed 000 §4.7: or_group, selected, reason, timestamp), none for
	// anything else.
	if len(p.Trails) != len(expect.selections) || (p.Trail == nil) != (len(p.Trails) == 0) {
		return fmt.Errorf("the plan appends trail entries %+v, want selections %+v", p.Trails, expect.selections)
	}
	for i, tr := range p.Trails {
		w := expect.selections[i]
		if tr.Type != "" || tr.ORGroup != w.ORGroup || tr.Selected != w.Selected || tr.Timestamp != "2026-02-03T04:05:06Z" || strings.TrimSpace(tr.Reason) == "" {
			return fmt.Errorf("trail entry %+v, want or_group %s, selected %s, a reason and the plan's timestamp", tr, w.ORGroup, w.Selected)
		}
	}
	expect.trail = append(slices.Clone(expect.trail), p.Trails...)

	var gotAffected []string
	for id := range expect.affected {
		gotAffected = append(gotAffected, id)
	}
	if !sameSet(gotAffected, p.Affected) {
		return fmt.Errorf("plan lists %v as affected, want %v", p.Affected, gotAffected)
	}
	if err := sameTrail(expect.trail, nw.Trail); err != nil {
		return err
	}
	if a, b := controlValues(expect.control), controlValues(nw.Control); a != b {
		return fmt.Errorf("control is %s, want %s", b, a)
	}
	if a, b := objectiveValues(expect.objective), objectiveValues(nw.Objective); a != b {
		return fmt.Errorf("objective is %s, want %s", b, a)
	}
	return nil
}

type correctionExpect struct {
	trail []model.TrailEntry
	// selections are the trail entries (or_group and selected) the
	// correction must append, in order.
	selections []model.TrailEntry
	affected   map[string]bool
	control    model.Control
	objective  model.Objective
}

// checklistReflects checks the one base_case edit of an objective change.
func checklistReflects(old *model.State, r model.ChangeObjective, nw *model.State) error {
	if len(r.Checks) == 0 {
		if baseCaseString(old.Objective.BaseCase) != baseCaseString(nw.Objective.BaseCase) {
			return errors.New("the base_case changed")
		}
		return nil
	}
	ce := r.Checks[0]
	list := func(bc model.BaseCase, path model.ChecklistPath) []model.ChecklistItem {
		items := bc.Checklist
		for _, n := range path {
			it := items[n]
			items = slices.Concat(it.Group, it.AnyOf)
		}
		return items
	}
	parent := ce.Path
	if ce.Op != "add" && len(parent) > 0 {
		parent = parent[:len(parent)-1]
	}
	switch ce.Op {
	case "add":
		ol, nl := list(old.Objective.BaseCase, parent), list(nw.Objective.BaseCase, parent)
		last := nl[len(nl)-1]
		if len(nl) != len(ol)+1 || last.Item != ce.Item || last.Check == nil || last.Check.Type != ce.Type {
			return fmt.Errorf("base_case item %q not added under %v: %+v", ce.Item, parent, nl)
		}
	case "remove":
		ol, nl := list(old.Objective.BaseCase, parent), list(nw.Objective.BaseCase, parent)
		i := ce.Path[len(ce.Path)-1]
		if !reflect.DeepEqual(stripItems(nl), stripItems(slices.Delete(slices.Clone(ol), i, i+1))) {
			return fmt.Errorf("base_case item %v not removed", ce.Path)
		}
	case "set":
		c := nw.Objective.BaseCase.Legacy
		if len(ce.Path) > 0 {
			nl := list(nw.Objective.BaseCase, parent)
			c = nl[ce.Path[len(ce.Path)-1]].Check
		}
		val := c.Value
		if c.Type == model.CheckQuality {
			val = c.Criteria
		}
		if ce.Type != "" && c.Type != ce.Type || ce.Value != "" && val != ce.Value {
			return fmt.Errorf("check %v is %s %q, want %s %q", ce.Path, c.Type, val, ce.Type, ce.Value)
		}
	}
	return nil
}

func baseCaseString(bc model.BaseCase) string {
	return fmt.Sprint(stripItems(bc.Checklist), bc.Legacy != nil)
}

func stripItems(items []model.ChecklistItem) []string {
	var out []string
	for _, it := range items {
		s := it.Item + "/" + it.Kind()
		if it.Check != nil {
			s += "/" + string(it.Check.Type) + "/" + it.Check.Value + it.Check.Criteria
		}
		s += fmt.Sprint(stripItems(it.Group), stripItems(it.AnyOf))
		out = append(out, s)
	}
	return out
}

// redoScope is id and everything built on it: its transitive dependents
// and the decomposed parents of any of them.
func redoScope(s *model.State, id string) []string {
	parentOf := map[string]string{}
	for _, d := range s.Decompositions {
		for _, c := range d.Children {
			parentOf[c] = d.Parent
		}
	}
	scope := []string{id}
	seen := map[string]bool{id: true}
	for i := 0; i < len(scope); i++ {
		x := scope[i]
		var next []string
		for _, a := range s.Atoms {
			if slices.Contains(a.DependsOn, x) {
				next = append(next, a.ID)
			}
		}
		if p, ok := parentOf[x]; ok {
			next = append(next, p)
		}
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				scope = append(scope, n)
			}
		}
	}
	return scope
}

// resetTo checks that the atoms of scope that were not pending are pending
// now and lost their bindings, and marks them affected.
func resetTo(old, nw *model.State, scope []string, affected map[string]bool) error {
	oldAtoms, newAtoms := atomMap(old), atomMap(nw)
	for _, id := range scope {
		a, ok := oldAtoms[id]
		if !ok || a.Status == model.StatusPending {
			continue
		}
		affected[id] = true
		if newAtoms[id].Status != model.StatusPending {
			return fmt.Errorf("%s is %s, want pending (redone)", id, newAtoms[id].Status)
		}
		if _, ok := nw.Binding(id); ok {
			return fmt.Errorf("%s was redone but keeps its binding", id)
		}
	}
	return nil
}

var seqRE = regexp.MustCompile(`^A(\d+)$`)

// nextFreeID is one past the highest A<n> named anywhere in s.
func nextFreeID(s *model.State) string {
	var names []string
	for _, a := range s.Atoms {
		names = append(append(names, a.ID), a.DependsOn...)
	}
	for _, g := range s.ORGroups {
		names = append(names, g.Choices...)
	}
	for _, d := range s.Decompositions {
		names = append(append(names, d.Parent), d.Children...)
	}
	high := 0
	for _, n := range names {
		if m := seqRE.FindStringSubmatch(n); m != nil {
			v, _ := strconv.Atoi(m[1])
			high = max(high, v)
		}
	}
	return "A" + strconv.Itoa(high+1)
}

func atomMap(s *model.State) map[string]model.Atom {
	m := map[string]model.Atom{}
	for _, a := range s.Atoms {
		m[a.ID] = a
	}
	return m
}

func trimmedSet(ids []string) []string {
	var out []string
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// movedDeps is a depends_on list with old moved onto next (once: a list
// that had both keeps only next).
func movedDeps(list []string, old, next string) []string {
	var want []string
	for _, d := range list {
		if d == old {
			d = next
		}
		if d != next || !slices.Contains(want, d) {
			want = append(want, d)
		}
	}
	return want
}

// nextLiveChoice is the choice of g that takes over from gone: the first
// other existing one that has not failed.
func nextLiveChoice(g model.ORGroup, atoms map[string]model.Atom, gone string) string {
	for _, c := range g.Choices {
		if _, ok := atoms[c]; ok && c != gone && !slices.Contains(g.Failed, c) {
			return c
		}
	}
	return ""
}

func without(ids []string, id string) []string {
	var out []string
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

func count(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func sameCorrections(want, got []model.Correction) error {
	if len(want) != len(got) {
		return fmt.Errorf("corrections[] has %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Timestamp != g.Timestamp || w.Type != g.Type || w.Description != g.Description || w.TrailCleared != g.TrailCleared {
			return fmt.Errorf("corrections[%d] is %+v, want %+v", i, g, w)
		}
	}
	return nil
}

func sameTrail(want, got []model.TrailEntry) error {
	if len(want) != len(got) {
		return fmt.Errorf("trail has %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Type != g.Type || len(w.Extra) != len(g.Extra) || w.ORGroup != g.ORGroup || w.Selected != g.Selected || w.Reason != g.Reason || w.Timestamp != g.Timestamp {
			return fmt.Errorf("trail[%d] is %+v, want %+v", i, g, w)
		}
	}
	return nil
}

func controlValues(c model.Control) string {
	return fmt.Sprintf("%s/%d/%d/%d/%v/%q/%v", c.Status, c.Iteration, c.StallCount, c.PrevPendingCount, c.StopRequested, c.StopReason, c.RedirectRequested)
}

func objectiveValues(o model.Objective) string {
	c := o.Constraints
	return fmt.Sprintf("%q/%q/%q/%q/%d/%d/%d/%s", o.Goal, o.BackgroundIntent, o.Deliverables, o.DefinitionOfDone,
		c.MaxIterations, c.MaxParallelAgents, c.MaxStallCount, baseCaseString(o.BaseCase))
}
