package remote

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
)

// catHelper plays `aot-tui cat --follow` on the far side: the state file
// named by AOT_REMOTE_FILE, then the file as a loop mid-write broke it,
// gone, not there, back with iteration 8, and lines a later release may
// send; then it waits for its stdin to close.
func catHelper(mode string) {
	data, err := os.ReadFile(os.Getenv("AOT_REMOTE_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v map[string]any) {
		if _, ok := v["v"]; !ok {
			v["v"] = 1
		}
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	version := func(d []byte) map[string]any {
		sum := sha256.Sum256(d)
		return map[string]any{"kind": "version", "path": "/far/.claude/aot-loop-state.md", "loop": "aot-loop", "sha256": hex.EncodeToString(sum[:]),
			"size": len(d), "mtime": time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC), "data": base64.StdEncoding.EncodeToString(d)}
	}
	switch mode {
	case "cat-v2":
		send(map[string]any{"v": 2, "kind": "version"})
	case "cat-badsha":
		v := version(data)
		v["sha256"] = strings.Repeat("0", 64)
		send(v)
	case "cat-big":
		v := version([]byte(strings.Repeat("x", 4096)))
		send(v)
	case "cat-garbage":
		// Not aot-tui: a login banner, with an escape sequence in it.
		out.WriteString("Welcome \x1b]0;pwned\x07 to box\n")
		out.Flush()
	default:
		send(version(data))
		send(map[string]any{"kind": "heartbeat", "time": time.Now()})
		send(map[string]any{"kind": "invalid", "error": "state file /far/.claude/aot-loop-state.md line 3: did not find expected key \x1b[2J — fix the YAML"})
		send(map[string]any{"kind": "gone", "path": "/far"})
		send(map[string]any{"kind": "error", "code": "not_found", "error": "no state file"})
		send(map[string]any{"kind": "back", "sha256": "x"})
		send(map[string]any{"kind": "telepathy", "what": "a kind of a later release"})
		send(version([]byte(strings.Replace(string(data), "iteration: 7", "iteration: 8", 1))))
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	os.Exit(0)
}

// events collects what FollowFile emits.
type events struct {
	mu   sync.Mutex
	list []statefile.Event
}

func (e *events) add(ev statefile.Event) { e.mu.Lock(); e.list = append(e.list, ev); e.mu.Unlock() }

func (e *events) waitN(t *testing.T, n int) []statefile.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		e.mu.Lock()
		got := append([]statefile.Event(nil), e.list...)
		e.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			kinds := make([]string, len(got))
			for i, ev := range got {
				kinds[i] = ev.Kind.String()
			}
			t.Fatalf("%d events (%s), want %d", len(got), strings.Join(kinds, " "), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileHost(t *testing.T, mode string, readOnly bool) *Host {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	argv := helperArgv(t, mode)
	// The helper ignores the arguments FollowFile adds after them.
	return &Host{Name: "box", Target: "box", Dirs: []string{"/far"}, ReadOnly: readOnly,
		Transport: append([]string{argv[0], "AOT_REMOTE_FILE=" + path}, argv[1:]...)}
}

// The far side's lines become the Events of a local watch: each version
// parsed here, invalid, removed, waiting; lines it does not know are
// skipped.
func TestFollowFileGivesTheEventsOfALocalWatch(t *testing.T) {
	var got events
	target := statefile.Target{Path: "/far/.claude/aot-loop-state.md", Kind: statefile.KindAoT}
	l := FollowFile(fileHost(t, "cat", true), target, FileOptions{}, got.add)
	defer l.Stop()
	evs := got.waitN(t, 5)
	want := []statefile.EventKind{statefile.EventLoaded, statefile.EventInvalid, statefile.EventRemoved, statefile.EventWaiting, statefile.EventLoaded}
	for i, k := range want {
		if evs[i].Kind != k {
			t.Fatalf("event %d is %s, want %s", i, evs[i].Kind, k)
		}
	}
	first, last := evs[0], evs[4]
	if first.Doc == nil || first.Facts == nil || first.Doc.State.Control.Iteration != 7 || last.Doc.State.Control.Iteration != 8 {
		t.Fatalf("versions not parsed here: %+v / %+v", first.Doc, last.Doc)
	}
	if first.Target != target || !first.ModTime.Equal(time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)) {
		t.Errorf("target %+v mtime %v", first.Target, first.ModTime)
	}
	if first.NotWritable == nil || !strings.Contains(first.NotWritable.Error(), "read-only") {
		t.Errorf("a read-only host's version is writable: %v", first.NotWritable)
	}
	if !strings.Contains(evs[1].Err.Error(), "line 3") {
		t.Errorf("invalid: %v", evs[1].Err)
	}
}

// A far side of another stream version, or one whose bytes do not match
// their sha256, or send a version over the size limit, is refused with a
// banner saying so; nothing of it is shown as the loop.
func TestFollowFileRefusesWhatItCannotTrust(t *testing.T) {
	for _, c := range []struct {
		mode, want string
		max        int64
	}{
		{"cat-v2", "streams version 2, this aot-tui reads 1", 0},
		{"cat-badsha", "do not match its sha256", 0},
		{"cat-big", "over the 1024-byte limit", 1024},
		{"cat-garbage", "sent a line that is not aot-tui's JSON", 0},
	} {
		t.Run(c.mode, func(t *testing.T) {
			var got events
			l := FollowFile(fileHost(t, c.mode, false), statefile.Target{Path: "/far/x.md", Kind: statefile.KindAoT},
				FileOptions{MaxSize: c.max, Link: LinkOptions{MinBackoff: time.Hour, MaxBackoff: time.Hour}}, got.add)
			defer l.Stop()
			ev := got.waitN(t, 1)[0]
			if ev.Kind != statefile.EventError || !strings.Contains(ev.Err.Error(), c.want) {
				t.Fatalf("event %s %v, want an error saying %q", ev.Kind, ev.Err, c.want)
			}
			if strings.ContainsAny(ev.Err.Error(), "\x1b\x07") {
				t.Fatalf("the far side's bytes reached the message raw: %q", ev.Err)
			}
		})
	}
}

// A session waiting for the version a far side named is woken by the
// next version noted, not by polling.
func TestFarFileSignalsTheNextVersion(t *testing.T) {
	f := NewFarFile(&Host{Name: "box"})
	data, next := f.Latest()
	if data != nil {
		t.Fatalf("a version before any came: %q", data)
	}
	select {
	case <-next:
		t.Fatal("next closed before a version came")
	default:
	}
	f.Note(statefile.Event{Kind: statefile.EventLoaded, Data: []byte("v1")})
	select {
	case <-next:
	default:
		t.Fatal("next not closed by the version noted")
	}
	data, again := f.Latest()
	if string(data) != "v1" || again == next {
		t.Fatalf("after the note: %q, a new channel %v", data, again != next)
	}
	f.Note(statefile.Event{Kind: statefile.EventInvalid})
	if data, _ := f.Latest(); data != nil {
		t.Fatalf("an invalid version kept %q to plan on", data)
	}
	<-again
}
