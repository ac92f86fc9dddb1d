package history

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// loopWrites returns a function that makes the successive versions of a
// 10,000-atom state file the way ui's BenchmarkLoopWrite10k does: each
// write flips one atom's status and bumps the iteration.
func loopWrites(atoms int) func() []byte {
	return gen.LoopWrites(gen.Generate(gen.Options{Atoms: atoms, Seed: 11, Resolved: 0.3, ORGroups: atoms / 25, Decompositions: atoms / 40}))
}

// BenchmarkRecord10k is what the TUI's history costs per write at 10,000
// atoms: each version is appended to a Timeline and to a Journal (the
// Recorder's work, done here in line), and let go of by the caller as
// the TUI does once the next one arrives. B/op is what both allocate per
// version; MB-timeline and MB-journal are the heap each holds at the end
// (-benchtime 100x: after 100 versions), beyond the last version's bytes,
// which the caller holds anyway. With AOT_HEAP_PROFILE=file it writes a
// heap profile there while both are alive (go tool pprof
// -sample_index=inuse_space).
func BenchmarkRecord10k(b *testing.B) {
	next := loopWrites(10000)
	tl := NewTimeline(TimelineOptions{})
	j, err := OpenJournal(filepath.Join(b.TempDir(), "j.jsonl"), JournalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)
	var data []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		data = nil
		data = next()
		b.StartTimer()
		v := Version{At: t0.Add(time.Duration(i) * time.Second), Data: data}
		tl.Append(v)
		if _, err := j.Append(v); err != nil {
			b.Fatal(err)
		}
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	both := heap()
	if path := os.Getenv("AOT_HEAP_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	j.Close()
	j = nil
	noJournal := heap()
	runtime.KeepAlive(tl)
	tl = nil
	neither := heap()
	b.ReportMetric(float64(both-min(both, noJournal))/1e6, "MB-journal")
	b.ReportMetric(float64(noJournal-min(noJournal, neither))/1e6, "MB-timeline")
	runtime.KeepAlive(data)
	runtime.KeepAlive(next)
}
