package fastyaml

import (
	"bytes"
	"sync"

	"github.com/aot-loop/aot-tui/yamltext"
	"go.yaml.in/yaml/v3"
)

// parseSplit parses yml as three pieces, two of them concurrently, and
// joins the trees; it returns nil whenever it cannot be sure the result is
// the tree a whole parse gives (the caller then parses the whole, which
// also reports any error). The cut is at an entry of the top-level block
// collection around the middle of the text (atoms, usually):
//
//	A: yml[:cut]     the top-level keys up to that collection, and the
//	                 collection's entries before the cut
//	B: yml[cut:next] the collection's remaining entries, as a document of
//	                 their own (an indented block sequence or mapping)
//	C: yml[next:]    the top-level keys after the collection
//
// A piece that does not parse on its own, or whose root is not what the
// cut implies, means the cut went through something (a quoted or flow
// value over several lines, an alias to an anchor in another piece):
// give up. Pieces start at line starts, so columns are unchanged and lines
// shift by the lines before the piece. Node comments near the cut may
// differ from a whole parse; positions, values, tags, anchors do not
// (FuzzParse checks this on every input it tries).
func parseSplit(yml []byte) *yaml.Node {
	section, cut, next, ok := findCut(yml)
	if !ok {
		return nil
	}
	cutLine := bytes.Count(yml[:cut], []byte{'\n'})
	nextLn := bytes.Count(yml[:next], []byte{'\n'})
	var (
		a, b, c    *yaml.Node
		errA, errB error
		wg         sync.WaitGroup
	)
	wg.Go(func() { a, errA = parseWhole(yml[:cut]) })
	b, errB = parseWhole(yml[cut:next])
	var errC error
	if next < len(yml) {
		c, errC = parseWhole(yml[next:])
	}
	wg.Wait()
	if errA != nil || errB != nil || errC != nil || a == nil || b == nil {
		return nil
	}
	if !isBlockMapping(a, 1) || len(a.Content) == 0 || b.Line != 1 || endsEmpty(a) || (c != nil && endsEmpty(b)) {
		return nil
	}
	// The collection cut must be A's last value, and what the cut found
	// must be what yaml.v3 found.
	key, coll := a.Content[len(a.Content)-2], a.Content[len(a.Content)-1]
	if key.Line != bytes.Count(yml[:section], []byte{'\n'})+1 {
		return nil
	}
	if coll.Kind != b.Kind || coll.Style != 0 || b.Style != 0 || coll.Column != b.Column ||
		(coll.Kind != yaml.SequenceNode && coll.Kind != yaml.MappingNode) {
		return nil
	}
	if c != nil && (!isBlockMapping(c, 1) || len(c.Content) == 0 || c.Content[0].Line != 1) {
		return nil
	}
	shiftLines(b, cutLine)
	coll.Content = append(coll.Content, b.Content...)
	if c != nil {
		shiftLines(c, nextLn)
		a.Content = append(a.Content, c.Content...)
	}
	return a
}

// endsEmpty reports whether the last node of n is an empty value ("key:"
// with nothing after it). yaml.v3 places such a node where the next token
// starts, which is in the next piece: its position would differ.
func endsEmpty(n *yaml.Node) bool {
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n.Kind == yaml.ScalarNode && n.Value == "" && n.Style == 0
}

func isBlockMapping(n *yaml.Node, col int) bool {
	if n.Kind != yaml.MappingNode || n.Style != 0 {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		if n.Content[i].Column != col {
			return false
		}
	}
	return true
}

// shiftLines adds off to the line of every node under n (aliases are not
// followed: their targets are in the same tree and shifted once there).
func shiftLines(n *yaml.Node, off int) {
	n.Line += off
	for _, c := range n.Content {
		shiftLines(c, off)
	}
}

// findCut chooses where parseSplit cuts: section is the start of the
// top-level key line whose block collection holds the middle of yml, cut
// the start of one of the collection's entry lines, next the start of the
// top-level key after the collection (or len(yml)). ok is
// false when yml has anything that makes a cut unsafe to even try: a
// directive or document marker, line breaks yaml.v3 counts differently
// (lone CR, NEL, LS, PS), or no such entry line.
func findCut(yml []byte) (section, cut, next int, ok bool) {
	if !yamltext.NewLineMap(yml, 0).SameLines() {
		return 0, 0, 0, false
	}
	mid := len(yml) / 2
	section, next = -1, len(yml)
	for pos := 0; pos < len(yml); {
		end, nl := yamltext.LineBounds(yml, pos)
		line := yml[pos:end]
		if isMarkerLine(line) {
			return 0, 0, 0, false
		}
		if isTopKeyLine(line) {
			if pos <= mid {
				section = pos
			} else if next == len(yml) {
				next = pos
			}
		}
		pos = nl
	}
	if section < 0 {
		return 0, 0, 0, false
	}
	// The collection's entries start at the indentation of its first line
	// of content: "  - " for a sequence (or "- " at column 1), "  key:" for
	// a mapping.
	_, pos := yamltext.LineBounds(yml, section)
	indent, isSeq := -1, false
	for ; pos < next; pos = nextLine(yml, pos) {
		end, _ := yamltext.LineBounds(yml, pos)
		line := yml[pos:end]
		t := bytes.TrimLeft(line, " ")
		if len(bytes.TrimSpace(t)) == 0 || t[0] == '#' {
			continue
		}
		indent, isSeq = len(line)-len(t), isDashEntry(t)
		break
	}
	if indent < 0 || (!isSeq && indent == 0) {
		return 0, 0, 0, false
	}
	first := pos
	cut = -1
	for pos = nextLine(yml, first); pos < next; pos = nextLine(yml, pos) {
		end, _ := yamltext.LineBounds(yml, pos)
		line := yml[pos:end]
		if len(line) <= indent || !allSpaces(line[:indent]) {
			continue
		}
		t := line[indent:]
		if (isSeq && isDashEntry(t)) || (!isSeq && isTopKeyLine(t)) {
			cut = pos
			if pos >= mid {
				break
			}
		}
	}
	if cut < 0 {
		return 0, 0, 0, false
	}
	// Parsed on its own, B's root sits at the collection's indentation; in
	// the whole document the top-level mapping encloses it. The two agree
	// only if every line of B is an entry or inside one.
	for pos = cut; pos < next; pos = nextLine(yml, pos) {
		end, _ := yamltext.LineBounds(yml, pos)
		line := yml[pos:end]
		t := bytes.TrimLeft(line, " ")
		if len(bytes.TrimSpace(t)) == 0 || t[0] == '#' {
			continue
		}
		switch ind := len(line) - len(t); {
		case t[0] == '\t', ind < indent:
			return 0, 0, 0, false
		case ind == indent && isSeq && !isDashEntry(t), ind == indent && !isSeq && !isTopKeyLine(t):
			return 0, 0, 0, false
		}
	}
	return section, cut, next, true
}

func nextLine(b []byte, pos int) int { _, n := yamltext.LineBounds(b, pos); return n }

func allSpaces(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}

// isDashEntry reports whether t (a line from its indentation on) starts a
// block sequence entry.
func isDashEntry[T string | []byte](t T) bool {
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\r')
}

// isMarkerLine reports whether line is a directive (%) or a document marker
// (--- or ...): text no state file's frontmatter holds, and which a cut or
// the fast parser must leave to yaml.v3.
func isMarkerLine(line []byte) bool {
	return bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) || bytes.HasPrefix(line, []byte("%"))
}

// isTopKeyLine reports whether line (from its indentation on) starts with
// what can only begin a plain or quoted mapping key.
func isTopKeyLine(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	c := line[0]
	return c == '_' || c == '"' || c == '\'' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
