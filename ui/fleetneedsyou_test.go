package ui

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/sim"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// buildBinary builds aot-tui into a temporary directory of t.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "aot-tui")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/aot-tui").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// transcriptLine is one line of a Claude Code transcript, as the format
// issue 24 describes has it.
func transcriptLine(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// The fleet sees a session that waits for a person: two loops, the
// calmer one changed last (so first); Claude Code (the built aot-tui
// hook, JSON on stdin) records that the other's session waits for a
// permission. Its row jumps to the top as "? needs you" with the
// message, the unfocused pane is alerted once (never again for the same
// wait), and once the session has the tool's result the row clears and
// goes back under the other. Opened from the table, the loop's own view
// says it waits as well.
func TestFleetFlowNeedsYou(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	asker := filepath.Join(root, "asker")
	if _, err := sim.Setup(asker, 4, 1); err != nil {
		t.Fatal(err)
	}
	calm, err := sim.Setup(filepath.Join(root, "calm"), 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(asker, statefile.AoTStateRel), old, old); err != nil {
		t.Fatal(err)
	}
	_ = calm
	// The asker's session: a Bash call made a minute ago, its result not
	// come yet.
	claude, state := t.TempDir(), t.TempDir()
	name, _ := agent.DirName(asker)
	session := "33333333-3333-4333-8333-333333333333"
	transcript := filepath.Join(claude, "projects", name, session+".jsonl")
	began := time.Now().Add(-time.Minute).UTC()
	line := func(typ, uuid string, at time.Time, message map[string]any) string {
		return transcriptLine(t, map[string]any{"type": typ, "uuid": uuid, "sessionId": session, "cwd": asker,
			"timestamp": at.Format(time.RFC3339Nano), "message": message})
	}
	appendTo(t, transcript, line("user", "u1", began, map[string]any{"role": "user", "content": "run the loop"})+
		line("assistant", "u2", began.Add(time.Second), map[string]any{"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "rm -rf build"}}},
			"usage":   map[string]any{"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}))
	hooks := filepath.Join(state, "aot-tui", "hooks")

	activity := func(statePath string) (agent.Options, bool) {
		project := statefile.ProjectDir(statePath)
		return agent.Options{Project: project, Root: filepath.Join(claude, "projects"), Quick: true,
			HookFile: agent.HookEventsFile(hooks, project), Poll: 200 * time.Millisecond}, true
	}
	m := New(Options{
		Fleet: &FleetOptions{Dirs: []string{root}, Options: fleet.Options{Depth: 2, Watch: statefile.WatchOptions{Poll: 200 * time.Millisecond},
			ActivityEvery: 300 * time.Millisecond,
			Activity: func(statePath string) (agent.Options, []string, bool) {
				o, ok := activity(statePath)
				return o, nil, ok
			}}},
		Activity: activity,
		NoColor:  true,
		Watch:    statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond},
	})
	tm := teatest.NewTestModel(t, probe{m}, teatest.WithInitialTermSize(150, 20))
	f := &flow{t: t, tm: tm}
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	order := func(screen string) []string {
		var out []string
		for _, l := range strings.Split(screen, "\n") {
			if l == "" {
				continue
			}
			for _, n := range []string{"asker", "calm"} {
				if strings.HasPrefix(strings.TrimSpace(string([]rune(l)[1:])), n+" ") {
					out = append(out, n)
				}
			}
		}
		return strings.Fields(strings.Join(out, " "))
	}
	screen := f.waitFor("2 loops", "asker", "calm", "$0.01")
	if got := order(screen); strings.Join(got, " ") != "calm asker" {
		t.Fatalf("order %q before the wait:\n%s", got, screen)
	}
	tm.Send(tea.BlurMsg{})
	var raw strings.Builder
	alerts := func() int {
		b, _ := io.ReadAll(tm.Output())
		raw.Write(b)
		return strings.Count(raw.String(), "\x1b]9;aot-tui") // one desktop notification per alert (9;4 is the progress bar)
	}
	alerts()

	// Claude Code notifies: the hook records it.
	hook := exec.Command(bin, "hook")
	hook.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	hook.Stdin = strings.NewReader(`{"session_id":"` + session + `","transcript_path":` + quoteJSON(transcript) + `,"cwd":` + quoteJSON(asker) +
		`,"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`)
	if out, err := hook.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("aot-tui hook: %v %s", err, out)
	}
	screen = f.waitFor("? needs you", "needs you: Claude needs your permission to use Bash", "1 needs attention")
	if got := order(screen); strings.Join(got, " ") != "asker calm" {
		t.Fatalf("order %q while the asker waits:\n%s", got, screen)
	}
	f.waitFor("? needs you") // the rows have been read again since
	time.Sleep(time.Second)  // some more reads of the hook file and the transcript
	if n := alerts(); n != 1 || !strings.Contains(raw.String(), "asker: needs you: Claude needs your permission to use Bash") {
		t.Fatalf("%d alerts, want 1 naming the wait: %q", n, raw.String())
	}

	// Opened from the table, the loop's own view follows its sessions
	// too: its header says it waits for you.
	f.keys("enter")
	f.waitFor("◂ fleet", "needs you: Claude needs your permission to use Bash")
	f.keys("esc")
	f.waitFor("aot-tui fleet │ 2 loops")

	// The call has its result: the session moved on.
	appendTo(t, transcript, line("user", "u3", time.Now().UTC(), map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}}}))
	f.waitGone("? needs you", "the wait should clear once the session moved on")
	f.waitGone("needs attention", "the summary should count no attention")
	screen = f.screen()
	if got := order(screen); strings.Join(got, " ") != "calm asker" {
		t.Fatalf("order %q after the wait:\n%s", got, screen)
	}
	if n := alerts(); n != 1 {
		t.Fatalf("%d alerts after the wait cleared, want still 1: %q", n, raw.String())
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
