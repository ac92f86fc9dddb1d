package agent

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/textfmt"
)

// Tokens are the token counts of one or more API responses, as their
// usage reports them.
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheCreation int64 `json:"cache_creation"`
	CacheRead     int64 `json:"cache_read"`
	// CacheCreation1h is the part of CacheCreation written to the one-hour
	// cache (priced higher), when the transcript says.
	CacheCreation1h int64 `json:"cache_creation_1h,omitempty"`
}

// Total is every token counted once.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheCreation + t.CacheRead }

func (t Tokens) add(u Tokens) Tokens {
	return Tokens{t.Input + u.Input, t.Output + u.Output, t.CacheCreation + u.CacheCreation, t.CacheRead + u.CacheRead, t.CacheCreation1h + u.CacheCreation1h}
}

func (t Tokens) sub(u Tokens) Tokens {
	return Tokens{t.Input - u.Input, t.Output - u.Output, t.CacheCreation - u.CacheCreation, t.CacheRead - u.CacheRead, t.CacheCreation1h - u.CacheCreation1h}
}

// most is the larger of t and u in every field: one response written on
// several lines may report its usage growing; it counts once, at its
// largest.
func (t Tokens) most(u Tokens) Tokens {
	return Tokens{max(t.Input, u.Input), max(t.Output, u.Output), max(t.CacheCreation, u.CacheCreation), max(t.CacheRead, u.CacheRead), max(t.CacheCreation1h, u.CacheCreation1h)}
}

// ModelTokens are the tokens of one model.
type ModelTokens struct {
	Model  string `json:"model"`
	Tokens Tokens `json:"tokens"`
	// Long is the part of Tokens from responses priced at the model's
	// long-prompt rates (Rate.LongPrompt).
	Long Tokens `json:"long_prompt,omitzero"`
}

// Usage is what a set of API responses used: tokens by model (a cost is
// priced per model) and how many responses.
type Usage struct {
	Responses int           `json:"responses"`
	ByModel   []ModelTokens `json:"by_model"`
}

// Tokens is the sum over the models.
func (u Usage) Tokens() Tokens {
	var t Tokens
	for _, m := range u.ByModel {
		t = t.add(m.Tokens)
	}
	return t
}

// Cost is the estimated cost of u at the prices p.
func (u Usage) Cost(p *Prices) Cost { return p.Cost(u) }

// add counts t (responses of them) for model; long: they are priced at
// the long-prompt rates.
func (u *Usage) add(model string, t Tokens, responses int, long bool) {
	u.Responses += responses
	i := slices.IndexFunc(u.ByModel, func(m ModelTokens) bool { return m.Model == model })
	if i < 0 {
		u.ByModel = append(u.ByModel, ModelTokens{Model: model})
		i = len(u.ByModel) - 1
	}
	u.ByModel[i].Tokens = u.ByModel[i].Tokens.add(t)
	if long {
		u.ByModel[i].Long = u.ByModel[i].Long.add(t)
	}
}

func (u Usage) clone() Usage {
	u.ByModel = slices.Clone(u.ByModel)
	return u
}

// Step is one thing an agent did: a tool call (Tool and a short summary of
// its input), with when it started and, once its result came, when it
// ended and whether it failed.
type Step struct {
	At      time.Time `json:"at"`
	Tool    string    `json:"tool"`
	Summary string    `json:"summary"`
	// Atom is the atom the step was attributed to ("" none).
	Atom   string    `json:"atom,omitempty"`
	Done   bool      `json:"done"`
	Failed bool      `json:"failed,omitempty"`
	DoneAt time.Time `json:"done_at,omitzero"`
	id     string
}

// Line is the step as one line: "Bash python3 …update_atom.py A3 resolved".
func (s Step) Line() string {
	if s.Summary == "" {
		return s.Tool
	}
	return s.Tool + " " + s.Summary
}

// Agent is one agent of a session: the session's main thread ("main"),
// or a sub-agent a Task or Agent tool call started (the loop's
// coordinator, its workers, probes and verifier).
type Agent struct {
	// Session is the session's id; ID is "main" or the sub-agent's id
	// (its file's agent-<id>, or for sub-agents older versions wrote into
	// the main file, the uuid of its first line).
	Session string `json:"session"`
	ID      string `json:"id"`
	// Role is what the agent is: "main", the subagent_type of its Task
	// without the plugin's prefix ("coordinator", "worker", "probe",
	// "verifier"), or "agent" when the Task that started it is not known.
	Role string `json:"role"`
	// Description is its Task's description; Atom the atom that names
	// ("" none).
	Description string    `json:"description,omitempty"`
	Atom        string    `json:"atom,omitempty"`
	Started     time.Time `json:"started"`
	Last        time.Time `json:"last"`
	// Ended: its Task has its result (a sub-agent); the main thread never
	// ends.
	Ended bool `json:"ended"`
	// Steps are its most recent steps, oldest first (at most
	// Options.MaxSteps); StepCount counts them all.
	Steps     []Step `json:"steps"`
	StepCount int    `json:"step_count"`
	Usage     Usage  `json:"usage"`
}

// Current is the agent's step in progress: the last step, when its result
// has not come yet.
func (a *Agent) Current() (Step, bool) {
	if len(a.Steps) == 0 || a.Ended {
		return Step{}, false
	}
	s := a.Steps[len(a.Steps)-1]
	return s, !s.Done
}

// Name is how the agent is named on a line: "main", "A5 worker",
// "coordinator".
func (a *Agent) Name() string {
	if a.Atom != "" && a.Role != "main" {
		return a.Atom + " " + a.Role
	}
	return a.Role
}

// Now is what is happening now: the agent whose step in progress started
// last, and that step.
type Now struct {
	Agent string    `json:"agent"`
	Role  string    `json:"role"`
	Atom  string    `json:"atom,omitempty"`
	Step  Step      `json:"step"`
	Since time.Time `json:"since"`
}

// NeedsYou says that a session waits for a person.
type NeedsYou struct {
	// Kind is the Notification's notification_type (permission_prompt,
	// idle_prompt, elicitation_dialog, …) from the hook, or "question" when
	// inferred from the transcript (a question tool waiting for its answer).
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
	Since   time.Time `json:"since"`
	Session string    `json:"session"`
	// Agent names the agent whose tool call waits, when known.
	Agent string `json:"agent,omitempty"`
	// Inferred: read from the transcript, not told by the hook (which
	// gives exact answers: aot-tui hook install).
	Inferred bool `json:"inferred"`
}

// Session is one Claude Code session of the loop.
type Session struct {
	ID      string    `json:"id"`
	File    string    `json:"file"`
	Started time.Time `json:"started"`
	Last    time.Time `json:"last"`
}

// Activity is what the loop's sessions show at one moment: a snapshot,
// never changed after it is handed out. Every string in it comes from a
// transcript or a hook event and is sanitised already (one line, control
// and bidi characters escaped, internal/termtext) and cut short:
// TestEveryStringIsSafe walks it after reading hostile transcripts.
type Activity struct {
	// Ready: the transcripts that were there when following began have
	// been read (before that the totals are partial).
	Ready bool `json:"ready"`
	// Found: a transcript directory of the project was found.
	Found    bool      `json:"found"`
	Dirs     []string  `json:"dirs"`
	Sessions []Session `json:"sessions"`
	// Agents: each session's main thread, then its sub-agents in the
	// order they started.
	Agents   []Agent   `json:"agents"`
	Now      *Now      `json:"now"`
	NeedsYou *NeedsYou `json:"needs_you"`
	// HookSeen: the hook has recorded events for this project (so a
	// missing NeedsYou is exact; without it NeedsYou can only be inferred).
	HookSeen bool `json:"hook_seen"`
	// Total is every response counted once; ByAtom by the atom it was
	// attributed to ("" none: coordination, or several atoms in progress);
	// ByIteration by the loop's iteration (0: before the first).
	Total       Usage            `json:"total"`
	ByAtom      map[string]Usage `json:"by_atom"`
	ByIteration map[int]Usage    `json:"by_iteration"`
	// IterationsFrom says where the iterations came from: "state" (the
	// state file's versions, Options.Iterations), "transcript" (the
	// coordinator's Task descriptions and the stop hook's messages) or
	// "" (none known).
	IterationsFrom string `json:"iterations_from"`
	// Lines counts the lines read; Unrecognised those skipped (not JSON,
	// or of a type the reader does not know, UnknownTypes); UnknownBlocks
	// the content blocks of kinds it does not know.
	Lines         int            `json:"lines"`
	Unrecognised  int            `json:"unrecognised"`
	UnknownTypes  map[string]int `json:"unknown_types"`
	UnknownBlocks map[string]int `json:"unknown_blocks"`
	// Notes say what was skipped or went wrong (a line too long, a
	// directory that disappeared), one line each.
	Notes []string `json:"notes"`
	// At is when the snapshot was taken.
	At time.Time `json:"at"`
}

// Agent returns the agent of session with id, or nil.
func (a *Activity) Agent(session, id string) *Agent {
	for i := range a.Agents {
		if a.Agents[i].Session == session && a.Agents[i].ID == id {
			return &a.Agents[i]
		}
	}
	return nil
}

// StepsOf are the recent steps attributed to atom, over every agent, in
// time order: what the activity view shows with an atom selected.
func (a *Activity) StepsOf(atom string) []Step {
	var out []Step
	for i := range a.Agents {
		for _, s := range a.Agents[i].Steps {
			if s.Atom == atom {
				out = append(out, s)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Step) int { return x.At.Compare(y.At) })
	return out
}

// NotRecognised is the note on the lines skipped, "" when none were:
// "12 lines not recognised (3 of type foo, 9 not JSON)".
func (a *Activity) NotRecognised() string {
	if a.Unrecognised == 0 {
		return ""
	}
	var parts []string
	known := 0
	for _, k := range sortedKeys(a.UnknownTypes) {
		parts = append(parts, itoa(a.UnknownTypes[k])+" of type "+k)
		known += a.UnknownTypes[k]
	}
	if rest := a.Unrecognised - known; rest > 0 {
		parts = append(parts, itoa(rest)+" not JSON objects")
	}
	return plural(a.Unrecognised, "line") + " not recognised (" + strings.Join(parts, ", ") + ")"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func itoa(n int) string { return strconv.Itoa(n) }

func plural(n int, word string) string { return textfmt.Plural(n, word) }
