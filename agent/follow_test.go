package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const opus = "claude-opus-4-5-20251101"

// The follower reads each byte once: appended lines are read from where
// it left off, a torn last line is kept (not counted, not read again)
// until its line break comes, and a file cut short or replaced is read
// again from the start with totals that are still right.
func TestFollowerReadsEachByteOnce(t *testing.T) {
	p := newProject(t)
	s := "33333333-3333-4333-8333-333333333333"
	path := p.session(s)
	o := p.opts(s)
	o.uuid, o.at = "u1", at(0)
	appendFile(t, path, userText(o, "/enter-recursion"))
	o.uuid, o.at = "u2", at(1)
	appendFile(t, path, assistant(o, "m1", opus, tok(1, 2, 3, 4), textBlock("hi")))

	f := newFollower(context.Background(), Options{Project: p.dir, Root: p.root})
	f.scan(true)
	checkUsage(t, "first read", f.snapshot().Total, 1, tok(1, 2, 3, 4))

	// A line written in two parts: the first part is kept, not counted.
	o.uuid, o.at = "u3", at(2)
	line := assistant(o, "m2", opus, tok(10, 20, 30, 40), textBlock("more"))
	appendFile(t, path, line[:len(line)/2])
	f.scan(false)
	checkUsage(t, "torn line", f.snapshot().Total, 1, tok(1, 2, 3, 4))
	appendFile(t, path, line[len(line)/2:])
	f.scan(false)
	checkUsage(t, "line completed", f.snapshot().Total, 2, tok(11, 22, 33, 44))
	// The same response written again on a later line (Claude Code writes
	// one per content block) counts once.
	o.uuid, o.at = "u4", at(3)
	appendFile(t, path, assistant(o, "m2", opus, tok(10, 20, 30, 40), toolUse("t1", "Bash", map[string]any{"command": "ls"})))
	f.scan(false)
	checkUsage(t, "repeated response", f.snapshot().Total, 2, tok(11, 22, 33, 44))
	fi, _ := os.Stat(path)
	if f.read != fi.Size() {
		t.Fatalf("read %d bytes of a %d-byte file: something was read twice or not at all", f.read, fi.Size())
	}

	// Cut short and written again (the same bytes up to a point, then
	// others): read again from the start, totals of what is there now.
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(path, []byte(lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	f.scan(false)
	a := f.snapshot()
	checkUsage(t, "after the cut", a.Total, 1, tok(1, 2, 3, 4))
	if !strings.Contains(strings.Join(a.Notes, "\n"), "replaced or cut short") {
		t.Errorf("notes %q", a.Notes)
	}

	// Replaced by another file (a new inode) of the same size or more.
	repl := path + ".new"
	o.uuid, o.at = "v1", at(5)
	appendFile(t, repl, assistant(o, "m9", opus, tok(100, 0, 0, 0), textBlock("replaced")))
	o.uuid, o.at = "v2", at(6)
	appendFile(t, repl, assistant(o, "m10", opus, tok(5, 0, 0, 0), textBlock("and more")))
	if err := os.Rename(repl, path); err != nil {
		t.Fatal(err)
	}
	f.scan(false)
	checkUsage(t, "after the replacement", f.snapshot().Total, 2, tok(105, 0, 0, 0))
}

// A line longer than MaxLine is skipped with a note, the lines after it
// are read; one cut across reads is skipped too.
func TestFollowerSkipsOverlongLines(t *testing.T) {
	p := newProject(t)
	s := "44444444-4444-4444-8444-444444444444"
	path := p.session(s)
	o := p.opts(s)
	o.uuid, o.at = "u1", at(0)
	long := assistant(o, "m1", opus, tok(1000, 0, 0, 0), textBlock(strings.Repeat("x", 3000)))
	o.uuid, o.at = "u2", at(1)
	appendFile(t, path, long+assistant(o, "m2", opus, tok(1, 0, 0, 0), textBlock("short")))
	f := newFollower(context.Background(), Options{Project: p.dir, Root: p.root, MaxLine: 1000})
	f.scan(true)
	a := f.snapshot()
	checkUsage(t, "after the long line", a.Total, 1, tok(1, 0, 0, 0))
	if a.Unrecognised != 1 || !strings.Contains(strings.Join(a.Notes, " "), "was skipped") {
		t.Errorf("unrecognised %d, notes %q", a.Unrecognised, a.Notes)
	}
	// A long line that arrives in parts.
	o.uuid, o.at = "u3", at(2)
	long = assistant(o, "m3", opus, tok(1000, 0, 0, 0), textBlock(strings.Repeat("y", 3000)))
	appendFile(t, path, long[:1500])
	f.scan(false)
	appendFile(t, path, long[1500:])
	o.uuid, o.at = "u4", at(3)
	appendFile(t, path, assistant(o, "m4", opus, tok(2, 0, 0, 0), textBlock("short")))
	f.scan(false)
	if a := f.snapshot(); a.Total.Tokens().Input != 3 || a.Unrecognised != 2 {
		t.Errorf("input %d, unrecognised %d", a.Total.Tokens().Input, a.Unrecognised)
	}
}

// waitFor waits (up to 20 s) for a snapshot on ch that ok accepts.
func waitFor(t *testing.T, ch <-chan *Activity, what string, ok func(*Activity) bool) *Activity {
	t.Helper()
	deadline := time.After(20 * time.Second)
	var last *Activity
	for {
		select {
		case a := <-ch:
			last = a
			if ok(a) {
				return a
			}
		case <-deadline:
			if last != nil {
				t.Fatalf("%s: never seen; last snapshot: total %+v, %d agents, notes %q", what, last.Total, len(last.Agents), last.Notes)
			}
			t.Fatalf("%s: never seen; no snapshot", what)
		}
	}
}

// StartFollow follows the loop live, in both watch modes (directories,
// as inotify and Windows do; the followed files alone, as kqueue does,
// where the poll finds new files): appended lines, a new session, a new
// sub-agent's file, a directory that disappears (noted, what was read
// kept) and comes back.
func TestFollowLive(t *testing.T) {
	for _, dirs := range []bool{true, false} {
		name := "files"
		if dirs {
			name = "dirs"
		}
		t.Run(name, func(t *testing.T) { followLive(t, dirs) })
	}
}

func followLive(t *testing.T, dirs bool) {
	p := newProject(t)
	s1 := "55555555-5555-4555-8555-555555555555"
	o := p.opts(s1)
	o.uuid, o.at = "u1", at(0)
	appendFile(t, p.session(s1), userText(o, "/enter-recursion"))
	o.uuid, o.at = "u2", at(1)
	appendFile(t, p.session(s1), assistant(o, "m1", opus, tok(1, 1, 0, 0),
		toolUse("t1", "Task", map[string]any{"description": "AoT Loop iteration 1", "prompt": "AoT Loop iteration 1 started.", "subagent_type": "ralph-wiggum-aot:aot-coordinator"})))

	ch := make(chan *Activity, 100)
	fl := StartFollow(Options{Project: p.dir, Root: p.root, Poll: 100 * time.Millisecond, watchDirs: &dirs}, func(a *Activity) { ch <- a })
	defer fl.Stop()
	first := <-ch
	if first.Ready {
		t.Fatalf("the first snapshot is ready before anything was read")
	}
	waitFor(t, ch, "the first read", func(a *Activity) bool { return a.Ready && a.Total.Responses == 1 })

	// The coordinator's file appears and grows.
	c := lineOpts{session: s1, cwd: p.dir, sidechain: true, agentID: "c1"}
	c.uuid, c.at = "c-1", at(2)
	appendFile(t, p.subagent(s1, "c1"), userText(c, "AoT Loop iteration 1 started."))
	c.uuid, c.at = "c-2", at(3)
	appendFile(t, p.subagent(s1, "c1"), assistant(c, "m2", opus, tok(2, 2, 0, 0),
		toolUse("t2", "Bash", map[string]any{"command": "python3 skills/state-contract/scripts/update_atom.py A1 in_progress"})))
	a := waitFor(t, ch, "the coordinator", func(a *Activity) bool { return a.Total.Responses == 2 })
	if a.Now == nil || a.Now.Agent != "coordinator" || a.Now.Step.Line() != "Bash python3 …update_atom.py A1 in_progress" {
		t.Fatalf("now %+v", a.Now)
	}
	c.uuid, c.at = "c-3", at(4)
	appendFile(t, p.subagent(s1, "c1"), toolResult(c, "t2", "{}", ""))
	c.uuid, c.at = "c-4", at(5)
	appendFile(t, p.subagent(s1, "c1"), assistant(c, "m3", opus, tok(3, 3, 0, 0), textBlock("working on A1")))
	a = waitFor(t, ch, "the coordinator's next response", func(a *Activity) bool { return a.Total.Responses == 3 })
	if u := a.ByAtom["A1"]; u.Responses != 1 {
		t.Fatalf("A1: %+v", u)
	}

	// A second session.
	s2 := "66666666-6666-4666-8666-666666666666"
	o2 := p.opts(s2)
	o2.uuid, o2.at = "w1", at(6)
	appendFile(t, p.session(s2), assistant(o2, "m4", opus, tok(4, 4, 0, 0), textBlock("another session")))
	waitFor(t, ch, "the second session", func(a *Activity) bool { return a.Total.Responses == 4 && len(a.Sessions) == 2 })

	// The transcripts directory goes: noted, what was read kept.
	gone := p.tdir + ".away"
	if err := os.Rename(p.tdir, gone); err != nil {
		t.Fatal(err)
	}
	a = waitFor(t, ch, "the note on the directory", func(a *Activity) bool {
		return strings.Contains(strings.Join(a.Notes, "\n"), "disappeared")
	})
	if a.Total.Responses != 4 {
		t.Fatalf("after the directory went: %+v", a.Total)
	}
	// It comes back with one more line.
	if err := os.Rename(gone, p.tdir); err != nil {
		t.Fatal(err)
	}
	o2.uuid, o2.at = "w2", at(7)
	appendFile(t, p.session(s2), assistant(o2, "m5", opus, tok(5, 5, 0, 0), textBlock("back")))
	a = waitFor(t, ch, "the directory back", func(a *Activity) bool { return a.Total.Responses == 5 })
	checkUsage(t, "total", a.Total, 5, tok(15, 15, 0, 0))
}

// A project whose transcript directory does not exist yet is waited for:
// the directory and its first session are picked up when they come.
func TestFollowWaitsForTheDirectory(t *testing.T) {
	p := newProject(t)
	if err := os.RemoveAll(p.tdir); err != nil {
		t.Fatal(err)
	}
	ch := make(chan *Activity, 100)
	fl := StartFollow(Options{Project: p.dir, Root: p.root, Poll: 50 * time.Millisecond}, func(a *Activity) { ch <- a })
	defer fl.Stop()
	a := waitFor(t, ch, "the first read", func(a *Activity) bool { return a.Ready })
	if a.Found || !strings.Contains(strings.Join(a.Notes, " "), "no Claude Code transcripts") {
		t.Fatalf("found %v notes %q", a.Found, a.Notes)
	}
	s := "77777777-7777-4777-8777-777777777777"
	o := p.opts(s)
	o.uuid, o.at = "u1", at(0)
	appendFile(t, p.session(s), assistant(o, "m1", opus, tok(7, 0, 0, 0), textBlock("hello")))
	waitFor(t, ch, "the new directory's session", func(a *Activity) bool { return a.Found && a.Total.Responses == 1 })
}

// Dirs: the directory named by Claude Code's rule; for a name past 200
// characters the ones that begin with its cut and record the project as
// their cwd; with none, any directory whose transcripts record it.
func TestDirs(t *testing.T) {
	root := t.TempDir()
	mk := func(name, cwd string) string {
		d := filepath.Join(root, name)
		o := lineOpts{session: "s", cwd: cwd, uuid: "u", at: at(0)}
		appendFile(t, filepath.Join(d, "s.jsonl"), userText(o, "hi"))
		return d
	}
	short := "/home/u/my_project.v2"
	named := mk("-home-u-my-project-v2", short)
	if got, _ := Dirs(root, short); len(got) != 1 || got[0] != named {
		t.Errorf("short: %v", got)
	}
	long := "/home/u/" + strings.Repeat("deep/", 45) + "proj"
	cut, isCut := DirName(long)
	if !isCut || len(cut) != 200 {
		t.Fatalf("DirName(long) = %q, %v", cut, isCut)
	}
	mine := mk(cut+"-1a2b3c", long)
	mk(cut+"-zzzz", long+"-other") // same prefix, another project
	if got, _ := Dirs(root, long); len(got) != 1 || got[0] != mine {
		t.Errorf("long: %v", got)
	}
	// Renamed by a rule not known: found by its cwd.
	moved := "/srv/elsewhere"
	odd := mk("some-future-name", moved)
	if got, scanned := Dirs(root, moved); len(got) != 1 || got[0] != odd || !scanned {
		t.Errorf("scanned: %v %v", got, scanned)
	}
}

// DirName is JavaScript's replace(/[^a-zA-Z0-9]/g, "-") on UTF-16 code
// units: a character outside the BMP becomes two dashes.
func TestDirName(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/shop":          "-home-u-shop",
		`C:\Users\a\my proj`:    "C--Users-a-my-proj",
		"/home/u/文档/x_y.z":      "-home-u----x-y-z",
		"/home/u/\U0001F600/go": "-home-u----go",
	} {
		if got, cut := DirName(in); got != want || cut {
			t.Errorf("DirName(%q) = %q, %v; want %q", in, got, cut, want)
		}
	}
}

// The hook's events name their session's transcript: its directory is
// read whatever its name, without looking through every directory of the
// root (Quick, as status reads).
func TestHookNamesTheDirectory(t *testing.T) {
	p := newProject(t)
	odd := filepath.Join(p.root, "renamed-by-a-future-rule")
	if err := os.Rename(p.tdir, odd); err != nil {
		t.Fatal(err)
	}
	s := "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
	o := p.opts(s)
	o.uuid, o.at = "u1", at(0)
	appendFile(t, filepath.Join(odd, s+".jsonl"), assistant(o, "m1", opus, tok(3, 0, 0, 0), textBlock("hi")))
	hooks := t.TempDir()
	opts := Options{Project: p.dir, Root: p.root, HookFile: HookEventsFile(hooks, p.dir), Quick: true}
	if a := Open(opts); a.Found {
		t.Fatalf("found without the hook and without a look through the root: %v", a.Dirs)
	}
	in := HookInput{SessionID: s, CWD: p.dir, HookEventName: "Notification", NotificationType: "idle_prompt", TranscriptPath: filepath.Join(odd, s+".jsonl")}
	if _, err := RecordHook(hooks, in, at(1), time.Second); err != nil {
		t.Fatal(err)
	}
	a := Open(opts)
	if !a.Found || a.Total.Responses != 1 || a.NeedsYou == nil || a.NeedsYou.Kind != "idle_prompt" {
		t.Fatalf("found %v, %d responses, needs you %+v", a.Found, a.Total.Responses, a.NeedsYou)
	}
}
