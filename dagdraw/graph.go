package dagdraw

// Status is a node's status as the drawing shows it (a glyph and a class):
// not started, under way, done, or unknown.
type Status uint8

// Statuses, named as the AoT loop's schema names them. Unknown covers
// values the caller cannot name and ids referenced but not defined.
const (
	Pending Status = iota
	InProgress
	Resolved
	Unknown
)

// Glyph is the status glyph drawn in a node: ○ pending, ◐ in progress,
// ● resolved, ? unknown.
func (s Status) Glyph() rune {
	switch s {
	case Pending:
		return '○'
	case InProgress:
		return '◐'
	case Resolved:
		return '●'
	}
	return '?'
}

// String names the status as the schema does.
func (s Status) String() string {
	switch s {
	case Pending:
		return "pending"
	case InProgress:
		return "in_progress"
	case Resolved:
		return "resolved"
	}
	return "unknown"
}

// Flag says that something needs a look at a node (an AoT loop's
// validation finds an error or a warning about an atom): it is drawn
// before the status glyph, in place of the ready and failed marks.
type Flag uint8

// Flags, from none to the most serious.
const (
	FlagNone Flag = iota
	FlagWarning
	FlagError
)

// Glyph is the flag's mark: ⚠ a warning, ! an error (0 for none).
func (f Flag) Glyph() rune {
	switch f {
	case FlagWarning:
		return '⚠'
	case FlagError:
		return '!'
	}
	return 0
}

// Node is one node of the graph (an atom of an AoT loop). Only ID is
// structure; the rest is decoration.
type Node struct {
	ID string
	// Label is the node's text (an atom's description). The caller
	// sanitises it (no control characters or escape sequences: Builder.Node
	// does); it is measured in terminal cells and truncated to the node's
	// box.
	Label  string
	Status Status
	// Executable marks a node ready to run now (▸).
	Executable bool
	// Flag marks a node that needs a look (! or ⚠, before ▸ and ✗).
	Flag Flag
}

// Edge is a dependency: To depends on From. From is drawn above (top-down)
// or left of (left-right) To, and the arrowhead is at To.
type Edge struct {
	From, To string
}

// ORGroup is a named set of alternative nodes, of which one is to be
// chosen, drawn in a labelled frame. Name and Choices are structure;
// Selected (the chosen one) and Failed (the ones tried and given up) are
// decoration.
type ORGroup struct {
	Name     string
	Choices  []string
	Selected string
	Failed   []string
}

// Decomp records that Parent was split into Children. The parent is drawn as
// a frame around its children when they share a layer, otherwise as a box
// with dotted "part of" links from each child.
type Decomp struct {
	Parent   string
	Children []string
}

// Graph is the input: nodes in a stable order (file order), edges, OR groups
// and decompositions. Ids referenced but not defined are drawn as dashed
// "missing" nodes rather than dropped. Fill it directly or with a Builder.
type Graph struct {
	Nodes    []Node
	Edges    []Edge
	ORGroups []ORGroup
	Decomps  []Decomp
}
