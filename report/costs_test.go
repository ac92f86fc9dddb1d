package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/history"
	"github.com/charmbracelet/x/exp/golden"
)

// costState is a state file of a two-atom loop (A2 depends on A1).
func costState(iteration int, status, a1, a2 string) []byte {
	return fmt.Appendf(nil, `---
objective:
  goal: "Parse the config format"
  base_case:
    checklist:
      - item: "Tests pass"
        check:
          type: command
          value: "go test ./parser/..."
  constraints:
    max_iterations: 10
    max_parallel_agents: 2
    max_stall_count: 3
control:
  status: %s
  iteration: %d
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
  - id: A1
    description: "Write the parser"
    status: %s
    depends_on: []
  - id: A2
    description: "Test the parser"
    status: %s
    depends_on: [A1]
decompositions: []
or_groups: {}
bindings: {}
trail: []
corrections: []
---

# Original Prompt

Parse the config format.
`, status, iteration, a1, a2)
}

// costDay is the day of the run in the versions and the transcripts.
var costDay = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

// at is the time hh:mm:ss of costDay.
func at(hms string) time.Time {
	t, err := time.Parse(time.TimeOnly, hms)
	if err != nil {
		panic(err)
	}
	return costDay.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second)
}

// costVersions are the versions of the run the transcripts in
// testdata/transcripts record: A1 in progress from 10:00:10 to 10:02:10
// (2m0s), A2 from 10:02:40 to 10:05:40 (3m0s); iteration 1 from 10:00:00
// to 10:02:30 (2m30s), iteration 2 from 10:02:30 to 10:05:50 (3m20s).
func costVersions() []history.Version {
	v := func(hms string, it int, status, a1, a2 string) history.Version {
		return history.Version{At: at(hms), Data: costState(it, status, a1, a2)}
	}
	return []history.Version{
		v("10:00:00", 1, "running", "pending", "pending"),
		v("10:00:10", 1, "running", "in_progress", "pending"),
		v("10:02:10", 1, "running", "resolved", "pending"),
		v("10:02:30", 2, "running", "resolved", "pending"),
		v("10:02:40", 2, "running", "resolved", "in_progress"),
		v("10:05:40", 2, "running", "resolved", "resolved"),
		v("10:05:50", 2, "completed", "resolved", "resolved"),
	}
}

// claudeRoot copies testdata/transcripts into a Claude Code projects
// directory of its own, as the transcripts of a project directory of its
// own (their cwd rewritten to it): the project and the root.
func claudeRoot(t *testing.T) (project, root string) {
	t.Helper()
	project, root = t.TempDir(), t.TempDir()
	name, _ := agent.DirName(project)
	cwd, _ := json.Marshal(project)
	src := filepath.Join("testdata", "transcripts")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, name, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, bytes.ReplaceAll(data, []byte(`"@PROJECT@`), cwd[:len(cwd)-1]), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return project, root
}

// costReport builds the report of costVersions and adds what open reads
// (nil: --no-activity), the way the report command does: the atoms, the
// iterations and the start from the report.
func costReport(t *testing.T, project, root string, open bool) *Report {
	t.Helper()
	r, err := Build("recorded run (costs)", costVersions())
	if err != nil {
		t.Fatal(err)
	}
	if !open {
		r.NoActivity()
		return r
	}
	p := agent.DefaultPrices()
	a := agent.Open(agent.Options{Project: project, Root: root, Quick: true, Atoms: r.AtomIDs(), Iterations: r.IterationMarks(),
		Since: r.Outcome.Start, Prices: p})
	r.AddActivity(a, p)
	for i, n := range r.Notes { // the temporary directories, named for the golden files
		r.Notes[i] = strings.NewReplacer(project, "/home/u/parser", root, "/home/u/.claude/projects").Replace(n)
	}
	return r
}

// million prices a count of tokens at a rate in dollars per million.
func million(tokens, rate float64) float64 { return tokens * rate / 1e6 }

// The fixture's responses, added up by hand (see the transcripts): opus
// 4.5 at 5/25/6.25/0.50 a million (input, output, cache write, cache
// read), sonnet 4.5 at 3/15/3.75/0.30, haiku 4.5 at 1/5/1.25/0.10. The
// response before the first version (09:59:55) is not the run's; the one
// written on two lines (msg_C1) counts once.
var (
	opus = func(in, out, cw, cr float64) float64 {
		return million(in, 5) + million(out, 25) + million(cw, 6.25) + million(cr, 0.5)
	}
	sonnet = func(in, out, cw, cr float64) float64 {
		return million(in, 3) + million(out, 15) + million(cw, 3.75) + million(cr, 0.3)
	}
	haiku = func(in, out, cw, cr float64) float64 {
		return million(in, 1) + million(out, 5) + million(cw, 1.25) + million(cr, 0.1)
	}

	// A1: the coordinator's Task and resolve (opus), the worker's two (sonnet).
	wantA1 = Usage{Responses: 4, Input: 4 + 6 + 2 + 2, Output: 60 + 300 + 50 + 30, CacheWrite: 4000, CacheRead: 2000 + 4300 + 2100,
		CostUSD: opus(4+2, 60+30, 0, 2000+2100) + sonnet(6+2, 300+50, 4000, 4300)}
	// A2: the coordinator's Task and resolve (opus), the worker's two (haiku).
	wantA2 = Usage{Responses: 4, Input: 4 + 3 + 1 + 2, Output: 60 + 100 + 20 + 30, CacheWrite: 3000, CacheRead: 2000 + 3100 + 2100,
		CostUSD: opus(4+2, 60+30, 0, 2000+2100) + haiku(3+1, 100+20, 3000, 3100)}
	// No atom: the main thread's two Tasks and each coordinator's mark in
	// progress (none was in progress when it was written).
	wantNone = Usage{Responses: 4, Input: 10 + 5 + 10 + 5, Output: 20 + 40 + 20 + 40, CacheWrite: 1000 + 2000 + 500, CacheRead: 1000 + 1500,
		CostUSD: opus(10+5+10+5, 20+40+20+40, 1000+2000+500, 1000+1500)}
	wantIt1 = Usage{Responses: 6, Input: 10 + 5 + 4 + 6 + 2 + 2, Output: 20 + 40 + 60 + 300 + 50 + 30, CacheWrite: 1000 + 2000 + 4000,
		CacheRead: 2000 + 4300 + 2100, CostUSD: opus(10+5+4+2, 20+40+60+30, 1000+2000, 2000+2100) + sonnet(6+2, 300+50, 4000, 4300)}
	wantIt2 = Usage{Responses: 6, Input: 10 + 5 + 4 + 3 + 1 + 2, Output: 20 + 40 + 60 + 100 + 20 + 30, CacheWrite: 500 + 3000,
		CacheRead: 1000 + 1500 + 2000 + 3100 + 2100, CostUSD: opus(10+5+4+2, 20+40+60+30, 500, 1000+1500+2000+2100) + haiku(3+1, 100+20, 3000, 3100)}
	wantTotal = Usage{Responses: 12, Input: 54, Output: 770, CacheWrite: 10500, CacheRead: 18100,
		CostUSD: opus(42, 300, 3500, 10700) + sonnet(8, 350, 4000, 4300) + haiku(4, 120, 3000, 3100)}
)

func checkUsage(t *testing.T, what string, got *Usage, want Usage) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no usage", what)
		return
	}
	want.Total = want.Input + want.Output + want.CacheWrite + want.CacheRead
	cost := got.CostUSD
	g := *got
	g.CostUSD, want.CostUSD = 0, math.Round(want.CostUSD*1e9)/1e9
	if g != (Usage{Responses: want.Responses, Input: want.Input, Output: want.Output, CacheWrite: want.CacheWrite, CacheRead: want.CacheRead, Total: want.Total}) ||
		math.Abs(cost-want.CostUSD) > 1e-9 {
		t.Errorf("%s: %+v at $%.9f, want %+v", what, g, cost, want)
	}
}

// The report of a run with its transcripts: time, tokens and estimated
// cost per atom and per iteration, each checked against the sums done by
// hand above, and the Markdown, HTML and JSON against their golden files.
func TestCostReport(t *testing.T) {
	project, root := claudeRoot(t)
	r := costReport(t, project, root, true)
	c := r.Costs
	if c.Transcripts != "read" || !c.Estimate || c.PricesDate != "2026-11-27" || c.Sessions != 1 || c.IterationsFrom != "state" {
		t.Fatalf("costs %+v (notes %q)", c, r.Notes)
	}
	if len(c.Atoms) != 3 || c.Atoms[0].Atom != "A1" || c.Atoms[1].Atom != "A2" || c.Atoms[2].Atom != "" {
		t.Fatalf("atoms %+v", c.Atoms)
	}
	if c.Atoms[0].Seconds != 120 || c.Atoms[1].Seconds != 180 || c.Atoms[2].Seconds != -1 || c.Atoms[0].InProgress || c.Atoms[1].InProgress {
		t.Errorf("time worked: %+v", c.Atoms)
	}
	checkUsage(t, "A1", c.Atoms[0].Usage, wantA1)
	checkUsage(t, "A2", c.Atoms[1].Usage, wantA2)
	checkUsage(t, "no atom", c.Atoms[2].Usage, wantNone)
	if len(c.Iterations) != 2 || c.Iterations[0].N != 1 || c.Iterations[0].Seconds != 150 || c.Iterations[1].N != 2 || c.Iterations[1].Seconds != 200 {
		t.Fatalf("iterations %+v", c.Iterations)
	}
	checkUsage(t, "iteration 1", c.Iterations[0].Usage, wantIt1)
	checkUsage(t, "iteration 2", c.Iterations[1].Usage, wantIt2)
	checkUsage(t, "total", c.Total.Usage, wantTotal)
	if c.Total.Seconds != 350 {
		t.Errorf("the run took %vs, want 350", c.Total.Seconds)
	}
	if len(c.Models) != 3 {
		t.Fatalf("models %+v", c.Models)
	}
	for i, want := range []struct {
		model string
		cost  float64
	}{{"claude-opus-4-5-20251101", opus(42, 300, 3500, 10700)}, {"claude-sonnet-4-5-20250929", sonnet(8, 350, 4000, 4300)},
		{"claude-haiku-4-5-20251001", haiku(4, 120, 3000, 3100)}} {
		if m := c.Models[i]; m.Model != want.model || math.Abs(m.Usage.CostUSD-want.cost) > 1e-9 {
			t.Errorf("model %d: %s at $%.9f, want %s at $%.9f", i, m.Model, m.Usage.CostUSD, want.model, want.cost)
		}
	}

	var md, page, js bytes.Buffer
	Markdown(&md, r)
	HTML(&page, r)
	JSON(&js, r)
	// The lines a reader checks, with the costs as written from the sums
	// above ($0.0259 is wantA1's 0.025894, …).
	for _, want := range []string{
		"**Total:** 12 responses · input 54 · output 770 · cache write 10500 · cache read 18100 · ≈ " + usd(wantTotal.CostUSD) + " (estimate, prices of 2026-11-27) · 5m50s from the first version to the last",
		"| atom | worked | responses | input | output | cache write | cache read | cost (estimate) |",
		"| A1 | 2m0s | 4 | 14 | 440 | 4000 | 8400 | $0.0259 |",
		"| A2 | 3m0s | 4 | 10 | 210 | 3000 | 7200 | $0.0090 |",
		"| no atom (coordination, or several at once) | — | 4 | 30 | 120 | 3500 | 2500 | $0.0263 |",
		"| 1 | 2m30s | 6 | 29 | 500 | 7000 | 8400 | $0.0462 |",
		"| 2 | 3m20s | 6 | 25 | 270 | 3500 | 9700 | $0.0149 |",
		"| claude-opus-4-5-20251101 | 42 | 300 | 3500 | 10700 | $0.0349 |",
		"every cost is an estimate at the prices of 2026-11-27",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	if usd(wantTotal.CostUSD) != "$0.0612" {
		t.Errorf("the total costs %s, by hand $0.0612", usd(wantTotal.CostUSD))
	}
	for _, want := range []string{`<svg id="atom-bars"`, `<svg id="iteration-bars"`, `<table id="atom-costs">`, `<table id="iteration-costs">`,
		`<table id="model-costs">`, "■ estimated cost", "≈ $0.0259", "(estimate, prices of 2026-11-27)"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	t.Run("md", func(t *testing.T) { golden.RequireEqual(t, md.Bytes()) })
	t.Run("html", func(t *testing.T) { golden.RequireEqual(t, page.Bytes()) })
	t.Run("json", func(t *testing.T) { golden.RequireEqual(t, js.Bytes()) })
}

// Without transcripts — none found, or --no-activity — the report says so
// in one line and still gives the time per atom and per iteration.
func TestCostReportWithoutTranscripts(t *testing.T) {
	project, root := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name, line string
		open       bool
	}{
		{"none", "no Claude Code transcripts of the loop were found: no tokens or cost", true},
		{"off", "--no-activity: Claude Code's transcripts were not read, so no tokens or cost", false},
	} {
		r := costReport(t, project, root, tc.open)
		var text, page bytes.Buffer
		Markdown(&text, r)
		HTML(&page, r)
		if strings.Count(text.String(), "no tokens or cost") != 1 || !strings.Contains(text.String(), "_"+md(tc.line)+"._") {
			t.Errorf("%s: the Markdown does not say %q once:\n%s", tc.name, tc.line, text.String())
		}
		for _, want := range []string{"| A1 | 2m0s |\n", "| A2 | 3m0s |\n", "| 1 | 2m30s |\n", "| 2 | 3m20s |\n", "**Total:** 5m50s from the first version to the last"} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("%s: the Markdown lacks %q", tc.name, want)
			}
		}
		if strings.Contains(text.String(), "$") || strings.Contains(page.String(), "estimated cost") {
			t.Errorf("%s: a cost without transcripts", tc.name)
		}
		if !strings.Contains(page.String(), `<svg id="atom-bars"`) || !strings.Contains(page.String(), `<p id="no-tokens"><em>`+h(tc.line)+`.</em></p>`) {
			t.Errorf("%s: the HTML lacks its bars or its line", tc.name)
		}
		t.Run(tc.name+".md", func(t *testing.T) { golden.RequireEqual(t, text.Bytes()) })
		t.Run(tc.name+".html", func(t *testing.T) { golden.RequireEqual(t, page.Bytes()) })
	}
}

// A model name from a transcript cannot add markup or script to the page,
// nor control characters to the Markdown: it shows as escaped text, in
// the table of models and the note that it has no price.
func TestCostReportEscapesTranscripts(t *testing.T) {
	project, root := claudeRoot(t)
	name, _ := agent.DirName(project)
	file := filepath.Join(root, name, "33333333-3333-4333-8333-333333333333", "subagents", "agent-a0000001.jsonl")
	const hostile = "<script>alert(1)</script><img src=x> & \x1b]0;t\x07\u202e"
	line, _ := json.Marshal(map[string]any{
		"type": "assistant", "isSidechain": true, "agentId": "a0000001", "sessionId": "33333333-3333-4333-8333-333333333333",
		"cwd": project, "uuid": "w-evil", "parentUuid": "w3", "timestamp": "2026-11-21T10:01:00.000Z", "requestId": "req_evil",
		"message": map[string]any{"id": "msg_evil", "type": "message", "role": "assistant", "model": hostile,
			"content": []any{map[string]any{"type": "text", "text": hostile}},
			"usage":   map[string]any{"input_tokens": 7, "output_tokens": 7, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
	})
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Close()

	r := costReport(t, project, root, true)
	if len(r.Costs.Unpriced) != 1 || len(r.Costs.Models) != 4 || !r.Costs.Models[2].Unpriced {
		t.Fatalf("unpriced %q, models %+v", r.Costs.Unpriced, r.Costs.Models)
	}
	var mdOut, page bytes.Buffer
	Markdown(&mdOut, r)
	HTML(&page, r)
	for _, banned := range []string{"<script", "<img", "\x1b", "\x07", "\u202e"} {
		if strings.Contains(page.String(), banned) {
			t.Fatalf("the page contains %q", banned)
		}
	}
	// In Markdown, < only as \< (taken literally).
	if m := regexp.MustCompile(`(^|[^\\])<(script|img)|[\x1b\x07\x{202e}]`).FindString(mdOut.String()); m != "" {
		t.Fatalf("the Markdown contains %q", m)
	}
	for _, want := range []string{`\<script\>alert(1)\</script\>\<img src=x\> & \\x1b\]0;t\\x07\\u202e`} {
		if strings.Count(mdOut.String(), want) != 2 {
			t.Errorf("the Markdown should show %s (escaped for Markdown) in the table of models and the note", want)
		}
	}
	dom := renderDOM(t, page.Bytes())
	if strings.Contains(dom, "<script") || strings.Contains(dom, "<img") {
		t.Fatal("text from a transcript became markup in the browser")
	}
	body := text(dom)
	if !strings.Contains(dom, `<svg id="atom-bars"`) || !strings.Contains(body, "■ time worked ■ estimated cost A1 2m0s ≈ $0.0259 A2 3m0s ≈ $0.0090 no atom — ≈ $0.0263") {
		t.Errorf("the page does not draw the bars per atom:\n%s", body)
	}
	if !strings.Contains(body, "<script>alert(1)</script><img src=x> & \\x1b]0;t\\x07\\u202e 7 7 0 0 no price") ||
		!strings.Contains(body, "no price for <script>") {
		t.Fatalf("the model should show as text, escapes visible, in its row and its note:\n%s", body)
	}
}

// An atom's time worked adds up each time the versions have it in
// progress — set back to pending and taken up again, it counts twice —
// and one still in progress counts to the last version, and says so.
func TestTimeWorkedAcrossRetries(t *testing.T) {
	v := func(hms string, a1, a2 string) history.Version {
		return history.Version{At: at(hms), Data: costState(1, "running", a1, a2)}
	}
	r, err := Build("retries", []history.Version{
		v("10:00:00", "pending", "pending"),
		v("10:00:10", "in_progress", "pending"),  // A1 from 10:00:10
		v("10:00:40", "pending", "pending"),      // to 10:00:40: 30s
		v("10:01:40", "in_progress", "pending"),  // again from 10:01:40
		v("10:02:40", "resolved", "in_progress"), // to 10:02:40: 60s; A2 from 10:02:40
		v("10:03:20", "resolved", "in_progress"), // A2 still, at the last version: 40s
	})
	if err != nil {
		t.Fatal(err)
	}
	a := r.Costs.Atoms
	if len(a) != 2 || a[0].Atom != "A1" || a[0].Seconds != 90 || a[0].InProgress || a[1].Atom != "A2" || a[1].Seconds != 40 || !a[1].InProgress {
		t.Fatalf("atoms %+v", a)
	}
	var b bytes.Buffer
	Markdown(&b, r)
	for _, want := range []string{"| A1 | 1m30s |\n", "| A2 | 40s (still in progress) |\n", "**Total:** 3m20s from the first version to the last"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
}
