package model

import "github.com/aot-loop/aot-tui/yamlpatch"

// A plan's edits are written in yamlpatch's vocabulary, the one model
// shares with the YAML editor (yamledit) without either importing the
// other; statefile hands a plan from the one to the other. The names
// below are that vocabulary under model's own, for the planners here and
// their callers: each is the yamlpatch type or function itself.

// Step is one element of a Path: a mapping key or a sequence index.
type Step = yamlpatch.Step

// Path addresses a node of the frontmatter from its root mapping, in the
// spirit of an RFC 6901 JSON pointer. The empty path is the root mapping.
type Path = yamlpatch.Path

// EditOp is the kind of a text edit.
type EditOp = yamlpatch.EditOp

// Edit operations, as in RFC 6902.
const (
	// OpReplace replaces the value at Path with Value.
	OpReplace = yamlpatch.OpReplace
	// OpAdd adds Value to the collection at Path: under Key for a mapping,
	// at the end for a sequence.
	OpAdd = yamlpatch.OpAdd
	// OpRemove removes the mapping entry or sequence item at Path.
	OpRemove = yamlpatch.OpRemove
)

// Edit is one semantic change to the frontmatter. All paths of one plan refer
// to the document as it was read: edits do not see each other's effects, and
// statefile applies them to the original text all at once.
type Edit = yamlpatch.Edit

// Flow is a list written on one line in flow style: [A1, A4]. The loop's
// Python scripts read depends_on only in this form.
type Flow = yamlpatch.Flow

// KV is one entry of a Map.
type KV = yamlpatch.KV

// Map is an ordered mapping written in block style.
type Map = yamlpatch.Map

// P builds a path from keys (string) and indexes (int).
func P(elems ...any) Path { return yamlpatch.P(elems...) }

// Replace builds an OpReplace edit.
func Replace(path Path, value any) Edit { return yamlpatch.Replace(path, value) }

// AddKey builds an OpAdd edit adding key: value to the mapping at path.
func AddKey(path Path, key string, value any) Edit { return yamlpatch.AddKey(path, key, value) }

// Append builds an OpAdd edit appending value to the sequence at path.
func Append(path Path, value any) Edit { return yamlpatch.Append(path, value) }

// Remove builds an OpRemove edit.
func Remove(path Path) Edit { return yamlpatch.Remove(path) }
