package notify

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultQueue is how many events may wait for each command or webhook
// before new ones are dropped (with a note).
const DefaultQueue = 32

// maxNotes bounds the notes not yet taken; beyond it they are counted.
const maxNotes = 64

// Options tune a Notifier.
type Options struct {
	// Version is the aot-tui version events carry.
	Version string
	// Queue is how many events may wait for each sink (DefaultQueue when
	// zero).
	Queue int
	// Now is the clock that stamps events without a time (time.Now).
	Now func() time.Time
}

// sink is where events go: a command or a webhook.
type sink interface {
	// name says which one, for notes ("command notify-send").
	name() string
	// deliver sends ev, within the sink's timeout, and says what came
	// back ("exit status 0", "HTTP 200 OK").
	deliver(ctx context.Context, ev Event) (string, error)
}

// worker is one sink with its queue and its goroutine.
type worker struct {
	s     sink
	queue chan Event
	// dropped counts the events dropped since the queue was last empty
	// (guarded by Notifier.mu).
	dropped int
}

// Notifier sends events to the sinks a Config names, each on a goroutine
// of its own: Send never blocks. What goes wrong becomes a note (Notes,
// TakeNotes). A nil *Notifier sends nothing.
type Notifier struct {
	cfg  Config
	opts Options

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	workers []*worker
	closed  bool
	notes   []string
	// lost counts the notes dropped because too many were waiting.
	lost int
	kick chan struct{}
}

// New starts a Notifier for cfg; nil when cfg sends nowhere.
func New(cfg Config, opts Options) *Notifier {
	if cfg.Empty() {
		return nil
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	n := &Notifier{cfg: cfg, opts: opts, kick: make(chan struct{}, 1)}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	for _, s := range cfg.sinks() {
		w := &worker{s: s, queue: make(chan Event, opts.Queue)}
		n.workers = append(n.workers, w)
		n.wg.Add(1)
		go n.run(w)
	}
	return n
}

// sinks are the sinks c names.
func (c Config) sinks() []sink {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var s []sink
	if len(c.Command) > 0 {
		s = append(s, &commandSink{argv: c.Command, timeout: timeout, killTree: treeKillSupported})
	}
	if c.Webhook != nil {
		s = append(s, newWebhookSink(c.Webhook, timeout))
	}
	return s
}

// Config is what n sends to (the zero Config for nil).
func (n *Notifier) Config() Config {
	if n == nil {
		return Config{}
	}
	return n.cfg
}

// Send queues ev for every sink, stamped with the time and version when it
// has none and sanitised (Event.Clean); a sink whose queue is full drops it
// with a note. It never blocks, and does nothing after Close, for a kind
// the config does not want, or on a nil Notifier.
func (n *Notifier) Send(ev Event) {
	if n == nil || !n.cfg.Wants(ev.Kind) {
		return
	}
	ev = n.stamp(ev)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	for _, w := range n.workers {
		select {
		case w.queue <- ev:
		default:
			if w.dropped == 0 {
				n.noteLocked(fmt.Sprintf("notify: %s is behind (%d events waiting): dropped %s for %s", w.s.name(), cap(w.queue), ev.Kind, ev.Loop))
			}
			w.dropped++
		}
	}
}

// stamp fills ev's time and version and cleans it.
func (n *Notifier) stamp(ev Event) Event {
	if ev.Time.IsZero() {
		ev.Time = n.opts.Now()
	}
	if ev.Version == "" {
		ev.Version = n.opts.Version
	}
	return ev.Clean()
}

// run delivers w's events one after the other until its queue is closed.
func (n *Notifier) run(w *worker) {
	defer n.wg.Done()
	for ev := range w.queue {
		if n.ctx.Err() != nil {
			continue // closing, past its wait: what is left is dropped
		}
		if _, err := w.s.deliver(n.ctx, ev); err != nil {
			n.note(fmt.Sprintf("notify: %s failed for %s (%s): %v", w.s.name(), orUnnamed(ev.Loop), ev.Kind, err))
		}
		n.mu.Lock()
		if len(w.queue) == 0 && w.dropped > 0 {
			if w.dropped > 1 {
				n.noteLocked(fmt.Sprintf("notify: %s dropped %d more events while it was behind", w.s.name(), w.dropped-1))
			}
			w.dropped = 0
		}
		n.mu.Unlock()
	}
}

func orUnnamed(s string) string {
	if s == "" {
		return "a loop"
	}
	return s
}

// note records a note and wakes the reader of Notes.
func (n *Notifier) note(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.noteLocked(s)
}

func (n *Notifier) noteLocked(s string) {
	if len(n.notes) >= maxNotes {
		n.lost++
	} else {
		n.notes = append(n.notes, clean(s, 400))
	}
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// Notes receives a value when there are notes to take (nil for a nil
// Notifier: it never does).
func (n *Notifier) Notes() <-chan struct{} {
	if n == nil {
		return nil
	}
	return n.kick
}

// TakeNotes returns the notes since the last call, one sanitised line each.
func (n *Notifier) TakeNotes() []string {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	notes := n.notes
	if n.lost > 0 {
		notes = append(notes, fmt.Sprintf("notify: %d more notes were dropped", n.lost))
	}
	n.notes, n.lost = nil, 0
	return notes
}

// Close stops taking events and waits up to wait for the queued ones to
// be delivered; then it cancels what still runs (a command is killed, a
// request abandoned) and drops the rest. It is safe to call twice.
func (n *Notifier) Close(wait time.Duration) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if !n.closed {
		n.closed = true
		for _, w := range n.workers {
			close(w.queue)
		}
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() {
		n.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
		n.cancel()
		<-done
	}
	n.cancel()
}

// Result is what one sink made of a test event.
type Result struct {
	// Sink names it ("command notify-send", "webhook https://ntfy.sh (ntfy)").
	Sink string
	// What came back ("exit status 0", "HTTP 200 OK"), or Err.
	What string
	Err  error
	Took time.Duration
}

// Try sends ev to every sink cfg names, one after the other, each within
// the timeout, and says what each made of it: `aot-tui notify test`.
func Try(cfg Config, ev Event, opts Options) []Result {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	n := &Notifier{opts: opts}
	ev = n.stamp(ev)
	var out []Result
	for _, s := range cfg.sinks() {
		start := time.Now()
		what, err := s.deliver(context.Background(), ev)
		out = append(out, Result{Sink: s.name(), What: clean(what, 200), Err: err, Took: time.Since(start)})
	}
	return out
}
