package agent

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

// hookAt records a Notification event for the project as aot-tui hook
// does, at the time when.
func hookAt(t *testing.T, dir, project, session, typ, msg string, when time.Time) {
	t.Helper()
	in := HookInput{SessionID: session, CWD: project, HookEventName: "Notification", NotificationType: typ, Message: msg}
	if _, err := RecordHook(dir, in, when, time.Second); err != nil {
		t.Fatal(err)
	}
}

// Needs you, from the hook: a permission prompt waits on the tool calls
// without a result at its time — another worker going on does not clear
// it, the result of the call it waits on does; an idle prompt clears when
// the session writes anything after it; a newer event of the session
// replaces an older one.
func TestNeedsYouFromTheHook(t *testing.T) {
	p := newProject(t)
	hooks := t.TempDir()
	s := "88888888-8888-4888-8888-888888888888"
	main := p.opts(s)
	w1 := lineOpts{session: s, cwd: p.dir, sidechain: true, agentID: "w1"}
	w2 := lineOpts{session: s, cwd: p.dir, sidechain: true, agentID: "w2"}
	main.uuid, main.at = "m-1", at(0)
	appendFile(t, p.session(s), userText(main, "go"))
	w1.uuid, w1.at = "a-1", at(1)
	appendFile(t, p.subagent(s, "w1"), assistant(w1, "r1", opus, tok(1, 1, 0, 0), toolUse("t1", "Bash", map[string]any{"command": "rm -rf build"})))
	w2.uuid, w2.at = "b-1", at(1)
	appendFile(t, p.subagent(s, "w2"), assistant(w2, "r2", opus, tok(1, 1, 0, 0), toolUse("t2", "Read", map[string]any{"file_path": p.dir + "/go.mod"})))
	w2.uuid, w2.at = "b-2", at(1.5)
	appendFile(t, p.subagent(s, "w2"), toolResult(w2, "t2", "module x", ""))
	hookAt(t, hooks, p.dir, s, "permission_prompt", "Claude needs your permission to use Bash", at(2))

	f := newFollower(context.Background(), Options{Project: p.dir, Root: p.root, HookFile: HookEventsFile(hooks, p.dir)})
	read := func() *Activity {
		f.scan(true)
		return f.snapshot()
	}
	n := read().NeedsYou
	if n == nil || n.Inferred || n.Kind != "permission_prompt" || n.Message != "Claude needs your permission to use Bash" || n.Agent != "agent" || !n.Since.Equal(at(2)) {
		t.Fatalf("needs you %+v", n)
	}
	// The other worker goes on: still waiting.
	w2.uuid, w2.at = "b-3", at(3)
	appendFile(t, p.subagent(s, "w2"), assistant(w2, "r3", opus, tok(1, 1, 0, 0), toolUse("t3", "Grep", map[string]any{"pattern": "x"})))
	w2.uuid, w2.at = "b-4", at(3.5)
	appendFile(t, p.subagent(s, "w2"), toolResult(w2, "t3", "", ""))
	if n := read().NeedsYou; n == nil || n.Kind != "permission_prompt" {
		t.Fatalf("cleared by another worker's work: %+v", n)
	}
	// The call it waited on has its result: cleared.
	w1.uuid, w1.at = "a-2", at(4)
	appendFile(t, p.subagent(s, "w1"), toolResult(w1, "t1", "", ""))
	a := read()
	if a.NeedsYou != nil || !a.HookSeen {
		t.Fatalf("after the result: %+v, hook seen %v", a.NeedsYou, a.HookSeen)
	}

	// An idle prompt later: waiting until the session writes again.
	hookAt(t, hooks, p.dir, s, "idle_prompt", "Claude is waiting for your input", at(10))
	if n := read().NeedsYou; n == nil || n.Kind != "idle_prompt" {
		t.Fatalf("idle prompt: %+v", n)
	}
	main.uuid, main.at = "m-2", at(11)
	appendFile(t, p.session(s), userText(main, "carry on"))
	if n := read().NeedsYou; n != nil {
		t.Fatalf("after the prompt: %+v", n)
	}

	// Another kind of notification (auth_success) waits for no one.
	hookAt(t, hooks, p.dir, s, "auth_success", "signed in", at(20))
	if n := read().NeedsYou; n != nil {
		t.Fatalf("auth_success: %+v", n)
	}
}

// Without the hook, a question tool's call with no answer is a person
// waited for, said to be inferred; its answer clears it.
func TestNeedsYouInferred(t *testing.T) {
	p := newProject(t)
	s := "99999999-9999-4999-8999-999999999999"
	o := p.opts(s)
	o.uuid, o.at = "u1", at(0)
	appendFile(t, p.session(s), assistant(o, "m1", opus, tok(1, 1, 0, 0),
		toolUse("q1", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": "Which database?", "options": []any{}}}})))
	f := newFollower(context.Background(), Options{Project: p.dir, Root: p.root})
	f.scan(true)
	a := f.snapshot()
	if n := a.NeedsYou; n == nil || !n.Inferred || n.Kind != "question" || n.Message != "AskUserQuestion Which database?" || a.HookSeen {
		t.Fatalf("needs you %+v, hook seen %v", a.NeedsYou, a.HookSeen)
	}
	o.uuid, o.at = "u2", at(5)
	appendFile(t, p.session(s), toolResult(o, "q1", "Postgres", ""))
	f.scan(false)
	if n := f.snapshot().NeedsYou; n != nil {
		t.Fatalf("after the answer: %+v", n)
	}
}

// The hook's file stays small: past 64 KiB it is cut back to its last
// 16 KiB of whole lines, newest kept.
func TestHookEventsStayBounded(t *testing.T) {
	dir := t.TempDir()
	project := t.TempDir()
	var path string
	for i := range 600 {
		var err error
		path, err = RecordHook(dir, HookInput{SessionID: "s", CWD: project, HookEventName: "Notification", NotificationType: "idle_prompt",
			Message: strings.Repeat("m", 150) + itoa(i)}, at(float64(i)), time.Second)
		if err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > maxEvents {
		t.Fatalf("size %v, %v", fi.Size(), err)
	}
	evs, err := ReadHookEvents(path)
	if err != nil || len(evs) < 50 || !strings.HasSuffix(evs[len(evs)-1].Message, "599") {
		t.Fatalf("%d events, last %q, %v", len(evs), evs[len(evs)-1].Message, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 { // the file and its lock
		t.Errorf("files left: %v", entries)
	}
	if filepath.Dir(path) != dir || !strings.HasSuffix(path, ".events.jsonl") {
		t.Errorf("path %s", path)
	}
}

// hostile is text with everything that must never reach a terminal raw:
// an escape sequence (retitle), OSC 52 (clipboard), C1 CSI, a bidi
// override, a line break, DEL and an invalid byte.
const hostile = "a\x1b]0;owned\x07b\x1b]52;c;ZXZpbA==\x07c\u009b31md\u202ee\nf\x7fg\xff"

// TestEveryStringIsSafe reads transcripts and hook events whose every
// string is hostile and walks the snapshot: no string in it, map keys
// included, holds a character internal/textsafe calls unsafe. The
// package sanitises what it keeps; callers draw it as it is.
func TestEveryStringIsSafe(t *testing.T) {
	p := newProject(t)
	hooks := t.TempDir()
	s := "aaaaaaaa-" + hostile
	o := p.opts(s)
	o.uuid, o.at = hostile, at(0)
	appendFile(t, p.session("s1"), userText(o, hostile))
	o.uuid, o.at = "u2"+hostile, at(1)
	appendFile(t, p.session("s1"), assistant(o, "m"+hostile, "claude-opus-"+hostile, tok(1, 1, 1, 1),
		toolUse("t1", "Task", map[string]any{"description": "A1 " + hostile, "prompt": hostile, "subagent_type": hostile}),
		toolUse("t2", "Bash"+hostile, map[string]any{"command": hostile}),
		toolUse("t3", "Bash", map[string]any{"command": "python3 update_atom.py A" + hostile + " in_progress"}),
		toolUse("t4", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{"question": hostile}}}),
		map[string]any{"type": hostile}))
	c := lineOpts{session: "s1", cwd: p.dir, sidechain: true, agentID: hostile}
	c.uuid, c.at = "c1", at(2)
	appendFile(t, p.subagent("s1", "x"), userText(c, hostile))
	c.uuid, c.at = "c2", at(3)
	appendFile(t, p.subagent("s1", "x"), assistant(c, "m2", hostile, tok(1, 1, 1, 1), toolUse("t5", "Edit", map[string]any{"file_path": "/" + hostile})))
	appendFile(t, p.session("s1"), `{"type":"`+strings.ReplaceAll(hostile, "\n", `\n`)+`"}`+"\n")
	appendFile(t, p.session("s1"), jsonLine(map[string]any{"type": hostile, "uuid": "z"}))
	hookAt(t, hooks, p.dir, "s1", "permission_prompt", hostile, at(4))
	hookAt(t, hooks, p.dir, hostile, "idle_prompt", hostile, at(5))

	a := Open(Options{Project: p.dir, Root: p.root, HookFile: HookEventsFile(hooks, p.dir)})
	if a.Total.Responses != 2 || a.NeedsYou == nil {
		t.Fatalf("responses %d, needs you %+v", a.Total.Responses, a.NeedsYou)
	}
	n := 0
	walkStrings(reflect.ValueOf(a), "", func(path, s string) {
		n++
		for _, r := range s {
			if textsafe.Unsafe(r) || r == '\n' {
				t.Errorf("%s holds %U: %q", path, r, s)
				return
			}
		}
		if strings.ContainsRune(s, '\ufffd') && !strings.Contains(s, `\x`) {
			return
		}
	})
	if n < 30 {
		t.Fatalf("only %d strings walked", n)
	}
}

// walkStrings calls fn with every string reachable from v (fields, slice
// and map elements, map keys, through pointers).
func walkStrings(v reflect.Value, path string, fn func(path, s string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), path, fn)
		}
	case reflect.String:
		fn(path, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkStrings(v.Field(i), path+"."+v.Type().Field(i).Name, fn)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkStrings(v.Index(i), path+"["+itoa(i)+"]", fn)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkStrings(k, path+"{key}", fn)
			walkStrings(v.MapIndex(k), path+"{}", fn)
		}
	}
}
