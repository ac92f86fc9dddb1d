package statefile

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

// sameDoc reports how Reparse's result (got, gotErr) differs from
// Parse's (want, wantErr) for the same bytes: the error, the frontmatter,
// the decoded state with every line and problem, and the node tree with
// every position (which the text editor works from).
func sameDoc(got, want *Document, gotErr, wantErr error) error {
	if err := sameErrAndData(got, want, gotErr, wantErr, "Parse's"); err != nil || wantErr != nil {
		return err
	}
	if !reflect.DeepEqual(got.State, want.State) {
		return fmt.Errorf("states differ:\n%s", stateDiff(got.State, want.State))
	}
	if got.Root != nil {
		return fmt.Errorf("Reparse kept a tree")
	}
	return sameFileLines(got, want, "Parse's")
}

// sameErrAndData reports how two reads of the same bytes differ in their
// error, with its line and hint, and, when both read them, in their data
// and frontmatter; whose names the read want comes from ("Parse's").
func sameErrAndData(got, want *Document, gotErr, wantErr error, whose string) error {
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		return fmt.Errorf("error %v, %s %v", gotErr, whose, wantErr)
	}
	if wantErr != nil {
		ge, _ := ParseError(gotErr)
		we, _ := ParseError(wantErr)
		if ge == nil || we == nil || ge.Line != we.Line || ge.Hint != we.Hint {
			return fmt.Errorf("error %+v, %s %+v", ge, whose, we)
		}
		return nil
	}
	if !bytes.Equal(got.Data, want.Data) || got.FM != want.FM {
		return fmt.Errorf("data or frontmatter differ: %+v vs %+v", got.FM, want.FM)
	}
	return nil
}

// sameFileLines reports a file line got's line map gives otherwise than
// want's.
func sameFileLines(got, want *Document, whose string) error {
	for _, n := range []int{1, 2, 7, 1000} {
		if got.FileLine(n) != want.FileLine(n) {
			return fmt.Errorf("FileLine(%d) = %d, %s %d", n, got.FileLine(n), whose, want.FileLine(n))
		}
	}
	return nil
}

// stateDiff names the first parts of two states that differ.
func stateDiff(a, b any) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := 0; i < va.NumField(); i++ {
		fa, fb := va.Field(i), vb.Field(i)
		if reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			continue
		}
		name := va.Type().Field(i).Name
		if fa.Kind() == reflect.Slice && fa.Len() == fb.Len() {
			for k := 0; k < fa.Len(); k++ {
				if !reflect.DeepEqual(fa.Index(k).Interface(), fb.Index(k).Interface()) {
					out = append(out, fmt.Sprintf("%s[%d]: %+v\n   vs %+v", name, k, fa.Index(k).Interface(), fb.Index(k).Interface()))
					break
				}
			}
			continue
		}
		out = append(out, fmt.Sprintf("%s: %+v\n   vs %+v", name, fa.Interface(), fb.Interface()))
	}
	return strings.Join(out, "\n")
}

// checkReparse reparses data on prev and compares the result with Parse.
func checkReparse(t *testing.T, prev *Document, data []byte, what string) *Document {
	t.Helper()
	got, gotErr := Reparse(prev, data)
	want, wantErr := Parse(data)
	if err := sameDoc(got, want, gotErr, wantErr); err != nil {
		t.Fatalf("%s: Reparse differs from Parse: %v\n--- file\n%s", what, err, data)
	}
	return got
}

// lineEdits are the changes a loop and its people make to a state file,
// and some no tool makes, as edits of its lines.
var lineEdits = []struct {
	name string
	do   func(r *rand.Rand, lines []string) []string
}{
	{"status", func(r *rand.Rand, ls []string) []string {
		return replaceMatching(r, ls, "    status: ", func(string) string {
			return "    status: " + []string{"pending", "in_progress", "resolved"}[r.Intn(3)]
		})
	}},
	{"iteration", func(r *rand.Rand, ls []string) []string {
		return replaceMatching(r, ls, "  iteration: ", func(string) string { return fmt.Sprintf("  iteration: %d", r.Intn(100)) })
	}},
	{"insert", func(r *rand.Rand, ls []string) []string {
		k := r.Intn(len(ls) + 1)
		add := strings.Split(insertions[r.Intn(len(insertions))], "\n")
		return append(ls[:k:k], append(add, ls[k:]...)...)
	}},
	{"delete", func(r *rand.Rand, ls []string) []string {
		if len(ls) == 0 {
			return ls
		}
		k := r.Intn(len(ls))
		n := 1 + r.Intn(min(4, len(ls)-k))
		return append(ls[:k:k], ls[k+n:]...)
	}},
	{"copy block", func(r *rand.Rand, ls []string) []string {
		if len(ls) < 2 {
			return ls
		}
		i := r.Intn(len(ls))
		j := i + 1 + r.Intn(min(8, len(ls)-i))
		k := r.Intn(len(ls) + 1)
		block := append([]string(nil), ls[i:j]...)
		return append(ls[:k:k], append(block, ls[k:]...)...)
	}},
	{"swap", func(r *rand.Rand, ls []string) []string {
		if len(ls) > 1 {
			i, j := r.Intn(len(ls)), r.Intn(len(ls))
			ls[i], ls[j] = ls[j], ls[i]
		}
		return ls
	}},
	{"change text", func(r *rand.Rand, ls []string) []string {
		if len(ls) == 0 {
			return ls
		}
		k := r.Intn(len(ls))
		l := ls[k]
		at := r.Intn(len(l) + 1)
		bits := []string{"x", " ", ":", "- ", "#", "\"", "'", "[", "]", "|", "&a", "*a", "\t", "ü", "1", "  ",
			"\x01", "\xff", "\uFEFF", "\u2028", "\x7f", "\r"}
		ls[k] = l[:at] + bits[r.Intn(len(bits))] + l[at:]
		return ls
	}},
	{"blank line above", func(r *rand.Rand, ls []string) []string {
		// Moves the frontmatter in the file: every line after it moves.
		if len(ls) > 0 && ls[0] == "" && r.Intn(2) == 0 {
			return ls[1:]
		}
		return append([]string{""}, ls...)
	}},
	{"indent", func(r *rand.Rand, ls []string) []string {
		if len(ls) > 0 {
			k := r.Intn(len(ls))
			if r.Intn(2) == 0 {
				ls[k] = " " + ls[k]
			} else {
				ls[k] = strings.TrimPrefix(ls[k], " ")
			}
		}
		return ls
	}},
}

// insertions are lines an edit may insert: entries and fields of each
// section, problems (a wrong type, a key given twice), comments, YAML the
// fast parser leaves to yaml.v3, and frontmatter delimiters.
var insertions = []string{
	"  - id: N1\n    description: \"new atom\"\n    status: pending\n    depends_on: [A1]",
	"  - id: N2\n    description: x\n    status: [bad]\n    depends_on: 7\n    note: {a: 1}\n    more:\n      - x\n      - k: v",
	"    status: resolved",
	"    extra_field: 42",
	"  N3:\n    summary: |\n      line one\n\n      line two\n    artifacts:\n    - a.go\n    - b.go",
	"  N4:\n    summary: done\n    artifacts: []\n    why: null",
	"  - or_group: g\n    selected: A1\n    reason: \"because\"\n    timestamp: \"2026-01-01T00:00:00Z\"",
	"  - timestamp: \"2026-01-02T00:00:00Z\"\n    type: dag_adjustment\n    description: x\n    trail_cleared: maybe",
	"  g9:\n    choices: [A1, A2]\n    selected: A1\n    failed: []",
	"# a comment",
	"",
	"   ",
	"atoms: []",
	"trail:\n- a\n- b",
	"bindings:\n  A1:\n  - x\n  A2: {}",
	"unknown_section:\n  - 1\n  - [2, 3]\n  - k: v",
	"control:\n  status: running",
	"  - &anchor x\n  - *anchor",
	"  - !!str tagged",
	"    description: \"two\n      lines\"",
	"---",
	"...",
	"\tstatus: tab",
	// Lines the loop's own tools read otherwise.
	"# note: a comment with a colon",
	"  - id: N5  # new\n    description: x\n    status: \"pending\"\n    depends_on: [A1]  # and",
	"    status: pending_review",
	"  iteration: 3",
}

func replaceMatching(r *rand.Rand, ls []string, prefix string, with func(string) string) []string {
	var at []int
	for i, l := range ls {
		if strings.HasPrefix(l, prefix) {
			at = append(at, i)
		}
	}
	if len(at) > 0 {
		k := at[r.Intn(len(at))]
		ls[k] = with(ls[k])
	}
	return ls
}

// reparseBases are the files the differential tests start from.
func reparseBases(t testing.TB) map[string][]byte {
	bases := map[string][]byte{}
	for _, n := range []int{1, 5, 40} {
		bases[fmt.Sprintf("gen-%d", n)] = gen.Generate(gen.Options{Atoms: n, Seed: uint64(n), Resolved: 0.4, ORGroups: n / 8, Decompositions: n / 10})
		spec, _ := gen.GenerateSpec(n, uint64(n))
		bases[fmt.Sprintf("spec-%d", n)] = spec
	}
	files, _ := filepath.Glob("../testdata/*.md")
	// Files the loop's own tools read otherwise (whose entries a Reparse
	// must read again, not take from the version before).
	for _, f := range []string{"01-clean", "23-bom", "24-crlf", "27-atoms-col0", "28-atoms-indent4", "30-atom-status-prefix", "31-atom-status-comment",
		"32-depends-comment", "35-id-comment", "36-id-not-first", "37-section-cut", "38-atoms-last", "42-body-iteration-line"} {
		files = append(files, "../testdata/looptools/"+f+".md")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		bases[filepath.Base(name)] = data
	}
	// An atom with a CRLF line and another with a '---' in its
	// description (entries a Reparse reads again each time), and a lone
	// CR (which the fast parser leaves to yaml.v3).
	clean := bases["01-clean.md"]
	mixed := bytes.Replace(clean, []byte("\"Write rows\"\n"), []byte("\"Write rows\"\r\n"), 1)
	bases["mixed-cr-dashes"] = bytes.Replace(mixed, []byte("\"Add the flag\""), []byte("\"Add the flag --- now\""), 1)
	bases["lone-cr"] = bytes.Replace(mixed, []byte("\"Add the flag\""), []byte("\"Add the\rflag\""), 1)
	return bases
}

// TestReparseMatchesParse is the differential test of Reparse: chains of
// edits such as a loop makes (a status, the control block, an entry added
// or removed, lines added above everything) and such as no tool makes
// (text broken, YAML outside the fast parser's subset and back, keys
// given twice, wrong types), each version read by Reparse on the last
// good Document — or on an older one — must give exactly what Parse gives.
func TestReparseMatchesParse(t *testing.T) {
	steps := 150
	if testing.Short() {
		steps = 40
	}
	for name, base := range reparseBases(t) {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= 6; seed++ {
				r := rand.New(rand.NewSource(seed))
				prev := checkReparse(t, nil, base, "first read")
				var older []*Document
				cur := base
				for step := 0; step < steps; step++ {
					e := lineEdits[r.Intn(len(lineEdits))]
					if r.Intn(8) == 0 && len(older) > 0 {
						cur = older[r.Intn(len(older))].Data // back to an earlier version
					} else {
						lines := strings.Split(string(cur), "\n")
						cur = []byte(strings.Join(e.do(r, lines), "\n"))
					}
					on := prev
					if r.Intn(6) == 0 && len(older) > 0 {
						on = older[r.Intn(len(older))]
					}
					doc := checkReparse(t, on, cur, fmt.Sprintf("seed %d step %d (%s)", seed, step, e.name))
					if doc != nil {
						prev = doc
						older = append(older, doc)
					}
				}
			}
		})
	}
}

// TestReparseReuses checks that Reparse does what it is for: after a
// status change in a large file only the changed atom is decoded again,
// and after a line added at the top every atom is moved, not decoded
// again. An entry decoded again has strings of its own; one taken from
// the version before shares them.
func TestReparseReuses(t *testing.T) {
	data := gen.Generate(gen.Options{Atoms: 300, Seed: 4, Resolved: 0.3, ORGroups: 10, Decompositions: 5})
	prev, err := Reparse(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	taken := func(doc, prev *Document) (n int) {
		for i, a := range doc.State.Atoms {
			if i < len(prev.State.Atoms) && unsafe.StringData(a.Description) == unsafe.StringData(prev.State.Atoms[i].Description) {
				n++
			}
		}
		return n
	}
	changed := bytes.Replace(data, []byte("    status: pending\n"), []byte("    status: in_progress\n"), 1)
	doc := checkReparse(t, prev, changed, "status change")
	if n := taken(doc, prev); n != 299 {
		t.Fatalf("%d of 300 atoms taken after one status change, want 299", n)
	}
	// An atom taken unmoved keeps its Lines map.
	sameLines := 0
	for i, a := range doc.State.Atoms {
		if a.Lines != nil && reflect.ValueOf(a.Lines).Pointer() == reflect.ValueOf(prev.State.Atoms[i].Lines).Pointer() {
			sameLines++
		}
	}
	if sameLines != 299 {
		t.Fatalf("%d of 300 decoded atoms kept their Lines after one status change, want 299", sameLines)
	}
	// A binding whose value is an indentless sequence: its entry runs on
	// past lines at its own indentation.
	indentless := bytes.Replace(changed, []byte("\nbindings:\n"), []byte("\nbindings:\n  A9999:\n  - x\n  - y\n"), 1)
	if doc := checkReparse(t, doc, indentless, "indentless sequence"); doc.memo == nil || doc.memo.yaml == nil {
		t.Fatal("no memo kept of a file with an indentless sequence in bindings")
	}
	moved := append([]byte("---\n# a comment above everything\n"), changed[4:]...)
	doc2 := checkReparse(t, doc, moved, "line added at the top")
	if n := taken(doc2, doc); n != 300 {
		t.Fatalf("%d of 300 atoms taken after a line added at the top, want all", n)
	}
	if a, b := doc2.State.Atoms[150].Line, doc.State.Atoms[150].Line; a != b+1 {
		t.Fatalf("atom 150 moved from line %d to %d, want one down", b, a)
	}
	// The frontmatter itself moves: every decoded line moves with it.
	below := append([]byte("\n\n"), moved...)
	doc3 := checkReparse(t, doc2, below, "frontmatter moved down")
	if n := taken(doc3, doc2); n != 300 {
		t.Fatalf("%d of 300 atoms taken after the frontmatter moved, want all", n)
	}
}

// TestReparseStartsOverWhenAnEntryCannotBeTaken: an entry whose text did
// not change is not parsed, but an entry with problems is decoded again
// when its index changed, since their paths name the index. Through the
// tree (a text the Reader does not take), such an entry is a stub with
// nothing to decode it from: Reparse parses the whole file again. Read
// directly, it is decoded from the text and the others are taken. Both
// give what Parse gives.
func TestReparseStartsOverWhenAnEntryCannotBeTaken(t *testing.T) {
	data := gen.Generate(gen.Options{Atoms: 40, Seed: 3})
	bad := bytes.Replace(data, []byte("    status: pending\n"), []byte("    status: [not, a, status]\n"), 1)
	at := bytes.Index(bad, []byte("\natoms:\n")) + len("\natoms:\n")
	inserted := append(append(append([]byte(nil), bad[:at]...), "  - id: NEW1\n    description: new\n    status: pending\n    depends_on: []\n"...), bad[at:]...)
	for _, tree := range []bool{true, false} {
		t.Run(map[bool]string{true: "tree", false: "direct"}[tree], func(t *testing.T) {
			treeReparse.Store(tree)
			defer treeReparse.Store(false)
			prev := checkReparse(t, nil, bad, "a file with a problem")
			if len(prev.State.Problems) == 0 {
				t.Fatal("the file has no problem to move")
			}
			// The atom with the problem.
			bad := -1
			for i, a := range prev.State.Atoms {
				if a.Line <= prev.State.Problems[0].Line {
					bad = i
				}
			}
			doc := checkReparse(t, prev, inserted, "an atom inserted above the atom with a problem")
			if doc.memo == nil || doc.memo.yaml == nil {
				t.Fatal("the parse started over without a memo")
			}
			for i, a := range doc.State.Atoms[1:] {
				taken := unsafe.StringData(a.Description) == unsafe.StringData(prev.State.Atoms[i].Description)
				switch {
				case tree && taken:
					// The parse started over.
					t.Fatalf("atom %d was taken from the version before, want all decoded again", i+1)
				case !tree && taken == (i == bad):
					t.Fatalf("atom %d taken from the version before: %v; want every one but atom %d (the problem's)", i+1, taken, bad+1)
				}
			}
		})
	}
}

// FuzzReparse reads a file, then a version of it with the bytes at..at+del
// replaced by ins, then the first again, each with Reparse on the
// Document before: each must be what Parse gives, and Parse's direct
// reading what the node tree gives. The seed corpus is in
// testdata/fuzz/FuzzReparse.
func FuzzReparse(f *testing.F) {
	for name, base := range reparseBases(f) {
		if len(base) > 4500 {
			continue
		}
		at := uint16(len(base) / 2)
		f.Add(base, []byte("    status: resolved\n"), at, uint16(0))
		f.Add(base, []byte(""), at, uint16(len(name)))
		f.Add(base, []byte("# x\n"), uint16(4), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data, ins []byte, at, del uint16) {
		a := min(int(at), len(data))
		b := min(a+int(del), len(data))
		edited := append(append(append([]byte(nil), data[:a]...), ins...), data[b:]...)
		first, _ := Reparse(nil, data)
		second := checkReparseFuzz(t, first, edited)
		if second == nil {
			second = first
		}
		checkReparseFuzz(t, second, data)
		// The same edit in two places at once (a loop's write changes an
		// atom and the control block): the incremental read reads two
		// pieces.
		if c := (a + len(data)/2) % max(len(data), 1); c > b {
			twice := append(append([]byte(nil), edited[:c+len(ins)-(b-a)]...), ins...)
			twice = append(twice, edited[c+len(ins)-(b-a):]...)
			checkReparseFuzz(t, first, twice)
		}
	})
}

func checkReparseFuzz(t *testing.T, prev *Document, data []byte) *Document {
	got, gotErr := Reparse(prev, data)
	want, wantErr := Parse(data)
	if err := sameDoc(got, want, gotErr, wantErr); err != nil {
		t.Fatalf("Reparse differs from Parse: %v\n--- file\n%q", err, data)
	}
	// Parse reads directly when it can: that too must be what the tree
	// gives.
	checkDirect(t, data, "a version")
	return got
}

// TestReparseLetsOldVersionsGo checks that a chain of Reparses keeps only
// what the last Document uses: the bytes and the state of every earlier
// version are collected, although their unchanged entries live on in the
// state. (Nodes of a parse were carved from shared chunks; when a root or
// the list of atoms shared a chunk with an entry the next versions kept,
// each version kept the one before alive, some 170 KB a write at 10,000
// atoms, without end. Reparse keeps no nodes of the lists now, but a
// decoded value that pinned its version's text would do the same.)
func TestReparseLetsOldVersionsGo(t *testing.T) {
	base := gen.Generate(gen.Options{Atoms: 400, Seed: 11, Resolved: 0.3, ORGroups: 16, Decompositions: 10})
	next := gen.LoopWrites(base)
	var (
		oldData  []weak.Pointer[byte]
		oldState []weak.Pointer[model.State]
		doc      *Document
	)
	for i := 0; i < 60; i++ {
		// A different atom's status each write, and the iteration; every
		// tenth write adds a line at the top, so that entries move.
		text := next()
		if i%10 == 9 {
			text = append(bytes.Repeat([]byte("\n"), i/10), text...)
		}
		var err error
		if doc, err = Reparse(doc, text); err != nil {
			t.Fatal(err)
		}
		if doc.memo == nil || doc.memo.yaml == nil {
			t.Fatal("the fast parser did not take the file")
		}
		oldData = append(oldData, weak.Make(&doc.Data[0]))
		oldState = append(oldState, weak.Make(doc.State))
	}
	runtime.GC()
	runtime.GC()
	kept := 0
	for i := range oldData[:len(oldData)-1] {
		if oldData[i].Value() != nil || oldState[i].Value() != nil {
			kept++
		}
	}
	if kept != 0 {
		t.Fatalf("%d of %d earlier versions still in memory, want none", kept, len(oldData)-1)
	}
	runtime.KeepAlive(doc)
}

// TestReparseKeepsNoTree: what a Document from Reparse keeps beside its
// bytes and state for the next Reparse is where each entry is, not the
// entries' nodes. The node tree of a file is about 14 times its size; a
// memo that keeps it (or a node that keeps the slab chunk it was carved
// from, and through it the rest of the tree) shows here.
func TestReparseKeepsNoTree(t *testing.T) {
	base := gen.Generate(gen.Options{Atoms: 3000, Seed: 11, Resolved: 0.3, ORGroups: 120, Decompositions: 75})
	changed := bytes.Replace(base, []byte("    status: pending\n"), []byte("    status: in_progress\n"), 1)
	liveHeap := func() int64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	var doc *Document
	for _, data := range [][]byte{base, changed, base} {
		var err error
		if doc, err = Reparse(doc, data); err != nil {
			t.Fatal(err)
		}
	}
	if doc.memo == nil || doc.memo.yaml == nil {
		t.Fatal("the fast parser did not take the file")
	}
	with := liveHeap()
	doc.memo = nil
	without := liveHeap()
	runtime.KeepAlive(doc)
	if kept := with - without; kept > int64(len(base)) {
		t.Fatalf("the memo keeps %d KB for a %d KB file, want at most the file's size", kept>>10, len(base)>>10)
	}
}
