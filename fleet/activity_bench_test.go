package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
)

// transcriptBody is about size bytes of one Claude Code session's
// transcript lines, as the format of issue 24 has them (an assistant
// response with a tool call and its usage, then the tool's result of a
// few KiB), without the first line that names the project; responses is
// how many it has and tokens their total. The same body serves every
// loop of a benchmark: message ids need only be unique within a loop.
func transcriptBody(size int) (body []byte, responses int, tokens int64) {
	var b bytes.Buffer
	start := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	result := strings.Repeat("func f() { return \"quoted \\\\ path\" }\n\tline with tab\n", 80)
	enc := func(m map[string]any) {
		line, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for i := 0; b.Len() < size; i++ {
		at := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		id := fmt.Sprintf("toolu_%d", i)
		enc(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "timestamp": at, "requestId": fmt.Sprintf("req_%d", i),
			"message": map[string]any{"id": fmt.Sprintf("msg_%d", i), "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("internal/p%d.go", i%50)}}},
				"usage":   map[string]any{"input_tokens": 10, "output_tokens": 200, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 20000}}})
		enc(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", i), "timestamp": at,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}}})
		responses++
		tokens += 10 + 200 + 1000 + 20000
	}
	return b.Bytes(), responses, tokens
}

// writeTranscript writes project's session transcript under the Claude
// Code projects root: its first line names the project (cwd), body
// follows.
func writeTranscript(tb testing.TB, root, project, session string, body []byte) string {
	tb.Helper()
	name, _ := agent.DirName(project)
	path := filepath.Join(root, name, session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	head, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u0", "sessionId": session, "cwd": project,
		"timestamp": "2026-11-27T08:59:59Z", "message": map[string]any{"role": "user", "content": "run the loop"}})
	if err := os.WriteFile(path, append(append(head, '\n'), body...), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// activityFleet lays out 50 AoT loops (30 atoms, at three depths, as
// benchFleet) and, for each, a transcript of size bytes in a projects
// root; it returns the root of the loops, their state files, the options
// that read their sessions and what each transcript holds.
func activityFleet(b *testing.B, size int) (string, []string, ActivityFunc, int, int64) {
	b.Helper()
	dir := b.TempDir()
	claude := b.TempDir()
	body, responses, tokens := transcriptBody(size)
	var paths []string
	for i := 0; i < 50; i++ {
		project := filepath.Join(dir, []string{"", "team", "org/repo"}[i%3], fmt.Sprintf("p%02d", i))
		path, err := sim.Setup(project, 30, uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, path)
		writeTranscript(b, claude, project, "cccccccc-0000-4000-8000-000000000001", body)
	}
	hooks := b.TempDir()
	act := func(statePath string) (agent.Options, []string, bool) {
		project := statefile.ProjectDir(statePath)
		return agent.Options{Project: project, Root: claude, Quick: true, HookFile: agent.HookEventsFile(hooks, project)}, nil, true
	}
	return dir, paths, act, responses, tokens
}

// heapMB is the live heap after a collection, in MB.
func heapMB() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / 1e6
}

// BenchmarkActivity50Loops: the fleet's reading of its loops' sessions,
// fifty AoT loops, each with a 20 MB transcript (1 GB in all). One op
// starts the watcher and waits until every row has its activity with its
// transcript's whole totals: the first read, one loop after the other.
// heap-MB is the live heap with the watcher up and everything read (the
// 50 readers' models), over the heap before it started.
func BenchmarkActivity50Loops(b *testing.B) {
	const size = 20 << 20
	dir, paths, act, responses, tokens := activityFleet(b, size)
	aot := len(paths)
	var heap float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := heapMB()
		w := startWatcher(b, []string{dir}, Options{Depth: 4, Activity: act})
		waitRows(b, w, 5*time.Minute, "every loop's activity", func(rows []Row) bool {
			n := 0
			for _, r := range rows {
				if a := r.Activity; a != nil && a.Responses == responses && a.Tokens.Total == tokens {
					n++
				}
			}
			return n == aot
		})
		b.StopTimer()
		heap += heapMB() - before
		w.Stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/first-read")
	b.ReportMetric(float64(aot*(size>>20)), "MB-of-transcripts")
	b.ReportMetric(heap/float64(b.N), "heap-MB")
}

// BenchmarkActivityRefresh50Loops: one round of the slow clock over fifty
// readers of 20 MB transcripts that have read them all. "quiet": nothing
// was appended (a stat of each transcript and of each hook events file);
// "appended": a response (two lines, 4.5 KB) was appended to each —
// read-bytes/op says that only those bytes are read, not the files again.
func BenchmarkActivityRefresh50Loops(b *testing.B) {
	_, paths, act, _, _ := activityFleet(b, 20<<20)
	var readers []*agent.Reader
	var files []string
	for _, p := range paths {
		o, _, _ := act(p)
		r := agent.NewReader(context.Background(), o)
		r.Read(true)
		readers = append(readers, r)
		name, _ := agent.DirName(statefile.ProjectDir(p))
		files = append(files, filepath.Join(o.Root, name, "cccccccc-0000-4000-8000-000000000001.jsonl"))
	}
	more, _, _ := transcriptBody(1)
	for _, mode := range []string{"quiet", "appended"} {
		b.Run(mode, func(b *testing.B) {
			var read int64
			for i := 0; i < b.N; i++ {
				if mode == "appended" {
					b.StopTimer()
					line := bytes.ReplaceAll(more, []byte(`"msg_0"`), fmt.Appendf(nil, `"msg_more_%d"`, i))
					for _, f := range files {
						fh, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND, 0)
						if err != nil {
							b.Fatal(err)
						}
						fh.Write(line)
						fh.Close()
					}
					b.StartTimer()
				}
				for _, r := range readers {
					before := r.Bytes()
					r.Read(false)
					read += r.Bytes() - before
				}
			}
			b.ReportMetric(float64(read)/float64(b.N), "read-bytes/op")
		})
	}
}

// BenchmarkActivityIdle50Loops: the process's CPU while the fleet of
// BenchmarkActivity50Loops is quiet, at the default clocks (a stat of
// each hook events file every 2 s, of each transcript every 10 s, a look
// for new sessions every 60 s; the state files' 2 s stat polls too): one
// op is 100 ms of wall time; run -benchtime 600x (a minute) to see every
// clock. cpu-% is in percent of one core.
func BenchmarkActivityIdle50Loops(b *testing.B) {
	dir, _, act, responses, _ := activityFleet(b, 20<<20)
	w := startWatcher(b, []string{dir}, Options{Depth: 4, Activity: act, Watch: statefile.WatchOptions{Poll: 2 * time.Second}})
	waitRows(b, w, 5*time.Minute, "every loop's activity", func(rows []Row) bool {
		for _, r := range rows {
			if r.Activity == nil || r.Activity.Responses != responses {
				return false
			}
		}
		return true
	})
	time.Sleep(200 * time.Millisecond)
	heap := heapMB()
	before, reads := cpuTime(), w.Stats().ActivityReads
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(b.Elapsed())*100, "cpu-%")
	b.ReportMetric(float64(w.Stats().ActivityReads-reads)/b.Elapsed().Seconds(), "reads/s")
	b.ReportMetric(heap, "heap-MB")
}
