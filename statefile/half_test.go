package statefile

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/aot-loop/aot-tui/fastyaml"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// checkAtomHalves parses data with the atoms decoded in two halves from
// two atoms on and in one piece, and fails unless both give the same
// Document or the same error.
func checkAtomHalves(t testing.TB, data []byte) {
	t.Helper()
	whole, errWhole := parse(data, nil, false, 0)
	halves, errHalves := parse(data, nil, false, 2)
	if !reflect.DeepEqual(errWhole, errHalves) {
		t.Fatalf("in one piece: %v; in halves: %v; on\n%s", errWhole, errHalves, data)
	}
	if !reflect.DeepEqual(whole, halves) {
		t.Fatalf("the atoms decoded in halves differ from one piece on\n%s", data)
	}
}

// tookHalves reports whether the atoms list of data, a readable file, is
// decoded in two halves from two atoms on.
func tookHalves(t testing.TB, data []byte) bool {
	t.Helper()
	doc, err := parse(data, nil, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	var atoms *yaml.Node
	for i := 0; i+1 < len(doc.Root.Content); i += 2 {
		if doc.Root.Content[i].Value == "atoms" {
			atoms = doc.Root.Content[i+1]
		}
	}
	d := &decoder{lines: doc.lines, aliasBudget: maxAliasExpansions, root: doc.Root, halves: 2}
	_, ok := d.atomsInHalves(nodeVal(atoms))
	return ok
}

func TestAtomHalvesGenerated(t *testing.T) {
	// atomsInHalves declines on one P; the comparison below means
	// something only when the halves are taken.
	if old := runtime.GOMAXPROCS(0); old < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	}
	for _, n := range []int{1, 2, 3, 50, 1000} {
		for seed := range uint64(3) {
			a, _ := gen.GenerateSpec(n, seed)
			b := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.5, ORGroups: n / 10, Decompositions: n / 10})
			for _, data := range [][]byte{a, b} {
				checkAtomHalves(t, data)
				if n >= 2 && !tookHalves(t, data) {
					t.Errorf("%d atoms, seed %d: the atoms were not decoded in halves", n, seed)
				}
				checkDirect(t, data, fmt.Sprintf("%d atoms, seed %d", n, seed))
				if n >= 2 && !readerTookHalves(t, data) {
					t.Errorf("%d atoms, seed %d: the atoms were not read in halves", n, seed)
				}
			}
		}
	}
}

func TestAtomHalvesFixtures(t *testing.T) {
	var files []string
	for _, glob := range []string{"../testdata/*.md", "../testdata/valid/*.md", "../testdata/invalid/*.md", "testdata/edits/*.md", "../sim/testdata/*.md"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkAtomHalves(t, data)
		checkDirect(t, data, f)
	}
}

// Problems keep their order across the two halves; an alias in either half
// sends the list back to one piece (its budget is the document's).
func TestAtomHalvesProblemsAndAliases(t *testing.T) {
	for _, atoms := range []string{
		"  - id: A1\n    status: [x]\n  - id: {a: 1}\n    depends_on: 7\n  - id: A3\n    extra: {k: [1, 2.5, true, null]}\n  - 5\n",
		"  - &a {id: A1}\n  - *a\n  - id: A3\n  - *a\n",
		"  - id: A1\n    depends_on: &d [A0]\n  - id: A2\n  - id: A3\n    depends_on: *d\n",
		"  - id: A1\n  - id: A1\n    id: A2\n  - ~\n  - []\n",
	} {
		data := []byte("---\nobjective:\n  goal: g\ncontrol:\n  status: running\natoms:\n" + atoms + "---\nbody\n")
		checkAtomHalves(t, data)
		checkDirect(t, data, atoms)
	}
}

// FuzzAtomHalves checks the atoms decoded in halves against one piece,
// through the node tree and read directly. Seed corpus:
// testdata/fuzz/FuzzAtomHalves.
func FuzzAtomHalves(f *testing.F) {
	f.Add([]byte("---\natoms:\n  - id: A1\n    status: [x]\n  - id: A2\n    depends_on: [A1]\n---\n"))
	f.Add([]byte("---\natoms:\n  - &a {id: A1}\n  - *a\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAtomHalves(t, data)
		checkDirect(t, data, "the input")
	})
}

// readerTookHalves reports whether reading data directly decodes its
// atoms list in two halves from two atoms on.
func readerTookHalves(t testing.TB, data []byte) bool {
	t.Helper()
	fm, err := SplitFrontmatter(data)
	if err != nil {
		t.Fatal(err)
	}
	yml := fm.YAML(data)
	lines := yamltext.NewLineMap(yml, fm.FirstLine-1)
	r := fastyaml.NewReader(yml, lines)
	if r == nil {
		return false
	}
	root := r.Root()
	d := &decoder{lines: lines, halves: 2, r: r}
	took := false
	d.entries(val{v: root}, func(k, v val) {
		if k.raw() == "atoms" {
			_, took = d.readInHalves(v)
		}
	})
	d.joinHalves()
	return took && r.Finish()
}

func BenchmarkAtomHalves(b *testing.B) {
	data, _ := gen.GenerateSpec(10000, 1)
	for _, at := range []int{0, atomHalves} {
		name := "one-piece"
		if at > 0 {
			name = "halves"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := parse(data, nil, false, at); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
