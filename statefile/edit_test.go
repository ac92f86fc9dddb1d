package statefile

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

var updateEdits = flag.Bool("update", false, "rewrite the golden files of the edit tests")

// Inputs of the golden edit tests.
const (
	seedComplete  = "../testdata/seed-complete.md"
	seedChecklist = "../testdata/seed-initial-checklist.md"
	inCommented   = "testdata/edits/commented.md" // template layout, comments, blank lines
	inCRLF        = "testdata/edits/crlf.md"      // commented.md with CRLF endings
	inBOM         = "testdata/edits/bom.md"       // the legacy initial template after a BOM
	inBlock       = "testdata/edits/block.md"     // lists at column 0, block depends_on, plain strings
	inUnknown     = "testdata/edits/unknown.md"   // unknown fields everywhere, single quotes
	inIndent4     = "testdata/edits/indent4.md"   // 4-space mappings, "-   " items
)

var (
	P     = model.P
	ts    = "2025-01-15T11:00:00Z"
	atom6 = model.Map{
		{Key: "id", Value: "A6"},
		{Key: "description", Value: "Rate-limit login attempts"},
		{Key: "status", Value: "pending"},
		{Key: "depends_on", Value: model.Flow{"A1", "A4"}},
	}
	trailEntry = model.Map{
		{Key: "type", Value: "user_correction"},
		{Key: "reason", Value: "Added A6: brute-force protection was missing"},
		{Key: "timestamp", Value: ts},
	}
	correction = model.Map{
		{Key: "timestamp", Value: ts},
		{Key: "type", Value: "dag_adjustment"},
		{Key: "description", Value: "Added atom A6 (Rate-limit login attempts)"},
		{Key: "trail_cleared", Value: false},
	}
)

type editCase struct {
	name  string
	input string
	edits []model.Edit
}

var editCases = []editCase{
	// The seed's complete example.
	{"seed_replace_scalars", seedComplete, []model.Edit{
		model.Replace(P("control", "status"), "stopped"),
		model.Replace(P("control", "iteration"), 6),
		model.Replace(P("control", "stop_requested"), true),
		model.Replace(P("control", "stop_reason"), "Max stall count reached"),
		model.Replace(P("atoms", 0, "status"), "in_progress"),
		model.Replace(P("atoms", 1, "status"), "in_progress"),
		model.Replace(P("objective", "constraints", "max_iterations"), 30),
		model.Replace(P("objective", "base_case", "checklist", 2, "check", "pass_threshold"), 4.0),
	}},
	{"seed_add_atom", seedComplete, []model.Edit{
		model.Append(P("atoms"), atom6),
		model.Append(P("trail"), trailEntry),
		model.Append(P("corrections"), correction),
	}},
	{"seed_delete_last_atom", seedComplete, []model.Edit{
		model.Remove(P("atoms", 4)),
		model.Append(P("trail"), model.Map{{Key: "type", Value: "user_correction"}, {Key: "reason", Value: "Deleted A5"}, {Key: "timestamp", Value: ts}}),
	}},
	{"seed_delete_middle_atom", seedComplete, []model.Edit{
		model.Remove(P("atoms", 2)),
		model.Remove(P("atoms", 4, "depends_on", 0)),
		model.Remove(P("decompositions", 0, "children", 0)),
		model.Remove(P("bindings", "A3")),
	}},
	{"seed_force_or", seedComplete, []model.Edit{
		model.Replace(P("or_groups", "token_method", "selected"), "A4_alt"),
		model.Replace(P("atoms", 3, "status"), "pending"),
		model.Append(P("or_groups", "token_method", "failed"), "A4"),
		model.Append(P("trail"), model.Map{
			{Key: "type", Value: "user_correction"},
			{Key: "or_group", Value: "token_method"},
			{Key: "selected", Value: "A4_alt"},
			{Key: "reason", Value: "Sessions are simpler to revoke"},
			{Key: "timestamp", Value: ts},
		}),
	}},
	{"seed_objective_change", seedComplete, []model.Edit{
		model.Replace(P("objective", "goal"), "Implement authentication with sessions"),
		model.Replace(P("objective", "definition_of_done"), "All auth tests pass\nand the session store is documented"),
		model.Replace(P("objective", "base_case", "checklist", 0, "group", 1), model.Map{
			{Key: "item", Value: "Session API works"},
			{Key: "check", Value: model.Map{{Key: "type", Value: "command"}, {Key: "value", Value: "curl -f http://localhost:3000/api/session"}}},
		}),
		model.Replace(P("trail"), []any{}),
		model.Append(P("corrections"), model.Map{
			{Key: "timestamp", Value: ts},
			{Key: "type", Value: "objective_change"},
			{Key: "description", Value: "Goal: sessions instead of JWT"},
			{Key: "trail_cleared", Value: true},
		}),
	}},
	{"seed_bindings", seedComplete, []model.Edit{
		model.Remove(P("bindings", "A3")),
		model.Replace(P("bindings", "A1", "summary"), "Created User and Role models"),
		model.Append(P("bindings", "A1", "artifacts"), "src/models/role.ts"),
		model.AddKey(P("bindings"), "A4", model.Map{
			{Key: "summary", Value: "JWT signing"},
			{Key: "artifacts", Value: model.Flow{}},
		}),
	}},
	{"seed_add_keys", seedComplete, []model.Edit{
		model.AddKey(P("control"), "paused_by", "aot-tui"),
		model.AddKey(P("or_groups", "token_method"), "speculative", true),
		model.AddKey(P("atoms", 4), "or_group", "token_method"),
		model.AddKey(P("atoms", 0), "notes", "Shared by every other atom"),
		model.AddKey(P(), "x_owner", "alice"),
	}},
	{"seed_empty_collections", seedComplete, []model.Edit{
		model.Remove(P("bindings", "A1")),
		model.Remove(P("bindings", "A3")),
		model.Remove(P("decompositions", 0)),
		model.Remove(P("trail", 0)),
		model.Remove(P("or_groups", "token_method", "choices", 0)),
		model.Remove(P("or_groups", "token_method", "choices", 1)),
	}},
	{"seed_depends_on", seedComplete, []model.Edit{
		model.Append(P("atoms", 0, "depends_on"), "A0"),
		model.Append(P("atoms", 1, "depends_on"), "A3"),
		model.Append(P("atoms", 4, "depends_on"), "A2"),
		model.Replace(P("atoms", 2, "depends_on"), model.Flow{}),
		model.Remove(P("atoms", 3, "depends_on", 0)),
	}},
	{"seed_remove_keys", seedComplete, []model.Edit{
		model.Remove(P("atoms", 3, "or_group")),
		model.Remove(P("control", "stop_reason")),
		model.Remove(P("objective", "base_case", "checklist", 1)),
		model.Remove(P("atoms", 0, "id")),
	}},
	{"seed_several_atoms", seedComplete, []model.Edit{
		model.Remove(P("atoms", 1)),
		model.Remove(P("atoms", 2)),
		model.Append(P("atoms"), atom6),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A7"}, {Key: "description", Value: "Lock accounts"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A6"}}}),
		model.AddKey(P("atoms", 4), "or_group", "token_method"),
	}},

	// A commented template with blank lines and alignment comments.
	{"commented_mix", inCommented, []model.Edit{
		model.Replace(P("control", "status"), "stopped"),
		model.Replace(P("control", "stall_count"), 2),
		model.Replace(P("control", "stop_reason"), "Stalled on A2"),
		model.Replace(P("atoms", 1, "status"), "pending"),
		model.Remove(P("atoms", 0)),
		model.Remove(P("atoms", 2)),
		model.AddKey(P("atoms", 3), "or_group", "docs"),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A5"}, {Key: "description", Value: "Announce the flag"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A4"}}}),
	}},
	{"commented_collections", inCommented, []model.Edit{
		model.Replace(P("corrections"), []any{}),
		model.Replace(P("bindings"), model.Map{}),
		model.AddKey(P("or_groups"), "writer", model.Map{
			{Key: "choices", Value: model.Flow{"A2", "A2b"}},
			{Key: "selected", Value: "A2"},
			{Key: "failed", Value: model.Flow{}},
		}),
		model.Append(P("decompositions"), model.Map{
			{Key: "parent", Value: "A2"},
			{Key: "children", Value: model.Flow{"A2a", "A2b"}},
			{Key: "reason", Value: "Split quoting from writing"},
		}),
		model.Append(P("trail"), trailEntry),
		model.Remove(P("objective", "constraints", "max_iterations")),
		model.Remove(P("atoms", 2, "depends_on", 1)),
	}},
	{"commented_strings", inCommented, []model.Edit{
		model.Replace(P("atoms", 1, "description"), "Write rows as CSV\nquote fields with commas"),
		model.AddKey(P("atoms", 0), "notes", "see RFC 4180: \"quotes\" double"),
		model.Replace(P("objective", "base_case", "type"), "not_command"),
		model.Replace(P("objective", "base_case", "value"), "yes"),
		model.Replace(P("objective", "constraints", "max_iterations"), 25),
		model.Replace(P("corrections", 0, "type"), "bindings_override"),
		model.Replace(P("corrections", 0, "timestamp"), ts),
	}},

	// The same template with CRLF line endings.
	{"crlf_mix", inCRLF, []model.Edit{
		model.Replace(P("control", "status"), "stopped"),
		model.Replace(P("control", "stop_reason"), "Stalled on A2"),
		model.Remove(P("atoms", 2)),
		model.AddKey(P("atoms", 3), "or_group", "docs"),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A5"}, {Key: "description", Value: "Announce the flag"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A4"}}}),
		model.AddKey(P("or_groups"), "writer", model.Map{{Key: "choices", Value: model.Flow{"A2", "A2b"}}, {Key: "selected", Value: "A2"}, {Key: "failed", Value: model.Flow{}}}),
		model.Replace(P("bindings"), model.Map{}),
		model.Remove(P("atoms", 0, "description")),
		model.Append(P("atoms", 1, "depends_on"), "A0"),
		model.Replace(P("atoms", 1, "description"), "Write rows as CSV\nand quote them"),
	}},

	// The legacy initial template behind a byte order mark.
	{"bom_first_redirect", inBOM, []model.Edit{
		model.Replace(P("control", "redirect_requested"), false),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A2"}, {Key: "description", Value: "Write the tests first"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{}}}),
		model.Append(P("atoms", 0, "depends_on"), "A2"),
		model.AddKey(P("bindings"), "A0", model.Map{{Key: "summary", Value: "Nothing yet"}, {Key: "artifacts", Value: model.Flow{"README.md"}}}),
		model.Append(P("trail"), trailEntry),
		model.Append(P("corrections"), correction),
		model.Remove(P("control", "stop_reason")),
		model.Remove(P("objective", "base_case", "value")),
	}},

	// Lists at column 0, block depends_on, plain strings, an empty null.
	{"block_mix", inBlock, []model.Edit{
		model.Replace(P("control", "stop_reason"), "Paused by the user"),
		model.Replace(P("atoms", 1, "description"), "Write rows as CSV, quoted"),
		model.Append(P("atoms", 2, "depends_on"), "A4"),
		model.Remove(P("atoms", 1, "depends_on", 0)),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A4"}, {Key: "description", Value: "Benchmark the writer"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A2"}}}),
		model.Append(P("trail"), trailEntry),
		model.AddKey(P("bindings", "A1"), "notes", []any{"first", "second"}),
		model.Remove(P("bindings", "A1", "summary")),
		model.Replace(P("atoms", 0, "description"), "Define the schema\nand its version"),
	}},
	{"block_remove", inBlock, []model.Edit{
		model.Remove(P("atoms", 0)),
		model.Remove(P("or_groups", "writer", "choices", 0)),
		model.Remove(P("bindings", "A1", "artifacts", 0)),
		model.Remove(P("atoms", 2, "depends_on", 1)),
		model.Replace(P("objective", "base_case", "checklist"), []any{
			model.Map{{Key: "item", Value: "Build passes"}, {Key: "check", Value: model.Map{{Key: "type", Value: "command"}, {Key: "value", Value: "go build ./..."}}}},
		}),
	}},

	// Unknown fields everywhere, single-quoted strings, a flow base_case.
	{"unknown_mix", inUnknown, []model.Edit{
		model.Replace(P("atoms", 1, "description"), "Write the lexer and its tests"),
		model.AddKey(P("atoms", 1), "labels", model.Flow{"lexer"}),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A3"}, {Key: "description", Value: "Write the parser"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A2"}}}),
		model.Replace(P("x_metrics", "tokens"), 1500),
		model.Append(P("x_metrics", "runs"), 3),
		model.Remove(P("atoms", 0, "notes", "links", 0)),
		model.Replace(P("control", "heartbeat"), "2025-01-15T10:00:00Z"),
		model.AddKey(P("objective", "base_case"), "timeout", 60),
		model.Replace(P("atoms", 0, "notes", "text"), "Grammar is LL(1).\nMind the dangling else.\nAnd the comma operator.\n"),
		model.Remove(P("objective", "owner")),
		model.Remove(P("bindings", "A1", "reviewed_by")),
		model.Remove(P("atoms", 0, "labels", 0)),
	}},

	// 4-space mappings and "-   " items.
	{"indent4_mix", inIndent4, []model.Edit{
		model.Replace(P("atoms", 0, "status"), "resolved"),
		model.Append(P("atoms"), model.Map{{Key: "id", Value: "A2"}, {Key: "description", Value: "Cache the modules"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A1"}}}),
		model.AddKey(P("bindings"), "A1", model.Map{{Key: "summary", Value: "Go modules download twice"}, {Key: "artifacts", Value: model.Flow{"profile.txt"}}}),
		model.Append(P("corrections"), correction),
	}},

	// The checklist initial template.
	{"checklist_initial", seedChecklist, []model.Edit{
		model.Replace(P("objective", "goal"), "Ship it"),
		model.Append(P("objective", "base_case", "checklist", 0, "group"), model.Map{
			{Key: "item", Value: "Lint passes"},
			{Key: "check", Value: model.Map{{Key: "type", Value: "command"}, {Key: "value", Value: "npm run lint"}}},
		}),
		model.Append(P("atoms"), atom6),
		model.Replace(P("atoms", 0, "description"), "Initial task, narrowed"),
	}},
}

func readInput(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestApplyEditsGolden(t *testing.T) {
	for _, c := range editCases {
		t.Run(c.name, func(t *testing.T) {
			data := readInput(t, c.input)
			doc, err := Parse(data)
			if err != nil {
				t.Fatalf("parse input: %v", err)
			}
			orig := bytes.Clone(data)
			out, err := ApplyEdits(doc, c.edits)
			if err != nil {
				t.Fatalf("ApplyEdits: %v", err)
			}
			if !bytes.Equal(doc.Data, orig) {
				t.Fatal("ApplyEdits modified the document's bytes")
			}
			golden := filepath.Join("testdata", "edits", c.name+".golden")
			if *updateEdits {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestApplyEditsGolden -update)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("output differs from %s:\n%s", golden, lineDiff(want, out))
			}
			checkEdited(t, doc, c.edits, out)
		})
	}
}

// checkEdited re-parses out and checks it holds exactly what the edits
// intend, everywhere.
func checkEdited(t testing.TB, doc *Document, edits []model.Edit, out []byte) {
	t.Helper()
	got, err := parseTree(out)
	if err != nil {
		t.Fatalf("the output does not parse: %v\n%s", err, out)
	}
	before, err := parseTree(doc.Data)
	if err != nil {
		t.Fatalf("the input does not parse: %v", err)
	}
	want, err := expectAfter(before.Root, edits)
	if err != nil {
		t.Fatalf("reference applier: %v", err)
	}
	if g, w := canonical(got.Root), canonical(want); g != w {
		t.Fatalf("the output decodes to\n%s\nwant\n%s\noutput:\n%s", g, w, out)
	}
	if !bytes.Equal(got.FM.Body(out), doc.FM.Body(doc.Data)) {
		t.Fatal("the body changed")
	}
	if !bytes.Equal(out[:doc.FM.YAMLStart], doc.Data[:doc.FM.YAMLStart]) {
		t.Fatal("the opening delimiter or BOM changed")
	}
	if doc.FM.CRLF && allCRLF(doc.FM.YAML(doc.Data)) {
		for i, l := range bytes.SplitAfter(out[doc.FM.YAMLStart:got.FM.YAMLEnd], []byte("\n")) {
			if len(l) > 0 && !bytes.HasSuffix(l, []byte("\r\n")) {
				t.Fatalf("line %d of the YAML lost its CRLF: %q", i+1, l)
			}
		}
	}
}

// allCRLF reports whether every line of b ends in \r\n.
func allCRLF(b []byte) bool {
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 && !bytes.HasSuffix(l, []byte("\r\n")) {
			return false
		}
	}
	return true
}

// lineDiff shows the lines that differ, for failure messages.
func lineDiff(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	var b strings.Builder
	for _, d := range diffLines(w, g) {
		if d.op != ' ' {
			b.WriteString(string(d.op) + " " + d.text + "\n")
		}
	}
	return b.String()
}

func TestApplyEditsErrors(t *testing.T) {
	cases := []struct {
		name  string
		input string
		edits []model.Edit
		err   error
		msg   string
	}{
		{"unknown key", seedComplete, []model.Edit{model.Replace(P("control", "bogus"), 1)}, ErrEditNotFound,
			`cannot replace control.bogus: control has no key "bogus" (line 65)`},
		{"unknown section", seedComplete, []model.Edit{model.Remove(P("nothing"))}, ErrEditNotFound,
			`cannot remove nothing: the frontmatter has no key "nothing" (line 3)`},
		{"index out of range", seedComplete, []model.Edit{model.Remove(P("atoms", 5))}, ErrEditNotFound,
			"cannot remove atoms[5]: atoms has 5 items, so there is no item 5 (line 75)"},
		{"negative index", seedComplete, []model.Edit{model.Replace(P("atoms", -1, "status"), "x")}, ErrEditNotFound, ""},
		{"index into mapping", seedComplete, []model.Edit{model.Replace(P("control", 0), "x")}, ErrEditNotFound,
			"cannot replace control[0]: control is a mapping, not a list (line 65)"},
		{"key exists", seedComplete, []model.Edit{model.AddKey(P("bindings"), "A1", model.Map{})}, ErrEditExists,
			`cannot add bindings.A1: bindings already has the key "A1" (line 116)`},
		{"key added twice", seedComplete, []model.Edit{model.AddKey(P("control"), "x", 1), model.AddKey(P("control"), "x", 2)}, ErrEditExists, ""},
		{"append to mapping", seedComplete, []model.Edit{model.Append(P("control"), 1)}, ErrEditType,
			"cannot append to control: control is a mapping; only a list can be appended to (a mapping needs a key) (line 65)"},
		{"key on list", seedComplete, []model.Edit{model.AddKey(P("atoms"), "x", 1)}, ErrEditType, ""},
		{"add to scalar", seedComplete, []model.Edit{model.Append(P("control", "status"), "x")}, ErrEditType, ""},
		{"block into flow list", seedComplete, []model.Edit{model.Append(P("atoms", 1, "depends_on"), model.Map{{Key: "a", Value: 1}})}, ErrEditType, ""},
		{"block into flow item", seedComplete, []model.Edit{model.Replace(P("atoms", 1, "depends_on", 0), []any{1})}, ErrEditType, ""},
		{"bad value type", seedComplete, []model.Edit{model.Replace(P("control", "iteration"), struct{}{})}, ErrEditType, ""},
		{"invalid utf-8", seedComplete, []model.Edit{model.Replace(P("objective", "goal"), "\xff")}, ErrEditType, ""},
		{"replace root", seedComplete, []model.Edit{model.Replace(P(), model.Map{})}, ErrEditType, ""},
		{"remove everything", seedComplete, []model.Edit{
			model.Remove(P("objective")), model.Remove(P("control")), model.Remove(P("atoms")), model.Remove(P("decompositions")),
			model.Remove(P("or_groups")), model.Remove(P("bindings")), model.Remove(P("trail")), model.Remove(P("corrections")),
		}, ErrEditType, ""},
		{"conflict replace inside removed", seedComplete, []model.Edit{model.Remove(P("atoms", 1)), model.Replace(P("atoms", 1, "status"), "resolved")}, ErrEditConflict,
			"cannot replace atoms[1].status: it overlaps edit 1 (remove atoms[1]) of the same plan (line 82)"},
		{"conflict twice", seedComplete, []model.Edit{model.Replace(P("control", "status"), "a"), model.Replace(P("control", "status"), "b")}, ErrEditConflict, ""},
		{"conflict append to replaced", seedComplete, []model.Edit{model.Replace(P("trail"), []any{}), model.Append(P("trail"), trailEntry)}, ErrEditConflict, ""},
		{"conflict remove removed", seedComplete, []model.Edit{model.Remove(P("atoms", 1)), model.Remove(P("atoms", 1))}, ErrEditConflict, ""},
		{"unknown op", seedComplete, []model.Edit{{Op: 9, Path: P("control")}}, ErrEditType, ""},
		{"anchor", "", []model.Edit{model.Replace(P("control", "status"), "stopped")}, ErrEditUnsupported, ""},
		{"alias on path", "", []model.Edit{model.Replace(P("atoms", 1, "depends_on", 0), "A9")}, ErrEditUnsupported, ""},
	}
	anchored := []byte("---\ncontrol: &c\n  status: running\natoms:\n  - id: A1\n    depends_on: &d [A0]\n  - id: A2\n    depends_on: *d\n---\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := anchored
			if c.input != "" {
				data = readInput(t, c.input)
			}
			doc, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			orig := bytes.Clone(data)
			out, err := ApplyEdits(doc, c.edits)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != nil {
				t.Error("bytes returned with the error")
			}
			if !bytes.Equal(doc.Data, orig) {
				t.Error("the document's bytes changed")
			}
			if !errors.Is(err, c.err) {
				t.Errorf("error %q is not %v", err, c.err)
			}
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Errorf("error %T is not an *EditError", err)
			}
			if c.msg != "" && err.Error() != c.msg {
				t.Errorf("message\n got %s\nwant %s", err, c.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("message is not one line: %q", err)
			}
		})
	}
}
