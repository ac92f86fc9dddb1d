package fastyaml

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// parseWithHalves is the fast parse with top-level sequences of at least
// at bytes parsed in two halves (math.MaxInt: never); joined is how many
// halves were taken.
func parseWithHalves(yml []byte, at int) (root *yaml.Node, joined int) {
	p := &fastParser{halfAt: at}
	root, _ = p.run(yml, yamltext.NewLineMap(yml, 0), nil, false)
	return root, p.joined
}

// twoCores lets the test run with at least two Ps, since startHalf parses
// in halves only then: without it the tests that count joined halves fail
// on one core (or under go test -cpu 1).
func twoCores(t testing.TB) {
	if old := runtime.GOMAXPROCS(0); old < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	}
}

// checkHalves reports whether the parse in halves (every top-level
// sequence cut) gives the tree the parse in one piece gives, or both
// give up; it returns how many halves were joined.
func checkHalves(t testing.TB, yml []byte) int {
	t.Helper()
	whole, _ := parseWithHalves(yml, math.MaxInt)
	cut, joined := parseWithHalves(yml, 1)
	if (whole == nil) != (cut == nil) {
		t.Fatalf("one piece gave up: %v, in halves: %v, on\n%s", whole == nil, cut == nil, yml)
	}
	if !reflect.DeepEqual(whole, cut) {
		t.Fatalf("the parse in halves differs from the parse in one piece on\n%s", yml)
	}
	return joined
}

func TestHalvesGenerated(t *testing.T) {
	twoCores(t)
	for _, n := range []int{2, 3, 50, 1000} {
		for seed := range uint64(3) {
			a, _ := gen.GenerateSpec(n, seed)
			b := gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.5, ORGroups: n / 10, Decompositions: n / 10})
			for _, data := range [][]byte{a, b} {
				yml := frontmatter(t, data)
				if checkHalves(t, yml) == 0 {
					t.Errorf("%d atoms, seed %d: no list was parsed in halves", n, seed)
				}
			}
		}
	}
}

func TestHalvesFixtures(t *testing.T) {
	twoCores(t)
	var files []string
	for _, glob := range []string{"../testdata/*.md", "../testdata/valid/*.md", "../testdata/invalid/*.md", "../statefile/testdata/edits/*.md", "../sim/testdata/*.md"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	joined := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		joined += checkHalves(t, frontmatter(t, data))
	}
	if joined == 0 {
		t.Errorf("no list of the %d fixtures was parsed in halves", len(files))
	}
}

func TestHalvesRandom(t *testing.T) {
	twoCores(t)
	n := 6000
	if testing.Short() {
		n = 1000
	}
	r := rand.New(rand.NewPCG(fastSeed, 13))
	joined := 0
	for i := range n {
		var b strings.Builder
		randomMapping(r, &b, 0, 0)
		doc := b.String()
		if i%2 == 1 {
			doc = perturb(r, doc)
		}
		joined += checkHalves(t, []byte(doc))
	}
	if joined == 0 {
		t.Errorf("no list of %d random documents was parsed in halves", n)
	}
}

// FuzzHalves checks the parse in halves against the parse in one piece.
// Seed corpus: testdata/fuzz/FuzzHalves.
func FuzzHalves(f *testing.F) {
	f.Add([]byte("atoms:\n  - id: A1\n    depends_on: []\n\n  - id: A2\n    description: |\n      x\n\n  - id: A3\nbindings: {}\n"))
	f.Add([]byte("atoms:\n- id: A1\n- id: A2\n  x: [a, b]\n- id: A3\nnext: 1\n"))
	f.Fuzz(func(t *testing.T, yml []byte) {
		checkHalves(t, yml)
	})
}

// frontmatter returns the YAML between the first two "---" lines of data.
func frontmatter(t testing.TB, data []byte) []byte {
	t.Helper()
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return data
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return data
	}
	return []byte(s[4 : 4+end+1])
}

func BenchmarkHalves(b *testing.B) {
	data, _ := gen.GenerateSpec(10000, 1)
	yml := frontmatter(b, data)
	for _, at := range []int{math.MaxInt, halfMin} {
		b.Run(map[bool]string{true: "one-piece", false: "halves"}[at == math.MaxInt], func(b *testing.B) {
			b.SetBytes(int64(len(yml)))
			for b.Loop() {
				parseWithHalves(yml, at)
			}
		})
	}
}
