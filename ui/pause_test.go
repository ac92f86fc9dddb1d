package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// flowOn runs a second TUI (its own model and session, as another aot-tui
// process has) on the state file at path.
func flowOn(t *testing.T, path string, w, h int, opts Options) *flow {
	t.Helper()
	opts.Target = statefile.Target{Path: path, Kind: statefile.KindAoT}
	opts.NoColor = true
	opts.Watch = statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}
	m := New(opts)
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	return &flow{t: t, tm: tm, path: path}
}

// noPauseFiles fails when aot-tui's pause files stay beside the file (a
// look at the pause that is under way holds the lock file for a moment:
// a liveness bound).
func noPauseFiles(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left, _ := filepath.Glob(path + ".aot-tui-pause*")
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pause files left beside the state file: %v", left)
		}
	}
}

// Two TUIs on one loop: A opens c, B opens a, A cancels — the loop stays
// paused while B's form is open, and each header says who holds it.
func TestTwoTUIsShareThePause(t *testing.T) {
	a := startRedirectFlow(t)
	b := flowOn(t, a.path, 100, 32, Options{Now: func() time.Time { return correctionNow }})
	b.waitFor("Define the billing schema")
	a.keys("c")
	a.waitFor("Change constraints")
	a.waitFile("set redirect_requested", flagIs("true"))
	pid := fmt.Sprintf("pid %d, constraints form", os.Getpid())
	b.waitFor("paused for redirect ‖ by another aot-tui (" + pid) // no stale-flag question: it is A's form
	b.keys("a")
	b.waitFor("Add an atom")
	b.settle() // B's lease is taken just after its form shows
	a.keys("esc")
	a.waitFor("the loop stays paused: 1 other aot-tui form open")
	a.settle()
	b.settle()
	if !flagIs("true")(a.file()) {
		t.Fatal("A cancelled while B's form is open: redirect_requested is false, the loop is not paused")
	}
	b.waitFor("REDIRECT", "redirect in progress")

	a.keys("c")
	a.waitFor("Change constraints")
	a.settle()
	b.waitFor("‖ 2 forms open (this one and " + pid)
	a.waitFor("‖ 2 forms open (this one and pid " + fmt.Sprint(os.Getpid()) + ", add-atom form")
	b.keys("esc")
	b.waitFor("the loop stays paused")
	a.settle()
	if !flagIs("true")(a.file()) {
		t.Fatal("B cancelled while A's form is open: the loop is not paused")
	}
	a.keys("esc")
	a.waitFile("cleared redirect_requested", flagIs("false"))
	a.settle()
	b.settle()
	noPauseFiles(t, a.path)
}

// A form with no key for the idle time lets the loop go and stays open
// with what was typed; the next key pauses the loop again, and the preview
// is planned on the file as it is then (the loop ran meanwhile).
func TestIdleFormLetsTheLoopGo(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 32, Options{Now: func() time.Time { return correctionNow }, IdleRelease: time.Second})
	f.waitFor("Define the billing schema")
	f.keys("c")
	f.waitFor("Change constraints", "┃ max_iterations")
	f.waitFile("set redirect_requested", flagIs("true"))
	f.ctrl('u')
	f.typeText("30")
	f.waitFor("no key for 1s: the loop was let go — it pauses again when you type", "> 30")
	f.waitFile("let the loop go", flagIs("false"))

	// The loop runs an iteration meanwhile.
	f.rewrite("  iteration: 7\n", "  iteration: 8\n", true)
	f.waitFor("iteration 8/")
	f.keys("enter") // the next key pauses the loop again, and moves on
	f.waitFile("paused the loop again", flagIs("true"))
	if strings.Contains(f.screen(), "the loop was let go") {
		t.Fatal("the form still says the loop was let go")
	}
	f.keys("enter", "enter")
	f.waitFor("Note")
	f.keys("enter")
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	got := f.waitFile("got the correction", func(b []byte) bool {
		return bytes.Contains(b, []byte("max_iterations: 30")) && flagIs("false")(b)
	})
	want := bytes.Replace(correctionGolden(t, "constraints"), []byte("  iteration: 7\n"), []byte("  iteration: 8\n"), 1)
	if !bytes.Equal(got, want) {
		t.Fatalf("the correction was not planned on the loop's iteration 8:\n%s", lineDiffForTest(want, got))
	}
	f.settle()
	noPauseFiles(t, f.path)
}

// A red banner (a correction lost for good) does not take the esc that
// cancels a form: with a form open, esc cancels it and the banner stays,
// saying so; the next esc dismisses the banner.
func TestEscCancelsTheFormUnderALostBanner(t *testing.T) {
	f := startRedirectFlow(t)
	stale := f.file()
	formScripts[1].run(f) // delete A8
	f.waitFor("preview:", "enter apply")
	f.keys("enter")
	f.waitFor("recorded in corrections")
	f.keys("c")
	f.waitFor("Change constraints")
	f.waitFile("set redirect_requested", flagIs("true"))
	// The loop's script writes back A8, now resolved: the delete is lost.
	if err := os.WriteFile(f.path, []byte(withA8Resolved(stale)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("lost: deleted A8", "once the dialog is closed", "Change constraints")
	// The loop's write cleared the flag under the open form: set again.
	f.waitFile("set redirect_requested again", flagIs("true"))
	f.keys("esc")
	s := f.waitFor("correction cancelled")
	if strings.Contains(s, "Change constraints") || !strings.Contains(s, "lost: deleted A8") {
		t.Fatalf("esc should cancel the form and leave the banner:\n%s", s)
	}
	f.waitFile("cleared redirect_requested", flagIs("false"))
	f.waitFor("lost: deleted A8 — the loop wrote over it", "esc dismisses")
	f.keys("esc")
	f.waitGone("lost: deleted A8", "esc did not dismiss the banner once the form was closed")
}

// A TUI that finds the flag set by an aot-tui that died with a form open
// (its lease left with no lock on it, the pause lock's mark) says so in
// the stale-flag question, and clearing it leaves no pause file behind.
func TestStaleFlagOfADeadAotTUI(t *testing.T) {
	f := startFlow(t, "", 100, 32, Options{Now: func() time.Time { return correctionNow }})
	writePausedLoop(t, f.path)
	f.waitFor("no longer running (pid", "999999, constraints form, 12m)", "y clear it")
	f.keys("y")
	f.waitFile("cleared the flag", flagIs("false"))
	f.settle()
	noPauseFiles(t, f.path)
}

// writePausedLoop writes rich.md (redirect_requested: true) at path, with
// the lease of an aot-tui that died with a form open and the pause lock's
// mark, as such an aot-tui leaves them.
func writePausedLoop(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	started := correctionNow.Add(-12 * time.Minute).Format(time.RFC3339)
	files := map[string]string{
		path + ".aot-tui-pause-999999-1": `{"pid":999999,"host":"","started":"` + started + `","form":"constraints"}` + "\n",
		statefile.PauseLockPath(path):    "redirect_requested was set by aot-tui\n",
		path:                             string(data),
	}
	for name, content := range files {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// A --read-only TUI on a paused loop writes nothing beside the state file:
// no look at the pause (which creates and removes the pause lock, removes
// dead processes' leases and may rewrite the lock's mark), neither when
// the file is read nor on the looks' timer. The directory's entries and
// every pause file stay as they were for two looks' time.
func TestReadOnlyTUIDoesNotLookAtThePause(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	files := writePausedLoop(t, path)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Dir(path), past, past); err != nil {
		t.Fatal(err)
	}
	f := flowOn(t, path, 100, 32, Options{ReadOnly: true, Now: func() time.Time { return correctionNow }})
	f.waitFor("paused for redirect", "read-only")
	// A look starts as soon as the file is read and again every
	// pauseLookEvery: any of them within this window shows on the disk.
	for deadline := time.Now().Add(2*pauseLookEvery + time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, err := os.Stat(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(past) {
			t.Fatalf("a --read-only TUI changed the entries of %s (at %v)", filepath.Dir(path), st.ModTime())
		}
		for name, want := range files {
			got, err := os.ReadFile(name)
			if err != nil || string(got) != want {
				t.Fatalf("a --read-only TUI changed %s: %q, %v (was %q)", filepath.Base(name), got, err, want)
			}
		}
	}
	if s := f.screen(); strings.Contains(s, "no longer running") {
		t.Fatalf("a TUI that does not look at the pause still says who holds it:\n%s", s)
	}
}

// A look at the pause that fails (here the pause lock's name is taken by
// a directory) says so in the footer, naming the file, instead of leaving
// the header's account of who holds the pause silently out of date.
func TestPauseLookErrorShows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	writePausedLoop(t, path)
	lock := statefile.PauseLockPath(path)
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	// 160 columns: the footer holds the error's glyph and the whole path
	// of the temporary directory.
	f := flowOn(t, path, 160, 32, Options{Now: func() time.Time { return correctionNow }})
	f.waitFor("paused for redirect", "✗ could not look at who holds the pause: pause lock", "aot-loop-state.md.aot-tui-pause.lock")
}

// loopMsgCounter counts the loop messages of one kind the program gets
// (is says which): the idle timer's wake-ups, the activity snapshots.
type loopMsgCounter struct {
	probe
	n  *atomic.Int64
	is func(tea.Msg) bool
}

func (c loopMsgCounter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if env, ok := msg.(loopMsg); ok && c.is(env.msg) {
		c.n.Add(1)
	}
	_, cmd := c.probe.Update(msg)
	return c, cmd
}

// While a write is under way past the idle time (here the apply waits for
// the pause lock another aot-tui holds, up to correction.DefaultPauseWait),
// the idle timer looks again now and then — not every millisecond: a handful
// of wake-ups in those seconds, where a 1 ms re-arm makes thousands.
func TestIdleTimerWaitsCalmlyForABusyWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true,
		Watch:       statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond},
		Now:         func() time.Time { return correctionNow },
		IdleRelease: 300 * time.Millisecond})
	var idles atomic.Int64
	tm := teatest.NewTestModel(t, loopMsgCounter{probe{m}, &idles, func(msg tea.Msg) bool { _, ok := msg.(idleMsg); return ok }}, teatest.WithInitialTermSize(100, 32))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	f := &flow{t: t, tm: tm, path: path}
	f.waitFor("Define the billing schema")
	f.constraintsTo30()
	f.waitFor("preview:", "enter apply")
	f.settle()
	// Another aot-tui holds the pause lock: the apply waits for it.
	p, err := statefile.LockPauses(path, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Unlock()
	f.keys("enter")
	f.waitFor("writing the correction…")
	idles.Store(0)
	f.waitGone("writing the correction…", "the apply never stopped waiting for the pause lock")
	switch n := idles.Load(); {
	case n > 10:
		t.Fatalf("the idle timer woke the program %d times while a write waited for %v", n, correction.DefaultPauseWait)
	case n == 0:
		// The idle time (300 ms) is over long before the write: the timer
		// looks again at least once a second (idleRecheck), and a count of
		// none means the counter no longer sees its messages.
		t.Fatalf("no idle wake-up counted while a write waited for %v", correction.DefaultPauseWait)
	}
}
