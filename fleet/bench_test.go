package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim"
)

// benchFleet lays out n loops (every fifth a phase loop) and returns
// their state files.
func benchFleet(b *testing.B, n int) (string, []string) {
	b.Helper()
	root := b.TempDir()
	var paths []string
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, []string{"", "team", "org/repo"}[i%3], fmt.Sprintf("p%02d", i))
		var path string
		var err error
		if i%5 == 4 {
			path, err = sim.SetupPhase(dir, "feature", uint64(i))
		} else {
			path, err = sim.Setup(dir, 30, uint64(i))
		}
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, path)
	}
	return root, paths
}

// bump rewrites a state file with one counter changed, in place.
func bump(b *testing.B, path string, round int) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	if strings.HasSuffix(path, ".json") {
		i := strings.Index(s, `"budget_limit_usd": `)
		j := i + strings.IndexByte(s[i:], ',')
		s = s[:i] + fmt.Sprintf(`"budget_limit_usd": %d`, round) + s[j:]
	} else {
		i := strings.Index(s, "  iteration: ")
		j := i + strings.IndexByte(s[i:], '\n')
		s = s[:i] + fmt.Sprintf("  iteration: %d", round%20) + s[j:]
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchModes are the watcher's two modes, each benchmarked: WatchClaude
// with its default rescan (every 10 s).
var benchModes = []WatchMode{WatchTrees, WatchClaude}

// BenchmarkWatcher50Loops: one op rewrites all 50 state files (30-atom
// AoT loops and phase loops) and waits until the watcher has published a
// new row for each — a round of 50 loop writes, notifications to rows.
// cpu-ns/loop-write is the process's CPU per write, the benchmark's own
// writing included.
func BenchmarkWatcher50Loops(b *testing.B) {
	for _, m := range benchModes {
		b.Run(m.String(), func(b *testing.B) { benchmarkWatcher50Loops(b, m) })
	}
}

func benchmarkWatcher50Loops(b *testing.B, mode WatchMode) {
	root, paths := benchFleet(b, 50)
	w := startWatcher(b, []string{root}, Options{Depth: 4, Mode: mode})
	w.Changes()
	b.ReportAllocs()
	before := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			bump(b, p, i+1)
		}
		seen := map[string]bool{}
		for len(seen) < len(paths) {
			<-w.Notify()
			for _, r := range w.Changes() {
				seen[r.Path] = true
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/loop-write")
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N*len(paths)), "cpu-ns/loop-write")
}

// BenchmarkWatcherIdle50Loops: the watcher's own CPU while 50 loops are
// quiet (a stat poll of each file every 200 ms, startWatcher's: ten times
// the default; in WatchClaude a walk of the tree every 10 s, the
// default: run it for more than 10 s, -benchtime 120x, to see one): one
// op is 100 ms of wall time; cpu-% is the process's CPU over it, in
// percent of one core.
func BenchmarkWatcherIdle50Loops(b *testing.B) {
	for _, m := range benchModes {
		b.Run(m.String(), func(b *testing.B) { benchmarkWatcherIdle50Loops(b, m) })
	}
}

func benchmarkWatcherIdle50Loops(b *testing.B, mode WatchMode) {
	root, _ := benchFleet(b, 50)
	w := startWatcher(b, []string{root}, Options{Depth: 4, Mode: mode})
	_ = w
	time.Sleep(200 * time.Millisecond)
	before := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(b.Elapsed())*100, "cpu-%")
}

// BenchmarkScan50Loops: one walk of the 50-loop tree (54 directories read,
// 50 .claude directories looked into), what WatchClaude's rescan does
// every 10 s besides a stat of each directory it knows.
func BenchmarkScan50Loops(b *testing.B) {
	root, _ := benchFleet(b, 50)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Scan([]string{root}, Options{Depth: 4}); err != nil {
			b.Fatal(err)
		}
	}
}
