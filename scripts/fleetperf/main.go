// Command fleetperf measures `aot-tui --scan` on a fleet of simulated
// loops, in a real terminal (tmux): the TUI's CPU while every loop writes,
// its CPU once they are quiet — in the minute after the last write, when
// every row's "changed" column counts seconds, and (-later) after it — its
// memory, and what it asks of inotify. With -transcript-mb each AoT loop
// has a Claude Code session transcript of that size for the fleet to
// read (the TUI's CLAUDE_CONFIG_DIR is the run's own). For contrast it
// measures the same loops opened as PATHs (`aot-tui DIR/p00 DIR/p01 …`,
// one statefile watcher each), and with -floor the floor every TUI stands
// on: a bare Bubble Tea program (this command run with -bare) showing a
// fixed screen of the same size, measured the same way. It needs tmux and
// Linux /proc.
//
//	go build -o /tmp/aot-tui ./cmd/aot-tui
//	go run ./scripts/fleetperf -bin /tmp/aot-tui -loops 50 -later 20s -baseline=false
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/scripts/internal/tmuxrun"
	"github.com/aot-loop/aot-tui/sim"
)

func main() {
	bin := flag.String("bin", "", "the aot-tui binary to measure")
	n := flag.Int("loops", 50, "simulated loops (every fifth a phase loop)")
	atoms := flag.Int("atoms", 30, "atoms in each AoT loop")
	speed := flag.Float64("speed", 2, "simulator speed (1: the demo's pace)")
	busy := flag.Duration("busy", 10*time.Second, "how long to measure CPU while the loops write")
	idle := flag.Duration("idle", 10*time.Second, "how long to measure CPU while they are quiet, from 3s after the last write (within its minute)")
	later := flag.Duration("later", 0, "also measure CPU this long from 65s after the last write, once every \"changed\" column counts minutes (0: not)")
	env := flag.String("env", "", "more environment for the TUI (CLAUDE_CONFIG_DIR=…, for instance)")
	transcriptMB := flag.Int("transcript-mb", 0, "give each AoT loop a Claude Code session transcript of this many MB (in a CLAUDE_CONFIG_DIR of the run's own), for the fleet to read")
	baseline := flag.Bool("baseline", true, "also measure the loops opened as PATHs")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the --scan run to this file (AOT_TUI_CPUPROFILE)")
	floor := flag.Bool("floor", false, "first measure the floor: a bare Bubble Tea program with a fixed screen, idle as long as -idle")
	bare := flag.Bool("bare", false, "be that bare Bubble Tea program (what -floor runs)")
	flag.IntVar(&bareFPS, "fps", 0, "the bare program's frame rate (0: Bubble Tea's default, 60)")
	flag.Parse()
	if *bare {
		runBare()
		return
	}
	if *bin == "" {
		fail("fleetperf: -bin is required")
	}
	dir, err := os.MkdirTemp("", "aot-tui-fleetperf-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(dir)

	fmt.Printf("## aot-tui --scan, %d simulated loops (%d atoms each, simulator speed %g) — %s\n\n", *n, *atoms, *speed, time.Now().UTC().Format("2006-01-02"))
	fmt.Println("| mode | CPU while the loops write | writes/s | CPU idle, minute after a write | CPU idle, after it | RSS | inotify instances / watches | threads |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	if *floor {
		measureFloor(*idle)
	}
	projects := setup(dir, *n, *atoms)
	if *transcriptMB > 0 {
		// Beside the scanned tree, not in it (the fleet would watch it).
		claude, err := os.MkdirTemp("", "aot-tui-fleetperf-claude-")
		if err != nil {
			fail(err.Error())
		}
		defer os.RemoveAll(claude)
		writeTranscripts(filepath.Join(claude, "projects"), projects, *transcriptMB<<20)
		*env = strings.TrimSpace(*env + " CLAUDE_CONFIG_DIR=" + claude)
		fmt.Printf("Each AoT loop has a %d MB session transcript.\n\n", *transcriptMB)
	}
	scan := measure(*bin, "--scan "+dir, *env, cpuProfile, fmt.Sprintf("%d loops", *n), projects, *speed, *busy, *idle, *later)
	scan.print("`aot-tui --scan DIR`")
	if *baseline {
		projects = setup(filepath.Join(dir, "again"), *n, *atoms)
		var args []string
		for _, p := range projects {
			args = append(args, p.dir)
		}
		// --no-journal: the same work as --scan (read, parse, draw), without
		// the journal a loop's own view keeps of every version.
		paths := measure(*bin, "--no-journal "+strings.Join(args, " "), *env, "", "loops < >", projects, *speed, *busy, *idle, *later)
		paths.print(fmt.Sprintf("`aot-tui DIR/p00 … DIR/p%02d` (one watcher per loop)", *n-1))
	}
}

type project struct {
	dir, path string
	phase     bool
}

// setup lays out n projects under dir, at three depths.
func setup(dir string, n, atoms int) []project {
	var out []project
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("p%02d", i))
		switch i % 3 {
		case 1:
			p = filepath.Join(dir, "team", fmt.Sprintf("p%02d", i))
		case 2:
			p = filepath.Join(dir, "org", "repo", fmt.Sprintf("p%02d", i))
		}
		pr := project{dir: p, phase: i%5 == 4}
		var err error
		if pr.phase {
			pr.path, err = sim.SetupPhase(p, fmt.Sprintf("feature %d", i), uint64(i))
		} else {
			pr.path, err = sim.Setup(p, atoms, uint64(i))
		}
		if err != nil {
			fail(err.Error())
		}
		out = append(out, pr)
	}
	return out
}

type result struct {
	busyCPU, writesPerSec, idleCPU float64
	// laterCPU is the idle CPU from 65 s after the last write (-1: not
	// measured).
	laterCPU                    float64
	rssKB, hwmKB                int64
	instances, watches, threads int
}

func (r result) print(mode string) {
	later := "—"
	if r.laterCPU >= 0 {
		later = fmt.Sprintf("%.2f %%", r.laterCPU)
	}
	fmt.Printf("| %s | %.1f %% | %.0f | %.2f %% | %s | %.1f MB (peak %.1f MB) | %d / %d | %d |\n", mode, r.busyCPU, r.writesPerSec, r.idleCPU, later,
		float64(r.rssKB)/1024, float64(r.hwmKB)/1024, r.instances, r.watches, r.threads)
}

// measure runs aot-tui with args (and extra environment) in tmux, waits
// for ready on screen, plays the loops for busy, then measures quiet for
// idle from 3 s after the last write, and for later from 65 s after it.
func measure(bin, args, extra, profile, ready string, projects []project, speed float64, busy, idle, later time.Duration) result {
	env := "NO_COLOR=1"
	if extra != "" {
		env += " " + extra
	}
	if profile != "" {
		env += " AOT_TUI_CPUPROFILE=" + profile
	}
	s := tmuxrun.Start("fleetperf", 200, 70, env+" exec "+bin+" --quiet "+args)
	s.Tmux("set-option", "-t", "p", "remain-on-exit", "on")
	defer s.Stop()
	if !s.WaitFor(ready, 60*time.Second, 50*time.Millisecond) {
		fail("fleetperf: the screen never showed " + strconv.Quote(ready) + ":\n" + s.Capture())
	}
	pid := s.PID()
	time.Sleep(2 * time.Second) // the start-up reading and layout
	if strings.Contains(extra, "CLAUDE_CONFIG_DIR=") {
		time.Sleep(5 * time.Second) // the first read of the transcripts
	}

	ctx, cancel := context.WithCancel(context.Background())
	var writes atomic.Int64
	var wg sync.WaitGroup
	for i, p := range projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if p.phase {
				_, err = sim.RunPhase(ctx, sim.PhaseConfig{Path: p.path, Seed: uint64(i), Speed: speed, OnWrite: func([]byte) { writes.Add(1) }})
			} else {
				_, err = sim.Run(ctx, sim.Config{Path: p.path, Seed: uint64(i), Speed: speed, OnWrite: func(string, []byte) { writes.Add(1) }})
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(os.Stderr, "simulator:", err)
			}
		}()
	}
	time.Sleep(time.Second)
	a, w0, t0 := tmuxrun.CPUTicks(pid), writes.Load(), time.Now()
	time.Sleep(busy)
	b, w1, el := tmuxrun.CPUTicks(pid), writes.Load(), time.Since(t0)
	cancel()
	wg.Wait()
	lastWrite := time.Now()
	var r result
	r.busyCPU = float64(b-a) / tmuxrun.UserHZ / el.Seconds() * 100
	r.writesPerSec = float64(w1-w0) / el.Seconds()

	time.Sleep(3 * time.Second) // the last writes read and drawn
	a, t0 = tmuxrun.CPUTicks(pid), time.Now()
	time.Sleep(idle)
	b, el = tmuxrun.CPUTicks(pid), time.Since(t0)
	r.idleCPU = float64(b-a) / tmuxrun.UserHZ / el.Seconds() * 100
	r.laterCPU = -1
	if later > 0 {
		time.Sleep(time.Until(lastWrite.Add(65 * time.Second)))
		a, t0 = tmuxrun.CPUTicks(pid), time.Now()
		time.Sleep(later)
		b, el = tmuxrun.CPUTicks(pid), time.Since(t0)
		r.laterCPU = float64(b-a) / tmuxrun.UserHZ / el.Seconds() * 100
	}
	r.rssKB, r.hwmKB, r.threads = tmuxrun.Status(pid)
	r.instances, r.watches = inotify(pid)
	if profile != "" {
		s.Tmux("send-keys", "-t", "p", "q") // the profile is written on the way out
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if strings.TrimSpace(s.Tmux("display-message", "-p", "-t", "p", "#{pane_dead}")) == "1" {
				break
			}
		}
	}
	return r
}

// cpuProfile is -cpuprofile.
var cpuProfile string

// inotify counts the process's inotify instances and their watches.
func inotify(pid int) (instances, watches int) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		fail(err.Error())
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err != nil || target != "anon_inode:inotify" {
			continue
		}
		instances++
		info, _ := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		watches += strings.Count(string(info), "inotify wd:")
	}
	return instances, watches
}

func fail(msg string) { tmuxrun.Fail(msg) }

// writeTranscripts gives each AoT project a session transcript of about
// size bytes under root, in Claude Code's layout (one directory per
// project, named by agent.DirName): responses with a tool call and its
// usage, each followed by a tool result of a few KiB.
func writeTranscripts(root string, projects []project, size int) {
	var body bytes.Buffer
	result, _ := json.Marshal(strings.Repeat("func f() { return \"quoted \\\\ path\" }\n\tline with tab\n", 80))
	at := time.Now().Add(-time.Hour).UTC()
	for i := 0; body.Len() < size; i++ {
		ts := at.Add(time.Duration(i) * 100 * time.Millisecond).Format(time.RFC3339Nano)
		fmt.Fprintf(&body, `{"type":"assistant","uuid":"a%d","timestamp":%q,"requestId":"req_%d","message":{"id":"msg_%d","role":"assistant","model":"claude-sonnet-4-5",`+
			`"content":[{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"internal/p%d.go"}}],`+
			`"usage":{"input_tokens":10,"output_tokens":200,"cache_creation_input_tokens":1000,"cache_read_input_tokens":20000}}}`+"\n", i, ts, i, i, i, i%50)
		fmt.Fprintf(&body, `{"type":"user","uuid":"r%d","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%s}]}}`+"\n", i, ts, i, result)
	}
	for _, p := range projects {
		if p.phase {
			continue
		}
		abs, err := filepath.Abs(p.dir)
		if err != nil {
			fail(err.Error())
		}
		name, _ := agent.DirName(abs)
		path := filepath.Join(root, name, "ffffffff-0000-4000-8000-000000000001.jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fail(err.Error())
		}
		head, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u0", "cwd": abs, "timestamp": at.Add(-time.Second).Format(time.RFC3339Nano),
			"message": map[string]any{"role": "user", "content": "run the loop"}})
		if err := os.WriteFile(path, append(append(head, '\n'), body.Bytes()...), 0o644); err != nil {
			fail(err.Error())
		}
	}
}
