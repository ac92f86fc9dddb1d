// Package fleettable is the fleet table of aot-tui --scan as a component:
// every loop found under some directories, live, one row each, with a /
// filter, a preview of the selected loop and its own status line. It owns
// its rows and its watcher's messages; it is given a kit.Context and
// answers with kit.Actions — OpenLoop with the selected row's state file,
// a status line, a command — and never reaches into the root model, which
// opens the loop, brings the table back and routes the keys declared in
// its one key table to Update.
package fleettable

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
	"github.com/aot-loop/aot-tui/notify"
	"github.com/aot-loop/aot-tui/remote"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// Config is what the table scans and how it alerts.
type Config struct {
	// Dirs are the directories scanned, Options how (fleet.Start).
	Dirs    []string
	Options fleet.Options
	// Quiet turns off the bell and desktop notifications.
	Quiet bool
	// Notify, when set, is sent each alert's event, whatever Quiet and
	// the focus (notify.go).
	Notify *notify.Notifier
	// Hosts are remote hosts whose loops join the table (hosts.go),
	// followed with HostOptions.
	Hosts       []*remote.Host
	HostOptions fleet.HostOptions
}

// Table is the fleet table. The zero value is not usable: New builds one.
type Table struct {
	cfg Config
	w   *fleet.Watcher
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
	// focused is the terminal's focus: alerts fire only without it.
	focused bool

	// rows are every loop in the table's order; cur holds the selection,
	// scrolling and the / filter over them.
	rows []fleet.Row
	cur  cursor
	sum  fleet.Summary
	// longest is the widest project name, for the column's width.
	longest int
	// picked: the person has moved the selection; until then it stays on
	// the top row (the loop that most needs attention) as rows come in.
	picked    bool
	filtering bool
	input     textinput.Model

	width, height int

	// What Refresh draws for View: each row's line by path (a row is
	// drawn again only when it, its "changed" text, the selection or the
	// layout changes — with fifty loops, most rows stay as they were),
	// the lines under the title, the key hints for hintsRoom cells, and
	// when time-dependent text among them next reads differently.
	lines     map[string]cachedLine
	linesFor  lineLayout
	agoCells  map[string]string
	body      []string
	hints     string
	hintsRoom int
	next      time.Time
	// shown are the paths of the rows body drew, top to bottom, from
	// screen row firstRow on: what a click lands on.
	shown []string

	// status is the table's own footer line.
	status kit.Shown

	// hosts follows the remote hosts (hosts.go; nil without any);
	// hostStatus is each one's link as last told.
	hosts      *hostWatch
	hostStatus map[string]remote.Status
}

// New builds the table for cfg; Init starts its watcher.
func New(cfg Config) *Table {
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "project, status, goal or attention"
	t := &Table{cfg: cfg, quit: make(chan struct{}), input: in, focused: true}
	t.cur.match = func(r int, filter string) bool {
		row := t.rows[r]
		return cells.HasWords(strings.Join([]string{row.Name, row.Kind, row.Status, row.Phase, row.Goal,
			row.Attention.Label(), row.Reason}, " "), filter)
	}
	home, _ := os.UserHomeDir()
	var where []string
	for _, d := range cfg.Dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if home != "" && (d == home || strings.HasPrefix(d, home+string(filepath.Separator))) {
			d = "~" + d[len(home):]
		}
		where = append(where, d)
	}
	t.where = strings.Join(where, " ")
	return t
}

// Msg is a message of the table's watcher: the root hands each one to
// Update.
type Msg interface{ fleetMsg() }

// Started says the watcher started (or why it could not).
type Started struct {
	w   *fleet.Watcher
	err error
}

// Ready says the first scan is done: an empty table is then empty.
type Ready struct{}

// Rows are the rows that changed since the last Rows (Gone: the loop went).
type Rows struct{ Rows []fleet.Row }

func (Started) fleetMsg() {}
func (Ready) fleetMsg()   {}
func (Rows) fleetMsg()    {}

// Init starts the fleet watcher (none without directories to scan: the
// remote hosts' alone) and follows the remote hosts.
func (t *Table) Init() tea.Cmd {
	dirs, o := t.cfg.Dirs, t.cfg.Options
	if len(dirs) == 0 {
		t.ready = true
		return t.startHosts()
	}
	return tea.Batch(func() tea.Msg {
		w, err := fleet.Start(dirs, o)
		return Started{w: w, err: err}
	}, t.startHosts())
}

// Batch is how long the table waits after a change for others to join
// it: fifty busy loops make one update of the table (and one frame for
// Bubble Tea to diff and draw, the main cost) every 100 ms at most, not
// one per write. Measured with scripts/fleetperf, 50 loops writing 52
// times a second: 15 % of a core with 20 ms, see the README for 100.
const Batch = 100 * time.Millisecond

// listen waits for the watcher's next rows.
func (t *Table) listen() tea.Cmd {
	w, quit := t.w, t.quit
	return func() tea.Msg {
		if !waitBatch(w.Notify(), quit) {
			return nil
		}
		return Rows{Rows: w.Changes()}
	}
}

// waitBatch waits for a wake-up and then a Batch more, for other changes
// to join it; false when quit closes first.
func waitBatch(wake <-chan struct{}, quit <-chan struct{}) bool {
	select {
	case <-wake:
	case <-quit:
		return false
	}
	timer := time.NewTimer(Batch)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-quit:
		return false
	}
}

// Close stops the watcher.
func (t *Table) Close() {
	select {
	case <-t.quit:
	default:
		close(t.quit)
	}
	if t.w != nil {
		t.w.Stop()
	}
	if t.hosts != nil {
		t.hosts.stop()
	}
}

// SetSize gives the table the pane: the title and the footer take a line
// each.
func (t *Table) SetSize(w, h int) {
	t.width, t.height = w, h
	t.cur.setHeight(max(0, h-2))
	t.input.SetWidth(max(0, w-20))
}

// Update takes a message: the watcher's, the mouse (wheel and clicks),
// the terminal's focus and background, and the keys of the table's
// bindings (open_loop, filter, back, copy_text; while the filter is typed,
// every key).
func (t *Table) Update(ctx kit.Context, msg tea.Msg) kit.Action {
	switch msg := msg.(type) {
	case Started:
		return kit.Run(t.started(msg))
	case Ready:
		t.ready = true
	case hostsStarted, HostRows:
		return kit.Run(t.hostsMsg(msg))
	case Rows:
		alert := t.apply(msg.Rows)
		if t.w == nil { // rows given by hand (tests): no watcher to wait for
			return kit.Run(alert)
		}
		return kit.Run(tea.Batch(alert, t.listen()))
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			t.cur.move(-3)
		case tea.MouseWheelDown:
			t.cur.move(3)
		}
		t.picked = true
	case tea.MouseClickMsg:
		return t.click(msg)
	case tea.FocusMsg:
		t.focused = true
	case tea.BlurMsg:
		t.focused = false
	case tea.BackgroundColorMsg:
		t.lines = nil // drawn in the old colours
	case tea.KeyPressMsg:
		return t.onKey(ctx, msg)
	}
	return kit.Action{}
}

func (t *Table) started(msg Started) tea.Cmd {
	if msg.err != nil {
		t.err = msg.err.Error()
		return nil
	}
	select {
	case <-t.quit: // closed while the scan started
		return func() tea.Msg { msg.w.Stop(); return nil }
	default:
	}
	t.w = msg.w
	t.watch = t.w.Watch
	w, quit := t.w, t.quit
	ready := func() tea.Msg {
		select {
		case <-w.Ready():
			return Ready{}
		case <-quit:
			return nil
		}
	}
	return tea.Batch(t.listen(), ready)
}

// onKey is a key of the table's: enter opens the selected loop, / starts
// the filter, esc clears it; while the filter is typed, enter ends it, esc
// clears it, and every other key is typed.
func (t *Table) onKey(ctx kit.Context, msg tea.KeyPressMsg) kit.Action {
	is := func(name string) bool { return key.Matches(msg, ctx.Keys.Key(name)) }
	if t.filtering {
		switch {
		case is("back"):
			t.filtering = false
			t.input.Blur()
			t.setFilter("")
			return kit.Action{}
		case is("submit"):
			t.filtering = false
			t.input.Blur()
			return kit.Action{}
		}
		var cmd tea.Cmd
		t.input, cmd = t.input.Update(msg)
		t.setFilter(t.input.Value())
		return kit.Run(cmd)
	}
	switch {
	case is("open_loop"):
		r, ok := t.Selected()
		if !ok {
			return kit.Say(t.OpenWhy(), kit.Info)
		}
		t.picked = true
		return kit.Action{Kind: kit.OpenLoop, Loop: r.Key()}
	case is("copy_text"):
		r, ok := t.Selected()
		if !ok {
			return kit.Say(strings.Replace(t.OpenWhy(), "no loop to open", "no loop to copy the path of", 1), kit.Info)
		}
		return kit.Copy(termtext.Line(r.Path), "the path of "+r.Name)
	case is("filter"):
		t.filtering = true
		t.input.SetValue(t.cur.filter)
		t.input.CursorEnd()
		return kit.Run(t.input.Focus())
	case is("back"):
		if why := t.BackWhy(); why != "" {
			return kit.Say(why, kit.Info)
		}
		t.setFilter("")
	}
	return kit.Action{}
}

// OpenWhy says why enter cannot open a loop ("" when a row is selected).
func (t *Table) OpenWhy() string {
	if _, ok := t.Selected(); ok {
		return ""
	}
	switch {
	case t.err != "":
		return "no loop to open: the scan failed"
	case len(t.rows) > 0:
		return "no loop to open: none matches the filter (esc clears it)"
	case !t.ready:
		return "no loop to open yet: the scan is still looking"
	}
	return "no loop to open: the scan found none"
}

// BackWhy says why esc has nothing to do on the table ("" when a filter
// is set).
func (t *Table) BackWhy() string {
	if t.cur.filter == "" {
		return "no filter to clear"
	}
	return ""
}

// Filtering reports whether the / filter is being typed.
func (t *Table) Filtering() bool { return t.filtering }

// apply merges changed rows into the table, keeps the selection on the
// same loop, and alerts on what deserves it.
func (t *Table) apply(changes []fleet.Row) tea.Cmd {
	sel := t.selectedPath()
	byPath := make(map[string]int, len(t.rows))
	for i, r := range t.rows {
		byPath[r.Key()] = i
	}
	var alerts []string
	for _, c := range changes {
		i, had := byPath[c.Key()]
		switch {
		case c.Gone && had:
			t.rows[i].Gone = true
		case c.Gone:
		case had:
			if why := fleet.AlertReason(t.rows[i], c); why != "" {
				alerts = append(alerts, c.Name+": "+why)
				t.notify(c, why)
			}
			t.rows[i] = c
		default:
			byPath[c.Key()] = len(t.rows)
			t.rows = append(t.rows, c)
		}
	}
	kept := t.rows[:0]
	for _, r := range t.rows {
		if !r.Gone {
			kept = append(kept, r)
		} else {
			delete(t.lines, r.Key())
		}
	}
	t.rows = kept
	t.longest = 0
	for _, r := range t.rows {
		t.longest = max(t.longest, ansi.StringWidth(termtext.Line(r.Name)))
	}
	fleet.Sort(t.rows)
	t.sum = fleet.Summarize(t.rows)
	t.cur.setRows(len(t.rows))
	if t.picked {
		t.Select(sel)
	} else {
		t.cur.home()
	}
	return t.alert(alerts)
}

// alert rings the bell and sends a desktop notification titled with the
// fleet's summary, for the loops that changed for the worse or completed
// — only while the pane is unfocused, and not Quiet.
func (t *Table) alert(why []string) tea.Cmd {
	if len(why) == 0 || t.cfg.Quiet || t.focused {
		return nil
	}
	body := why[0]
	if len(why) > 1 {
		body += fmt.Sprintf(" (and %d more)", len(why)-1)
	}
	title := termtext.Line("aot-tui: " + t.sum.String())
	body = termtext.Line(body)
	return tea.Raw("\a" + "\x1b]9;" + title + ": " + body + "\x07" +
		"\x1b]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + strings.ReplaceAll(body, ";", ",") + "\x07")
}

// Selected is the selected row (false when none is).
func (t *Table) Selected() (fleet.Row, bool) {
	c := &t.cur
	if len(c.visible) == 0 || c.sel >= len(c.visible) {
		return fleet.Row{}, false
	}
	return t.rows[c.visible[c.sel]], true
}

// selectedPath is the key of the selected row (fleet.Row.Key: the path,
// with the host for a remote loop; "" when none).
func (t *Table) selectedPath() string {
	if r, ok := t.Selected(); ok {
		return r.Key()
	}
	return ""
}

// Select moves the selection to the row of key (fleet.Row.Key), if it is
// visible.
func (t *Table) Select(path string) {
	for k, r := range t.cur.visible {
		if t.rows[r].Key() == path {
			t.cur.sel = k
			t.cur.clamp()
			return
		}
	}
}

// Row is the row of key (fleet.Row.Key: a local loop's is its state
// file's path).
func (t *Table) Row(path string) (fleet.Row, bool) {
	for _, r := range t.rows {
		if r.Key() == path {
			return r, true
		}
	}
	return fleet.Row{}, false
}

// Visible are the rows that pass the filter, in the table's order.
func (t *Table) Visible() []fleet.Row {
	out := make([]fleet.Row, len(t.cur.visible))
	for k, r := range t.cur.visible {
		out[k] = t.rows[r]
	}
	return out
}

// Step selects the row d rows away from path's (wrapping; from the top
// when path is not shown) and returns it; false when no row is shown.
func (t *Table) Step(path string, d int) (fleet.Row, bool) {
	vis := t.cur.visible
	if len(vis) == 0 {
		return fleet.Row{}, false
	}
	k := 0
	for i, r := range vis {
		if t.rows[r].Key() == path {
			k = i + d
			break
		}
	}
	k = ((k % len(vis)) + len(vis)) % len(vis)
	t.cur.sel = k
	t.cur.clamp()
	t.picked = true
	return t.rows[vis[k]], true
}

// Position is where path's row is among the rows shown ("3/8 "; "" when
// it is not shown).
func (t *Table) Position(path string) string {
	for k, r := range t.cur.visible {
		if t.rows[r].Key() == path {
			return fmt.Sprintf("%d/%d ", k+1, len(t.cur.visible))
		}
	}
	return ""
}

// setFilter filters the rows by s, keeping the selection on its loop once
// the person has moved it.
func (t *Table) setFilter(s string) {
	sel := t.selectedPath()
	t.cur.setFilter(s)
	if t.picked {
		t.Select(sel)
	} else {
		t.cur.home()
	}
}

// The move keys: the root's one switch of them scrolls the table through
// these (By, Page, Home, End). Moving the selection picks it.

// By moves the selection n rows.
func (t *Table) By(n int) { t.moved(func() { t.cur.move(n) }) }

// Page is how many rows a page moves.
func (t *Table) Page() int { return max(1, t.cur.bodyHeight()-1) }

// Home selects the first row.
func (t *Table) Home() { t.moved(t.cur.home) }

// End selects the last row.
func (t *Table) End() { t.moved(t.cur.end) }

func (t *Table) moved(move func()) {
	prev := t.cur.sel
	move()
	t.picked = t.picked || t.cur.sel != prev
}

// SetStatus sets the table's footer line.
func (t *Table) SetStatus(s kit.Shown) { t.status = s }

// Status is the table's footer line (zero when none is live at now).
func (t *Table) Status(now time.Time) kit.Shown { return t.status.At(now) }

// Summary is the fleet's summary in words ("8 loops · 5 running · …").
func (t *Table) Summary() string { return t.sum.String() }

// WatchNote is the help screen's line on how the table watches the loops
// ("" before the watcher started).
func (t *Table) WatchNote() string {
	if t.watch == nil {
		return ""
	}
	return "watch: " + t.watch().String()
}

// CostNote is the help screen's word on the cost column: an estimate,
// from which prices ("" when the loops' sessions are not read).
func (t *Table) CostNote() string {
	if t.cfg.Options.Activity == nil {
		return ""
	}
	date := ""
	for _, r := range t.rows {
		if r.Activity != nil {
			date = r.Activity.Cost.PricesDate
			break
		}
	}
	note := costTitle + ": the estimated cost of each loop's Claude Code sessions since it began"
	if date != "" {
		note += ", at the prices of " + termtext.Line(date)
	}
	return note + " (an estimate: a subscription is not billed per token; the prices file overrides the table), then its tokens; " +
		"? needs you: a session waits for a person (aot-tui hook install tells it exactly, else the transcript)"
}

// firstRow is the screen row of the table's first row: under the title
// and the column header.
const firstRow = 2

// click selects the row under a left click; a click on the row already
// selected opens its loop, as enter does — so a double click on any row
// opens it. A click while the filter is typed ends the typing (the filter
// stays).
func (t *Table) click(msg tea.MouseClickMsg) kit.Action {
	k := msg.Y - firstRow
	if msg.Button != tea.MouseLeft || k < 0 || k >= len(t.shown) {
		return kit.Action{}
	}
	if t.filtering {
		t.filtering = false
		t.input.Blur()
	}
	path := t.shown[k]
	t.picked = true
	if r, ok := t.Selected(); ok && r.Key() == path {
		return kit.Action{Kind: kit.OpenLoop, Loop: path}
	}
	t.Select(path)
	return kit.Action{}
}
