package history

import (
	"sync"
)

// Recorder appends versions to a Journal on its own goroutine, in the
// order they are recorded, so that the caller (the TUI's event loop)
// never waits for a write or an fsync.
type Recorder struct {
	j *Journal
	// where names the journal and opts open it on the first record
	// (NewLazyRecorder); path is the journal's, once known.
	where func() (string, error)
	path  string
	opts  JournalOptions

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []Version
	busy    bool
	closed  bool
	err     error
	written int
	done    chan struct{}
}

// NewRecorder starts recording to j; Close stops it and closes j.
func NewRecorder(j *Journal) *Recorder {
	r := &Recorder{j: j, path: j.Path(), done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.run()
	return r
}

// NewLazyRecorder records to the journal at the path where names, which
// it asks for and opens (creating it and its directory) on its own
// goroutine when the first version comes, so that the caller does no I/O
// at all (where may look at the disk: JournalIn resolves links); an error
// of either is reported by Err.
func NewLazyRecorder(where func() (string, error), opts JournalOptions) *Recorder {
	r := &Recorder{where: where, opts: opts, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.run()
	return r
}

// Path is the journal's file ("" while a lazy recorder has not opened it).
func (r *Recorder) Path() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path
}

// Record queues v for the journal. After an error it records nothing more
// (Err says why). v.Data is queued and kept as it is, not copied: the
// caller must not change those bytes afterwards.
func (r *Recorder) Record(v Version) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.queue = append(r.queue, v)
	r.cond.Broadcast()
}

// Err is the first error writing the journal, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Written is how many records this recorder wrote (versions another
// process had already recorded are not counted).
func (r *Recorder) Written() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}

// Flush waits until every version recorded so far is written.
func (r *Recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.queue) > 0 || r.busy {
		r.cond.Wait()
	}
}

// Close writes what is queued, stops and closes the journal.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		<-r.done
		return nil
	}
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
	<-r.done
	if r.j != nil {
		if err := r.j.Close(); err != nil {
			return err
		}
	}
	return r.Err()
}

func (r *Recorder) run() {
	defer close(r.done)
	r.mu.Lock()
	for {
		for len(r.queue) == 0 && !r.closed {
			r.cond.Wait()
		}
		if len(r.queue) == 0 {
			r.mu.Unlock()
			return
		}
		v := r.queue[0]
		r.queue = r.queue[1:]
		r.busy = true
		r.mu.Unlock()
		var wrote bool
		var err error
		if r.j == nil {
			r.j, err = r.open()
		}
		if err == nil {
			wrote, err = r.j.Append(v)
		}
		r.mu.Lock()
		r.busy = false
		if wrote {
			r.written++
		}
		if err != nil && r.err == nil {
			r.err = err
			r.queue = nil
		}
		r.cond.Broadcast()
	}
}

// open asks a lazy recorder's where for the journal's path and opens it.
func (r *Recorder) open() (*Journal, error) {
	path, err := r.where()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.path = path
	r.mu.Unlock()
	return OpenJournal(path, r.opts)
}
