package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// notifyRig is a notifier with a real command — a shell script that
// appends what it was given (the AOT_* variables, stdin's JSON) to a file
// — and a webhook receiver on 127.0.0.1, each of which can be held until
// released.
type notifyRig struct {
	t    *testing.T
	n    *notify.Notifier
	runs string
	srv  *httptest.Server
	mu   sync.Mutex
	hook []map[string]any
	// hold: the webhook answers once it is closed (nil: at once).
	hold chan struct{}
	// release: the command records once this file exists ("": at once).
	release string
	once    sync.Once
}

// notifyRecorder records one run in $1, once $2 exists when given (it
// ends when the test's directory is gone: a killed test leaves no script
// behind).
const notifyRecorder = `#!/bin/sh
while [ -n "$2" ] && [ ! -e "$2" ]; do [ -d "${2%/*}" ] || exit 1; sleep 0.02; done
{ echo "--- run"; env | grep '^AOT_' | LC_ALL=C sort; cat; echo; } >> "$1"
`

// newNotifyRig starts the rig; held holds both sinks until release.
func newNotifyRig(t *testing.T, held bool, command ...string) *notifyRig {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the notify command is a shell script")
	}
	dir := t.TempDir()
	r := &notifyRig{t: t, runs: filepath.Join(dir, "runs")}
	if held {
		r.hold, r.release = make(chan struct{}), filepath.Join(dir, "release")
	}
	script := filepath.Join(dir, "record.sh")
	if err := os.WriteFile(script, []byte(notifyRecorder), 0o755); err != nil {
		t.Fatal(err)
	}
	hold := r.hold
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Errorf("the webhook's body is not JSON: %v\n%s", err, body)
		}
		if hold != nil {
			<-hold
		}
		r.mu.Lock()
		r.hook = append(r.hook, ev)
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	if command == nil {
		command = []string{script, r.runs}
		if held {
			command = append(command, r.release)
		}
	}
	r.n = notify.New(notify.Config{Command: command, Webhook: &notify.Webhook{URL: r.srv.URL + "/hook"}, Timeout: 5 * time.Minute},
		notify.Options{Version: "v0-test"})
	t.Cleanup(func() { r.n.Close(0) })
	return r
}

// letGo releases the held sinks (once; nothing when none is held).
func (r *notifyRig) letGo() {
	if r.hold == nil {
		return
	}
	r.once.Do(func() {
		close(r.hold)
		if err := os.WriteFile(r.release, nil, 0o644); err != nil {
			r.t.Error(err)
		}
	})
}

// events closes the notifier (every queued event delivered) and returns
// what the command and the webhook received, as "kind loop: reason".
func (r *notifyRig) events() (command, webhook []string) {
	r.t.Helper()
	r.n.Close(time.Minute)
	data, err := os.ReadFile(r.runs)
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	for _, run := range strings.Split(string(data), "--- run\n")[1:] {
		env := map[string]string{}
		var stdin map[string]any
		for line := range strings.Lines(run) {
			line = strings.TrimSuffix(line, "\n")
			if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "AOT_") {
				env[k] = v
			} else if strings.HasPrefix(line, "{") {
				if err := json.Unmarshal([]byte(line), &stdin); err != nil {
					r.t.Fatalf("stdin is not JSON: %v", err)
				}
			}
		}
		if stdin["kind"] != env["AOT_EVENT"] || stdin["path"] != env["AOT_PATH"] {
			r.t.Errorf("stdin %v and the environment %v disagree", stdin, env)
		}
		command = append(command, env["AOT_EVENT"]+" "+env["AOT_LOOP"]+": "+env["AOT_REASON"])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range r.hook {
		webhook = append(webhook, fmt.Sprintf("%v %v: %v", ev["kind"], ev["loop"], ev["reason"]))
	}
	return command, webhook
}

// checkEvents asserts both sinks received want, in order, each once.
func (r *notifyRig) checkEvents(want ...string) {
	r.t.Helper()
	command, webhook := r.events()
	if strings.Join(command, "\n") != strings.Join(want, "\n") {
		r.t.Errorf("the command received:\n%s\nwant:\n%s", strings.Join(command, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(webhook, "\n") != strings.Join(want, "\n") {
		r.t.Errorf("the webhook received:\n%s\nwant:\n%s", strings.Join(webhook, "\n"), strings.Join(want, "\n"))
	}
}

// writeLoop writes a project's state file: rich.md, not paused, with
// edits (old → new pairs).
func writeLoop(t *testing.T, dir string, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1)
	for i := 0; i+1 < len(edits); i += 2 {
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopWrite rewrites path as the loop does: its stop hook through a temp
// file and mv (sed … > tmp && mv tmp file), its Python scripts in place
// (Path.write_text: truncate, then write).
func loopWrite(t *testing.T, path string, hookWay bool, edits ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("%s has no %q", path, edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	if !hookWay {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	tmp := fmt.Sprintf("%s.tmp.%d", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// waitModel polls the model, on the program's goroutine, until cond holds
// (a liveness bound, not a timing assertion). A program that does not
// answer fails the test (its request is sent from a goroutine of its own:
// a program held up would not even take it).
func (f *flow) waitModel(what string, cond func(*Model) bool) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		answer := make(chan bool, 1)
		go f.tm.Send(modelReq{fn: func(m *Model) { answer <- cond(m) }, done: make(chan struct{})})
		select {
		case ok := <-answer:
			if ok {
				return
			}
		case <-time.After(10 * time.Second):
			f.t.Fatalf("the TUI did not answer while waiting for %s", what)
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the TUI never saw %s", what)
		}
	}
}

// loopSays is a waitModel condition: loop i's state says so.
func loopSays(i int, status string, stall, iteration int) func(*Model) bool {
	return func(m *Model) bool {
		st := m.loops[i].st
		return st != nil && string(st.Control.Status) == status && st.Control.StallCount == stall && st.Control.Iteration == iteration
	}
}

// startNotifyFlow runs the TUI on paths with the rig's notifier, focused
// and --quiet: the notifications do not depend on the bell's conditions.
func startNotifyFlow(t *testing.T, r *notifyRig, paths ...string) *flow {
	t.Helper()
	var targets []statefile.Target
	for _, p := range paths {
		targets = append(targets, statefile.Target{Path: p, Kind: statefile.KindAoT})
	}
	m := New(Options{Targets: targets, NoColor: true, Quiet: true, Notify: r.n,
		Watch: statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(100, 30))
	f := &flow{t: t, tm: tm, path: paths[0]}
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	// First (cleanups run last in, first out): a TUI that a held sink
	// stopped is let go, so that the test fails instead of hanging.
	t.Cleanup(r.letGo)
	return f
}

// Each transition the TUI alerts on — written the loop's ways, by its stop
// hook and its scripts — reaches the command and the webhook exactly once;
// writes that are no transition send nothing.
func TestTUINotifiesEachTransitionOnce(t *testing.T) {
	r := newNotifyRig(t, false)
	root := t.TempDir()
	billing := writeLoop(t, filepath.Join(root, "billing"), "stall_count: 2", "stall_count: 1")
	audit := writeLoop(t, filepath.Join(root, "audit"), "stall_count: 2", "stall_count: 0")
	f := startNotifyFlow(t, r, billing, audit)
	f.waitModel("both loops", func(m *Model) bool { return m.loops[0].st != nil && m.loops[1].st != nil })

	// The stop hook: the next iteration, one more stall — one from the limit.
	loopWrite(t, billing, true, "iteration: 7", "iteration: 8", "stall_count: 1", "stall_count: 2")
	f.waitModel("billing's stall 2", loopSays(0, "running", 2, 8))
	// update_atom.py A2 in_progress: no transition.
	loopWrite(t, billing, false, "status: pending\n    depends_on: [A1]", "status: in_progress\n    depends_on: [A1]")
	f.waitModel("A2 in progress", func(m *Model) bool { return m.loops[0].st.Atoms[1].Status == "in_progress" })
	// set_status.py completed.
	loopWrite(t, billing, false, "  status: running", "  status: completed")
	f.waitModel("billing completed", loopSays(0, "completed", 2, 8))
	// The stop hook stops audit at its stall limit.
	loopWrite(t, audit, true, "  status: running", "  status: stopped", "stop_reason: null", `stop_reason: "Max stall count reached"`)
	f.waitModel("audit stopped", loopSays(1, "stopped", 0, 7))
	// One more write of billing's, no transition.
	loopWrite(t, billing, true, "iteration: 8", "iteration: 9")
	f.waitModel("billing's iteration 9", loopSays(0, "completed", 2, 9))

	_ = f.tm.Quit()
	r.checkEvents(
		"needs_attention billing: stall 2/3: one more stalled iteration stops the loop",
		"completed billing: the loop completed",
		"stopped audit: the loop stopped: Max stall count reached")
}

// A command that does not return and a webhook that does not answer hold
// up neither the TUI nor the events after them: the screen still answers
// keys and follows the file, and once they return every event arrives.
func TestNotifyNeverHoldsTheTUI(t *testing.T) {
	r := newNotifyRig(t, true)
	path := writeLoop(t, filepath.Join(t.TempDir(), "billing"))
	f := startNotifyFlow(t, r, path)
	f.waitFor("Define the billing schema")

	loopWrite(t, path, true, "  status: running", "  status: pending")
	f.waitModel("pending", loopSays(0, "pending", 2, 7))
	// Both sinks now hold the first event; the TUI still takes keys.
	go f.keys("?")
	f.waitModel("the help", func(m *Model) bool { return strings.Contains(screen(m), "help — Graph") })
	go f.keys("esc")
	loopWrite(t, path, false, "  status: pending", "  status: running")
	f.waitModel("running", loopSays(0, "running", 2, 7))
	loopWrite(t, path, false, "  status: running", "  status: completed")
	f.waitModel("completed", loopSays(0, "completed", 2, 7))
	f.waitFor("completed")

	r.letGo()
	_ = f.tm.Quit()
	r.checkEvents(
		"needs_attention billing: status running → pending",
		"needs_attention billing: status pending → running",
		"completed billing: the loop completed")
}

// A failing command is one line in the message log, and a hostile loop
// name arrives escaped.
func TestNotifyFailureGoesToTheMessageLog(t *testing.T) {
	r := newNotifyRig(t, false, "aot-tui-no-such-notify-command")
	path := writeLoop(t, filepath.Join(t.TempDir(), "ev\x1b]0;pwned\x07il"))
	f := startNotifyFlow(t, r, path)
	f.waitFor("Define the billing schema")
	loopWrite(t, path, true, "  status: running", "  status: completed")
	const want = `notify: command aot-tui-no-such-notify-command failed for ev\x1b]0;pwned\x07il (completed): aot-tui-no-such-notify-command: not found`
	f.waitModel("the note in the message log", func(m *Model) bool {
		for _, e := range m.msgs.entries {
			if e.loop == "notify" && strings.Contains(e.text, want) {
				return true
			}
		}
		return false
	})
	_, webhook := r.events()
	if len(webhook) != 1 || webhook[0] != `completed ev\x1b]0;pwned\x07il: the loop completed` {
		t.Fatalf("the webhook received %q", webhook)
	}
}

// A session that begins to wait for a person, and a correction a loop
// write undid for good, are events too — once each, focused or not.
func TestNotifyNeedsYouAndLostCorrection(t *testing.T) {
	r := newNotifyRig(t, false)
	path := filepath.Join("..", "testdata", "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true, LoopName: "billing",
		Now: func() time.Time { return fixedNow }, Notify: r.n})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	waiting := &agent.Activity{NeedsYou: &agent.NeedsYou{Kind: "permission_prompt", Message: "Claude needs your permission to use Bash", Since: fixedNow}}
	m.onActivity(m.cur, activityMsg{a: waiting})
	m.onActivity(m.cur, activityMsg{a: waiting}) // the same wait: no second event
	m.onGuard(m.cur, correction.GuardResult{Err: fmt.Errorf("the constraints correction: %w", correction.ErrLost)})
	r.checkEvents(
		"needs_you billing: needs you: Claude needs your permission to use Bash",
		"correction_lost billing: the constraints correction: "+correction.ErrLost.Error())
}

// In the fleet the table sends one event per transition of any loop —
// also while a loop is open, which adds none of its own.
func TestFleetNotifiesEachTransitionOnce(t *testing.T) {
	r := newNotifyRig(t, false)
	root := t.TempDir()
	billing := writeLoop(t, filepath.Join(root, "billing"), "stall_count: 2", "stall_count: 0")
	audit := writeLoop(t, filepath.Join(root, "audit"), "stall_count: 2", "stall_count: 0")
	m := New(Options{
		Fleet:   &FleetOptions{Dirs: []string{root}, Options: fleet.Options{Depth: 2, Watch: statefile.WatchOptions{Poll: 200 * time.Millisecond}}},
		NoColor: true, Notify: r.n,
		Watch: statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond},
	})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(120, 30))
	f := &flow{t: t, tm: tm}
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	f.waitFor("2 loops", "billing", "audit")
	row := func(path, status string) func(*Model) bool {
		return func(m *Model) bool {
			r, ok := m.fleet.Row(path)
			return ok && r.Status == status
		}
	}
	loopWrite(t, audit, true, "  status: running", "  status: stopped", "stop_reason: null", `stop_reason: "Max stall count reached"`)
	f.waitModel("audit stopped", row(audit, "stopped"))
	// Open billing and complete it while it is on screen.
	f.withModel(func(m *Model) { m.fleet.Select(billing) })
	f.keys("enter")
	f.waitModel("billing open", func(m *Model) bool { return !m.fleetShown() && m.cur.target.Path == billing && m.cur.st != nil })
	loopWrite(t, billing, false, "  status: running", "  status: completed")
	f.waitModel("billing completed", func(m *Model) bool {
		return row(billing, "completed")(m) && m.cur != nil && m.cur.st != nil && m.cur.st.Control.Status == "completed"
	})
	_ = f.tm.Quit()
	r.checkEvents(
		"stopped audit: stopped: Max stall count reached",
		"completed billing: completed")
}

// The kinds by the alerts' words.
func TestAlertKind(t *testing.T) {
	for why, want := range map[string]notify.Kind{
		whyCompleted:                                           notify.Completed,
		whyStopped + "Max stall count reached":                 notify.Stopped,
		"needs you: Claude needs your permission to use Bash":  notify.NeedsYou,
		"status running → pending":                             notify.NeedsAttention,
		"stall 2/3: one more stalled iteration stops the loop": notify.NeedsAttention,
	} {
		if got := alertKind(why); got != want {
			t.Errorf("alertKind(%q) = %s, want %s", why, got, want)
		}
	}
}
