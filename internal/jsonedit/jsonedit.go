// Package jsonedit edits JSON text in place: it adds and removes object
// members and array elements, and replaces values, leaving every other
// byte as it was — the file's indentation, key order, spacing and the
// values it does not touch. aot-tui uses it on files other programs own
// (Claude Code's settings.json), where rewriting the whole document would
// reorder and reformat what the person wrote.
//
// Parse keeps each value's byte span. Each edit returns new text; parse
// it again for the next edit (the files are small). An edit never makes
// text that is not JSON: the result is checked, and an edit that would
// is an error.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind is a JSON value's kind.
type Kind uint8

// The kinds of JSON values.
const (
	Object Kind = iota + 1
	Array
	String
	Number
	Bool
	Null
)

// Node is a JSON value and where it is in the text: Start and End are
// the byte offsets of its first byte and just past its last.
type Node struct {
	Kind       Kind
	Start, End int
	// Members of an object, in order; Elems of an array.
	Members []Member
	Elems   []*Node
	// Str is a string's value, decoded.
	Str string
}

// Member is an object's member: its key (decoded), where the key starts,
// and its value.
type Member struct {
	Key      string
	KeyStart int
	Value    *Node
}

// Get is the value of the last member named key (JSON's readers take the
// last), or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// index is the index of the last member named key, -1 when none.
func (n *Node) index(key string) int {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// SyntaxError is text that is not JSON, with the line and column where
// it goes wrong.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Parse reads one JSON value (white space around it allowed).
func Parse(b []byte) (*Node, error) {
	if err := valid(b); err != nil {
		return nil, err
	}
	p := &parser{b: b}
	p.ws()
	n := p.value()
	return n, nil
}

// valid checks b with encoding/json and says where it goes wrong.
func valid(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return nil
	}
	off := len(b)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	line, col := position(b, off)
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if len(bytes.TrimSpace(b)) == 0 {
		msg = "no JSON value"
	}
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// position is the 1-based line and column of offset off in b.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// parser reads text encoding/json has already called valid.
type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *parser) value() *Node {
	n := &Node{Start: p.i}
	switch c := p.b[p.i]; {
	case c == '{':
		n.Kind = Object
		p.i++
		p.ws()
		for p.b[p.i] != '}' {
			ks := p.i
			key := p.str()
			p.ws()
			p.i++ // ':'
			p.ws()
			n.Members = append(n.Members, Member{Key: key, KeyStart: ks, Value: p.value()})
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case c == '[':
		n.Kind = Array
		p.i++
		p.ws()
		for p.b[p.i] != ']' {
			n.Elems = append(n.Elems, p.value())
			p.ws()
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
		}
		p.i++
	case c == '"':
		n.Kind = String
		n.Str = p.str()
	case c == 't' || c == 'f':
		n.Kind = Bool
		for p.i < len(p.b) && p.b[p.i] >= 'a' && p.b[p.i] <= 'z' {
			p.i++
		}
	case c == 'n':
		n.Kind = Null
		p.i += 4
	default:
		n.Kind = Number
		for p.i < len(p.b) && strings.IndexByte("+-.0123456789eE", p.b[p.i]) >= 0 {
			p.i++
		}
	}
	n.End = p.i
	return n
}

// str reads a string at p.i and returns its value.
func (p *parser) str() string {
	start := p.i
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	var s string
	_ = json.Unmarshal(p.b[start:p.i], &s)
	return s
}

// lineIndent is the white space that starts the line holding offset off.
func lineIndent(b []byte, off int) string {
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// Style is how a document is laid out: its indentation unit, guessed from
// its first nested line ("" when it is all on one line).
func Style(b []byte) string {
	root, err := Parse(b)
	if err != nil {
		return "  "
	}
	first := func(n *Node) int {
		switch {
		case n.Kind == Object && len(n.Members) > 0:
			return n.Members[0].KeyStart
		case n.Kind == Array && len(n.Elems) > 0:
			return n.Elems[0].Start
		}
		return -1
	}
	if at := first(root); at >= 0 {
		if !bytes.Contains(b[root.Start:at], []byte{'\n'}) {
			return ""
		}
		ind := lineIndent(b, at)
		if base := lineIndent(b, root.Start); strings.HasPrefix(ind, base) && len(ind) > len(base) {
			return ind[len(base):]
		}
	}
	return "  "
}

// render is v as JSON laid out for a place whose line starts with indent,
// one level nested by unit ("" unit: on one line).
func render(v any, indent, unit string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if unit != "" {
		enc.SetIndent(indent, unit)
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// insertion is what adding an entry to the container n writes, and where:
// the entry text follows a comma after the last entry, or fills an empty
// container, on its own line when the container spans lines.
func insertion(b []byte, n *Node, entry func(indent string) (string, error), unit string) ([]byte, error) {
	var lastEnd, firstStart int = -1, -1
	switch n.Kind {
	case Object:
		if len(n.Members) > 0 {
			lastEnd, firstStart = n.Members[len(n.Members)-1].Value.End, n.Members[0].KeyStart
		}
	case Array:
		if len(n.Elems) > 0 {
			lastEnd, firstStart = n.Elems[len(n.Elems)-1].End, n.Elems[0].Start
		}
	default:
		return nil, errors.New("not an object or an array")
	}
	multiline := unit != ""
	var indent string
	if firstStart >= 0 {
		multiline = bytes.Contains(b[n.Start:firstStart], []byte{'\n'})
		indent = lineIndent(b, firstStart)
	} else {
		indent = lineIndent(b, n.Start) + unit
	}
	text, err := entry(indent)
	if err != nil {
		return nil, err
	}
	nl := "\n"
	if bytes.Contains(b, []byte("\r\n")) {
		nl = "\r\n" // the file's own line ends
		text = strings.ReplaceAll(text, "\n", nl)
	}
	var out []byte
	switch {
	case lastEnd >= 0 && multiline:
		out = concat(b[:lastEnd], ","+nl+indent+text, b[lastEnd:])
	case lastEnd >= 0:
		out = concat(b[:lastEnd], ", "+text, b[lastEnd:])
	case multiline:
		// an empty container: its inside is replaced
		close := n.End - 1
		out = concat(b[:n.Start+1], nl+indent+text+nl+lineIndent(b, n.Start), b[close:])
	default:
		out = concat(b[:n.Start+1], text, b[n.End-1:])
	}
	return out, valid(out)
}

func concat(a []byte, mid string, c []byte) []byte {
	out := make([]byte, 0, len(a)+len(mid)+len(c))
	out = append(out, a...)
	out = append(out, mid...)
	return append(out, c...)
}

// AddMember adds the member key: v at the end of the object obj (in the
// text b whose root Parse read), laid out as the object's other members.
func AddMember(b []byte, obj *Node, key string, v any) ([]byte, error) {
	if obj.Kind != Object {
		return nil, errors.New("not an object")
	}
	unit := Style(b)
	return insertion(b, obj, func(indent string) (string, error) {
		k, _ := json.Marshal(key)
		val, err := render(v, indent, unit)
		if err != nil {
			return "", err
		}
		sep := ": "
		if unit == "" && !bytes.Contains(b[obj.Start:obj.End], []byte(": ")) && len(obj.Members) > 0 {
			sep = ":"
		}
		return string(k) + sep + val, nil
	}, unit)
}

// AddElement adds v at the end of the array arr.
func AddElement(b []byte, arr *Node, v any) ([]byte, error) {
	if arr.Kind != Array {
		return nil, errors.New("not an array")
	}
	unit := Style(b)
	return insertion(b, arr, func(indent string) (string, error) { return render(v, indent, unit) }, unit)
}

// Replace replaces the value n with v (rendered on one line unless it is a
// container, then laid out at n's place).
func Replace(b []byte, n *Node, v any) ([]byte, error) {
	val, err := render(v, lineIndent(b, n.Start), Style(b))
	if err != nil {
		return nil, err
	}
	out := concat(b[:n.Start], val, b[n.End:])
	return out, valid(out)
}

// RemoveMember removes the member at index i of the object obj, with the
// comma and the white space that separated it from its neighbour.
func RemoveMember(b []byte, obj *Node, i int) ([]byte, error) {
	spans := make([][2]int, len(obj.Members))
	for k, m := range obj.Members {
		spans[k] = [2]int{m.KeyStart, m.Value.End}
	}
	return remove(b, obj, spans, i)
}

// RemoveElement removes the element at index i of the array arr.
func RemoveElement(b []byte, arr *Node, i int) ([]byte, error) {
	spans := make([][2]int, len(arr.Elems))
	for k, e := range arr.Elems {
		spans[k] = [2]int{e.Start, e.End}
	}
	return remove(b, arr, spans, i)
}

func remove(b []byte, n *Node, spans [][2]int, i int) ([]byte, error) {
	if i < 0 || i >= len(spans) {
		return nil, errors.New("no such entry")
	}
	var from, to int
	switch {
	case len(spans) == 1:
		// the only entry: the container becomes empty, its brackets kept
		from, to = n.Start+1, n.End-1
	case i == len(spans)-1:
		// the last: from the end of the one before
		from, to = spans[i-1][1], spans[i][1]
	default:
		// from its start to the next one's
		from, to = spans[i][0], spans[i+1][0]
	}
	out := concat(b[:from], "", b[to:])
	return out, valid(out)
}

// Remove removes the entry n (a member's value: the member) from the
// container parent.
func Remove(b []byte, parent, n *Node) ([]byte, error) {
	switch parent.Kind {
	case Object:
		for i, m := range parent.Members {
			if m.Value == n {
				return RemoveMember(b, parent, i)
			}
		}
	case Array:
		for i, e := range parent.Elems {
			if e == n {
				return RemoveElement(b, parent, i)
			}
		}
	}
	return nil, errors.New("not an entry of that container")
}

// Index is the index of the last member key of obj, -1 when none.
func Index(obj *Node, key string) int { return obj.index(key) }
