package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// verifyState is a state file whose base_case is checklist (items
// indented by 6).
func verifyState(checklist string) string {
	return `---
objective:
  goal: "Ship the login page"
  base_case:
    checklist:
` + checklist + `  background_intent: "b"
  deliverables: "d"
  definition_of_done: "done"
  constraints:
    max_iterations: 20
    max_parallel_agents: 3
    max_stall_count: 3
control:
  status: completed
  iteration: 4
  stall_count: 0
  prev_pending_count: 0
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
  - id: A1
    description: "Build the login page"
    status: resolved
    depends_on: []
decompositions: []
or_groups: {}
bindings:
  A1:
    summary: "built"
    artifacts: []
trail: []
corrections: []
---

# Original Prompt

Ship it.
`
}

// startVerifyFlow runs the TUI (as startFlow does) on a project whose
// state file is state; the project directory is where the base_case's
// commands run.
func startVerifyFlow(t *testing.T, state string, opts Options) (*flow, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Target = statefile.Target{Path: path, Kind: statefile.KindAoT}
	opts.NoColor = true
	opts.Watch = statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}
	m := New(opts)
	tm := teatest.NewTestModel(t, rawProbe{probe{m}}, teatest.WithInitialTermSize(100, 60))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	f := &flow{t: t, tm: tm, path: path}
	f.waitFor("Ship the login page")
	return f, dir
}

// rawProbe answers rawReq too: the screen as the program draws it,
// escapes and all.
type rawProbe struct{ probe }

type rawReq struct{ reply chan string }

func (p rawProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r, ok := msg.(rawReq); ok {
		r.reply <- p.Model.render()
		return p, nil
	}
	_, cmd := p.probe.Update(msg)
	return p, cmd
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

const verifyChecklist = `      - item: "Creates a marker"
        check:
          type: command
          value: "touch ran.txt && echo made it"
      - item: "Fails loudly"
        check:
          type: command
          value: "echo 'boom: TestLogin failed' >&2; exit 3"
      - item: "Marker present"
        check:
          type: file
          value: "ran.txt"
      - item: "Readable"
        check:
          type: quality
          criteria: "Short functions"
          pass_threshold: 3
      - item: "Either"
        any_of:
          - item: "Rejects bad input"
            check:
              type: not_command
              value: "false"
          - item: "Not installed"
            check:
              type: command
              value: "aot_verify_no_such_program_ui --check"
`

// V asks first, listing the commands; confirmed, they run in the project
// directory and their verdicts mark the checklist tree; enter shows the
// output of what failed.
func TestVerifyFlow(t *testing.T) {
	f, dir := startVerifyFlow(t, verifyState(verifyChecklist), Options{})
	f.keys("5", "V")
	s := f.waitFor("verify the base_case now?", "touch ran.txt && echo made it", "echo 'boom: TestLogin failed' >&2; exit 3",
		"false  (not_command: passes when it fails)", "aot_verify_no_such_program_ui --check", "enter/y run them")
	if strings.Contains(s, "ran.txt\n") || exists(filepath.Join(dir, "ran.txt")) {
		t.Fatal("a command ran before the confirmation")
	}
	if !strings.Contains(s, "Also: 1 file check") || !strings.Contains(s, "1 item judged by a person") {
		t.Errorf("the box does not say what else is checked:\n%s", s)
	}
	f.keys("y")
	s = f.waitFor("✗ FAIL verified", "✓ 1 Creates a marker", "✗ 2 Fails loudly", "✓ 3 Marker present", "? 4 Readable", "✓ 5 Either",
		"✓ 5.1 Rejects bad input", "✗ 5.2 Not installed", "base_case verified: FAIL — 3 pass · 2 fail · 1 not checkable")
	if !exists(filepath.Join(dir, "ran.txt")) {
		t.Fatal("the confirmed command did not run in the project directory")
	}
	for _, want := range []string{"✓ exit 0 · ", "✗ exit 3 · ", "— output below (enter)", "✓ File exists (0B): ran.txt · ",
		"? not checkable here — judged by a person", "the shell could not find the program (exit 127)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the tree lacks %q:\n%s", want, s)
		}
	}
	f.keys("enter")
	f.waitFor("▸ output of 2 Fails loudly — exit 3", "$ echo 'boom: TestLogin failed' >&2; exit 3", "│ boom: TestLogin failed")
	f.keys("enter")
	f.waitFor("▸ output of 5.2 Not installed", "aot_verify_no_such_program_ui: not found")
}

// Declining runs nothing: not on esc, not on n, not on keys the box does
// not know, and the objective view stays unmarked.
func TestVerifyDeclinedRunsNothing(t *testing.T) {
	f, dir := startVerifyFlow(t, verifyState(`      - item: "Would write"
        check:
          type: command
          value: "touch declined.txt"
`), Options{})
	f.keys("5")
	for _, no := range []string{"esc", "n"} {
		f.keys("V")
		f.waitFor("verify the base_case now?", "touch declined.txt")
		f.keys("j", "k", "x", "z", no)
		s := f.waitFor("verify cancelled: nothing ran")
		if strings.Contains(s, "verify the base_case now?") {
			t.Fatalf("%s did not close the box:\n%s", no, s)
		}
	}
	time.Sleep(300 * time.Millisecond) // what a confirmation would have started has had time to run
	if exists(filepath.Join(dir, "declined.txt")) {
		t.Fatal("a declined command ran")
	}
	if s := f.screen(); strings.Contains(s, "verified") || !strings.Contains(s, "└─ 1 Would write") {
		t.Fatalf("the tree is marked though nothing ran:\n%s", s)
	}
}

// esc while a run is under way kills the command and marks what did not
// finish as not run; a timeout is a failure that says so.
func TestVerifyStopAndTimeout(t *testing.T) {
	f, dir := startVerifyFlow(t, verifyState(`      - item: "Hangs"
        check:
          type: command
          value: "echo $$ > shell.pid; sleep 30"
      - item: "After"
        check:
          type: command
          value: "true"
`), Options{VerifyTimeout: 20 * time.Second})
	f.keys("5", "V", "y")
	f.waitFor("running… — command echo $$ > shell.pid; sleep 30")
	// The command has begun (the screen says so when it is started; on a
	// busy machine the shell may not have run its first word yet).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(filepath.Join(dir, "shell.pid")); err == nil && len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	t0 := time.Now()
	f.keys("esc")
	f.waitFor("· stopped verified", "· 1 Hangs", "· 2 After", "verify stopped: 2 checks not run")
	if took := time.Since(t0); took > 10*time.Second {
		t.Fatalf("stopping took %v", took)
	}

	f2, _ := startVerifyFlow(t, verifyState(`      - item: "Hangs"
        check:
          type: command
          value: "sleep 30"
`), Options{VerifyTimeout: 300 * time.Millisecond})
	f2.keys("5", "V", "y")
	f2.waitFor("✗ FAIL verified", "✗ timed out after 0.3s; its process group was killed")
}

// Results stay through the loop's writes; when the loop changes the
// base_case itself, the view says so and marks only what is still the
// same.
func TestVerifyResultsAfterTheLoopWrites(t *testing.T) {
	f, _ := startVerifyFlow(t, verifyState(`      - item: "One"
        check:
          type: command
          value: "true"
      - item: "Two"
        check:
          type: command
          value: "exit 1"
`), Options{})
	f.keys("5", "V", "y")
	f.waitFor("✓ 1 One", "✗ 2 Two")
	f.rewrite("iteration: 4", "iteration: 5", false)
	f.waitFor("iteration 5/20", "✓ 1 One", "✗ 2 Two")
	f.rewrite(`value: "exit 1"`, `value: "exit 0"`, false)
	s := f.waitFor("the loop has changed the base_case since", "✓ 1 One", "└─ 2 Two")
	if strings.Contains(s, "✗ 2 Two") {
		t.Fatalf("a changed check keeps its old verdict:\n%s", s)
	}
}

// Text from the file is sanitised in the box and in the tree; output too.
func TestVerifySanitises(t *testing.T) {
	f, _ := startVerifyFlow(t, verifyState(`      - item: "Title \e]0;pwned\a here"
        check:
          type: command
          value: "printf '\\033]52;c;Y2xpcA==\\007'; exit 1 # \e[2J"
`), Options{})
	f.keys("5", "V")
	f.waitFor(`exit 1 # \x1b[2J`)
	raw := f.raw()
	if strings.Contains(raw, "\x1b[2J") || strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\a") {
		t.Fatalf("a raw escape sequence reached the screen: %q", raw)
	}
	f.keys("y")
	f.waitFor(`✗ 1 Title \x1b]0;pwned\x07 here`)
	f.keys("enter")
	f.waitFor(`│ \x1b]52;c;Y2xpcA==\x07`)
	raw = f.raw()
	if strings.Contains(raw, "\x1b]52") || strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\a") {
		t.Fatalf("a raw escape sequence reached the screen: %q", raw)
	}
}

// raw is the screen unstripped (NoColor: the program itself emits no
// escape sequence, so any there came from the file).
func (f *flow) raw() string {
	reply := make(chan string, 1)
	f.tm.Send(rawReq{reply: reply})
	select {
	case s := <-reply:
		return s
	case <-time.After(5 * time.Second):
		f.t.Fatal("the program did not answer")
	}
	return ""
}

func TestVerifyKeyOnAPhaseLoopAndWithoutBaseCase(t *testing.T) {
	p := loadedModel(t, "seed-phase-loop.json", 100, 30)
	press(p, "V")
	if p.cur.topDialog() != nil || !strings.Contains(p.cur.status.Text, "does not apply to a phase loop") {
		t.Errorf("V on a phase loop: dialog %v, status %q", p.cur.topDialog(), p.cur.status.Text)
	}
	m := loadedModel(t, "rich.md", 100, 30)
	m.cur.st.Objective.BaseCase = model.BaseCase{}
	press(m, "V")
	if m.cur.topDialog() != nil || !strings.Contains(m.cur.status.Text, "no base_case") {
		t.Errorf("V without a base_case: dialog %v, status %q", m.cur.topDialog(), m.cur.status.Text)
	}
	m = loadedModel(t, "rich.md", 100, 30)
	press(m, "V")
	if d, ok := m.cur.topDialog().(*kitDialog); !ok || dialogPlace(d) != inVerify {
		t.Fatalf("V from the graph view: no confirmation (%v)", m.cur.topDialog())
	}
	out := screen(m)
	for _, want := range []string{"go test ./...", "go test -race ./billing/...", "grep -r /debug ./cmd", "Also: 2 file checks (no command); 1 item judged by a person"} {
		if !strings.Contains(out, want) {
			t.Errorf("the box lacks %q:\n%s", want, out)
		}
	}
	checkFits(t, out, 100, 30)
	press(m, "esc")
	if m.cur.topDialog() != nil {
		t.Fatal("esc left the box open")
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	press(m, "V")
	checkFits(t, screen(m), 60, 20)
	press(m, "esc", "5")
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 50})
	press(m, "?")
	if out := screen(m); !strings.Contains(out, "verify base_case now") {
		t.Errorf("the objective view's help does not list V:\n%s", out)
	}
}
