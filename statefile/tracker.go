package statefile

import "time"

// Tracker is Watch without the watching: it reads its file when told to
// and emits what changed, exactly as Watch does (identical bytes skipped,
// a file caught mid-write read again before it is called invalid,
// Waiting/Removed when it is not there). It is for a caller that brings
// its own change notifications — package fleet runs one fsnotify watcher
// for many loops instead of one per file, which the kernel's limit of
// inotify instances per user (128 by default) would not allow for fifty.
// A Tracker is not safe for concurrent use; emit is called from the
// goroutine that calls Check or Poll.
type Tracker struct {
	w     watch
	first bool
}

// NewTracker tracks the file at t; nothing is read until Check.
func NewTracker(t Target, opts WatchOptions, emit func(Event)) *Tracker {
	return &Tracker{w: watch{t: t, opts: opts, emit: emit}, first: true}
}

// Check reads the file and emits what changed since the last Check (the
// first one always emits: Loaded, Invalid, Waiting or Error).
func (tr *Tracker) Check() {
	first := tr.first
	tr.first = false
	tr.w.check(first)
}

// Poll checks the file only when its stat (size, times, inode) differs
// from the last Check's: the slow fallback for changes a notification
// missed, at the cost of one stat.
func (tr *Tracker) Poll() {
	if tr.first || stampOf(tr.w.t.Path) != tr.w.lastStat {
		tr.Check()
	}
}

// ModTime is the file's modification time at the last Check, which moves
// when a write leaves the bytes as they were (no event is emitted then).
func (tr *Tracker) ModTime() time.Time { return tr.w.lastStat.modTime }

// Target is the file tracked.
func (tr *Tracker) Target() Target { return tr.w.t }
