package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/fleet"
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
// of the loop's sessions (agent.Open) while status writes the rest. Where
// to look is found there too (the prices file, the journal's first
// version: 0.6-1 ms at 10,000 atoms that status --json waited for):
// actSince, actNotes and actPrices are set before the activity is sent,
// so they are read after activity.
func (l *loaded) readActivity(af *activityFlag, jd *journalDirFlag) {
	if l.AoT == nil || af.off {
		return
	}
	ch := make(chan *agent.Activity, 1)
	go func() {
		o := activityOptions(l, jd)
		l.actSince = o.Since
		ch <- agent.Open(o)
	}()
	l.actCh = ch
}

// activity is what readActivity read (nil when it was not asked for).
func (l *loaded) activity() *agent.Activity {
	if l.actCh != nil {
		l.act, l.actCh = <-l.actCh, nil
	}
	return l.act
}

// activityOptions are agent.Options for the loop l (activityFor), its
// notes added to l's.
func activityOptions(l *loaded, jd *journalDirFlag) agent.Options {
	atoms := make([]string, 0, len(l.AoT.State.Atoms))
	for _, a := range l.AoT.State.Atoms {
		atoms = append(atoms, a.ID)
	}
	o, notes := activityFor(l.Target.Path, atoms, jd)
	l.actNotes = append(l.actNotes, notes...)
	l.actPrices = o.Prices
	return o
}

// activityFor are agent.Options for the loop whose state file is
// statePath (status, and status --scan for each loop): its project
// directory, the hook events file, the prices (the prices file over the
// default table; notes say why the default is used), since the loop's
// first version in its journal (jd nil: not looked for), else a day
// before the file's last change.
func activityFor(statePath string, atoms []string, jd *journalDirFlag) (o agent.Options, notes []string) {
	project := statefile.ProjectDir(statePath)
	// Quick: a one-shot command does not read a transcript of every
	// project Claude Code knows to find this one's (the TUI does).
	o = agent.Options{Project: project, Quick: true, Atoms: atoms}
	o.Root, _ = agent.ProjectsRoot()
	if dir, err := hookDir(); err == nil {
		o.HookFile = agent.HookEventsFile(dir, project)
	}
	if p, err := agent.LoadPrices(agent.PricesFile(), false); err == nil {
		o.Prices = p
	} else {
		o.Prices = agent.DefaultPrices()
		notes = append(notes, err.Error()+" (the default prices are used)")
	}
	if jd != nil {
		o.Since = journalStart(jd.journals(statePath))
	}
	if o.Since.IsZero() {
		if fi, err := os.Stat(statePath); err == nil {
			o.Since = fi.ModTime().Add(-activityWindow)
		}
	}
	return o, notes
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

// activityOf is l's activity as status --json prints it (agent.Report,
// which status --scan --json prints for each loop too): nil when it was
// not read (--no-activity).
func activityOf(l *loaded) *agent.Report {
	a := l.activity() // first: the fields below are set with it
	return agent.NewReport(a, l.prices(), l.actSince, l.actNotes)
}

// prices are the prices the activity was read with (read after activity).
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

// fleetActivity is fleet.Options.Activity (aot-tui --scan, status
// --scan): each AoT loop's sessions read as status reads them
// (activityFor: since the loop's first version in its journal); nil with
// --no-activity.
func (a *activityFlag) fleetActivity(jd *journalDirFlag) fleet.ActivityFunc {
	if a.off {
		return nil
	}
	return func(statePath string) (agent.Options, []string, bool) {
		o, notes := activityFor(statePath, nil, jd)
		return o, notes, true
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
