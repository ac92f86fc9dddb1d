package fastyaml

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Each construct either takes the fast path and agrees with yaml.v3, or is
// left to yaml.v3; the ones state files use must be taken.
func TestFastParseConstructs(t *testing.T) {
	tests := []struct {
		name, yml string
		taken     bool
	}{
		{"empty values", "a:\nb:   \nc: # note\nd: 1\n", true},
		{"empty at end", "a:", true},
		{"nested", "a:\n  b:\n    c: x\n  d: [A1, \"x y\", 'it''s']\n", true},
		{"indentless", "atoms:\n- id: A1\n  depends_on: []\n- id: A2\nnext: 1\n", true},
		{"dash entries", "x:\n  - k:\n    j: 1\n  -\n  - \n  - # c\n  - z\n  -\n    id: B\n", true},
		{"nested dashes", "x:\n  - - a\n    - b\n  - c\n", true},
		{"scalars", "a: ~\nb: null\nc: true\nd: FALSE\ne: 0\nf: 42\ng: yes\nh: .claude/x\ni: a:b\nj: x # c\nk: a#b\n", true},
		{"unicode", "a: ü\nb: [é, x]\nc: \"é \\u00e9\"\nd: {k: é}\n", true},
		{"escapes", "a: \"q\\\"b\\\\s\\n\\t\\r\\0\\u00e9\"\nb: 'x''y'\nc: \n", true},
		{"literal", "a: |\n  l1\n\n  l2\nb: |-\n  x\n\n\nc: 1\n", true},
		{"folded", "a: >\n  f1\n  f2\n\n  f3\n\n\n  f4\nb: >-\n  y\n", true},
		{"block in seq", "a:\n  - |\n    x\n  - k: >-\n      y\n", true},
		{"comments", "# head\na: 1 # one\n\n  # stray\nb:\n  # inside\n  - x\n# tail\n", true},
		{"flow map", "a: {}\nb: []\nc: {type: command, value: \"go test\"}\nd: {1: x, 5: 'y'}\n", true},
		{"numbers", "a: -1\nb: 0\nc: 1.5\nd: -0.25\ne: 123456789012345678\n", true},
		{"int keys", "levels:\n  1: poor\n  5: \"good\"\n", true},
		{"crlf", "a: 1\r\nb:\r\n  - x\r\nc: |\r\n  l1\r\n  l2\r\n", true},
		{"trailing spaces", "a: x   \nb:   \n", true},

		{"anchor", "a: &x 1\nb: *x\n", false},
		{"tag", "a: !!str 1\n", false},
		{"timestamp", "a: 2026-11-22T10:00:00Z\n", false},
		{"leading zero", "a: 08\n", false},
		{"float forms", "a: .5\n", false},
		{"exponent", "a: 1e3\n", false},
		{"underscores", "a: 1_000\n", false},
		{"lone dash", "a: -x\n", false},
		{"big", "a: 1234567890123456789\n", false},
		{"multi-line plain", "a: one\n  two\n", false},
		{"multi-line quoted", "a: \"one\n  two\"\n", false},
		{"multi-line flow", "a: [x,\n  y]\n", false},
		{"nested flow", "a: {x: [1]}\n", false},
		{"trailing comma", "a: [x, ]\n", false},
		{"tab", "a:\t1\n", false},
		{"lone cr", "a: 1\rb: 2\n", false},
		{"keep", "a: |+\n  x\n\n", false},
		{"indent digit", "a: |2\n   x\n", false},
		{"more indented folded", "a: >\n  x\n    y\n", false},
		{"document marker", "a: 1\n---\nb: 2\n", false},
		{"quoted key", "\"a\": 1\n", false},
		{"mapping in plain", "a: b: c\n", false},
		{"top-level sequence", "- a\n", false},
		{"merge", "a:\n  <<: {}\n", false},
		{"bad escape", "a: \"\\q\"\n", false},
		{"not a key", "a:x\n", false},
		{"wrong indent", "a:\n  b: 1\n c: 2\n", false},
		{"null key", "null: 1\n", false},
		// found by review: '?' ends a plain scalar in a flow; yaml.v3 caps keys
		{"question mark in flow", "a: [what?, ok]\n", false},
		{"question mark in flow key", "a: {k?: v}\n", false},
		{"question mark in block", "a: why?\nb:\n  - how?\n", true},
		{"long key", strings.Repeat("k", 1025) + ": 1\n", false},
		{"long compact key", "a:\n- " + strings.Repeat("k", 1025) + ": 1\n", false},
		{"long flow key", "a: {\"" + strings.Repeat("k", 1023) + "\": 1}\n", false},
		{"long value", "a: " + strings.Repeat("v", 1100) + "\n", true},
		// the Reader checks a flow collection only as it reads it
		{"text after a flow", "a: [x, y] z\nb: 1\n", false},
		{"text after a flow map", "a:\n  - {k: v} z\n", false},
		{"comment after a flow", "a: [x, y] # c\nb: {k: v}   # d\n", true},
		{"flow in a flow map", "a: {k: [x]}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFast(t, []byte(tt.yml)); got != tt.taken {
				t.Errorf("fast path taken = %v, want %v", got, tt.taken)
			}
		})
	}
}

// Deep nesting goes to yaml.v3 rather than recursing without bound.
func TestFastParseDepth(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	if fastParse([]byte(b.String())) != nil {
		t.Fatal("500 levels took the fast path")
	}
}

// TestFastParseRandom compares the fast parser with yaml.v3 on random
// documents built from the subset's constructs and tricky scalars, at
// random indentations, then perturbed (a line re-indented, dropped,
// duplicated or replaced): whatever the fast parser accepts must be the
// tree yaml.v3 builds.
var fastSeed uint64 = 7 // change locally to explore further

func TestFastParseRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	r := rand.New(rand.NewPCG(fastSeed, 11))
	accepted, mutatedAccepted := 0, 0
	for i := range n {
		var b strings.Builder
		randomMapping(r, &b, 0, 0)
		doc := b.String()
		if i%2 == 1 {
			doc = perturb(r, doc)
		}
		if checkFast(t, []byte(doc)) {
			if i%2 == 1 {
				mutatedAccepted++
			} else {
				accepted++
			}
		}
	}
	t.Logf("accepted %d of %d documents and %d of %d perturbed ones", accepted, n/2, mutatedAccepted, n/2)
	if accepted < n/6 {
		t.Errorf("the fast path accepted only %d of %d generated documents", accepted, n/2)
	}
}

var randomScalars = []string{
	"x", "A12", "hello world", "a:b", "a#b", "x # note", "a, b", "a]b", "{x", "http://x.y/z?q=1",
	"-1", "0", "01", "42", "1.5", "-0.25", "1e3", ".5", ".claude/x", ".inf", "1_000", "0x1F",
	"2026-11-22", "2026-11-22T10:00:00Z", "true", "False", "yes", "null", "~", "NULL", "<<",
	"é ü", "a: b", "x:", "-x", "- x", "? x", "!x", "&a", "*a", "%x", "@x", "`x", "=", "|", ">",
	`"q"`, `"a \"b\" \\ c"`, `"\u00e9\t\n"`, `"\x41"`, `"\/"`, `"unterminated`, `'it''s'`, `'a\b'`, `''`, `""`,
	"why?", "[what?, ok]", "{k?: v}", "[]", "{}", "[a, b]", "[ a , 'b' ,\"c\" ]", "[a, ]", "[a,,b]", "[a, [b]]", "{a: 1, b: x}", "{a: [1]}", "{1: x}", "{a:1}",
	"x   ", "x \t", "",
}

var randomKeys = []string{"a", "id", "depends_on", "max_iterations", "A1", "x.y", "k-1", "_k", "1", "5", "01", "true", "null", "é", "a b", "\"q\"", "? k"}

// commonScalars are what state files hold; randomScalar mostly picks
// them, so that most documents take the fast path and get compared.
var commonScalars = []string{"x", "A12", "hello world", "a:b", "a#b", "x # note", "-1", "42", "1.5", "null", "true", `"q"`, `'it''s'`, "[]", "[a, b]", "{a: 1, b: x}", "é ü"}

func randomScalar(r *rand.Rand) string {
	if r.IntN(12) == 0 {
		return randomScalars[r.IntN(len(randomScalars))]
	}
	return commonScalars[r.IntN(len(commonScalars))]
}

func randomBlockScalar(r *rand.Rand, b *strings.Builder, indent int) {
	headers := []string{"|", "|-", ">", ">-", "| # c", "|+", "|2"}
	h := headers[r.IntN(5)]
	if r.IntN(8) == 0 {
		h = headers[r.IntN(len(headers))]
	}
	b.WriteString(h + "\n")
	ci := indent + 1 + r.IntN(3)
	for range 1 + r.IntN(4) {
		switch r.IntN(8) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString(strings.Repeat(" ", ci+1+r.IntN(2)) + "more\n")
		case 2:
			b.WriteString(strings.Repeat(" ", ci) + "# not a comment\n")
		default:
			b.WriteString(strings.Repeat(" ", ci) + randomScalar(r) + "\n")
		}
	}
}

func randomValue(r *rand.Rand, b *strings.Builder, indent, depth int, inMap bool) {
	switch k := r.IntN(10); {
	case k < 5 || depth > 3:
		b.WriteString(" " + randomScalar(r) + "\n")
	case k == 5:
		b.WriteString(" ")
		randomBlockScalar(r, b, indent)
	case k == 6:
		if r.IntN(3) == 0 {
			b.WriteString(" # c")
		}
		b.WriteString("\n")
	case k == 7:
		b.WriteString("\n")
		randomMapping(r, b, indent+1+r.IntN(3), depth+1)
	default:
		b.WriteString("\n")
		ind := indent + 1 + r.IntN(3)
		if inMap && r.IntN(3) == 0 {
			ind = indent // an indentless sequence
		}
		randomSequence(r, b, ind, depth+1)
	}
}

func randomMapping(r *rand.Rand, b *strings.Builder, indent, depth int) {
	for range 1 + r.IntN(4) {
		if r.IntN(8) == 0 {
			b.WriteString(strings.Repeat(" ", r.IntN(6)) + "# comment\n")
		}
		if r.IntN(10) == 0 {
			b.WriteString("\n")
		}
		key := randomKeys[r.IntN(10)]
		if r.IntN(12) == 0 {
			key = randomKeys[r.IntN(len(randomKeys))]
		}
		b.WriteString(strings.Repeat(" ", indent) + key + ":")
		randomValue(r, b, indent, depth, true)
	}
}

func randomSequence(r *rand.Rand, b *strings.Builder, indent, depth int) {
	for range 1 + r.IntN(4) {
		b.WriteString(strings.Repeat(" ", indent) + "-")
		switch r.IntN(4) {
		case 0: // "- key: value" and more keys at the key's column
			col := indent + 1 + r.IntN(3)
			b.WriteString(strings.Repeat(" ", col-indent-1))
			var m strings.Builder
			randomMapping(r, &m, col, depth+1)
			b.WriteString(strings.TrimLeft(m.String(), " "))
		case 1:
			if r.IntN(4) == 0 {
				b.WriteString(" - " + randomScalar(r) + "\n")
				break
			}
			randomValue(r, b, indent, depth, false)
		default:
			randomValue(r, b, indent, depth, false)
		}
	}
}

func perturb(r *rand.Rand, doc string) string {
	lines := strings.Split(doc, "\n")
	for range 1 + r.IntN(2) {
		k := r.IntN(len(lines))
		switch r.IntN(5) {
		case 0:
			lines[k] = " " + lines[k]
		case 1:
			lines[k] = strings.TrimPrefix(lines[k], " ")
		case 2:
			lines = append(lines[:k], lines[k+1:]...)
		case 3:
			lines = append(lines[:k+1], lines[k:]...)
		default:
			lines[k] = strings.Repeat(" ", r.IntN(5)) + randomScalar(r)
		}
		if len(lines) == 0 {
			lines = []string{"a: 1"}
		}
	}
	return strings.Join(lines, "\n")
}

// FuzzReader checks the Reader against the fast parser and yaml.v3 on any
// text (verifyReader): the same texts taken, the same values read, and no
// panic on text whose characters were not checked. (statefile's FuzzParse
// runs the same check on whole state files.)
func FuzzReader(f *testing.F) {
	f.Add("atoms:\n- id: A1\n  depends_on: [A0, 'x''y']\n- - a\n  -\nb: |\n  x\n\n  y\nc: {k: \"v\\u00e9\"} # c\n")
	f.Add("a:\n  - k: >-\n      y\n  - [x, y] z\n")
	f.Add("a: 1\r\n---\r\nb:\t2\n")
	f.Fuzz(func(t *testing.T, yml string) {
		if _, err := verifyReader([]byte(yml)); err != nil {
			t.Fatalf("%v\n%q", err, yml)
		}
	})
}
