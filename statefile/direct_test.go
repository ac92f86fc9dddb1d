package statefile

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/yamltext"
)

// sameRead reports how a Document read directly (got, gotErr) differs
// from one read through the node tree (want, wantErr): the error with its
// line and hint, the frontmatter, the decoded state with every value,
// line, unknown field and problem, and the line map.
func sameRead(got, want *Document, gotErr, wantErr error) error {
	if err := sameErrAndData(got, want, gotErr, wantErr, "the tree's"); err != nil || wantErr != nil {
		return err
	}
	if !equalNaN(reflect.ValueOf(got.State), reflect.ValueOf(want.State)) {
		return fmt.Errorf("states differ:\n%s", stateDiff(got.State, want.State))
	}
	if err := sameFileLines(got, want, "the tree's"); err != nil {
		return err
	}
	if got.Root != nil || got.memo != nil {
		return fmt.Errorf("Parse kept a tree or a memo")
	}
	return nil
}

// equalNaN is reflect.DeepEqual for the model's values, except that a NaN
// (".nan" in the YAML) equals a NaN.
func equalNaN(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || x != x && y != y
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			v := b.MapIndex(k)
			if !v.IsValid() || !equalNaN(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// readsDirectly reports whether Parse reads data straight into the model
// (the fastyaml.Reader takes its frontmatter).
func readsDirectly(data []byte) bool {
	fm, err := SplitFrontmatter(data)
	if err != nil {
		return false
	}
	yml := fm.YAML(data)
	st, _ := readDirect(yml, yamltext.NewLineMap(yml, fm.FirstLine-1), 0, false, nil)
	return st != nil
}

// checkDirect reads data as Parse does, with the atoms read in one piece
// and in two halves from two atoms on, and fails unless each gives what
// the node tree gives. It reports whether the text was read directly.
func checkDirect(t testing.TB, data []byte, what string) bool {
	t.Helper()
	want, wantErr := parse(data, nil, false, 0)
	if want != nil {
		want.Root = nil
	}
	for _, halves := range []int{0, 2} {
		got, gotErr := read(data, halves)
		if err := sameRead(got, want, gotErr, wantErr); err != nil {
			t.Fatalf("%s (halves %d): the direct read differs from the tree's: %v\n--- file\n%s", what, halves, err, clip(data))
		}
	}
	return readsDirectly(data)
}

func clip(data []byte) []byte {
	if len(data) > 6000 {
		return append(data[:6000:6000], "…"...)
	}
	return data
}

// twoCores makes the atoms be read in halves, which needs a second P.
func twoCores(t testing.TB) {
	if old := runtime.GOMAXPROCS(0); old < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	}
}

// fixtureFiles are the state files of every fixture family on disk: the
// seeds, the valid and invalid examples, the loop-tools cases, the edit
// goldens' inputs.
func fixtureFiles(t testing.TB) map[string][]byte {
	files := map[string][]byte{}
	for _, glob := range []string{"../testdata/*.md", "../testdata/valid/*.md", "../testdata/invalid/*.md", "../testdata/looptools/*.md", "testdata/edits/*.md"} {
		m, _ := filepath.Glob(glob)
		for _, f := range m {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			files[f] = data
		}
	}
	if len(files) < 100 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	return files
}

// corpusInputs are the []byte inputs of the fuzz corpora on disk (go test
// fuzz v1 files), FuzzParse's and FuzzReparse's.
func corpusInputs(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range []string{"testdata/fuzz/FuzzParse", "testdata/fuzz/FuzzReparse", "testdata/fuzz/FuzzAtomHalves", "testdata/fuzz/FuzzApplyEdits"} {
		m, _ := filepath.Glob(dir + "/*")
		for _, f := range m {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for k, line := range strings.Split(string(data), "\n") {
				if !strings.HasPrefix(line, "[]byte(") || !strings.HasSuffix(line, ")") {
					continue
				}
				s, err := strconv.Unquote(line[len("[]byte(") : len(line)-1])
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				out[fmt.Sprintf("%s#%d", f, k)] = []byte(s)
			}
		}
	}
	if len(out) < 100 {
		t.Fatalf("found only %d corpus inputs", len(out))
	}
	return out
}

// TestDirectMatchesTree reads every fixture, every input of the fuzz
// corpora and generated loops of many sizes and shapes both ways: the
// Documents must be the same, and the files state files are made of must
// be read directly (else the comparison would say nothing).
func TestDirectMatchesTree(t *testing.T) {
	twoCores(t)
	direct, all := 0, 0
	for name, data := range fixtureFiles(t) {
		all++
		if checkDirect(t, data, name) {
			direct++
		}
	}
	for name, data := range corpusInputs(t) {
		checkDirect(t, data, name)
	}
	for _, n := range []int{1, 2, 3, 17, 300, 2500} {
		for seed := range uint64(3) {
			spec, _ := gen.GenerateSpec(n, seed)
			loop := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 8, Decompositions: n / 10})
			pending := gen.Generate(gen.Options{Atoms: n, Seed: seed, ORGroups: n / 25, Decompositions: n / 40, Status: "pending"})
			for k, data := range [][]byte{spec, loop, pending} {
				what := fmt.Sprintf("generated %d atoms, seed %d, form %d", n, seed, k)
				if !checkDirect(t, data, what) {
					t.Errorf("%s: not read directly", what)
				}
			}
		}
	}
	for _, name := range []string{"../testdata/seed-complete.md", "../testdata/seed-initial-checklist.md", "../testdata/seed-initial-legacy.md", "../testdata/valid/unknown-fields.md", "../testdata/valid/block-scalars.md", "../testdata/valid/bom-crlf.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !readsDirectly(data) {
			t.Errorf("%s: not read directly", name)
		}
	}
	t.Logf("%d of %d fixtures read directly", direct, all)
}

// TestDirectMatchesTreeAfterEdits reads the versions the edits of a loop
// and of its people make (TestReparseMatchesParse's), text broken and
// mended, both ways.
func TestDirectMatchesTreeAfterEdits(t *testing.T) {
	twoCores(t)
	steps := 120
	if testing.Short() {
		steps = 30
	}
	direct, all := 0, 0
	for name, base := range reparseBases(t) {
		r := rand.New(rand.NewSource(int64(len(name))))
		cur := base
		for step := 0; step < steps; step++ {
			if r.Intn(3) == 0 {
				cur = base // chains of edits soon leave the subset: start again
			}
			e := lineEdits[r.Intn(len(lineEdits))]
			cur = []byte(strings.Join(e.do(r, strings.Split(string(cur), "\n")), "\n"))
			if checkDirect(t, cur, fmt.Sprintf("%s step %d (%s)", name, step, e.name)) {
				direct++
			}
			all++
		}
	}
	t.Logf("%d of %d versions read directly", direct, all)
	if direct < all/10 {
		t.Errorf("only %d of %d versions read directly", direct, all)
	}
}

// TestDirectMatchesTreeHostile reads files whose text holds what a reader
// must get exactly right or leave to yaml.v3: escapes of every kind,
// control, C1 and bidi characters, line separators, quotes in quotes,
// comments and colons in values, keys that look like other things, in
// every scalar style.
func TestDirectMatchesTreeHostile(t *testing.T) {
	twoCores(t)
	base, err := os.ReadFile("../testdata/rich.md")
	if err != nil {
		t.Fatal(err)
	}
	loop := gen.Generate(gen.Options{Atoms: 40, Seed: 2, Resolved: 0.4, ORGroups: 4, Decompositions: 3})
	r := rand.New(rand.NewSource(26))
	n := 400
	if testing.Short() {
		n = 100
	}
	direct := 0
	for i := range n {
		data := base
		if i%2 == 1 {
			data = loop
		}
		out := replaceValues(r, string(data))
		if checkDirect(t, []byte(out), fmt.Sprintf("hostile %d", i)) {
			direct++
		}
	}
	// rich.md has an escape the fast parser leaves to yaml.v3; the
	// generated loop is read directly unless a hostile value is outside
	// the subset.
	t.Logf("%d of %d read directly", direct, n)
	if direct < n/10 {
		t.Errorf("only %d of %d files read directly", direct, n)
	}
}

// hostileValues are written in place of quoted values.
var hostileValues = []string{
	`"\u001b]8;;http://x\u0007link\u001b]8;;\u0007"`, `"\u009b31m red"`, `"\u202e reversed \u202c"`, `"a\u2028b\u2029c"`, `"\u0085 NEL"`,
	`"tab\there"`, `"nul\0x"`, `"\x41\x7f"`, `"\U0001F600"`, `"\ud800"`, `"q\"uote\\"`, `"\/slash"`, `"\e\a\b"`, `"\N\_\L\P"`,
	`'single ''quoted'' \n not an escape'`, `'é ü ß 漢字'`, `plain value`, `plain: colon`, `plain #not a comment`, `x # a comment`,
	`"x" # a comment`, `'x' trailing`, `"unterminated`, `[a, "b, c", 'd''e']`, `{k: v, "q": 'w'}`, `[]`, `{}`, `~`, `null`, `true`,
	`1.5`, `-0`, `-0.0`, `007`, `0x1F`, `1e3`, `.inf`, `123456789012345678`, `1234567890123456789`, `"\u00e9\t\n"`, `''`, `""`,
	`|
      block text
      over lines`, `>-
      folded
      text`, `&a anchored`, `*a`, `!!str tagged`, `? complex`, `- dash`, `"ok"`,
}

// replaceValues replaces some of the quoted values in text with hostile
// ones.
func replaceValues(r *rand.Rand, text string) string {
	lines := strings.Split(text, "\n")
	var quoted []int
	for k, l := range lines {
		if strings.Contains(l, `: "`) {
			quoted = append(quoted, k)
		}
	}
	for range 1 + r.Intn(3) {
		k := quoted[r.Intn(len(quoted))]
		i := strings.Index(lines[k], `: "`)
		lines[k] = lines[k][:i+2] + hostileValues[r.Intn(len(hostileValues))]
	}
	return strings.Join(lines, "\n")
}

// TestDirectKeepsNoFileBytes: the strings of a State read directly are
// copies, not parts of the file's bytes, which a caller may reuse.
func TestDirectKeepsNoFileBytes(t *testing.T) {
	data := gen.Generate(gen.Options{Atoms: 200, Seed: 4, Resolved: 0.5, ORGroups: 8, Decompositions: 5})
	data = bytes.Replace(data, []byte("  - id: A7\n"), []byte("  - id: A7\n    note:\n      who: \"me\"\n      why: [x, 'y']\n"), 1)
	if !readsDirectly(data) {
		t.Fatal("not read directly")
	}
	doc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := uintptr(unsafe.Pointer(&data[0])), uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
	inFile := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return s != "" && p >= lo && p < hi
	}
	var walk func(v any, where string)
	walk = func(v any, where string) {
		switch v := v.(type) {
		case string:
			if inFile(v) {
				t.Fatalf("%s: %q is a part of the file's bytes", where, v)
			}
		case model.Extra:
			for _, f := range v {
				walk(f.Key, where+"."+f.Key)
				walk(f.Value, where+"."+f.Key)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s[%d]", where, i))
			}
		}
	}
	seen := 0
	for i, a := range doc.State.Atoms {
		for _, s := range append([]string{a.ID, a.Description, string(a.Status), a.ORGroup}, a.DependsOn...) {
			walk(s, fmt.Sprintf("atoms[%d]", i))
			seen++
		}
		for _, kl := range a.Lines {
			walk(kl.Key, fmt.Sprintf("atoms[%d] key", i))
		}
		walk(a.Extra, fmt.Sprintf("atoms[%d]", i))
	}
	for i, b := range doc.State.Bindings {
		for _, s := range append([]string{b.AtomID, b.Summary}, b.Artifacts...) {
			walk(s, fmt.Sprintf("bindings[%d]", i))
		}
	}
	for i, g := range doc.State.ORGroups {
		for _, s := range append(append([]string{g.Name, g.Selected}, g.Choices...), g.Failed...) {
			walk(s, fmt.Sprintf("or_groups[%d]", i))
		}
	}
	walk(doc.State.Objective.Goal, "goal")
	if seen < 600 {
		t.Fatalf("looked at %d strings", seen)
	}
	// Reusing the bytes changes nothing read.
	want := fmt.Sprintf("%+v", doc.State.Atoms[6])
	for i := range data {
		data[i] = 'x'
	}
	if got := fmt.Sprintf("%+v", doc.State.Atoms[6]); got != want {
		t.Fatalf("atom A7 changed with the bytes:\n%s\nwas\n%s", got, want)
	}
}

// TestDirectListsEndWithTheirEntry: the lists a State read directly holds
// (dependencies, artifacts, choices, and every entry's Lines) share
// chunks of memory, and each ends there with its entry: appending to one
// copies it, and never writes over the entry after it.
func TestDirectListsEndWithTheirEntry(t *testing.T) {
	data := gen.Generate(gen.Options{Atoms: 300, Seed: 9, Resolved: 0.5, ORGroups: 8, Decompositions: 5})
	if !readsDirectly(data) {
		t.Fatal("not read directly")
	}
	doc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	st := doc.State
	var lists []*[]string
	var lines []*model.Lines
	for i := range st.Atoms {
		lists = append(lists, &st.Atoms[i].DependsOn)
		lines = append(lines, &st.Atoms[i].Lines)
	}
	for i := range st.Bindings {
		lists = append(lists, &st.Bindings[i].Artifacts)
		lines = append(lines, &st.Bindings[i].Lines)
	}
	for i := range st.ORGroups {
		lists = append(lists, &st.ORGroups[i].Choices, &st.ORGroups[i].Failed)
		lines = append(lines, &st.ORGroups[i].Lines)
	}
	before := fmt.Sprintf("%v %v", st.Atoms, st.Bindings)
	full := 0
	for _, l := range lists {
		if len(*l) > 0 {
			full++
		}
		_ = append(*l, "\x00appended")
	}
	for _, l := range lines {
		_ = append(*l, model.KeyLine{Key: "\x00appended"})
	}
	if full < 300 {
		t.Fatalf("only %d lists with items", full)
	}
	if after := fmt.Sprintf("%v %v", st.Atoms, st.Bindings); after != before {
		t.Fatal("an append to one entry's list wrote into another's")
	}
	if strings.Contains(fmt.Sprintf("%v", st.ORGroups), "\x00appended") {
		t.Fatal("an append to one OR group's list wrote into another's")
	}
}
