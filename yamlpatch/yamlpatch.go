// Package yamlpatch is the vocabulary of a change to a YAML document, in
// the spirit of RFC 6902 (JSON Patch): a Path of keys and indexes from the
// root mapping, an operation (replace, add, remove) and a value tree of
// scalars, ordered block mappings (Map), block sequences ([]any) and
// one-line flow sequences (Flow).
//
// It is the one thing the domain and the editor share: model plans a
// correction as a list of Edits, yamledit applies such a list to the text
// of a document, and statefile hands the one to the other. It imports
// nothing of the project, so that neither of the two has to import the
// other: model stays the domain, yamledit a YAML editor.
package yamlpatch

import (
	"strconv"
	"strings"
)

// Step is one element of a Path: a mapping key or a sequence index.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path addresses a node of the document from its root mapping, in the
// spirit of an RFC 6901 JSON pointer. The empty path is the root mapping.
type Path []Step

// P builds a path from keys (string) and indexes (int).
func P(elems ...any) Path {
	p := make(Path, 0, len(elems))
	for _, e := range elems {
		switch v := e.(type) {
		case string:
			p = append(p, Step{Key: v})
		case int:
			p = append(p, Step{Index: v, IsIndex: true})
		default:
			panic("yamlpatch.P: path elements are strings or ints")
		}
	}
	return p
}

// String renders the path as "atoms[3].status".
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsIndex {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Key)
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
}

// Child returns p extended by one step (p itself is not modified).
func (p Path) Child(elem any) Path {
	q := make(Path, len(p), len(p)+1)
	copy(q, p)
	return append(q, P(elem)...)
}

// EditOp is the kind of a text edit.
type EditOp int

// Edit operations, as in RFC 6902.
const (
	// OpReplace replaces the value at Path with Value.
	OpReplace EditOp = iota + 1
	// OpAdd adds Value to the collection at Path: under Key for a mapping,
	// at the end for a sequence.
	OpAdd
	// OpRemove removes the mapping entry or sequence item at Path.
	OpRemove
)

func (o EditOp) String() string {
	switch o {
	case OpReplace:
		return "replace"
	case OpAdd:
		return "add"
	case OpRemove:
		return "remove"
	}
	return "edit(" + strconv.Itoa(int(o)) + ")"
}

// Edit is one semantic change to the document. All paths of one plan refer
// to the document as it was read: edits do not see each other's effects, and
// yamledit applies them to the original text all at once.
//
// Values are nil (YAML null), string, int, float64, bool, Flow (a one-line
// list such as depends_on: [A1, A4]), []any (a block sequence) and Map (an
// ordered block mapping), nested as needed.
type Edit struct {
	Op    EditOp
	Path  Path
	Key   string
	Value any
}

// Replace builds an OpReplace edit.
func Replace(path Path, value any) Edit { return Edit{Op: OpReplace, Path: path, Value: value} }

// AddKey builds an OpAdd edit adding key: value to the mapping at path.
func AddKey(path Path, key string, value any) Edit {
	return Edit{Op: OpAdd, Path: path, Key: key, Value: value}
}

// Append builds an OpAdd edit appending value to the sequence at path.
func Append(path Path, value any) Edit { return Edit{Op: OpAdd, Path: path, Value: value} }

// Remove builds an OpRemove edit.
func Remove(path Path) Edit { return Edit{Op: OpRemove, Path: path} }

// String describes the edit for logs and dry runs.
func (e Edit) String() string {
	switch e.Op {
	case OpAdd:
		if e.Key != "" {
			return "add " + e.Path.Child(e.Key).String()
		}
		return "append to " + e.Path.String()
	default:
		return e.Op.String() + " " + e.Path.String()
	}
}

// Flow is a sequence written on one line in flow style: [A1, A4].
type Flow []any

// KV is one entry of a Map.
type KV struct {
	Key   string
	Value any
}

// Map is an ordered mapping written in block style.
type Map []KV
