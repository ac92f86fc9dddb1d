package fleettable

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Remote hosts' rows join the table with a host column, in one attention
// order with the local ones; two machines may have a loop at the same
// path; a host's rows go when it no longer has them; a lost link marks
// its rows and says why in the title and the preview; a remote row that
// begins to need you alerts as a local one does.
func TestRemoteHostsRowsJoinTheTable(t *testing.T) {
	boxes := []*remote.Host{{Name: "box", Target: "box", Dirs: []string{"/p"}}, {Name: "gpu", Target: "gpu", Dirs: []string{"/p"}}}
	tb := New(Config{Dirs: []string{"/p"}, Options: fleet.Options{Depth: 3}, Hosts: boxes})
	tb.SetSize(140, 30)
	ctx := testContext()
	tb.Update(ctx, Ready{})
	local := row("api", fleet.AttentionNone, time.Minute)
	tb.Update(ctx, Rows{Rows: []fleet.Row{local}})
	onBox := func(r fleet.Row) fleet.Row { r.Host = "box"; return r }
	same := onBox(row("api", fleet.AttentionNone, time.Hour)) // the same path, on box
	stopped := onBox(row("web", fleet.AttentionStopped, time.Hour))
	live := remote.Status{State: remote.Live, Since: now}
	tb.Update(ctx, HostRows{Hosts: []HostState{{Name: "box", Rows: []fleet.Row{same, stopped}, Status: live}}})

	vis := tb.Visible()
	if len(vis) != 3 || vis[0].Key() != stopped.Key() {
		t.Fatalf("rows %v: want 3, the stopped remote loop first", keys(vis))
	}
	if _, ok := tb.Row(same.Key()); !ok {
		t.Fatal("box's api is not told apart from the local api")
	}
	if a := press(tb, "enter"); a.Kind != kit.OpenLoop || a.Loop != stopped.Key() {
		t.Fatalf("enter gives %+v, want to open box's web", a)
	}
	tb.Refresh(ctx, func(int) string { return "" })
	out := tb.View(ctx)
	for _, want := range []string{"host", "box", "local", "on box: /p/web", "gpu connecting"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the table does not show %q:\n%s", want, out)
		}
	}

	// box is lost, with web gone from its last rows: web goes, api is
	// marked, the title and the preview say why.
	lost := remote.Status{State: remote.Lost, Since: now, Reason: "ssh: connect to host box port 22: Connection refused", Retry: now.Add(8 * time.Second)}
	tb.Update(ctx, HostRows{Hosts: []HostState{{Name: "box", Rows: []fleet.Row{same}, Status: lost}}})
	if vis := tb.Visible(); len(vis) != 2 {
		t.Fatalf("rows %v after web went from box", keys(vis))
	}
	tb.Select(same.Key())
	tb.Refresh(ctx, func(int) string { return "" })
	out = tb.View(ctx)
	for _, want := range []string{"box ✗", "box lost", "Connection refused", "trying again at"} {
		if !strings.Contains(out, want) {
			t.Fatalf("the table does not show %q:\n%s", want, out)
		}
	}

	// A remote loop begins to need you: an alert, as for a local one.
	tb.Update(ctx, tea.BlurMsg{})
	waiting := same
	waiting.Attention, waiting.Reason = fleet.AttentionNeedsYou, "needs you: Claude needs your permission to use Bash"
	waiting.Activity = &agent.Report{NeedsYou: &agent.NeedsYou{Kind: "permission_prompt", Message: "Claude needs your permission to use Bash", Since: now}}
	a := tb.Update(ctx, HostRows{Hosts: []HostState{{Name: "box", Rows: []fleet.Row{waiting}, Status: live}}})
	if raw := rawOf(firstRaw(a.Cmd)); !strings.Contains(raw, "needs your permission") {
		t.Fatalf("no alert for a remote loop that needs you: %q", raw)
	}
}

func keys(rows []fleet.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.ReplaceAll(r.Key(), "\x00", "|"))
	}
	return out
}

// firstRaw is the alert among a batch of commands (the table also asks to
// listen to its hosts again).
func firstRaw(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.RawMsg:
		return func() tea.Msg { return msg }
	case tea.BatchMsg:
		for _, c := range msg {
			if r := firstRaw(c); r != nil {
				return r
			}
		}
	}
	return nil
}
