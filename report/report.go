// Package report writes the post-mortem of an AoT loop from the versions
// of its state file (a journal, git, or just the final file): objective
// and outcome, resolved atoms with their bindings, OR decisions with their
// reasons, every correction, what each iteration did (stalls,
// backtracks), the time each atom and iteration took and — from Claude
// Code's transcripts (AddActivity) — the tokens they used and their
// estimated cost, a drawing of the final graph and a chart of the run over
// time — as Markdown for a pull request, JSON, or one self-contained HTML
// page.
package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/dagdraw"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/internal/loopgraph"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// Report is a loop's post-mortem. Strings from the state file are kept as
// they are; each format escapes them for itself.
type Report struct {
	Source    string    `json:"source"`
	Versions  int       `json:"versions"`
	Objective Objective `json:"objective"`
	Outcome   Outcome   `json:"outcome"`
	Resolved  []Atom    `json:"resolved"`
	// Unresolved are the atoms left pending or in progress.
	Unresolved  []Atom       `json:"unresolved"`
	ORDecisions []ORDecision `json:"or_decisions"`
	Corrections []Correction `json:"corrections"`
	// Iterations and Points come from the versions: empty when only the
	// final file was read.
	Iterations []Iteration `json:"iterations"`
	Points     []Point     `json:"points"`
	// Graph is a text drawing of the final graph ("" when too large;
	// GraphNote says why).
	Graph     string `json:"graph"`
	GraphNote string `json:"graph_note,omitempty"`
	// Costs are the time per atom and per iteration, and with the
	// transcripts (AddActivity) the tokens and estimated cost of each.
	Costs Costs    `json:"costs"`
	Notes []string `json:"notes"`
}

// Objective is the loop's objective.
type Objective struct {
	Goal             string   `json:"goal"`
	BackgroundIntent string   `json:"background_intent,omitempty"`
	Deliverables     string   `json:"deliverables,omitempty"`
	DefinitionOfDone string   `json:"definition_of_done,omitempty"`
	BaseCase         []string `json:"base_case"`
	MaxIterations    int      `json:"max_iterations"`
	MaxParallel      int      `json:"max_parallel_agents"`
	MaxStall         int      `json:"max_stall_count"`
	// Changed counts objective corrections: Goal is the final one.
	Changed int `json:"changed"`
}

// Outcome is how the loop ended (or where it stands).
type Outcome struct {
	Status        string    `json:"status"`
	StopReason    string    `json:"stop_reason,omitempty"`
	Iterations    int       `json:"iterations"`
	MaxIterations int       `json:"max_iterations"`
	StallCount    int       `json:"stall_count"`
	MaxStall      int       `json:"max_stall_count"`
	Atoms         int       `json:"atoms"`
	Resolved      int       `json:"resolved"`
	Pending       int       `json:"pending"`
	InProgress    int       `json:"in_progress"`
	Start         time.Time `json:"start,omitzero"`
	End           time.Time `json:"end,omitzero"`
}

// Atom is an atom with its binding.
type Atom struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Summary     string   `json:"summary,omitempty"`
	Artifacts   []string `json:"artifacts,omitempty"`
}

// ORDecision is an OR group, its final choice and every selection the
// trail recorded for it (also those a later objective change cleared).
type ORDecision struct {
	Group    string   `json:"group"`
	Choices  []string `json:"choices"`
	Selected string   `json:"selected"`
	Failed   []string `json:"failed"`
	Trail    []Trail  `json:"trail"`
}

// Trail is one trail entry.
type Trail struct {
	Time     string `json:"timestamp"`
	Selected string `json:"selected"`
	Reason   string `json:"reason"`
	// Cleared is true when a later version no longer had it (an
	// objective change clears the trail).
	Cleared bool `json:"cleared,omitempty"`
}

// Correction is one corrections[] entry.
type Correction struct {
	Time         string `json:"timestamp"`
	Type         string `json:"type"`
	Description  string `json:"description"`
	TrailCleared bool   `json:"trail_cleared"`
	// Iteration is control.iteration when it first appeared (-1: unknown).
	Iteration int `json:"iteration"`
}

// Iteration is what one iteration of the loop did, from the versions.
type Iteration struct {
	N     int       `json:"n"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Unresolved is the count of unresolved atoms at its end; Stall the
	// stall_count the stop hook gave it.
	Unresolved  int      `json:"unresolved"`
	Stall       int      `json:"stall"`
	Resolved    []string `json:"resolved"`
	Added       []string `json:"added"`
	Reset       []string `json:"reset"`
	Backtracks  []string `json:"backtracks"`
	Corrections int      `json:"corrections"`
}

// Point is one version on the chart.
type Point struct {
	At         time.Time `json:"at"`
	Iteration  int       `json:"iteration"`
	Unresolved int       `json:"unresolved"`
	Resolved   int       `json:"resolved"`
	Stall      int       `json:"stall"`
}

// MaxDrawn is the largest graph drawn in a report.
const MaxDrawn = 150

// Build makes the report of versions (oldest first; the last is the final
// state). Versions that do not parse are skipped with a note.
func Build(source string, versions []history.Version) (*Report, error) {
	r := &Report{Source: source}
	var states []*model.State
	var times []time.Time
	for i, v := range versions {
		doc, err := statefile.Parse(v.Data)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("version %d does not parse: skipped", i+1))
			continue
		}
		states = append(states, doc.State)
		times = append(times, v.At)
	}
	if len(states) == 0 {
		return nil, fmt.Errorf("%s: no version of the state file parses", source)
	}
	r.Versions = len(states)
	final := states[len(states)-1]
	facts := model.Derive(final)
	r.objective(final, states)
	r.outcome(final, facts, times)
	r.atoms(final)
	r.orDecisions(final, states)
	r.corrections(states)
	if len(states) > 1 {
		r.iterations(states, times)
	} else {
		r.Notes = append(r.Notes, "only the final state was read: no per-iteration history (aot-tui records a journal beside the state file while it watches; report --journal reads it)")
	}
	r.work(states, times)
	r.drawGraph(final, facts)
	return r, nil
}

func (r *Report) objective(final *model.State, states []*model.State) {
	o := final.Objective
	c := o.Constraints
	r.Objective = Objective{Goal: o.Goal, BackgroundIntent: o.BackgroundIntent, Deliverables: o.Deliverables,
		DefinitionOfDone: o.DefinitionOfDone, BaseCase: BaseCaseLines(o.BaseCase),
		MaxIterations: c.EffectiveMaxIterations(), MaxParallel: c.EffectiveMaxParallelAgents(), MaxStall: c.EffectiveMaxStallCount()}
	for _, x := range final.Corrections {
		if x.Type == model.CorrectionObjective {
			r.Objective.Changed++
		}
	}
}

// BaseCaseLines draws a base_case as an indented checklist.
func BaseCaseLines(b model.BaseCase) []string {
	var out []string
	check := func(c *model.Check) string {
		if c == nil {
			return ""
		}
		switch {
		case c.Value != "":
			return fmt.Sprintf("%s: %s", c.Type, c.Value)
		case c.Criteria != "":
			return fmt.Sprintf("%s: %s (pass ≥ %g)", c.Type, c.Criteria, c.PassThreshold)
		case len(c.Rubric) > 0:
			var names []string
			for _, rc := range c.Rubric {
				names = append(names, rc.Criterion)
			}
			return fmt.Sprintf("%s rubric: %s (pass ≥ %g)", c.Type, strings.Join(names, ", "), c.PassThreshold)
		}
		return string(c.Type)
	}
	var walk func(items []model.ChecklistItem, depth int)
	walk = func(items []model.ChecklistItem, depth int) {
		for _, it := range items {
			pad := strings.Repeat("  ", depth)
			switch it.Kind() {
			case "group":
				out = append(out, pad+it.Item+" (all of)")
				walk(it.Group, depth+1)
			case "any_of":
				out = append(out, pad+it.Item+" (any of)")
				walk(it.AnyOf, depth+1)
			default:
				out = append(out, pad+it.Item+" — "+check(it.Check))
			}
		}
	}
	if b.Legacy != nil {
		return []string{check(b.Legacy)}
	}
	walk(b.Checklist, 0)
	return out
}

func (r *Report) outcome(final *model.State, f *model.Facts, times []time.Time) {
	c := final.Control
	cons := final.Objective.Constraints
	r.Outcome = Outcome{Status: string(c.Status), StopReason: c.StopReason, Iterations: c.Iteration,
		MaxIterations: cons.EffectiveMaxIterations(), StallCount: c.StallCount, MaxStall: cons.EffectiveMaxStallCount(),
		Atoms: f.Counts.Total, Resolved: f.Counts.Resolved, Pending: f.Counts.Pending, InProgress: f.Counts.InProgress}
	if len(times) > 1 {
		r.Outcome.Start, r.Outcome.End = times[0].UTC(), times[len(times)-1].UTC()
	}
}

func (r *Report) atoms(final *model.State) {
	for _, a := range final.Atoms {
		x := Atom{ID: a.ID, Description: a.Description, Status: string(a.Status)}
		if b, ok := final.Binding(a.ID); ok {
			x.Summary, x.Artifacts = b.Summary, b.Artifacts
		}
		if a.Status == model.StatusResolved {
			r.Resolved = append(r.Resolved, x)
		} else {
			r.Unresolved = append(r.Unresolved, x)
		}
	}
}

// orDecisions lists the final OR groups with every trail entry any
// version held for them, in order of appearance.
func (r *Report) orDecisions(final *model.State, states []*model.State) {
	inFinal := map[string]bool{}
	for _, t := range final.Trail {
		inFinal[history.TrailKey(t)] = true
	}
	seen := map[string]bool{}
	byGroup := map[string][]Trail{}
	var order []string
	for _, st := range states {
		for _, t := range st.Trail {
			k := history.TrailKey(t)
			if seen[k] {
				continue
			}
			seen[k] = true
			g := t.ORGroup
			if g == "" {
				g = "(" + t.Type + ")"
			}
			if _, ok := byGroup[g]; !ok {
				order = append(order, g)
			}
			byGroup[g] = append(byGroup[g], Trail{Time: t.Timestamp, Selected: t.Selected, Reason: t.Reason, Cleared: !inFinal[k]})
		}
	}
	done := map[string]bool{}
	for _, g := range final.ORGroups {
		done[g.Name] = true
		r.ORDecisions = append(r.ORDecisions, ORDecision{Group: g.Name, Choices: nonNil(g.Choices), Selected: g.Selected,
			Failed: nonNil(g.Failed), Trail: nonNilTrail(byGroup[g.Name])})
	}
	for _, g := range order {
		if !done[g] {
			r.ORDecisions = append(r.ORDecisions, ORDecision{Group: g, Choices: []string{}, Failed: []string{}, Trail: byGroup[g]})
		}
	}
}

// corrections lists every correction any version held, in order of
// appearance, with the iteration it appeared at.
func (r *Report) corrections(states []*model.State) {
	seen := map[string]bool{}
	for i, st := range states {
		for _, c := range st.Corrections {
			k := history.CorrectionKey(c)
			if seen[k] {
				continue
			}
			seen[k] = true
			it := st.Control.Iteration
			if i == 0 && len(states) > 1 {
				it = -1 // already there when the record began
			}
			r.Corrections = append(r.Corrections, Correction{Time: c.Timestamp, Type: string(c.Type), Description: c.Description,
				TrailCleared: c.TrailCleared, Iteration: it})
		}
	}
}

// iterations sums up each iteration from the versions: what changed
// between consecutive versions belongs to the iteration of the earlier
// one; the stall count is the one the hook wrote when it ended.
func (r *Report) iterations(states []*model.State, times []time.Time) {
	byN := map[int]*Iteration{}
	var order []int
	get := func(n int, at time.Time) *Iteration {
		it, ok := byN[n]
		if !ok {
			it = &Iteration{N: n, Start: at.UTC(), Resolved: []string{}, Added: []string{}, Reset: []string{}, Backtracks: []string{}}
			byN[n] = it
			order = append(order, n)
		}
		return it
	}
	for i, st := range states {
		f := model.Derive(st)
		c := st.Control
		r.Points = append(r.Points, Point{At: times[i].UTC(), Iteration: c.Iteration, Unresolved: f.Counts.Unresolved(),
			Resolved: f.Counts.Resolved, Stall: c.StallCount})
		it := get(c.Iteration, times[i])
		it.End, it.Unresolved, it.Stall = times[i].UTC(), f.Counts.Unresolved(), c.StallCount
		if i == 0 {
			continue
		}
		prev := states[i-1]
		during := get(prev.Control.Iteration, times[i-1])
		during.End = times[i].UTC()
		if c.Iteration != prev.Control.Iteration {
			during.Stall = c.StallCount // the hook's verdict on it
		}
		for _, ch := range history.Compare(prev, st) {
			switch ch.Kind {
			case history.ChangeStatus:
				if strings.HasSuffix(ch.Text, "→ resolved") {
					during.Resolved = append(during.Resolved, ch.Atom)
				} else if strings.HasSuffix(ch.Text, "→ pending") {
					during.Reset = append(during.Reset, ch.Atom)
				}
			case history.ChangeAtomAdded:
				during.Added = append(during.Added, ch.Atom)
			case history.ChangeBacktrack, history.ChangeORSelected:
				during.Backtracks = append(during.Backtracks, ch.Text)
			case history.ChangeCorrection:
				during.Corrections++
			}
		}
	}
	for _, n := range order {
		r.Iterations = append(r.Iterations, *byN[n])
	}
}

func (r *Report) drawGraph(final *model.State, f *model.Facts) {
	if n := len(final.Atoms); n > MaxDrawn {
		r.GraphNote = fmt.Sprintf("the graph has %d atoms: drawings stop at %d (aot-tui draws it, with panning)", n, MaxDrawn)
		return
	}
	r.Graph = dagdraw.Draw(loopgraph.FromState(final, f), dagdraw.Options{NodeWidth: 24}).Plain()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilTrail(s []Trail) []Trail {
	if s == nil {
		return []Trail{}
	}
	return s
}

// counts is the outcome's numbers as both text formats print them after
// the status.
func (o Outcome) counts() string {
	return fmt.Sprintf("iterations %d of %d · stall %d of %d · atoms %d resolved, %d pending, %d in progress",
		o.Iterations, o.MaxIterations, o.StallCount, o.MaxStall, o.Resolved, o.Pending, o.InProgress)
}

// provenance says where the report comes from and the time it spans,
// with the source escaped by esc for the format.
func (r *Report) provenance(esc func(string) string) string {
	out := r.Outcome
	if out.Start.IsZero() {
		return fmt.Sprintf("From %s.", esc(r.Source))
	}
	return fmt.Sprintf("Recorded from %s to %s (%s), %d versions of the state file, from %s.",
		stamp(out.Start), stamp(out.End), out.End.Sub(out.Start).Round(time.Second), r.Versions, esc(r.Source))
}

// namedText is one of the objective's free texts and its heading.
type namedText struct{ name, v string }

// texts are the objective's free texts that are set, in the order the
// reports print them.
func (o Objective) texts() []namedText {
	var out []namedText
	for _, f := range []namedText{{"Background intent", o.BackgroundIntent}, {"Deliverables", o.Deliverables}, {"Definition of done", o.DefinitionOfDone}} {
		if f.v != "" {
			out = append(out, f)
		}
	}
	return out
}
