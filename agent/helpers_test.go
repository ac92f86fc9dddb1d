package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Lines in the transcript format, for the tests that write transcripts
// as they go (the fixtures under testdata are written by hand).

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

type lineOpts struct {
	session, uuid, parent, cwd string
	sidechain                  bool
	agentID                    string
	at                         time.Time
}

func base(o lineOpts, typ string) map[string]any {
	m := map[string]any{
		"parentUuid": nil, "isSidechain": o.sidechain, "userType": "external", "cwd": o.cwd, "sessionId": o.session,
		"version": "2.1.200", "type": typ, "uuid": o.uuid, "timestamp": o.at.Format(time.RFC3339Nano),
	}
	if o.parent != "" {
		m["parentUuid"] = o.parent
	}
	if o.agentID != "" {
		m["agentId"] = o.agentID
	}
	return m
}

func jsonLine(m map[string]any) string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func userText(o lineOpts, text string) string {
	m := base(o, "user")
	m["message"] = map[string]any{"role": "user", "content": text}
	return jsonLine(m)
}

func usageOf(t Tokens) map[string]any {
	return map[string]any{"input_tokens": t.Input, "output_tokens": t.Output, "cache_creation_input_tokens": t.CacheCreation, "cache_read_input_tokens": t.CacheRead}
}

func assistant(o lineOpts, msgID, model string, u Tokens, blocks ...map[string]any) string {
	m := base(o, "assistant")
	content := make([]any, len(blocks))
	for i, b := range blocks {
		content[i] = b
	}
	m["message"] = map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model, "content": content, "usage": usageOf(u)}
	m["requestId"] = "req_" + msgID
	return jsonLine(m)
}

func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolResult(o lineOpts, id string, content string, agentID string) string {
	m := base(o, "user")
	m["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}
	if agentID != "" {
		m["toolUseResult"] = map[string]any{"status": "completed", "agentId": agentID}
	}
	return jsonLine(m)
}

// appendFile appends text to path (made with its directory if missing).
func appendFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// project is a temporary project directory and a Claude Code projects
// root with its transcript directory made.
type project struct {
	dir, root, tdir string
}

func newProject(t testing.TB) project {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	root := t.TempDir()
	name, _ := DirName(dir)
	p := project{dir: dir, root: root, tdir: filepath.Join(root, name)}
	if err := os.MkdirAll(p.tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p project) session(id string) string { return filepath.Join(p.tdir, id+".jsonl") }

func (p project) subagent(session, id string) string {
	return filepath.Join(p.tdir, session, "subagents", "agent-"+id+".jsonl")
}

func (p project) opts(session string) lineOpts { return lineOpts{session: session, cwd: p.dir} }
