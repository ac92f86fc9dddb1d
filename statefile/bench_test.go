package statefile

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
)

var benchSizes = []int{1000, 10000}

// BenchmarkParse is Parse, which reads generated loops straight into the
// model; BenchmarkParseTree reads them through the node tree, as Parse did
// before (and as the text edits still do). B/file-B is what a parse
// allocates for each byte of the file (issue 26: at most 4).
func BenchmarkParse(b *testing.B) {
	for _, n := range append(benchSizes, 100000) {
		data, _ := gen.GenerateSpec(n, 1)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			benchRead(b, data, Parse)
		})
	}
}

// BenchmarkReparseFirst is the watcher's first read, Reparse(nil, data):
// Parse's, which also records the memo the next Reparse needs (issue 26:
// about Parse's allocation and time).
func BenchmarkReparseFirst(b *testing.B) {
	for _, n := range append(benchSizes, 100000) {
		data, _ := gen.GenerateSpec(n, 1)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			benchRead(b, data, func(data []byte) (*Document, error) { return Reparse(nil, data) })
		})
	}
}

func BenchmarkParseTree(b *testing.B) {
	for _, n := range append(benchSizes, 100000) {
		data, _ := gen.GenerateSpec(n, 1)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			benchRead(b, data, parseTree)
		})
	}
}

// benchRead runs read on data and reports, beside the allocations per
// read, the bytes allocated per byte of data and the fastest read (min-ms:
// on a machine shared with other work, steadier than the mean).
func benchRead(b *testing.B, data []byte, read func([]byte) (*Document, error)) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fastest := time.Duration(math.MaxInt64)
	for b.Loop() {
		t0 := time.Now()
		if _, err := read(data); err != nil {
			b.Fatal(err)
		}
		fastest = min(fastest, time.Since(t0))
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(data)), "B/file-B")
	b.ReportMetric(float64(fastest.Microseconds())/1000, "min-ms")
}

func benchState(b *testing.B, n int) *model.State {
	b.Helper()
	data, _ := gen.GenerateSpec(n, 1)
	doc, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	return doc.State
}

func BenchmarkDerive(b *testing.B) {
	for _, n := range benchSizes {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				model.Derive(s)
			}
		})
	}
}

// BenchmarkValidate includes the Derive it needs, as Validate does.
func BenchmarkValidate(b *testing.B) {
	for _, n := range benchSizes {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := model.Validate(s); !r.Valid {
					b.Fatal(r.Errors)
				}
			}
		})
	}
}

// BenchmarkValidateScale is validate from 10,000 to 100,000 atoms: the
// goal is linear, the 100,000-atom time at most 10x the 10,000-atom one
// (issue 26; it was x21 while each atom's OR group was scanned for).
func BenchmarkValidateScale(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			for b.Loop() {
				model.Validate(s)
			}
		})
	}
}

// BenchmarkValidateScaleCold is BenchmarkValidateScale with the caches
// emptied before each validation (64 MB read in between, not timed), as
// for a loop's first validation after it was read: the warm benchmark
// keeps the 10,000 atoms' state and Validate's scratch in the caches from
// one call to the next, where the 100,000 atoms' never are, so that its
// ratio measures the caches as much as the work.
func BenchmarkValidateScaleCold(b *testing.B) {
	evict := make([]byte, 64<<20)
	for _, n := range []int{10000, 100000} {
		s := benchState(b, n)
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			sum := 0
			for b.Loop() {
				b.StopTimer()
				for i := 0; i < len(evict); i += 64 {
					evict[i]++
					sum += int(evict[i])
				}
				b.StartTimer()
				model.Validate(s)
			}
			if sum == 0 {
				b.Log(sum)
			}
		})
	}
}

func BenchmarkParsePhaseLoop(b *testing.B) {
	data := []byte(`{"version": 2, "feature": "x", "phase": "work", "phase_iteration": 2, "global_iteration": 9,
"phases_completed": ["brainstorm", "plan"], "receipts": [{"phase": "plan", "artifact": "a", "git_sha": "b", "timestamp": "c"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParsePhaseLoop(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReparse is reading a changed file as the watcher does, on the
// Document of the version before: a status change (one atom), the control
// block, both, a binding added (the lists after it move down a line or three),
// and a line added above everything (every entry moves). The versions
// alternate, so each read has the other as its previous version.
func BenchmarkReparse(b *testing.B) {
	for _, n := range benchSizes {
		base := gen.Generate(gen.Options{Atoms: n, Seed: 11, Resolved: 0.3, ORGroups: n / 25, Decompositions: n / 40})
		changes := map[string][]byte{
			"status":     bytes.Replace(base, []byte("    status: pending\n"), []byte("    status: in_progress\n"), 1),
			"control":    bytes.Replace(base, []byte("\n  stall_count: 0\n"), []byte("\n  stall_count: 1\n"), 1),
			"binding":    bytes.Replace(base, []byte("\nbindings:\n"), []byte("\nbindings:\n  X1:\n    summary: \"new\"\n    artifacts: [\"x.go\"]\n"), 1),
			"line-above": bytes.Replace(base, []byte("---\n"), []byte("---\n# moved\n"), 1),
		}
		// A write of an iteration: the control block and an atom far below.
		changes["status+control"] = bytes.Replace(changes["status"], []byte("\n  stall_count: 0\n"), []byte("\n  stall_count: 1\n"), 1)
		for _, name := range []string{"status", "control", "status+control", "binding", "line-above"} {
			versions := [2][]byte{base, changes[name]}
			if bytes.Equal(versions[0], versions[1]) {
				b.Fatalf("%s: no change", name)
			}
			b.Run(fmt.Sprintf("%s/atoms=%d", name, n), func(b *testing.B) {
				doc, err := Reparse(nil, versions[0])
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					if doc, err = Reparse(doc, versions[i%2]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDeriveStatusChange is the watcher's Derive after a status
// change: the work graph keeps its shape, so a Deriver reuses its maps.
func BenchmarkDeriveStatusChange(b *testing.B) {
	for _, n := range benchSizes {
		data, _ := gen.GenerateSpec(n, 1)
		changed := bytes.Replace(data, []byte("    status: pending\n"), []byte("    status: in_progress\n"), 1)
		var states [2]*model.State
		for k, d := range [][]byte{data, changed} {
			doc, err := Parse(d)
			if err != nil {
				b.Fatal(err)
			}
			states[k] = doc.State
		}
		b.Run(fmt.Sprintf("atoms=%d", n), func(b *testing.B) {
			var d model.Deriver
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				d.Derive(states[i%2])
			}
		})
	}
}
