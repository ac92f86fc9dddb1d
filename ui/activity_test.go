package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/exp/teatest/v2"
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
		fmt.Sprintf("%-12s %7d %7d", "total", 8, 9), "by atom", fmt.Sprintf("%-12s %7d %7d", "A4", 5, 7), "costs are estimates")
	f.keys("s")
	f.waitFor("sorted by tokens · s sorts by name")

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

// The cost tables sort by cost, by tokens, by name in turn (s): an atom
// of a cheap model with many tokens is first by tokens and not by cost;
// by name, atoms go in the file's order and iterations by number.
func TestCostTablesSort(t *testing.T) {
	use := func(model string, in, out int64) agent.Usage {
		return agent.Usage{Responses: 1, ByModel: []agent.ModelTokens{{Model: model, Tokens: agent.Tokens{Input: in, Output: out}}}}
	}
	a := &agent.Activity{
		Total: use("claude-opus-4-1", 0, 0),
		ByAtom: map[string]agent.Usage{
			"A10": use("claude-haiku-4-5", 900_000, 0),   // most tokens, cheap
			"A2":  use("claude-opus-4-1", 1_000, 20_000), // fewest tokens, dearest
			"A3":  use("claude-sonnet-4-5", 50_000, 5_000),
			"":    use("claude-sonnet-4-5", 10, 10),
		},
		ByIteration: map[int]agent.Usage{
			2:  use("claude-haiku-4-5", 100, 0),
			10: use("claude-opus-4-1", 1_000, 1_000),
			1:  use("claude-sonnet-4-5", 20_000, 0),
		},
	}
	order := map[string]int{"A2": 0, "A3": 1, "A10": 2}
	rows := func(by costSort, table string) []string {
		var names []string
		in := false
		for _, line := range costTables(a, agent.DefaultPrices(), order, by, 120, NewStyles(true, true)) {
			f := strings.Fields(line)
			switch {
			case strings.Contains(line, table):
				in = true
			case len(f) == 0:
				in = false
			case in && f[0] == "(no":
				names = append(names, "(no atom)")
			case in && f[0] == "iter":
				names = append(names, f[0]+" "+f[1])
			case in:
				names = append(names, f[0])
			}
		}
		return names
	}
	for _, c := range []struct {
		by          costSort
		atoms, iter string
	}{
		{byCost, "A2 A10 A3 (no atom)", "iter 10 iter 1 iter 2"},
		{byTokens, "A10 A3 A2 (no atom)", "iter 1 iter 10 iter 2"},
		{byName, "A2 A3 A10 (no atom)", "iter 1 iter 2 iter 10"},
	} {
		if got := strings.Join(rows(c.by, "by atom"), " "); got != c.atoms {
			t.Errorf("by %s, atoms in the order %q, want %q", costSortNames[c.by], got, c.atoms)
		}
		if got := strings.Join(rows(c.by, "by iteration"), " "); got != c.iter {
			t.Errorf("by %s, iterations in the order %q, want %q", costSortNames[c.by], got, c.iter)
		}
	}
}

// Tokens count against the iteration the state file says ran: the
// versions the watcher reads mark when it changed (noteIteration), and a
// response after the loop wrote iteration 8 counts for iteration 8.
func TestTokensCountAgainstTheIterationTheFileSays(t *testing.T) {
	root := t.TempDir()
	session := "44444444-4444-4444-8444-444444444444"
	var transcript, project string
	opts := Options{Activity: func(statePath string) (agent.Options, bool) {
		project = statefile.ProjectDir(statePath)
		name, _ := agent.DirName(project)
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		transcript = filepath.Join(dir, session+".jsonl")
		if err := os.WriteFile(transcript, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return agent.Options{Project: project, Root: root, Since: time.Now().Add(-time.Hour), Prices: agent.DefaultPrices()}, true
	}}
	respond := func(id string, input int) {
		at := time.Now().UTC()
		line := fmt.Sprintf(`{"type":"assistant","cwd":%q,"sessionId":%q,"uuid":"u-%s","timestamp":%q,"message":{"id":%q,"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":%d,"output_tokens":1}}}`+"\n",
			project, session, id, at.Format(time.RFC3339Nano), id, input)
		fh, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		if _, err := fh.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	row := func(name string, input int) string { return fmt.Sprintf("%-12s %7d", name, input) }
	f := startFlow(t, "rich.md", 120, 50, opts)
	f.waitFor("iteration 7/20")
	f.keys("7")
	f.waitFor("tokens and estimated cost")
	respond("msg_a", 1234)
	f.waitFor(row("iter 7", 1234))
	f.rewrite("  iteration: 7", "  iteration: 8", false)
	f.waitFor("iteration 8/20")
	respond("msg_b", 4321)
	f.waitFor(row("iter 7", 1234), row("iter 8", 4321))
}

// An agent's line does not say its atom twice.
func TestAgentDescriptionDropsTheAtomItsNameSays(t *testing.T) {
	for _, c := range []struct{ name, desc, want string }{
		{"A5 worker", "A5 Server-side sessions in Redis", "Server-side sessions in Redis"},
		{"A5 worker", "A5 - Server-side sessions", "Server-side sessions"},
		{"A5 worker", "Execute A5 - Server-side sessions", "Execute A5 - Server-side sessions"},
		{"main", "", ""},
	} {
		ag := &agent.Agent{Atom: strings.Fields(c.name)[0], Role: "worker", Description: c.desc}
		if c.name == "main" {
			ag = &agent.Agent{Role: "main"}
		}
		if ag.Name() != c.name {
			t.Fatalf("agent named %q, want %q (the test builds agents wrongly)", ag.Name(), c.name)
		}
		if got := agentDescription(ag); got != c.want {
			t.Errorf("%q / %q: %q, want %q", c.name, c.desc, got, c.want)
		}
	}
}

// While neither the state file nor a transcript changes, the follower
// sends no snapshot: handing it the atoms with every snapshot made it send
// one every 50 ms, each redrawing the frame (issue 26).
func TestActivityQuietWhileNothingChanges(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	path := projectState(t, dir, "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true,
		Watch: statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond},
		Activity: func(statePath string) (agent.Options, bool) {
			return agent.Options{Project: statefile.ProjectDir(statePath), Root: root, Prices: agent.DefaultPrices()}, true
		}})
	var n atomic.Int64
	tm := teatest.NewTestModel(t, loopMsgCounter{probe{m}, &n, func(msg tea.Msg) bool { _, ok := msg.(activityMsg); return ok }}, teatest.WithInitialTermSize(120, 30))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	// The start: the state read, its atoms and iteration handed to the
	// follower, its snapshots taken.
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n.Load() == 0 {
		t.Fatal("no activity snapshot came")
	}
	time.Sleep(300 * time.Millisecond)
	before := n.Load()
	time.Sleep(time.Second)
	if after := n.Load(); after != before {
		t.Fatalf("%d snapshots came in a second while nothing changed", after-before)
	}
}

// The follower is given each version's atoms as the watcher reads it: an
// agent whose prompt names an atom the loop has just added is that atom's
// (a follower left with the first version's atoms calls it "agent").
func TestAgentOfAnAtomJustAdded(t *testing.T) {
	root := t.TempDir()
	now := time.Now().UTC()
	session := "44444444-4444-4444-8444-444444444444"
	var sessionDir string
	opts := Options{Activity: func(statePath string) (agent.Options, bool) {
		project := statefile.ProjectDir(statePath)
		name, _ := agent.DirName(project)
		dir := filepath.Join(root, name)
		sessionDir = filepath.Join(dir, session)
		if err := os.MkdirAll(filepath.Join(sessionDir, "subagents"), 0o755); err != nil {
			t.Fatal(err)
		}
		main := fmt.Sprintf(`{"type":"user","cwd":%q,"sessionId":%q,"uuid":"u1","timestamp":%q,"message":{"role":"user","content":"/enter-recursion"}}`+"\n",
			project, session, now.Add(-time.Minute).Format(time.RFC3339Nano))
		if err := os.WriteFile(filepath.Join(dir, session+".jsonl"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		return agent.Options{Project: project, Root: root, Since: now.Add(-time.Hour), Prices: agent.DefaultPrices()}, true
	}}
	f := startFlow(t, "rich.md", 120, 30, opts)
	f.waitFor("A1")

	// The loop adds A99; the TUI reads it.
	data, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	added := strings.Replace(string(data), "\natoms:\n", "\natoms:\n  - id: A99\n    description: \"Write the adapter\"\n    status: pending\n    depends_on: []\n", 1)
	if err := os.WriteFile(f.path, []byte(added), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() (ok bool) {
		f.withModel(func(m *Model) { ok = m.cur.st != nil && len(m.cur.st.Atoms) > 0 && m.cur.st.Atoms[0].ID == "A99" })
		return ok
	}
	deadline := time.Now().Add(10 * time.Second)
	for !read() {
		if time.Now().After(deadline) {
			t.Fatal("the TUI never read the version with A99")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Then a worker starts on it: its prompt names A99.
	project := statefile.ProjectDir(f.path)
	worker := fmt.Sprintf(`{"type":"user","isSidechain":true,"agentId":"w1","cwd":%q,"sessionId":%q,"uuid":"w1","timestamp":%q,"message":{"role":"user","content":"A99 Write the adapter"}}`+"\n",
		project, session, now.Format(time.RFC3339Nano)) +
		fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"w1","cwd":%q,"sessionId":%q,"uuid":"w2","timestamp":%q,"message":{"id":"msg_w","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_w","name":"Edit","input":{"file_path":"/p/adapter.go"}}],"usage":{"input_tokens":3,"output_tokens":2}}}`+"\n",
			project, session, now.Add(time.Second).Format(time.RFC3339Nano))
	if err := os.WriteFile(filepath.Join(sessionDir, "subagents", "agent-w1.jsonl"), []byte(worker), 0o644); err != nil {
		t.Fatal(err)
	}
	f.keys("7")
	f.waitFor("A99 agent")
}
