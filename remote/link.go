package remote

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// State is how a link to a host stands.
type State int

// Link states.
const (
	// Connecting: the command is starting (first time or after a loss).
	Connecting State = iota
	// Live: lines arrive.
	Live
	// Stale: no line for longer than the stream promises (a heartbeat
	// missed); the rows shown are as of Since.
	Stale
	// Lost: the command ended or failed (Reason); it is tried again at
	// Retry.
	Lost
	// Mismatch: the far side speaks another version of the stream
	// (Reason says which); tried again, slowly, in case it is upgraded.
	Mismatch
)

var stateNames = [...]string{"connecting", "live", "stale", "lost", "version mismatch"}

func (s State) String() string { return stateNames[s] }

// Status is a link's state, since when, why, and when it is tried again.
type Status struct {
	State  State
	Since  time.Time
	Reason string
	Retry  time.Time
}

// ErrMismatch is what a link's OnLine returns (wrapped, with the
// versions) for a stream it cannot read: the link then stands in
// Mismatch.
var ErrMismatch = errors.New("version mismatch")

// LinkOptions say what a link runs and whom it tells.
type LinkOptions struct {
	// Argv is the command (Host.Command).
	Argv []string
	Run  RunOptions
	// OnLine gets each line (valid during the call only); OnConnect is
	// called before each start of the command (a new stream begins: the
	// receiver forgets what the last one said). OnStatus gets every
	// change of state. All three are called from the link's goroutine or
	// its stale timer, never at once, and must not block.
	OnLine    func([]byte) error
	OnConnect func()
	OnStatus  func(Status)
	// StaleAfter: no line for this long while live makes the link stale
	// (0: never; the far side's heartbeat times three).
	StaleAfter time.Duration
	// MinBackoff and MaxBackoff bound the wait before a new try (1 s and
	// 60 s by default); it doubles with each failure in a row, with
	// jitter, and starts again from MinBackoff after a stream that was
	// live.
	MinBackoff, MaxBackoff time.Duration
	// Now is the clock (tests).
	Now func() time.Time
}

// Link keeps one stream to a host running: it starts the command, tells
// its state, and starts it again after a loss, backing off. A host that
// is down never blocks another: each link has its own goroutine.
type Link struct {
	o      LinkOptions
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	status Status
	stale  *time.Timer
}

// StartLink starts a link.
func StartLink(o LinkOptions) *Link {
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(60*time.Second, o.MinBackoff)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{o: o, cancel: cancel, done: make(chan struct{})}
	go l.run(ctx)
	return l
}

// Stop ends the link: the command's stdin is closed (it is killed if it
// does not end) and Stop waits for it.
func (l *Link) Stop() {
	l.cancel()
	<-l.done
	l.mu.Lock()
	if l.stale != nil {
		l.stale.Stop()
	}
	l.mu.Unlock()
}

// Status is the link's state now.
func (l *Link) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status
}

func (l *Link) set(s Status) {
	// l.mu held.
	if s.State == l.status.State && s.Reason == l.status.Reason && s.Retry.Equal(l.status.Retry) {
		return
	}
	l.status = s
	if l.o.OnStatus != nil {
		l.o.OnStatus(s)
	}
}

func (l *Link) run(ctx context.Context) {
	defer close(l.done)
	backoff := l.o.MinBackoff
	for ctx.Err() == nil {
		l.mu.Lock()
		l.set(Status{State: Connecting, Since: l.o.Now()})
		if l.o.OnConnect != nil {
			l.o.OnConnect()
		}
		l.mu.Unlock()
		wasLive := false
		err := Run(ctx, l.o.Argv, l.o.Run, func(line []byte) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			now := l.o.Now()
			if l.status.State != Live {
				l.set(Status{State: Live, Since: now})
			}
			wasLive = true
			l.armStale(now)
			if l.o.OnLine == nil {
				return nil
			}
			return l.o.OnLine(line)
		})
		l.mu.Lock()
		if l.stale != nil {
			l.stale.Stop()
		}
		l.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if wasLive {
			backoff = l.o.MinBackoff
		}
		wait := jitter(backoff)
		state, reason := Lost, "the stream ended"
		switch {
		case errors.Is(err, ErrMismatch):
			state, reason, wait = Mismatch, err.Error(), l.o.MaxBackoff
		case err != nil:
			reason = err.Error()
		}
		now := l.o.Now()
		l.mu.Lock()
		l.set(Status{State: state, Since: now, Reason: reason, Retry: now.Add(wait)})
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(backoff*2, l.o.MaxBackoff)
	}
}

// armStale (l.mu held) makes the link stale when no line comes within
// StaleAfter of now.
func (l *Link) armStale(now time.Time) {
	if l.o.StaleAfter <= 0 {
		return
	}
	if l.stale != nil {
		l.stale.Stop()
	}
	l.stale = time.AfterFunc(l.o.StaleAfter, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.status.State == Live {
			l.set(Status{State: Stale, Since: now, Reason: "no word from the host since then"})
		}
	})
}

// jitter is d give or take a fifth, so that many hosts lost at once are
// not all tried again at the same moment.
func jitter(d time.Duration) time.Duration {
	f := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * f)
}
