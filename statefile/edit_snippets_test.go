package statefile

import (
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/model"
)

// TestApplyEditsSnippets pins the behaviours the design names, on small
// frontmatters: the input and output are the YAML between the delimiters.
func TestApplyEditsSnippets(t *testing.T) {
	cases := []struct {
		name     string
		in, want string
		edits    []model.Edit
	}{
		{"scalar keeps its comment and column",
			"control:\n  status: pending                           # pending | running\n",
			"control:\n  status: running                           # pending | running\n",
			[]model.Edit{model.Replace(P("control", "status"), "running")}},
		{"longer scalar eats padding",
			"a:\n  status: pending     # c\n",
			"a:\n  status: in_progress # c\n",
			[]model.Edit{model.Replace(P("a", "status"), "in_progress")}},
		{"quoting style kept",
			"a: \"x\"\nb: 'y'\nc: z\n",
			"a: \"new x\"\nb: 'it''s'\nc: \"needs: quotes\"\n",
			[]model.Edit{model.Replace(P("a"), "new x"), model.Replace(P("b"), "it's"), model.Replace(P("c"), "needs: quotes")}},
		{"null to string, quoted like the file's prose",
			"d: \"prose here\"\nstop_reason: null\n",
			"d: \"prose here\"\nstop_reason: \"Max stall count reached\"\n",
			[]model.Edit{model.Replace(P("stop_reason"), "Max stall count reached")}},
		{"string to null",
			"stop_reason: \"x\"   # why\n",
			"stop_reason: null  # why\n",
			[]model.Edit{model.Replace(P("stop_reason"), nil)}},
		{"empty value gets one",
			"stop_reason:\nn: 1\n",
			"stop_reason: Paused\nn: 1\n",
			[]model.Edit{model.Replace(P("stop_reason"), "Paused")}},
		{"flow list minus its middle",
			"depends_on: [A1, A2, A3]\n",
			"depends_on: [A1, A3]\n",
			[]model.Edit{model.Remove(P("depends_on", 1))}},
		{"flow list minus both ends",
			"depends_on: [A1, A2, A3]\n",
			"depends_on: [A2]\n",
			[]model.Edit{model.Remove(P("depends_on", 0)), model.Remove(P("depends_on", 2))}},
		{"flow list emptied",
			"depends_on: [A1, A2]  # AND\n",
			"depends_on: []        # AND\n",
			[]model.Edit{model.Remove(P("depends_on", 0)), model.Remove(P("depends_on", 1))}},
		{"empty flow list stays flow",
			"depends_on: []\n",
			"depends_on: [A3]\n",
			[]model.Edit{model.Append(P("depends_on"), "A3")}},
		{"flow list grows inside its brackets",
			"depends_on: [A1]\n",
			"depends_on: [A1, A3, A4]\n",
			[]model.Edit{model.Append(P("depends_on"), "A3"), model.Append(P("depends_on"), "A4")}},
		{"empty list becomes block for mappings",
			"corrections: []\n",
			"corrections:\n  - timestamp: \"2025-01-15T10:30:00Z\"\n    type: dag_adjustment\n    description: \"Added A7\"\n    trail_cleared: false\n",
			[]model.Edit{model.Append(P("corrections"), model.Map{{Key: "timestamp", Value: "2025-01-15T10:30:00Z"}, {Key: "type", Value: "dag_adjustment"}, {Key: "description", Value: "Added A7"}, {Key: "trail_cleared", Value: false}})}},
		{"empty mapping becomes block",
			"bindings: {}\ntrail: []\n",
			"bindings:\n  A1:\n    summary: \"Created User model\"\n    artifacts: [\"src/models/user.ts\"]\ntrail: []\n",
			[]model.Edit{model.AddKey(P("bindings"), "A1", model.Map{{Key: "summary", Value: "Created User model"}, {Key: "artifacts", Value: model.Flow{"src/models/user.ts"}}})}},
		{"last binding removed leaves {}",
			"bindings:\n  A1:\n    summary: x\ntrail: []\n",
			"bindings: {}\ntrail: []\n",
			[]model.Edit{model.Remove(P("bindings", "A1"))}},
		{"last atom removed leaves []",
			"atoms:\n  - id: A1\n    status: pending\nbindings: {}\n",
			"atoms: []\nbindings: {}\n",
			[]model.Edit{model.Remove(P("atoms", 0))}},
		{"template atom appended",
			"atoms:\n  - id: A1\n    description: \"First\"\n    status: pending\n    depends_on: []\n",
			"atoms:\n  - id: A1\n    description: \"First\"\n    status: pending\n    depends_on: []\n  - id: A7\n    description: \"Seventh\"\n    status: pending\n    depends_on: [A1, A4]\n",
			[]model.Edit{model.Append(P("atoms"), model.Map{{Key: "id", Value: "A7"}, {Key: "description", Value: "Seventh"}, {Key: "status", Value: "pending"}, {Key: "depends_on", Value: model.Flow{"A1", "A4"}}})}},
		{"column-0 lists and block depends_on",
			"atoms:\n- id: A1\n  depends_on:\n  - A0\n",
			"atoms:\n- id: A1\n  depends_on:\n  - A0\n  - A3\n- id: A2\n  depends_on: [A1]\n",
			[]model.Edit{model.Append(P("atoms", 0, "depends_on"), "A3"), model.Append(P("atoms"), model.Map{{Key: "id", Value: "A2"}, {Key: "depends_on", Value: model.Flow{"A1"}}})}},
		{"multi-line string on one line",
			"description: \"x\"\n",
			"description: \"line one\\nline two\"\n",
			[]model.Edit{model.Replace(P("description"), "line one\nline two")}},
		{"timestamps and look-alikes quoted",
			"t: x\n",
			"t: x\nts: \"2025-01-15T10:00:00Z\"\nyes_word: \"yes\"\nnum: \"42\"\nid: A4_alt\n",
			[]model.Edit{model.AddKey(P(), "ts", "2025-01-15T10:00:00Z"), model.AddKey(P(), "yes_word", "yes"), model.AddKey(P(), "num", "42"), model.AddKey(P(), "id", "A4_alt")}},
		{"CRLF lines stay CRLF",
			"a:\r\n  - x\r\n",
			"a:\r\n  - x\r\n  - z\r\nb: 1\r\n",
			[]model.Edit{model.Append(P("a"), "z"), model.AddKey(P(), "b", 1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nl := "\n"
			if strings.Contains(c.in, "\r\n") {
				nl = "\r\n"
			}
			data := []byte("---" + nl + c.in + "---" + nl + "body" + nl)
			doc, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			out, err := ApplyEdits(doc, c.edits)
			if err != nil {
				t.Fatal(err)
			}
			want := "---" + nl + c.want + "---" + nl + "body" + nl
			if string(out) != want {
				t.Errorf("got\n%s\nwant\n%s", out, want)
			}
			checkEdited(t, doc, c.edits, out)
		})
	}
}
