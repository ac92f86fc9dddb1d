package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/statefile"
)

// The header says what the loop's session does now, read live from its
// Claude Code transcript, and that it waits for a person when the hook
// says a permission prompt is showing.
func TestHeaderShowsTheSessionsActivityAndNeedsYou(t *testing.T) {
	root, hooks := t.TempDir(), t.TempDir()
	now := time.Now().UTC()
	session := "33333333-3333-4333-8333-333333333333"
	var transcript string
	line := func(at time.Time, typ, msg string) string {
		return fmt.Sprintf(`{"type":%q,"cwd":%%q,"sessionId":%q,"uuid":"u%d","timestamp":%q,"message":%s}`+"\n",
			typ, session, at.UnixNano(), at.Format(time.RFC3339Nano), msg)
	}
	opts := Options{Activity: func(statePath string) (agent.Options, bool) {
		project := statefile.ProjectDir(statePath)
		name, _ := agent.DirName(project)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf(transcript, project, project)
		if err := os.WriteFile(filepath.Join(dir, session+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return agent.Options{Project: project, Root: root, HookFile: agent.HookEventsFile(hooks, project),
			Since: now.Add(-time.Hour), Prices: agent.DefaultPrices()}, true
	}}
	transcript = line(now.Add(-20*time.Second), "user", `{"role":"user","content":[{"type":"text","text":"go on"}]}`) +
		line(now.Add(-18*time.Second), "assistant", `{"id":"msg_0","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_0","name":"Bash","input":{"command":"python3 scripts/update_atom.py A4 in_progress"}}],"usage":{"input_tokens":3,"output_tokens":2}}`) +
		line(now.Add(-17*time.Second), "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"ok"}]}`) +
		line(now.Add(-14*time.Second), "assistant", `{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/p/internal/auth/login.go"}}],"usage":{"input_tokens":5,"output_tokens":7}}`)
	f := startFlow(t, "rich.md", 120, 30, opts)
	f.waitFor("Edit", "login.go")

	// The permission prompt the hook recorded: the loop needs you.
	project := statefile.ProjectDir(f.path)
	if _, err := agent.RecordHook(hooks, agent.HookInput{SessionID: session, CWD: project, HookEventName: "Notification",
		NotificationType: "permission_prompt", Message: "Claude needs your permission to use Edit"}, time.Now().UTC(), time.Second); err != nil {
		t.Fatal(err)
	}
	f.waitFor("⚠ needs you: Claude needs your permission to use Edit")

	// The activity view: the steps of the atom selected in the graph (A4,
	// marked in progress by the loop's script), the agents, the tokens and
	// what they cost, labelled an estimate.
	f.keys("7")
	f.waitFor("steps attributed to A4", "◐ Edit /p/internal/auth/login.go", "agents", "tokens and estimated cost",
		"total      in 8 · out 9", "A4         in 5 · out 7", "costs are estimates")

	// The atom's details say what its work used.
	f.keys("1")
	f.waitFor("activity", "tokens in 5 · out 7", "(estimate)", "Edit /p/internal/auth/login.go")
}

// Without the sessions read (--no-activity), the activity view says so.
func TestActivityViewWithoutActivity(t *testing.T) {
	m := loadedModel(t, "rich.md", 100, 30)
	press(m, "7")
	if out := screen(m); !strings.Contains(out, "not read (--no-activity)") {
		t.Fatalf("the activity view does not say the sessions are not read:\n%s", out)
	}
}
