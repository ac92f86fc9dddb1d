//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// oddProject makes a project whose state file path holds what make makes
// there, and returns the project directory and that path.
func oddProject(t *testing.T, make func(path string) error) (dir, state string) {
	t.Helper()
	dir = t.TempDir()
	state = filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := make(state); err != nil {
		t.Fatal(err)
	}
	return dir, state
}

func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o644) }
func makeDir(path string) error  { return os.Mkdir(path, 0o755) }
func makeLoop(path string) error { return os.Symlink(filepath.Base(path), path) }

// Every command refuses a named pipe, a directory named like the state file
// and a symbolic link loop at once (exit 2), with one line that names the
// path and what is there; under --json the same line is the error object.
// Nothing is written, and nothing waits for a writer of the pipe.
func TestOddFilesRefusedByEveryCommand(t *testing.T) {
	fifoDir, fifo := oddProject(t, makeFIFO)
	dirDir, dirState := oddProject(t, makeDir)
	loopDir, loopState := oddProject(t, makeLoop)
	isFIFO := fifo + " is a named pipe (FIFO), not a regular file: aot-tui reads only regular files; replace it with the state file"
	isDir := dirState + " is a directory, not a regular file: aot-tui reads only regular files; replace it with the state file"
	isLoop := loopState + " is a symbolic link loop (too many levels of symbolic links): aot-tui reads only regular files; point the link at the state file or remove it"
	commands := [][]string{
		{"status"}, {"status", "--json"}, {"validate"}, {"validate", "--json"}, {"gate"}, {"gate", "--json"},
		{"stop"}, {"stop", "--json"}, {"verify", "--yes"}, {"verify", "--json", "--yes"},
		{"report"}, {"report", "--format", "json"}, {"report", "--no-journal", "--format", "html"},
		{"redirect", "constraints", "--max-iterations", "5"}, {"redirect", "add-atom", "x", "--json"},
		{"redirect", "delete-atom", "A1"}, {"redirect", "force-or", "g", "A1"},
		{"redirect", "objective", "--goal", "g"}, {"redirect", "override-binding", "A1", "--redo"},
	}
	cases := []struct {
		path, msg string
		cmds      [][]string
	}{
		{fifoDir, isFIFO, commands},
		{fifo, isFIFO, commands},
		{dirDir, isDir, commands[:4]},
		{dirState, isDir, commands[:8]},
		{loopDir, isLoop, commands[:4]},
		{loopState, isLoop, commands[:8]},
	}
	for _, c := range cases {
		for _, args := range c.cmds {
			args = append(append([]string{}, args...), "-f", c.path)
			code, stdout, stderr := runBin(t, binary(t), args...)
			if code != exitUsage || stderr != "aot-tui: "+c.msg+"\n" {
				t.Errorf("aot-tui %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, stderr, c.msg)
				continue
			}
			if strings.Contains(strings.Join(args, " "), "--json") {
				var m map[string]any
				if err := json.Unmarshal([]byte(stdout), &m); err != nil || m["error"] != c.msg || m["kind"] != "usage" {
					t.Errorf("aot-tui %s: stdout %q, want the error object", strings.Join(args, " "), stdout)
				}
			}
		}
	}
	// replay reads the journal beside the state file that PATH names.
	if code, _, stderr := runBin(t, binary(t), "replay", fifoDir); code != exitUsage || stderr != "aot-tui: "+isFIFO+"\n" {
		t.Errorf("replay: exit %d %q", code, stderr)
	}
	// A journal that is a named pipe is refused, not waited on.
	journal := filepath.Join(t.TempDir(), "aot-loop-state.history.jsonl")
	if err := makeFIFO(journal); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay", journal}, {"report", "--journal", journal}} {
		// The advice is a journal's, not a state file's.
		want := journal + " is a named pipe (FIFO), not a regular file: aot-tui reads only regular files; remove it (aot-tui makes the journal again)"
		if code, _, stderr := runBin(t, binary(t), args...); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("aot-tui %s: exit %d %q, want %q", strings.Join(args, " "), code, stderr, want)
		}
	}
	// The fleet reads no odd file, and says so of none it cannot read.
	if code, stdout, stderr := runBin(t, binary(t), "status", "--scan", "--json", filepath.Dir(fifoDir)); code != 0 || !strings.Contains(stdout, `"loops"`) {
		t.Errorf("status --scan: exit %d %s %s", code, stdout, stderr)
	}
	for _, p := range []string{fifo, dirState} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s was replaced: %v %v", p, fi, err)
		}
	}
}

// The TUI waits on a named pipe, a directory named like the state file and
// a symbolic link loop, saying what is there and that it waits; it shows
// the loop as soon as a state file takes the path's place.
func TestE2EOddFilesWaitAndRecover(t *testing.T) {
	bin := binary(t)
	needTmux(t)
	seed, err := os.ReadFile(testdata("seed-complete.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		make   func(string) error
		direct bool // the path itself, not its project, is given
		says   string
	}{
		{"fifo", makeFIFO, false, "is a named pipe (FIFO), not a regular file"},
		{"fifo given directly", makeFIFO, true, "is a named pipe (FIFO), not a regular file"},
		{"directory named like the state file", makeDir, true, "is a directory, not a regular file"},
		{"symlink loop", makeLoop, false, "is a symbolic link loop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, state := oddProject(t, c.make)
			arg := dir
			if c.direct {
				arg = state
			}
			s := startTmux(t, 200, 30, []string{"NO_COLOR=1"}, bin, arg)
			s.waitFor(c.says, "waiting for the state file there", "q quit")
			// The loop's way of writing it: a temp file renamed over it.
			tmp := filepath.Join(filepath.Dir(state), "tmp.md")
			if err := os.WriteFile(tmp, seed, 0o644); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(state); err == nil && fi.IsDir() {
				if err := os.Remove(state); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Rename(tmp, state); err != nil {
				t.Fatal(err)
			}
			s.waitFor("iteration 5/20", "User model definition")
			s.waitGone(c.says) // the banner goes once the file came
		})
	}
}

// status on a running loop reads the journal beside the state file (for
// atoms that were in progress and are gone): a named pipe there is not a
// journal, and status neither waits on it nor fails for it.
func TestStatusWithAPipeForAJournal(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, ".claude", "aot-loop-state.md")
	if err := os.MkdirAll(filepath.Dir(state), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("\n  status: running")) {
		t.Fatal("testdata/rich.md is not a running loop any more: pick another")
	}
	if err := os.WriteFile(state, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := makeFIFO(filepath.Join(filepath.Dir(state), "aot-loop-state.history.jsonl")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runBin(t, binary(t), "status", "--json", dir); code != 0 || !strings.Contains(stdout, `"status": "running"`) {
		t.Errorf("status --json with a pipe for a journal: exit %d %q %q", code, stdout, stderr)
	}
}
