// Command perf measures aot-tui as a person runs it, in a real terminal
// (tmux): the latency from a write of the state file to the new content on
// screen, the TUI's CPU use while nothing changes, and its memory on a big
// loop. scripts/bench.sh runs it after the Go benchmarks and prints one
// table. It needs tmux and Linux /proc.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/scripts/internal/tmuxrun"
	"github.com/aot-loop/aot-tui/sim/gen"
)

func main() {
	bin := flag.String("bin", "", "the aot-tui binary to measure")
	atoms := flag.Int("atoms", 1000, "atoms in the loop for the latency and idle runs")
	updates := flag.Int("updates", 50, "file writes to time")
	idle := flag.Duration("idle", 10*time.Second, "how long to measure idle CPU")
	idleWait := flag.Duration("idle-wait", 5*time.Second, "how long after the last write idle CPU is measured from (past 60s the header's \"changed\" moves on once a minute, not every second)")
	big := flag.Int("rss-atoms", 10000, "atoms in the loop for the memory run (and its latency)")
	bigWrites := flag.Int("rss-writes", 100, "file writes in the memory run, each timed as a write-to-screen latency")
	poll := flag.Bool("poll", false, "look at the pane again and again while waiting for a write's text (as before 2026-11-28) instead of once per output of the TUI")
	latOut := flag.String("latencies", "", "write each latency, in ms and in the order of the writes, to this file: one line a run (small, then big)")
	flag.Parse()
	if *bin == "" {
		fail("perf: -bin is required")
	}
	dir, err := os.MkdirTemp("", "aot-tui-perf-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(dir)

	path := filepath.Join(dir, "small", "aot-loop-state.md")
	writeLoop(path, *atoms)
	s := start(*bin, path)
	s.waitFor("iteration ")
	c := s.control(!*poll)
	if size := strings.TrimSpace(c.run("display-message -p -t p '#{pane_width}x#{pane_height}'")); size != "160x50" {
		fail("perf: the control client resized the pane to " + size)
	}
	watchCost := newCost(s)
	lat := latency(c, path, *updates)
	watchCPU := watchCost.perWrite(len(lat))
	c.close()
	cpu := idleCPU(s, *idleWait, *idle)
	s.Stop()

	// The big loop: memory after start, then after rss-writes writes, each
	// timed like the small loop's.
	bigPath := filepath.Join(dir, "big", "aot-loop-state.md")
	writeLoop(bigPath, *big)
	b := start(*bin, bigPath)
	b.waitFor("iteration ")
	time.Sleep(500 * time.Millisecond)
	rss := rssKB(b.PID())
	bc := b.control(!*poll)
	bigLat := latency(bc, bigPath, *bigWrites)
	bc.close()
	time.Sleep(500 * time.Millisecond)
	rssAfter := rssKB(b.PID())
	b.Stop()
	if *latOut != "" {
		writeLatencies(*latOut, lat, bigLat)
	}

	fmt.Printf("| CPU of the measuring (this process and the tmux server) while waiting for a write, %d atoms | %.2f ms a write | -poll=%v |\n", *atoms, watchCPU, *poll)
	med, p95 := stats(lat)
	bmed, bp95 := stats(bigLat)
	fmt.Printf("| write-to-screen latency, %d atoms (median of %d) | %.1f ms | goal ≤ 50 ms |\n", *atoms, len(lat), ms(med))
	fmt.Printf("| write-to-screen latency, %d atoms (p95 of %d) | %.1f ms | goal ≤ 25 ms |\n", *atoms, len(lat), ms(p95))
	if len(bigLat) > 0 {
		fmt.Printf("| write-to-screen latency, %d atoms (median of %d) | %.1f ms | goal ≤ 30 ms |\n", *big, len(bigLat), ms(bmed))
		fmt.Printf("| write-to-screen latency, %d atoms (p95 of %d) | %.1f ms | goal ≤ 60 ms |\n", *big, len(bigLat), ms(bp95))
	}
	fmt.Printf("| idle CPU of the TUI over %s, from %s after the last write, %d atoms | %.2f %% | goal: the floor (fleetperf -floor: a bare Bubble Tea program; aot-tui draws frames only when the screen changes) |\n", *idle, *idleWait, *atoms, cpu)
	fmt.Printf("| RSS of the TUI, %d atoms, after start | %.1f MB | goal ≤ 100 MB |\n", *big, float64(rss)/1024)
	fmt.Printf("| RSS of the TUI, %d atoms, after %d writes | %.1f MB | goal ≤ 80 MB |\n", *big, len(bigLat), float64(rssAfter)/1024)
}

// writeLatencies writes each run's latencies, in ms, one line a run.
func writeLatencies(path string, runs ...[]time.Duration) {
	var sb strings.Builder
	for _, run := range runs {
		for i, l := range run {
			if i > 0 {
				sb.WriteByte(' ')
			}
			fmt.Fprintf(&sb, "%.1f", ms(l))
		}
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		fail(err.Error())
	}
}

// stats returns the median and the 95th percentile of lat (zero when
// there are none: -rss-writes 0 measures memory after start alone).
func stats(lat []time.Duration) (med, p95 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	lat = slices.Clone(lat)
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*95/100)]
}

// iterationRE finds control.iteration in a version gen.LoopWrites wrote.
var iterationRE = regexp.MustCompile(`(?m)^  iteration: (\d+)$`)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fail(msg string) { tmuxrun.Fail(msg) }

func writeLoop(path string, atoms int) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fail(err.Error())
	}
	data := gen.Generate(gen.Options{Atoms: atoms, Seed: 11, Resolved: 0.3, ORGroups: atoms / 25, Decompositions: atoms / 40})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fail(err.Error())
	}
}

// start runs bin on the loop at path, its journal on as a user's is but
// kept in the run's own directory (XDG_STATE_HOME: binaries from before
// --journal-dir take it too), which is removed with the run.
func start(bin, path string) *session {
	state := filepath.Join(filepath.Dir(filepath.Dir(path)), "state")
	return &session{tmuxrun.Start("perf", 160, 50, "NO_COLOR=1 XDG_STATE_HOME="+state+" exec "+bin+" --quiet -f "+path)}
}

// session is the tmux server aot-tui runs in (see control for a faster
// way to look at its pane).
type session struct{ *tmuxrun.Session }

func (s *session) waitFor(text string) {
	if !s.WaitFor(text, 30*time.Second, 20*time.Millisecond) {
		fail("perf: the screen never showed " + strconv.Quote(text))
	}
}

// latency rewrites the file the way the loop's writes change it — one
// atom's status and control.iteration — by the hook's way (temp file +
// rename), and times until the new iteration is on screen.
func latency(c *control, path string, n int) []time.Duration {
	var out []time.Duration
	data, err := os.ReadFile(path)
	if err != nil {
		fail(err.Error())
	}
	// A different atom each time, back and forth between pending and
	// in_progress: the graph's structure stays as it is. Each version's
	// iteration is one the screen has not shown yet (gen.LoopWrites).
	next := gen.LoopWrites(data)
	for i := 0; i < n; i++ {
		version := next()
		m := iterationRE.FindSubmatch(version)
		if m == nil {
			fail("perf: a version without control.iteration")
		}
		want := "iteration " + string(m[1]) + "/"
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, version, 0o644); err != nil {
			fail(err.Error())
		}
		c.forgetOutput()
		t0 := time.Now()
		if err := os.Rename(tmp, path); err != nil {
			fail(err.Error())
		}
		for !strings.Contains(c.capture(), want) {
			if time.Since(t0) > 10*time.Second {
				fail("perf: the screen never showed " + want)
			}
			c.waitOutput(100 * time.Millisecond)
		}
		out = append(out, time.Since(t0))
		time.Sleep(150 * time.Millisecond)
	}
	return out
}

// idleCPU is the TUI's CPU use (percent of one core) while the file is
// quiet, over d from wait after the last write.
func idleCPU(s *session, wait, d time.Duration) float64 {
	pid := s.PID()
	// Let the last write's work (or the start-up's: parsing, laying the
	// graph out) finish first.
	time.Sleep(wait)
	a := tmuxrun.CPUTicks(pid)
	time.Sleep(d)
	b := tmuxrun.CPUTicks(pid)
	return float64(b-a) / tmuxrun.UserHZ / d.Seconds() * 100
}

// cost is the CPU time of the measuring itself from a moment on: this
// process's and the tmux server's.
type cost struct {
	server      int
	self, ticks int64 // CPU ticks of this process and of the server
}

func newCost(s *session) cost {
	server, err := strconv.Atoi(strings.TrimSpace(s.Tmux("display-message", "-p", "#{pid}")))
	if err != nil {
		fail("perf: the tmux server's pid: " + err.Error())
	}
	return cost{server: server, self: tmuxrun.CPUTicks(os.Getpid()), ticks: tmuxrun.CPUTicks(server)}
}

// perWrite is the CPU time since newCost, in ms, divided by n.
func (c cost) perWrite(n int) float64 {
	ticks := tmuxrun.CPUTicks(os.Getpid()) - c.self + tmuxrun.CPUTicks(c.server) - c.ticks
	return ms(time.Duration(ticks)*time.Second/tmuxrun.UserHZ) / float64(max(n, 1))
}

func rssKB(pid int) int64 {
	rss, _, _ := tmuxrun.Status(pid)
	return rss
}
