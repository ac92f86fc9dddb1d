package statefile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/model"
	"github.com/fsnotify/fsnotify"
)

// EventKind says what a watch Event reports.
type EventKind int

// Watch event kinds.
const (
	// EventLoaded: the file parsed; Doc (or Phase) and Facts are set.
	EventLoaded EventKind = iota + 1
	// EventInvalid: the file changed but does not parse (it may be
	// mid-write); Err says what is wrong and where. Keep the last good state.
	EventInvalid
	// EventRemoved: the file went away; keep the last state, it may return.
	// Err is nil, or says that the path is now a symbolic link loop.
	EventRemoved
	// EventWaiting: the file does not exist yet. Err is nil, or says that
	// the path is a symbolic link loop (ErrSymlinkLoop).
	EventWaiting
	// EventError: the file could not be read (permissions, size limit), or
	// the path holds something that is not a regular file (ErrNotRegular:
	// a named pipe, a directory), refused without waiting on it. The watch
	// goes on: a state file that takes its place is read when it comes.
	EventError
)

func (k EventKind) String() string {
	switch k {
	case EventLoaded:
		return "loaded"
	case EventInvalid:
		return "invalid"
	case EventRemoved:
		return "removed"
	case EventWaiting:
		return "waiting"
	case EventError:
		return "error"
	}
	return "unknown"
}

// Event is one observation of the watched file. It is built off the UI
// goroutine: parsing and deriving are done by the time it is delivered.
type Event struct {
	Kind   EventKind
	Target Target
	// Data is the file's bytes (Loaded and Invalid).
	Data []byte
	// Doc and Facts are set for a loaded AoT state file.
	Doc   *Document
	Facts *model.Facts
	// Phase is set for a loaded phase loop file.
	Phase *model.PhaseLoop
	Err   error
	// NotWritable says why corrections could not be written to the file
	// (it or its directory is read-only); nil when they can. Checked with
	// every Loaded event, off the UI goroutine.
	NotWritable error
	// At is when the change was observed; ModTime is the file's own.
	At      time.Time
	ModTime time.Time
}

// WatchOptions tune a watch. The zero value is sensible.
type WatchOptions struct {
	// Debounce coalesces bursts of events (default 2 ms: a file caught
	// mid-write is read again before it is called invalid, so a short
	// debounce costs nothing and took 5 ms off the write-to-screen latency).
	// A file that appears at the name — renamed over it, as the loop's
	// hook writes — is read at once (checkNow), and only when that read
	// does not parse does it wait for the debounce.
	Debounce time.Duration
	// Poll is the fallback stat interval, which also catches changes that
	// inotify misses (default 2 s). Once inotify has reported a change of
	// the file, and as long as the poll has found none it missed, the poll
	// runs provenPollFactor times less often.
	Poll time.Duration
	// MaxSize is the size limit (default DefaultMaxSize).
	MaxSize int64
}

// Watch follows the state file at t until ctx is done, calling emit for
// every change of content (identical bytes are skipped). It watches the
// parent directory, since the loop's hook replaces the file by rename and its
// scripts truncate and rewrite it in place; a slow stat poll backs it up.
// emit is called from one goroutine, never concurrently. Watch returns when
// ctx is done.
func Watch(ctx context.Context, t Target, opts WatchOptions, emit func(Event)) error {
	if opts.Debounce <= 0 {
		opts.Debounce = 2 * time.Millisecond
	}
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	w := &watch{t: t, opts: opts, emit: emit}
	return w.run(ctx)
}

type watch struct {
	t    Target
	opts WatchOptions
	emit func(Event)

	last     []byte
	lastKind EventKind
	lastErr  error
	lastStat fileStamp
	// stat stats the file for its stamp (made on first use).
	stat *pathStat
	// doc is the last AoT Document read: the next change is read on it
	// (Reparse), so that only what changed is parsed and decoded again;
	// derive reuses what depends on the work graph's shape alone.
	doc    *Document
	derive model.Deriver
}

type fileStamp struct {
	exists  bool
	size    int64
	modTime time.Time
	ino     uint64
	ctime   time.Time
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi), ctime: ctime(fi)}
}

// stamp is the file's stamp now: one stat, which on Linux allocates
// nothing (pathStat); equal to stampOf's.
func (w *watch) stamp() fileStamp {
	if w.stat == nil {
		w.stat = newPathStat(w.t.Path)
	}
	return w.stat.stamp()
}

// provenPollFactor stretches the fallback poll once inotify has shown it
// reports changes of the file (10 s instead of 2 s by default).
const provenPollFactor = 5

// pollPace is the fallback poll's pace: the Poll interval until inotify
// has reported a change of the file (delivered), provenPollFactor times
// slower after that while the directory is watched, and back for good
// once the poll finds a change inotify did not report (missed: say a
// network filesystem that reports this machine's writes and not others').
type pollPace struct{ delivered, missed bool }

func (p pollPace) interval(poll time.Duration, watching bool) time.Duration {
	if watching && p.delivered && !p.missed {
		return poll * provenPollFactor
	}
	return poll
}

// found is told that the poll found the file changed. It is a miss only
// while the directory is watched, no reported change waits for its
// debounce (pending) and the watch was not just set up again (rewatched:
// the change may predate it).
func (p *pollPace) found(watching, pending, rewatched bool) {
	if watching && !pending && !rewatched {
		p.missed = true
	}
}

func (w *watch) run(ctx context.Context) error {
	dir := filepath.Dir(w.t.Path)
	name := filepath.Base(w.t.Path)

	fw, err := fsnotify.NewWatcher()
	if err != nil {
		fw = nil // fall back to polling alone
	}
	var watching bool
	addDir := func() {
		if fw == nil || watching {
			return
		}
		if err := fw.Add(dir); err == nil {
			watching = true
		}
	}
	addDir()
	if fw != nil {
		defer fw.Close()
	}

	w.check(true)

	var pace pollPace
	// pending: inotify reported a change that waits for its debounce.
	var pending bool

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	poll := time.NewTimer(w.opts.Poll)
	defer poll.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw != nil {
		events, errs = fw.Events, fw.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Clean(ev.Name) == filepath.Clean(dir) && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				// The directory itself went, and its watch with it: the
				// poll watches it again when it is back.
				watching = false
				poll.Reset(w.opts.Poll)
				continue
			}
			if filepath.Base(ev.Name) != name {
				continue
			}
			pace.delivered = true
			if ev.Has(fsnotify.Create) && w.checkNow() {
				// A file that appears at the name whole — the loop's
				// hook renames its finished temp file over it — is read
				// at once, without the debounce.
				if pending {
					pending = false
					debounce.Stop()
				}
				continue
			}
			pending = true
			debounce.Reset(w.opts.Debounce)
		case _, ok := <-errs:
			if !ok {
				errs = nil
			}
			// inotify overflowed or failed: re-check by stat.
			pending = true
			debounce.Reset(w.opts.Debounce)
		case <-debounce.C:
			pending = false
			w.check(false)
		case <-poll.C:
			rewatched := false
			if !watching {
				addDir() // the directory may have appeared
				rewatched = watching
			}
			if st := w.stamp(); st != w.lastStat {
				pace.found(watching, pending, rewatched)
				w.check(false)
			}
			poll.Reset(pace.interval(w.opts.Poll, watching))
		}
	}
}

// checkNow is check for a file that just appeared at the name, read at
// once: false, with nothing emitted, when the read fails or the bytes do
// not parse (a writer that creates the file and then writes it is caught
// with little or nothing written): the debounced check reads it again.
func (w *watch) checkNow() bool {
	st := w.stamp()
	data, err := ReadFile(w.t.Path, w.opts.MaxSize)
	if err != nil {
		return false
	}
	if w.last != nil && bytes.Equal(data, w.last) {
		w.lastStat = st
		return true
	}
	ev := w.parse(data)
	if ev.Kind == EventInvalid {
		return false
	}
	w.lastStat = st
	w.loaded(ev, data, time.Now())
	return true
}

// check reads the file and emits what changed.
func (w *watch) check(first bool) {
	w.lastStat = w.stamp()
	data, err := ReadFile(w.t.Path, w.opts.MaxSize)
	now := time.Now()
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrSymlinkLoop):
			// A link loop is as good as no file: Err says which.
			var why error
			if errors.Is(err, ErrSymlinkLoop) {
				why = err
			}
			gone := w.lastKind == EventRemoved || w.lastKind == EventWaiting
			switch {
			case first:
				w.send(Event{Kind: EventWaiting, Target: w.t, Err: why, At: now})
			case !gone || errText(why) != errText(w.lastErr):
				w.send(Event{Kind: EventRemoved, Target: w.t, Err: why, At: now})
			}
		default:
			// Unreadable, too large, or not a regular file (a FIFO, a
			// directory): said at once, never waited on; the file that
			// replaces it is read when it comes.
			w.send(Event{Kind: EventError, Target: w.t, Err: err, At: now})
		}
		// Whatever comes next is news, even the bytes last read.
		w.last = nil
		return
	}
	if w.last != nil && bytes.Equal(data, w.last) {
		return
	}
	ev := w.parse(data)
	if ev.Kind == EventInvalid {
		// A writer that truncates and rewrites in place can be caught
		// mid-write; look again shortly before calling the file invalid.
		// The stat the poll compares with is taken before each read,
		// never after: a write that ends after the last read must move
		// the stat, or the poll would take the file for the one read and
		// keep it invalid until the next write.
		for i := 0; i < 3; i++ {
			time.Sleep(40 * time.Millisecond)
			st := w.stamp()
			again, err := ReadFile(w.t.Path, w.opts.MaxSize)
			if err != nil {
				break
			}
			w.lastStat = st
			if bytes.Equal(again, data) {
				break
			}
			data = again
			if ev = w.parse(data); ev.Kind != EventInvalid {
				break
			}
		}
		watchHook("settled")
	}
	w.loaded(ev, data, now)
}

// loaded emits ev, what the bytes data read at now gave.
func (w *watch) loaded(ev Event, data []byte, now time.Time) {
	ev.At = now
	ev.ModTime = w.lastStat.modTime
	w.last = data
	w.send(ev)
}

// watchTestHook, when set (by tests), is called at the named steps of a
// check: "settled" (a file that did not parse was read again until it
// held still; its event is next). Tests land a write there.
var watchTestHook func(step string)

func watchHook(step string) {
	if watchTestHook != nil {
		watchTestHook(step)
	}
}

func (w *watch) parse(data []byte) Event {
	ev := Event{Target: w.t, Data: data}
	if w.t.Kind == KindPhaseLoop {
		p, err := ParsePhaseLoop(data)
		if err != nil {
			ev.Kind, ev.Err = EventInvalid, withPath(err, w.t.Path)
			return ev
		}
		ev.Kind, ev.Phase = EventLoaded, p
		return ev
	}
	doc, err := Reparse(w.doc, data)
	if err != nil {
		ev.Kind, ev.Err = EventInvalid, withPath(err, w.t.Path)
		return ev
	}
	w.doc = doc
	ev.Kind, ev.Doc, ev.Facts = EventLoaded, doc, w.derive.Derive(doc.State)
	ev.NotWritable = Writable(w.t.Path)
	return ev
}

func (w *watch) send(ev Event) {
	w.lastKind, w.lastErr = ev.Kind, ev.Err
	w.emit(ev)
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Watcher runs Watch in the background; Stop ends it and waits.
type Watcher struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// StartWatch starts Watch in a goroutine.
func StartWatch(t Target, opts WatchOptions, emit func(Event)) *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{cancel: cancel}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		_ = Watch(ctx, t, opts, emit)
	}()
	return w
}

// Stop ends the watch and waits for its goroutine.
func (w *Watcher) Stop() {
	w.cancel()
	w.done.Wait()
}
