package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/ui/fleettable"
)

// Fifty loops that all changed in the last minute, each at its own
// sub-second moment (issue 26: the clock woke once per row per second,
// and every wake drew the whole frame). The "changed" column ticks on one
// shared clock: the program is woken on the fleettable.ClockStep grid
// only (5 s), at most once a step, and every wake-up changes the text on
// screen (one that would not is not asked for) — in the minute after the
// rows changed and in the next, when each row's minutes roll over at its
// own second.
func TestFleetClockOneSharedTick(t *testing.T) {
	now := fixedNow.Add(437 * time.Millisecond)
	rows := benchFleetRows(50)
	for i := range rows {
		// spread over the last 50 s, none on a whole second
		rows[i].Changed = now.Add(-time.Duration(i)*time.Second - time.Duration(i*19+3)*time.Millisecond)
	}
	m := fleetModel(t, 200, 60, nil)
	m.opts.Now = func() time.Time { return now }
	m.Update(fleettable.Rows{Rows: rows})
	t.Cleanup(m.Close)
	m.View()
	prev := screen(m)
	var wakes []time.Time
	for end := now.Add(3 * time.Minute); ; {
		next := m.frameNext // what View armed the clock for
		if next.IsZero() || next.After(end) {
			break
		}
		if !next.Equal(next.Truncate(fleettable.ClockStep)) {
			t.Fatalf("wake-up %d at %s: not on the shared clock's step", len(wakes)+1, next.Format("15:04:05.000"))
		}
		if n := len(wakes); n > 0 && next.Sub(wakes[n-1]) < fleettable.ClockStep {
			t.Fatalf("two wake-ups %v apart (%s, %s)", next.Sub(wakes[n-1]), wakes[n-1].Format("15:04:05.000"), next.Format("15:04:05.000"))
		}
		wakes = append(wakes, next)
		now = next
		m.Update(clockMsg(now))
		m.View()
		cur := screen(m)
		if cur == prev {
			t.Fatalf("the wake-up at %s changed nothing on screen", now.Format("15:04:05.000"))
		}
		prev = cur
	}
	// In the first minute (every row counts seconds until it is a minute
	// old) one a step; in the next, each row changes once ("1m" to "2m"),
	// the fifty rows at fifty different seconds, drawn on the steps.
	count := func(from, to time.Duration) int {
		n := 0
		for _, w := range wakes {
			if !w.Before(fixedNow.Add(from)) && w.Before(fixedNow.Add(to)) {
				n++
			}
		}
		return n
	}
	perMinute := int(time.Minute / fleettable.ClockStep)
	if n := count(0, time.Minute); n > perMinute || n < perMinute-2 {
		t.Fatalf("%d wake-ups in the first minute: %s", n, fmtTimes(wakes))
	}
	if n := count(time.Minute, 2*time.Minute); n > perMinute {
		t.Fatalf("%d wake-ups in the minute after: %s", n, fmtTimes(wakes))
	}
}

func fmtTimes(ts []time.Time) string {
	s := ""
	for _, t := range ts {
		s += fmt.Sprintf(" %s", t.Format("04:05.000"))
	}
	return s
}
