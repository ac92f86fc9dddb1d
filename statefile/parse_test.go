package statefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
	"go.yaml.in/yaml/v3"
)

func loadFixture(t *testing.T, name string) *Document {
	t.Helper()
	doc, err := Load(filepath.Join("..", "testdata", name), 0)
	if err != nil {
		t.Fatalf("Load %s: %v", name, err)
	}
	return doc
}

func mustParse(t *testing.T, s string) *Document {
	t.Helper()
	doc, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return doc
}

// TestSeedExamples checks the three complete examples of seed 000 against
// derived facts worked out by hand from the schema.
func TestSeedExamples(t *testing.T) {
	tests := []struct {
		file       string
		counts     model.Counts
		executable []string
		nextBatch  []string
		progress   model.Progress
		dependents map[string][]string
		orGroupOf  map[string]string
		parentOf   map[string]string
		childrenOf map[string][]string
		chain      []string
		warnings   []string
		gateReady  bool
		gateMiss   []string
		gateStatus string
		decision   model.Decision
	}{
		{
			// A2 is pending with A1 resolved, but it is the decomposed parent
			// of A3 (resolved) and A4 (in progress): a container, not
			// executable. A5 waits on A4. So nothing is executable.
			// Unresolved = 2 pending + 1 in progress = 3 = prev_pending_count.
			file:       "seed-complete.md",
			counts:     model.Counts{Total: 5, Pending: 2, InProgress: 1, Resolved: 2},
			executable: nil,
			nextBatch:  nil,
			progress:   model.ProgressStalled,
			dependents: map[string][]string{"A1": {"A2", "A3", "A4"}, "A3": {"A5"}, "A4": {"A5"}},
			orGroupOf:  map[string]string{"A4": "token_method", "A4_alt": "token_method"},
			parentOf:   map[string]string{"A3": "A2", "A4": "A2"},
			childrenOf: map[string][]string{"A2": {"A3", "A4"}},
			// Unresolved atoms A2, A4, A5; the only edge among them is A5 -> A4.
			chain: []string{"A4", "A5"},
			// The seed's own example names an OR choice that is not an atom,
			// and its inline comments are read by the loop's own tools as
			// part of the values (the plugin's hook and scripts, run on this
			// file: the hook exits 0 without a decision, and the loop ends).
			warnings: []string{
				"line 65: the stop hook reads control.status as 'running   # …' (inline comment, line 65): the loop will end; remove the comment",
				"line 68: the stop hook reads control.prev_pending_count as '3   # …' (inline comment, line 68): bash cannot compare it, so the hook counts every iteration as a stall; remove the comment",
				"line 77: read_state.py reads atoms[0].status as 'resolved   # …' (inline comment, line 77): the coordinator does not count A1 as resolved; remove the comment",
				"line 99: the loop's scripts read atoms[4].depends_on as [A3, 'A4]   # …'] (inline comment, line 99): A5 waits on an atom that does not exist and never runs; remove the comment",
				"line 110: OR group token_method lists choice A4_alt, which is not an atom (yet)",
			},
			gateMiss:   []string{"control.status must be 'pending' or 'stopped', got 'running'"},
			gateStatus: "running",
			decision:   model.DecisionStop,
		},
		{
			file:       "seed-initial-legacy.md",
			counts:     model.Counts{Total: 1, Pending: 1},
			executable: []string{"A1"},
			nextBatch:  []string{"A1"},
			progress:   model.ProgressFirst,
			dependents: map[string][]string{},
			orGroupOf:  map[string]string{},
			parentOf:   map[string]string{},
			childrenOf: map[string][]string{},
			chain:      []string{"A1"},
			gateReady:  true,
			gateMiss:   []string{},
			gateStatus: "pending",
			decision:   model.DecisionIdle,
		},
		{
			file:       "seed-initial-checklist.md",
			counts:     model.Counts{Total: 1, Pending: 1},
			executable: []string{"A1"},
			nextBatch:  []string{"A1"},
			progress:   model.ProgressFirst,
			dependents: map[string][]string{},
			orGroupOf:  map[string]string{},
			parentOf:   map[string]string{},
			childrenOf: map[string][]string{},
			chain:      []string{"A1"},
			gateReady:  true,
			gateMiss:   []string{},
			gateStatus: "pending",
			decision:   model.DecisionIdle,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc := loadFixture(t, tt.file)
			s := doc.State
			f := model.Derive(s)
			check := func(what string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", what, got, want)
				}
			}
			check("Counts", f.Counts, tt.counts)
			check("Executable", f.Executable, tt.executable)
			check("NextBatch", f.NextBatch, tt.nextBatch)
			check("Progress", f.Progress, tt.progress)
			check("Dependents", f.Dependents(), tt.dependents)
			check("ORGroupOf", f.ORGroupOf, tt.orGroupOf)
			check("ParentOf", f.ParentOf, tt.parentOf)
			check("ChildrenOf", f.ChildrenOf, tt.childrenOf)
			check("LongestChain", f.LongestChain, tt.chain)

			r := model.ValidateWith(s, f)
			if !r.Valid || len(r.Errors) != 0 {
				t.Errorf("seed example is invalid: %v", r.Errors)
			}
			if r.AtomCount != tt.counts.Total {
				t.Errorf("AtomCount = %d", r.AtomCount)
			}
			diffFindings(t, "warnings", r.Warnings, tt.warnings)

			g := model.GateWith(s, r)
			check("gate ready", g.Ready, tt.gateReady)
			check("gate missing", g.Missing, tt.gateMiss)
			if g.Status == nil || *g.Status != tt.gateStatus {
				t.Errorf("gate status = %v, want %q", g.Status, tt.gateStatus)
			}
			check("outlook", model.PredictOutlook(s, f).Decision, tt.decision)
			if !strings.Contains(s.Body, "# Original Prompt") {
				t.Errorf("Body = %q", s.Body)
			}
		})
	}
}

// TestSeedCompleteDecoded spot-checks the decoded seed example field by
// field: every section, both check forms, lines.
func TestSeedCompleteDecoded(t *testing.T) {
	s := loadFixture(t, "seed-complete.md").State
	o := s.Objective
	if o.Goal != "Implement authentication feature" || o.BackgroundIntent != "Enable existing users to log in" ||
		o.Deliverables != "Login API with JWT authentication" || o.DefinitionOfDone != "All auth tests pass" {
		t.Errorf("objective = %+v", o)
	}
	if c := o.Constraints; c.MaxIterations != 20 || c.MaxParallelAgents != 3 || c.MaxStallCount != 3 {
		t.Errorf("constraints = %+v", c)
	}
	b := o.BaseCase
	if !b.IsChecklist || b.Legacy != nil || len(b.Checklist) != 3 {
		t.Fatalf("base_case = %+v", b)
	}
	if g := b.Checklist[0]; g.Item != "Functional Requirements" || g.Kind() != "group" || len(g.Group) != 2 ||
		g.Group[1].Check.Value != "curl -f http://localhost:3000/api/auth/login" || g.Line != 15 {
		t.Errorf("checklist[0] = %+v", g)
	}
	if c := b.Checklist[1].Group[1].Check; c.Type != model.CheckNotCommand || c.Line != 34 {
		t.Errorf("not_command check = %+v", c)
	}
	q := b.Checklist[2].Check
	if q.Type != model.CheckQuality || !q.HasThreshold || q.PassThreshold != 3.5 || len(q.Rubric) != 2 {
		t.Fatalf("quality check = %+v", q)
	}
	wantLevels := []model.RubricLevel{{Score: 1, Text: "Poor design"}, {Score: 3, Text: "Mostly appropriate"}, {Score: 5, Text: "Excellent design"}}
	if r := q.Rubric[1]; r.Criterion != "Design" || r.Weight != 0.5 || !reflect.DeepEqual(r.Levels, wantLevels) {
		t.Errorf("rubric[1] = %+v", r)
	}
	c := s.Control
	if c.Status != model.LoopRunning || c.Iteration != 5 || c.StallCount != 0 || c.PrevPendingCount != 3 ||
		c.StopRequested || c.StopReason != "" || c.RedirectRequested || c.Lines.Line("status") != 65 {
		t.Errorf("control = %+v", c)
	}
	if a := s.Atoms[3]; a.ID != "A4" || a.Status != model.StatusInProgress || a.ORGroup != "token_method" ||
		!reflect.DeepEqual(a.DependsOn, []string{"A1"}) || a.Line != 90 || a.Lines.Line("or_group") != 94 {
		t.Errorf("atoms[3] = %+v", a)
	}
	if d := s.Decompositions; len(d) != 1 || d[0].Parent != "A2" || !reflect.DeepEqual(d[0].Children, []string{"A3", "A4"}) ||
		d[0].Reason != "Split auth logic into hashing and token" || d[0].Line != 103 {
		t.Errorf("decompositions = %+v", d)
	}
	if g := s.ORGroups; len(g) != 1 || g[0].Name != "token_method" || g[0].Selected != "A4" ||
		!reflect.DeepEqual(g[0].Choices, []string{"A4", "A4_alt"}) || g[0].Failed == nil || len(g[0].Failed) != 0 || g[0].Line != 109 {
		t.Errorf("or_groups = %+v", g)
	}
	if bs := s.Bindings; len(bs) != 2 || bs[1].AtomID != "A3" || bs[1].Summary != "Implemented hashing with bcrypt" ||
		!reflect.DeepEqual(bs[1].Artifacts, []string{"src/utils/auth.ts"}) || bs[1].Line != 119 {
		t.Errorf("bindings = %+v", bs)
	}
	if tr := s.Trail; len(tr) != 1 || tr[0].ORGroup != "token_method" || tr[0].Selected != "A4" ||
		tr[0].Reason != "JWT is stateless" || tr[0].Timestamp != "2025-01-15T10:00:00Z" || tr[0].Line != 125 {
		t.Errorf("trail = %+v", tr)
	}
	if len(s.Corrections) != 0 || !s.Lines.Has("corrections") || s.Lines.Line("corrections") != 131 {
		t.Errorf("corrections = %+v, line %d", s.Corrections, s.Lines.Line("corrections"))
	}
	if s.Extra != nil || len(s.Problems) != 0 {
		t.Errorf("Extra = %v, Problems = %v", s.Extra, s.Problems)
	}
}

func TestSeedLegacyBaseCase(t *testing.T) {
	s := loadFixture(t, "seed-initial-legacy.md").State
	b := s.Objective.BaseCase
	if b.IsChecklist || b.Legacy == nil || b.Legacy.Type != model.CheckCommand || b.Legacy.Value != "..." || b.Legacy.Line != 5 {
		t.Errorf("legacy base_case = %+v / %+v", b, b.Legacy)
	}
	if s.Control.PrevPendingCount != -1 || s.Control.Status != model.LoopPending {
		t.Errorf("control = %+v", s.Control)
	}
}

func TestDecodeBlockScalarsAndLists(t *testing.T) {
	s := loadFixture(t, "valid/block-scalars.md").State
	want := []model.Binding{
		{AtomID: "A1", Summary: "Created the User model.\nAdded a migration.", Artifacts: []string{"src/models/user.ts", "db/migrate/001.sql"}},
		{AtomID: "A2", Summary: "Folded text on two lines.", Artifacts: []string{"src/auth.ts", "src/auth_test.ts"}},
		{AtomID: "A3", Summary: "Kept without the final newline.", Artifacts: []string{}},
		{AtomID: "A4", Summary: "plain", Artifacts: nil},
	}
	if len(s.Bindings) != len(want) {
		t.Fatalf("%d bindings", len(s.Bindings))
	}
	for i, w := range want {
		b := s.Bindings[i]
		if b.AtomID != w.AtomID || b.Summary != w.Summary || !reflect.DeepEqual(b.Artifacts, w.Artifacts) {
			t.Errorf("binding %d = %q %q %#v, want %q %q %#v", i, b.AtomID, b.Summary, b.Artifacts, w.AtomID, w.Summary, w.Artifacts)
		}
	}
	if d := s.Atoms[2].DependsOn; !reflect.DeepEqual(d, []string{"A1", "A2"}) {
		t.Errorf("block depends_on = %#v", d)
	}
	if d := s.Atoms[4].DependsOn; !reflect.DeepEqual(d, []string{"A3", "A4"}) {
		t.Errorf("flow depends_on with a quoted id = %#v", d)
	}
	if got := s.Atoms[3].Description; got != "A description folded over two lines" {
		t.Errorf("folded description = %q", got)
	}
	if f := model.Derive(s); !reflect.DeepEqual(f.Executable, []string{"A5"}) {
		t.Errorf("Executable = %v", f.Executable)
	}
}

func TestDecodeNestedChecklist(t *testing.T) {
	s := loadFixture(t, "valid/checklist-nested.md").State
	cl := s.Objective.BaseCase.Checklist
	if len(cl) != 4 {
		t.Fatalf("%d top-level items", len(cl))
	}
	l1 := cl[0]
	if l1.Kind() != "group" || len(l1.Group) != 2 {
		t.Fatalf("level 1 = %+v", l1)
	}
	l2 := l1.Group[0]
	if l2.Kind() != "any_of" || l2.Item != "Level 2 any_of" || len(l2.AnyOf) != 2 {
		t.Fatalf("level 2 = %+v", l2)
	}
	l3 := l2.AnyOf[0]
	if l3.Kind() != "group" || len(l3.Group) != 2 {
		t.Fatalf("level 3 = %+v", l3)
	}
	if c := l3.Group[0].Check; c == nil || c.Type != model.CheckCommand || c.Value != "go test ./..." || c.Line != 13 {
		t.Errorf("flow-style check = %+v", c)
	}
	if c := l3.Group[1].Check; c.Type != model.CheckNotCommand || c.Value != "grep -r TODO src" {
		t.Errorf("not_command = %+v", c)
	}
	if c := l2.AnyOf[1].Check; c.Type != model.CheckFile || c.Value != "dist/app" {
		t.Errorf("file = %+v", c)
	}
	if c := l1.Group[1].Check; c.Type != model.CheckNotFile || c.Value != "dist/*.map" {
		t.Errorf("not_file = %+v", c)
	}
	if c := cl[1].Check; c.Type != model.CheckAssertion || c.Value != "The login page looks right" {
		t.Errorf("assertion = %+v", c)
	}
	rub := cl[2].Check
	if rub.Type != model.CheckQuality || rub.PassThreshold != 3.5 || rub.Scope != "src/**/*.ts" || len(rub.Rubric) != 2 {
		t.Fatalf("rubric check = %+v", rub)
	}
	r0 := rub.Rubric[0]
	if r0.Criterion != "Readability" || r0.Description != "Functions have a single responsibility" || r0.Weight != 0.4 ||
		!reflect.DeepEqual(r0.Levels, []model.RubricLevel{{Score: 1, Text: "Hard to read"}, {Score: 3, Text: "Mostly readable"}, {Score: 5, Text: "Very readable"}}) {
		t.Errorf("rubric[0] = %+v", r0)
	}
	crit := cl[3].Check
	if crit.Type != model.CheckQuality || crit.Criteria != "Functions under 20 lines, meaningful names" || crit.PassThreshold != 3 || crit.Rubric != nil {
		t.Errorf("criteria check = %+v", crit)
	}
}

func TestDecodeUnknownFieldsSurvive(t *testing.T) {
	s := loadFixture(t, "valid/unknown-fields.md").State
	tests := []struct {
		where string
		extra model.Extra
		key   string
		value any
		line  int
	}{
		{"top level", s.Extra, "x_dashboard", model.Extra{{Key: "colour", Value: "blue", Line: 3}}, 2},
		{"objective", s.Objective.Extra, "owner", "team-auth", 6},
		{"base_case", s.Objective.BaseCase.Extra, "strict", true, 8},
		{"checklist item", s.Objective.BaseCase.Checklist[0].Extra, "note", "run on CI too", 11},
		{"check", s.Objective.BaseCase.Checklist[0].Check.Extra, "timeout", 120, 15},
		{"rubric criterion", s.Objective.BaseCase.Checklist[1].Check.Rubric[0].Extra, "examples", []any{"good", "bad"}, 22},
		{"constraints", s.Objective.Constraints.Extra, "max_cost_usd", 5.5, 32},
		{"control", s.Control.Extra, "paused_at", nil, 41},
		{"atom", s.Atoms[0].Extra, "priority", "high", 47},
		{"atom (second field)", s.Atoms[0].Extra, "estimate", 3, 48},
		{"decomposition", s.Decompositions[0].Extra, "by", "coordinator", 63},
		{"OR group", s.ORGroups[0].Extra, "speculative", true, 69},
		{"binding", s.Bindings[0].Extra, "duration_s", 12.5, 74},
		{"trail entry", s.Trail[0].Extra, "actor", "coordinator", 80},
		{"correction", s.Corrections[0].Extra, "author", "someone", 86},
	}
	for _, tt := range tests {
		v, ok := tt.extra.Get(tt.key)
		if !ok {
			t.Errorf("%s: %s lost (Extra = %+v)", tt.where, tt.key, tt.extra)
			continue
		}
		if !reflect.DeepEqual(v, tt.value) {
			t.Errorf("%s: %s = %#v, want %#v", tt.where, tt.key, v, tt.value)
		}
		for _, f := range tt.extra {
			if f.Key == tt.key && f.Line != tt.line {
				t.Errorf("%s: %s on line %d, want %d", tt.where, tt.key, f.Line, tt.line)
			}
		}
	}
	// Known fields around the unknown ones still decode.
	if g := s.ORGroups[0]; g.Selected != "A2" || len(g.Choices) != 2 {
		t.Errorf("OR group = %+v", g)
	}
	if f := model.Derive(s); !reflect.DeepEqual(f.Executable, []string{"A2"}) {
		t.Errorf("Executable = %v (only the selected OR choice may run)", f.Executable)
	}
}

func TestDecodeAnchorsAndAliases(t *testing.T) {
	s := loadFixture(t, "valid/anchors.md").State
	if got := s.Objective.BackgroundIntent; got != "Shared description" {
		t.Errorf("background_intent = %q", got)
	}
	if c := s.Objective.Constraints; c.MaxParallelAgents != 2 || c.MaxIterations != 20 {
		t.Errorf("aliased constraints = %+v", c)
	}
	for _, i := range []int{1, 2} {
		if d := s.Atoms[i].DependsOn; !reflect.DeepEqual(d, []string{"A1"}) {
			t.Errorf("atoms[%d].depends_on = %v", i, d)
		}
	}
	if s.Atoms[0].Description != "Shared description" || s.Bindings[0].Summary != "Shared description" {
		t.Errorf("aliased scalars = %q, %q", s.Atoms[0].Description, s.Bindings[0].Summary)
	}
	if f := model.Derive(s); !reflect.DeepEqual(f.NextBatch, []string{"A2", "A3"}) {
		t.Errorf("NextBatch = %v", f.NextBatch)
	}
}

// TestParseBOMAndCRLF: values carry no \r, lines count from the top of the
// file, and the body keeps its bytes.
func TestParseBOMAndCRLF(t *testing.T) {
	doc := loadFixture(t, "valid/bom-crlf.md")
	s := doc.State
	if !doc.FM.BOM || !doc.FM.CRLF || doc.FM.FirstLine != 2 {
		t.Errorf("FM = %+v", doc.FM)
	}
	if s.Objective.Goal != "Written on Windows" || s.Control.StopReason != "none yet" {
		t.Errorf("goal %q, stop_reason %q", s.Objective.Goal, s.Control.StopReason)
	}
	for _, a := range s.Atoms {
		if strings.ContainsAny(a.ID+a.Description+string(a.Status), "\r\n") {
			t.Errorf("atom %+v keeps a line break", a)
		}
	}
	if a := s.Atoms[1]; a.Line != 27 || a.Lines.Line("depends_on") != 30 || !reflect.DeepEqual(a.DependsOn, []string{"A1"}) {
		t.Errorf("atoms[1] = %+v", a)
	}
	if !strings.HasPrefix(s.Body, "\r\n# Original Prompt\r\n") {
		t.Errorf("Body = %q", s.Body)
	}
	tree, err := parseTree(doc.Data)
	if err != nil {
		t.Fatal(err)
	}
	if root := tree.Root; root.Kind != yaml.MappingNode || root.Content[0].Value != "objective" || root.Content[0].Line+doc.LineOffset() != 2 {
		t.Errorf("root node = kind %v, first key %q on line %d", root.Kind, root.Content[0].Value, root.Content[0].Line)
	}
}

func TestParseBodyWithDashes(t *testing.T) {
	doc := loadFixture(t, "valid/body-dashes.md")
	body := doc.State.Body
	if !strings.Contains(body, "Part one.\n\n---\n\nPart two") || !strings.Contains(body, "---\nnot: yaml\n---\n") {
		t.Errorf("Body = %q", body)
	}
	if _, ok := doc.State.Extra.Get("not"); ok {
		t.Error("a key from the body leaked into the frontmatter")
	}
	if len(doc.State.Atoms) != 2 {
		t.Errorf("%d atoms", len(doc.State.Atoms))
	}
}

// TestParseErrors covers parse failures built in the test (the fixtures
// under testdata/invalid cover the rest): each is an *Error on one line
// that names the file's line.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"empty input", "", 1, "no YAML frontmatter"},
		{"BOM then text", "\xEF\xBB\xBFhello\n", 1, "no YAML frontmatter"},
		{"unclosed after blank lines", "\n\n---\na: 1\n", 1, "not closed"},
		{"CRLF syntax error", "---\r\na: 1\r\nb: [x\r\n---\r\n", 3, "did not find expected ',' or ']'"},
		{"BOM syntax error", "\xEF\xBB\xBF---\na: 1\n b: 2\n---\n", 3, "mapping values are not allowed"},
		{"tab indentation", "---\na:\n\tb: 1\n---\n", 3, "found character that cannot start any token"},
		{"unclosed quote", "---\na: 1\nb: \"open\nc: 2\n---\n", 3, "found unexpected end of stream"},
		{"frontmatter is a number", "---\n42\n---\n", 2, "not a mapping"},
		{"frontmatter is null", "---\n~\n---\n", 2, "not a mapping"},
		{"unknown anchor", "---\na: 1\nb:\n  - *nope\n---\n", 4, "unknown anchor 'nope'"},
		{"control character", "---\na: 1\nb: \"x\x01y\"\n---\n", 3, "control characters"},
		{"invalid UTF-8", "---\na: 1\n\nb: \xff\xfe\n---\n", 4, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			e, ok := ParseError(err)
			if !ok {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got line %d: %q; want line %d: …%s…", e.Line, e.Msg, tt.line, tt.msg)
			}
			if s := err.Error(); strings.Contains(s, "\n") || !strings.HasPrefix(s, fmt.Sprintf("state file line %d: ", tt.line)) {
				t.Errorf("Error() = %q", s)
			}
		})
	}
}

func TestLoadErrorNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, []byte("---\nobjective:\n  goal: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, 0)
	want := "state file " + path + " line 3: YAML syntax error: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want prefix %q", err, want)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.md"), 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestParseTypeErrorsKeepReading: a wrong type is a Problem with its line,
// not a failed parse; the rest of the file still decodes.
func TestParseTypeErrorsKeepReading(t *testing.T) {
	doc := mustParse(t, `---
control:
  status: running
  iteration: "abc"
atoms:
  - id: A1
    status: pending
    depends_on: A0
  - id: A2
    status: pending
    depends_on: [A1]
---
`)
	s := doc.State
	want := []model.Problem{
		{Line: 4, Path: "control.iteration", Message: `control.iteration should be an integer, not "abc"`},
		{Line: 8, Path: "atoms[0].depends_on", Message: `atoms[0].depends_on should be a list, not "A0"`},
	}
	if !reflect.DeepEqual(s.Problems, want) {
		t.Errorf("Problems = %+v", s.Problems)
	}
	if s.Control.Status != model.LoopRunning || len(s.Atoms) != 2 || s.Atoms[1].DependsOn[0] != "A1" {
		t.Errorf("the rest was not read: %+v", s)
	}
	if f := model.Derive(s); !reflect.DeepEqual(f.Executable, []string{"A1"}) {
		t.Errorf("Executable = %v", f.Executable)
	}
	doc = mustParse(t, "---\natoms:\n  A1: {status: pending}\n---\n")
	if p := doc.State.Problems; len(p) != 1 || p[0].Line != 3 || p[0].Message != "atoms should be a list, not a mapping" {
		t.Errorf("atoms as a mapping: %+v", p)
	}
}

func TestParseScalarForms(t *testing.T) {
	doc := mustParse(t, `---
objective:
  constraints:
    max_iterations: 0x1e
    max_parallel_agents: 1_0
    max_stall_count: 99999999999999999999
control:
  stop_requested: yes
  redirect_requested: True
  stop_reason: ~
atoms:
  - id: 7
    status: pending
    depends_on: [1.5, true]
---
`)
	s := doc.State
	if c := s.Objective.Constraints; c.MaxIterations != 30 || c.MaxParallelAgents != 10 {
		t.Errorf("hex and underscored integers = %+v", c)
	}
	if !s.Control.RedirectRequested || s.Control.StopReason != "" {
		t.Errorf("control = %+v", s.Control)
	}
	if a := s.Atoms[0]; a.ID != "7" || !reflect.DeepEqual(a.DependsOn, []string{"1.5", "true"}) {
		t.Errorf("atom = %+v", a)
	}
	// yaml.v3 reads YAML 1.2 booleans ("yes" is a string) but accepts
	// digit separators (1_0 is 10); an integer too large for int is
	// reported, not wrapped.
	var msgs []string
	for _, p := range s.Problems {
		msgs = append(msgs, p.String())
	}
	want := []string{
		`line 6: constraints.max_stall_count should be an integer, not the number 99999999999999999999`,
		`line 8: control.stop_requested should be true or false, not "yes"`,
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("Problems =\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// TestParseDuplicateSections: a section given twice is an error, and the
// later one wins as it does in YAML readers: its atoms are not added to
// the earlier ones.
func TestParseDuplicateSections(t *testing.T) {
	doc := mustParse(t, `---
atoms:
  - id: A1
    status: pending
    depends_on: []
atoms:
  - id: B1
    status: pending
    depends_on: []
trail:
  - reason: first
trail: []
---
`)
	s := doc.State
	if len(s.Atoms) != 1 || s.Atoms[0].ID != "B1" {
		t.Errorf("atoms = %+v", s.Atoms)
	}
	if len(s.Trail) != 0 {
		t.Errorf("trail = %+v", s.Trail)
	}
	var msgs []string
	for _, p := range s.Problems {
		msgs = append(msgs, p.String())
	}
	want := []string{`line 6: frontmatter has the key "atoms" twice`, `line 12: frontmatter has the key "trail" twice`}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("Problems = %q", msgs)
	}
}

// TestLinesWithOtherLineBreaks: yaml.v3 also breaks lines at a lone CR and
// at NEL, LS and PS; the lines we report count only \n, as editors do.
func TestLinesWithOtherLineBreaks(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"LS in a quoted description", "---\natoms:\n  - id: A1\n    description: \"one\u2028two\u2029three\"\n    status: done\n    depends_on: []\n---\n"},
		{"NEL in a quoted description", "---\natoms:\n  - id: A1\n    description: \"one\u0085two\"\n    status: done\n    depends_on: []\n---\n"},
		{"lone CR in a quoted description", "---\natoms:\n  - id: A1\n    description: \"one\rtwo\"\n    status: done\n    depends_on: []\n---\n"},
		{"CRLF with a lone CR", "---\r\natoms:\r\n  - id: A1\r\n    description: \"one\rtwo\"\r\n    status: done\r\n    depends_on: []\r\n---\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.in)
			a := doc.State.Atoms[0]
			if a.Lines.Line("status") != 5 || a.Lines.Line("depends_on") != 6 {
				t.Errorf("status on line %d, depends_on on line %d", a.Lines.Line("status"), a.Lines.Line("depends_on"))
			}
			r := model.Validate(doc.State)
			want := fmt.Sprintf("line %d: atom A1 has status \"done\"; expected pending, in_progress or resolved", a.Lines.Line("status"))
			if !slices.Contains(r.Errors, want) {
				t.Errorf("errors = %q, want %q among them", r.Errors, want)
			}
			tree, err := parseTree(doc.Data)
			if err != nil {
				t.Fatal(err)
			}
			statusKey := tree.Root.Content[1].Content[0].Content[4]
			if got := doc.FileLine(statusKey.Line); statusKey.Value != "status" || got != a.Lines.Line("status") {
				t.Errorf("FileLine(status node) = %d, want %d", got, a.Lines.Line("status"))
			}
		})
	}
	// yaml.v3 reads YAML 1.1 line breaks: a NEL in a block scalar ends the
	// line, so what follows it at column 0 is a syntax error, on the line
	// of the file that holds the NEL.
	_, err := Parse([]byte("---\natoms:\n  - id: A1\n    description: |\n      one\u0085two\n    status: done\n---\n"))
	if e, ok := ParseError(err); !ok || e.Line != 5 {
		t.Errorf("err = %v, want line 5", err)
	}
	// A syntax error after an LS names the file's line.
	_, err = Parse([]byte("---\na: \"x\u2028y\"\nb: c: d\n---\n"))
	if e, ok := ParseError(err); !ok || e.Line != 3 {
		t.Errorf("err = %v, want line 3", err)
	}
}
