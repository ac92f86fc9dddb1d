package history

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// evolve makes n successive versions of a generated state file of atoms
// atoms, each a small edit of the one before as a loop makes them: an
// atom's status, the iteration, a line added now and then.
func evolve(atoms, n int, seed uint64) [][]byte {
	next := evolver(atoms, seed)
	out := make([][]byte, n)
	for i := range out {
		out[i] = next()
	}
	return out
}

// evolver returns a function that makes the versions of evolve one by one.
func evolver(atoms int, seed uint64) func() []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	cur := string(gen.Generate(gen.Options{Atoms: atoms, Seed: seed}))
	t0, i := 0, 0
	return func() []byte {
		i++
		lines := strings.SplitAfter(cur, "\n")
		switch r.IntN(4) {
		case 0, 1: // a status
			var idx []int
			for k, l := range lines {
				if strings.HasPrefix(l, "    status: ") {
					idx = append(idx, k)
				}
			}
			k := idx[r.IntN(len(idx))]
			next := []string{"pending", "in_progress", "resolved"}[r.IntN(3)]
			lines[k] = "    status: " + next + "\n"
		case 2: // the iteration
			for k, l := range lines {
				if strings.HasPrefix(l, "  iteration: ") {
					t0++
					lines[k] = fmt.Sprintf("  iteration: %d\n", t0)
					break
				}
			}
		case 3: // a line more (a trail entry's reason, say)
			k := 1 + r.IntN(len(lines)-2)
			lines = append(lines[:k], append([]string{fmt.Sprintf("# note %d\n", i)}, lines[k:]...)...)
		}
		next := strings.Join(lines, "")
		if next == cur {
			next += "\n"
		}
		cur = next
		return []byte(cur)
	}
}

func TestTimelineGivesBackEveryVersion(t *testing.T) {
	versions := evolve(60, 300, 3)
	tl := NewTimeline(TimelineOptions{SnapshotEvery: 16})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, v := range versions {
		if k, ok := tl.Append(Version{At: t0.Add(time.Duration(i) * time.Second), Data: v}); !ok || k != i {
			t.Fatalf("append %d: got %d %v", i, k, ok)
		}
	}
	if _, ok := tl.Append(Version{Data: versions[len(versions)-1]}); ok {
		t.Fatal("the same bytes twice were kept twice")
	}
	// Every version, in an order that defeats the cache: backwards, then
	// at random.
	r := rand.New(rand.NewPCG(1, 2))
	order := make([]int, 0, 2*len(versions))
	for i := len(versions) - 1; i >= 0; i-- {
		order = append(order, i)
	}
	for range versions {
		order = append(order, r.IntN(len(versions)))
	}
	for _, i := range order {
		got, err := tl.Data(i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, versions[i]) {
			t.Fatalf("version %d differs from what was appended", i)
		}
		if !tl.Time(i).Equal(t0.Add(time.Duration(i) * time.Second)) {
			t.Fatalf("version %d: time %v", i, tl.Time(i))
		}
	}
	// Diffs, not copies: far less than the versions' total size.
	total := 0
	for _, v := range versions {
		total += len(v)
	}
	if tl.Bytes() > int64(total/6) {
		t.Fatalf("the timeline takes %d bytes for %d bytes of versions: not stored as diffs", tl.Bytes(), total)
	}
}

func TestTimelineDropsTheOldestPastItsBound(t *testing.T) {
	versions := evolve(40, 200, 5)
	tl := NewTimeline(TimelineOptions{SnapshotEvery: 8, MaxBytes: 10 * int64(len(versions[0]))})
	for _, v := range versions {
		tl.Append(Version{Data: v})
	}
	if tl.First() == 0 || tl.Len() != len(versions) {
		t.Fatalf("first %d len %d: nothing dropped", tl.First(), tl.Len())
	}
	if tl.Bytes() > 10*int64(len(versions[0])) {
		t.Fatalf("%d bytes: over the bound", tl.Bytes())
	}
	if _, err := tl.Data(tl.First() - 1); err == nil || !strings.Contains(err.Error(), "no longer held") {
		t.Fatalf("a dropped version: %v", err)
	}
	for i := tl.First(); i < tl.Len(); i++ {
		if got, _ := tl.Data(i); !bytes.Equal(got, versions[i]) {
			t.Fatalf("version %d differs after dropping", i)
		}
	}
}

func TestTimelineNextStopsAtMarks(t *testing.T) {
	tl := NewTimeline(TimelineOptions{})
	marks := []Mark{MarkFirst, 0, 0, MarkStatus, MarkStall, 0, MarkCorrection | MarkTrail, 0}
	for i, m := range marks {
		tl.Append(Version{Data: []byte(fmt.Sprint(i)), Marks: m})
	}
	for _, c := range []struct {
		from, dir int
		want      int
		ok        bool
	}{{0, 1, 3, true}, {3, 1, 6, true}, {6, 1, 6, false}, {7, -1, 6, true}, {6, -1, 3, true}, {3, -1, 0, true}, {0, -1, 0, false}} {
		if got, ok := tl.Next(c.from, c.dir, Structural); got != c.want || ok != c.ok {
			t.Errorf("Next(%d, %d) = %d %v, want %d %v", c.from, c.dir, got, ok, c.want, c.ok)
		}
	}
}

// thousand builds the timeline of 1,000 versions of a 1,000-atom file and
// returns the heap it holds.
func thousand(tb testing.TB) (*Timeline, uint64) {
	next := evolver(1000, 9)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tl := NewTimeline(TimelineOptions{})
	for range 1000 {
		// Each version is let go of once appended, as the TUI does.
		tl.Append(Version{Data: next()})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(next)
	return tl, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// The memory bound of the issue: 1,000 versions of a 1,000-atom file in
// at most 50 MB.
func TestTimelineMemoryThousandVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tl, heap := thousand(t)
	t.Logf("1,000 versions of a 1,000-atom file: %.1f MB of heap, %.1f MB counted", float64(heap)/1e6, float64(tl.Bytes())/1e6)
	if heap > 50<<20 {
		t.Fatalf("the timeline holds %d MB", heap>>20)
	}
	if got, _ := tl.Data(500); len(got) == 0 {
		t.Fatal("version 501 is empty")
	}
}

func BenchmarkTimelineThousandVersions(b *testing.B) {
	for b.Loop() {
		tl, heap := thousand(b)
		b.ReportMetric(float64(heap)/1e6, "MB-heap")
		b.ReportMetric(float64(tl.Bytes())/1e6, "MB-counted")
	}
}

func BenchmarkTimelineSeek(b *testing.B) {
	versions := evolve(1000, 1000, 9)
	tl := NewTimeline(TimelineOptions{})
	for _, v := range versions {
		tl.Append(Version{Data: v})
	}
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		if _, err := tl.Data(r.IntN(tl.Len())); err != nil {
			b.Fatal(err)
		}
	}
}

// Versions with odd line ends, empty ones and ones without a last line
// end read back as appended, from cold and stepping both ways.
func TestTimelineOddVersions(t *testing.T) {
	versions := []string{"a\nb\nc\n", "a\nb\nc", "", "x", "a\r\nb\r\n", "a\r\nb\r\nc\n", "\n\n\n", "\n\nz\n", "a\nb\nc\n", "a\nB\nc\nd"}
	tl := NewTimeline(TimelineOptions{SnapshotEvery: 4})
	for i, v := range versions {
		if k, ok := tl.Append(Version{Data: []byte(v)}); !ok || k != i {
			t.Fatalf("append %d: %d %v", i, k, ok)
		}
	}
	for _, order := range [][]int{{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {5, 1, 7, 7, 6, 2, 9, 0}} {
		for _, i := range order {
			got, err := tl.Data(i)
			if err != nil || string(got) != versions[i] {
				t.Fatalf("version %d: %q %v, want %q", i, got, err, versions[i])
			}
			for k := range got {
				got[k] = '#' // a copy: the timeline's own bytes stay
			}
		}
	}
}
