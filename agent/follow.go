package agent

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/statefile"
	"github.com/fsnotify/fsnotify"
	"strconv"
)

// Options say whose sessions to follow and how.
type Options struct {
	// Project is the loop's project directory (the working directory
	// Claude Code runs the loop in).
	Project string
	// Root is Claude Code's projects directory (default ProjectsRoot).
	Root string
	// HookFile is the project's hook events file (HookEventsFile; "" for
	// none: NeedsYou is then only inferred).
	HookFile string
	// Since: only transcripts written since then are read, and only the
	// responses since then counted (the loop's start: the first version
	// of its state file aot-tui knows; zero: all).
	Since time.Time
	// Atoms, Iterations: the loop's atom ids and its iterations over time
	// (from the state file's versions); both may change later
	// (Follower.SetAtoms, SetIterations).
	Atoms      []string
	Iterations []IterationMark
	Prices     *Prices
	MaxSteps   int
	// Poll is the fallback stat interval (default 2 s), Debounce the wait
	// after a notification (default 5 ms).
	Poll     time.Duration
	Debounce time.Duration
	// MaxLine bounds one line (default 64 MiB): a longer one is skipped,
	// with a note.
	MaxLine int
	// Quick: the transcript directories are looked for only where Claude
	// Code's naming rule and the hook's events say, never by reading a
	// transcript of every directory of Root (which a root of hundreds of
	// projects makes slow for a one-shot command).
	Quick bool

	// watchDirs overrides the platform's choice of watching directories
	// (inotify, Windows) or only the files followed (kqueue): tests run
	// both on Linux.
	watchDirs *bool
}

func (o *Options) defaults() {
	if o.Root == "" {
		o.Root, _ = ProjectsRoot()
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Debounce <= 0 {
		o.Debounce = 5 * time.Millisecond
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 64 << 20
	}
}

// follower reads a project's transcripts and hook events into a Tracker,
// each file from where it left off.
type follower struct {
	o     Options
	t     *Tracker
	dirs  []string
	files map[string]*tfile
	// order is the order the files were first met (read in it).
	order   []*tfile
	gone    map[string]bool
	foreign map[string]bool
	hookFI  fs.FileInfo
	free    [][]byte
	// read counts the transcript bytes read: a follower never reads a
	// byte twice unless a file was replaced or cut (then it starts over),
	// or a read of more than maxOpen files parks one (reread counts
	// those bytes).
	read   int64
	reread int64
	// lastScan is when every directory of the root was last looked at
	// for the project's cwd.
	lastScan time.Time
	ready    bool
	ctx      context.Context
}

type tfile struct {
	transcript
	// off is how far the file was read; tail the torn line at its end,
	// kept until its line break comes.
	off  int64
	fi   fs.FileInfo
	tail []byte
	// skipping: a line longer than MaxLine is being passed over.
	skipping bool
}

func newFollower(ctx context.Context, o Options) *follower {
	o.defaults()
	f := &follower{o: o, files: map[string]*tfile{}, gone: map[string]bool{}, foreign: map[string]bool{}, ctx: ctx}
	f.reset()
	return f
}

func (f *follower) reset() {
	f.t = NewTracker(TrackerOptions{Project: f.o.Project, Prices: f.o.Prices, Atoms: f.o.Atoms, MaxSteps: f.o.MaxSteps, Since: f.o.Since})
	f.t.SetIterations(f.o.Iterations)
	f.hookFI = nil
	for _, tf := range f.order {
		tf.off, tf.fi, tf.tail, tf.skipping = 0, nil, nil, false
	}
}

// Open reads the project's transcripts and hook events once: the
// activity now (status --json).
func Open(o Options) *Activity {
	f := newFollower(context.Background(), o)
	f.scan(true)
	f.ready = true
	return f.snapshot()
}

func (f *follower) snapshot() *Activity {
	a := f.t.Snapshot(time.Now())
	a.Ready = f.ready
	a.Found = len(f.dirs) > 0
	for _, d := range f.dirs {
		a.Dirs = append(a.Dirs, clean(d, 400))
	}
	if !a.Found && f.ready {
		where := f.o.Root
		if where == "" {
			where = "Claude Code's projects directory"
		}
		a.Notes = append(a.Notes, clean("no Claude Code transcripts of "+f.o.Project+" in "+where, 400))
	}
	return a
}

// scan reads what changed: with discover, it looks for the project's
// directories and new transcripts too (a poll, or a directory changed).
// It reports whether anything was read.
func (f *follower) scan(discover bool) bool { return f.scanFiles(discover, nil) }

// scanFiles is scan, reading only the files in only (all when nil): a
// notification names the file that changed, and a loop's hundreds of
// finished sub-agents need no stat each time one line is written.
func (f *follower) scanFiles(discover bool, only map[string]bool) bool {
	changed := false
	if f.o.HookFile != "" && (only == nil || only[f.o.HookFile]) {
		// first: the events name transcripts discover looks at
		changed = f.readHooks()
	}
	if discover || len(f.dirs) == 0 {
		changed = f.discover() || changed
		only = nil
	}
	got, err := f.readAll(only)
	if errors.Is(err, errStartOver) {
		notes := f.t.notes
		f.reset()
		f.t.notes = notes
		f.scan(false)
		return true
	}
	changed = changed || got
	return changed
}

var errStartOver = errors.New("start over")

// minEmit is the shortest time between two snapshots a Follower hands
// out.
const minEmit = 50 * time.Millisecond

// scanEvery is how often a follower that has found no transcript
// directory of the project looks through every directory of the root.
const scanEvery = 30 * time.Second

// discover finds the project's transcript directories and their files.
func (f *follower) discover() bool {
	if f.o.Root == "" {
		return false
	}
	sp := spellings(f.o.Project)
	dirs := namedDirs(f.o.Root, sp)
	// The hook's events name their session's transcript: its directory
	// is the project's, whatever the rule.
	for _, ev := range f.t.hooks {
		if ev.Transcript == "" || !filepath.IsAbs(ev.Transcript) {
			continue
		}
		if d := filepath.Dir(ev.Transcript); !slices.Contains(dirs, d) && filepath.Dir(d) == filepath.Clean(f.o.Root) && isDir(d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 && len(f.dirs) == 0 && !f.o.Quick && (f.lastScan.IsZero() || time.Since(f.lastScan) >= scanEvery) {
		// No directory by the rule or the hook: a transcript of every
		// directory is looked at, at most every scanEvery.
		f.lastScan = time.Now()
		dirs = scanDirs(f.o.Root, sp)
	}
	for _, d := range dirs {
		if !slices.Contains(f.dirs, d) {
			f.dirs = append(f.dirs, d)
		}
	}
	added := false
	for _, d := range f.dirs {
		ts, err := sessionFiles(d, f.o.Since)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !f.gone[d] {
				f.gone[d] = true
				f.t.Note("the transcripts directory " + d + " disappeared; what was read is kept")
				added = true // news
			}
			continue
		}
		if f.gone[d] {
			delete(f.gone, d)
			f.t.Note("the transcripts directory " + d + " is back")
			added = true
		}
		for _, tr := range ts {
			if f.files[tr.path] != nil || f.foreign[tr.path] {
				continue
			}
			if tr.ref.Agent == "" {
				if cwd := cwdOfFile(tr.path); cwd != "" && !sameDir(cwd, sp) {
					// Another directory whose name comes out the same
					// (/a/b-c and /a/b/c): not this project's.
					f.foreign[tr.path] = true
					continue
				}
			} else if f.foreign[filepath.Join(d, tr.ref.Session+".jsonl")] {
				f.foreign[tr.path] = true
				continue
			}
			tf := &tfile{transcript: tr}
			f.files[tr.path] = tf
			f.order = append(f.order, tf)
			added = true
		}
	}
	return added
}

// readAll reads what was appended to the files since the last read, in
// time order across them (a k-way merge on the lines' timestamps, each
// file's own order kept): a worker's file read before its coordinator's
// would have its lines attributed before the marks and the Task that
// explain them. Complete lines are fed to the tracker; a torn last line
// is kept until its line break comes. A file replaced (another file at
// the path) or cut short returns errStartOver.
func (f *follower) readAll(only map[string]bool) (bool, error) {
	var cands []*cursor
	for i, tf := range f.order {
		if f.foreign[tf.path] || (only != nil && !only[tf.path]) {
			continue
		}
		fi, err := os.Stat(tf.path)
		if err != nil {
			continue // gone: what was read stays; the directory's note says why
		}
		if tf.fi != nil && (!os.SameFile(tf.fi, fi) || fi.Size() < tf.off) {
			f.t.Note("a transcript was replaced or cut short (" + filepath.Base(tf.path) + "): everything is read again from the start")
			return false, errStartOver
		}
		tf.fi = fi
		if fi.Size() > tf.off {
			cands = append(cands, &cursor{tf: tf, size: fi.Size(), idx: i})
		}
	}
	var active cursorHeap
	defer func() {
		for _, c := range active {
			c.close(f)
		}
	}()
	// With more files than maxOpen to read (a long loop's sub-agents),
	// each is opened for its first line, then parked until the merge
	// reaches its time: few of them overlap in time.
	probe := len(cands) > maxOpen
	var pending []*cursor
	for _, c := range cands {
		if !c.open(f, probe) {
			continue
		}
		if !c.next(f) {
			c.close(f)
			continue
		}
		if probe {
			c.park(f)
			pending = append(pending, c)
		} else {
			heap.Push(&active, c)
		}
	}
	before := func(a, b *cursor) bool {
		if c := a.key.Compare(b.key); c != 0 {
			return c < 0
		}
		return a.idx < b.idx
	}
	slices.SortFunc(pending, func(a, b *cursor) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	activate := func() {
		for len(pending) > 0 && (active.Len() == 0 || !before(active[0], pending[0])) {
			c := pending[0]
			pending = pending[1:]
			if active.Len() >= maxOpen {
				// park the open file whose next line comes last
				last := 0
				for i := range active {
					if before(active[last], active[i]) {
						last = i
					}
				}
				if m := active[last]; before(c, m) {
					heap.Remove(&active, last)
					m.park(f)
					i, _ := slices.BinarySearchFunc(pending, m, func(a, b *cursor) int {
						if before(a, b) {
							return -1
						}
						return 1
					})
					pending = slices.Insert(pending, i, m)
				}
			}
			if c.open(f, false) {
				heap.Push(&active, c)
			}
		}
	}
	got := false
	for {
		activate()
		if active.Len() == 0 || f.ctx.Err() != nil {
			break
		}
		c := active[0]
		f.t.FeedLine(c.tf.ref, &c.line, c.ok)
		got = true
		if c.next(f) {
			heap.Fix(&active, 0)
		} else {
			heap.Pop(&active)
			c.close(f)
		}
	}
	return got, nil
}

// maxOpen bounds the files one read keeps open at once, and so the
// buffers it holds (a chunk each) and its descriptors.
const maxOpen = 16

// open opens the cursor's file with a buffer (a small one to probe its
// first line), the file's kept tail first in it; false (noted) when it
// cannot be opened.
func (c *cursor) open(f *follower, small bool) bool {
	file, err := statefile.OpenRegular(c.tf.path)
	if err != nil {
		f.t.Note(err.Error())
		return false
	}
	c.file = file
	if small {
		c.buf = make([]byte, 0, 16<<10)
	} else {
		c.buf = f.getBuf(c.size - c.tf.off + int64(len(c.tf.tail)))
	}
	c.pos = 0
	c.buf = append(c.buf, c.tf.tail...)
	c.tf.tail = nil
	return true
}

// park closes the cursor's file and gives its buffer back, keeping the
// line it has read: what it read past that line is read again when it
// opens (f.reread counts it).
func (c *cursor) park(f *follower) {
	if rest := int64(len(c.buf) - c.pos); rest > 0 && !c.tf.skipping {
		c.tf.off -= rest
		f.reread += rest
	}
	c.close(f)
}

// cursor reads one file's new lines for readAll.
type cursor struct {
	tf   *tfile
	file *os.File
	size int64
	idx  int
	buf  []byte
	pos  int
	// line is the next line, parsed (ok as ParseLine said); key orders it:
	// its timestamp, never before the file's previous one.
	line Line
	ok   bool
	key  time.Time
}

// chunk is how much a cursor reads at a time.
const chunk = 256 << 10

// next reads the file's next complete line into c.line; false at the end
// of what is there, with a torn last line kept in the file's tail.
func (c *cursor) next(f *follower) bool {
	tf := c.tf
	for {
		if f.ctx.Err() != nil {
			return false
		}
		if i := bytes.IndexByte(c.buf[c.pos:], '\n'); i >= 0 {
			line := c.buf[c.pos : c.pos+i]
			c.pos += i + 1
			if tf.skipping {
				tf.skipping = false
				continue
			}
			if len(line) > f.o.MaxLine {
				f.tooLong(tf)
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			c.line, c.ok = ParseLine(line)
			if c.ok && !c.line.Timestamp.IsZero() && c.line.Timestamp.After(c.key) {
				c.key = c.line.Timestamp
			}
			return true
		}
		rest := len(c.buf) - c.pos
		if rest > f.o.MaxLine && !tf.skipping {
			f.tooLong(tf)
			tf.skipping = true
		}
		if tf.skipping {
			c.buf, c.pos = c.buf[:0], 0
		} else if c.pos > 0 {
			c.buf = c.buf[:copy(c.buf, c.buf[c.pos:])]
			c.pos = 0
		}
		if tf.off >= c.size {
			if !tf.skipping && len(c.buf) > 0 {
				tf.tail = bytes.Clone(c.buf)
			}
			return false
		}
		if free := cap(c.buf) - len(c.buf); free == 0 || free < cap(c.buf)/4 {
			// a line longer than the room left: a buffer twice as large
			nb := make([]byte, len(c.buf), max(2*cap(c.buf), 16<<10))
			copy(nb, c.buf)
			c.buf = nb
		}
		want := int(min(int64(cap(c.buf)-len(c.buf)), c.size-tf.off))
		n, err := c.file.ReadAt(c.buf[len(c.buf):len(c.buf)+want], tf.off)
		c.buf = c.buf[:len(c.buf)+n]
		tf.off += int64(n)
		f.read += int64(n)
		if n == 0 || (err != nil && n < want) {
			c.size = tf.off // shorter than its stat said: cut meanwhile, the next stat says so
		}
	}
}

func (c *cursor) close(f *follower) {
	if c.file != nil {
		c.file.Close()
		c.file = nil
	}
	if cap(c.buf) >= chunk && cap(c.buf) <= 4*chunk && len(f.free) < maxOpen {
		f.free = append(f.free, c.buf[:0])
	}
	c.buf = nil
}

// getBuf is a buffer for reading need bytes: a free one, else a new one
// of a chunk, or of need (at least 4 KiB) when that is less — a Reader,
// which keeps no free buffers, reads a line appended in a buffer of its
// size, not of 256 KiB.
func (f *follower) getBuf(need int64) []byte {
	if n := len(f.free); n > 0 {
		b := f.free[n-1]
		f.free = f.free[:n-1]
		return b
	}
	if need < chunk {
		return make([]byte, 0, max(int(need), 4<<10))
	}
	return make([]byte, 0, chunk)
}

func (f *follower) tooLong(tf *tfile) {
	f.t.Note("a line over " + strconv.Itoa(f.o.MaxLine>>20) + " MiB in " + filepath.Base(tf.path) + " was skipped")
	f.t.lines++
	f.t.unrecognised++
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	if c := h[i].key.Compare(h[j].key); c != 0 {
		return c < 0
	}
	return h[i].idx < h[j].idx
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// readHooks reads the hook events file again when it changed.
func (f *follower) readHooks() bool {
	fi, err := os.Stat(f.o.HookFile)
	if err != nil {
		if f.hookFI != nil {
			f.hookFI = nil
			f.t.SetHookEvents(nil)
			return true
		}
		return false
	}
	if f.hookFI != nil && os.SameFile(f.hookFI, fi) && fi.Size() == f.hookFI.Size() && fi.ModTime().Equal(f.hookFI.ModTime()) {
		return false
	}
	f.hookFI = fi
	evs, err := ReadHookEvents(f.o.HookFile)
	if err != nil {
		f.t.Note("hook events: " + err.Error())
		return false
	}
	f.t.SetHookEvents(evs)
	return true
}

// Follower follows a loop's sessions in the background (StartFollow).
type Follower struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
	mu     sync.Mutex
	atoms  []string
	iters  []IterationMark
	dirty  bool
	wake   chan struct{}
}

// StartFollow starts following the project's transcripts and hook events
// in a goroutine: emit is called (from that goroutine, never
// concurrently) with a new snapshot first at once (Ready false), again
// when the transcripts that were there are read (Ready true), and then
// after every change, a few milliseconds after it is written (at most
// one every 50 ms). A snapshot is never changed after it is handed out
// (snapshots share what did not change between them: read them, never
// write them). Stop ends it.
func StartFollow(o Options, emit func(*Activity)) *Follower {
	ctx, cancel := context.WithCancel(context.Background())
	fl := &Follower{cancel: cancel, wake: make(chan struct{}, 1)}
	fl.done.Add(1)
	go func() {
		defer fl.done.Done()
		fl.run(ctx, o, emit)
	}()
	return fl
}

// Stop ends the following and waits for its goroutine.
func (fl *Follower) Stop() {
	fl.cancel()
	fl.done.Wait()
}

// SetAtoms gives the follower the loop's atom ids (the state file
// changed): new Task descriptions are matched against them.
func (fl *Follower) SetAtoms(ids []string) {
	fl.mu.Lock()
	fl.atoms, fl.dirty = slices.Clone(ids), true
	fl.mu.Unlock()
	fl.poke()
}

// SetIterations gives the follower the loop's iterations over time, read
// from the state file's versions: the tokens per iteration are counted
// again by them.
func (fl *Follower) SetIterations(marks []IterationMark) {
	fl.mu.Lock()
	fl.iters, fl.dirty = slices.Clone(marks), true
	fl.mu.Unlock()
	fl.poke()
}

func (fl *Follower) poke() {
	select {
	case fl.wake <- struct{}{}:
	default:
	}
}

// settings hands the follower the atoms and iterations set since the
// last call.
func (fl *Follower) settings(f *follower) bool {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if !fl.dirty {
		return false
	}
	fl.dirty = false
	if fl.atoms != nil {
		f.o.Atoms = fl.atoms
		f.t.SetAtoms(fl.atoms)
	}
	if fl.iters != nil {
		f.o.Iterations = fl.iters
		f.t.SetIterations(fl.iters)
	}
	return true
}

func (fl *Follower) run(ctx context.Context, o Options, emit func(*Activity)) {
	f := newFollower(ctx, o)
	watchDirs := watchDirsDefault
	if o.watchDirs != nil {
		watchDirs = *o.watchDirs
	}
	emit(f.snapshot())
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		fw = nil // polling alone
	} else {
		defer fw.Close()
	}
	watched := map[string]bool{}
	watch := func() {
		if fw == nil {
			return
		}
		var want []string
		if watchDirs {
			want = append(want, f.o.Root)
			for _, d := range f.dirs {
				want = append(want, d)
				for _, tf := range f.order {
					if tf.ref.Agent == "" {
						want = append(want, filepath.Join(d, tf.ref.Session), filepath.Join(d, tf.ref.Session, "subagents"))
					}
				}
			}
			if f.o.HookFile != "" {
				want = append(want, filepath.Dir(f.o.HookFile))
			}
		} else {
			// kqueue: a watched directory costs a descriptor for every
			// entry; watch the files followed, and let the poll find new
			// ones.
			for _, tf := range f.order {
				want = append(want, tf.path)
			}
			if f.o.HookFile != "" {
				want = append(want, f.o.HookFile)
			}
		}
		for _, p := range want {
			if !watched[p] && fw.Add(p) == nil {
				watched[p] = true
			}
		}
	}
	fl.settings(f)
	f.scan(true)
	f.ready = true
	if ctx.Err() != nil {
		return
	}
	emit(f.snapshot())
	watch()

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	poll := time.NewTimer(f.o.Poll)
	defer poll.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw != nil {
		events, errs = fw.Events, fw.Errors
	}
	rediscover := false
	// touched are the followed files notifications named since the last
	// read.
	touched := map[string]bool{}
	// Snapshots go out at most every minEmit: a loop writing many lines a
	// second makes one snapshot of them, the last change never held back
	// longer than that.
	var lastEmit time.Time
	held := false
	throttle := time.NewTimer(time.Hour)
	throttle.Stop()
	defer throttle.Stop()
	send := func() {
		if since := time.Since(lastEmit); since < minEmit {
			if !held {
				held = true
				throttle.Reset(minEmit - since)
			}
			return
		}
		lastEmit = time.Now()
		emit(f.snapshot())
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				if watched[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
					delete(watched, ev.Name) // its watch went with it
				}
				rediscover = true
			}
			switch name := filepath.Clean(ev.Name); {
			case f.files[name] != nil || name == f.o.HookFile:
				touched[name] = true
			case !watched[name]:
				rediscover = true // a file not followed yet
			}
			debounce.Reset(f.o.Debounce)
		case _, ok := <-errs:
			if !ok {
				errs = nil
			}
			rediscover = true // an overflow: read everything
			debounce.Reset(f.o.Debounce)
		case <-throttle.C:
			held = false
			lastEmit = time.Now()
			emit(f.snapshot())
		case <-fl.wake:
			if fl.settings(f) {
				send()
			}
		case <-debounce.C:
			changed := fl.settings(f)
			if f.scanFiles(rediscover, touched) || changed {
				send()
			}
			if rediscover {
				watch()
			}
			rediscover = false
			clear(touched)
		case <-poll.C:
			changed := fl.settings(f)
			if f.scan(true) || changed {
				send()
			}
			watch()
			poll.Reset(f.o.Poll)
		}
	}
}
