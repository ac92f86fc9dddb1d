package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/agent"
)

// activityProject is a project with a running loop's state file and, in
// a Claude Code directory of its own, the transcripts of agent's
// era-subagents fixture moved to it (their cwd rewritten), the state
// file dated in the fixture's hour so that the responses are the loop's.
func activityProject(t *testing.T) (project, claude string) {
	t.Helper()
	project = t.TempDir()
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	state := writeFile(t, project, ".claude/aot-loop-state.md", mustRead(t, testdata("rich.md")))
	when := time.Date(2026, 11, 21, 11, 0, 40, 0, time.UTC)
	if err := os.Chtimes(state, when, when); err != nil {
		t.Fatal(err)
	}
	claude = t.TempDir()
	name, _ := agent.DirName(project)
	src := filepath.Join("..", "..", "agent", "testdata", "era-subagents", "-home-u-shop")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(claude, "projects", name), rel, strings.ReplaceAll(string(data), "/home/u/shop", project))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return project, claude
}

// status reads the loop's sessions: what runs now, tokens and the
// estimated cost, and — once aot-tui hook recorded a permission prompt of
// the session — that the loop needs you; --no-activity reads none of it.
func TestStatusActivity(t *testing.T) {
	project, claude := activityProject(t)
	state := t.TempDir()
	env := append(os.Environ(), "CLAUDE_CONFIG_DIR="+claude, "XDG_STATE_HOME="+state)
	status := func(args ...string) (int, string, string) {
		cmd := exec.Command(binary(t), append([]string{"status", project}, args...)...)
		cmd.Env = env
		return runCmd(t, cmd)
	}
	code, out, errs := status("--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	a := decodeObject(t, out)["activity"].(map[string]any)
	sameKeys(t, "activity", a, "found", "since", "dirs", "sessions", "agents", "now", "needs_you", "hook_seen", "tokens", "responses", "cost",
		"by_atom", "by_iteration", "iterations_from", "lines", "unrecognised", "notes")
	now := a["now"].(map[string]any)
	tokens := a["tokens"].(map[string]any)
	cost := a["cost"].(map[string]any)
	if a["found"] != true || a["agents"] != 4.0 || now["agent"] != "A3 worker" || now["summary"] != "go test ./internal/auth/..." ||
		tokens["input"] != 33.0 || tokens["output"] != 535.0 || tokens["cache_creation"] != 5400.0 || tokens["cache_read"] != 6500.0 ||
		cost["estimate"] != true || cost["usd"].(float64) < 0.0322 || cost["usd"].(float64) > 0.0323 || a["needs_you"] != nil {
		t.Fatalf("activity %s", out[strings.Index(out, `"activity"`):])
	}
	byAtom := a["by_atom"].(map[string]any)
	if byAtom["A3"].(map[string]any)["responses"] != 2.0 || byAtom["(none)"].(map[string]any)["responses"] != 4.0 {
		t.Fatalf("by atom %v", byAtom)
	}

	// The hook records a permission prompt of the session.
	hook := exec.Command(binary(t), "hook")
	hook.Env = env
	hook.Stdin = strings.NewReader(`{"session_id":"22222222-2222-4222-8222-222222222222","cwd":` + mustJSON(project) +
		`,"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`)
	if out, err := hook.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook: %v %s", err, out)
	}
	_, out, _ = status("--json")
	a = decodeObject(t, out)["activity"].(map[string]any)
	n, _ := a["needs_you"].(map[string]any)
	if n == nil || n["kind"] != "permission_prompt" || n["inferred"] != false || a["hook_seen"] != true {
		t.Fatalf("needs you %v", a["needs_you"])
	}
	_, out, _ = status()
	for _, want := range []string{"activity  ◐ A3 worker: Bash go test ./internal/auth/... · ", "needs you ⚠ Claude needs your permission to use Bash (",
		"tokens    in 33 · out 535 · cache write 5400 · cache read 6500 · ≈ $0.03 (estimate, prices of 2026-11-27)"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	_, out, _ = status("--json", "--no-activity")
	if m := decodeObject(t, out); m["activity"] != nil {
		t.Fatalf("--no-activity: %v", m["activity"])
	}
	if _, out, _ = status("--no-activity"); strings.Contains(out, "activity") || strings.Contains(out, "tokens") {
		t.Fatalf("--no-activity:\n%s", out)
	}
}

// status --scan reads each AoT loop's sessions as status does: each row
// has the very activity status --json prints for the loop, a session
// waiting for a person (the hook told it, run as Claude Code runs it)
// makes the loop's attention needs_you with its message, first of the
// attention classes, and the text form marks it and gives the estimated
// cost; --no-activity reads none of it.
func TestStatusScanActivity(t *testing.T) {
	project, claude := activityProject(t)
	state := t.TempDir()
	env := append(os.Environ(), "CLAUDE_CONFIG_DIR="+claude, "XDG_STATE_HOME="+state)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Env = env
		code, out, errs := runCmd(t, cmd)
		if code != 0 {
			t.Fatalf("%q: exit %d %s", args, code, errs)
		}
		return out
	}
	loopOf := func(out string) map[string]any {
		t.Helper()
		loops := decodeObject(t, out)["loops"].([]any)
		if len(loops) != 1 {
			t.Fatalf("%d loops: %s", len(loops), out)
		}
		return loops[0].(map[string]any)
	}
	same := func(a, b any) bool {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return string(x) == string(y)
	}
	single := decodeObject(t, run("status", project, "--json"))["activity"]
	row := loopOf(run("status", "--scan", project, "--depth", "0", "--json"))
	if row["activity"] == nil || !same(row["activity"], single) {
		t.Fatalf("the row's activity is not status --json's:\n%v\n%v", row["activity"], single)
	}
	// rich.md is near its stall limit: that is its attention, until a
	// session waits for a person.
	if row["attention"] != "near_limit" {
		t.Fatalf("attention %v", row["attention"])
	}
	hook := exec.Command(binary(t), "hook")
	hook.Env = env
	hook.Stdin = strings.NewReader(`{"session_id":"22222222-2222-4222-8222-222222222222","cwd":` + mustJSON(project) +
		`,"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`)
	if out, err := hook.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook: %v %s", err, out)
	}
	out := run("status", "--scan", project, "--depth", "0", "--json")
	row = loopOf(out)
	single = decodeObject(t, run("status", project, "--json"))["activity"]
	sum := decodeObject(t, out)["summary"].(map[string]any)
	if row["attention"] != "needs_you" || row["reason"] != "needs you: Claude needs your permission to use Bash" || !same(row["activity"], single) ||
		sum["needs_you"] != 1.0 || sum["needs_attention"] != 1.0 {
		t.Fatalf("with the hook's event: attention %v, reason %v, summary %v\n%v", row["attention"], row["reason"], sum, row["activity"])
	}
	text := run("status", "--scan", project, "--depth", "0")
	for _, want := range []string{"≈cost", " $0.03 ", "└ needs you: Claude needs your permission to use Bash", "└ stall 2/3",
		"≈cost: the estimated cost of each loop's Claude Code sessions since it began, at the prices of 2026-11-27"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if lines := strings.Split(text, "\n"); len(lines) < 3 || !strings.HasPrefix(lines[2], "? ") {
		t.Errorf("the loop's line is not marked ?:\n%s", text)
	}

	row = loopOf(run("status", "--scan", project, "--depth", "0", "--json", "--no-activity"))
	if row["activity"] != nil || row["attention"] != "near_limit" {
		t.Fatalf("--no-activity: activity %v, attention %v", row["activity"], row["attention"])
	}
	if text := run("status", "--scan", project, "--depth", "0", "--no-activity"); strings.Contains(text, "cost") || strings.Contains(text, "needs you") {
		t.Fatalf("--no-activity:\n%s", text)
	}
}
