package yamledit

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// parseIn is the Input for the YAML text data[start:end], parsed with
// yaml.v3 as statefile.Parse parses a frontmatter it leaves to yaml.v3.
func parseIn(t *testing.T, data []byte, start, end int) Input {
	t.Helper()
	var top yaml.Node
	if err := yaml.Unmarshal(data[start:end], &top); err != nil {
		t.Fatal(err)
	}
	return Input{Data: data, Start: start, End: end, Root: top.Content[0]}
}

// TestNodeSpans checks the text span found for each kind of value.
func TestNodeSpans(t *testing.T) {
	yml := "plain: some words   # c\n" +
		"dq: \"a \\\" b # not a comment\"  # c\n" +
		"sq: 'it''s'\n" +
		"multi: first line\n  second line\n\n  after a blank\nnext: 1\n" +
		"dqmulti: \"one\n  two\"\n" +
		"lit: |  # header\n  line 1\n\n    indented\nkeep: |+\n  kept\n\n\nfolded: >-\n  a\n  b\n" +
		"flow: [a, {b: c}, [d]]  # c\n" +
		"fmap: {x: 1, y: }\n" +
		"empty:\n" +
		"nul: ~\n" +
		"ali: &a v\n" +
		"ref: *a\n" +
		"block:\n  - x\n  - y: 1\n    z: \"w\"\n" +
		"日本: \"語\"\n" +
		"last: end\n"
	data := []byte("---\n" + yml + "---\nbody\n")
	in := parseIn(t, data, len("---\n"), len("---\n")+len(yml))
	want := map[string]string{
		"plain":   "some words",
		"dq":      `"a \" b # not a comment"`,
		"sq":      `'it''s'`,
		"multi":   "first line\n  second line\n\n  after a blank",
		"next":    "1",
		"dqmulti": "\"one\n  two\"",
		"lit":     "|  # header\n  line 1\n\n    indented",
		"keep":    "|+\n  kept\n\n",
		"folded":  ">-\n  a\n  b",
		"flow":    "[a, {b: c}, [d]]",
		"fmap":    "{x: 1, y: }",
		"empty":   "",
		"nul":     "~",
		"ali":     "&a v",
		"ref":     "*a",
		"block":   "- x\n  - y: 1\n    z: \"w\"",
		"日本":      `"語"`,
		"last":    "end",
	}
	tx := newYAMLText(in.Data, in.Start, in.End, false)
	root := in.Root
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		start, err := tx.nodeStart(v)
		if err != nil {
			t.Errorf("%s: start: %v", k.Value, err)
			continue
		}
		end, err := tx.nodeEnd(v, root.Column-1, false)
		if err != nil {
			t.Errorf("%s: end: %v", k.Value, err)
			continue
		}
		if got := string(data[start:end]); got != want[k.Value] {
			t.Errorf("%s: span %q, want %q", k.Value, got, want[k.Value])
		}
		if v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle != 0 {
			// The empty value of y sits right before the brace.
			y := v.Content[3]
			if ys, _ := tx.nodeStart(y); data[ys] != '}' {
				t.Errorf("fmap.y starts at %q", data[ys:])
			}
		}
	}
}

// TestLineIndex: lines break where yaml.v3 breaks them.
func TestLineIndex(t *testing.T) {
	yml := "a: 1\r\nb: 2\rc: \"x\u2028y\"\nd: 4\n"
	data := []byte("---\n" + yml + "---\n")
	in := parseIn(t, data, len("---\n"), len("---\n")+len(yml))
	tx := newYAMLText(in.Data, in.Start, in.End, false)
	if tx.nlines() != 5 {
		t.Fatalf("%d lines, want 5", tx.nlines())
	}
	d := in.Root.Content[7] // the value of d, on yaml.v3's line 5
	off, err := tx.nodeStart(d)
	if err != nil || data[off] != '4' {
		t.Fatalf("d at %d (%v)", off, err)
	}
	if got := string(data[tx.lineStart(1):tx.lineEnd(1)]); got != "b: 2" {
		t.Errorf("line 2 is %q", got)
	}
}
