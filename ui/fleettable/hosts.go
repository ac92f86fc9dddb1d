package fleettable

import (
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// hostWatch follows the remote hosts (fleet.FollowHost, one link each):
// their callbacks mark a host dirty and wake the table, which takes every
// dirty host's rows at once (HostRows), a Batch after the first.
type hostWatch struct {
	fleets []*fleet.HostFleet
	wake   chan struct{}

	mu    sync.Mutex
	dirty map[*fleet.HostFleet]bool
}

// HostRows are remote hosts' rows and links as they stand now.
type HostRows struct{ Hosts []HostState }

// HostState is one host's rows and link.
type HostState struct {
	Name   string
	Rows   []fleet.Row
	Status remote.Status
}

func (HostRows) fleetMsg()     {}
func (hostsStarted) fleetMsg() {}

type hostsStarted struct{ hw *hostWatch }

// startHosts follows the hosts of the config (nil without any).
func (t *Table) startHosts() tea.Cmd {
	hosts, o := t.cfg.Hosts, t.cfg.HostOptions
	if len(hosts) == 0 {
		return nil
	}
	return func() tea.Msg {
		hw := &hostWatch{wake: make(chan struct{}, 1), dirty: map[*fleet.HostFleet]bool{}}
		for _, h := range hosts {
			hw.fleets = append(hw.fleets, fleet.FollowHost(h, o, func(hf *fleet.HostFleet) {
				hw.mu.Lock()
				hw.dirty[hf] = true
				hw.mu.Unlock()
				select {
				case hw.wake <- struct{}{}:
				default:
				}
			}))
		}
		return hostsStarted{hw: hw}
	}
}

// listenHosts waits for the hosts' next change.
func (t *Table) listenHosts() tea.Cmd {
	hw, quit := t.hosts, t.quit
	if hw == nil {
		return nil
	}
	return func() tea.Msg {
		if !waitBatch(hw.wake, quit) {
			return nil
		}
		hw.mu.Lock()
		dirty := hw.dirty
		hw.dirty = map[*fleet.HostFleet]bool{}
		hw.mu.Unlock()
		var msg HostRows
		for _, hf := range hw.fleets {
			if dirty[hf] {
				msg.Hosts = append(msg.Hosts, HostState{Name: hf.Host.Name, Rows: hf.Rows(), Status: hf.Status()})
			}
		}
		return msg
	}
}

// hostsMsg takes started hosts, or their rows: each host's rows replace
// the ones the table had of it (those it no longer has go), marked with
// how its link stands, and alert as local rows do.
func (t *Table) hostsMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case hostsStarted:
		select {
		case <-t.quit: // closed while they started
			return func() tea.Msg { msg.hw.stop(); return nil }
		default:
		}
		t.hosts = msg.hw
		return t.listenHosts()
	case HostRows:
		if t.hostStatus == nil {
			t.hostStatus = map[string]remote.Status{}
		}
		var changes []fleet.Row
		for _, h := range msg.Hosts {
			t.hostStatus[h.Name] = h.Status
			state := h.Status.State.String()
			keep := map[string]bool{}
			for _, r := range h.Rows {
				r.HostState = state
				keep[r.Key()] = true
				changes = append(changes, r)
			}
			for _, r := range t.rows {
				if r.Host == h.Name && !keep[r.Key()] {
					r.Gone = true
					changes = append(changes, r)
				}
			}
		}
		alert := t.apply(changes)
		return tea.Batch(alert, t.listenHosts())
	}
	return nil
}

func (hw *hostWatch) stop() {
	for _, hf := range hw.fleets {
		hf.Stop()
	}
}

// hostWidth is the host column's width: the longest host name with its
// state mark, "local" at least (0 without remote hosts: no column).
func (t *Table) hostWidth() int {
	if len(t.cfg.Hosts) == 0 {
		return 0
	}
	w := len("local")
	for _, h := range t.cfg.Hosts {
		w = max(w, ansi.StringWidth(termtext.Line(h.Name))+2)
	}
	return min(w, 16)
}

// hostsText is the title's word on the hosts whose link is not live
// ("box lost · gpu connecting"; "" when all are).
func (t *Table) hostsText(s kit.Styles) string {
	var parts []string
	for _, h := range t.cfg.Hosts {
		st, ok := t.hostStatus[h.Name]
		state := remote.Connecting
		if ok {
			state = st.State
		}
		if state == remote.Live {
			continue
		}
		style := s.Muted
		switch state {
		case remote.Lost, remote.Mismatch:
			style = s.Danger
		case remote.Stale:
			style = s.Warn
		}
		parts = append(parts, style.Render(termtext.Line(h.Name)+" "+state.String()))
	}
	slices.Sort(parts)
	return strings.Join(parts, s.Muted.Render(" · "))
}

// hostNote is the preview's line on a remote loop's host when its link is
// not live: since when, why, when it is tried again.
func (t *Table) hostNote(name string) string {
	st, ok := t.hostStatus[name]
	if !ok {
		return "on " + termtext.Line(name) + ": connecting"
	}
	switch st.State {
	case remote.Live:
		return ""
	case remote.Stale:
		return "on " + termtext.Line(name) + ": no word since " + st.Since.Local().Format("15:04:05") + " — the values are as of then"
	case remote.Lost, remote.Mismatch:
		note := "on " + termtext.Line(name) + ": " + st.State.String() + " since " + st.Since.Local().Format("15:04:05") + ": " + termtext.Line(st.Reason)
		if !st.Retry.IsZero() {
			note += " — trying again at " + st.Retry.Local().Format("15:04:05")
		}
		return note
	}
	return "on " + termtext.Line(name) + ": " + st.State.String()
}

// Host is the remote host named name (nil when there is none).
func (t *Table) Host(name string) *remote.Host {
	for _, h := range t.cfg.Hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}
