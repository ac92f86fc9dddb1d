package statefile

import (
	"bytes"
	"errors"

	"github.com/aot-loop/aot-tui/yamltext"
)

// Frontmatter locates the YAML frontmatter and the Markdown body in a state
// file's bytes. Offsets index the original data, BOM included.
type Frontmatter struct {
	// YAMLStart and YAMLEnd delimit the YAML text: from the line after the
	// opening '---' to the start of the closing '---' line.
	YAMLStart, YAMLEnd int
	// BodyStart is where the Markdown body begins (after the closing line).
	BodyStart int
	// FirstLine is the 1-based file line of the first YAML line.
	FirstLine int
	// BOM is true when the file starts with a UTF-8 byte order mark.
	BOM bool
	// CRLF is true when the opening delimiter line ends in \r\n; new lines
	// written into the file use the same ending.
	CRLF bool
}

// YAML returns the frontmatter text of data.
func (f Frontmatter) YAML(data []byte) []byte { return data[f.YAMLStart:f.YAMLEnd] }

// Body returns the Markdown body of data.
func (f Frontmatter) Body(data []byte) []byte { return data[f.BodyStart:] }

// Errors returned by SplitFrontmatter; the *Error that wraps them adds the line.
var (
	ErrNoFrontmatter = errors.New("no YAML frontmatter: the file must start with a '---' line")
	ErrUnclosed      = errors.New("the frontmatter is not closed: no second '---' line after the opening one")
)

// SplitFrontmatter finds the frontmatter: the text between the first two
// lines that consist of '---' alone (trailing spaces and \r allowed). Only
// blank lines and a BOM may precede the opening line; '---' lines further
// down belong to the Markdown body.
func SplitFrontmatter(data []byte) (Frontmatter, error) {
	var f Frontmatter
	pos := 0
	if bytes.HasPrefix(data, yamltext.BOM) {
		f.BOM = true
		pos = len(yamltext.BOM)
	}
	line := 1
	// Opening delimiter, after optional blank lines.
	for {
		if pos >= len(data) {
			return f, ErrNoFrontmatter
		}
		end, next := yamltext.LineBounds(data, pos)
		text := trimRightSpace(data[pos:end])
		if len(text) == 0 {
			pos, line = next, line+1
			continue
		}
		if !bytes.Equal(text, dashes) {
			return f, ErrNoFrontmatter
		}
		f.CRLF = end > pos && end < len(data) && data[end-1] == '\r'
		pos, line = next, line+1
		break
	}
	f.YAMLStart, f.FirstLine = pos, line
	for pos < len(data) {
		// Only a line that starts with "---" can close it: go from one
		// "---" to the next (a search that stops at each '-', a sixth as
		// often as at each line of a generated loop), skipping those
		// inside a line.
		i := bytes.Index(data[pos:], dashes)
		if i < 0 {
			break
		}
		if pos += i; pos > f.YAMLStart && data[pos-1] != '\n' {
			pos++
			continue
		}
		end, next := yamltext.LineBounds(data, pos)
		if bytes.Equal(trimRightSpace(data[pos:end]), dashes) {
			f.YAMLEnd, f.BodyStart = pos, next
			return f, nil
		}
		pos = next
	}
	return f, ErrUnclosed
}

var dashes = []byte("---")

func trimRightSpace(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\r':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}
