package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aot-loop/aot-tui/remote"
)

// UnmarshalText reads the name String gives (a remote fleet's rows); a
// name this release does not know reads as invalid, so a loop that needs
// a person is never shown as one that does not.
func (a *Attention) UnmarshalText(b []byte) error {
	for k, v := range attentionNames {
		if v == string(b) {
			*a = k
			return nil
		}
	}
	*a = AttentionInvalid
	return nil
}

// Key tells loops apart across hosts: the path, with the host for a
// remote loop (two machines may have a loop at the same path).
func (r Row) Key() string {
	if r.Host == "" {
		return r.Path
	}
	return r.Host + "\x00" + r.Path
}

// HostOptions say how to follow a remote host's fleet.
type HostOptions struct {
	// Heartbeat is what the far side is asked for (default 15 s); the
	// link is stale after three of them without a line.
	Heartbeat time.Duration
	// MaxLine bounds a line (the snapshot of a large fleet included;
	// default 64 MiB).
	MaxLine int
	// Link tunes the link (back-off); its Argv and callbacks are
	// FollowHost's.
	Link remote.LinkOptions
}

// HostFleet is a remote host's fleet as its stream says it: its rows
// (each with Host set) and how the link stands. Safe for concurrent use.
type HostFleet struct {
	Host *remote.Host

	mu     sync.Mutex
	rows   map[string]Row
	status remote.Status
	synced bool // a snapshot arrived on the current link
	link   *remote.Link
}

// FollowHost follows h's fleet — `aot-tui status --scan DIR... --json
// --follow` through its transport — and calls changed (from the link's
// goroutine, never at once, never blocking it long) whenever its rows or
// its link's state change. Stop it with Stop.
func FollowHost(h *remote.Host, o HostOptions, changed func(*HostFleet)) *HostFleet {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 64 << 20
	}
	hf := &HostFleet{Host: h, rows: map[string]Row{}}
	args := []string{"status", "--scan", "--json", "--follow", "--heartbeat", o.Heartbeat.String()}
	if h.Depth > 0 {
		args = append(args, "--depth", strconv.Itoa(h.Depth))
	}
	args = append(append(args, "--"), h.Dirs...)
	lo := o.Link
	lo.Argv = h.Command(args...)
	lo.Run.MaxLine = o.MaxLine
	if lo.StaleAfter == 0 {
		lo.StaleAfter = 3*o.Heartbeat + 5*time.Second
	}
	lo.OnConnect = func() {
		hf.mu.Lock()
		hf.synced = false
		hf.mu.Unlock()
	}
	lo.OnLine = func(b []byte) error {
		ok, err := hf.line(b)
		if ok {
			changed(hf)
		}
		return err
	}
	lo.OnStatus = func(s remote.Status) {
		hf.mu.Lock()
		hf.status = s
		hf.mu.Unlock()
		changed(hf)
	}
	hf.link = remote.StartLink(lo)
	return hf
}

// Stop ends the following.
func (hf *HostFleet) Stop() { hf.link.Stop() }

// Status is how the link stands.
func (hf *HostFleet) Status() remote.Status {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	return hf.status
}

// Rows are the host's rows, by path; the values of the last link stay
// while the link is down (the status says since when).
func (hf *HostFleet) Rows() []Row {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	out := make([]Row, 0, len(hf.rows))
	for _, r := range hf.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Row) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// streamLine is a line of `status --scan --json --follow`
// (docs/stream.md).
type streamLine struct {
	V     int    `json:"v"`
	Kind  string `json:"kind"`
	Loops []Row  `json:"loops"`
	Row   *Row   `json:"row"`
	Path  string `json:"path"`
	Error string `json:"error"`
}

// line takes one line of the stream; ok says whether the rows changed.
func (hf *HostFleet) line(b []byte) (ok bool, err error) {
	var l streamLine
	if err := hf.Host.StreamError(l.V, json.Unmarshal(b, &l)); err != nil {
		return false, err
	}
	hf.mu.Lock()
	defer hf.mu.Unlock()
	switch l.Kind {
	case "snapshot":
		clear(hf.rows)
		for _, r := range l.Loops {
			hf.put(r)
		}
		hf.synced = true
		return true, nil
	case "row":
		if l.Row == nil {
			return false, nil
		}
		hf.put(*l.Row)
		return true, nil
	case "removed":
		if _, had := hf.rows[l.Path]; had {
			delete(hf.rows, l.Path)
			return true, nil
		}
	case "error":
		return false, fmt.Errorf("%s: %s", hf.Host.Name, strings.Join(strings.Fields(l.Error), " "))
	}
	// heartbeat, and kinds of later releases.
	return false, nil
}

func (hf *HostFleet) put(r Row) {
	r.Host, r.HostState = hf.Host.Name, ""
	r.Gone = false
	hf.rows[r.Path] = r
}

// ReadHost reads h's fleet once — `aot-tui status --scan --json` through
// its transport — as `status --scan` does a local one: its rows, each
// marked with the host. The output is bounded (64 MiB); ctx bounds the
// time. Its errors do not name the host: the caller does, once.
func ReadHost(ctx context.Context, h *remote.Host) ([]Row, error) {
	// --no-remotes: the far side reads its own loops only, never hosts
	// of its own remotes.yaml (which could name this one again).
	args := []string{"status", "--scan", "--json", "--no-remotes"}
	if h.Depth > 0 {
		args = append(args, "--depth", strconv.Itoa(h.Depth))
	}
	args = append(append(args, "--"), h.Dirs...)
	out, err := remote.Output(ctx, h.Command(args...), 64<<20)
	if err != nil {
		return nil, err
	}
	var got struct {
		Loops []Row `json:"loops"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		return nil, fmt.Errorf("did not answer with the fleet's JSON (%s): is aot-tui there the right program?", oneLine(err))
	}
	for i := range got.Loops {
		got.Loops[i].Host = h.Name
	}
	return got.Loops, nil
}
