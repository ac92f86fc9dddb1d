package agent

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// generated says what genTranscripts wrote: the totals a reader must find.
type generated struct {
	total     Tokens
	responses int
	bytes     int64
	byAtom    map[string]Tokens
}

// genTranscripts writes about size bytes of transcripts of one session
// of a loop in p: a main file, a coordinator and workers in sub-agent
// files; tool results of 1 to 24 KiB (files read, test output), responses
// written on one or two lines (counted once), marks of atoms in and out
// of progress. Its totals are added up as it writes.
func genTranscripts(t testing.TB, p project, size int64, seed uint64) generated {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 24))
	g := generated{byAtom: map[string]Tokens{}}
	session := "bbbbbbbb-0000-4000-8000-" + strconv.FormatUint(seed, 16)
	// Tool results from a pool of contents, escaped once.
	var pool []string
	for i := range 16 {
		var b strings.Builder
		n := 1<<10 + r.IntN(24<<10)
		for b.Len() < n {
			b.WriteString("func f" + strconv.Itoa(i) + `() { return "quoted \\ path" }` + "\n\tline with tab\n")
		}
		q, _ := json.Marshal(b.String())
		pool = append(pool, string(q))
	}
	type out struct {
		f *os.File
		w *bufio.Writer
	}
	files := map[string]*out{}
	open := func(path string) *out {
		if o := files[path]; o != nil {
			return o
		}
		os.MkdirAll(filepath.Dir(path), 0o755)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		o := &out{f, bufio.NewWriterSize(f, 1<<20)}
		files[path] = o
		return o
	}
	write := func(path, s string) {
		open(path).w.WriteString(s)
		g.bytes += int64(len(s))
	}
	clock := t0
	tick := func() time.Time { clock = clock.Add(time.Duration(100+r.IntN(900)) * time.Millisecond); return clock }
	n := 0
	respond := func(path string, o lineOpts, atom string, blocks ...map[string]any) {
		n++
		u := Tokens{Input: int64(1 + r.IntN(50)), Output: int64(10 + r.IntN(900)), CacheCreation: int64(r.IntN(5000)), CacheRead: int64(r.IntN(90000))}
		id := "msg_" + strconv.Itoa(n)
		o.uuid, o.at = "u"+strconv.Itoa(n), tick()
		if len(blocks) > 1 {
			// one line per content block, as Claude Code writes them
			for _, b := range blocks {
				write(path, assistant(o, id, opus, u, b))
			}
		} else {
			write(path, assistant(o, id, opus, u, blocks...))
		}
		g.total = g.total.add(u)
		g.responses++
		g.byAtom[atom] = g.byAtom[atom].add(u)
	}
	result := func(path string, o lineOpts, id string) {
		m := base(o, "user")
		o.at = tick()
		m["timestamp"] = o.at.Format(time.RFC3339Nano)
		head, _ := json.Marshal(m)
		line := string(head[:len(head)-1]) + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":` + pool[r.IntN(len(pool))] + `}]}}` + "\n"
		write(path, line)
	}
	main := p.session(session)
	mo := p.opts(session)
	mo.uuid, mo.at = "start", tick()
	write(main, userText(mo, "/enter-recursion"))
	for iter := 1; g.bytes < size; iter++ {
		respond(main, mo, "", toolUse("task"+strconv.Itoa(iter), "Task", map[string]any{"description": "AoT Loop iteration " + strconv.Itoa(iter), "prompt": "AoT Loop iteration " + strconv.Itoa(iter) + " started.", "subagent_type": "ralph-wiggum-aot:aot-coordinator"}))
		coord := p.subagent(session, "c"+strconv.Itoa(iter))
		co := lineOpts{session: session, cwd: p.dir, sidechain: true, agentID: "c" + strconv.Itoa(iter)}
		co.uuid, co.at = "cu"+strconv.Itoa(iter), tick()
		write(coord, userText(co, "AoT Loop iteration "+strconv.Itoa(iter)+" started."))
		atom := "A" + strconv.Itoa(iter)
		respond(coord, co, "", toolUse("m"+atom, "Bash", map[string]any{"command": "python3 skills/state-contract/scripts/update_atom.py " + atom + " in_progress"}))
		result(coord, co, "m"+atom)
		respond(coord, co, atom, toolUse("w"+atom, "Task", map[string]any{"description": "Execute " + atom + " - work", "prompt": "Execute Atom: " + atom + " - work", "subagent_type": "ralph-wiggum-aot:aot-worker"}))
		worker := p.subagent(session, "w"+strconv.Itoa(iter))
		wo := lineOpts{session: session, cwd: p.dir, sidechain: true, agentID: "w" + strconv.Itoa(iter)}
		wo.uuid, wo.at = "wu"+strconv.Itoa(iter), tick()
		write(worker, userText(wo, "Execute Atom: "+atom+" - work"))
		for k := range 20 + r.IntN(40) {
			id := "t" + strconv.Itoa(n) + "-" + strconv.Itoa(k)
			if k%3 == 0 {
				respond(worker, wo, atom, textBlock("Reading the code."), toolUse(id, "Read", map[string]any{"file_path": p.dir + "/src/f.go"}))
			} else {
				respond(worker, wo, atom, toolUse(id, "Bash", map[string]any{"command": "go test ./..."}))
			}
			result(worker, wo, id)
		}
		respond(worker, wo, atom, textBlock("{success: true}"))
		result(coord, co, "w"+atom)
		respond(coord, co, atom, toolUse("r"+atom, "Bash", map[string]any{"command": "python3 skills/state-contract/scripts/update_atom.py " + atom + " resolved"}))
		result(coord, co, "r"+atom)
		respond(coord, co, "", textBlock("Iteration done."))
		result(main, mo, "task"+strconv.Itoa(iter))
	}
	for _, o := range files {
		if err := o.w.Flush(); err != nil {
			t.Fatal(err)
		}
		o.f.Close()
	}
	return g
}

// hugeSize is the size of the transcripts TestHugeTranscripts writes:
// 500 MB, 50 MB with -short, AOT_TUI_AGENT_HUGE_MB to choose.
func hugeSize() int64 {
	if s := os.Getenv("AOT_TUI_AGENT_HUGE_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return int64(n) << 20
		}
	}
	if testing.Short() {
		return 50 << 20
	}
	return 500 << 20
}

// 500 MB of transcripts, a torn last line and a line of garbage: read to
// the exact totals, by atom too, every line accounted for.
func TestHugeTranscripts(t *testing.T) {
	p := newProject(t)
	g := genTranscripts(t, p, hugeSize(), 7)
	main := p.session("bbbbbbbb-0000-4000-8000-7")
	appendFile(t, main, "\x00\x01 not a line of JSON\n")
	appendFile(t, main, `{"type":"assistant","message":{"id":"torn","usage":{"input_tokens":99999`)
	a := Open(Options{Project: p.dir, Root: p.root})
	checkUsage(t, "total", a.Total, g.responses, g.total)
	for atom, want := range g.byAtom {
		if got := a.ByAtom[atom].Tokens(); got != want {
			t.Errorf("atom %q: %+v, want %+v", atom, got, want)
		}
	}
	if a.Unrecognised != 1 {
		t.Errorf("%d lines not recognised, want the one of garbage: %q", a.Unrecognised, a.Notes)
	}
	t.Logf("%d MB, %d responses, %d lines, %d agents", g.bytes>>20, g.responses, a.Lines, len(a.Agents))
}

// peakHeap samples the live heap every millisecond while fn runs and
// returns its largest value.
func peakHeap(fn func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// BenchmarkOpen200MB opens a loop whose transcripts total 200 MB (the
// issue's budget: totals within 2 s, at most 50 MB of memory for them):
// the time per Open, its throughput, and the largest live heap while it
// runs (peak-heap-MB; the heap before it is a few hundred kB).
func BenchmarkOpen200MB(b *testing.B) {
	p := newProject(b)
	g := genTranscripts(b, p, 200<<20, 11)
	runtime.GC()
	var a *Activity
	var peak uint64
	b.SetBytes(g.bytes)
	b.ResetTimer()
	for b.Loop() {
		peak = max(peak, peakHeap(func() { a = Open(Options{Project: p.dir, Root: p.root}) }))
	}
	b.StopTimer()
	if a.Total.Responses != g.responses || a.Total.Tokens() != g.total {
		b.Fatalf("totals %+v, want %+v", a.Total.Tokens(), g.total)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkFollowAppend appends one line (a response of about 1 KB, or a
// tool result of up to 24 KB) to a live transcript already 20 MB long and
// reads it as the follower does on a notification that names the file:
// stat it, read what was appended, parse, update, snapshot. reread-B/op counts the bytes read
// more than once (none: appended lines are read from where the last read
// ended).
func BenchmarkFollowAppend(b *testing.B) {
	p := newProject(b)
	genTranscripts(b, p, 20<<20, 13)
	session := "bbbbbbbb-0000-4000-8000-d"
	f := newFollower(b.Context(), Options{Project: p.dir, Root: p.root})
	f.scan(true)
	path := p.subagent(session, "w1")
	o := lineOpts{session: session, cwd: p.dir, sidechain: true, agentID: "w1"}
	var lines []string
	for i := range 64 {
		o.uuid, o.at = "x"+strconv.Itoa(i), at(1e6+float64(i))
		if i%2 == 0 {
			lines = append(lines, assistant(o, "bench"+strconv.Itoa(i), opus, tok(1, 2, 3, 4), toolUse("bt"+strconv.Itoa(i), "Bash", map[string]any{"command": "go test ./internal/auth/... -run TestLogin"})))
		} else {
			lines = append(lines, toolResult(o, "bt"+strconv.Itoa(i-1), strings.Repeat("ok  \tshop/internal/auth\t0.012s\n", 1+i*8), ""))
		}
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer file.Close()
	read0, reread0 := f.read, f.reread
	var appended int64
	named := map[string]bool{path: true} // what the notification names
	b.ResetTimer()
	i := 0
	for b.Loop() {
		line := lines[i%len(lines)]
		i++
		file.WriteString(line)
		appended += int64(len(line))
		f.scanFiles(false, named)
		f.snapshot()
	}
	b.StopTimer()
	b.ReportMetric(float64(f.read-read0-appended+f.reread-reread0)/float64(i), "reread-B/op")
}
