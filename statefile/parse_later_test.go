package statefile

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// TestLoopReadLaterIsParse: the Document LoadLoopReadLater gives, once
// loopRead has returned, is the one Load gives — its LoopRead (made on
// another goroutine while the decoded state is in use) included — on
// every fixture family, the fuzz corpus, generated loops large enough
// to be decoded in halves, and the versions the loop's and people's edits
// make of them; and on one core (later false), where there is nothing to
// wait for.
func TestLoopReadLaterIsParse(t *testing.T) {
	twoCores(t)
	inputs := fixtureFiles(t)
	for name, data := range corpusInputs(t) {
		inputs[name] = data
	}
	for _, n := range []int{1, 17, 300, atomHalves + 500} {
		for seed := range uint64(2) {
			spec, _ := gen.GenerateSpec(n, seed)
			inputs[fmt.Sprintf("spec %d seed %d", n, seed)] = spec
			inputs[fmt.Sprintf("loop %d seed %d", n, seed)] = gen.Generate(gen.Options{Atoms: n, Seed: seed, Resolved: 0.4, ORGroups: n / 8, Decompositions: n / 10})
		}
	}
	for name, base := range reparseBases(t) {
		r := rand.New(rand.NewSource(int64(len(name))))
		cur := base
		for step := range 40 {
			e := lineEdits[r.Intn(len(lineEdits))]
			cur = []byte(strings.Join(e.do(r, strings.Split(string(cur), "\n")), "\n"))
			inputs[fmt.Sprintf("%s step %d (%s)", name, step, e.name)] = cur
		}
	}
	later := 0
	for name, data := range inputs {
		want, wantErr := Parse(data)
		for _, on := range []bool{true, false} {
			got, loopRead, gotErr := readLater(data, atomHalves, on)
			if loopRead == nil {
				t.Fatalf("%s: no loopRead", name)
			}
			if gotErr == nil && on {
				switch direct := readsDirectly(data); {
				case direct && got.State.LoopRead != nil:
					t.Fatalf("%s: read directly, and its LoopRead made at once", name)
				case direct:
					later++
				}
			}
			// What status --json does meanwhile: read the state, and wait
			// from two goroutines.
			if gotErr == nil {
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = len(got.State.Atoms)
					loopRead()
				}()
				loopRead()
				wg.Wait()
			}
			if err := sameErrAndData(got, want, gotErr, wantErr, "Parse's"); err != nil {
				t.Fatalf("%s (later %v): %v", name, on, err)
			}
			if wantErr != nil {
				continue
			}
			if got.State.LoopRead == nil {
				t.Fatalf("%s (later %v): no LoopRead after loopRead", name, on)
			}
			if !equalNaN(reflect.ValueOf(got.State), reflect.ValueOf(want.State)) {
				t.Fatalf("%s (later %v): states differ:\n%s", name, on, stateDiff(got.State, want.State))
			}
			if err := sameFileLines(got, want, "Parse's"); err != nil {
				t.Fatalf("%s (later %v): %v", name, on, err)
			}
			if got.Root != nil || got.memo != nil {
				t.Fatalf("%s (later %v): kept a tree or a memo", name, on)
			}
		}
	}
	if later == 0 {
		t.Fatalf("none of %d inputs had its LoopRead made later: the test compared only the path that makes it at once", len(inputs))
	}
	t.Logf("%d of %d inputs had their LoopRead made later", later, len(inputs))
}

// TestLoadLoopReadLater: LoadLoopReadLater reads the file Load reads, and
// names it in a parse error as Load does.
func TestLoadLoopReadLater(t *testing.T) {
	twoCores(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.md")
	bad := filepath.Join(dir, "bad.md")
	if err := os.WriteFile(good, gen.Generate(gen.Options{Atoms: atomHalves + 10, Seed: 3, Resolved: 0.5}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("---\nobjective: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(good, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, loopRead, err := LoadLoopReadLater(good, 0)
	if err != nil {
		t.Fatal(err)
	}
	loopRead()
	if !equalNaN(reflect.ValueOf(got.State), reflect.ValueOf(want.State)) {
		t.Fatalf("states differ:\n%s", stateDiff(got.State, want.State))
	}
	_, wantErr := Load(bad, 0)
	if _, loopRead, err := LoadLoopReadLater(bad, 0); err == nil || loopRead != nil || err.Error() != wantErr.Error() {
		t.Fatalf("error %v (loopRead %v), Load's %v", err, loopRead != nil, wantErr)
	}
	if _, _, err := LoadLoopReadLater(filepath.Join(dir, "none.md"), 0); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v", err)
	}
}
