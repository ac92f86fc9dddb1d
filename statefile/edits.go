package statefile

import (
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamledit"
)

// EditError says why one edit of a plan cannot be applied (see
// yamledit.Error).
type EditError = yamledit.Error

// Errors wrapped by the *EditError values ApplyEdits returns, for
// errors.Is; they are yamledit's.
var (
	// ErrEditNotFound: the path names a key or item the document lacks.
	ErrEditNotFound = yamledit.ErrNotFound
	// ErrEditExists: an add names a key the mapping already has.
	ErrEditExists = yamledit.ErrExists
	// ErrEditConflict: two edits change the same text.
	ErrEditConflict = yamledit.ErrConflict
	// ErrEditType: the edit does not fit what is at the path.
	ErrEditType = yamledit.ErrType
	// ErrEditUnsupported: the text there is YAML the editor does not
	// rewrite. Edit such a file by hand.
	ErrEditUnsupported = yamledit.ErrUnsupported
)

// ApplyEdits applies a plan of semantic edits to the frontmatter of doc as
// text and returns the new file, with every byte outside the edited spans
// as it was: comments, blank lines, quoting, key order, unknown fields, the
// Markdown body, line endings and a byte order mark. A plan that cannot be
// applied whole fails with an *EditError naming the file line; doc is
// never modified. yamledit.Apply says how values are written.
func ApplyEdits(doc *Document, edits []model.Edit) ([]byte, error) {
	var in yamledit.Input
	if doc != nil && doc.Root == nil {
		// A Document from Parse or Reparse keeps no tree.
		full, err := parseTree(doc.Data)
		if err != nil {
			return nil, err
		}
		doc = full
	}
	if doc != nil {
		off := doc.LineOffset()
		in = yamledit.Input{
			Data:  doc.Data,
			Start: doc.FM.YAMLStart,
			End:   doc.FM.YAMLEnd,
			Root:  doc.Root,
			CRLF:  doc.FM.CRLF,
			// As ApplyEdits always has; doc.FileLine would differ only
			// when the YAML holds a lone CR, NEL, LS or PS.
			FileLine: func(n int) int { return n + off },
		}
	}
	return yamledit.Apply(in, edits)
}
