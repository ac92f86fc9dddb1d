package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/fleettable"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// FleetOptions open the TUI on the fleet table (aot-tui --scan): every
// loop found under Dirs, live; enter opens one in the normal views, esc
// comes back.
type FleetOptions struct {
	Dirs    []string
	Options fleet.Options
	// Hosts are remote hosts whose loops join the table, followed with
	// HostOptions (their transport: remote.Host).
	Hosts       []*remote.Host
	HostOptions fleet.HostOptions
}

// fleetLoops are the loops opened from the fleet table (the table itself
// is the fleettable component, Model.fleet). Only the loop on screen is
// watched by its own statefile watcher; the table's rows come from the
// table's one fleet.Watcher for all of them.
type fleetLoops struct {
	// shown: the table is on screen (else the loop m.cur).
	shown bool
	// opened are the loops opened from the table, by path; watching is
	// the generation of the watcher started for each (0: none), so that a
	// watcher that starts after its loop was left is stopped at once.
	opened   map[string]*loop
	watching map[*loop]int
	gen      int
}

// fleetWatchMsg: the statefile watcher of a loop opened from the table
// started (in the loop's envelope), as generation gen.
type fleetWatchMsg struct {
	gen int
	w   stopper
}

// initFleet sets the model up for the fleet table: no loop until one is
// opened from it.
func (m *Model) initFleet() {
	o := *m.opts.Fleet
	if o.Options.Watch.MaxSize == 0 {
		o.Options.Watch.MaxSize = m.opts.Watch.MaxSize
	}
	m.fleet = fleettable.New(fleettable.Config{Dirs: o.Dirs, Options: o.Options, Quiet: m.opts.Quiet, Notify: m.opts.Notify,
		Hosts: o.Hosts, HostOptions: o.HostOptions})
	m.fleetLoops = &fleetLoops{shown: true, opened: map[string]*loop{}, watching: map[*loop]int{}}
}

// fleetShown reports whether the fleet table is on screen.
func (m *Model) fleetShown() bool { return m.fleet != nil && m.fleetLoops.shown }

// context is what a component is given: the styles, the keys in effect
// by name, the time of the message being handled (a copy: a command run
// off the UI goroutine never reads the model) and the live clock.
func (m *Model) context() kit.Context {
	now := m.now
	return kit.Context{Styles: m.styles, Keys: m.keysByName, Now: func() time.Time { return now }, Clock: m.opts.Now, NoColor: m.opts.NoColor}
}

// keysByName are the keys of k by action name (kit.Keys).
func keysByName(k *KeyMap) kit.Keys {
	out := kit.Keys{}
	for i := range keyTable {
		out[keyTable[i].Name] = keyTable[i].keys(k)
	}
	return out
}

// toFleet hands msg to the fleet table and carries out its answer.
func (m *Model) toFleet(msg tea.Msg) tea.Cmd { return m.do(m.fleet.Update(m.context(), msg)) }

// refreshFleet has the table draw what changed into what its View shows
// (after every message while it is on screen: its View only reads).
func (m *Model) refreshFleet() {
	if m.fleetShown() {
		m.fleet.Refresh(m.context(), m.shortHelp)
	}
}

// onFleetWatch keeps the watcher started for l while l is still the loop
// it was started for (on screen, not left and opened again since).
func (m *Model) onFleetWatch(l *loop, msg fleetWatchMsg) tea.Cmd {
	if m.fleet != nil && m.fleetLoops.watching[l] == msg.gen && l.watcher == nil {
		l.watcher = msg.w
		return nil
	}
	return stopWatcher(msg.w)
}

func stopWatcher(w stopper) tea.Cmd {
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		w.Stop()
		return nil
	}
}

// openFleetLoop shows a loop of the table in the normal views, watching
// its file while it is on screen.
func (m *Model) openFleetLoop(r fleet.Row) tea.Cmd {
	if r.Host != "" && m.fleet.Host(r.Host) == nil {
		// Never read or write a remote loop's path on this machine.
		m.showStatus(kit.Status{Text: "host " + r.Host + " is not in this fleet: its loop " + r.Name + " cannot be opened", Level: kit.Error})
		return nil
	}
	f := m.fleetLoops
	var cmds []tea.Cmd
	l := f.opened[r.Key()]
	if l == nil {
		kind := statefile.KindAoT
		if r.Kind == statefile.KindPhaseLoop.String() {
			kind = statefile.KindPhaseLoop
		}
		l = newLoop(len(m.loops), statefile.Target{Path: r.Path, Kind: kind, Exists: true}, m.opts)
		l.name = termtext.Line(r.Name)
		if r.Host != "" {
			l.remoteHost = r.Host
			l.name = termtext.Line(r.Host) + ":" + l.name
			// Its corrections are previewed here, on the versions
			// streamed from the host, and written there
			// (correction.Elsewhere).
			l.hostFile = remote.NewFarFile(m.fleet.Host(r.Host))
			l.session.Close()
			l.session = correction.NewSession(l.target.Path, correction.Options{MaxSize: m.opts.Watch.MaxSize, Now: m.opts.Now, Elsewhere: l.hostFile})
		}
		m.setupTables(l)
		m.loops = append(m.loops, l)
		f.opened[r.Key()] = l
		cmds = append(cmds, listen(l))
	}
	if f.watching[l] == 0 {
		f.gen++
		f.watching[l] = f.gen
		t, opts, ch, gen := l.target, m.opts.Watch, l.events, f.gen
		if l.remoteHost != "" {
			h := m.fleet.Host(l.remoteHost)
			// A remote loop: its file's versions streamed through the
			// host's transport and parsed here (remote.FollowFile);
			// corrections are written there (hostFile). A read-only
			// host's versions come NotWritable.
			hf := l.hostFile
			cmds = append(cmds, l.send(func() tea.Msg {
				w := remote.FollowFile(h, t, remote.FileOptions{MaxSize: opts.MaxSize},
					func(ev statefile.Event) {
						if hf != nil {
							hf.Note(ev)
						}
						ch <- ev
					})
				return fleetWatchMsg{gen: gen, w: w}
			}))
		} else {
			cmds = append(cmds, l.send(func() tea.Msg {
				w := statefile.StartWatch(t, opts, func(ev statefile.Event) { ch <- ev })
				return fleetWatchMsg{gen: gen, w: w}
			}))
			// Its sessions too, followed live as a loop's own view
			// follows them (the header, the activity view), while it is
			// on screen. (A remote loop's are on its host: its row says
			// what they show.)
			cmds = append(cmds, m.startActivity(l))
		}
	}
	f.shown = false
	m.cur = l
	l.unseen = false
	m.refocus()
	m.layout()
	return tea.Batch(cmds...)
}

// leaveFleetLoop goes back to the table; the loop's watcher and the
// follower of its sessions stop.
func (m *Model) leaveFleetLoop() tea.Cmd {
	f := m.fleetLoops
	l := m.cur
	f.shown = true
	delete(f.watching, l)
	w := l.watcher
	l.watcher = nil
	m.fleet.Select(fleetKey(l))
	return tea.Batch(stopWatcher(w), stopFollower(l))
}

// fleetKey is l's row's key in the table (fleet.Row.Key).
func fleetKey(l *loop) string {
	return fleet.Row{Path: l.target.Path, Host: l.remoteHost}.Key()
}

// stopFollower stops the follower of l's sessions, and then ends the
// listener of its snapshots (its channel closed once nothing can send).
func stopFollower(l *loop) tea.Cmd {
	fl, ch := l.follower, l.activityCh
	if fl == nil {
		return nil
	}
	l.follower, l.activityCh = nil, nil
	return func() tea.Msg {
		fl.Stop()
		close(ch)
		return nil
	}
}

// stepFleetLoop opens the loop d rows away in the table (wrapping).
func (m *Model) stepFleetLoop(d int) tea.Cmd {
	next, ok := m.fleet.Step(fleetKey(m.cur), d)
	if !ok || next.Key() == fleetKey(m.cur) {
		return nil
	}
	stop := m.leaveFleetLoop()
	m.fleet.Select(next.Key())
	return tea.Batch(stop, m.openFleetLoop(next))
}

// fleetScroll is the fleet table as the move keys' scroller.
type fleetScroll struct{ t *fleettable.Table }

func (s fleetScroll) by(n int)  { s.t.By(n) }
func (s fleetScroll) page() int { return s.t.Page() }
func (s fleetScroll) home()     { s.t.Home() }
func (s fleetScroll) end()      { s.t.End() }

// renderFleetBar is the loop bar of a loop opened from the table: the way
// back, where the loop is in the table, and the fleet's summary.
func (m *Model) renderFleetBar() string {
	s, l := m.styles, m.cur
	status, glyph := loopStatus(l)
	k := m.keys
	back := s.Muted.Render("◂ fleet ") + s.Key.Render(k.Back.Help().Key) + s.Muted.Render(" "+k.PrevLoop.Help().Key+" "+k.NextLoop.Help().Key+" │ ")
	cur := s.TabActive.Render(m.fleet.Position(fleetKey(l)) + termtext.Line(l.name) + " " + glyph + " " + termtext.Line(status))
	return truncate(back+cur+s.Muted.Render(" │ ")+m.fleet.SummaryText(s), m.width)
}

// fleetTitle mirrors the fleet's summary in the window title: the table's
// title is the summary; a loop's title gets it appended.
func (m *Model) fleetTitle(v *tea.View) {
	sum := m.fleet.Summary()
	if m.fleetShown() {
		v.WindowTitle = termtext.Line("aot-tui fleet: " + sum)
		v.ProgressBar = nil
		return
	}
	v.WindowTitle += termtext.Line(" │ " + termtext.Line(m.cur.name) + " │ fleet: " + sum)
}
