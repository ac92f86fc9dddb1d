package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// ref is encoding/json's reading of the fields ParseLine keeps: the
// reference FuzzParseLine compares the scanner with.
type ref struct {
	Type          string          `json:"type"`
	UUID          string          `json:"uuid"`
	ParentUUID    string          `json:"parentUuid"`
	Timestamp     string          `json:"timestamp"`
	SessionID     string          `json:"sessionId"`
	CWD           string          `json:"cwd"`
	IsSidechain   bool            `json:"isSidechain"`
	AgentID       string          `json:"agentId"`
	RequestID     string          `json:"requestId"`
	Content       json.RawMessage `json:"content"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	Message       json.RawMessage `json:"message"`
}

type refMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

type refBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Text      string          `json:"text"`
}

// cutAt is s cut as the scanner cuts: at most n bytes, at a rune.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// checkAgainstJSON compares what ParseLine read of a line that is JSON
// with what encoding/json reads of it (where both have an answer: a field
// of another type than expected the scanner skips, encoding/json fails).
func checkAgainstJSON(t *testing.T, b []byte) {
	l, ok := ParseLine(b)
	var r ref
	err := json.Unmarshal(b, &r)
	var top map[string]json.RawMessage
	isObject := json.Unmarshal(b, &top) == nil
	if !isObject {
		return
	}
	if !ok {
		t.Fatalf("a JSON object not read: %q", b)
	}
	if err != nil {
		return // a field of another type: encoding/json gives up on the line
	}
	var whole any
	if json.Unmarshal(b, &whole) != nil || caseVariant(whole) {
		return // encoding/json takes "Type" for "type"; Claude Code writes the one spelling
	}
	str := func(name, got, want string, keep int) {
		if got != cutAt(want, keep) {
			t.Fatalf("%s: scanner %q, encoding/json %q in %q", name, got, want, b)
		}
	}
	str("type", l.Type, r.Type, idKeep)
	str("uuid", l.UUID, r.UUID, idKeep)
	str("parentUuid", l.ParentUUID, r.ParentUUID, idKeep)
	str("sessionId", l.SessionID, r.SessionID, idKeep)
	str("cwd", l.CWD, r.CWD, 4096)
	str("agentId", l.AgentID, r.AgentID, idKeep)
	str("requestId", l.RequestID, r.RequestID, idKeep)
	if l.IsSidechain != r.IsSidechain {
		t.Fatalf("isSidechain differs in %q", b)
	}
	if ts, err := time.Parse(time.RFC3339Nano, cutAt(r.Timestamp, 64)); err == nil && !ts.Equal(l.Timestamp) {
		t.Fatalf("timestamp %v, want %v in %q", l.Timestamp, ts, b)
	}
	var content string
	if json.Unmarshal(r.Content, &content) == nil && len(r.Content) > 0 {
		str("content", l.Text, content, textKeep)
		if l.TextHash != fnv64s(content) {
			t.Fatalf("content hash differs in %q", b)
		}
	}
	var m refMessage
	if len(r.Message) == 0 || json.Unmarshal(r.Message, &m) != nil {
		return
	}
	str("message.id", l.MsgID, m.ID, idKeep)
	str("message.model", l.Model, m.Model, idKeep)
	var u map[string]json.Number
	if json.Unmarshal(m.Usage, &u) == nil {
		for k, p := range map[string]int64{"input_tokens": l.Usage.Input, "output_tokens": l.Usage.Output,
			"cache_creation_input_tokens": l.Usage.CacheCreation, "cache_read_input_tokens": l.Usage.CacheRead} {
			if n, err := u[k].Int64(); err == nil && n != p {
				t.Fatalf("usage %s %d, want %d in %q", k, p, n, b)
			}
		}
	}
	var blocks []refBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			str("message.content", l.Text, s, textKeep)
		}
		return
	}
	i := 0
	for _, rb := range blocks {
		switch rb.Type {
		case "text", "thinking", "redacted_thinking", "tool_use", "tool_result":
		default:
			continue
		}
		if i >= len(l.Blocks) {
			t.Fatalf("%d blocks read, more in %q", len(l.Blocks), b)
		}
		lb := l.Blocks[i]
		i++
		switch rb.Type {
		case "tool_use":
			str("block.id", lb.ID, rb.ID, idKeep)
			str("block.name", lb.Name, rb.Name, idKeep)
			var in map[string]json.RawMessage
			if json.Unmarshal(rb.Input, &in) == nil {
				for _, f := range lb.Input {
					if f.Key == "questions" {
						continue
					}
					var v string
					if json.Unmarshal(in[f.Key], &v) == nil {
						str("input."+f.Key, f.Value, v, fieldKeep)
					}
				}
			}
		case "tool_result":
			str("block.tool_use_id", lb.ToolUseID, rb.ToolUseID, idKeep)
			if lb.IsError != rb.IsError {
				t.Fatalf("is_error differs in %q", b)
			}
		case "text":
			str("block.text", lb.Text, rb.Text, textKeep)
		}
	}
	if i != len(l.Blocks) {
		t.Fatalf("%d blocks read, %d in %q", len(l.Blocks), i, b)
	}
}

// knownKeys are the keys the reader looks for.
var knownKeys = strings.Fields(`type uuid parentUuid timestamp sessionId cwd isSidechain isMeta agentId requestId message content
	toolUseResult id model role stop_reason usage input_tokens output_tokens cache_creation_input_tokens cache_read_input_tokens
	cache_creation ephemeral_1h_input_tokens text name input tool_use_id is_error questions question`)

// caseVariant says whether v holds a key that is one of knownKeys in
// another case.
func caseVariant(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			for _, kk := range knownKeys {
				if k != kk && strings.EqualFold(k, kk) {
					return true
				}
			}
			if caseVariant(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if caseVariant(e) {
				return true
			}
		}
	}
	return false
}

// FuzzParseLine: the line reader never panics, and on every line that is
// a JSON object it reads what encoding/json reads (escapes, surrogates,
// invalid UTF-8, numbers, duplicate keys, cut strings).
func FuzzParseLine(f *testing.F) {
	for _, dir := range []string{"era-sidechain", "era-subagents"} {
		filepath.WalkDir(filepath.Join("testdata", dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := os.ReadFile(p)
				for _, line := range strings.Split(string(data), "\n") {
					f.Add([]byte(line))
				}
			}
			return nil
		})
	}
	f.Add([]byte(`{"type":"user","message":{"content":"a\ud83d\ude00b\ud800c\u00e9\"\\\/\b\f\n\r\t"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"usage":{"input_tokens":1e3,"output_tokens":-0.5,"cache_read_input_tokens":99999999999999999999}}}`))
	f.Add([]byte(`{"type":"x","type":"y","uuid":"\xff\xfe"}`))
	f.Add([]byte(`{"message":{"content":[{"type":"tool_use","input":{"command":"ls","n":[1,{"a":"}"}]}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstJSON(t, b)
	})
}

// Lines that are not one JSON object are not read, whatever they hold.
func TestParseLineRefusesWhatIsNotAnObject(t *testing.T) {
	for _, s := range []string{``, `null`, `[1]`, `"x"`, `{"a":1}{"b":2}`, `{"a":`, `{"a":1,}`, `{"a" 1}`, `{"type":"user"`, `{"message":{"content":[`, "\x00"} {
		if _, ok := ParseLine([]byte(s)); ok {
			t.Errorf("%q read as a line", s)
		}
	}
	if l, ok := ParseLine([]byte(` {"type":"user"} `)); !ok || l.Type != "user" {
		t.Errorf("white space around the object: %v %+v", ok, l)
	}
}

// Long strings are cut (at a rune) and hashed whole.
func TestParseLineCutsLongStrings(t *testing.T) {
	long := strings.Repeat("é", 2000)
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"content": long}})
	l, ok := ParseLine(b)
	if !ok || len(l.Text) > textKeep || !utf8.ValidString(l.Text) || l.TextHash != fnv64s(long) {
		t.Fatalf("cut %d bytes, valid %v, hash %v", len(l.Text), utf8.ValidString(l.Text), l.TextHash == fnv64s(long))
	}
}
