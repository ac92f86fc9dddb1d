package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/yamltext"
)

// ParsePhaseLoop reads a phase loop's .claude/autonomous-loop.json. Syntax
// errors are *Error with line and column; a value of the wrong type does
// not fail the parse but is listed in Problems for validation.
func ParsePhaseLoop(data []byte) (*model.PhaseLoop, error) {
	data = bytes.TrimPrefix(data, yamltext.BOM)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonError(data, err)
	}
	if raw == nil {
		return nil, &Error{Line: 1, Msg: "the file holds null, not a phase loop object", Hint: "it must be a JSON object with version, phase, …"}
	}
	p := &model.PhaseLoop{Present: make(map[string]bool, len(raw)), Lines: jsonLines(data)}
	if err := json.Unmarshal(data, p); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, jsonError(data, err)
		}
		line, _ := lineCol(data, te.Offset)
		p.Problems = append(p.Problems, model.Problem{
			Line: line, Path: te.Field,
			Message: fmt.Sprintf("%s should be %s, not a JSON %s", te.Field, jsonTypeName(te.Type), te.Value),
		})
	}
	known := jsonFields(reflect.TypeOf(model.PhaseLoop{}))
	for k, v := range raw {
		p.Present[k] = true
		if !known[k] {
			if p.Extra == nil {
				p.Extra = map[string]any{}
			}
			var x any
			_ = json.Unmarshal(v, &x)
			p.Extra[k] = x
		}
	}
	if a, ok := raw["artifacts"]; ok {
		var am map[string]any
		if json.Unmarshal(a, &am) == nil {
			knownA := jsonFields(reflect.TypeOf(model.PhaseArtifacts{}))
			for k, v := range am {
				if !knownA[k] {
					if p.Artifacts.Extra == nil {
						p.Artifacts.Extra = map[string]any{}
					}
					p.Artifacts.Extra[k] = v
				}
			}
		}
	}
	return p, nil
}

// LoadPhaseLoop reads and parses a phase loop file; errors carry the path.
func LoadPhaseLoop(path string, limit int64) (*model.PhaseLoop, error) {
	data, err := ReadFile(path, limit)
	if err != nil {
		return nil, err
	}
	p, err := ParsePhaseLoop(data)
	if err != nil {
		return nil, withPath(err, path)
	}
	return p, nil
}

func jsonFields(t reflect.Type) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag != "" && tag != "-" {
			m[tag] = true
		}
	}
	return m
}

func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonTypeName(t.Elem()) + " or null"
	}
	return t.String()
}

func jsonError(data []byte, err error) *Error {
	e := &Error{Err: err, Hint: "fix the JSON there"}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		// Checked first: encoding/json reports an empty input as a syntax
		// error, and an empty file is usually one being rewritten.
		e.Msg, e.Line = "the file is empty", 1
		e.Hint = "it must be a JSON object with version, phase, …"
	case errors.As(err, &se):
		e.Line, e.Column = lineCol(data, se.Offset)
		e.Msg = "JSON syntax error: " + se.Error()
	case errors.As(err, &te):
		// te.Offset is the end of the value; the whole file is the value
		// here, so point at where it starts.
		start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		e.Line, e.Column = lineCol(data, int64(start+1))
		e.Msg = fmt.Sprintf("the file holds a JSON %s, not a phase loop object", te.Value)
		e.Hint = "it must be a JSON object with version, phase, …"
	default:
		e.Msg = "JSON error: " + err.Error()
	}
	return e
}

// jsonLines maps each key of the top-level object in data, and each
// element of its top-level arrays ("receipts[2]"), to its 1-based line.
// data is known to hold a valid JSON object.
func jsonLines(data []byte) map[string]int {
	lines := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return lines
	}
	// Offsets only grow: count line breaks incrementally, not from the top.
	lastOff, lastLine := 0, 1
	next := func() (off, line int) {
		off = int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		lastLine += bytes.Count(data[lastOff:off], []byte{'\n'})
		lastOff = off
		return off, lastLine
	}
	var skip json.RawMessage
	for dec.More() {
		_, line := next()
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return lines
		}
		lines[key] = line
		if off, _ := next(); off >= len(data) || data[off] != '[' {
			if dec.Decode(&skip) != nil {
				return lines
			}
			continue
		}
		if _, err := dec.Token(); err != nil {
			return lines
		}
		for i := 0; dec.More(); i++ {
			_, line := next()
			lines[fmt.Sprintf("%s[%d]", key, i)] = line
			if dec.Decode(&skip) != nil {
				return lines
			}
		}
		if _, err := dec.Token(); err != nil {
			return lines
		}
	}
	return lines
}

// lineCol converts a byte offset into a 1-based line and column. The
// column counts bytes, as editors' "go to" usually accepts.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	pre := data[:off]
	line := bytes.Count(pre, []byte{'\n'}) + 1
	col := int(off) - (bytes.LastIndexByte(pre, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}
