package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// The loop played for real, for the end-to-end tests that run it against
// corrections (TestStressLoopWriters, TestLoopRunsKeepTheirCorrections):
// its writers, one after another and never locking, as the plugin runs
// them, and the two ways corrections arrive meanwhile — the built aot-tui
// (redirect … --json) and the TUI's apply path (correction.Session, with
// the guard the TUI runs on every version of the file it sees). Each test
// keeps its own scenario: what the Python step writes, which corrections
// are made when, and what is counted.

// loopPython finds python3 for the loop's scripts (testenv.Need: skipped
// where it is missing, a failure under CI): the interpreter itself, not a
// version manager's shim script, which costs more than the script.
func loopPython(t *testing.T) string {
	t.Helper()
	python := testenv.Need(t, "python3")
	if out, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output(); err == nil {
		python = strings.TrimSpace(string(out))
	}
	return python
}

// loopBinary is the aot-tui the CLI side runs: the one built from this
// tree, or the one env+"_BIN" names (another build, say the last release,
// for a baseline); with env+"_REPORT" set the test reports its counts
// instead of failing (for the README's before figures).
func loopBinary(t *testing.T, env string) (bin string, report bool) {
	t.Helper()
	bin = os.Getenv(env + "_BIN")
	if bin == "" {
		bin = binary(t)
	}
	return bin, os.Getenv(env+"_REPORT") != ""
}

// The stop hook's ways of writing the file, sh scripts of $1 (the file)
// and $2 (the write's tag): sed into a temp file, then mv it over the
// file, appending the body line "hook <tag>". hookNextIteration also
// counts the iteration on, as the plugin's hook does.
const (
	hookAppend        = `sed -e "\$a hook $2" "$1" > "$1.hooktmp" && mv "$1.hooktmp" "$1"`
	hookNextIteration = `it=$(awk '/^  iteration:/ {print $2; exit}' "$1")
sed -e "s/^  iteration: .*/  iteration: $((it + 1))/" -e "\$a hook $2" "$1" > "$1.tmp.$$" && mv "$1.tmp.$$" "$1"`
)

// loopWriters plays the loop's writes one after another, as the loop runs
// them, until its context ends. Write seq (1, 2, …) is, by seq mod 3:
//
//   - 0: the Python step (python script path tag delay, then pyArgs' own):
//     it reads the whole file, takes a moment (delay, up to 20 ms) and
//     writes it back with Path.write_text (truncate, then write), as the
//     plugin's scripts do;
//   - 1: sed -i appending the body line "sed <tag>" (a new file renamed
//     over it);
//   - 2: the stop hook (hook), appending "hook <tag>" through a temp file
//     and mv;
//
// each followed by a pause of up to 5 ms.
type loopWriters struct {
	path, python, script string
	hook                 string
	r                    *rand.Rand
	// tag names write seq.
	tag func(seq int) string
	// pyArgs, when set, are more arguments of the Python step; pyDone,
	// when set, records one that was written.
	pyArgs func() []string
	pyDone func(seq int, tag string)

	n     [3]int   // the writes made, by kind
	lines []string // the body lines sed -i and the hook appended
	// spans are when each write's process ran: it read the file after
	// start and wrote it before end.
	spans []writeSpan
}

// writeSpan is when one loop write's process ran.
type writeSpan struct {
	what       string
	start, end time.Time
}

// straddling returns the writes that started before at and ended after
// at - margin (each "what from … to …", relative to at): with a margin,
// also those that ended just before at — a CLI's guard takes its last look
// a moment before the process is seen to exit.
func (w *loopWriters) straddling(at time.Time, margin time.Duration) []string {
	var out []string
	for _, s := range w.spans {
		if s.start.Before(at) && s.end.After(at.Add(-margin)) {
			out = append(out, fmt.Sprintf("%s (from %v before to %v after)", s.what, at.Sub(s.start).Round(time.Millisecond), s.end.Sub(at).Round(time.Millisecond)))
		}
	}
	return out
}

func (w *loopWriters) total() int { return w.n[0] + w.n[1] + w.n[2] }

func (w *loopWriters) play(ctx context.Context, t *testing.T) {
	for seq := 1; ctx.Err() == nil; seq++ {
		tag := w.tag(seq)
		kind := seq % 3
		var cmd *exec.Cmd
		switch kind {
		case 0:
			args := []string{w.script, w.path, tag, fmt.Sprintf("%.4f", w.r.Float64()*0.02)}
			if w.pyArgs != nil {
				args = append(args, w.pyArgs()...)
			}
			cmd = exec.Command(w.python, args...)
		case 1:
			cmd = exec.Command("sed", "-i", "-e", "$a sed "+tag, w.path)
		case 2:
			cmd = exec.Command("sh", "-c", w.hook, "sh", w.path, tag)
		}
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("loop writer %v: %v\n%s", cmd.Args, err, out)
			return
		}
		w.spans = append(w.spans, writeSpan{what: [3]string{"python", "sed -i", "hook"}[kind] + " " + tag, start: start, end: time.Now()})
		w.n[kind]++
		switch kind {
		case 0:
			if w.pyDone != nil {
				w.pyDone(seq, tag)
			}
		case 1:
			w.lines = append(w.lines, "sed "+tag)
		case 2:
			w.lines = append(w.lines, "hook "+tag)
		}
		time.Sleep(time.Duration(w.r.IntN(6)) * time.Millisecond)
	}
}

// lostLines counts the appended body lines final lacks, logging each
// (after who, which names the run).
func (w *loopWriters) lostLines(t *testing.T, final []byte, who string) (lost int) {
	text := "\n" + string(final) + "\n"
	for _, l := range w.lines {
		if !strings.Contains(text, "\n"+l+"\n") {
			lost++
			t.Logf("%sthe write that appended %q is lost", who, l)
		}
	}
	return lost
}

// redirectJSON is what the loop tests read of redirect --json.
type redirectJSON struct {
	Reapplied      int `json:"reapplied"`
	Merged         int `json:"merged"`
	NotCarriedOver *struct {
		Kind string `json:"kind"`
	} `json:"not_carried_over"`
}

// runRedirect runs the aot-tui at bin with args (a redirect … --json) and
// returns its exit code, what it said on stdout and its stderr.
func runRedirect(t *testing.T, bin string, args []string) (code int, res redirectJSON, stderr string) {
	t.Helper()
	code, out, stderr := runBin(t, bin, args...)
	_ = json.Unmarshal([]byte(out), &res)
	return code, res, stderr
}

// tuiDriver makes corrections the way the TUI does and runs the session's
// guard on every version of the file a watcher sees, for as long as it
// runs. Every guard result — of a version seen, of an applied correction's
// follow-up — goes to record, from a goroutine of its own.
type tuiDriver struct {
	path    string
	s       *correction.Session
	w       *statefile.Watcher
	record  func(correction.Result)
	running sync.WaitGroup

	mu sync.Mutex
	// seen is the last version the guard has looked at (Check run and its
	// jobs started); jobs counts the jobs started and not finished.
	seen []byte
	jobs int
}

// startTUI starts a session on path with opts (and grace as its Grace,
// unless 0) and the watcher, which shows seen (when set) every version
// that parses before the guard looks at it.
func startTUI(path string, opts correction.Options, grace time.Duration, seen func(statefile.Event), record func(correction.Result)) *tuiDriver {
	d := &tuiDriver{path: path, record: record}
	d.s = correction.NewSession(path, opts)
	if grace > 0 {
		d.s.Grace = grace
	}
	d.w = statefile.StartWatch(statefile.Target{Path: path, Kind: statefile.KindAoT}, statefile.WatchOptions{}, func(ev statefile.Event) {
		if ev.Doc == nil {
			return
		}
		if seen != nil {
			seen(ev)
		}
		for _, job := range d.s.Check(ev.Doc) {
			d.spawn(job)
		}
		d.mu.Lock()
		d.seen = ev.Data
		d.mu.Unlock()
	})
	return d
}

func (d *tuiDriver) spawn(job correction.Job) {
	d.running.Add(1)
	d.mu.Lock()
	d.jobs++
	d.mu.Unlock()
	go func() {
		defer d.running.Done()
		d.record(job())
		// As the UI does when a job's result comes back: a look skipped
		// while it ran is owed now.
		for _, j := range d.s.Recheck() {
			d.spawn(j)
		}
		d.mu.Lock()
		d.jobs--
		d.mu.Unlock()
	}()
}

// settle waits, once nothing but the guard writes the file any more, until
// the guard has looked at the file's final bytes (the watcher saw them and
// Check ran on them) and none of its jobs is running. The wait is bounded
// by liveness: it fails when none of that changed for quiet.
func (d *tuiDriver) settle(t *testing.T, quiet time.Duration) {
	t.Helper()
	var last string
	moved := time.Now()
	for {
		data, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		d.mu.Lock()
		seen, jobs := d.seen, d.jobs
		d.mu.Unlock()
		pending := d.s.Pending()
		if string(seen) == string(data) && jobs == 0 && pending == 0 {
			return
		}
		now := fmt.Sprintf("%x %x %d %d", sha256.Sum256(data), sha256.Sum256(seen), jobs, pending)
		if now != last {
			last, moved = now, time.Now()
		}
		if time.Since(moved) > quiet {
			looked := "has not looked at the file's final bytes"
			if string(seen) == string(data) {
				looked = "has looked at the file's final bytes"
			}
			t.Fatalf("the TUI's guard did not settle: for %v nothing changed, and it %s, with %d guard jobs running and %d session jobs pending",
				quiet, looked, jobs, pending)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// owed returns the jobs the guard would start on the file as it is now:
// after settle, none, unless a look the guard owed was skipped.
func (d *tuiDriver) owed(t *testing.T) []correction.Job {
	t.Helper()
	doc, err := statefile.Load(d.path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d.s.Check(doc)
}

// apply makes the correction req, noted note, as the TUI's form does: a
// preview planned on the file, apply of exactly those bytes, and when the
// loop wrote meanwhile the new preview applied in turn (up to 20 times)
// while again (nil: always) says the person would still apply it — a zero
// result when it says no. A refused preview is the error.
func (d *tuiDriver) apply(req model.Request, note string, again func(*correction.Preview) bool) (correction.ApplyResult, error) {
	pr := d.s.Preview(req, note)().(correction.PreviewResult)
	if pr.Err != nil {
		return correction.ApplyResult{}, pr.Err
	}
	p := pr.Preview
	for try := 0; ; try++ {
		ar := d.s.Apply(p)().(correction.ApplyResult)
		if ar.Replanned == nil || try == 20 {
			return ar, nil
		}
		if again != nil && !again(ar.Replanned) {
			return correction.ApplyResult{}, nil
		}
		p = ar.Replanned
	}
}

// follow runs an applied correction's follow-up guard, if it has one: call
// it once the correction is recorded as written.
func (d *tuiDriver) follow(ar correction.ApplyResult) {
	if ar.Follow != nil {
		d.spawn(ar.Follow)
	}
}

// finish stops the watcher, waits for the guard's work and closes the
// session.
func (d *tuiDriver) finish() {
	d.w.Stop()
	d.running.Wait()
	d.s.Close()
}

// descriptions are the descriptions of doc's corrections[], one a line.
func descriptions(doc *statefile.Document) string {
	var b strings.Builder
	for _, c := range doc.State.Corrections {
		b.WriteString(c.Description + "\n")
	}
	return b.String()
}
