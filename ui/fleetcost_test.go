package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/ui/fleettable"
	"github.com/charmbracelet/x/exp/golden"
)

// fleetActivityModel is fleetModel with the loops' sessions read (the
// table then has its cost columns): rows carry their activity as the
// watcher gives it.
func fleetActivityModel(t testing.TB, w, h int, rows []fleet.Row) *Model {
	t.Helper()
	m := New(Options{Fleet: &FleetOptions{Dirs: []string{"/work/projects"}, Options: fleet.Options{Depth: 4,
		Activity: func(string) (agent.Options, []string, bool) { return agent.Options{}, nil, false }}},
		NoColor: true, Now: func() time.Time { return fixedNow }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(fleettable.Ready{})
	m.Update(fleettable.Rows{Rows: rows})
	return m
}

// costRows are fleetRows with what their sessions show: costs of every
// size, a loop whose session waits for a person (over its paused state),
// one with no transcripts found, and the phase loop unread.
func costRows() []fleet.Row {
	rows := fleetRows()
	rep := func(usd float64, tokens int64) *agent.Report {
		return &agent.Report{Found: true, Sessions: 1, Responses: 40, Tokens: agent.ReportTokens{Total: tokens},
			Cost: agent.Cost{USD: usd, Estimate: true, PricesDate: "2026-11-27"}}
	}
	for i, r := range rows {
		switch r.Name {
		case "auth":
			rows[i] = fleet.WithActivity(r, rep(12.345, 4_321_000))
		case "docs":
			rows[i] = fleet.WithActivity(r, rep(1234.5, 98_765_432))
		case "api/payments":
			rows[i] = fleet.WithActivity(r, rep(0.004, 950))
		case "web/search":
			rows[i] = fleet.WithActivity(r, &agent.Report{Cost: agent.Cost{Estimate: true, PricesDate: "2026-11-27"}})
		case "cli/export":
			a := rep(3.5, 812_000)
			a.NeedsYou = &agent.NeedsYou{Kind: "permission_prompt", Message: "Claude needs your permission to use Bash", Since: fixedNow.Add(-2 * time.Minute)}
			a.Now = &agent.ReportNow{Agent: "worker", Atom: "A5", Tool: "Bash", Summary: "rm -rf build"}
			rows[i] = fleet.WithActivity(r, a)
		case "evil\x1b]0;pwned\x07":
			a := rep(150000, 1)
			a.NeedsYou = &agent.NeedsYou{Kind: "idle_prompt", Message: "asks \x1b[31mred\x1b[0m", Since: fixedNow.Add(-time.Hour)}
			rows[i] = fleet.WithActivity(r, a)
		}
	}
	return rows
}

// The cost column (and the tokens beside it when there is room), the
// first to go on a narrow pane, and the loops whose session waits for a
// person first of all, marked ? with what the session asks.
func TestFleetTableCostGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		w, h int
		cost bool
		tok  bool
	}{{"wide", 160, 30, true, true}, {"medium", 100, 24, true, false}, {"narrow", 80, 24, false, false}} {
		t.Run(c.name, func(t *testing.T) {
			m := fleetActivityModel(t, c.w, c.h, costRows())
			out := screen(m)
			checkFits(t, out, c.w, c.h)
			head := strings.Split(out, "\n")[1]
			if strings.Contains(head, "≈cost") != c.cost || strings.Contains(head, "tokens") != c.tok {
				t.Fatalf("header %q: cost column %v, tokens %v wanted", head, c.cost, c.tok)
			}
			if got := tableNames(m); got[0] != "cli/export" || got[1] != "evil\x1b]0;pwned\x07" {
				t.Fatalf("the loops that wait for a person should come first: %q", got)
			}
			if strings.ContainsAny(out, "\x1b\x07") {
				t.Fatalf("escape reached the screen: %q", out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// Without the loops' sessions read (--no-activity) there is no cost
// column at any width, and the help says nothing of costs.
func TestFleetTableNoActivityNoCost(t *testing.T) {
	for _, w := range []int{80, 160, 220} {
		m := fleetModel(t, w, 30, fleetRows())
		if head := strings.Split(screen(m), "\n")[1]; strings.Contains(head, "cost") || strings.Contains(head, "tokens") {
			t.Fatalf("width %d: header %q", w, head)
		}
	}
	m := fleetActivityModel(t, 160, 60, costRows())
	press(m, "?")
	if out := screen(m); !strings.Contains(out, "≈cost: the estimated cost of each loop's Claude Code sessions since it began, at the prices of 2026-11-27") {
		t.Fatalf("the help should say the cost is an estimate, and from which prices:\n%s", out)
	}
}
