package ui

import (
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/aot-loop/aot-tui/internal/textfmt"
)

// The clock. Relative times on screen ("changed 12s ago", a trail entry's
// "3m ago", the fleet's "changed" column), the header's pace colour and the
// footer's transient message depend on the time alone, so nothing else
// would redraw them. Rather than waking every second, the program wakes
// when the next of them will read differently: while a frame is drawn,
// every such text notes the first instant after m.now at which it changes
// (noteClock), and View arms a timer for the earliest (clock.arm). In the
// first minute after a change that is once a second, then once a minute,
// and never while nothing on screen depends on the time.

// maxClockSleep bounds a wait of the clock: an hour-old "changed 1h ago"
// would next change in up to an hour, but a wall clock that jumps (a
// suspend, NTP) would then be noticed that late. A wake-up a minute is
// nothing beside Bubble Tea's 60 frames a second.
const maxClockSleep = time.Minute

// clockMsg is the clock's wake-up: text on screen may read differently.
type clockMsg time.Time

// clock is the one timer that wakes the program for time-dependent text.
type clock struct {
	// ch carries the timer's wake-ups to listen; done ends listen.
	ch    chan time.Time
	done  chan struct{}
	timer *time.Timer
	// due is when the armed timer fires (zero: none armed, or it fired).
	due time.Time
	// listening: a listen command is waiting on ch.
	listening bool
}

func newClock() *clock {
	return &clock{ch: make(chan time.Time, 1), done: make(chan struct{})}
}

// arm makes sure the program wakes at next (zero: nothing to wake for),
// or within maxClockSleep of now when next is further. A timer already due
// by then is kept: waking early costs a tick that finds nothing to redraw.
func (c *clock) arm(next, now time.Time) {
	if next.IsZero() {
		return
	}
	d := min(max(next.Sub(now), 0), maxClockSleep)
	at := now.Add(d)
	if !c.due.IsZero() && !c.due.After(at) {
		return
	}
	c.due = at
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.fire)
		return
	}
	c.timer.Reset(d)
}

func (c *clock) fire() {
	select {
	case c.ch <- time.Now():
	default: // a wake-up is already waiting
	}
}

// fired is called with each clockMsg: the armed timer is spent.
func (c *clock) fired() { c.due = time.Time{} }

// listen waits for the clock's next wake-up.
func (c *clock) listen() tea.Cmd {
	ch, done := c.ch, c.done
	return func() tea.Msg {
		select {
		case t := <-ch:
			return clockMsg(t)
		case <-done:
			return nil
		}
	}
}

// stop stops the timer and ends listen.
func (c *clock) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
	select {
	case <-c.done:
	default:
		close(c.done)
	}
}

// noteClock records that the frame being drawn shows text that reads
// differently from t on; instants not after m.now are ignored (a clock
// that cannot move past them must not wake the program in a loop).
func (m *Model) noteClock(t time.Time) {
	if t.After(m.now) && (m.clockNext.IsZero() || t.Before(m.clockNext)) {
		m.clockNext = t
	}
}

// relTimeNoted is relTime(ts, m.now), noting when it next changes.
func (m *Model) relTimeNoted(ts string) string {
	if t, ok := parseTime(ts); ok {
		m.noteClock(nextRelChange(t, m.now))
	}
	return relTime(ts, m.now)
}

// agoUnit is the unit ago rounds a non-negative duration down to.
func agoUnit(d time.Duration) time.Duration { return textfmt.AgoUnit(d) }

// nextAgoChange is the first instant after now at which textfmt.Ago(t -
// since) reads differently than at now (textfmt.NextAgoChange).
func nextAgoChange(since, now time.Time) time.Time { return textfmt.NextAgoChange(since, now) }

// nextRelChange is the first instant after now at which relTime(t) reads
// differently than at now: as nextAgoChange for a t in the past; for one
// in the future ("in 3m") the first instant the time left drops under the
// whole units shown, and t itself, where "in 0s" becomes "0s ago".
func nextRelChange(t, now time.Time) time.Time {
	e := t.Sub(now)
	if e <= 0 {
		return nextAgoChange(t, now)
	}
	u := agoUnit(e)
	k := e / u
	if k == 0 {
		return t
	}
	return t.Add(-k*u + time.Nanosecond)
}

// paceAt grades the quiet time since changed against the median gap of
// changeTimes (see Model.pace), and says when the grade next changes
// (zero: not while nothing else does). Slow is a quiet time over twice
// the median and over 10 s, stuck over four times and over 30 s.
func paceAt(changeTimes []time.Time, changed, now time.Time) (paceLevel, time.Time) {
	if len(changeTimes) < 3 {
		return paceNormal, time.Time{}
	}
	gaps := make([]time.Duration, 0, len(changeTimes)-1)
	for i := 1; i < len(changeTimes); i++ {
		gaps = append(gaps, changeTimes[i].Sub(changeTimes[i-1]))
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	median := gaps[len(gaps)/2]
	slow := changed.Add(max(2*median, 10*time.Second))
	stuck := changed.Add(max(4*median, 30*time.Second))
	switch quiet := now.Sub(changed); {
	case quiet > 4*median && quiet > 30*time.Second:
		return paceStuck, time.Time{}
	case quiet > 2*median && quiet > 10*time.Second:
		return paceSlow, stuck.Add(time.Nanosecond)
	}
	return paceNormal, slow.Add(time.Nanosecond)
}

// nextLocalMidnight is the start of the local day after now's: dates shown
// only when they are not today's (versionTime) change then.
func nextLocalMidnight(now time.Time) time.Time {
	y, mo, d := now.Local().Date()
	return time.Date(y, mo, d+1, 0, 0, 0, 0, time.Local)
}
