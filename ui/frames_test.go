package ui

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// fakeFrameClock drives Frames by hand: the time, the ticker's periods
// and the timers Frames sets.
type fakeFrameClock struct {
	now     time.Time
	periods []time.Duration
	timers  []*fakeFrameTimer
	// procs is the GOMAXPROCS the Frames sees (0: two).
	procs int
}

type fakeFrameTimer struct {
	c   *fakeFrameClock
	at  time.Time
	fn  func()
	off bool
}

func (t *fakeFrameTimer) Stop() bool { was := !t.off; t.off = true; return was }
func (t *fakeFrameTimer) Reset(d time.Duration) bool {
	was := !t.off
	t.at, t.off = t.c.now.Add(d), false
	return was
}

func (c *fakeFrameClock) frames() *Frames {
	f := newFrames(func(d time.Duration) { c.periods = append(c.periods, d) },
		func() time.Time { return c.now },
		func(d time.Duration, fn func()) frameTimer {
			t := &fakeFrameTimer{c: c, at: c.now.Add(d), fn: fn}
			c.timers = append(c.timers, t)
			return t
		})
	f.procs = func() int {
		if c.procs == 0 {
			return 2
		}
		return c.procs
	}
	return f
}

// advance moves the time on by d, running the timers due on the way.
func (c *fakeFrameClock) advance(d time.Duration) {
	end := c.now.Add(d)
	for {
		var next *fakeFrameTimer
		for _, t := range c.timers {
			if !t.off && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			return
		}
		c.now, next.off = next.at, true
		next.fn()
	}
}

func (c *fakeFrameClock) take() []time.Duration {
	p := c.periods
	c.periods = nil
	return p
}

func TestFramesAskForATickSoonAndSlowDownWhenQuiet(t *testing.T) {
	c := &fakeFrameClock{now: time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)}
	f := c.frames()
	ms := time.Millisecond

	f.ask()
	if got := c.take(); fmt.Sprint(got) != "[1ms]" {
		t.Fatalf("a change: the ticker's periods %v, want the next tick in 1ms", got)
	}
	c.advance(2 * ms)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace}) {
		t.Fatalf("after the asked-for tick the ticker runs at %v, want Pace", got)
	}
	// Another change within a frame: the ticker's next tick draws it;
	// resetting it could only put that tick off.
	c.advance(5 * ms)
	f.ask()
	if got := c.take(); len(got) != 0 {
		t.Fatalf("a change %v after the last ask reset the ticker: %v", 7*ms, got)
	}
	// A frame later, a change is drawn at once again.
	c.advance(f.Pace)
	f.ask()
	if got := c.take(); fmt.Sprint(got) != "[1ms]" {
		t.Fatalf("a change a frame later: periods %v, want 1ms", got)
	}
	c.advance(f.Quiet - ms)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace}) {
		t.Fatalf("before Quiet: periods %v, want only Pace", got)
	}
	c.advance(5 * ms)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Idle}) {
		t.Fatalf("Quiet after the last change: periods %v, want Idle", got)
	}
	// The ask that came within a frame put Quiet off as well.
	f.ask()
	c.advance(f.Quiet - 2*ms)
	f.ask() // within the pace of nothing: the last ask was long ago
	c.take()
	c.advance(f.Quiet - ms)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace}) {
		t.Fatalf("a second ask put Quiet off: periods %v, want only Pace", got)
	}

	f.stop()
	f.ask()
	c.advance(time.Hour)
	if got := c.take(); len(got) != 0 {
		t.Fatalf("after stop the ticker was reset: %v", got)
	}
	var none *Frames
	none.ask() // no ticker found: nothing happens
	none.stop()
}

// On one processor, as the TUI runs, an asked-for tick is due at once:
// the program's goroutine hands the view over before it waits, and the
// tick is sent then. The ticker is back at Pace right after (a period of a
// microsecond would spin); the rate stays one asked-for frame a Pace, and
// on more processors the tick is asked for a millisecond on.
func TestFramesOnOneProcessorTickAtOnce(t *testing.T) {
	c := &fakeFrameClock{now: time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC), procs: 1}
	f := c.frames()
	f.ask()
	if got := c.take(); fmt.Sprint(got) != "[1µs]" {
		t.Fatalf("a change on one processor: periods %v, want the tick at once", got)
	}
	c.advance(2 * time.Microsecond)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace}) {
		t.Fatalf("right after the asked-for tick: periods %v, want Pace", got)
	}
	c.advance(time.Millisecond)
	f.ask() // within a Pace of the last ask: the Pace tick draws it
	if got := c.take(); len(got) != 0 {
		t.Fatalf("a change within a Pace reset the ticker: %v", got)
	}
	c.advance(f.Pace)
	c.procs = 2 // a layout runs beside the event loop on a processor of its own
	f.ask()
	c.advance(time.Millisecond / 2)
	if got := c.take(); fmt.Sprint(got) != "[1ms]" {
		t.Fatalf("a change on two processors: periods %v, want the tick in 1ms and nothing else yet", got)
	}
	c.advance(2 * time.Millisecond)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace}) {
		t.Fatalf("2ms after the ask on two processors: periods %v, want Pace", got)
	}
}

// setNow sets the ticker's period at once (the tests' own knob).
func (f *Frames) setNow(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refresh()
	f.setPeriod(d)
}

// A timer whose callback was already running when a newer ask reset it
// (time.AfterFunc's Reset cannot stop it then) does nothing: it would
// put off the frame just asked for.
func TestFramesStaleTimerDoesNothing(t *testing.T) {
	c := &fakeFrameClock{now: time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)}
	f := c.frames()
	f.ask()
	settle, quiet := c.timers[0].fn, c.timers[1].fn
	c.advance(f.Quiet) // settle and quiet ran: Pace, then Idle
	c.take()
	c.advance(f.Pace)
	f.ask() // a new frame: the next tick in 1ms
	if got := c.take(); fmt.Sprint(got) != "[1ms]" {
		t.Fatalf("periods %v, want 1ms", got)
	}
	// The callbacks of the timers' last round, late: their moments are
	// not those of this ask.
	quiet()
	settle()
	if got := c.take(); len(got) != 0 {
		t.Fatalf("stale timers reset the ticker: %v", got)
	}
	c.advance(f.Quiet)
	if got := c.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{f.Pace, f.Idle}) {
		t.Fatalf("this ask's own timers: periods %v, want Pace then Idle", got)
	}
}

func TestFramesFindBubbleTeasTicker(t *testing.T) {
	// If this fails after a Bubble Tea upgrade, its renderer's ticker
	// moved: frames fall back to its fixed rate (FramesFor returns nil),
	// which is correct but slower and wakes 60 times a second.
	if FramesFor(tea.NewProgram(nil)) == nil {
		t.Fatal("FramesFor found no ticker in a tea.Program")
	}
	type other struct{ ticker time.Duration }
	for _, v := range []any{nil, 3, &other{ticker: time.Second}, &struct{}{}, other{}} {
		if tickerSlot(v) != nil {
			t.Errorf("tickerSlot(%T) found a ticker", v)
		}
	}
}

// frameLog records what a program writes.
type frameLog struct {
	mu     sync.Mutex
	writes []string
}

func (w *frameLog) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(b))
	return len(b), nil
}

// since is what was written after the first n writes, and how many
// writes there are.
func (w *frameLog) since(n int) (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.writes[min(n, len(w.writes)):], ""), len(w.writes)
}

// countModel shows a count, which countUp raises. Its first Update slows
// Bubble Tea's ticker to an hour, so that every frame it draws comes
// from an ask.
type countModel struct {
	n, drawn int
	frames   *Frames
}

type countUp struct{}

func (c *countModel) Init() tea.Cmd {
	return func() tea.Msg { return countUp{} }
}

func (c *countModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(countUp); ok {
		if c.n == 0 {
			c.frames.setNow(time.Hour) // on the program's goroutine, as ask
		}
		c.n++
	}
	return c, nil
}

// View asks for a frame when the text changed, last, as Model.View does.
func (c *countModel) View() tea.View {
	v := tea.NewView(fmt.Sprintf("count %d", c.n))
	if c.n != c.drawn {
		c.drawn = c.n
		c.frames.ask()
	}
	return v
}

// A real program whose renderer ticks once an hour draws each change:
// the frames come from the asks, not from Bubble Tea's rate. It
// runs on one processor, as the TUI does (oneProc), so the view reaches
// the renderer before the asked-for tick can be received.
func TestFramesDrawAChangeOnARealProgram(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	out := &frameLog{}
	m := &countModel{}
	p := tea.NewProgram(m, tea.WithOutput(out), tea.WithInput(nil), tea.WithWindowSize(40, 5))
	m.frames = FramesFor(p)
	// Between changes the ticker waits an hour (Idle, from 5 ms after
	// each ask); the changes come more than a Pace apart.
	m.frames.Idle, m.frames.Quiet = time.Hour, 5*time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	defer func() {
		p.Quit()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	n := 0
	for i := 1; i <= 4; i++ {
		if i > 1 {
			time.Sleep(2 * m.frames.Pace)
			p.Send(countUp{})
		}
		// The renderer writes only the cells that changed: the digit.
		want := fmt.Sprint(i)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			got, k := out.since(n)
			if strings.Contains(got, want) {
				n = k
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("count %d was never drawn (the renderer next ticks in an hour); written since the last count: %q", i, got)
			}
		}
	}
}

// The loop screen asks for a frame when a message other than the clock's
// came in, or when the clock changed text on screen; a wake-up that
// changes nothing asks for none (it would cost the idle TUI a wake-up).
func TestViewAsksForAFrameWhenTheScreenChanges(t *testing.T) {
	now := time.Date(2026, 1, 1, 10, 30, 30, 0, time.UTC)
	m := clockedModel(t, &now, now.Add(-5*time.Minute), 160, 50)
	c := &fakeFrameClock{now: now}
	m.UseFrames(c.frames())
	asks := func() int {
		n := 0
		for _, d := range c.take() {
			if d == framesSoon {
				n++
			}
		}
		c.advance(time.Second) // past Pace: the next change asks again
		return n
	}
	m.View()
	asks()

	now = now.Add(10 * time.Second) // still "changed 5m ago"
	m.Update(clockMsg(now))
	m.View()
	if n := asks(); n != 0 {
		t.Fatalf("a wake-up that changed nothing asked for %d frames", n)
	}
	now = m.frameNext // the header's minute turns
	m.Update(clockMsg(now))
	m.View()
	if n := asks(); n != 1 {
		t.Fatalf("the header's minute turning asked for %d frames, want 1", n)
	}
	m.Update(pressOf("2"))
	m.View()
	if n := asks(); n != 1 {
		t.Fatalf("a key asked for %d frames, want 1", n)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.View()
	if n := asks(); n != 1 {
		t.Fatalf("a resize asked for %d frames, want 1", n)
	}
}
