package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/testenv"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/sim/gen"
	"github.com/aot-loop/aot-tui/statefile"
)

// TestStressLoopWriters runs the loop's own writers for real while
// corrections are written — through the aot-tui binary (redirect …) and
// through the TUI's apply path (correction.Session, with the guard the TUI
// runs on every state it sees):
//
//   - a Python script that reads the file, takes a moment, and writes it
//     back with Path.write_text (truncate, then write: the loop's scripts),
//     adding a binding W<n> (and retiring an old one);
//   - sed -i appending a line to the body (a new file renamed over it);
//   - the stop hook's way: sed … > tmp; mv tmp file (likewise).
//
// They run one after another, as the loop runs them, never locking. The
// claim checked: every correction reported written is in the final file
// (or the correction reported exit 3 / lost), and every writer change is
// in the final file (a retired binding is gone) — with the exchange and
// with the rename fallback (bothWays). The fallback cannot see a write
// renamed over the file in the microseconds between its last look and its
// rename (statefile's TestLoopRenameJustBeforeOurRename): there, a lost
// sed -i or temp+mv write is counted and reported, not failed; a lost
// write_text never is.
//
// AOT_TUI_STRESS_BIN runs the CLI side against another build (say the
// previous release, for a baseline); AOT_TUI_STRESS_REPORT=1 then reports
// the counts instead of failing.
func TestStressLoopWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("stress test")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the loop's writers here are sh, sed -i and python3 as the plugin runs them on Unix (the Windows path is statefile's TestWindowsReplace*)")
	}
	testenv.Need(t, "GNU sed") // the loop's sed -i and $a (BSD sed reads -i's argument as a suffix)
	bothWays(t, testStressLoopWriters)
}

func testStressLoopWriters(t *testing.T) {
	python := loopPython(t)
	bin, report := loopBinary(t, "AOT_TUI_STRESS")
	path := writeFile(t, t.TempDir(), ".claude/aot-loop-state.md", string(gen.Generate(gen.Options{Atoms: 40, Seed: 7, Resolved: 0.3, ORGroups: 2})))
	dir := filepath.Dir(path)
	script := writeFile(t, t.TempDir(), "add_binding.py", pythonWriter)

	cliN, tuiN := 100, 100
	if raceEnabled {
		cliN, tuiN = 40, 40
	}
	// AOT_TUI_STRESS_CLI and AOT_TUI_STRESS_TUI set the counts (longer
	// runs for the README's figures, one side only for a baseline).
	if n, err := strconv.Atoi(os.Getenv("AOT_TUI_STRESS_CLI")); err == nil {
		cliN = n
	}
	if n, err := strconv.Atoi(os.Getenv("AOT_TUI_STRESS_TUI")); err == nil {
		tuiN = n
	}
	w := newStressWriters(path, python, script)
	ctx, stop := context.WithCancel(context.Background())
	writersDone := make(chan struct{})
	go func() { defer close(writersDone); w.play(ctx, t) }()

	guardFlag := []string{"--guard", "300ms"}
	if out, _ := exec.Command(bin, "redirect", "add-atom", "--help").CombinedOutput(); !bytes.Contains(out, []byte("--guard")) {
		guardFlag = nil // an older build
	}
	var tally stressTally
	tui := startTUISession(t, path)
	var wg sync.WaitGroup
	// The CLI and the TUI correct at the same time, as two people might.
	wg.Add(2)
	go func() {
		defer wg.Done()
		for k := range cliN {
			tally.add(cliCorrection(t, bin, path, k, guardFlag))
		}
	}()
	go func() {
		defer wg.Done()
		tui.correct(t, tuiN)
	}()
	wg.Wait()
	stop()
	<-writersDone
	// The TUI guards for as long as it runs: its last looks, then stop.
	tui.d.settle(t, 5*time.Second)
	if jobs := tui.d.owed(t); len(jobs) > 0 {
		t.Errorf("the TUI's guard had looked at the final file and was still owed a look at it (%d jobs: a correction missing or undone that it skipped)", len(jobs))
		for _, job := range jobs {
			tui.d.spawn(job)
		}
	}
	tui.finish(&tally)

	final, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := statefile.Parse(final)
	if err != nil {
		t.Fatalf("the final file does not parse: %v", err)
	}
	if v := model.Validate(doc.State); !v.Valid {
		t.Errorf("the final file is invalid: %v", v.Errors)
	}
	descs := descriptions(doc)
	missing := 0
	for _, tok := range tally.written {
		if !strings.Contains(descs, tok+"\n") {
			missing++
			t.Logf("correction %s was reported written and is not in the file", tok)
			if at, ok := tally.ended[tok]; ok {
				t.Logf("loop writes running in the last 100ms before it ended: %v", w.straddling(at, 100*time.Millisecond))
			}
		}
	}
	wLost, renamedLost := w.check(t, final)
	kept, _ := filepath.Glob(path + ".aot-tui-kept-*")
	entries, _ := os.ReadDir(dir)
	t.Logf("corrections: %d tried (%d CLI, %d TUI), %d written, %d re-applied after a loop write undid them, %d loop writes merged in, %d reported exit 3 / lost, %d not carried over (stood down), %d silently lost",
		tally.tried, cliN, tuiN, len(tally.written), tally.reapplied, tally.merged, tally.refused, tally.stoodDown, missing)
	way := "exchange"
	if exchangeOff() {
		way = "rename"
	}
	t.Logf("loop writes (%s): %d (%d Python write_text, %d sed -i, %d temp+mv), %d lost (%d of them renamed in); %d kept beside the file",
		way, w.total(), w.n[0], w.n[1], w.n[2], wLost, renamedLost, len(kept))
	if report {
		return
	}
	if exchangeOff() {
		wLost -= renamedLost // the fallback's known loss, reported above
	}
	if missing > 0 || wLost > 0 {
		t.Errorf("%d corrections and %d loop writes lost", missing, wLost)
	}
	if tally.stoodDown > 0 {
		// Nothing replaces the file here: every version is the loop's
		// work on ours, and a guard that stood down was wrong.
		t.Errorf("%d corrections not carried over to the loop's own writes (see the log)", tally.stoodDown)
	}
	if len(kept) > 0 && tally.refused == 0 {
		t.Errorf("loop writes kept beside the file (%v) but no correction said so", kept)
	}
	if len(entries) != 1+len(kept) {
		t.Errorf("files left in %s: %v", dir, entries)
	}
	if w.total() < 50 || len(tally.written) < (cliN+tuiN)/2 {
		t.Errorf("the run did not exercise much: %d loop writes, %d corrections written", w.total(), len(tally.written))
	}
}

// pythonWriter is the loop's add_binding.py in miniature: read the whole
// file, think, write it back with write_text.
const pythonWriter = `import pathlib, re, sys, time
p = pathlib.Path(sys.argv[1])
n, delay, retire = sys.argv[2], float(sys.argv[3]), sys.argv[4]
text = p.read_text()
time.sleep(delay)
entry = '  W%s:\n    summary: "writer change %s"\n    artifacts: []\n' % (n, n)
if "\nbindings: {}\n" in text:
    text = text.replace("\nbindings: {}\n", "\nbindings:\n" + entry, 1)
else:
    text = text.replace("\nbindings:\n", "\nbindings:\n" + entry, 1)
if retire:
    text = re.sub(r'(?m)^  W%s:\n    summary: "writer change %s"\n    artifacts: \[\]\n' % (retire, retire), "", text, count=1)
p.write_text(text)
`

// stressWriters are the loop's writers with pythonWriter as the Python
// step: it adds binding W<seq> and, once there are more than 25, retires
// the oldest.
type stressWriters struct {
	loopWriters
	bindings, retired []int
}

func newStressWriters(path, python, script string) *stressWriters {
	w := &stressWriters{}
	w.loopWriters = loopWriters{path: path, python: python, script: script, hook: hookAppend,
		r: rand.New(rand.NewPCG(3, 4)), tag: strconv.Itoa,
		pyArgs: func() []string {
			retire := ""
			if len(w.bindings) > 25 {
				retire = strconv.Itoa(w.bindings[0])
			}
			return []string{retire}
		},
		pyDone: func(seq int, _ string) {
			if len(w.bindings) > 25 {
				w.retired = append(w.retired, w.bindings[0])
				w.bindings = w.bindings[1:]
			}
			w.bindings = append(w.bindings, seq)
		},
	}
	return w
}

var stressBindingRE = regexp.MustCompile(`(?m)^  W(\d+):$`)

// check counts the writer changes the final file lacks, and of those the
// ones renamed over the file (sed -i, temp+mv).
func (w *stressWriters) check(t *testing.T, final []byte) (lost, renamed int) {
	present := map[int]bool{}
	for _, m := range stressBindingRE.FindAllSubmatch(final, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		present[n] = true
	}
	for _, n := range w.bindings {
		if !present[n] {
			lost++
			t.Logf("the Python write that added W%d is lost", n)
		}
	}
	for _, n := range w.retired {
		if present[n] {
			lost++
			t.Logf("the Python write that retired W%d is lost (W%d is back)", n, n)
		}
	}
	renamed = w.lostLines(t, final, "")
	return lost + renamed, renamed
}

type stressTally struct {
	mu                sync.Mutex
	tried, refused    int
	stoodDown         int
	reapplied, merged int
	written           []string // the tokens of corrections reported written
	ended             map[string]time.Time
}

type stressResult struct {
	token             string
	written, refused  bool
	reapplied, merged int
	// stoodDown: refused because the correction was not carried over to
	// a file taken for something other than the loop's work on ours.
	stoodDown bool
	ended     time.Time
}

func (s *stressTally) add(r stressResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tried++
	s.reapplied += r.reapplied
	s.merged += r.merged
	if r.stoodDown {
		s.stoodDown++
	}
	switch {
	case r.written:
		s.written = append(s.written, r.token)
		if !r.ended.IsZero() {
			if s.ended == nil {
				s.ended = map[string]time.Time{}
			}
			s.ended[r.token] = r.ended
		}
	case r.refused:
		s.refused++
	}
}

// cliCorrection runs one aot-tui redirect, varying the kind.
func cliCorrection(t *testing.T, bin, path string, k int, guard []string) stressResult {
	tok := fmt.Sprintf("cli-%d", k)
	var args []string
	switch k % 4 {
	case 0, 1:
		args = []string{"redirect", "add-atom", "stress " + tok, "--depends-on", "A1"}
	case 2:
		args = []string{"redirect", "constraints", "--max-iterations", strconv.Itoa(1000 + k)}
	case 3:
		args = []string{"redirect", "objective", "--goal", "goal " + tok}
	}
	args = append(append(args, "--note", tok, "--json", "-f", path), guard...)
	code, res, errs := runRedirect(t, bin, args)
	r := stressResult{token: "; note: " + tok, ended: time.Now()}
	switch code {
	case exitOK:
		r.written = true
		r.reapplied, r.merged = res.Reapplied, res.Merged
	case exitConflict:
		r.refused = true
		// A stand-down (written and not carried over, or the file taken
		// for another while it was written) is a refusal too, and here a
		// false one: nothing replaces the file.
		r.stoodDown = res.NotCarriedOver != nil || strings.Contains(errs, "while the correction was being written: it ")
		t.Logf("%s: exit 3: %s", tok, strings.TrimSpace(errs))
	default:
		t.Errorf("%v: exit %d: %s", args, code, errs)
	}
	return r
}

// tuiSession makes corrections the way the TUI does (tuiDriver) and
// counts them.
type tuiSession struct {
	d *tuiDriver
	t *testing.T

	mu                 sync.Mutex
	lost               map[string]bool
	reapplied, merged  int
	written            []stressResult
	refused, stoodDown int
	summaries          map[string]string
}

func startTUISession(t *testing.T, path string) *tuiSession {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	u := &tuiSession{t: t, lost: map[string]bool{}, summaries: map[string]string{}}
	u.d = startTUI(path, correction.Options{Now: func() time.Time { return now }}, 0, nil, u.record)
	return u
}

func (u *tuiSession) record(r correction.Result) {
	g, ok := r.(correction.GuardResult)
	if !ok {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if g.Reapplied {
		u.reapplied++
	}
	u.merged += g.Merged
	switch {
	case errors.Is(g.Err, correction.ErrLost):
		u.lost[g.Summary] = true
		u.t.Logf("guard: %s: %v", g.Summary, g.Err)
	case errors.Is(g.Err, correction.ErrStoodDown):
		u.stoodDown++
		u.t.Logf("guard stood down: %s: %v", g.Summary, g.Err)
	case g.Err != nil:
		u.t.Logf("guard: %s: %v", g.Summary, g.Err)
	}
}

// correct applies n corrections, a few hundred milliseconds apart.
func (u *tuiSession) correct(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := range n {
		time.Sleep(time.Duration(r.IntN(600)) * time.Millisecond)
		tok := fmt.Sprintf("tui-%d", k)
		var req model.Request = model.AddAtom{Description: "stress " + tok, DependsOn: []string{"A1"}}
		if k%3 == 2 {
			v := 2000 + k
			req = model.ChangeConstraints{MaxIterations: &v}
		}
		ar, err := u.d.apply(req, tok, nil)
		if err != nil {
			t.Errorf("preview %s: %v", tok, err)
			continue
		}
		res := stressResult{token: "; note: " + tok}
		u.mu.Lock()
		switch {
		case ar.Plan != nil:
			res.written, res.merged = true, ar.Merged
			u.summaries[res.token] = ar.Plan.Summary
			u.written = append(u.written, res)
			u.d.follow(ar)
		case errors.Is(ar.Err, statefile.ErrConflict):
			u.refused++
			t.Logf("%s: not written: %v", tok, ar.Err)
		default:
			t.Errorf("apply %s: %+v", tok, ar)
		}
		u.mu.Unlock()
	}
}

// finish stops the session and adds its account to tally.
func (u *tuiSession) finish(tally *stressTally) {
	u.d.finish()
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, r := range u.written {
		if u.lost[u.summaries[r.token]] {
			r.written, r.refused = false, true
		}
		if i == 0 {
			r.reapplied, r.merged = u.reapplied, r.merged+u.merged
		}
		tally.add(r)
	}
	for range u.refused {
		tally.add(stressResult{refused: true})
	}
	tally.mu.Lock()
	tally.stoodDown += u.stoodDown
	tally.mu.Unlock()
}
