package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aot-loop/aot-tui/history"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Replay opens the TUI on recorded versions instead of a live file
// (aot-tui replay): the timeline starts at its first version, everything
// is read-only, and esc shows the last version.
type Replay struct {
	Timeline *history.Timeline
	// Speed is the initial play speed (1: the recorded pace; default 1).
	Speed float64
	// Play starts playing at once.
	Play bool
	// Notes are said in the message log at the start (records skipped,
	// versions that did not parse).
	Notes []string
	// Source names where the versions came from, for the banner.
	Source string
}

// timeline is a loop's history in the TUI: every distinct version seen
// (in memory as line diffs), the journal they are recorded to, and the
// version on screen while the person looks at the past.
type timeline struct {
	tl  *history.Timeline
	rec *history.Recorder
	// last is the state of the newest version (to say what changed).
	last *model.State
	// idx is the version on screen in the past; -1 when live.
	idx int
	// saved is the live state put aside while the past is on screen;
	// pending the newest live event that arrived meanwhile.
	saved   shownState
	pending *statefile.Event
	// parsed caches a few parsed versions (stepping, what changed): at
	// 10,000 atoms some 30 MB each, so they are let go once live again
	// (forgetParsed).
	parsed map[int]shownState
	order  []int

	replay *Replay
	// playing steps forward on a timer; gen tells a stale tick from the
	// current one; speed is a multiple of the recorded pace.
	playing bool
	gen     int
	speed   float64

	recErrShown bool
	// queue holds the versions read but not yet recorded: recording
	// (Compare and the line diff, some 5 ms at 10,000 atoms) waits until
	// the frame showing the version is drawn (recordMsg).
	queue []statefile.Event
}

// recordMsg records the loop's queued versions.
type recordMsg struct{}

// recordDelay is how long a version waits to be recorded: past the next
// frame (Bubble Tea draws at most every 1/60 s), so that the write reaches
// the screen first.
const recordDelay = 20 * time.Millisecond

// shownState is what the views draw from; checks are the state's (nil:
// setShown makes them).
type shownState struct {
	doc    *statefile.Document
	facts  *model.Facts
	checks *checks
}

// playMsg is the loop's play timer, of the play started as gen.
type playMsg struct{ gen int }

// playSpeeds are the speeds + and - step through.
var playSpeeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128}

func (h *timeline) inPast() bool { return h != nil && h.idx >= 0 }

// hist is loop l's timeline with every version read so far recorded.
func (m *Model) hist(l *loop) *timeline {
	m.recordQueued(l)
	return m.timelineOf(l)
}

// timelineOf is loop l's timeline, made on first use: with the journal
// Options.Journal names, when set (the recorder names and opens it on its
// own goroutine, so no I/O happens here).
func (m *Model) timelineOf(l *loop) *timeline {
	if l.hist != nil {
		return l.hist
	}
	h := &timeline{tl: history.NewTimeline(history.TimelineOptions{}), idx: -1, parsed: map[int]shownState{}, speed: 1}
	// A remote loop's versions are kept in memory only: a journal here
	// is named by a path of this machine.
	if journal := m.opts.Journal; journal != nil && l.target.Kind == statefile.KindAoT && m.opts.Replay == nil && l.remoteHost == "" {
		path := l.target.Path
		h.rec = history.NewLazyRecorder(func() (string, error) { return journal(path) }, history.JournalOptions{MaxSize: m.opts.JournalMax, StateFile: path})
	}
	l.hist = h
	return h
}

// queueVersion queues a new version of loop l's file for its timeline,
// answering with the command that records it after the next frame.
func (m *Model) queueVersion(l *loop, ev statefile.Event) tea.Cmd {
	if ev.Doc == nil || ev.Data == nil {
		return nil // a phase loop: no timeline
	}
	h := m.timelineOf(l)
	h.queue = append(h.queue, ev)
	if len(h.queue) > 1 {
		return nil // a recordMsg is on its way
	}
	return l.send(tea.Tick(recordDelay, func(time.Time) tea.Msg { return recordMsg{} }))
}

// recordQueued records the versions queued for loop l, in order.
func (m *Model) recordQueued(l *loop) {
	h := l.hist
	if h == nil {
		return
	}
	for len(h.queue) > 0 {
		ev := h.queue[0]
		h.queue[0] = statefile.Event{}
		h.queue = h.queue[1:]
		m.recordVersion(l, h, ev)
	}
	h.queue = nil
}

// recordVersion keeps a new version of loop l's file in its timeline and
// journal, and notes the corrections it added in the message log.
func (m *Model) recordVersion(l *loop, h *timeline, ev statefile.Event) {
	changes := history.Compare(h.last, ev.Doc.State)
	v := history.Version{At: versionAt(ev), Data: ev.Data, Marks: history.MarksOf(changes)}
	if v.At.IsZero() {
		v.At = m.opts.Now()
	}
	if _, added := h.tl.Append(v); !added {
		return
	}
	first := h.last == nil
	h.last = ev.Doc.State
	if !h.inPast() {
		// Live: the versions "what changed" parsed are behind now.
		h.forgetParsed()
	}
	if h.rec != nil {
		h.rec.Record(v)
		if err := h.rec.Err(); err != nil && !h.recErrShown {
			h.recErrShown = true
			m.report(l, kit.Error, "journal off: "+err.Error())
		}
	}
	if first {
		return
	}
	for _, c := range changes {
		if c.Kind == history.ChangeCorrection {
			m.logMessage(m.logName(l), kit.Info, c.Text)
		}
	}
}

// onLoadedInPast takes a new live state while the past is on screen: it
// is recorded and checked as usual, and held until esc returns to live.
func (m *Model) onLoadedInPast(l *loop, ev statefile.Event) tea.Cmd {
	h := l.hist
	l.banner, l.bannerBad = "", false
	if ev.Data == nil || !l.session.IsOurs(ev.Data) {
		m.noteChange(l, versionAt(ev))
	}
	var cmds []tea.Cmd
	if ev.Doc != nil {
		prev := h.saved.doc
		if h.pending != nil && h.pending.Doc != nil {
			prev = h.pending.Doc
		}
		if prev != nil {
			cmds = append(cmds, m.alertOn(l, prev.State, ev.Doc.State))
			l.gone = model.KeepGone(l.gone, prev.State, ev.Doc.State)
		}
		for _, job := range l.session.Check(ev.Doc) {
			cmds = append(cmds, m.runJob(l, nil, job))
		}
		h.pending = &ev
	}
	m.noteWritable(l, ev)
	m.layoutLoop(l)
	return tea.Batch(cmds...)
}

// show puts a state on screen: the views draw from l's doc, st and facts.
func (m *Model) show(l *loop, s shownState) tea.Cmd {
	if s.doc == nil {
		return nil
	}
	cmd := m.setShown(l, s)
	m.layoutLoop(l)
	return cmd
}

// setShown makes s the state l's views draw from (a live version in
// onLoaded, a version of the timeline in show), answering with the
// graph's layout job when its structure changed.
func (m *Model) setShown(l *loop, s shownState) tea.Cmd {
	l.doc, l.st, l.facts = s.doc, s.doc.State, s.facts
	c := s.checks
	if c == nil || c.st != l.st {
		// None made with the event, or (never on purpose) those of
		// another state: the findings shown are always the state's own.
		c = checksOf(nil, l.st, l.facts)
	}
	l.outlook = c.outlook
	if !l.hist.inPast() {
		l.outlook = model.WithGone(l.outlook, l.gone)
	}
	l.loopTools, l.report, l.resume = c.loopTools, c.report, c.resume
	cmd := m.layoutCmd(l, l.graph.setState(l.st, l.facts, &l.report))
	l.bindings.setRows(len(l.st.Bindings))
	l.trail.setRows(len(l.st.Trail))
	l.corrections.setRows(len(l.st.Corrections))
	return cmd
}

// parsedVersion parses version i of l's timeline (a few are cached).
func (m *Model) parsedVersion(h *timeline, i int) (shownState, error) {
	if s, ok := h.parsed[i]; ok {
		return s, nil
	}
	data, err := h.tl.Data(i)
	if err != nil {
		return shownState{}, err
	}
	doc, err := statefile.Parse(data)
	if err != nil {
		return shownState{}, fmt.Errorf("version %d does not parse: %w", i+1, err)
	}
	s := shownState{doc: doc, facts: model.Derive(doc.State)}
	h.parsed[i] = s
	h.order = append(h.order, i)
	// Two: the version on screen and the one before it (what changed); a
	// parsed 10,000-atom file takes some 30 MB.
	if len(h.order) > 2 {
		delete(h.parsed, h.order[0])
		h.order = h.order[1:]
	}
	return s, nil
}

// forgetParsed lets go of the parsed versions: the one on screen is live
// again, held by the loop itself.
func (h *timeline) forgetParsed() {
	clear(h.parsed)
	h.order = nil
}

// seek shows version i of l's timeline (the past), or live when i is
// past the newest version (unless replaying).
func (m *Model) seek(l *loop, i int) tea.Cmd {
	h := m.hist(l)
	n := h.tl.Len()
	if n == 0 {
		m.report(l, kit.Info, "no versions yet: the timeline starts with the first state read")
		return nil
	}
	i = min(max(i, h.tl.First()), n-1)
	if i == n-1 && !h.inPast() && h.replay == nil {
		return nil // already live, and live is the newest version
	}
	s, err := m.parsedVersion(h, i)
	if err != nil {
		m.report(l, kit.Error, err.Error())
		return nil
	}
	if !h.inPast() && h.replay == nil {
		h.saved = shownState{doc: l.doc, facts: l.facts}
		h.pending = nil
	}
	h.idx = i
	return m.show(l, s)
}

// toLive leaves the past: the newest live state goes back on screen (in a
// replay, the last version).
func (m *Model) toLive(l *loop) tea.Cmd {
	h := l.hist
	h.playing = false
	h.gen++
	if h.replay != nil {
		s, err := m.parsedVersion(h, h.tl.Len()-1)
		h.idx = -1
		if err != nil {
			return nil
		}
		return m.show(l, s)
	}
	h.idx = -1
	h.forgetParsed()
	s := h.saved
	if h.pending != nil {
		s = shownState{doc: h.pending.Doc, facts: h.pending.Facts}
		h.pending = nil
	}
	h.saved = shownState{}
	m.report(l, kit.Info, "live")
	return m.show(l, s)
}

// changedShown is when the version on screen was written: the live file's
// last change, or in the past (and in a replay) that version's own time.
func changedShown(l *loop) time.Time {
	if h := l.hist; h != nil && (h.inPast() || h.replay != nil) && h.tl.Len() > 0 {
		return h.tl.Time(h.current())
	}
	return l.changed
}

// current is the index of the version on screen.
func (h *timeline) current() int {
	if h.idx >= 0 {
		return h.idx
	}
	return h.tl.Len() - 1
}

// timelineKey steps through l's versions (the timeline keys of
// keyTable; versionsWhy has checked there are versions).
func (m *Model) timelineKey(l *loop, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	m.recordQueued(l)
	h := l.hist
	switch {
	case key.Matches(msg, k.OlderVersion):
		m.stopPlay(h)
		if h.current() <= h.tl.First() {
			m.setStatus("this is the oldest version", statusShort)
			return nil
		}
		return m.seek(l, h.current()-1)
	case key.Matches(msg, k.NewerVersion):
		m.stopPlay(h)
		return m.stepNewer(l)
	case key.Matches(msg, k.PrevChange), key.Matches(msg, k.NextChange):
		m.stopPlay(h)
		dir := 1
		if key.Matches(msg, k.PrevChange) {
			dir = -1
		}
		i, ok := h.tl.Next(h.current(), dir, history.Structural)
		if !ok {
			m.setStatus("no change of atoms, status, corrections or OR choices that way", statusShort)
			return nil
		}
		if i == h.tl.Len()-1 && h.replay == nil && h.inPast() {
			return m.toLive(l)
		}
		return m.seek(l, i)
	case key.Matches(msg, k.WhatChanged):
		m.openWhatChanged(l)
	case key.Matches(msg, k.Play):
		return m.togglePlay(l)
	case key.Matches(msg, k.Faster), key.Matches(msg, k.Slower):
		m.changeSpeed(h, key.Matches(msg, k.Faster))
	}
	return nil
}

// stepNewer shows the next version; from the newest it returns to live.
func (m *Model) stepNewer(l *loop) tea.Cmd {
	h := l.hist
	if !h.inPast() {
		m.report(l, kit.Info, "live: this is the newest version")
		return nil
	}
	if h.idx+1 >= h.tl.Len()-1 && h.replay == nil {
		return m.toLive(l)
	}
	if h.idx+1 >= h.tl.Len() {
		m.report(l, kit.Info, "this is the last version")
		return nil
	}
	return m.seek(l, h.idx+1)
}

func (m *Model) stopPlay(h *timeline) {
	if h.playing {
		h.playing = false
		h.gen++
	}
}

// togglePlay plays the timeline forward from the version on screen (from
// the first one when live), or pauses it.
func (m *Model) togglePlay(l *loop) tea.Cmd {
	h := l.hist
	if h.playing {
		m.stopPlay(h)
		m.report(l, kit.Info, "paused")
		return nil
	}
	var cmd tea.Cmd
	if !h.inPast() {
		cmd = m.seek(l, h.tl.First())
	} else if h.idx >= h.tl.Len()-1 {
		cmd = m.seek(l, h.tl.First()) // at the end: from the start again
	}
	h.playing = true
	h.gen++
	return tea.Batch(cmd, m.playTick(l))
}

// playTick waits the recorded time to the next version, divided by the
// speed (at least 20 ms, at most 2 s).
func (m *Model) playTick(l *loop) tea.Cmd {
	h := l.hist
	i := h.current()
	gap := h.tl.Time(i + 1).Sub(h.tl.Time(i))
	d := time.Duration(float64(gap) / h.speed)
	d = min(max(d, 20*time.Millisecond), 2*time.Second)
	gen := h.gen
	return l.send(tea.Tick(d, func(time.Time) tea.Msg { return playMsg{gen: gen} }))
}

// onPlay steps a playing timeline forward.
func (m *Model) onPlay(l *loop, msg playMsg) tea.Cmd {
	if l.hist == nil || !l.hist.playing || l.hist.gen != msg.gen {
		return nil
	}
	h := l.hist
	m.recordQueued(l) // a version still queued is played, not skipped
	last := h.tl.Len() - 1
	if h.idx+1 >= last {
		h.playing = false
		if h.replay == nil {
			return m.toLive(l)
		}
		cmd := m.seek(l, last)
		m.report(l, kit.Info, "end of the recording")
		return cmd
	}
	return tea.Batch(m.seek(l, h.idx+1), m.playTick(l))
}

func (m *Model) changeSpeed(h *timeline, faster bool) {
	i := 0
	for i < len(playSpeeds)-1 && playSpeeds[i] < h.speed {
		i++
	}
	if faster {
		i = min(i+1, len(playSpeeds)-1)
	} else {
		i = max(i-1, 0)
	}
	h.speed = playSpeeds[i]
	m.setStatus("play speed "+speedText(h.speed), statusShort)
}

func speedText(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%g×", s)
	}
	return fmt.Sprintf("%d×", int(s))
}

// timelineBanner is the line under the header while the past is on
// screen: which version, when, and the keys.
func (m *Model) timelineBanner(l *loop) string {
	h := l.hist
	if h == nil || (!h.inPast() && h.replay == nil) {
		return ""
	}
	k := m.keys
	i := h.current()
	when := versionTime(h.tl.Time(i), m.now)
	state := "the past, read-only"
	if h.replay != nil {
		state = "replay"
		if h.replay.Source != "" {
			state += " of " + h.replay.Source
		}
	}
	play := k.Play.Help().Key + " play"
	if h.playing {
		state = "▶ playing " + speedText(h.speed)
		play = fmt.Sprintf("%s pause · %s/%s speed", k.Play.Help().Key, k.Faster.Help().Key, k.Slower.Help().Key)
	}
	live := k.Back.Help().Key + " live"
	if h.replay != nil {
		live = k.Back.Help().Key + " last"
	}
	// As many of the hints as fit on one line, the way back first.
	line := fmt.Sprintf("◷ version %d of %d, %s — %s", i+1, h.tl.Len(), when, state)
	if lipgloss.Width(line) > m.width-1 && h.replay != nil && !h.playing {
		line = fmt.Sprintf("◷ version %d of %d, %s — replay", i+1, h.tl.Len(), when)
	}
	for _, hint := range []string{live, k.OlderVersion.Help().Key + "/" + k.NewerVersion.Help().Key + " step",
		k.PrevChange.Help().Key + "/" + k.NextChange.Help().Key + " changes", k.WhatChanged.Help().Key + " what changed", play} {
		if next := line + " · " + hint; lipgloss.Width(next) <= m.width-1 || m.width <= 0 {
			line = next
		}
	}
	return line
}

// versionTime is "14:02:31", with the date when it is not today's.
func versionTime(t, now time.Time) string {
	if t.IsZero() {
		return "time unknown"
	}
	t = t.Local()
	if y, mo, d := t.Date(); now.IsZero() || y != now.Local().Year() || mo != now.Local().Month() || d != now.Local().Day() {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// initReplay starts the TUI on recorded versions: the first on screen.
func (m *Model) initReplay() tea.Cmd {
	r := m.opts.Replay
	l := m.cur
	h := m.hist(l)
	h.tl, h.replay = r.Timeline, r
	if r.Speed > 0 {
		h.speed = r.Speed
	}
	for _, n := range r.Notes {
		m.logMessage(m.logName(l), kit.Warn, n)
	}
	cmds := []tea.Cmd{tick(), tea.RequestBackgroundColor}
	if h.tl.Len() == 0 {
		l.banner = "nothing to replay: no versions"
		return tea.Batch(cmds...)
	}
	cmds = append(cmds, m.seek(l, h.tl.First()))
	if len(r.Notes) > 0 {
		m.post(l, kit.Status{Text: fmt.Sprintf("%d note%s about the recording: %s shows them", len(r.Notes), plural(len(r.Notes)), m.keys.Messages.Help().Key),
			Level: kit.Warn})
	}
	if r.Play {
		h.playing = true
		h.gen++
		cmds = append(cmds, m.playTick(l))
	}
	return tea.Batch(cmds...)
}

// closeHistory writes what the journals have queued and closes them.
func (m *Model) closeHistory(l *loop) {
	m.recordQueued(l)
	if l.hist != nil && l.hist.rec != nil {
		l.hist.rec.Close()
	}
}
