package ui

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

var clockBase = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func TestNextAgoChange(t *testing.T) {
	s := clockBase
	for _, tt := range []struct {
		name     string
		now      time.Time
		want     time.Time
		wantText string // ago at want
	}{
		{"just changed", s, s.Add(time.Second), "1s"},
		{"mid-second", s.Add(1500 * time.Millisecond), s.Add(2 * time.Second), "2s"},
		{"on a second", s.Add(12 * time.Second), s.Add(13 * time.Second), "13s"},
		{"last second of the first minute", s.Add(59*time.Second + time.Millisecond), s.Add(time.Minute), "1m"},
		{"after a minute, once a minute", s.Add(61 * time.Second), s.Add(2 * time.Minute), "2m"},
		{"last minute of the hour", s.Add(59*time.Minute + 30*time.Second), s.Add(time.Hour), "1h"},
		{"hours", s.Add(5*time.Hour + time.Minute), s.Add(6 * time.Hour), "6h"},
		{"hours turn to days at 48h", s.Add(47*time.Hour + 59*time.Minute), s.Add(48 * time.Hour), "2d"},
		{"days", s.Add(50 * time.Hour), s.Add(72 * time.Hour), "3d"},
		{"since in the future reads 0s until a second after it", s.Add(-3 * time.Second), s.Add(time.Second), "1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := nextAgoChange(s, tt.now)
			if !got.Equal(tt.want) {
				t.Fatalf("nextAgoChange at +%v = +%v, want +%v", tt.now.Sub(s), got.Sub(s), tt.want.Sub(s))
			}
			if text := textfmt.Ago(got.Sub(s)); text != tt.wantText {
				t.Fatalf("ago at the change = %q, want %q", text, tt.wantText)
			}
		})
	}
}

// The next change is exact: ago reads the same up to a nanosecond before
// it and differently at it, for any distance, past or future.
func TestNextAgoChangeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		since := clockBase
		now := since.Add(randDistance(r))
		next := nextAgoChange(since, now)
		if !next.After(now) {
			t.Fatalf("now +%v: next +%v is not after now", now.Sub(since), next.Sub(since))
		}
		at := func(x time.Time) string { return textfmt.Ago(x.Sub(since)) }
		if at(next.Add(-time.Nanosecond)) != at(now) || at(next) == at(now) {
			t.Fatalf("now +%v (%q): next +%v reads %q, a nanosecond before %q", now.Sub(since), at(now),
				next.Sub(since), at(next), at(next.Add(-time.Nanosecond)))
		}
	}
}

func TestNextRelChange(t *testing.T) {
	ts := clockBase
	for _, tt := range []struct {
		name string
		now  time.Time
		want time.Time
		text string // relTime at want
	}{
		{"past: as ago", ts.Add(30 * time.Second), ts.Add(31 * time.Second), "31s ago"},
		{"past, minutes", ts.Add(20*time.Minute + 5*time.Second), ts.Add(21 * time.Minute), "21m ago"},
		{"future seconds count down", ts.Add(-5*time.Second - 300*time.Millisecond), ts.Add(-5*time.Second + time.Nanosecond), "in 4s"},
		{"in 0s becomes 0s ago at the time itself", ts.Add(-300 * time.Millisecond), ts, "0s ago"},
		{"future minutes", ts.Add(-10*time.Minute - 10*time.Second), ts.Add(-10*time.Minute + time.Nanosecond), "in 9m"},
		{"future: a minute left turns to seconds", ts.Add(-time.Minute), ts.Add(-time.Minute + time.Nanosecond), "in 59s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := nextRelChange(ts, tt.now)
			if !got.Equal(tt.want) {
				t.Fatalf("nextRelChange at %v = %v, want %v", tt.now.Sub(ts), got.Sub(ts), tt.want.Sub(ts))
			}
			if text := relTime(ts.Format(time.RFC3339Nano), got); text != tt.text {
				t.Fatalf("relTime at the change = %q, want %q", text, tt.text)
			}
		})
	}
}

func TestNextRelChangeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ts := clockBase
	stamp := ts.Format(time.RFC3339Nano)
	for i := 0; i < 20000; i++ {
		now := ts.Add(randDistance(r))
		next := nextRelChange(ts, now)
		if !next.After(now) {
			t.Fatalf("now %v: next %v is not after now", now.Sub(ts), next.Sub(ts))
		}
		at := func(x time.Time) string { return relTime(stamp, x) }
		if at(next.Add(-time.Nanosecond)) != at(now) || at(next) == at(now) {
			t.Fatalf("now %v (%q): next %v reads %q, a nanosecond before %q", now.Sub(ts), at(now),
				next.Sub(ts), at(next), at(next.Add(-time.Nanosecond)))
		}
	}
}

// randDistance is a distance from a timestamp of either sign, from under
// a second to weeks, often right on a unit's boundary.
func randDistance(r *rand.Rand) time.Duration {
	units := []time.Duration{time.Nanosecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour}
	d := time.Duration(r.Int64N(60)) * units[r.IntN(len(units))]
	if r.IntN(3) == 0 {
		d += time.Duration(r.Int64N(int64(time.Second)))
	}
	if r.IntN(2) == 0 {
		d = -d
	}
	return d
}

func TestPaceAt(t *testing.T) {
	c := clockBase
	// Changes every 10 s: median gap 10 s, slow past 20 s, stuck past 40 s.
	every10 := []time.Time{c.Add(-30 * time.Second), c.Add(-20 * time.Second), c.Add(-10 * time.Second), c}
	// Changes every second: the floors (10 s, 30 s) rule.
	every1 := []time.Time{c.Add(-3 * time.Second), c.Add(-2 * time.Second), c.Add(-time.Second), c}
	for _, tt := range []struct {
		name  string
		times []time.Time
		now   time.Time
		level paceLevel
		next  time.Time
	}{
		{"too few changes to judge", every10[2:], c.Add(time.Hour), paceNormal, time.Time{}},
		{"normal until twice the median", every10, c.Add(5 * time.Second), paceNormal, c.Add(20*time.Second + 1)},
		{"still normal at exactly twice", every10, c.Add(20 * time.Second), paceNormal, c.Add(20*time.Second + 1)},
		{"slow past twice", every10, c.Add(20*time.Second + 1), paceSlow, c.Add(40*time.Second + 1)},
		{"stuck past four times: nothing further", every10, c.Add(41 * time.Second), paceStuck, time.Time{}},
		{"fast loop: slow only past 10 s", every1, c.Add(3 * time.Second), paceNormal, c.Add(10*time.Second + 1)},
		{"fast loop: stuck only past 30 s", every1, c.Add(11 * time.Second), paceSlow, c.Add(30*time.Second + 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			level, next := paceAt(tt.times, tt.times[len(tt.times)-1], tt.now)
			if level != tt.level || !next.Equal(tt.next) {
				t.Fatalf("paceAt = %v, +%v; want %v, +%v", level, next.Sub(c), tt.level, tt.next.Sub(c))
			}
			if !next.IsZero() {
				if l, _ := paceAt(tt.times, tt.times[len(tt.times)-1], next); l == level {
					t.Fatalf("the level at next is still %v", l)
				}
				if l, _ := paceAt(tt.times, tt.times[len(tt.times)-1], next.Add(-1)); l != level {
					t.Fatalf("the level changed before next: %v", l)
				}
			}
		})
	}
}

func TestNextLocalMidnight(t *testing.T) {
	now := time.Date(2026, 3, 4, 23, 59, 59, 0, time.Local)
	if got, want := nextLocalMidnight(now), time.Date(2026, 3, 5, 0, 0, 0, 0, time.Local); !got.Equal(want) {
		t.Fatalf("nextLocalMidnight = %v, want %v", got, want)
	}
	if got := nextLocalMidnight(time.Date(2026, 3, 5, 0, 0, 0, 0, time.Local)); !got.Equal(time.Date(2026, 3, 6, 0, 0, 0, 0, time.Local)) {
		t.Fatalf("from midnight itself: %v", got)
	}
}

// clockedModel is rich.md loaded at *now, which the test moves.
func clockedModel(t *testing.T, now *time.Time, changed time.Time, w, h int) *Model {
	t.Helper()
	path := filepath.Join("..", "testdata", "rich.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT, Exists: true}, NoColor: true,
		Now: func() time.Time { return *now }, SyncLayout: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	ev := loadEvent(t, path)
	ev.At = changed
	m.Update(m.loops[0].envelope(stateMsg{ev: ev}))
	if isStale(m.cur.topDialog()) {
		press(m, "n") // rich.md has redirect_requested: true
		m.cur.status = statusLine{}
	}
	return m
}

// The frame notes when its time-dependent text next changes: that is when
// the clock wakes the program.
func TestFrameWakesWhenTextChanges(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 30, 30, 0, time.UTC)
	changed := now.Add(-12*time.Second - 400*time.Millisecond)
	m := clockedModel(t, &now, changed, 140, 40)
	m.render()
	if want := changed.Add(13 * time.Second); !m.frameNext.Equal(want) {
		t.Fatalf("header at 12s: wakes at %v, want %v", m.frameNext, want)
	}

	// An hour later the header changes once a minute.
	now = changed.Add(time.Hour + 90*time.Second)
	m.Update(clockMsg(now))
	if out := screen(m); !strings.Contains(out, "changed 1h ago") {
		t.Fatalf("header:\n%s", out)
	}
	if want := changed.Add(2 * time.Hour); !m.frameNext.Equal(want) {
		t.Fatalf("header at 1h: wakes at %v, want %v", m.frameNext, want)
	}

	// The footer's message goes when it expires.
	m.setStatus("hello", statusShort)
	m.Update(clockMsg(now))
	if out := screen(m); !strings.Contains(out, "hello") {
		t.Fatalf("status not shown:\n%s", out)
	}
	if want := now.Add(statusShort + 1); !m.frameNext.Equal(want) {
		t.Fatalf("with a message: wakes at %v, want %v", m.frameNext, want)
	}
	now = now.Add(statusShort + 1)
	m.Update(clockMsg(now))
	if out := screen(m); strings.Contains(out, "hello") {
		t.Fatalf("status still shown after it expired:\n%s", out)
	}

	// The help screen shows nothing time-dependent: no wake-up at all.
	press(m, "?")
	m.render()
	if !m.frameNext.IsZero() {
		t.Fatalf("help screen: wakes at %v, want never", m.frameNext)
	}
}

// Relative times in the body are right to the second too: the trail's
// "30s ago" becomes "31s ago" at the next wake-up (it used to wait for the
// minute to change).
func TestTrailRelativeTimesFollowTheClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 30, 30, 0, time.UTC) // the trail's second entry is 10:30:00
	m := clockedModel(t, &now, now.Add(-time.Hour), 160, 40)
	press(m, "3")
	if out := screen(m); !strings.Contains(out, "30s ago") {
		t.Fatalf("trail:\n%s", out)
	}
	if want := now.Add(time.Second); !m.frameNext.Equal(want) {
		t.Fatalf("wakes at %v, want %v", m.frameNext, want)
	}
	now = now.Add(time.Second)
	m.Update(clockMsg(now))
	if out := screen(m); !strings.Contains(out, "31s ago") {
		t.Fatalf("the trail's relative time did not move on:\n%s", out)
	}
}

// A wake-up that changes nothing on screen costs a comparison: the same
// frame string comes back, not a new one drawn.
func TestWakeUpThatChangesNothingDrawsNothing(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 30, 30, 0, time.UTC)
	m := clockedModel(t, &now, now.Add(-5*time.Minute), 160, 50)
	first := m.View().Content
	now = now.Add(10 * time.Second) // still "changed 5m ago"
	m.Update(clockMsg(now))
	second := m.View().Content
	if unsafe.StringData(first) != unsafe.StringData(second) {
		t.Fatal("a wake-up that changes nothing drew the frame again")
	}
	body := unsafe.SliceData(m.bodyCache)
	now = m.frameNext // the header's minute turns
	m.Update(clockMsg(now))
	third := m.View().Content
	if third == second || !strings.Contains(ansi.Strip(third), "changed 6m ago") {
		t.Fatalf("the header did not move on:\n%s", ansi.Strip(third))
	}
	if unsafe.SliceData(m.bodyCache) != body {
		t.Fatal("the header's minute turning drew the body again")
	}
	// A clock set back draws again rather than trust what it drew.
	now = now.Add(-10 * time.Minute)
	m.Update(clockMsg(now))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "changed 0s ago") {
		t.Fatalf("after the clock went back:\n%s", out)
	}
}

func TestClockArm(t *testing.T) {
	c := newClock()
	defer c.stop()
	now := time.Now()
	c.arm(time.Time{}, now)
	if c.timer != nil {
		t.Fatal("nothing to wake for armed a timer")
	}
	c.arm(now.Add(time.Hour), now)
	if want := now.Add(maxClockSleep); !c.due.Equal(want) {
		t.Fatalf("due %v, want at most maxClockSleep away (%v)", c.due, want)
	}
	c.arm(now.Add(30*time.Millisecond), now)
	if want := now.Add(30 * time.Millisecond); !c.due.Equal(want) {
		t.Fatalf("an earlier wake-up was not armed: due %v, want %v", c.due, want)
	}
	c.arm(now.Add(time.Second), now)
	if want := now.Add(30 * time.Millisecond); !c.due.Equal(want) {
		t.Fatalf("a later wake-up replaced an earlier one: due %v", c.due)
	}
	msg := make(chan tea.Msg, 1)
	go func() { msg <- c.listen()() }()
	select {
	case m := <-msg:
		if _, ok := m.(clockMsg); !ok {
			t.Fatalf("listen returned %T", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the clock never woke")
	}
	c.fired()
	if !c.due.IsZero() {
		t.Fatal("fired left the timer due")
	}
}

func TestClockStopEndsListen(t *testing.T) {
	c := newClock()
	msg := make(chan tea.Msg, 1)
	go func() { msg <- c.listen()() }()
	c.stop()
	c.stop() // twice is harmless
	select {
	case m := <-msg:
		if m != nil {
			t.Fatalf("listen returned %v after stop", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("listen did not end")
	}
}

// drawProbe records every frame the program draws.
type drawProbe struct {
	probe
	frames chan string
}

func (p drawProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.probe.Update(msg)
	return p, cmd
}

func (p drawProbe) View() tea.View {
	v := p.Model.View()
	select {
	case p.frames <- ansi.Strip(v.Content):
	default:
	}
	return v
}

// In a running program, with the real clock and no message from the test
// at all, the header's "changed 1s ago" and "2s ago" are drawn: the clock
// wakes the program on its own.
func TestFlowClockRedrawsTheHeader(t *testing.T) {
	dir := t.TempDir()
	path := projectState(t, dir, "seed-complete.md")
	m := New(Options{Target: statefile.Target{Path: path, Kind: statefile.KindAoT}, NoColor: true,
		Watch: statefile.WatchOptions{Debounce: 5 * time.Millisecond, Poll: 100 * time.Millisecond}})
	frames := make(chan string, 1024)
	tm := teatest.NewTestModel(t, drawProbe{probe{m}, frames}, teatest.WithInitialTermSize(160, 30))
	t.Cleanup(func() {
		_ = tm.Quit()
		m.Close()
	})
	seen := map[string]bool{}
	deadline := time.After(20 * time.Second)
	for !seen["changed 1s ago"] || !seen["changed 2s ago"] {
		select {
		case f := <-frames:
			for _, w := range []string{"changed 1s ago", "changed 2s ago"} {
				if strings.Contains(f, w) {
					seen[w] = true
				}
			}
		case <-deadline:
			t.Fatalf("the clock did not redraw the header: seen %v", seen)
		}
	}
}
