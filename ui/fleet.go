package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/fleet"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/charmbracelet/x/ansi"
)

// FleetOptions open the TUI on the fleet table (aot-tui --scan): every
// loop found under Dirs, live; enter opens one in the normal views, esc
// comes back.
type FleetOptions struct {
	Dirs    []string
	Options fleet.Options
}

// fleetState is the fleet table and the loops opened from it. Only the
// loop on screen is watched by its own statefile watcher; the table's
// rows come from one fleet.Watcher for all of them.
type fleetState struct {
	opts FleetOptions
	w    *fleet.Watcher
	// watch is how the watcher follows the loops (w.Watch; nil before it
	// starts): which ones only the stat poll follows, and at what cost.
	watch func() fleet.WatchReport
	// quit ends the goroutine waiting for the watcher's next rows.
	quit chan struct{}
	// where names the scanned directories for the title (~ for $HOME).
	where string
	// err is why the scan could not start.
	err   string
	ready bool

	// rows are every loop in the table's order; table holds the
	// selection, scrolling and the / filter over them.
	rows  []fleet.Row
	table tableView
	sum   fleet.Summary
	// lines caches each row's drawn line (by path): a row is drawn again
	// only when it, its "changed" text, the selection or the layout
	// (linesFor) changes — with fifty loops, most rows stay as they were.
	lines    map[string]cachedLine
	linesFor lineLayout
	// longest is the widest project name, for the column's width.
	longest int
	// status is the table's own footer line (status.go): a loop's does
	// not show on the table.
	status statusLine
	// hints are the footer's key hints, drawn for hintsRoom cells.
	hints     string
	hintsRoom int

	// picked: the person has moved the selection; until then it stays on
	// the top row (the loop that most needs attention) as rows come in.
	picked bool
	// shown: the table is on screen (else the loop m.cur).
	shown     bool
	filtering bool
	input     textinput.Model

	// opened are the loops opened from the table, by path; watching is
	// the generation of the watcher started for each (0: none), so that a
	// watcher that starts after its loop was left is stopped at once.
	opened   map[string]*loop
	watching map[*loop]int
	gen      int
}

// Fleet messages.
type (
	fleetStartedMsg struct {
		w   *fleet.Watcher
		err error
	}
	fleetReadyMsg struct{}
	fleetRowsMsg  struct{ rows []fleet.Row }
	// fleetWatchMsg: the statefile watcher of a loop opened from the
	// table started (in the loop's envelope), as generation gen.
	fleetWatchMsg struct {
		gen int
		w   *statefile.Watcher
	}
)

// initFleet sets the model up for the fleet table: no loop yet, a blank
// one on m.cur so that the loop views' code always has one.
func (m *Model) initFleet() {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "project, status, goal or attention"
	m.fleet = &fleetState{
		opts: *m.opts.Fleet, quit: make(chan struct{}), shown: true, input: in,
		opened: map[string]*loop{}, watching: map[*loop]int{},
	}
	m.cur = newLoop(-1, statefile.Target{}, m.opts)
	m.setupFleetTable()
	home, _ := os.UserHomeDir()
	var where []string
	for _, d := range m.fleet.opts.Dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if home != "" && (d == home || strings.HasPrefix(d, home+string(filepath.Separator))) {
			d = "~" + d[len(home):]
		}
		where = append(where, d)
	}
	m.fleet.where = strings.Join(where, " ")
}

// fleetShown reports whether the fleet table is on screen.
func (m *Model) fleetShown() bool { return m.fleet != nil && m.fleet.shown }

// fleetInit starts the fleet watcher.
func (m *Model) fleetInit() tea.Cmd {
	o := m.fleet.opts
	if o.Options.Watch.MaxSize == 0 {
		o.Options.Watch.MaxSize = m.opts.Watch.MaxSize
	}
	return func() tea.Msg {
		w, err := fleet.Start(o.Dirs, o.Options)
		return fleetStartedMsg{w: w, err: err}
	}
}

// fleetBatch is how long the table waits after a change for others to
// join it: fifty busy loops make one update of the table (and one frame
// for Bubble Tea to diff and draw, the main cost) every 100 ms at most,
// not one per write. Measured with scripts/fleetperf, 50 loops writing
// 52 times a second: 15 % of a core with 20 ms, see the README for 100.
const fleetBatch = 100 * time.Millisecond

// fleetListen waits for the watcher's next rows.
func (m *Model) fleetListen() tea.Cmd {
	w, quit := m.fleet.w, m.fleet.quit
	return func() tea.Msg {
		select {
		case <-w.Notify():
		case <-quit:
			return nil
		}
		t := time.NewTimer(fleetBatch)
		defer t.Stop()
		select {
		case <-t.C:
		case <-quit:
			return nil
		}
		return fleetRowsMsg{rows: w.Changes()}
	}
}

// closeFleet stops the fleet watcher (Close).
func (m *Model) closeFleet() {
	f := m.fleet
	select {
	case <-f.quit:
	default:
		close(f.quit)
	}
	if f.w != nil {
		f.w.Stop()
	}
}

// fleetUpdate sees every message first in fleet mode; done means it was
// handled here. Keys go to the table while it is on screen; in a loop
// opened from it, esc (with nothing else to close) and < > are the
// fleet's; everything else goes on to the loop views.
func (m *Model) fleetUpdate(msg tea.Msg) (tea.Cmd, bool) {
	f := m.fleet
	switch msg := msg.(type) {
	case fleetStartedMsg:
		if msg.err != nil {
			f.err = msg.err.Error()
			return nil, true
		}
		select {
		case <-f.quit: // closed while the scan started
			return func() tea.Msg { msg.w.Stop(); return nil }, true
		default:
		}
		f.w = msg.w
		f.watch = f.w.Watch
		w, quit := f.w, f.quit
		ready := func() tea.Msg {
			select {
			case <-w.Ready():
				return fleetReadyMsg{}
			case <-quit:
				return nil
			}
		}
		return tea.Batch(m.fleetListen(), ready), true
	case fleetReadyMsg:
		f.ready = true
		return nil, true
	case fleetRowsMsg:
		return tea.Batch(m.applyFleetRows(msg.rows), m.fleetListen()), true
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layoutFleet()
		return nil, false // the loop views are sized too
	case tea.MouseWheelMsg:
		if !f.shown || m.focus == focusHelp {
			return nil, false
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			f.table.move(-3)
		case tea.MouseWheelDown:
			f.table.move(3)
		}
		f.picked = true
		return nil, true
	}
	return nil, false
}

// onFleetWatch keeps the watcher started for l while l is still the loop
// it was started for (on screen, not left and opened again since).
func (m *Model) onFleetWatch(l *loop, msg fleetWatchMsg) tea.Cmd {
	if m.fleet != nil && m.fleet.watching[l] == msg.gen && l.watcher == nil {
		l.watcher = msg.w
		return nil
	}
	return stopWatcher(msg.w)
}

func stopWatcher(w *statefile.Watcher) tea.Cmd {
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		w.Stop()
		return nil
	}
}

// applyFleetRows merges changed rows into the table, keeps the selection
// on the same loop, and alerts on what deserves it.
func (m *Model) applyFleetRows(changes []fleet.Row) tea.Cmd {
	f := m.fleet
	sel := f.selectedPath()
	byPath := make(map[string]int, len(f.rows))
	for i, r := range f.rows {
		byPath[r.Path] = i
	}
	var alerts []string
	for _, c := range changes {
		i, had := byPath[c.Path]
		switch {
		case c.Gone && had:
			f.rows[i].Gone = true
		case c.Gone:
		case had:
			if why := fleet.AlertReason(f.rows[i], c); why != "" {
				alerts = append(alerts, c.Name+": "+why)
			}
			f.rows[i] = c
		default:
			byPath[c.Path] = len(f.rows)
			f.rows = append(f.rows, c)
		}
	}
	kept := f.rows[:0]
	for _, r := range f.rows {
		if !r.Gone {
			kept = append(kept, r)
		} else {
			delete(f.lines, r.Path)
		}
	}
	f.rows = kept
	f.longest = 0
	for _, r := range f.rows {
		f.longest = max(f.longest, ansi.StringWidth(termtext.Line(r.Name)))
	}
	fleet.Sort(f.rows)
	f.sum = fleet.Summarize(f.rows)
	f.table.setRows(len(f.rows))
	if f.picked {
		f.selectPath(sel)
	} else {
		f.table.home()
	}
	return m.fleetAlert(alerts)
}

// selectedPath is the path of the selected row ("" when none).
func (f *fleetState) selectedPath() string {
	if r, ok := f.selected(); ok {
		return r.Path
	}
	return ""
}

func (f *fleetState) selected() (fleet.Row, bool) {
	t := &f.table
	if len(t.visible) == 0 || t.sel >= len(t.visible) {
		return fleet.Row{}, false
	}
	return f.rows[t.visible[t.sel]], true
}

// selectPath moves the selection to path's row, if it is visible.
func (f *fleetState) selectPath(path string) {
	for k, r := range f.table.visible {
		if f.rows[r].Path == path {
			f.table.sel = k
			f.table.clamp()
			return
		}
	}
}

// fleetAlert rings the bell and sends a desktop notification titled with
// the fleet's summary, for the loops that changed for the worse or
// completed — only while the pane is unfocused, and not --quiet.
func (m *Model) fleetAlert(why []string) tea.Cmd {
	if len(why) == 0 || m.opts.Quiet || m.focused {
		return nil
	}
	body := why[0]
	if len(why) > 1 {
		body += fmt.Sprintf(" (and %d more)", len(why)-1)
	}
	title := termtext.Line("aot-tui: " + m.fleet.sum.String())
	body = termtext.Line(body)
	return tea.Raw("\a" + "\x1b]9;" + title + ": " + body + "\x07" +
		"\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\x07")
}

// fleetFilterKey is a key typed into the table's / filter.
func (m *Model) fleetFilterKey(msg tea.KeyPressMsg) tea.Cmd {
	f, k := m.fleet, m.keys
	switch {
	case key.Matches(msg, k.Back):
		f.filtering = false
		f.input.Blur()
		m.setFleetFilter("")
		return nil
	case key.Matches(msg, k.Submit):
		f.filtering = false
		f.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	m.setFleetFilter(f.input.Value())
	return cmd
}

// row is the table's row of the loop whose state file is path.
func (f *fleetState) row(path string) (fleet.Row, bool) {
	for _, r := range f.rows {
		if r.Path == path {
			return r, true
		}
	}
	return fleet.Row{}, false
}

// emptyText says why there is no loop to open.
func (f *fleetState) emptyText() string {
	switch {
	case f.err != "":
		return "no loop to open: the scan failed"
	case len(f.rows) > 0:
		return "no loop to open: none matches the filter (esc clears it)"
	case !f.ready:
		return "no loop to open yet: the scan is still looking"
	}
	return "no loop to open: the scan found none"
}

func (m *Model) setFleetFilter(s string) {
	f := m.fleet
	sel := f.selectedPath()
	f.table.setFilter(s)
	if f.picked {
		f.selectPath(sel)
	} else {
		f.table.home()
	}
}

// openFleetLoop shows a loop of the table in the normal views, watching
// its file while it is on screen.
func (m *Model) openFleetLoop(r fleet.Row) tea.Cmd {
	f := m.fleet
	var cmds []tea.Cmd
	l := f.opened[r.Path]
	if l == nil {
		kind := statefile.KindAoT
		if r.Kind == statefile.KindPhaseLoop.String() {
			kind = statefile.KindPhaseLoop
		}
		l = newLoop(len(m.loops), statefile.Target{Path: r.Path, Kind: kind, Exists: true}, m.opts)
		l.name = termtext.Line(r.Name)
		m.setupTables(l)
		m.loops = append(m.loops, l)
		f.opened[r.Path] = l
		cmds = append(cmds, listen(l))
	}
	if f.watching[l] == 0 {
		f.gen++
		f.watching[l] = f.gen
		t, opts, ch, gen := l.target, m.opts.Watch, l.events, f.gen
		cmds = append(cmds, l.send(func() tea.Msg {
			w := statefile.StartWatch(t, opts, func(ev statefile.Event) { ch <- ev })
			return fleetWatchMsg{gen: gen, w: w}
		}))
	}
	f.shown = false
	m.cur = l
	l.unseen = false
	m.refocus()
	m.layout()
	return tea.Batch(cmds...)
}

// leaveFleetLoop goes back to the table; the loop's watcher stops.
func (m *Model) leaveFleetLoop() tea.Cmd {
	f := m.fleet
	l := m.cur
	f.shown = true
	delete(f.watching, l)
	w := l.watcher
	l.watcher = nil
	f.selectPath(l.target.Path)
	return stopWatcher(w)
}

// stepFleetLoop opens the loop d rows away in the table (wrapping).
func (m *Model) stepFleetLoop(d int) tea.Cmd {
	f := m.fleet
	vis := f.table.visible
	if len(vis) == 0 {
		return nil
	}
	k := 0
	for i, r := range vis {
		if f.rows[r].Path == m.cur.target.Path {
			k = i + d
			break
		}
	}
	k = ((k % len(vis)) + len(vis)) % len(vis)
	next := f.rows[vis[k]]
	if next.Path == m.cur.target.Path {
		return nil
	}
	stop := m.leaveFleetLoop()
	f.table.sel = k
	f.table.clamp()
	return tea.Batch(stop, m.openFleetLoop(next))
}
