package agent

import (
	"slices"
	"strconv"
	"time"
)

// Report is the activity in brief, as `status --json` prints it under
// "activity" and `status --scan --json` under each loop's: what runs now,
// whether the loop waits for a person, and its tokens with their
// estimated cost, in total, by atom and by iteration. The JSON keys are
// stable. Every string in it is sanitised already, as in Activity.
type Report struct {
	Found bool `json:"found"`
	// Since is when the responses counted begin (the loop's start as
	// far as it is known; null: all).
	Since          *time.Time             `json:"since"`
	Dirs           []string               `json:"dirs"`
	Sessions       int                    `json:"sessions"`
	Agents         int                    `json:"agents"`
	Now            *ReportNow             `json:"now"`
	NeedsYou       *NeedsYou              `json:"needs_you"`
	HookSeen       bool                   `json:"hook_seen"`
	Tokens         ReportTokens           `json:"tokens"`
	Responses      int                    `json:"responses"`
	Cost           Cost                   `json:"cost"`
	ByAtom         map[string]ReportUsage `json:"by_atom"`
	ByIteration    map[string]ReportUsage `json:"by_iteration"`
	IterationsFrom string                 `json:"iterations_from"`
	Lines          int                    `json:"lines"`
	Unrecognised   int                    `json:"unrecognised"`
	Notes          []string               `json:"notes"`
}

// ReportNow is Activity.Now in brief.
type ReportNow struct {
	Agent   string    `json:"agent"`
	Role    string    `json:"role"`
	Atom    string    `json:"atom"`
	Tool    string    `json:"tool"`
	Summary string    `json:"summary"`
	Since   time.Time `json:"since"`
}

// ReportTokens are Tokens with their total.
type ReportTokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
	Total         int64 `json:"total"`
}

// ReportUsage is a Usage in brief: its responses, tokens and estimated
// cost in US dollars.
type ReportUsage struct {
	Responses int          `json:"responses"`
	Tokens    ReportTokens `json:"tokens"`
	CostUSD   float64      `json:"cost_usd"`
}

// NoAtom is the by_atom key of what no atom was worked on (the
// coordination, or several atoms at once).
const NoAtom = "(none)"

func reportTokens(t Tokens) ReportTokens {
	return ReportTokens{Input: t.Input, Output: t.Output, CacheCreation: t.CacheCreation, CacheRead: t.CacheRead, Total: t.Total()}
}

// NewReport is a in brief, its costs at prices p (nil: DefaultPrices);
// since is when the responses counted begin (zero: all), notes come
// before a's own (what the caller noted: a prices file that did not
// read). Nil for a nil a (the activity was not read).
func NewReport(a *Activity, p *Prices, since time.Time, notes []string) *Report {
	if a == nil {
		return nil
	}
	if p == nil {
		p = DefaultPrices()
	}
	out := &Report{
		Found: a.Found, Dirs: a.Dirs, Sessions: len(a.Sessions), Agents: len(a.Agents), NeedsYou: a.NeedsYou, HookSeen: a.HookSeen,
		Tokens: reportTokens(a.Total.Tokens()), Responses: a.Total.Responses, Cost: a.Total.Cost(p),
		ByAtom: map[string]ReportUsage{}, ByIteration: map[string]ReportUsage{}, IterationsFrom: a.IterationsFrom,
		Lines: a.Lines, Unrecognised: a.Unrecognised, Notes: append(slices.Clone(notes), a.Notes...),
	}
	if out.Dirs == nil {
		out.Dirs = []string{}
	}
	if !since.IsZero() {
		s := since.UTC()
		out.Since = &s
	}
	if n := a.NotRecognised(); n != "" {
		out.Notes = append(out.Notes, n)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	if a.Now != nil {
		out.Now = &ReportNow{Agent: a.Now.Agent, Role: a.Now.Role, Atom: a.Now.Atom, Tool: a.Now.Step.Tool, Summary: a.Now.Step.Summary, Since: a.Now.Since}
	}
	use := func(u Usage) ReportUsage {
		return ReportUsage{Responses: u.Responses, Tokens: reportTokens(u.Tokens()), CostUSD: u.Cost(p).USD}
	}
	for k, u := range a.ByAtom {
		if k == "" {
			k = NoAtom
		}
		out.ByAtom[k] = use(u)
	}
	for k, u := range a.ByIteration {
		out.ByIteration[strconv.Itoa(k)] = use(u)
	}
	return out
}
