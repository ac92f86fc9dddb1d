package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// probe wraps the real model so a test can read the screen on the program's
// own goroutine (no data race): a snapshot request is answered in Update.
type probe struct{ *Model }

type snapshotReq struct{ reply chan string }

// pendingReq asks how many handshake writes are in flight.
type pendingReq struct{ reply chan int }

// modelReq runs fn on the model, on the program's goroutine.
type modelReq struct {
	fn   func(*Model)
	done chan struct{}
}

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r, ok := msg.(modelReq); ok {
		r.fn(p.Model)
		close(r.done)
		return p, nil
	}
	if r, ok := msg.(snapshotReq); ok {
		r.reply <- ansi.Strip(p.Model.render())
		return p, nil
	}
	if r, ok := msg.(pendingReq); ok {
		r.reply <- p.Model.cur.session.Pending()
		return p, nil
	}
	_, cmd := p.Model.Update(msg)
	return p, cmd
}

type flow struct {
	t    *testing.T
	tm   *teatest.TestModel
	path string
}

// startFlow runs the production model on a copy of a fixture, with the
// real file watcher, in a teatest program.
func startFlow(t *testing.T, fixture string, w, h int, opts Options) *flow {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if fixture != "" {
		data, err := os.ReadFile(filepath.Join("..", "testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		// Flows start with the handshake flag clear (rich.md has it set;
		// TestFlowStaleFlag covers that case).
		data = []byte(strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts.Target = statefile.Target{Path: path, Kind: statefile.KindAoT}
	opts.NoColor = true
	opts.Watch = statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}
	m := New(opts)
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(w, h))
	f := &flow{t: t, tm: tm, path: path}
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	return f
}

func (f *flow) screen() string {
	reply := make(chan string, 1)
	f.tm.Send(snapshotReq{reply: reply})
	select {
	case s := <-reply:
		return s
	case <-time.After(5 * time.Second):
		f.t.Fatal("the program did not answer")
	}
	return ""
}

// settle waits until no handshake write of the current loop is in flight
// (a liveness bound): after it, the file holds what the session last asked.
func (f *flow) settle() {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		reply := make(chan int, 1)
		f.tm.Send(pendingReq{reply: reply})
		select {
		case n := <-reply:
			if n == 0 {
				return
			}
		case <-time.After(5 * time.Second):
			f.t.Fatal("the program did not answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatal("handshake writes never settled")
}

// waitFor polls the screen until it contains every want (a liveness bound,
// not a timing assertion).
func (f *flow) waitFor(want ...string) string {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var s string
	for time.Now().Before(deadline) {
		s = f.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(s, w) {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("screen never showed %q; last screen:\n%s", want, s)
	return ""
}

// waitGone polls the screen until it no longer shows gone (a liveness
// bound, not a timing assertion); why is the failure.
func (f *flow) waitGone(gone, why string) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); strings.Contains(f.screen(), gone); {
		if time.Now().After(deadline) {
			f.t.Fatal(why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *flow) keys(keys ...string) {
	for _, k := range keys {
		f.tm.Send(keyMsg(k))
	}
}

func (f *flow) rewrite(old, new string, inPlace bool) {
	f.t.Helper()
	data, err := os.ReadFile(f.path)
	if err != nil {
		f.t.Fatal(err)
	}
	out := strings.Replace(string(data), old, new, 1)
	if inPlace {
		err = os.WriteFile(f.path, []byte(out), 0o644)
	} else {
		tmp := f.path + ".tmp"
		if err = os.WriteFile(tmp, []byte(out), 0o644); err == nil {
			err = os.Rename(tmp, f.path)
		}
	}
	if err != nil {
		f.t.Fatal(err)
	}
}

func TestFlowFileChangesReachTheScreen(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{})
	f.waitFor("Define the billing schema", "iteration 7/20")

	f.rewrite("iteration: 7", "iteration: 8", false) // the hook's way
	f.waitFor("iteration 8/20")
	f.rewrite("iteration: 8", "iteration: 9", true) // the scripts' way
	f.waitFor("iteration 9/20")

	f.rewrite("status: in_progress", "status: resolved", true)
	f.waitFor("○5 ◐0 ●3")

	// A broken write keeps the last good state under a banner.
	if err := os.WriteFile(f.path, []byte("---\natoms: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := f.waitFor("last good state shown", "line 2")
	if !strings.Contains(s, "Define the billing schema") {
		t.Fatalf("the last good state should stay on screen:\n%s", s)
	}

	if err := os.Remove(f.path); err != nil {
		t.Fatal(err)
	}
	f.waitFor("was removed", "Define the billing schema")
}

func TestFlowViewsFilterHelpResize(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{})
	f.waitFor("Define the billing schema")
	f.keys("2")
	f.waitFor("summary", "Backoff 100ms doubling")
	f.keys("tab")
	f.waitFor("S3 is cheaper")
	f.keys("shift+tab", "shift+tab")
	f.waitFor("Define the billing schema")
	f.keys("/", "S", "3", "enter")
	s := f.waitFor("filter: S3")
	for _, l := range strings.Split(s, "\n") {
		if left, _, _ := strings.Cut(l, "│"); strings.Contains(left, "Define the billing schema") {
			t.Fatalf("filter should hide A1 from the graph:\n%s", s)
		}
	}
	f.keys("esc")
	f.waitFor("Define the billing schema")
	f.keys("?")
	f.waitFor("help — Graph", "to a dependency")
	f.keys("esc")
	f.tm.Send(tea.WindowSizeMsg{Width: 60, Height: 20})
	s = f.waitFor("1 Graph  2 Bind")
	for _, l := range strings.Split(s, "\n") {
		if ansi.StringWidth(l) > 60 {
			t.Fatalf("line wider than 60 after resize: %q", l)
		}
	}
	f.keys("j", "enter")
	f.waitFor("Payment client with retries", "dependents")
}

func TestFlowWaitsForTheFile(t *testing.T) {
	f := startFlow(t, "", 100, 20, Options{})
	f.waitFor("waiting for", "/align-goal")
	data, err := os.ReadFile(filepath.Join("..", "testdata", "seed-complete.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f.waitFor("Implement authentication feature", "User model definition")
}

func TestFlowReadOnlyAndQuit(t *testing.T) {
	f := startFlow(t, "rich.md", 100, 30, Options{ReadOnly: true})
	f.waitFor("read-only")
	f.keys("S")
	f.waitFor("corrections are disabled")
	f.keys("q")
	f.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

func TestFlowSeveralLoops(t *testing.T) {
	dir := t.TempDir()
	var targets []statefile.Target
	for i, fx := range []string{"seed-complete.md", "rich.md"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", fx))
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1))
		path := filepath.Join(dir, []string{"auth", "billing"}[i], ".claude", "aot-loop-state.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, statefile.Target{Path: path, Kind: statefile.KindAoT})
	}
	m := New(Options{Targets: targets, NoColor: true, Watch: statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(100, 30))
	f := &flow{t: t, tm: tm, path: targets[1].Path}
	t.Cleanup(func() { _ = tm.Quit(); m.Close() })

	s := f.waitFor("1 auth ▶ running", "2 billing ▶ running", "Implement authentication feature")
	if bar, _, _ := strings.Cut(s, "\n"); strings.Contains(bar, "•") {
		t.Fatalf("nothing changed out of sight yet:\n%s", s)
	}
	// The billing loop moves while auth is shown: it gets a marker.
	f.rewrite("iteration: 7", "iteration: 8", false)
	f.waitFor("2 billing ▶ running •")
	f.keys(">")
	s = f.waitFor("Ship the billing service", "iteration 8/20")
	if bar, _, _ := strings.Cut(s, "\n"); strings.Contains(bar, "•") {
		t.Fatalf("the marker goes once the loop is shown:\n%s", s)
	}
	f.keys("<")
	f.waitFor("Implement authentication feature")
	f.keys("<") // wraps around
	f.waitFor("Ship the billing service")
	// The graph's help is longer than the pane: the loops' keys are
	// further down.
	f.keys("?")
	f.waitFor("help — Graph")
	for range 60 {
		if s := f.screen(); strings.Contains(s, "next loop") && strings.Contains(s, "previous loop") {
			return
		}
		f.keys("j")
		f.settle()
	}
	f.waitFor("next loop", "previous loop")
}
