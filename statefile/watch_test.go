package statefile

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLog collects watch events for assertions.
type eventLog struct {
	mu  sync.Mutex
	evs []Event
	ch  chan Event
}

func newEventLog() *eventLog { return &eventLog{ch: make(chan Event, 64)} }

func (l *eventLog) emit(ev Event) {
	l.mu.Lock()
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
	l.ch <- ev
}

// next waits for the next event (failing the test after a generous bound:
// this is a liveness check, not a timing assertion).
func (l *eventLog) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-l.ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event arrived")
	}
	return Event{}
}

// none checks that no event arrives for a while.
func (l *eventLog) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case ev := <-l.ch:
		t.Fatalf("unexpected event %v", ev.Kind)
	case <-time.After(d):
	}
}

const watchDoc = `---
objective:
  goal: "g"
  base_case:
    type: command
    value: "true"
control:
  status: running
  iteration: %ITER%
  stall_count: 0
  prev_pending_count: -1
  stop_requested: false
  stop_reason: null
  redirect_requested: false
atoms:
  - id: A1
    description: "one"
    status: pending
    depends_on: []
bindings: {}
trail: []
corrections: []
---
body
`

func docWithIter(n string) []byte { return []byte(strings.Replace(watchDoc, "%ITER%", n, 1)) }

func startTestWatch(t *testing.T, path string) (*eventLog, func()) {
	t.Helper()
	log := newEventLog()
	w := StartWatch(Target{Path: path, Kind: KindAoT}, WatchOptions{Debounce: 5 * time.Millisecond, Poll: 200 * time.Millisecond}, log.emit)
	return log, w.Stop
}

func TestWatchRenameInPlaceRemoveReturn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	log, stop := startTestWatch(t, path)
	defer stop()

	ev := log.next(t)
	if ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 1 {
		t.Fatalf("first event: %v iteration %v", ev.Kind, ev.Doc)
	}

	// The hook's way: temp file + rename.
	tmp := path + ".tmp.123"
	if err := os.WriteFile(tmp, docWithIter("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 2 {
		t.Fatalf("after rename: %v", ev.Kind)
	}

	// The scripts' way: truncate and rewrite in place.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(docWithIter("3")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 3 {
		t.Fatalf("after in-place write: %v", ev.Kind)
	}

	// Identical bytes are skipped.
	if err := os.WriteFile(path, docWithIter("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.none(t, 400*time.Millisecond)

	// A parse error is reported; the next good write recovers.
	if err := os.WriteFile(path, []byte("---\natoms: [\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventInvalid || ev.Err == nil || !strings.Contains(ev.Err.Error(), "line") {
		t.Fatalf("after a bad write: %v %v", ev.Kind, ev.Err)
	}
	if err := os.WriteFile(path, docWithIter("4"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 4 {
		t.Fatalf("after recovery: %v", ev.Kind)
	}

	// Removal, then return.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventRemoved {
		t.Fatalf("after removal: %v", ev.Kind)
	}
	if err := os.WriteFile(path, docWithIter("4"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev = log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 4 {
		t.Fatalf("after return: %v", ev.Kind)
	}
}

func TestWatchWaitsForFileAndDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "aot-loop-state.md")
	log, stop := startTestWatch(t, path)
	defer stop()
	if ev := log.next(t); ev.Kind != EventWaiting {
		t.Fatalf("first event %v, want waiting", ev.Kind)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, docWithIter("7"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := log.next(t)
	if ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 7 {
		t.Fatalf("after creation: %v", ev.Kind)
	}
	if ev.Facts == nil || ev.Facts.Counts.Total != 1 {
		t.Fatalf("facts not derived off the UI goroutine: %+v", ev.Facts)
	}
}

func TestWatchIgnoresSiblings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	log, stop := startTestWatch(t, path)
	defer stop()
	log.next(t)
	for i := 0; i < 20; i++ {
		if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log.none(t, 400*time.Millisecond)
}

// A writer that truncates and rewrites in place more slowly than the 2 ms
// debounce is caught mid-write; the watcher reads again before calling the
// file invalid, so the person sees the new state and no error banner.
func TestWatchSlowInPlaceWriterIsNotInvalid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := newEventLog()
	w := StartWatch(Target{Path: path, Kind: KindAoT}, WatchOptions{}, log.emit) // the default debounce
	defer w.Stop()
	if ev := log.next(t); ev.Kind != EventLoaded {
		t.Fatalf("first: %v", ev.Kind)
	}
	for i := 2; i <= 6; i++ {
		doc := docWithIter(strconv.Itoa(i))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		half := len(doc) / 2
		if _, err := f.Write(doc[:half]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(15 * time.Millisecond) // well past the debounce: the half is read
		if _, err := f.Write(doc[half:]); err != nil {
			t.Fatal(err)
		}
		f.Close()
		ev := log.next(t)
		for ev.Kind == EventLoaded && ev.Doc.State.Control.Iteration != i {
			ev = log.next(t) // a half that happened to parse (cut in the body)
		}
		if ev.Kind != EventLoaded {
			t.Fatalf("write %d: %v %v (a half-written file was reported)", i, ev.Kind, ev.Err)
		}
	}
}

// A file renamed over the state file — the loop's hook's way — is read as
// soon as it appears, without the debounce: with an hour's debounce and
// poll the event still comes. A writer that creates the file and then
// writes it is caught with nothing written: that read reports nothing
// (no invalid file), and is left to the debounce.
func TestWatchReadsARenamedFileAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("asserted where fsnotify reports a rename over the file as Create (inotify's IN_MOVED_TO)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := newEventLog()
	w := StartWatch(Target{Path: path, Kind: KindAoT}, WatchOptions{Debounce: time.Hour, Poll: time.Hour}, log.emit)
	defer w.Stop()
	if ev := log.next(t); ev.Kind != EventLoaded {
		t.Fatalf("first: %v", ev.Kind)
	}
	for i := 2; i <= 4; i++ {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, docWithIter(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if ev := log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != i {
			t.Fatalf("rename %d: %v %v", i, ev.Kind, ev.Err)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log.none(t, 300*time.Millisecond)
}

// The watcher's stamp (one fstatat on Linux/amd64) is the stamp os.Stat
// gives (Tracker.Poll compares the two), for a file, a rewrite in place,
// a replacement by rename and a file that is not there.
func TestPathStatMatchesStampOf(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "aot-loop-state.md")
	p := newPathStat(path)
	check := func(when string) {
		t.Helper()
		if got, want := p.stamp(), stampOf(path); got != want {
			t.Fatalf("%s: stamp %+v, stampOf %+v", when, got, want)
		}
	}
	check("missing")
	if p.stamp().exists {
		t.Fatal("a missing file has a stamp")
	}
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("written")
	first := p.stamp()
	if !first.exists || first.size != int64(len(docWithIter("1"))) || first.ino == 0 {
		t.Fatalf("stamp %+v", first)
	}
	if err := os.WriteFile(path, docWithIter("22"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("rewritten")
	if err := os.WriteFile(path+".tmp", docWithIter("33"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	check("replaced")
	if p.stamp().ino == first.ino {
		t.Fatal("the replacement has the old inode")
	}
	if newPathStat("bad\x00path").stamp().exists {
		t.Fatal("a path with a NUL has a stamp")
	}

	// A relative path, as a Target may hold.
	t.Chdir(dir)
	rel := newPathStat("aot-loop-state.md")
	if got, want := rel.stamp(), stampOf("aot-loop-state.md"); got != want || !got.exists {
		t.Fatalf("relative: %+v, want %+v", got, want)
	}
}

// The poll of a quiet file is one stat and allocates nothing.
func TestPathStatAllocatesNothing(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("os.Stat elsewhere")
	}
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &watch{t: Target{Path: path, Kind: KindAoT}}
	w.lastStat = w.stamp()
	if n := testing.AllocsPerRun(100, func() {
		if w.stamp() != w.lastStat {
			t.Fatal("a quiet file's stamp changed")
		}
	}); n != 0 {
		t.Fatalf("%v allocations a poll", n)
	}
}

func TestPollPace(t *testing.T) {
	const poll = 2 * time.Second
	var p pollPace
	if got := p.interval(poll, true); got != poll {
		t.Fatalf("before inotify reported anything: %v", got)
	}
	p.delivered = true
	if got := p.interval(poll, true); got != provenPollFactor*poll {
		t.Fatalf("once inotify reported a change: %v", got)
	}
	if got := p.interval(poll, false); got != poll {
		t.Fatalf("while the directory is not watched: %v", got)
	}
	for _, tt := range []struct{ watching, pending, rewatched bool }{
		{false, false, false}, // polling alone: the poll is how changes are seen
		{true, true, false},   // inotify reported it; the debounce has not run yet
		{true, false, true},   // the watch was just set up again: the change may predate it
	} {
		p.found(tt.watching, tt.pending, tt.rewatched)
		if p.missed {
			t.Fatalf("%+v counted as a miss", tt)
		}
	}
	p.found(true, false, false)
	if !p.missed || p.interval(poll, true) != poll {
		t.Fatalf("a change inotify did not report: missed %v, interval %v", p.missed, p.interval(poll, true))
	}
	p.delivered = true
	if p.interval(poll, true) != poll {
		t.Fatal("a miss is for good")
	}
}

// When the file's directory is removed and made again (a checkout, rm -rf
// .claude) its inotify watch is gone with it: the poll sets it up again,
// so that writes after that show up at once rather than at the next poll,
// which inotify's earlier reports had stretched.
func TestWatchDirectoryRemovedAndBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "aot-loop-state.md")
	if err := os.WriteFile(path, docWithIter("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	const poll = 2 * time.Second
	log := newEventLog()
	w := StartWatch(Target{Path: path, Kind: KindAoT}, WatchOptions{Debounce: 5 * time.Millisecond, Poll: poll}, log.emit)
	defer w.Stop()
	if ev := log.next(t); ev.Kind != EventLoaded {
		t.Fatalf("first: %v", ev.Kind)
	}
	if err := os.WriteFile(path, docWithIter("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev := log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 2 {
		t.Fatalf("second: %v", ev.Kind)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if ev := log.next(t); ev.Kind != EventRemoved {
		t.Fatalf("after rm -rf: %v", ev.Kind)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, docWithIter("3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev := log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != 3 {
		t.Fatalf("back: %v", ev.Kind)
	}
	time.Sleep(poll + poll/2) // the poll has set the watch up again by now
	// Seen by the poll, a write would take up to 2 s; by inotify, a few
	// milliseconds. Three writes all seen within half a second are not
	// the poll (a 1 in 64 chance).
	for i := 4; i <= 6; i++ {
		start := time.Now()
		if err := os.WriteFile(path, docWithIter(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if ev := log.next(t); ev.Kind != EventLoaded || ev.Doc.State.Control.Iteration != i {
			t.Fatalf("write %d: %v", i, ev.Kind)
		}
		if d := time.Since(start); d > poll/4 {
			t.Fatalf("write %d after the directory came back took %v: seen by the poll, not inotify", i, d)
		}
	}
}
