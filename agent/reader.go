package agent

import (
	"context"
	"time"
)

// Reader reads a project's transcripts and hook events when it is asked
// to, each file from where the last read ended: the reading StartFollow
// does, without a goroutine, a watcher or a poll of its own, for a caller
// that follows many projects on one clock (the fleet: one goroutine and
// one slow clock for all its loops). It is not safe for concurrent use.
type Reader struct {
	f *follower
}

// NewReader returns a Reader of o's project that has read nothing yet;
// a read stops early once ctx is done.
func NewReader(ctx context.Context, o Options) *Reader {
	return &Reader{f: newFollower(ctx, o)}
}

// Hooks reads the hook events file again when it changed (one stat when
// it did not); it reports whether it did. A session that waits for a
// person is told here first (NeedsYou); whether it moved on since is in
// the transcripts, which Read reads.
func (r *Reader) Hooks() bool {
	if r.f.o.HookFile == "" {
		return false
	}
	return r.f.readHooks()
}

// Read reads the hook events and what was appended to the transcripts
// followed since the last Read; with discover (and always while no
// transcript directory of the project is known) it also looks for the
// project's directories and their new sessions and sub-agents. It reports
// whether anything was read. The buffers a read needs are let go after
// it: a Reader between reads holds its model, not 256 KiB per file.
func (r *Reader) Read(discover bool) bool {
	changed := r.f.scan(discover)
	r.f.free = nil
	if !r.f.ready {
		r.f.ready = true
		changed = true
	}
	return changed
}

// Activity is what the Reader has read, as a snapshot (Activity.Ready
// once Read has run).
func (r *Reader) Activity() *Activity { return r.f.snapshot() }

// SetAtoms gives the Reader the loop's atom ids (the state file changed).
func (r *Reader) SetAtoms(ids []string) {
	r.f.o.Atoms = ids
	r.f.t.SetAtoms(ids)
}

// Since is when the responses counted begin (Options.Since).
func (r *Reader) Since() time.Time { return r.f.o.Since }

// Bytes is how many transcript bytes the Reader has read so far, a file
// replaced or cut short and read again included.
func (r *Reader) Bytes() int64 { return r.f.read }
