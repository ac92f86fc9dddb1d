package agent

import (
	"bytes"
	"time"
)

// Line is what the reader keeps of one transcript line: the few fields it
// needs, strings decoded but not yet sanitised (the tracker sanitises
// what it keeps, see Activity), long texts cut or reduced to a hash.
type Line struct {
	// Type is the line's "type": user, assistant, system, summary, or a
	// bookkeeping type; "" when the line had none.
	Type        string
	UUID        string
	ParentUUID  string
	Timestamp   time.Time
	SessionID   string
	CWD         string
	IsSidechain bool
	IsMeta      bool
	// AgentID is the line's own "agentId" (sub-agent files of newer
	// versions carry it); ResultAgentID the toolUseResult's, which names
	// the sub-agent a Task result came from.
	AgentID       string
	ResultAgentID string
	RequestID     string
	// Message is the Anthropic Messages-shaped "message".
	MsgID      string
	Model      string
	Role       string
	StopReason string
	Usage      Tokens
	HasUsage   bool
	// Text is a message's string content (a user's prompt), or a system
	// line's "content", cut to textKeep bytes; TextHash is the FNV-1a hash
	// of all of it (a sub-agent's first prompt is matched to the Task that
	// sent it by this hash).
	Text     string
	TextHash uint64
	HasText  bool
	Blocks   []Block
	// Unknown counts content blocks of kinds the reader does not know,
	// by kind (UnknownKinds).
	UnknownKinds []string
}

// BlockKind is a content block's kind.
type BlockKind uint8

// The content block kinds the reader knows.
const (
	BlockText BlockKind = iota + 1
	BlockThinking
	BlockToolUse
	BlockToolResult
)

// Block is one content block of a message.
type Block struct {
	Kind BlockKind
	// Text is a text block's text, cut to textKeep bytes; TextHash the
	// hash of all of it.
	Text     string
	TextHash uint64
	// A tool_use: its id, name and the input fields a summary uses.
	ID    string
	Name  string
	Input []Field
	// A tool_result: the tool_use it answers and whether it failed.
	ToolUseID string
	IsError   bool
}

// Field is one top-level field of a tool_use input, a string (cut to
// fieldKeep bytes; Hash is the hash of all of it); for an array of objects
// (AskUserQuestion's questions) the first object's "question".
type Field struct {
	Key   string
	Value string
	Hash  uint64
}

const (
	// textKeep is how much of a text is kept: enough for a summary line
	// and the marks the tracker looks for (the stop hook's "AoT iteration N").
	textKeep = 512
	// fieldKeep is how much of a tool input's string field is kept.
	fieldKeep = 1024
	// idKeep bounds ids, names and models.
	idKeep = 200
)

// ParseLine reads one transcript line. ok is false when the line is not a
// JSON object (a torn or foreign line): the caller counts it as not
// recognised. Unknown fields and content blocks are skipped; it never
// panics (FuzzParseLine).
func ParseLine(b []byte) (l Line, ok bool) {
	b = bytes.TrimSpace(b)
	s := &scanner{b: b}
	ok = s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			l.Type, _ = s.str(idKeep)
		case "uuid":
			l.UUID, _ = s.str(idKeep)
		case "parentUuid":
			l.ParentUUID, _ = s.str(idKeep)
		case "timestamp":
			ts, _ := s.str(64)
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				l.Timestamp = t
			}
		case "sessionId":
			l.SessionID, _ = s.str(idKeep)
		case "cwd":
			l.CWD, _ = s.str(4096)
		case "isSidechain":
			l.IsSidechain, _ = s.boolean()
		case "isMeta":
			l.IsMeta, _ = s.boolean()
		case "agentId":
			l.AgentID, _ = s.str(idKeep)
		case "requestId":
			l.RequestID, _ = s.str(idKeep)
		case "message":
			parseMessage(s, &l)
		case "content":
			// a system line's own content
			if s.peek() == '"' {
				l.TextHash, l.Text, l.HasText = s.strHash(textKeep)
			} else {
				return false
			}
		case "toolUseResult":
			if s.peek() != '{' {
				return false
			}
			s.object(func(k []byte) bool {
				if string(k) == "agentId" {
					l.ResultAgentID, _ = s.str(idKeep)
					return true
				}
				return false
			})
		default:
			return false
		}
		return true
	})
	if s.bad || !ok {
		return Line{}, false
	}
	if s.peek() != 0 {
		return Line{}, false // more after the object: not one line
	}
	return l, true
}

func parseMessage(s *scanner, l *Line) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	s.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			l.MsgID, _ = s.str(idKeep)
		case "model":
			l.Model, _ = s.str(idKeep)
		case "role":
			l.Role, _ = s.str(idKeep)
		case "stop_reason":
			l.StopReason, _ = s.str(idKeep)
		case "usage":
			l.HasUsage = parseUsage(s, &l.Usage)
		case "content":
			switch s.peek() {
			case '"':
				l.TextHash, l.Text, l.HasText = s.strHash(textKeep)
			case '[':
				s.array(func() bool {
					if s.peek() != '{' {
						return false
					}
					parseBlock(s, l)
					return true
				})
			default:
				return false
			}
		default:
			return false
		}
		return true
	})
}

func parseUsage(s *scanner, t *Tokens) bool {
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "input_tokens":
			t.Input, _ = s.number()
		case "output_tokens":
			t.Output, _ = s.number()
		case "cache_creation_input_tokens":
			t.CacheCreation, _ = s.number()
		case "cache_read_input_tokens":
			t.CacheRead, _ = s.number()
		case "cache_creation":
			s.object(func(k []byte) bool {
				if string(k) == "ephemeral_1h_input_tokens" {
					t.CacheCreation1h, _ = s.number()
					return true
				}
				return false
			})
		default:
			return false
		}
		return true
	})
}

func parseBlock(s *scanner, l *Line) {
	var b Block
	var kind string
	s.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			kind, _ = s.str(idKeep)
		case "text":
			b.TextHash, b.Text, _ = s.strHash(textKeep)
		case "id":
			b.ID, _ = s.str(idKeep)
		case "name":
			b.Name, _ = s.str(idKeep)
		case "input":
			if s.peek() != '{' {
				return false
			}
			b.Input = parseInput(s)
		case "tool_use_id":
			b.ToolUseID, _ = s.str(idKeep)
		case "is_error":
			b.IsError, _ = s.boolean()
		default:
			return false
		}
		return true
	})
	switch kind {
	case "text":
		b.Kind = BlockText
	case "thinking", "redacted_thinking":
		b.Kind = BlockThinking
	case "tool_use":
		b.Kind = BlockToolUse
	case "tool_result":
		b.Kind = BlockToolResult
	default:
		if kind == "" {
			kind = "(none)"
		}
		l.UnknownKinds = append(l.UnknownKinds, kind)
		return
	}
	if b.Kind != BlockText {
		b.Text, b.TextHash = "", 0
	}
	if b.Kind != BlockToolUse {
		b.ID, b.Name, b.Input = "", "", nil
	}
	if b.Kind != BlockToolResult {
		b.ToolUseID, b.IsError = "", false
	}
	l.Blocks = append(l.Blocks, b)
}

// maxFields bounds the fields kept of one tool input.
const maxFields = 16

// parseInput keeps a tool input's top-level string fields and the first
// question of a questions array.
func parseInput(s *scanner) []Field {
	var out []Field
	set := func(f Field) {
		for i := range out {
			if out[i].Key == f.Key {
				out[i] = f // the last of a repeated key, as JSON's readers take it
				return
			}
		}
		if len(out) < maxFields {
			out = append(out, f)
		}
	}
	s.object(func(key []byte) bool {
		switch s.peek() {
		case '"':
			h, v, _ := s.strHash(fieldKeep)
			set(Field{Key: string(key), Value: v, Hash: h})
			return true
		case '[':
			if string(key) != "questions" {
				return false
			}
			first := true
			s.array(func() bool {
				if !first || s.peek() != '{' {
					return false
				}
				first = false
				s.object(func(k []byte) bool {
					if string(k) != "question" || s.peek() != '"' {
						return false
					}
					h, v, _ := s.strHash(fieldKeep)
					set(Field{Key: "questions", Value: v, Hash: h})
					return true
				})
				return true
			})
			return true
		}
		return false
	})
	return out
}

// field is the value of the input field key ("" when absent).
func (b *Block) field(key string) string {
	for _, f := range b.Input {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

func (b *Block) fieldHash(key string) (uint64, bool) {
	for _, f := range b.Input {
		if f.Key == key {
			return f.Hash, true
		}
	}
	return 0, false
}
