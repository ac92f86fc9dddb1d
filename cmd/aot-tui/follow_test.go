package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The streams of docs/stream.md, on the built binary: `status --scan
// --json --follow` and `cat --follow`, read line by line as another
// machine's aot-tui reads them through ssh.

// streamLine is one line of a stream, decoded.
type streamLine map[string]any

func (l streamLine) kind() string { s, _ := l["kind"].(string); return s }

func (l streamLine) str(key string) string { s, _ := l[key].(string); return s }

// row is a row line's row.
func (l streamLine) row() streamLine { r, _ := l["row"].(map[string]any); return r }

// streamProc is a stream the built aot-tui writes: its stdin a pipe the
// test holds (closing it ends the stream), its lines checked as they come
// — each one JSON object with "v": 1 and a "kind".
type streamProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan streamLine
	bad    chan string
	done   chan struct{}
	err    error
	stderr bytes.Buffer
	// seen are the lines read so far, in order.
	seen []streamLine
}

// liveness bounds every wait for a stream's line or end: a stream that
// says nothing for this long is broken (not a timing assertion).
const liveness = time.Minute

func startStream(t *testing.T, bin string, args ...string) *streamProc {
	t.Helper()
	return launchStream(t, true, bin, args...)
}

// launchStream starts the stream, its stdin a pipe (withStdin) or
// /dev/null.
func launchStream(t *testing.T, withStdin bool, bin string, args ...string) *streamProc {
	t.Helper()
	p := &streamProc{t: t, cmd: exec.Command(bin, args...), lines: make(chan streamLine, 4096), bad: make(chan string, 1), done: make(chan struct{})}
	p.cmd.Stderr = &p.stderr
	if withStdin {
		stdin, err := p.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		p.stdin = stdin
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			b, err := r.ReadBytes('\n')
			if len(b) > 0 {
				var l streamLine
				switch {
				case json.Unmarshal(b, &l) != nil:
					p.badLine("not a JSON object: %.200q", b)
				case l["v"] != float64(1) || l.kind() == "":
					p.badLine("no \"v\": 1 or no kind: %.200s", b)
				case b[len(b)-1] != '\n':
					p.badLine("a line cut short: %.200s", b)
				default:
					p.lines <- l
				}
			}
			if err != nil {
				break
			}
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *streamProc) badLine(format string, args ...any) {
	select {
	case p.bad <- fmt.Sprintf(format, args...):
	default:
	}
}

// next waits for the next line that ok accepts (what names it), keeping
// every line read in seen.
func (p *streamProc) next(what string, ok func(streamLine) bool) streamLine {
	p.t.Helper()
	deadline := time.After(liveness)
	for {
		select {
		case l := <-p.lines:
			p.seen = append(p.seen, l)
			if ok(l) {
				return l
			}
		case msg := <-p.bad:
			p.t.Fatalf("waiting for %s: %s", what, msg)
		case <-p.done:
			p.t.Fatalf("waiting for %s: the stream ended (%v): %s", what, p.err, p.stderr.String())
		case <-deadline:
			p.t.Fatalf("waiting for %s: nothing in %v; lines: %v", what, liveness, p.kinds())
		}
	}
}

// kindIs accepts the lines of kind k.
func kindIs(k string) func(streamLine) bool { return func(l streamLine) bool { return l.kind() == k } }

func (p *streamProc) kinds() []string {
	var out []string
	for _, l := range p.seen {
		out = append(out, l.kind())
	}
	return out
}

// wait waits for the process to end and returns its exit code, having
// read every line it wrote.
func (p *streamProc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(liveness):
		p.t.Fatalf("the stream did not end in %v", liveness)
	}
	for {
		select {
		case l := <-p.lines:
			p.seen = append(p.seen, l)
			continue
		case msg := <-p.bad:
			p.t.Fatal(msg)
		default:
		}
		break
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	}
	p.t.Fatal(p.err)
	return -1
}

// closeStdin ends the stream as a link that goes does, and returns the
// exit code.
func (p *streamProc) closeStdin() int {
	p.t.Helper()
	if err := p.stdin.Close(); err != nil {
		p.t.Fatal(err)
	}
	return p.wait()
}

// pathIs accepts the lines (or rows) whose path ends in rel: the path of
// a scanned loop is absolute, through symbolic links the temp directory
// may have.
func pathIs(l streamLine, rel string) bool {
	return strings.HasSuffix(filepath.ToSlash(l.str("path")), rel)
}

// The fleet's stream: the snapshot is status --scan --json's object; a
// row changed by a loop write, a loop that appears, one whose file grows
// over --max-size and one that goes each make their line; closing stdin
// ends it with exit 0.
func TestStatusFollowStreamsTheFleet(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	one := writeFile(t, dir, "one/.claude/aot-loop-state.md", exitState)
	writeFile(t, dir, "big/.claude/aot-loop-state.md", exitState)
	_, once, _ := runBin(t, bin, "status", "--scan", dir, "--json", "--max-size", "8192")
	p := startStream(t, bin, "status", "--scan", dir, "--json", "--follow", "--heartbeat", "0", "--max-size", "8192")

	snap := p.next("the snapshot", kindIs("snapshot"))
	if len(p.seen) != 1 {
		t.Fatalf("lines before the snapshot: %v", p.kinds())
	}
	// The snapshot is what status --scan --json prints, with v and kind.
	var want map[string]any
	if err := json.Unmarshal([]byte(once), &want); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dirs", "depth", "summary", "watch"} {
		if fmt.Sprint(snap[k]) != fmt.Sprint(want[k]) {
			t.Errorf("snapshot %s = %v, status --scan --json says %v", k, snap[k], want[k])
		}
	}
	loops, _ := snap["loops"].([]any)
	wantLoops, _ := want["loops"].([]any)
	if len(loops) != 2 || len(wantLoops) != 2 {
		t.Fatalf("snapshot loops %v, status --scan --json's %v", loops, wantLoops)
	}
	for i := range loops {
		// The snapshot is sent at once; a loop's activity (its sessions,
		// read by their own clock) may come after it, in a row line of its
		// own.
		got, _ := loops[i].(map[string]any)
		w, _ := wantLoops[i].(map[string]any)
		gotActivity, wantActivity := got["activity"], w["activity"]
		delete(got, "activity")
		delete(w, "activity")
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("snapshot row %d:\n%v\nstatus --scan --json's:\n%v", i, got, w)
		}
		if gotActivity == nil && wantActivity != nil {
			path := fmt.Sprint(w["path"])
			p.next("the activity of "+path, func(l streamLine) bool {
				return l.kind() == "row" && fmt.Sprint(l.row()["path"]) == path && fmt.Sprint(l.row()["activity"]) == fmt.Sprint(wantActivity)
			})
		} else if fmt.Sprint(gotActivity) != fmt.Sprint(wantActivity) {
			t.Errorf("snapshot row %d's activity %v, status --scan --json's %v", i, gotActivity, wantActivity)
		}
	}

	// A loop write: update_atom.py A2 in_progress, in place.
	loopWrite(t, one, strings.Replace(exitState, "status: pending", "status: in_progress", 1))
	row := p.next("one's row with A2 in progress", func(l streamLine) bool {
		s, _ := l.row()["summary"].(map[string]any)
		return l.kind() == "row" && pathIs(l.row(), "one/.claude/aot-loop-state.md") && s["in_progress"] == float64(1)
	})
	if row.row()["file"] != "ok" {
		t.Fatalf("row %v", row)
	}

	// A loop that appears.
	writeFile(t, dir, "two/.claude/aot-loop-state.md", exitState)
	p.next("two's row", func(l streamLine) bool { return l.kind() == "row" && pathIs(l.row(), "two/.claude/aot-loop-state.md") })

	// A file over --max-size: one endless line. Its row says so; nothing
	// of it is sent.
	loopWrite(t, filepath.Join(dir, "big", ".claude", "aot-loop-state.md"), strings.Repeat("a", 20000))
	big := p.next("big's row with the error", func(l streamLine) bool {
		return l.kind() == "row" && pathIs(l.row(), "big/.claude/aot-loop-state.md") && l.row()["file"] == "error"
	})
	if e := big.row().str("error"); !strings.Contains(e, "larger than") || !strings.Contains(e, "--max-size") {
		t.Fatalf("the row's error %q does not say the file is over the limit", e)
	}

	// A loop that goes.
	if err := os.RemoveAll(filepath.Join(dir, "two")); err != nil {
		t.Fatal(err)
	}
	gone := p.next("two's removal", kindIs("removed"))
	if !pathIs(gone, "two/.claude/aot-loop-state.md") || gone.str("name") != "two" {
		t.Fatalf("removed %v", gone)
	}

	if code := p.closeStdin(); code != 0 || p.stderr.Len() > 0 {
		t.Fatalf("stdin closed: exit %d, stderr %q; want 0 and nothing", code, p.stderr.String())
	}
	// One line per change: no row was sent twice with the same content.
	rows := map[string]bool{}
	for _, l := range p.seen {
		if l.kind() == "row" {
			key := fmt.Sprint(l.row())
			if rows[key] {
				t.Errorf("a row sent twice: %v", l.row())
			}
			rows[key] = true
		}
	}
}

func loopWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --follow is the fleet's JSON stream: without --scan or --json, or with
// --heartbeat alone, it is a usage error; under --json the error is the
// stream's own error line.
func TestFollowUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args   []string
		stderr string
		line   bool
	}{
		{[]string{"status", "--follow", "--json", dir}, "--follow goes with --scan", true},
		{[]string{"status", "--scan", "--follow", dir}, "add --json", false},
		{[]string{"status", "--scan", "--json", "--heartbeat", "1s", dir}, "--heartbeat goes with --follow", false},
		{[]string{"cat", "--heartbeat", "1s", dir}, "--heartbeat goes with --follow", false},
		{[]string{"cat", "--follow", "--heartbeat", "-1s", dir}, "--heartbeat must be 0", false},
		{[]string{"status", "--scan", "--json", "--follow", filepath.Join(dir, "nope")}, "no such directory", true},
	} {
		code, stdout, stderr := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.stderr)
		}
		if !c.line {
			continue
		}
		var l streamLine
		if err := json.Unmarshal([]byte(stdout), &l); err != nil || l["v"] != float64(1) || l.kind() != "error" ||
			l.str("code") != "usage" || l["exit_code"] != float64(2) || !strings.Contains(l.str("error"), c.stderr) {
			t.Errorf("%v: stdout %q; want one error line", c.args, stdout)
		}
	}
}

// A stream whose stdin closes (the ssh link went) ends, exit 0, and
// leaves nothing running: run in this process, no goroutine of the
// watchers or of the stream is left.
func TestStreamsLeaveNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "p/.claude/aot-loop-state.md", exitState)
	for _, args := range [][]string{
		{"status", "--scan", dir, "--json", "--follow"},
		{"cat", "--follow", path},
	} {
		t.Run(args[0], func(t *testing.T) {
			before := streamGoroutines()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			root := newRootCmd(outW, io.Discard)
			root.SetIn(inR)
			code := make(chan int, 1)
			go func() {
				code <- execute(root, args, outW, io.Discard)
				outW.Close()
			}()
			first, err := bufio.NewReader(outR).ReadString('\n')
			if err != nil || !strings.Contains(first, `"v":1`) {
				t.Fatalf("first line %q, %v", first, err)
			}
			go func() { _, _ = io.Copy(io.Discard, outR) }()
			inW.Close()
			select {
			case c := <-code:
				if c != 0 {
					t.Fatalf("exit %d", c)
				}
			case <-time.After(liveness):
				t.Fatal("the stream did not end when its stdin closed")
			}
			// The watchers' goroutines end with Stop; fsnotify's reader a
			// moment after its Close.
			deadline := time.Now().Add(liveness)
			for left := streamGoroutines(); left > before; left = streamGoroutines() {
				if time.Now().After(deadline) {
					buf := make([]byte, 1<<20)
					t.Fatalf("%d goroutines left:\n%s", left-before, buf[:runtime.Stack(buf, true)])
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// streamGoroutines counts the goroutines of a stream: its own, the
// watchers', fsnotify's and the signals'.
func streamGoroutines() int {
	buf := make([]byte, 4<<20)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		for _, mark := range []string{"aot-tui/fleet.", "aot-tui/statefile.", "fsnotify", "main.streamContext", "main.runStatusFollow", "main.runCatFollow", "signal.NotifyContext"} {
			if strings.Contains(g, mark) {
				n++
				break
			}
		}
	}
	return n
}
