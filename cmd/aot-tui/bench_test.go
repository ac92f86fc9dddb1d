package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/aot-loop/aot-tui/sim/gen"
)

// BenchmarkStatusJSON is `aot-tui status --json -f FILE` end to end (read,
// parse, derive, validate, encode), in process.
func BenchmarkStatusJSON(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data, _ := gen.GenerateSpec(n, 1)
		path := filepath.Join(b.TempDir(), "aot-loop-state.md")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := run([]string{"status", "--json", "-f", path}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
