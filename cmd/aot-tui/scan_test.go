package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// scanTree lays out a few projects: api (seed-complete, whose inline
// comment after status: running makes the loop's stop hook end it), web
// (rich: stall 2/3 with a redirect pending), mobile (a phase loop), broken
// (does not parse), team/deep/x (three levels down) and one under
// node_modules.
func scanTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	read := func(name string) string {
		data, err := os.ReadFile(testdata(name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	writeFile(t, root, "api/.claude/aot-loop-state.md", read("seed-complete.md"))
	writeFile(t, root, "web/.claude/aot-loop-state.md", read("rich.md"))
	writeFile(t, root, "mobile/.claude/autonomous-loop.json", read("seed-phase-loop.json"))
	writeFile(t, root, "broken/.claude/aot-loop-state.md", read("invalid/syntax-error.md"))
	writeFile(t, root, "team/deep/x/.claude/aot-loop-state.md", read("seed-initial-legacy.md"))
	writeFile(t, root, "node_modules/dep/.claude/aot-loop-state.md", read("seed-complete.md"))
	// Recency orders the loops that need no attention: api, mobile, x.
	now := time.Now()
	for rel, ago := range map[string]time.Duration{"api/.claude/aot-loop-state.md": time.Minute, "mobile/.claude/autonomous-loop.json": 2 * time.Minute,
		"team/deep/x/.claude/aot-loop-state.md": 3 * time.Minute, "web/.claude/aot-loop-state.md": 10 * time.Minute} {
		if err := os.Chtimes(filepath.Join(root, rel), now.Add(-ago), now.Add(-ago)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestStatusScanJSON(t *testing.T) {
	root := scanTree(t)
	code, out, errOut := cli(t, "status", "--scan", root, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if keys := sortedKeys(doc); !slices.Equal(keys, []string{"depth", "dirs", "loops", "summary", "watch"}) {
		t.Fatalf("top-level keys %q", keys)
	}
	var summary map[string]int
	var loops []map[string]any
	var dirs []string
	if err := json.Unmarshal(doc["summary"], &summary); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc["loops"], &loops); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc["dirs"], &dirs); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(root)
	if len(dirs) != 1 || dirs[0] != abs || string(doc["depth"]) != "4" {
		t.Fatalf("dirs %q depth %s", dirs, doc["depth"])
	}
	wantSummary := map[string]int{"loops": 5, "running": 3, "needs_attention": 3, "needs_you": 0, "pending": 1, "completed": 0, "stopped": 0, "invalid": 1}
	if !mapsEqual(summary, wantSummary) {
		t.Fatalf("summary %v, want %v", summary, wantSummary)
	}
	var names []string
	for _, l := range loops {
		names = append(names, l["name"].(string))
		for _, k := range []string{"path", "project", "name", "kind", "file", "status", "goal", "iteration", "max_iterations",
			"stall_count", "max_stall_count", "summary", "redirect_requested", "stop_requested", "attention", "changed"} {
			if _, ok := l[k]; !ok {
				t.Fatalf("loop %s lacks key %q: %v", l["name"], k, l)
			}
		}
	}
	// Attention first (api whose hook will end it and web near its stall
	// limit, the more recent first; broken invalid), then the rest by
	// recency.
	if want := []string{"api", "web", "broken", "mobile", "team/deep/x"}; !slices.Equal(names, want) {
		t.Fatalf("order %q, want %q", names, want)
	}
	api, web, broken, mobile := loops[0], loops[1], loops[2], loops[3]
	if web["attention"] != "near_limit" || web["redirect_requested"] != true || web["stall_count"] != 2.0 || web["max_stall_count"] != 3.0 ||
		!strings.Contains(web["reason"].(string), "stall 2/3") {
		t.Fatalf("web: %v", web)
	}
	if broken["file"] != "invalid" || broken["attention"] != "invalid" || !strings.Contains(broken["error"].(string), "line") {
		t.Fatalf("broken: %v", broken)
	}
	if api["status"] != "running" || api["iteration"] != 5.0 || api["max_iterations"] != 20.0 || api["attention"] != "near_limit" ||
		!strings.Contains(api["reason"].(string), "(inline comment, line 65): the loop will end") || api["loop_tools"] != 4.0 ||
		!strings.HasPrefix(api["loop_tool"].(string), "line 65: the stop hook reads control.status") ||
		api["goal"] != "Implement authentication feature" || api["kind"] != "aot-loop" || api["path"] != filepath.Join(abs, "api", ".claude", "aot-loop-state.md") {
		t.Fatalf("api: %v", api)
	}
	if s := api["summary"].(map[string]any); s["total"] != 5.0 || s["resolved"] != 2.0 {
		t.Fatalf("api summary: %v", s)
	}
	if mobile["kind"] != "phase-loop" || mobile["phase"] != "work" || mobile["iteration"] != 9.0 || mobile["phases_done"] != 4.0 || mobile["status"] != "running" {
		t.Fatalf("mobile: %v", mobile)
	}
	// How the live table would watch them: in trees mode the 8
	// directories walked (the root, api, web, mobile, broken, team,
	// team/deep, team/deep/x; node_modules is not entered) and the five
	// .claude ones, every loop notified.
	var watch map[string]any
	if err := json.Unmarshal(doc["watch"], &watch); err != nil {
		t.Fatal(err)
	}
	if keys := sortedKeys(watch); !slices.Equal(keys, []string{"backend", "budget", "claude_dirs", "descriptors", "dirs", "loops", "mode",
		"open_files_limit", "poll_ms", "polled", "rescan_ms"}) {
		t.Fatalf("watch keys %q", keys)
	}
	if runtime.GOOS == "linux" && (watch["mode"] != "trees" || watch["backend"] != "inotify" || watch["dirs"] != 13.0 || watch["claude_dirs"] != 5.0 ||
		watch["loops"] != 5.0 || len(watch["polled"].([]any)) != 0 || watch["poll_ms"] != 2000.0 || watch["rescan_ms"] != 0.0 || watch["budget"] != 0.0) {
		t.Fatalf("watch on Linux: %v", watch)
	}
}

// --watch claude with a budget: the .claude directories that fit are
// counted as 1 + their entries, the loops beyond it are polled, and both
// the text and the JSON say so, per loop.
func TestStatusScanWatchBudget(t *testing.T) {
	root := scanTree(t)
	// Five .claude directories of 2 descriptors each (the directory and
	// its state file), by path: api, broken, mobile, team/deep/x, web.
	code, out, errOut := cli(t, "status", "--scan", root, "--watch", "claude", "--watch-budget", "7", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Watch struct {
			Mode        string   `json:"mode"`
			Dirs        int      `json:"dirs"`
			ClaudeDirs  int      `json:"claude_dirs"`
			Descriptors int      `json:"descriptors"`
			Budget      int      `json:"budget"`
			Limit       uint64   `json:"open_files_limit"`
			Loops       int      `json:"loops"`
			Polled      []string `json:"polled"`
			RescanMS    int      `json:"rescan_ms"`
		} `json:"watch"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	w := doc.Watch
	abs, _ := filepath.Abs(root)
	wantPolled := []string{filepath.Join(abs, "team", "deep", "x", ".claude", "aot-loop-state.md"), filepath.Join(abs, "web", ".claude", "aot-loop-state.md")}
	if w.Mode != "claude" || w.Dirs != 3 || w.ClaudeDirs != 3 || w.Descriptors != 6 || w.Budget != 7 || w.Loops != 5 ||
		!slices.Equal(w.Polled, wantPolled) || w.RescanMS != 10000 || (runtime.GOOS != "windows" && w.Limit == 0) {
		t.Fatalf("watch %+v, want 3 .claude directories with 6 of 7 descriptors, %q polled", w, wantPolled)
	}
	code, out, _ = cli(t, "status", "--scan", root, "--watch", "claude", "--watch-budget", "7")
	last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
	if code != 0 || !strings.HasPrefix(last, "watching 3 .claude directories with 6 of 7 descriptors (") ||
		!strings.HasSuffix(last, "); trees walked again every 10s; 2 loops polled every 2s\n") ||
		strings.Count(out, "└ polled every 2s: its .claude directory is beyond the watch budget of 7 descriptors") != 2 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--watch", "claude", root}, "--watch goes with --scan"},
		{[]string{"status", "--watch-budget", "9", root}, "--watch-budget goes with --scan"},
		{[]string{"status", "--scan", "--watch", "kqueue", root}, `--watch "kqueue": give auto, trees or claude`},
		{[]string{"status", "--scan", "--watch-budget", "-1", root}, "--watch-budget must not be negative"},
		{[]string{"--watch", "trees", root}, "--watch goes with --scan"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestStatusScanTextAndFlags(t *testing.T) {
	root := scanTree(t)
	code, out, _ := cli(t, "status", "--scan", root)
	if code != 0 || !strings.HasPrefix(out, "fleet · 5 loops · 3 running · 3 need attention\n") ||
		!strings.Contains(out, "! web ") || !strings.Contains(out, "└ stall 2/3: one more") || !strings.Contains(out, "team/deep/x") ||
		!strings.Contains(out, "! api ") || !strings.Contains(out, "└ the stop hook reads control.status") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// --depth 2 leaves team/deep/x out; the flags come in any order.
	code, out, _ = cli(t, "status", "--json", root, "--depth", "2", "--scan")
	if code != 0 || strings.Contains(out, "team/deep/x") || !strings.Contains(out, `"loops": 4`) {
		t.Fatalf("--depth 2: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"status", "--depth", "2", root}, "--depth goes with --scan"},
		{[]string{"status", "--scan", filepath.Join(root, "api", ".claude", "aot-loop-state.md")}, "not a directory"},
		{[]string{"status", "--scan", filepath.Join(root, "nope")}, "no such directory"},
		{[]string{"status", "--scan", "-f", root}, "-f names one loop"},
		{[]string{"status", "--scan", "--depth", "-1", root}, "--depth must not be negative"},
		{[]string{"--depth", "2", root}, "--depth goes with --scan"},
		{[]string{"--scan", filepath.Join(root, "nope")}, "no such directory"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// Two directories, given as arguments after --scan.
	code, out, _ = cli(t, "status", "--scan", filepath.Join(root, "api"), filepath.Join(root, "web"), "--json")
	if code != 0 || !strings.Contains(out, `"loops": 2`) {
		t.Fatalf("two dirs: exit %d\n%s", code, out)
	}
}

// TestStatusScanLoopTools: a loop whose atoms the loop's own scripts read
// otherwise (here a comment after a status) needs no attention yet, but
// the scan marks it (~), says what (└ loop tools: …) and counts it in
// loop_tools.
func TestStatusScanLoopTools(t *testing.T) {
	root := t.TempDir()
	data, err := os.ReadFile(testdata("looptools/31-atom-status-comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "csv/.claude/aot-loop-state.md", string(data))
	code, out, _ := cli(t, "status", "--scan", root)
	if code != 0 || !strings.Contains(out, "~ csv ") ||
		!strings.Contains(out, "└ loop tools: line 27: read_state.py reads atoms[0].status as 'resolved   # …' (inline comment, line 27)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = cli(t, "status", "--scan", root, "--json")
	if code != 0 || !strings.Contains(out, `"loop_tools": 1,`) || !strings.Contains(out, `"attention": ""`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
