package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/agent"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
)

// Costs is what the loop's work took and used: the time each atom was
// worked and each iteration took (from the versions, always), and — when
// Claude Code's transcripts of the loop's sessions were read
// (AddActivity) — the tokens each used, with an estimated cost from a
// dated price table.
type Costs struct {
	// Transcripts says whether the tokens are known: "read"; else why
	// not: "off" (--no-activity), "none" (no transcripts of the loop
	// found), "not read" (Build alone). Note says it in a line.
	Transcripts string `json:"transcripts"`
	Note        string `json:"note,omitempty"`
	// Estimate is true wherever a cost is given: it is priced from the
	// table of PricesDate, not billed.
	Estimate     bool   `json:"estimate"`
	PricesDate   string `json:"prices_date,omitempty"`
	PricesSource string `json:"prices_source,omitempty"`
	Sessions     int    `json:"sessions"`
	// IterationsFrom is where the iterations of the tokens came from
	// (agent.Activity.IterationsFrom).
	IterationsFrom string `json:"iterations_from,omitempty"`
	// Total: Seconds is the run's span, the first version to the last.
	Total      Spent           `json:"total"`
	Atoms      []AtomSpent     `json:"atoms"`
	Iterations []IterSpent     `json:"iterations"`
	Models     []ModelSpent    `json:"models"`
	ByFamily   []string        `json:"by_family,omitempty"`
	Unpriced   []string        `json:"unpriced,omitempty"`
	workOrder  []string        // atoms in the order their work began
	worked     map[string]span // by atom
}

// Spent is a time and, when the transcripts were read, what was used in
// it.
type Spent struct {
	// Seconds, rounded; -1: not known (one version only).
	Seconds float64 `json:"seconds"`
	Usage   *Usage  `json:"usage"`
}

// AtomSpent is one atom's: the time its versions had it in_progress
// (counted to the last version while it still is: InProgress) and the
// tokens attributed to it. Atom "" holds what no atom was worked on
// (coordination, or several atoms in progress at once).
type AtomSpent struct {
	Atom       string `json:"atom"`
	InProgress bool   `json:"in_progress,omitempty"`
	Spent
}

// IterSpent is one iteration's: from its first version to the next
// iteration's first, and the tokens of the responses in that time.
// Iteration 0 is before the first.
type IterSpent struct {
	N int `json:"n"`
	Spent
}

// ModelSpent is one model's tokens and their estimated cost (none when
// the price table has no row for it: Unpriced).
type ModelSpent struct {
	Model    string `json:"model"`
	Usage    Usage  `json:"usage"`
	Unpriced bool   `json:"unpriced,omitempty"`
}

// Usage is tokens and their estimated cost (to a millionth of a dollar:
// the same on every platform). Responses counts API
// responses (0 in a model's line: they are counted per atom and
// iteration only).
type Usage struct {
	Responses  int     `json:"responses,omitempty"`
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	CacheWrite int64   `json:"cache_write"`
	CacheRead  int64   `json:"cache_read"`
	Total      int64   `json:"total"`
	CostUSD    float64 `json:"cost_usd"`
}

type span struct {
	d    time.Duration
	open bool
}

// work times each atom's work and each iteration from the versions: an
// atom is worked from the first version that has it in_progress to the
// first that does not (resolved, back to pending, or gone), as often as
// that happens; one still in progress counts to the last version.
func (r *Report) work(states []*model.State, times []time.Time) {
	c := &r.Costs
	c.Transcripts, c.Note = "not read", "Claude Code's transcripts of the loop were not read: no tokens or cost"
	c.Total.Seconds, c.worked = -1, map[string]span{}
	defer r.fillCosts(nil, nil)
	if len(states) < 2 {
		return
	}
	c.Total.Seconds = seconds(times[len(times)-1].Sub(times[0]))
	since := map[string]time.Time{}
	for i, st := range states {
		now := map[string]bool{}
		for _, a := range st.Atoms {
			if a.Status != model.StatusInProgress {
				continue
			}
			now[a.ID] = true
			if _, ok := since[a.ID]; !ok {
				since[a.ID] = times[i]
				if _, seen := c.worked[a.ID]; !seen {
					c.workOrder = append(c.workOrder, a.ID)
					c.worked[a.ID] = span{}
				}
			}
		}
		for id, from := range since {
			if !now[id] {
				s := c.worked[id]
				s.d += max(times[i].Sub(from), 0)
				c.worked[id] = s
				delete(since, id)
			}
		}
	}
	last := times[len(times)-1]
	for id, from := range since {
		c.worked[id] = span{d: c.worked[id].d + max(last.Sub(from), 0), open: true}
	}
}

// fillCosts makes the rows: the atoms worked in the order their work
// began, then those only the transcripts name, then what no atom was
// worked on; the iterations by number. a and p are the activity and its
// prices (nil: no tokens).
func (r *Report) fillCosts(a *agent.Activity, p *agent.Prices) {
	c := &r.Costs
	// use is what u used (none counted: zeros), nil without an activity.
	use := func(u agent.Usage) *Usage {
		if a == nil {
			return nil
		}
		return usageOf(u, p)
	}
	var byAtom map[string]agent.Usage
	var byIter map[int]agent.Usage
	if a != nil {
		byAtom, byIter = a.ByAtom, a.ByIteration
	}
	c.Atoms = []AtomSpent{}
	for _, id := range c.workOrder {
		w := c.worked[id]
		c.Atoms = append(c.Atoms, AtomSpent{Atom: id, InProgress: w.open, Spent: Spent{Seconds: seconds(w.d), Usage: use(byAtom[id])}})
	}
	if a != nil {
		var extra []string
		for id := range a.ByAtom {
			if _, timed := c.worked[id]; !timed && id != "" {
				extra = append(extra, id)
			}
		}
		slices.Sort(extra)
		for _, id := range extra {
			c.Atoms = append(c.Atoms, AtomSpent{Atom: id, Spent: Spent{Seconds: -1, Usage: use(byAtom[id])}})
		}
		if u, ok := byAtom[""]; ok {
			c.Atoms = append(c.Atoms, AtomSpent{Spent: Spent{Seconds: -1, Usage: use(u)}})
		}
	}
	secs := map[int]float64{}
	var ns []int
	for _, it := range r.Iterations {
		if _, ok := secs[it.N]; !ok {
			ns = append(ns, it.N)
		}
		secs[it.N] = seconds(it.End.Sub(it.Start))
	}
	for n := range byIter {
		if _, ok := secs[n]; !ok {
			ns = append(ns, n)
			secs[n] = -1
		}
	}
	slices.Sort(ns)
	c.Iterations = []IterSpent{}
	for _, n := range ns {
		c.Iterations = append(c.Iterations, IterSpent{N: n, Spent: Spent{Seconds: secs[n], Usage: use(byIter[n])}})
	}
	c.Models = []ModelSpent{}
	if a == nil {
		return
	}
	c.Total.Usage = usageOf(a.Total, p)
	cost := a.Total.Cost(p)
	c.ByFamily, c.Unpriced = cost.ByFamily, cost.Unpriced
	for _, m := range a.Total.ByModel {
		u := usageOf(agent.Usage{ByModel: []agent.ModelTokens{m}}, p)
		c.Models = append(c.Models, ModelSpent{Model: m.Model, Usage: *u, Unpriced: slices.Contains(c.Unpriced, m.Model)})
	}
}

func usageOf(u agent.Usage, p *agent.Prices) *Usage {
	t := u.Tokens()
	return &Usage{Responses: u.Responses, Input: t.Input, Output: t.Output, CacheWrite: t.CacheCreation, CacheRead: t.CacheRead,
		Total: t.Total(), CostUSD: math.Round(u.Cost(p).USD*1e6) / 1e6}
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()) }

// IterationMarks are the loop's iterations over time as the versions
// have them (the first version's, then each change of
// control.iteration): what agent.Options.Iterations takes, so that the
// tokens are counted to the same iterations as the report's.
func (r *Report) IterationMarks() []agent.IterationMark {
	var out []agent.IterationMark
	for i, p := range r.Points {
		if i == 0 || p.Iteration != r.Points[i-1].Iteration {
			out = append(out, agent.IterationMark{At: p.At, N: p.Iteration})
		}
	}
	return out
}

// AtomIDs are the ids of the final state's atoms, then of those no
// longer in it that a version had in progress: what agent.Options.Atoms
// takes.
func (r *Report) AtomIDs() []string {
	var ids []string
	for _, a := range slices.Concat(r.Resolved, r.Unresolved) {
		ids = append(ids, a.ID)
	}
	for _, id := range r.Costs.workOrder {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// AddActivity adds the tokens Claude Code's transcripts of the loop's
// sessions show (agent.Open, with IterationMarks) and their estimated
// cost at the prices p; a nil a, or one that found no transcripts, says
// so instead (the times stay).
func (r *Report) AddActivity(a *agent.Activity, p *agent.Prices) {
	c := &r.Costs
	if a == nil {
		return
	}
	if !a.Found {
		c.Transcripts = "none"
		c.Note = "no Claude Code transcripts of the loop were found: no tokens or cost"
		r.Notes = append(r.Notes, a.Notes...)
		return
	}
	if p == nil {
		p = agent.DefaultPrices()
	}
	c.Transcripts, c.Note = "read", ""
	c.Estimate, c.PricesDate, c.PricesSource = true, p.Date, p.Source
	c.Sessions, c.IterationsFrom = len(a.Sessions), a.IterationsFrom
	r.fillCosts(a, p)
	for _, n := range a.Notes {
		r.Notes = append(r.Notes, "transcripts: "+n)
	}
	if n := a.NotRecognised(); n != "" {
		r.Notes = append(r.Notes, "transcripts: "+n)
	}
	if len(c.ByFamily) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("priced by their family (no row of the price table names them): %s", strings.Join(c.ByFamily, ", ")))
	}
	if len(c.Unpriced) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("no price for %s: their tokens are counted, their cost is not", strings.Join(c.Unpriced, ", ")))
	}
}

// NoActivity says that the transcripts were not read (--no-activity).
func (r *Report) NoActivity() {
	r.Costs.Transcripts = "off"
	r.Costs.Note = "--no-activity: Claude Code's transcripts were not read, so no tokens or cost"
}

// usd is an estimated cost as the reports write it: cents for a dollar
// or more, a hundredth of a cent below.
func usd(x float64) string {
	if x >= 1 {
		return fmt.Sprintf("$%.2f", x)
	}
	return fmt.Sprintf("$%.4f", x)
}

// took is a time in seconds as the reports write it, "—" when not known.
func took(s float64) string {
	if s < 0 {
		return "—"
	}
	return (time.Duration(s) * time.Second).String()
}

// worked is an atom's time worked, saying when it is still in progress.
func (a AtomSpent) worked() string {
	if a.InProgress {
		return took(a.Seconds) + " (still in progress)"
	}
	return took(a.Seconds)
}

// tokensRead says whether the costs have tokens.
func (c *Costs) tokensRead() bool { return c.Transcripts == "read" }

// explain says where the times and, when read, the tokens come from, with
// the price table's date: esc escapes text for the format.
func (c *Costs) explain(esc func(string) string) string {
	s := "Times come from the state file's versions: an atom is worked while they have it in progress " +
		"(from the version that marks it so to the one that resolves it or sets it back to pending), and an iteration lasts " +
		"from its first version to the next iteration's."
	if !c.tokensRead() {
		return s
	}
	src := ""
	if c.PricesSource != "" {
		src = " (" + esc(c.PricesSource) + ")"
	}
	from := ""
	if c.IterationsFrom == "transcript" {
		from = " Without versions to tell them, the tokens' iterations are read from the transcript."
	}
	return s + fmt.Sprintf(" Tokens come from Claude Code's transcripts of the loop's %s; every cost is an estimate "+
		"at the prices of %s%s, not a bill.%s", textfmt.Plural(c.Sessions, "session"), esc(c.PricesDate), src, from)
}

// totalLine is the line of the totals, after "Total:" (esc escapes the
// price table's date, which a prices file gives, for the format).
func (c *Costs) totalLine(esc func(string) string) string {
	var parts []string
	if u := c.Total.Usage; u != nil {
		parts = append(parts, textfmt.Plural(u.Responses, "response"),
			fmt.Sprintf("input %d · output %d · cache write %d · cache read %d", u.Input, u.Output, u.CacheWrite, u.CacheRead),
			fmt.Sprintf("≈ %s (estimate, prices of %s)", usd(u.CostUSD), esc(c.PricesDate)))
	}
	if c.Total.Seconds >= 0 {
		parts = append(parts, took(c.Total.Seconds)+" from the first version to the last")
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " · ")
}

// cells are a usage's cells after the time: responses, the four
// token counts and the estimated cost.
func (u *Usage) cells() []string {
	return []string{fmt.Sprint(u.Responses), fmt.Sprint(u.Input), fmt.Sprint(u.Output), fmt.Sprint(u.CacheWrite),
		fmt.Sprint(u.CacheRead), usd(u.CostUSD)}
}

// cells are a model's cells after its name: the four token counts and
// the estimated cost, or "no price".
func (m ModelSpent) cells() []string {
	cells := m.Usage.cells()[1:]
	if m.Unpriced {
		cells[len(cells)-1] = "no price"
	}
	return cells
}

// usageHeads are the heads of cells.
var usageHeads = []string{"responses", "input", "output", "cache write", "cache read", "cost (estimate)"}

// none is what a table of no rows says instead: that only one version
// was read, else empty.
func (c *Costs) none(empty string) string {
	if c.Total.Seconds < 0 {
		return "only one version was read: no times"
	}
	return empty
}

// label is an atom's row name (esc escapes the id for the format).
func (a AtomSpent) label(esc func(string) string) string {
	if a.Atom == "" {
		return "no atom (coordination, or several at once)"
	}
	return esc(a.Atom)
}

// label is an iteration's row name.
func (it IterSpent) label() string {
	if it.N == 0 {
		return "0 (before the first)"
	}
	return fmt.Sprint(it.N)
}
