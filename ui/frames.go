package ui

import (
	"reflect"
	"runtime"
	"sync"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
)

// Frames draws a frame as soon as the screen changes, and wakes the
// process rarely while it does not.
//
// Bubble Tea writes a frame only on its renderer's ticker: 60 times a
// second whether anything changed or not. So a change waited up to
// 16.7 ms for its frame after it was ready, and an idle TUI woke 60
// times a second, which on a small virtual machine is about 1 % of a
// core: all of the idle cost. Bubble Tea has no way to ask for a frame,
// and its ticker is unexported; FramesFor finds that ticker in the
// Program by reflection, and Frames sets its period:
//
//   - when the screen changed (Model.View calls ask), the next tick comes
//     at once on one processor (as the TUI runs: the tick then draws when
//     the program's goroutine next waits, right after it handed the view
//     to the renderer) and 1 ms later on more, unless a frame was asked
//     for less than Pace ago: then the ticker already runs at Pace and its
//     next tick draws the newest view (never more asked-for frames than
//     Bubble Tea's 60 a second); right after the asked-for tick the
//     ticker runs at Pace again;
//   - Quiet (50 ms) after the last change it slows to Idle, so a screen
//     that does not change costs ten wake-ups a second, and one whose
//     clock changes it once a second (the header's "changed 12s ago")
//     about fifteen. What changes the screen without passing through View
//     (a clipboard write, a terminal query) waits at most Idle.
//
// When the ticker cannot be found (another Bubble Tea), FramesFor returns
// nil, ask does nothing and the program keeps Bubble Tea's fixed rate
// (TestFramesFindBubbleTeasTicker fails first). The ticker is only
// reset, never replaced or received from.
type Frames struct {
	// Pace, Idle and Quiet are the periods above (tests shorten or
	// lengthen them before the program runs).
	Pace, Idle, Quiet time.Duration

	mu sync.Mutex
	// setPeriod resets the ticker with a period; refresh, called by ask
	// on the program's goroutine, looks at the program's ticker again (a
	// later Bubble Tea could make a new one when its renderer restarts).
	setPeriod func(time.Duration)
	refresh   func()
	now       func() time.Time
	after     func(time.Duration, func()) frameTimer
	// procs is GOMAXPROCS (tests fake it): it picks how soon an asked-for
	// tick comes (soon).
	procs func() int
	// asked is when a frame was last asked for with a reset (it is due
	// soon later), last the last ask of any kind. settle puts the period
	// back to Pace twice soon after asked, quiet to Idle Quiet after last.
	// A timer whose callback was on its way when a newer ask came finds
	// its moment not yet come and does nothing.
	asked, last   time.Time
	soonAsked     time.Duration // soon, as it was at asked
	settle, quiet frameTimer
	stopped       bool
}

// frameTimer is what a time.AfterFunc timer is to Frames (tests fake it).
type frameTimer interface {
	Stop() bool
	Reset(time.Duration) bool
}

const (
	// framesSoon is how soon an asked-for frame comes on more than one
	// processor: time for the view just made to reach the renderer first.
	framesSoon = time.Millisecond
	// framesAtOnce is how soon it comes on one processor, where the
	// renderer runs only once the program's goroutine waits, after it
	// handed the view over: the tick is due by then, and the scheduler
	// sends it before it looks for anything else to run. (A period of a
	// millisecond or less that is not yet due when the processor has
	// nothing to do is waited for a whole millisecond: Linux's epoll
	// counts in milliseconds. That was most of the wait of a frame.)
	framesAtOnce = time.Microsecond
)

// soon is how soon an asked-for tick comes now, and the settle timer
// puts the period back to Pace twice that after the ask: on one
// processor both are due when the program's goroutine next waits, and
// the ticker, reset to Pace, does not spin on a period of a microsecond.
func (f *Frames) soon() time.Duration {
	if f.procs() == 1 {
		return framesAtOnce
	}
	return framesSoon
}

// FramesFor returns the Frames of p, a Program not yet run, or nil when
// p's renderer ticker cannot be found. Ask only from the program's own
// goroutine (Update, View): Run starts its renderer, which makes the
// ticker, before the first Init or View, and the first ask reads it.
func FramesFor(p *tea.Program) *Frames {
	slot := tickerSlot(p)
	if slot == nil {
		return nil
	}
	var t *time.Ticker // under Frames.mu
	f := newFrames(func(d time.Duration) {
		if t != nil {
			t.Reset(d)
		}
	}, time.Now, func(d time.Duration, fn func()) frameTimer { return time.AfterFunc(d, fn) })
	f.refresh = func() { t = *slot }
	return f
}

func newFrames(setPeriod func(time.Duration), now func() time.Time, after func(time.Duration, func()) frameTimer) *Frames {
	return &Frames{
		Pace:      time.Second / 60, // Bubble Tea's own rate
		Idle:      100 * time.Millisecond,
		Quiet:     50 * time.Millisecond, // a few frames: typing and scrolling keep the pace
		setPeriod: setPeriod, refresh: func() {}, now: now, after: after,
		procs: func() int { return runtime.GOMAXPROCS(0) },
	}
}

// tickerSlot finds the *time.Ticker field named ticker in the struct p
// points to, or nil.
func tickerSlot(p any) **time.Ticker {
	v := reflect.ValueOf(p)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("ticker")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*time.Ticker]() {
		return nil
	}
	return (**time.Ticker)(unsafe.Pointer(f.UnsafeAddr()))
}

// ask has a frame drawn soon: the screen just changed. Call it on the
// program's goroutine, after the view is made: the program hands the
// view to the renderer right after View returns, before it waits again
// (on one processor the tick is drawn then), well within framesSoon (on
// more: a tick in those microseconds would draw the view before, and
// this one would come at the next tick: late, not lost).
func (f *Frames) ask() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	f.refresh()
	now := f.now()
	f.last = now
	if now.Before(f.asked.Add(f.soonAsked + f.Pace)) {
		// Asked for less than a frame ago: the ticker runs at Pace (or
		// that frame's tick is still to come) and its next tick draws
		// this view. A reset now could only put that tick off.
		f.quiet.Reset(f.Quiet)
		return
	}
	soon := f.soon()
	f.asked, f.soonAsked = now, soon
	f.setPeriod(soon)
	if f.settle == nil {
		f.settle = f.after(2*soon, func() { f.periodFrom(f.Pace, func() time.Time { return f.asked.Add(2 * f.soonAsked) }) })
		f.quiet = f.after(f.Quiet, func() { f.periodFrom(f.Idle, func() time.Time { return f.last.Add(f.Quiet) }) })
		return
	}
	f.settle.Reset(2 * soon)
	f.quiet.Reset(f.Quiet)
}

// periodFrom sets the ticker's period to d if the moment from (read
// under the lock) has come, and Frames did not stop: a timer that fired
// just as a newer ask reset it does nothing.
func (f *Frames) periodFrom(d time.Duration, from func() time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped && !f.now().Before(from()) {
		f.setPeriod(d)
	}
}

// stop ends the timers; the ticker stays as it is (the program is over).
func (f *Frames) stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	if f.settle != nil {
		f.settle.Stop()
		f.quiet.Stop()
	}
}
