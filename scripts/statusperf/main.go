// Command statusperf measures `aot-tui status --json` as a person runs it,
// a process of its own on a generated loop, against the loop's own reader
// (the plugin's read_state.py, given with -py, run by -python): wall time,
// CPU time and peak memory of each, the two run in turn so that both see
// the same machine, with the load average before and after; the output
// goes to /dev/null, as with hyperfine. Issue 26 asks for
// status at 10,000 atoms in at most 0.1 of read_state.py's time, at
// 100,000 in 0.15 and below its peak memory, and 250,000 atoms in under
// 2 s. The loops are sim/gen's, as scripts/perf writes them.
//
//	go build -o /tmp/aot-tui ./cmd/aot-tui
//	git -C PLUGIN show HEAD:skills/state-contract/scripts/read_state.py > /tmp/read_state.py
//	go run ./scripts/statusperf -bin /tmp/aot-tui -py /tmp/read_state.py
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

func main() {
	bin := flag.String("bin", "", "the aot-tui binary to measure")
	base := flag.String("base", "", "another aot-tui binary (a build before a change), run in turn with the two")
	py := flag.String("py", "", "the loop's read_state.py (none: aot-tui alone)")
	atoms := flag.String("atoms", "10000,100000,250000", "loop sizes, in atoms")
	pyAtoms := flag.String("py-atoms", "10000,100000", "the sizes read_state.py is run on too")
	runs := flag.Int("runs", 10, "runs of each program at each size")
	python := flag.String("python", "python3", "the Python interpreter that runs -py")
	write := flag.String("write", "", "(internal) write the loop of -atoms atoms to this file and exit")
	flag.Parse()
	if *write != "" {
		writeLoop(*write, ints(*atoms)[0])
		return
	}
	if *bin == "" {
		fail("statusperf: -bin is required")
	}
	dir, err := os.MkdirTemp("", "aot-statusperf-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(dir)
	head := "| atoms | file | aot-tui status --json: median (min) | CPU | peak RSS | read_state.py: median (min) | CPU | peak RSS | ratio of medians |"
	if *base != "" {
		head += " -base: median (min) | CPU | peak RSS |"
	}
	fmt.Println(head + " load before → after |")
	fmt.Println(strings.Repeat("|---", strings.Count(head, "|")-1) + "|---|")
	for _, n := range ints(*atoms) {
		path := filepath.Join(dir, strconv.Itoa(n), ".claude", "aot-loop-state.md")
		// A process of its own writes the loop: a child's peak memory
		// (getrusage) counts the memory of the process it was started
		// from, which must stay small.
		self, err := os.Executable()
		if err != nil {
			fail(err.Error())
		}
		runOnce([]string{self, "-write", path, "-atoms", strconv.Itoa(n)})
		size := int64(0)
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		progs := [][]string{{*bin, "status", "--json", "-f", path}, nil, nil}
		if *py != "" && slices.Contains(ints(*pyAtoms), n) {
			progs[1] = []string{*python, *py, "--state-file", path}
		}
		if *base != "" {
			// An older build may have a smaller default size limit.
			progs[2] = []string{*base, "--max-size", "1073741824", "status", "--json", "-f", path}
		}
		before := load()
		res := make([][]sample, len(progs))
		for _, p := range progs {
			if p != nil {
				checkJSON(p) // and warm the page cache and the binary
				runOnce(p)
			}
		}
		for range *runs {
			for k, p := range progs {
				if p != nil {
					res[k] = append(res[k], runOnce(p))
				}
			}
		}
		after := load()
		row := []string{fmt.Sprintf("%d", n), fmt.Sprintf("%.1f MB", float64(size)/1e6)}
		meds := make([]time.Duration, len(progs))
		cells := make([][]string, len(progs))
		for k := range progs {
			if len(res[k]) == 0 {
				cells[k] = []string{"—", "—", "—"}
				continue
			}
			med, least, cpu, rss := summary(res[k])
			meds[k] = med
			cells[k] = []string{fmt.Sprintf("%s (%s)", ms(med), ms(least)), ms(cpu), fmt.Sprintf("%.0f MB", float64(rss)/1024)}
		}
		ratio := "—"
		if meds[1] > 0 {
			ratio = fmt.Sprintf("%.3f", float64(meds[0])/float64(meds[1]))
		}
		row = append(append(append(row, cells[0]...), cells[1]...), ratio)
		if *base != "" {
			row = append(row, cells[2]...)
		}
		row = append(row, before+" → "+after)
		fmt.Println("| " + strings.Join(row, " | ") + " |")
	}
}

// writeLoop writes the generated loop of n atoms to path.
func writeLoop(path string, n int) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fail(err.Error())
	}
	data := gen.Generate(gen.Options{Atoms: n, Seed: 11, Resolved: 0.3, ORGroups: n / 25, Decompositions: n / 40})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		fail(err.Error())
	}
}

// sample is one run: its wall time, its CPU time (user and system) and
// its peak resident memory in KB.
type sample struct {
	wall, cpu time.Duration
	rss       int64
}

// runOnce runs argv with its output to /dev/null, as hyperfine does
// (reading 2 MB of JSON through a pipe would time the reader too).
func runOnce(argv []string) sample {
	cmd := exec.Command(argv[0], argv[1:]...)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fail(err.Error())
	}
	defer null.Close()
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = null, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Sprintf("statusperf: %s: %v\n%s", strings.Join(argv, " "), err, errOut.String()))
	}
	wall := time.Since(t0)
	st := cmd.ProcessState
	return sample{wall: wall, cpu: st.UserTime() + st.SystemTime(), rss: maxRSS(st)}
}

// checkJSON runs argv once and checks that it prints a JSON object.
func checkJSON(argv []string) {
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil || !json.Valid(out) || !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		fail(fmt.Sprintf("statusperf: %s printed no JSON object (%v)", strings.Join(argv, " "), err))
	}
}

// summary is the median and least wall time of s, the median CPU time and
// the largest peak memory.
func summary(s []sample) (med, least, cpu time.Duration, rss int64) {
	walls, cpus := make([]time.Duration, len(s)), make([]time.Duration, len(s))
	for i, x := range s {
		walls[i], cpus[i] = x.wall, x.cpu
		rss = max(rss, x.rss)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return walls[len(walls)/2], walls[0], cpus[len(cpus)/2], rss
}

// load is the one-minute load average, from /proc/loadavg ("?" elsewhere).
func load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			fail("statusperf: not a number: " + f)
		}
		out = append(out, n)
	}
	return out
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}
