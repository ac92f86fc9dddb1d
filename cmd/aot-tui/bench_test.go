package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// BenchmarkStatusJSON is `aot-tui status --json -f FILE` end to end (read,
// parse, derive, validate, encode), in process, up to 250,000 atoms (a 33
// MB file, generated here: issue 26 wants it done in under 2 s). B/file-B
// is what a run allocates for each byte of the file.
func BenchmarkStatusJSON(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000, 250000} {
		data, _ := gen.GenerateSpec(n, 1)
		path := filepath.Join(b.TempDir(), "aot-loop-state.md")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if code := run([]string{"status", "--json", "-f", path}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(data)), "B/file-B")
		})
	}
}
