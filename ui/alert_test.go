package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
)

// alertFor loads rich.md, applies change to a second copy of the state and
// returns the raw alert the model emits for it (or "").
func alertFor(t *testing.T, opts Options, blur bool, change func(*model.State)) string {
	t.Helper()
	path := filepath.Join("..", "testdata", "rich.md")
	opts.Target = statefile.Target{Path: path, Kind: statefile.KindAoT}
	opts.NoColor = true
	opts.Now = func() time.Time { return fixedNow }
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	if blur {
		m.Update(tea.BlurMsg{})
	}
	ev := loadEvent(t, path)
	change(ev.Doc.State)
	ev.Facts = model.Derive(ev.Doc.State)
	// onState, not Update: Update also re-arms the watcher listener, a
	// command that blocks until the next file event.
	return rawOf(m.onState(m.cur, ev))
}

// rawOf runs a command (and batches) and returns the raw terminal output
// it asks for.
func rawOf(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return msg.Msg.(string)
	case tea.BatchMsg:
		var out string
		for _, c := range msg {
			if c == nil {
				continue
			}
			if r, ok := c().(tea.RawMsg); ok {
				out += r.Msg.(string)
			}
		}
		return out
	}
	return ""
}

func TestAlertsOnlyWhileUnfocused(t *testing.T) {
	complete := func(s *model.State) { s.Control.Status = model.LoopCompleted }
	raw := alertFor(t, Options{LoopName: "billing"}, true, complete)
	for _, want := range []string{"\a", "\x1b]9;aot-tui: billing: the loop completed\x07", "\x1b]777;notify;aot-tui: billing;the loop completed\x07"} {
		if !strings.Contains(raw, want) {
			t.Fatalf("alert %q lacks %q", raw, want)
		}
	}
	if raw := alertFor(t, Options{}, false, complete); raw != "" {
		t.Fatalf("a focused pane should not be alerted: %q", raw)
	}
	if raw := alertFor(t, Options{Quiet: true}, true, complete); raw != "" {
		t.Fatalf("--quiet should silence alerts: %q", raw)
	}
}

func TestAlertReasons(t *testing.T) {
	cases := []struct {
		name   string
		change func(*model.State)
		want   string
	}{
		{"stopped", func(s *model.State) {
			s.Control.Status = model.LoopStopped
			s.Control.StopReason = "Max \x1b]0;x\x07 stall"
		},
			"the loop stopped: Max \\x1b]0,x\\x07 stall"},
		{"status", func(s *model.State) { s.Control.Status = model.LoopPending }, "status running → pending"},
		{"stall nears the limit", func(s *model.State) { s.Control.StallCount = 2; s.Control.Iteration = 8 }, ""},
		{"nothing", func(s *model.State) { s.Control.Iteration = 8 }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := alertFor(t, Options{LoopName: "x"}, true, c.change)
			if c.want == "" {
				if raw != "" {
					t.Fatalf("unexpected alert %q", raw)
				}
				return
			}
			if !strings.Contains(raw, c.want) {
				t.Fatalf("alert %q lacks %q", raw, c.want)
			}
			// The notification text carries no control characters of its own.
			body := strings.TrimSuffix(strings.TrimPrefix(raw, "\a"), "\x07")
			for _, part := range strings.Split(body, "\x07") {
				part = strings.TrimPrefix(part, "\x1b]9;")
				part = strings.TrimPrefix(part, "\x1b]777;notify;")
				if strings.ContainsAny(part, "\x1b\x07") {
					t.Fatalf("notification text carries a control character: %q", part)
				}
			}
		})
	}
}

func TestStallAlertAtMaxMinusOne(t *testing.T) {
	// rich.md is at stall 2/3 already; start from 1 to see it reach 2.
	path := filepath.Join("..", "testdata", "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true, LoopName: "x",
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	ev := loadEvent(t, path)
	ev.Doc.State.Control.StallCount = 1
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	m.Update(tea.BlurMsg{})
	if raw := rawOf(m.onState(m.cur, loadEvent(t, path))); !strings.Contains(raw, "stall 2/3: one more stalled iteration stops the loop") {
		t.Fatalf("alert %q", raw)
	}
}

func TestLoopNames(t *testing.T) {
	tests := []struct {
		paths, want []string
	}{
		{[]string{"/w/api/.claude/aot-loop-state.md"}, []string{"api"}},
		{[]string{"/w/api/.claude/aot-loop-state.md", "/w/web/.claude/aot-loop-state.md"}, []string{"api", "web"}},
		// two projects called api: their parents tell them apart
		{[]string{"/a/api/.claude/aot-loop-state.md", "/b/api/.claude/aot-loop-state.md", "/w/web/.claude/x.md"},
			[]string{"a/api", "b/api", "web"}},
		// two files in one directory: their names do
		{[]string{"/w/testdata/rich.md", "/w/testdata/seed-phase-loop.json"},
			[]string{"testdata/rich.md", "testdata/seed-phase-loop.json"}},
		{[]string{"/x/.claude/aot-loop-state.md", "/y/x/.claude/aot-loop-state.md"}, []string{"x", "y/x"}},
		// the same project and file name, in and out of .claude: whole paths
		{[]string{"/x/p/.claude/aot-loop-state.md", "/x/p/aot-loop-state.md"}, []string{"/x/p/.claude/aot-loop-state.md", "/x/p/aot-loop-state.md"}},
	}
	for _, tt := range tests {
		if got := loopNames(tt.paths); !slices.Equal(got, tt.want) {
			t.Errorf("loopNames(%q) = %q, want %q", tt.paths, got, tt.want)
		}
	}
}

// The loop bar always shows the loop on screen, however many are watched.
func TestLoopBarShowsTheCurrentLoop(t *testing.T) {
	var targets []statefile.Target
	for _, name := range []string{"payments-service", "billing-frontend", "audit-log-pipeline", "docs-site"} {
		targets = append(targets, statefile.Target{Path: filepath.Join("/w", name, ".claude", "aot-loop-state.md"), Kind: statefile.KindAoT})
	}
	m := New(Options{Targets: targets, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	for i, name := range []string{"payments-service", "billing-frontend", "audit-log-pipeline", "docs-site"} {
		m.switchLoop(i)
		bar := ansi.Strip(m.renderLoopBar())
		if !strings.Contains(bar, fmt.Sprintf("%d %s", i+1, name)) || ansi.StringWidth(bar) > 60 {
			t.Errorf("loop %d: bar %q", i+1, bar)
		}
	}
}

// A loop that begins to wait for a person alerts, once, like the other
// transitions that need one.
func TestNeedsYouAlerts(t *testing.T) {
	path := filepath.Join("..", "testdata", "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true, LoopName: "billing",
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(m.loops[0].envelope(stateMsg{ev: loadEvent(t, path)}))
	m.Update(tea.BlurMsg{})
	waiting := &agent.Activity{NeedsYou: &agent.NeedsYou{Kind: "permission_prompt", Message: "Claude needs your permission to use Bash", Since: fixedNow}}
	raw := rawOf(m.onActivity(m.cur, activityMsg{a: waiting}))
	if want := "\x1b]9;aot-tui: billing: needs you: Claude needs your permission to use Bash\x07"; !strings.Contains(raw, want) {
		t.Fatalf("alert %q lacks %q", raw, want)
	}
	if raw := rawOf(m.onActivity(m.cur, activityMsg{a: waiting})); raw != "" {
		t.Fatalf("the same wait alerted again: %q", raw)
	}
}
