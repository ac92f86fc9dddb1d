package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// activityFlag is --no-activity: Claude Code's transcripts and hook
// events are not read at all.
type activityFlag struct{ off bool }

func (a *activityFlag) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&a.off, "no-activity", false, "do not read Claude Code's transcripts and hook events (what the loop does now, needs you, tokens and cost)")
}

// activityWindow is how far before the state file's last change the
// transcripts are read when no journal says when the loop began.
const activityWindow = 24 * time.Hour

// readActivity starts reading, on another core, what Claude Code recorded
// of the loop's sessions (agent.Open) while status writes the rest.
func (l *loaded) readActivity(af *activityFlag, jd *journalDirFlag) {
	if l.AoT == nil || af.off {
		return
	}
	o := activityOptions(l, jd)
	ch := make(chan *agent.Activity, 1)
	go func() { ch <- agent.Open(o) }()
	l.actCh = ch
	l.actSince = o.Since
}

// activity is what readActivity read (nil when it was not asked for).
func (l *loaded) activity() *agent.Activity {
	if l.actCh != nil {
		l.act, l.actCh = <-l.actCh, nil
	}
	return l.act
}

// activityOptions are agent.Options for the loop l: its project
// directory, the hook events file, the prices (the prices file over the
// default table), since the loop's first version in its journal, else a
// day before the file's last change.
func activityOptions(l *loaded, jd *journalDirFlag) agent.Options {
	var ids []string
	for _, a := range l.AoT.State.Atoms {
		ids = append(ids, a.ID)
	}
	o, note := oneShotActivity(l.Target.Path, ids)
	if note != "" {
		l.actNotes = append(l.actNotes, note)
	}
	l.actPrices = o.Prices
	o.Since = journalStart(jd.journals(l.Target.Path))
	if o.Since.IsZero() {
		if fi, err := os.Stat(l.Target.Path); err == nil {
			o.Since = fi.ModTime().Add(-activityWindow)
		}
	}
	return o
}

// oneShotActivity are the agent.Options a one-shot command (status,
// report) reads the sessions of the loop at statePath with, whose atoms
// are ids: its project directory, Claude Code's projects directory, the
// hook events file and the prices (the prices file over the default
// table; note says why the default prices are used, "" when they are
// not). Since and Iterations are the caller's.
func oneShotActivity(statePath string, ids []string) (o agent.Options, note string) {
	project := statefile.ProjectDir(statePath)
	// Quick: a one-shot command does not read a transcript of every
	// project Claude Code knows to find this one's (the TUI does).
	o = agent.Options{Project: project, Quick: true, Atoms: ids}
	o.Root, _ = agent.ProjectsRoot()
	if dir, err := hookDir(); err == nil {
		o.HookFile = agent.HookEventsFile(dir, project)
	}
	if p, err := agent.LoadPrices(agent.PricesFile(), false); err == nil {
		o.Prices = p
	} else {
		o.Prices = agent.DefaultPrices()
		note = err.Error() + " (the default prices are used)"
	}
	return o, note
}

// journalStart is the time of the first version of the oldest of the
// journals (each with the one it rotated out), zero when there is none.
func journalStart(journals []string) time.Time {
	var first time.Time
	for _, j := range journals {
		for _, p := range []string{j + ".1", j} {
			f, err := statefile.OpenRegular(p)
			if err != nil {
				continue
			}
			line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
			f.Close()
			var rec struct {
				At time.Time `json:"at"`
			}
			if json.Unmarshal(line, &rec) == nil && !rec.At.IsZero() && (first.IsZero() || rec.At.Before(first)) {
				first = rec.At
			}
			break
		}
	}
	return first
}

// activityJSON is the activity status --json prints.
type activityJSON struct {
	Found          bool                 `json:"found"`
	Since          *time.Time           `json:"since"`
	Dirs           []string             `json:"dirs"`
	Sessions       int                  `json:"sessions"`
	Agents         int                  `json:"agents"`
	Now            *nowJSON             `json:"now"`
	NeedsYou       *agent.NeedsYou      `json:"needs_you"`
	HookSeen       bool                 `json:"hook_seen"`
	Tokens         tokensJSON           `json:"tokens"`
	Responses      int                  `json:"responses"`
	Cost           agent.Cost           `json:"cost"`
	ByAtom         map[string]usageJSON `json:"by_atom"`
	ByIteration    map[string]usageJSON `json:"by_iteration"`
	IterationsFrom string               `json:"iterations_from"`
	Lines          int                  `json:"lines"`
	Unrecognised   int                  `json:"unrecognised"`
	Notes          []string             `json:"notes"`
}

type nowJSON struct {
	Agent   string    `json:"agent"`
	Role    string    `json:"role"`
	Atom    string    `json:"atom"`
	Tool    string    `json:"tool"`
	Summary string    `json:"summary"`
	Since   time.Time `json:"since"`
}

type tokensJSON struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
	Total         int64 `json:"total"`
}

type usageJSON struct {
	Responses int        `json:"responses"`
	Tokens    tokensJSON `json:"tokens"`
	CostUSD   float64    `json:"cost_usd"`
}

func toTokensJSON(t agent.Tokens) tokensJSON {
	return tokensJSON{Input: t.Input, Output: t.Output, CacheCreation: t.CacheCreation, CacheRead: t.CacheRead, Total: t.Total()}
}

// noAtom is the by_atom key of what no atom was worked on (the
// coordination, or several atoms at once).
const noAtom = "(none)"

// activityOf is l's activity as status --json prints it: nil when it
// was not read (--no-activity).
func activityOf(l *loaded) *activityJSON {
	a := l.activity()
	if a == nil {
		return nil
	}
	prices := l.prices()
	out := &activityJSON{
		Found: a.Found, Dirs: nonNil(a.Dirs), Sessions: len(a.Sessions), Agents: len(a.Agents), NeedsYou: a.NeedsYou, HookSeen: a.HookSeen,
		Tokens: toTokensJSON(a.Total.Tokens()), Responses: a.Total.Responses, Cost: a.Total.Cost(prices),
		ByAtom: map[string]usageJSON{}, ByIteration: map[string]usageJSON{}, IterationsFrom: a.IterationsFrom,
		Lines: a.Lines, Unrecognised: a.Unrecognised, Notes: append(slices.Clone(l.actNotes), a.Notes...),
	}
	if !l.actSince.IsZero() {
		s := l.actSince.UTC()
		out.Since = &s
	}
	if n := a.NotRecognised(); n != "" {
		out.Notes = append(out.Notes, n)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	if a.Now != nil {
		out.Now = &nowJSON{Agent: a.Now.Agent, Role: a.Now.Role, Atom: a.Now.Atom, Tool: a.Now.Step.Tool, Summary: a.Now.Step.Summary, Since: a.Now.Since}
	}
	use := func(u agent.Usage) usageJSON {
		return usageJSON{Responses: u.Responses, Tokens: toTokensJSON(u.Tokens()), CostUSD: u.Cost(prices).USD}
	}
	for k, u := range a.ByAtom {
		if k == "" {
			k = noAtom
		}
		out.ByAtom[k] = use(u)
	}
	for k, u := range a.ByIteration {
		out.ByIteration[strconv.Itoa(k)] = use(u)
	}
	return out
}

// prices are the prices the activity was read with.
func (l *loaded) prices() *agent.Prices {
	if l.actPrices != nil {
		return l.actPrices
	}
	return agent.DefaultPrices()
}

// printActivity prints status's activity lines: what runs now, whether
// the loop waits for you, and what it has used.
func printActivity(w io.Writer, l *loaded, now time.Time) {
	a := l.activity()
	if a == nil {
		return
	}
	line := termtext.Line
	for _, n := range l.actNotes {
		fmt.Fprintf(w, "activity  %s\n", line(n))
	}
	if !a.Found {
		// No transcripts (a loop run elsewhere, or not by Claude Code):
		// nothing to say but what the hook told.
		if n := a.NeedsYou; n != nil {
			fmt.Fprintf(w, "needs you ⚠ %s (%s ago)\n", line(n.Message), textfmt.Ago(now.Sub(n.Since)))
		}
		return
	}
	if n := a.Now; n != nil {
		fmt.Fprintf(w, "activity  ◐ %s: %s · %s\n", line(n.Agent), line(n.Step.Line()), textfmt.Ago(now.Sub(n.Since)))
	} else {
		fmt.Fprintf(w, "activity  nothing running (%s)\n", textfmt.Plural(len(a.Sessions), "session"))
	}
	if n := a.NeedsYou; n != nil {
		how := ""
		if n.Inferred {
			how = "; inferred from the transcript: aot-tui hook install tells it exactly"
		}
		fmt.Fprintf(w, "needs you ⚠ %s (%s ago%s)\n", line(n.Message), textfmt.Ago(now.Sub(n.Since)), how)
	}
	t := a.Total.Tokens()
	c := a.Total.Cost(l.prices())
	fmt.Fprintf(w, "tokens    in %s · out %s · cache write %s · cache read %s · ≈ $%.2f (estimate, prices of %s)\n",
		textfmt.Count(t.Input), textfmt.Count(t.Output), textfmt.Count(t.CacheCreation), textfmt.Count(t.CacheRead), c.USD, c.PricesDate)
	if n := a.NotRecognised(); n != "" {
		fmt.Fprintf(w, "          %s\n", n)
	}
}

// uiActivity is ui.Options.Activity: the TUI follows the Claude Code
// sessions of each loop it watches (what the loop does now, whether it
// waits for you), read since a day ago, unless --no-activity.
func (a *activityFlag) uiActivity() func(statePath string) (agent.Options, bool) {
	if a.off {
		return nil
	}
	root, err := agent.ProjectsRoot()
	if err != nil {
		return nil
	}
	prices, err := agent.LoadPrices(agent.PricesFile(), false)
	if err != nil {
		prices = agent.DefaultPrices()
	}
	return func(statePath string) (agent.Options, bool) {
		project := statefile.ProjectDir(statePath)
		o := agent.Options{Project: project, Root: root, Prices: prices, Since: time.Now().Add(-activityWindow)}
		if dir, err := hookDir(); err == nil {
			o.HookFile = agent.HookEventsFile(dir, project)
		}
		return o, true
	}
}
