//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestLoopRunsKeepTheirCorrections plays several runs of the loop in one
// directory, as a person does over a day: between runs a new loop's state
// replaces the file (cp of a fresh state, as /align-goal writes one), and
// during each run the loop's writers run one after another — a Python
// read-modify-write (update_atom.py's status step plus add_binding.py), sed
// -i, and the stop hook's way (sed … > tmp; mv, iteration + 1) — while
// corrections arrive from the CLI (the built binary, redirect … --guard
// long enough to span a replacement) and from the TUI's apply path
// (correction.Session, checked on every version a watcher sees).
//
// The claim checked: every correction shows up in one loop run only (the
// one whose file it was written into); every correction reported written
// is in the last version of its run (unless reported lost); every loop
// write is in the last version of its run; a guard stands down only when
// the file was replaced. It counts corrections tried, written, carried
// over wrongly, lost and stood down.
//
// AOT_TUI_E2E_RUNS sets the number of runs (default 3, about 1.2 s each);
// AOT_TUI_E2E_BIN runs the CLI side against another build, and
// AOT_TUI_E2E_REPORT=1 then reports the counts instead of failing (for the
// README's before figures).
func TestLoopRunsKeepTheirCorrections(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end loop runs")
	}
	python := loopPython(t)
	bin, report := loopBinary(t, "AOT_TUI_E2E")
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("AOT_TUI_E2E_RUNS")); err == nil && n > 0 {
		runs = n
	}
	runFor := 1200 * time.Millisecond

	path := writeFile(t, t.TempDir(), ".claude/aot-loop-state.md", string(loopRunState(1)))
	script := writeFile(t, t.TempDir(), "loop_step.py", loopStepPy)

	ob := newRunObserver()
	ob.setRun(1)
	tui := startLoopRunTUI(path, ob)
	cli := &loopRunCLI{bin: bin, path: path, ob: ob}
	r := rand.New(rand.NewPCG(21, 22))
	finals := map[int][]byte{}
	var writes []*runWriters
	for run := 1; run <= runs; run++ {
		w := newRunWriters(run, path, python, script)
		writes = append(writes, w)
		ctx, stop := context.WithCancel(context.Background())
		writersDone := make(chan struct{})
		go func() { defer close(writersDone); w.play(ctx, t) }()
		// The CLI corrects on its own schedule; the TUI in between.
		cliCtx, cliStop := context.WithCancel(context.Background())
		cliDone := make(chan struct{})
		seed := r.Uint64()
		go func() { defer close(cliDone); cli.launch(cliCtx, t, seed) }()
		for end := time.Now().Add(runFor); time.Now().Before(end); {
			time.Sleep(time.Duration(40+r.IntN(120)) * time.Millisecond)
			tui.correct(t, run, r)
		}
		cliStop()
		<-cliDone
		stop()
		<-writersDone
		// The run ends: its last version (once the guards have looked at
		// the last loop writes), then a new loop replaces it.
		time.Sleep(100 * time.Millisecond)
		settleStart := time.Now()
		tui.settle()
		t.Logf("run %d: %d loop writes; the TUI's guard settled in %v", run, w.total(), time.Since(settleStart).Round(time.Millisecond))
		final, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ob.see(final)
		finals[run] = final
		if run < runs {
			ob.setRun(run + 1)
			if err := os.WriteFile(path, loopRunState(run+1), 0o644); err != nil { // cp: in place
				t.Fatal(err)
			}
		}
	}
	cli.wait()
	// The TUI guards for as long as it runs: its last looks (at the final
	// bytes, with none of its jobs running), then stop.
	tui.d.settle(t, 5*time.Second)
	tui.d.finish()
	last, _ := os.ReadFile(path)
	ob.see(last)
	finals[runs] = last

	// Each correction shows up in one run only.
	ob.mu.Lock()
	wrongly := map[string][]int{}
	runOf := map[string]int{}
	for note, rs := range ob.noteRuns {
		if len(rs) > 1 {
			for r := range rs {
				wrongly[note] = append(wrongly[note], r)
			}
		}
		for r := range rs {
			if runOf[note] == 0 || r < runOf[note] {
				runOf[note] = r
			}
		}
	}
	ob.mu.Unlock()
	for note, rs := range wrongly {
		t.Logf("%s was carried over to another run (runs %v)", note, rs)
	}
	// Each correction reported written is in the last version of its run.
	missing := 0
	notesOf := map[int]string{}
	for run, final := range finals {
		doc, err := statefile.Parse(final)
		if err != nil {
			t.Fatalf("run %d ends with a file that does not parse: %v", run, err)
		}
		notesOf[run] = descriptions(doc)
	}
	written := append(cli.written(), tui.written()...)
	for _, note := range written {
		run := runOf[note]
		if run == 0 || !strings.Contains(notesOf[run], "note: "+note+"\n") {
			missing++
			t.Logf("%s was reported written and is not in the last version of its run (run %d)", note, run)
		}
	}
	// Each loop write is in the last version of its run.
	lostWrites, loopWrites := 0, 0
	for _, w := range writes {
		loopWrites += w.total()
		lostWrites += w.check(t, finals[w.run])
	}
	c := cli.tally()
	u := tui.tally()
	t.Logf("%d runs; corrections: %d tried (%d CLI, %d TUI), %d written, %d carried over wrongly, %d lost (exit 3 / lost, %d of them an undone intent), %d stood down (%d at a replacement), %d refused, %d reported written and missing from their run",
		runs, c.tried+u.tried, c.tried, u.tried, c.written+u.written, len(wrongly), c.lost+u.lost, c.defeated+u.defeated,
		c.stoodDown+u.stoodDown, c.stoodDownReplaced+u.stoodDownReplaced, c.refused+u.refused, missing)
	t.Logf("loop writes: %d, %d lost", loopWrites, lostWrites)
	if report {
		return
	}
	if len(wrongly) > 0 || missing > 0 || lostWrites > 0 {
		t.Errorf("%d corrections carried over to another run, %d missing from their run, %d loop writes lost", len(wrongly), missing, lostWrites)
	}
	if sd := c.stoodDown + u.stoodDown; sd != c.stoodDownReplaced+u.stoodDownReplaced {
		t.Errorf("%d guards stood down while their run lasted: the loop's own writes were taken for something else", sd-c.stoodDownReplaced-u.stoodDownReplaced)
	}
	if c.written+u.written < runs*3 || loopWrites < runs*10 {
		t.Errorf("the run did not exercise much: %d corrections written, %d loop writes", c.written+u.written, loopWrites)
	}
	if runs > 1 && c.stoodDownReplaced+u.stoodDownReplaced == 0 {
		t.Error("no guard met a replacement: the test does not test what it is for")
	}
}

// loopRunState is the state a new loop starts run n with: a generated
// graph (the same goal every time: the hardest case for telling runs
// apart), its body naming the run.
func loopRunState(n int) []byte {
	data := gen.Generate(gen.Options{Atoms: 30, Seed: 1000 + uint64(n), Resolved: 0.3, ORGroups: 2})
	return bytes.Replace(data, []byte("A generated loop for aot-tui tests."), []byte(fmt.Sprintf("Loop run %d.", n)), 1)
}

var (
	runTagRE = regexp.MustCompile(`\nLoop run (\d+)\.\n`)
	noteRE   = regexp.MustCompile(`note: ((?:cli|tui)-\d+)$`)
)

// runObserver records, for every version of the file seen, which run it
// belongs to and which corrections it carries.
type runObserver struct {
	mu       sync.Mutex
	run      int
	noteRuns map[string]map[int]bool
}

func newRunObserver() *runObserver { return &runObserver{noteRuns: map[string]map[int]bool{}} }

func (o *runObserver) setRun(n int) {
	o.mu.Lock()
	o.run = n
	o.mu.Unlock()
}

func (o *runObserver) current() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.run
}

func (o *runObserver) see(data []byte) {
	doc, err := statefile.Parse(data)
	if err != nil {
		return
	}
	o.seeDoc(data, doc)
}

func (o *runObserver) seeDoc(data []byte, doc *statefile.Document) {
	m := runTagRE.FindSubmatch(data)
	if m == nil {
		return
	}
	run, _ := strconv.Atoi(string(m[1]))
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range doc.State.Corrections {
		if n := noteRE.FindStringSubmatch(c.Description); n != nil {
			if o.noteRuns[n[1]] == nil {
				o.noteRuns[n[1]] = map[int]bool{}
			}
			o.noteRuns[n[1]][run] = true
		}
	}
}

// loopStepPy is one step of the loop's coordinator, in the plugin's
// manner (read the whole file, work on its lines, write it back with
// write_text): the first in-progress atom becomes resolved, or else the
// first pending atom whose dependencies are resolved becomes in progress
// (update_atom.py), and a binding records the step (add_binding.py).
const loopStepPy = `import pathlib, re, sys, time
p = pathlib.Path(sys.argv[1])
tag, delay = sys.argv[2], float(sys.argv[3])
text = p.read_text()
time.sleep(delay)
atoms = re.findall(r'(?m)^  - id: (\S+)\n    description: .*\n    status: (\w+)\n    depends_on: \[(.*)\]', text)
status = {a: s for a, s, _ in atoms}
target, new = None, None
for a, s, _ in atoms:
    if s == 'in_progress':
        target, new = a, 'resolved'
        break
if target is None:
    for a, s, deps in atoms:
        ds = [d.strip() for d in deps.split(',') if d.strip()]
        if s == 'pending' and all(status.get(d) == 'resolved' for d in ds):
            target, new = a, 'in_progress'
            break
lines = text.split('\n')
inside = False
for i, line in enumerate(lines):
    s = line.strip()
    if s.startswith('- id:'):
        inside = s.split(':', 1)[1].strip() == target
    if inside and s.startswith('status:'):
        lines[i] = '    status: ' + new
        inside = False
for i, line in enumerate(lines):
    if line.startswith('bindings:'):
        lines[i] = 'bindings:'
        lines.insert(i + 1, '  T%s:\n    summary: "step %s"' % (tag, tag))
        break
p.write_text('\n'.join(lines))
`

// runWriters play one run's loop writes, with loopStepPy as the Python
// step and the stop hook counting the iterations.
type runWriters struct {
	loopWriters
	run    int
	traces []string // bindings T<tag>
}

func newRunWriters(run int, path, python, script string) *runWriters {
	w := &runWriters{run: run}
	w.loopWriters = loopWriters{path: path, python: python, script: script, hook: hookNextIteration,
		r:      rand.New(rand.NewPCG(uint64(run), 9)),
		tag:    func(seq int) string { return fmt.Sprintf("%d_%d", run, seq) },
		pyDone: func(_ int, tag string) { w.traces = append(w.traces, "T"+tag) },
	}
	return w
}

// check counts this run's writes its last version lacks.
func (w *runWriters) check(t *testing.T, final []byte) int {
	lost := 0
	text := "\n" + string(final) + "\n"
	for _, b := range w.traces {
		if !strings.Contains(text, "\n  "+b+":\n") {
			lost++
			t.Logf("run %d: the Python write that added %s is lost", w.run, b)
		}
	}
	return lost + w.lostLines(t, final, fmt.Sprintf("run %d: ", w.run))
}

// runTally counts one side's corrections.
type runTally struct {
	tried, written, lost, defeated, refused int
	stoodDown, stoodDownReplaced            int
}

// loopRunCLI launches aot-tui redirect processes, each guarding for longer
// than the gap to the next replacement may be.
type loopRunCLI struct {
	bin, path string
	ob        *runObserver
	procs     sync.WaitGroup
	mu        sync.Mutex
	k         int
	t         runTally
	notes     []string
}

func (c *loopRunCLI) launch(ctx context.Context, t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for ctx.Err() == nil {
		c.mu.Lock()
		c.k++
		k := c.k
		c.t.tried++
		c.mu.Unlock()
		note := fmt.Sprintf("cli-%d", k)
		var args []string
		switch k % 4 {
		case 0:
			args = []string{"redirect", "add-atom", "e2e " + note, "--depends-on", "A1"}
		case 1:
			args = []string{"redirect", "constraints", "--max-iterations", strconv.Itoa(1000 + k)}
		case 2:
			args = []string{"redirect", "override-binding", "A1", "--summary", "amended by " + note}
		case 3:
			args = []string{"redirect", "constraints", "--max-stall-count", strconv.Itoa(10 + k)}
		}
		args = append(args, "--note", note, "--json", "--guard", "1500ms", "-f", c.path)
		c.procs.Add(1)
		go func() {
			defer c.procs.Done()
			c.one(t, note, args)
		}()
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(150+r.IntN(250)) * time.Millisecond):
		}
	}
}

func (c *loopRunCLI) one(t *testing.T, note string, args []string) {
	startRun := c.ob.current()
	code, res, errs := runRedirect(t, c.bin, args)
	endRun := c.ob.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case code == exitOK:
		c.t.written++
		c.notes = append(c.notes, note)
	case code == exitConflict && (res.NotCarriedOver != nil || strings.Contains(errs, "was not written")):
		if res.NotCarriedOver != nil { // written, then not carried over
			c.t.written++
			c.notes = append(c.notes, note)
		}
		c.t.stoodDown++
		if endRun != startRun {
			c.t.stoodDownReplaced++
		} else {
			t.Logf("%s stood down within its run: %s", note, strings.TrimSpace(errs))
		}
	case code == exitConflict:
		c.t.lost++
		if strings.Contains(errs, "the loop's next write undid it") {
			c.t.defeated++
		}
		t.Logf("%s: exit 3: %s", note, strings.TrimSpace(errs))
	case code == exitInvalid:
		c.t.refused++
	default:
		t.Errorf("%v: exit %d: %s", args, code, errs)
	}
}

func (c *loopRunCLI) wait() { c.procs.Wait() }

func (c *loopRunCLI) tally() runTally {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *loopRunCLI) written() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

// loopRunTUI makes corrections the way the TUI does (tuiDriver) — a new
// preview of another run is given up, as a person would — and counts them.
type loopRunTUI struct {
	d    *tuiDriver
	path string
	ob   *runObserver

	mu    sync.Mutex
	k     int
	t     runTally
	notes []string
	runOf map[string]int // note → run it was applied in
	lost  map[string]bool
}

func startLoopRunTUI(path string, ob *runObserver) *loopRunTUI {
	u := &loopRunTUI{path: path, ob: ob, runOf: map[string]int{}, lost: map[string]bool{}}
	// Files our writes replaced are watched for late in-place writes for
	// half a second (the TUI: two): the loop's Python writes here take
	// at most a few tens of milliseconds from open to close.
	u.d = startTUI(path, correction.Options{}, 500*time.Millisecond, func(ev statefile.Event) { ob.seeDoc(ev.Data, ev.Doc) }, u.record)
	return u
}

func (u *loopRunTUI) record(r correction.Result) {
	g, ok := r.(correction.GuardResult)
	if !ok || g.Err == nil {
		return
	}
	note := ""
	if g.Was != nil && g.Was.Correction != nil {
		if m := noteRE.FindStringSubmatch(g.Was.Correction.Description); m != nil {
			note = m[1]
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case isStandDown(g.Err):
		u.t.stoodDown++
		if run, ok := u.runOf[note]; !ok || run != u.ob.current() {
			u.t.stoodDownReplaced++
		}
	case errors.Is(g.Err, correction.ErrLost):
		u.t.lost++
		if isDefeated(g.Err) {
			u.t.defeated++
		}
		u.lost[note] = true
	}
}

// correct makes one correction in run.
func (u *loopRunTUI) correct(t *testing.T, run int, r *rand.Rand) {
	u.mu.Lock()
	u.k++
	k := u.k
	u.t.tried++
	u.mu.Unlock()
	note := fmt.Sprintf("tui-%d", k)
	var req model.Request
	switch k % 4 {
	case 0:
		req = model.AddAtom{Description: "e2e " + note, DependsOn: []string{"A1"}}
	case 1:
		v := 2000 + k
		req = model.ChangeConstraints{MaxIterations: &v}
	case 2:
		// A new atom that the last pending atom must wait for.
		cur, _ := os.ReadFile(u.path)
		ids := regexp.MustCompile(`(?m)^  - id: (\S+)\n    description: .*\n    status: pending`).FindAllSubmatch(cur, -1)
		if len(ids) == 0 {
			req = model.AddAtom{Description: "e2e " + note}
			break
		}
		req = model.AddAtom{Description: "e2e " + note, RequiredBy: []string{string(ids[len(ids)-1][1])}}
	case 3:
		s := "amended by " + note
		req = model.OverrideBinding{ID: "A1", Summary: &s}
	}
	ar, err := u.d.apply(req, note, func(p *correction.Preview) bool {
		// The person looks at the new preview: is it still this loop?
		m := runTagRE.FindSubmatch(p.Base)
		return m != nil && string(m[1]) == strconv.Itoa(run)
	})
	if err != nil {
		u.refusedOr(t, note, err)
		return
	}
	if ar.Plan == nil {
		if ar.Err != nil {
			u.refusedOr(t, note, ar.Err)
		}
		return
	}
	u.mu.Lock()
	u.t.written++
	u.notes = append(u.notes, note)
	u.runOf[note] = run
	u.mu.Unlock()
	u.d.follow(ar)
}

func (u *loopRunTUI) refusedOr(t *testing.T, note string, err error) {
	var ref *model.Refusal
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case errors.As(err, &ref):
		u.t.refused++
	case errors.Is(err, statefile.ErrConflict):
		u.t.lost++
		t.Logf("%s: not written: %v", note, err)
	default:
		t.Errorf("%s: %v", note, err)
	}
}

// settle waits until the session has no work queued or running.
func (u *loopRunTUI) settle() {
	u.d.running.Wait()
	for u.d.s.Pending() > 0 {
		time.Sleep(5 * time.Millisecond)
	}
}

func (u *loopRunTUI) tally() runTally {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.t
}

// written are the notes of corrections reported written and not lost.
func (u *loopRunTUI) written() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, n := range u.notes {
		if !u.lost[n] {
			out = append(out, n)
		}
	}
	return out
}

func isStandDown(err error) bool { return errors.Is(err, correction.ErrStoodDown) }

func isDefeated(err error) bool {
	var l *correction.LostError
	return errors.As(err, &l) && l.Defeated
}
