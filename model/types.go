// Package model is the pure domain of aot-tui: the AoT loop state schema
// v1.3 and the phase loop (schema version 2) as Go types, the facts derived
// from them, validation, the /enter-recursion gate and redirect planning.
// It does no I/O; statefile turns bytes into these types and back.
package model

import (
	"slices"
	"strconv"
	"strings"
)

// AtomStatus is an atom's lifecycle state: pending → in_progress → resolved.
type AtomStatus string

// Atom statuses defined by the schema.
const (
	StatusPending    AtomStatus = "pending"
	StatusInProgress AtomStatus = "in_progress"
	StatusResolved   AtomStatus = "resolved"
)

// Known reports whether s is one of the schema's atom statuses.
func (s AtomStatus) Known() bool {
	return s == StatusPending || s == StatusInProgress || s == StatusResolved
}

// Unresolved reports whether the atom still counts against progress (the
// stop hook counts pending and in_progress alike).
func (s AtomStatus) Unresolved() bool { return s == StatusPending || s == StatusInProgress }

// LoopStatus is control.status: pending → running → {stopped, completed}.
type LoopStatus string

// Loop statuses defined by the schema.
const (
	LoopPending   LoopStatus = "pending"
	LoopRunning   LoopStatus = "running"
	LoopStopped   LoopStatus = "stopped"
	LoopCompleted LoopStatus = "completed"
)

// Known reports whether s is one of the schema's loop statuses.
func (s LoopStatus) Known() bool {
	switch s {
	case LoopPending, LoopRunning, LoopStopped, LoopCompleted:
		return true
	}
	return false
}

// CorrectionType is corrections[].type.
type CorrectionType string

// Correction types defined by the schema.
const (
	CorrectionObjective   CorrectionType = "objective_change"
	CorrectionDAG         CorrectionType = "dag_adjustment"
	CorrectionConstraint  CorrectionType = "constraint_change"
	CorrectionBindingsFix CorrectionType = "bindings_override"
)

// Known reports whether t is one of the schema's correction types.
func (t CorrectionType) Known() bool {
	switch t {
	case CorrectionObjective, CorrectionDAG, CorrectionConstraint, CorrectionBindingsFix:
		return true
	}
	return false
}

// CheckType is a base_case check's type.
type CheckType string

// Check types defined by schema v1.3.
const (
	CheckCommand    CheckType = "command"
	CheckFile       CheckType = "file"
	CheckNotCommand CheckType = "not_command"
	CheckNotFile    CheckType = "not_file"
	CheckAssertion  CheckType = "assertion"
	CheckQuality    CheckType = "quality"
)

// CheckTypes lists the check types in the order the schema documents them.
var CheckTypes = []CheckType{CheckCommand, CheckFile, CheckNotCommand, CheckNotFile, CheckAssertion, CheckQuality}

// Known reports whether t is one of the schema's check types.
func (t CheckType) Known() bool {
	for _, k := range CheckTypes {
		if t == k {
			return true
		}
	}
	return false
}

// Field is one mapping entry the schema does not define. Value holds the
// decoded YAML value (string, int, float64, bool, nil, []any or Extra for
// nested mappings) so it can be shown; the bytes themselves are never
// rewritten, which is what keeps unknown fields intact across writes.
type Field struct {
	Key   string
	Value any
	Line  int
}

// Extra is the list of unknown fields of one mapping, in file order.
type Extra []Field

// Get returns the value of the unknown field key.
func (e Extra) Get(key string) (any, bool) {
	for _, f := range e {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// KeyLine is one key of a mapping and the 1-based line of the state file it
// is on.
type KeyLine struct {
	Key  string
	Line int
}

// Lines are the keys present in a mapping, each once, sorted by key (so that
// equal Lines are equal slices, as maps were equal whatever the order), with
// their 1-based line numbers in the state file. A key that is absent from
// Lines was absent from the file.
//
// Lines are a slice, not a map: a mapping has a handful of keys, which a
// scan finds as fast as a map's hash, and the decoder keeps the Lines of
// all entries in a few shared chunks instead of a map (a header and an
// 8-slot group, 256 bytes) for each. Lines are shared when an entry is
// reused (statefile's re-parse, the memos compare them by identity): never
// change one in place; With returns a changed copy.
type Lines []KeyLine

// Has reports whether key was present in the mapping.
func (l Lines) Has(key string) bool {
	for i := range l {
		if l[i].Key == key {
			return true
		}
	}
	return false
}

// Get returns the line of key and whether key was present.
func (l Lines) Get(key string) (int, bool) {
	for i := range l {
		if l[i].Key == key {
			return l[i].Line, true
		}
	}
	return 0, false
}

// Line returns the line of key, or 0 when key was absent.
func (l Lines) Line(key string) int {
	n, _ := l.Get(key)
	return n
}

// With returns a copy of l with key on line. l itself is not changed.
func (l Lines) With(key string, line int) Lines {
	i, found := slices.BinarySearchFunc(l, key, func(kl KeyLine, key string) int { return strings.Compare(kl.Key, key) })
	if found {
		out := slices.Clone(l)
		out[i].Line = line
		return out
	}
	out := make(Lines, 0, len(l)+1)
	out = append(out, l[:i]...)
	out = append(out, KeyLine{Key: key, Line: line})
	return append(out, l[i:]...)
}

// Without returns a copy of l without key. l itself is not changed.
func (l Lines) Without(key string) Lines {
	out := make(Lines, 0, len(l))
	for _, kl := range l {
		if kl.Key != key {
			out = append(out, kl)
		}
	}
	return out
}

// LinesOf returns the Lines of the keys and lines of m.
func LinesOf(m map[string]int) Lines {
	out := make(Lines, 0, len(m))
	for k, l := range m {
		out = append(out, KeyLine{Key: k, Line: l})
	}
	SortLines(out)
	return out
}

// SortLines sorts l by key, as Lines are kept; l has each key once.
func SortLines(l Lines) {
	slices.SortFunc(l, func(a, b KeyLine) int { return strings.Compare(a.Key, b.Key) })
}

// State is a whole AoT loop state file: the YAML frontmatter sections and the
// Markdown body.
type State struct {
	Objective      Objective
	Control        Control
	Atoms          []Atom
	Decompositions []Decomposition
	ORGroups       []ORGroup
	Bindings       []Binding
	Trail          []TrailEntry
	Corrections    []Correction
	// Body is the Markdown after the closing '---' (the original prompt).
	Body string
	// Extra holds unknown top-level sections.
	Extra Extra
	// Lines records the line of each top-level key present in the file.
	Lines Lines
	// Problems are what the decoder found wrong (a value of the wrong type,
	// a section that is not a mapping) with the line it is on. Validate
	// reports them as errors.
	Problems []Problem
	// LoopRead is how the loop's own line-based tools read the same bytes
	// (statefile fills it on every parse; nil for a State not read from a
	// file). The outlook follows its stop-hook reading, and Validate
	// reports where it differs as warnings of the loop-tools kind.
	LoopRead *LoopRead
}

// Objective is the objective section.
type Objective struct {
	Goal             string
	BaseCase         BaseCase
	BackgroundIntent string
	Deliverables     string
	DefinitionOfDone string
	Constraints      Constraints
	Extra            Extra
	Lines            Lines
}

// Constraints are objective.constraints. Zero means absent (see Lines); the
// loop's stop hook then falls back to 20 iterations and 3 stalls.
type Constraints struct {
	MaxIterations     int
	MaxParallelAgents int
	MaxStallCount     int
	Extra             Extra
	Lines             Lines
}

// Defaults the loop's stop hook and coordinator use when a constraint is absent.
const (
	DefaultMaxIterations     = 20
	DefaultMaxParallelAgents = 3
	DefaultMaxStallCount     = 3
)

// EffectiveMaxIterations is max_iterations, or the hook's default when absent.
func (c Constraints) EffectiveMaxIterations() int {
	if !c.Lines.Has("max_iterations") || c.MaxIterations <= 0 {
		return DefaultMaxIterations
	}
	return c.MaxIterations
}

// EffectiveMaxParallelAgents is max_parallel_agents, or the default when absent.
func (c Constraints) EffectiveMaxParallelAgents() int {
	if !c.Lines.Has("max_parallel_agents") || c.MaxParallelAgents <= 0 {
		return DefaultMaxParallelAgents
	}
	return c.MaxParallelAgents
}

// EffectiveMaxStallCount is max_stall_count, or the hook's default when absent.
func (c Constraints) EffectiveMaxStallCount() int {
	if !c.Lines.Has("max_stall_count") || c.MaxStallCount <= 0 {
		return DefaultMaxStallCount
	}
	return c.MaxStallCount
}

// BaseCase is objective.base_case in either format: legacy {type, value} or
// a checklist.
type BaseCase struct {
	// Legacy is set for the legacy format.
	Legacy *Check
	// Checklist is set (possibly empty) for the checklist format.
	Checklist []ChecklistItem
	// IsChecklist tells the two formats apart when Checklist is empty.
	IsChecklist bool
	Extra       Extra
	Line        int
}

// Empty reports whether no completion criterion is defined at all.
func (b BaseCase) Empty() bool {
	return b.Legacy == nil && len(b.Checklist) == 0
}

// ChecklistItem is one entry of base_case.checklist. Exactly one of Check,
// Group (all must pass) and AnyOf (one must pass) is expected.
type ChecklistItem struct {
	Item  string
	Check *Check
	Group []ChecklistItem
	AnyOf []ChecklistItem
	// IsGroup and IsAnyOf tell an empty group from an absent one.
	IsGroup bool
	IsAnyOf bool
	Extra   Extra
	Line    int
}

// Kind names what the item holds: "check", "group", "any_of" or "" if none.
func (c ChecklistItem) Kind() string {
	switch {
	case c.Check != nil:
		return "check"
	case c.IsGroup:
		return "group"
	case c.IsAnyOf:
		return "any_of"
	}
	return ""
}

// Check is one verification: a check of a checklist item or the legacy base_case.
type Check struct {
	Type  CheckType
	Value string
	// Quality checks: a rubric (recommended) or free-text criteria.
	Rubric        []RubricCriterion
	Criteria      string
	PassThreshold float64
	HasThreshold  bool
	Scope         string
	Extra         Extra
	Line          int
	Lines         Lines
}

// RubricCriterion is one criterion of a quality rubric.
type RubricCriterion struct {
	Criterion   string
	Description string
	Weight      float64
	// Levels maps a score (1–5) to what it means, in file order.
	Levels []RubricLevel
	Extra  Extra
	Line   int
}

// RubricLevel is one score level of a rubric criterion.
type RubricLevel struct {
	Score int
	Text  string
}

// Control is the control section.
type Control struct {
	Status            LoopStatus
	Iteration         int
	StallCount        int
	PrevPendingCount  int
	StopRequested     bool
	StopReason        string
	RedirectRequested bool
	Extra             Extra
	Lines             Lines
}

// Atom is one node of the work graph.
type Atom struct {
	ID          string
	Description string
	Status      AtomStatus
	DependsOn   []string
	// ORGroup is the optional or_group membership ("" when absent or null).
	ORGroup string
	Extra   Extra
	Line    int
	Lines   Lines
}

// Decomposition records that Parent was split into Children.
type Decomposition struct {
	Parent   string
	Children []string
	Reason   string
	Extra    Extra
	Line     int
}

// ORGroup is one entry of or_groups, keyed by Name. Extra keeps fields such as
// speculative: true.
type ORGroup struct {
	Name     string
	Choices  []string
	Selected string
	Failed   []string
	Extra    Extra
	Line     int
	Lines    Lines
}

// Binding is the result summary of a resolved atom.
type Binding struct {
	AtomID    string
	Summary   string
	Artifacts []string
	Extra     Extra
	Line      int
	Lines     Lines
}

// TrailEntry is one entry of the trail: an OR selection, with the schema's
// fields or_group, selected, reason and timestamp (seed 000 §4.7).
type TrailEntry struct {
	// Type is not a schema field. Older versions of aot-tui wrote
	// corrections into the trail as "type: user_correction" entries, often
	// without or_group and selected; it is read so those still show as
	// such. Corrections no longer write it.
	Type      string
	ORGroup   string
	Selected  string
	Reason    string
	Timestamp string
	Extra     Extra
	Line      int
}

// Correction is one entry of corrections[].
type Correction struct {
	Timestamp    string
	Type         CorrectionType
	Description  string
	TrailCleared bool
	Extra        Extra
	Line         int
}

// Problem is something wrong with the file found while decoding or validating.
type Problem struct {
	Line    int
	Path    string
	Message string
}

// String renders the problem as "line N: message" (or just the message).
func (p Problem) String() string {
	if p.Line > 0 {
		var b [24]byte
		return string(appendLineOf(b[:0], p.Line)) + p.Message
	}
	return p.Message
}

// appendLineOf appends the "line N: " a problem's text starts with (see
// String), nothing for line 0.
func appendLineOf(b []byte, line int) []byte {
	if line <= 0 {
		return b
	}
	return append(strconv.AppendInt(append(b, "line "...), int64(line), 10), ": "...)
}
