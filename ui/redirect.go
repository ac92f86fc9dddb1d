package ui

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/termtext"
	"github.com/charmbracelet/x/ansi"
)

// dialogKind is what the redirect dialog shows.
type dialogKind int

const (
	dlgNone      dialogKind = iota
	dlgMenu                 // the redirect menu (r)
	dlgForm                 // a correction's form
	dlgPreview              // the diff, with apply / edit / cancel
	dlgBusy                 // writing
	dlgStaleFlag            // a redirect_requested left behind: clear it?
)

// redirectState is the redirect half of the TUI: the open dialog, the
// handshake flag, the preview and the undo entry.
type redirectState struct {
	dlg        dialogKind
	kind       string
	menu       *huh.Form
	menuChoice string
	form       *huh.Form
	values     *formValues
	// flagOurs is true while redirect_requested was set by this session.
	flagOurs bool
	// moved is true when the loop wrote the file while the dialog was open.
	moved bool
	// refusal is why the last plan was refused (shown under the form).
	refusal string
	preview *preview
	diff    scrollText
	undo    *undoEntry
	// ours are the last contents this session wrote, to tell our own
	// writes from the loop's.
	ours [][]byte
	// applied maps a correction (timestamp + type) to the iteration it was
	// applied at, for "loop has run N iterations since".
	applied map[string]int
	// staleOffered is set once the stale-flag offer was made.
	staleOffered bool
	// flagPending counts handshake writes in flight; an apply asked for
	// meanwhile waits for them (applyQueued).
	flagPending int
	applyQueued bool
	// flag orders this session's writes of redirect_requested; it exists
	// once the session has written the flag (see touchedFlag).
	flag *flagWriter
}

// touchedFlag reports whether this session has written the flag itself:
// after that a true flag is ours (seen late through the watcher) or
// someone's live /redirect, never a leftover to offer clearing.
func (r *redirectState) touchedFlag() bool { return r.flag != nil }

// flagWriter orders the handshake writes of one loop. Each write runs on a
// goroutine of its own (a tea.Cmd), so two of them — a form opened and
// cancelled at once — could land in either order and leave the flag set,
// pausing the loop. Instead every write takes the lock and writes the
// value wanted *then*: whichever runs last writes the last value asked for.
type flagWriter struct {
	mu   sync.Mutex
	want atomic.Bool
}

// write sets redirect_requested to the latest wanted value.
func (fw *flagWriter) write(path string, size int64) flagMsg {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return setFlag(path, size, fw.want.Load())
}

type preview struct {
	base, after []byte
	plan        *model.Plan
	diff        string
	replanned   bool
}

type undoEntry struct {
	wrote, restore []byte
	summary        string
}

// Messages of the redirect flow (results of I/O commands).
type (
	flagMsg struct {
		idx  int
		set  bool
		data []byte
		err  error
	}
	previewMsg struct {
		idx int
		p   *preview
		err error
	}
	appliedMsg struct {
		idx     int
		res     *statefile.UpdateResult
		plan    *model.Plan
		restore []byte
		err     error
	}
	undoneMsg struct {
		idx      int
		restored []byte
		err      error
	}
)

func (r *redirectState) remember(data []byte) {
	if data == nil {
		return
	}
	r.ours = append(r.ours, data)
	if len(r.ours) > 6 {
		r.ours = r.ours[len(r.ours)-6:]
	}
}

func (r *redirectState) isOurs(data []byte) bool { return isOneOf(data, r.ours) }

func isOneOf(data []byte, set [][]byte) bool {
	for _, d := range set {
		if bytes.Equal(d, data) {
			return true
		}
	}
	return false
}

// correctionKey identifies a correction entry across reloads.
func correctionKey(c model.Correction) string {
	return c.Timestamp + "|" + string(c.Type) + "|" + c.Description
}

// planFunc plans req on each document Update reads and, when clearFlag,
// sets redirect_requested back to false in the same write.
func planFunc(req model.Request, note string, now time.Time, clearFlag bool, out **model.Plan) statefile.PlanFunc {
	return func(doc *statefile.Document) ([]model.Edit, error) {
		var edits []model.Edit
		if req != nil {
			p, err := model.PlanCorrection(doc.State, req, model.PlanContext{Now: now, Note: note})
			if err != nil {
				return nil, err
			}
			*out = p
			edits = append(edits, p.Edits...)
		}
		if clearFlag {
			f, err := flagEdits(doc.State, false)
			if err == nil {
				edits = append(edits, f...)
			}
		}
		return edits, nil
	}
}

func (m *Model) path() string { return m.target.Path }

// setFlagCmd writes redirect_requested (the /redirect handshake).
func (m *Model) setFlagCmd(v bool) tea.Cmd {
	r := &m.redirect
	r.flagPending++
	fw := r.flagWriter()
	fw.want.Store(v)
	path, size, idx := m.path(), m.opts.Watch.MaxSize, m.loop.idx
	return func() tea.Msg {
		msg := fw.write(path, size)
		msg.idx = idx
		return msg
	}
}

func (r *redirectState) flagWriter() *flagWriter {
	if r.flag == nil {
		r.flag = &flagWriter{}
	}
	return r.flag
}

// flagEdits are the edits that set redirect_requested to v in st (none
// when it already is v).
func flagEdits(st *model.State, v bool) ([]model.Edit, error) {
	p, err := model.PlanCorrection(st, model.SetRedirect{Requested: v}, model.PlanContext{})
	var ref *model.Refusal
	if errors.As(err, &ref) && ref.Rule == model.RuleNoChange {
		return nil, nil // already as wanted
	}
	if err != nil {
		return nil, err
	}
	return p.Edits, nil
}

func setFlag(path string, size int64, v bool) flagMsg {
	res, err := statefile.Update(path, statefile.UpdateOptions{MaxSize: size}, func(doc *statefile.Document) ([]model.Edit, error) {
		return flagEdits(doc.State, v)
	})
	msg := flagMsg{set: v, err: err}
	if res != nil && res.Wrote {
		msg.data = res.After
	}
	return msg
}

// menuCancel is the menu's cancel entry; an empty value would make huh
// start the cursor on it.
const menuCancel = "cancel"

// menuKeys are the letters the menu shows beside its entries: each opens
// its form at once, as it does from the graph.
var menuKeys = map[string]string{
	"a": formAddAtom, "d": formDeleteAtom, "o": formForceOR, "c": formConstraints,
	"e": formObjective, "b": formBinding, "S": formStop,
}

// openMenu shows the redirect menu.
func (m *Model) openMenu() tea.Cmd {
	if cmd, ok := m.canRedirect(); !ok {
		return cmd
	}
	r := &m.redirect
	r.menuChoice = ""
	r.menu = huh.NewForm(huh.NewGroup(huh.NewSelect[string]().Title("Redirect the loop").
		Description("the loop pauses while a form is open").
		Options(
			huh.NewOption("a  add an atom", formAddAtom),
			huh.NewOption("d  delete an atom", formDeleteAtom),
			huh.NewOption("o  force an OR choice", formForceOR),
			huh.NewOption("c  change constraints", formConstraints),
			huh.NewOption("e  change the objective", formObjective),
			huh.NewOption("b  override a binding", formBinding),
			huh.NewOption("S  stop the loop", formStop),
			huh.NewOption("   cancel", menuCancel),
		).Height(10).Value(&r.menuChoice))).WithShowHelp(false).WithTheme(m.formTheme()) // title, description, 8 entries
	r.dlg = dlgMenu
	r.menu.WithWidth(m.menuWidth() - 4).WithHeight(m.menuHeight())
	return r.menu.Init()
}

// canRedirect says whether a redirect can start now.
func (m *Model) canRedirect() (tea.Cmd, bool) {
	switch {
	case m.readOnly:
		m.setStatus("read-only ("+m.readOnlyWhy+"): corrections are disabled", statusShort)
		return nil, false
	case m.st == nil:
		m.setStatus("no state to correct yet", statusShort)
		return nil, false
	case m.banner != "":
		m.setStatus("the file is not readable right now; corrections wait until it is", statusShort)
		return nil, false
	}
	return nil, true
}

// openForm opens the form of a correction kind and sets the handshake flag.
func (m *Model) openForm(kind string, values *formValues) tea.Cmd {
	if cmd, ok := m.canRedirect(); !ok {
		return cmd
	}
	st, f := m.st, m.facts
	switch {
	case kind == formForceOR && len(st.ORGroups) == 0:
		m.setStatus("this loop has no OR groups", statusShort)
		return nil
	case kind == formBinding && f.Counts.Resolved == 0:
		m.setStatus("no resolved atom has a binding to override yet", statusShort)
		return nil
	case kind == formDeleteAtom && f.Counts.Unresolved() == 0:
		m.setStatus("every atom is resolved; nothing can be deleted", statusShort)
		return nil
	case kind == formStop && (st.Control.Status == model.LoopStopped || st.Control.Status == model.LoopCompleted):
		m.setStatus("the loop has already ended ("+string(st.Control.Status)+")", statusShort)
		return nil
	}
	r := &m.redirect
	if values == nil {
		values = newFormValues(kind, st, f, m.graph.sel)
		if kind == formDeleteAtom || kind == formBinding {
			// d and b act on the selected atom.
			a, ok := st.Atom(m.graph.sel)
			switch {
			case !ok:
				m.setStatus("select an atom first", statusShort)
				return nil
			case kind == formDeleteAtom && a.Status == model.StatusResolved:
				m.setStatus(a.ID+" is resolved: resolved work is not deleted (b → redo undoes it)", statusLong)
				return nil
			case kind == formBinding && a.Status != model.StatusResolved:
				m.setStatus(a.ID+" is "+string(a.Status)+": only a resolved atom's binding can be overridden", statusLong)
				return nil
			}
			values.ID = a.ID
		}
	}
	r.kind, r.values = kind, values
	m.status = "" // a refusal from the menu or the graph is not about this form
	r.form = buildForm(kind, values, func() *model.State { return m.st }, m.dialogWidth()-4, m.bodyHeight()-5).WithTheme(m.formTheme())
	r.form.WithWidth(m.dialogWidth() - 4).WithHeight(m.formHeight())
	r.dlg = dlgForm
	cmds := []tea.Cmd{r.form.Init()}
	// While one of our flag writes is in flight the file is about to hold
	// what we last asked for, whatever the watcher last reported (a cancel
	// still clearing the flag must not read as a flag already set).
	flagged := m.st.Control.RedirectRequested
	if r.flagPending > 0 && r.flag != nil {
		flagged = r.flag.want.Load()
	}
	if !r.flagOurs && !flagged {
		r.flagOurs = true
		cmds = append(cmds, m.setFlagCmd(true))
	}
	// A flag already set by someone else (or left set when the person
	// answered "leave it") stays theirs: cancel, apply and undo leave it as
	// they found it.
	return tea.Batch(cmds...)
}

// menuWidth is the redirect menu's: its entries are short.
func (m *Model) menuWidth() int { return min(m.dialogWidth(), 48) }

// menuHeight fits the menu's ten rows where the body allows, else what it
// allows (huh then scrolls to the cursor).
func (m *Model) menuHeight() int { return min(m.formHeight(), 10) }

// formHeight is what a form may use of the body: all but the dialog's
// frame, its closing hint and room for a warning or a refusal, so that huh
// scrolls to the focused field rather than the box cutting it off.
func (m *Model) formHeight() int {
	h := m.bodyHeight() - 3
	if m.redirect.refusal != "" || m.redirect.moved {
		h -= 2
	}
	return max(3, h)
}

// dialogWidth is 90 columns, less in narrower panes (never wider than the
// pane: under 34 columns the dialog takes all of it).
func (m *Model) dialogWidth() int {
	if w := min(m.width-4, 90); w >= 30 {
		return w
	}
	return max(10, min(m.width, 30))
}

func (m *Model) formTheme() huh.Theme {
	if m.opts.NoColor {
		// The base theme tells the chosen button only by its colours:
		// without them, bracket it.
		return huh.ThemeFunc(func(isDark bool) *huh.Styles {
			t := huh.ThemeBase(isDark)
			t.Focused.FocusedButton = t.Focused.FocusedButton.Transform(func(s string) string { return "[" + s + "]" })
			t.Focused.BlurredButton = t.Focused.BlurredButton.Transform(func(s string) string { return " " + s + " " })
			t.Blurred.FocusedButton, t.Blurred.BlurredButton = t.Focused.FocusedButton, t.Focused.BlurredButton
			return t
		})
	}
	return huh.ThemeFunc(huh.ThemeCharm)
}

// closeDialog ends the redirect; clearing the flag when we set it.
func (m *Model) closeDialog(clear bool) tea.Cmd {
	r := &m.redirect
	r.dlg, r.form, r.menu, r.preview, r.refusal, r.moved = dlgNone, nil, nil, nil, "", false
	r.applyQueued = false
	if clear && r.flagOurs {
		r.flagOurs = false
		return m.setFlagCmd(false)
	}
	return nil
}

// onDialogKey routes a key press to the open dialog.
func (m *Model) onDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	r := &m.redirect
	switch r.dlg {
	case dlgStaleFlag:
		switch msg.String() {
		case "q", "ctrl+c":
			return m.quit()
		case "y", "Y":
			r.dlg = dlgNone
			m.setStatus("clearing redirect_requested", statusShort)
			return m.setFlagCmd(false)
		case "n", "N", "esc", "enter":
			r.dlg = dlgNone
			m.setStatus("redirect_requested left as it is", statusShort)
		}
		return nil
	case dlgBusy:
		return nil
	case dlgPreview:
		switch msg.String() {
		case "enter", "y", "a":
			return m.apply()
		case "e":
			return m.openForm(r.kind, r.values)
		case "esc", "n", "c", "q":
			m.setStatus("correction cancelled; nothing was written", statusShort)
			return m.closeDialog(true)
		}
		textKeys(&r.diff, msg, m.keys)
		return nil
	case dlgMenu:
		if msg.String() == "esc" {
			return m.closeDialog(false)
		}
		if kind, ok := menuKeys[msg.String()]; ok {
			return m.openForm(kind, nil)
		}
		var cmd tea.Cmd
		fm, cmd := r.menu.Update(msg)
		r.menu = fm.(*huh.Form)
		return tea.Batch(cmd, m.afterMenu())
	case dlgForm:
		if msg.String() == "esc" {
			m.setStatus("correction cancelled; nothing was written", statusShort)
			return m.closeDialog(true)
		}
		fm, cmd := r.form.Update(msg)
		r.form = fm.(*huh.Form)
		return tea.Batch(cmd, m.afterForm())
	}
	return nil
}

// onDialogMsg forwards non-key messages (huh's own) to an open form.
func (m *Model) onDialogMsg(msg tea.Msg) tea.Cmd {
	r := &m.redirect
	switch r.dlg {
	case dlgMenu:
		fm, cmd := r.menu.Update(msg)
		r.menu = fm.(*huh.Form)
		return tea.Batch(cmd, m.afterMenu())
	case dlgForm:
		fm, cmd := r.form.Update(msg)
		r.form = fm.(*huh.Form)
		return tea.Batch(cmd, m.afterForm())
	}
	return nil
}

func (m *Model) afterMenu() tea.Cmd {
	r := &m.redirect
	switch r.menu.State {
	case huh.StateCompleted:
		if r.menuChoice == "" || r.menuChoice == menuCancel {
			return m.closeDialog(false)
		}
		return m.openForm(r.menuChoice, nil)
	case huh.StateAborted:
		return m.closeDialog(false)
	}
	return nil
}

// afterForm turns a completed form into a preview (or a refusal to fix).
func (m *Model) afterForm() tea.Cmd {
	r := &m.redirect
	switch r.form.State {
	case huh.StateAborted:
		m.setStatus("correction cancelled; nothing was written", statusShort)
		return m.closeDialog(true)
	case huh.StateCompleted:
	default:
		return nil
	}
	req, err := r.values.request(r.kind)
	if err == nil {
		_, err = model.PlanCorrection(m.st, req, model.PlanContext{Now: m.opts.Now()})
	}
	if err != nil {
		r.refusal = err.Error()
		cmd := m.openForm(r.kind, r.values)
		r.refusal = err.Error()
		return cmd
	}
	r.refusal = ""
	r.dlg = dlgBusy
	return m.previewCmd(req, r.values.Note, false)
}

// previewCmd plans the correction on the file as it is now and diffs it.
func (m *Model) previewCmd(req model.Request, note string, replanned bool) tea.Cmd {
	path, size, now, idx, clearFlag := m.path(), m.opts.Watch.MaxSize, m.opts.Now(), m.loop.idx, m.redirect.flagOurs
	return func() tea.Msg {
		var plan *model.Plan
		res, err := statefile.Update(path, statefile.UpdateOptions{MaxSize: size, DryRun: true}, planFunc(req, note, now, clearFlag, &plan))
		if err != nil {
			return previewMsg{idx: idx, err: err}
		}
		return previewMsg{idx: idx, p: &preview{base: res.Before, after: res.After, plan: plan,
			diff: statefile.UnifiedDiff(path, res.Before, res.After), replanned: replanned}}
	}
}

// apply writes the previewed correction, only onto the bytes it was
// planned on: if the loop wrote meanwhile, the correction is re-planned and
// shown again instead of being written from a stale read.
func (m *Model) apply() tea.Cmd {
	r := &m.redirect
	p := r.preview
	req, err := r.values.request(r.kind)
	if err != nil || p == nil {
		return nil
	}
	if r.flagPending > 0 {
		r.applyQueued = true
		return nil
	}
	r.dlg = dlgBusy
	path, size, now, note, idx := m.path(), m.opts.Watch.MaxSize, m.opts.Now(), r.values.Note, m.loop.idx
	clearFlag := r.flagOurs
	base := p.base
	ours := append([][]byte(nil), r.ours...)
	return func() tea.Msg {
		var plan *model.Plan
		res, err := statefile.Update(path, statefile.UpdateOptions{MaxSize: size, Expect: base}, planFunc(req, note, now, clearFlag, &plan))
		if errors.Is(err, statefile.ErrStale) {
			// Our own handshake write landing after the preview is not the
			// loop moving on: plan again on it and write.
			if cur, rerr := statefile.ReadFile(path, size); rerr == nil && isOneOf(cur, ours) {
				res, err = statefile.Update(path, statefile.UpdateOptions{MaxSize: size, Expect: cur}, planFunc(req, note, now, clearFlag, &plan))
			}
		}
		if errors.Is(err, statefile.ErrStale) {
			var plan2 *model.Plan
			res2, err2 := statefile.Update(path, statefile.UpdateOptions{MaxSize: size, DryRun: true}, planFunc(req, note, now, clearFlag, &plan2))
			if err2 != nil {
				return previewMsg{idx: idx, err: err2}
			}
			return previewMsg{idx: idx, p: &preview{base: res2.Before, after: res2.After, plan: plan2,
				diff: statefile.UnifiedDiff(path, res2.Before, res2.After), replanned: true}}
		}
		if err != nil {
			return appliedMsg{idx: idx, err: err}
		}
		// Undo restores the file as it was before the form opened: the
		// bytes we planned on, with our handshake flag cleared again.
		restore := res.Before
		if clearFlag && res.Doc != nil {
			if edits, ferr := flagEdits(res.Doc.State, false); ferr == nil && edits != nil {
				if out, aerr := statefile.ApplyEdits(res.Doc, edits); aerr == nil {
					restore = out
				}
			}
		}
		return appliedMsg{idx: idx, res: res, plan: plan, restore: restore}
	}
}

// undo restores the bytes from before the last correction of this
// session, only while the file is still exactly what we wrote.
func (m *Model) undoCmd() tea.Cmd {
	r := &m.redirect
	if m.readOnly {
		m.setStatus("read-only ("+m.readOnlyWhy+"): corrections are disabled", statusShort)
		return nil
	}
	if r.undo == nil {
		m.setStatus("nothing to undo: no correction was applied from this session", statusShort)
		return nil
	}
	u := *r.undo
	path, size, idx := m.path(), m.opts.Watch.MaxSize, m.loop.idx
	return func() tea.Msg {
		err := statefile.Restore(path, u.wrote, u.restore, size)
		return undoneMsg{idx: idx, restored: u.restore, err: err}
	}
}

// onRedirectMsg handles the results of the redirect commands, each on the
// loop it is about.
func (m *Model) onRedirectMsg(msg tea.Msg) (cmd tea.Cmd, handled bool) {
	idx := -1
	switch x := msg.(type) {
	case flagMsg:
		idx = x.idx
	case previewMsg:
		idx = x.idx
	case appliedMsg:
		idx = x.idx
	case undoneMsg:
		idx = x.idx
	default:
		return nil, false
	}
	m.withLoop(idx, func() { cmd, handled = m.onRedirectLoopMsg(msg) })
	return cmd, true
}

func (m *Model) onRedirectLoopMsg(msg tea.Msg) (tea.Cmd, bool) {
	r := &m.redirect
	switch msg := msg.(type) {
	case flagMsg:
		r.flagPending--
		r.remember(msg.data)
		if msg.err != nil {
			m.setStatus("could not write redirect_requested: "+termtext.Line(msg.err.Error()), statusLong)
			if msg.set {
				r.flagOurs = false
			}
		}
		if r.applyQueued && r.flagPending == 0 && r.dlg == dlgPreview {
			r.applyQueued = false
			return m.apply(), true
		}
		return nil, true
	case previewMsg:
		if msg.err != nil {
			var ref *model.Refusal
			if errors.As(msg.err, &ref) {
				r.refusal = "no longer possible: " + ref.Reason
				cmd := m.openForm(r.kind, r.values)
				r.refusal = "no longer possible: " + ref.Reason
				return cmd, true
			}
			r.dlg = dlgForm
			r.refusal = termtext.Line(msg.err.Error())
			return m.openForm(r.kind, r.values), true
		}
		r.preview = msg.p
		r.moved = false
		r.dlg = dlgPreview
		r.diff = scrollText{width: m.dialogWidth() - 4, height: max(3, m.bodyHeight()-8)}
		r.diff.set(m.colorDiff(msg.p.diff, r.diff.width))
		return nil, true
	case appliedMsg:
		if msg.err != nil {
			r.dlg = dlgPreview
			m.setStatus("not written: "+termtext.Line(msg.err.Error()), statusLong)
			if errors.Is(msg.err, statefile.ErrConflict) {
				m.setStatus("not written: the loop kept writing the file; press enter to try again or esc to cancel", statusLong)
			}
			return nil, true
		}
		res := msg.res
		r.remember(res.After)
		r.undo = &undoEntry{wrote: res.After, restore: msg.restore, summary: msg.plan.Summary}
		r.flagOurs = false
		if c := msg.plan.Correction; c != nil {
			if r.applied == nil {
				r.applied = map[string]int{}
			}
			r.applied[correctionKey(*c)] = m.st.Control.Iteration
			m.setStatus(fmt.Sprintf("%s: %s — recorded in corrections", c.Type, termtext.Line(msg.plan.Summary)), statusLong)
		} else {
			m.setStatus(termtext.Line(msg.plan.Summary)+" — written", statusLong)
		}
		r.dlg, r.form, r.preview = dlgNone, nil, nil
		// Show the result at once; the watcher will confirm it.
		cmd := m.onState(statefile.Event{Kind: statefile.EventLoaded, Target: m.target, Data: res.After,
			Doc: res.NewDoc, Facts: model.Derive(res.NewDoc.State), At: m.opts.Now()})
		return cmd, true
	case undoneMsg:
		if msg.err != nil {
			if errors.Is(msg.err, statefile.ErrStale) {
				m.setStatus("cannot undo: the file changed since aot-tui wrote it (the loop picked it up); correct it again instead", statusLong)
			} else {
				m.setStatus("undo failed: "+termtext.Line(msg.err.Error()), statusLong)
			}
			return nil, true
		}
		m.setStatus("undone: "+termtext.Line(r.undo.summary)+" — the file is back as it was", statusLong)
		r.remember(msg.restored)
		r.undo = nil
		if doc, err := statefile.Parse(msg.restored); err == nil {
			return m.onState(statefile.Event{Kind: statefile.EventLoaded, Target: m.target, Data: msg.restored,
				Doc: doc, Facts: model.Derive(doc.State), At: m.opts.Now()}), true
		}
		return nil, true
	}
	return nil, false
}

// colorDiff colours a unified diff and wraps lines wider than width: a
// continuation starts with the line's own +/- and ↪, so nothing the
// correction writes is hidden past the dialog's edge.
func (m *Model) colorDiff(d string, width int) []string {
	s := m.styles
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		l = termtext.Line(l)
		st := s.Muted
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			st = s.Bold
		case strings.HasPrefix(l, "@@"):
			st = s.Accent
		case strings.HasPrefix(l, "+"):
			st = s.OK
		case strings.HasPrefix(l, "-"):
			st = s.Danger
		}
		if width < 8 || ansi.StringWidth(l) <= width {
			out = append(out, st.Render(l))
			continue
		}
		mark := " "
		if l != "" && (l[0] == '+' || l[0] == '-') {
			mark = l[:1]
		}
		for i, part := range strings.Split(ansi.Hardwrap(l, width-2, false), "\n") {
			if i > 0 {
				part = mark + "↪" + part
			}
			out = append(out, st.Render(part))
		}
	}
	return out
}

// renderDialog draws the open dialog in the body area.
func (m *Model) renderDialog(h int) []string {
	r := &m.redirect
	s := m.styles
	w := m.dialogWidth()
	if r.dlg == dlgMenu {
		w = m.menuWidth()
	}
	var lines []string
	title := ""
	switch r.dlg {
	case dlgMenu:
		title = "redirect"
		lines = collapseBlankRuns(strings.Split(r.menu.View(), "\n"))
		lines = append(lines, "", s.Muted.Render("enter choose · esc close"))
	case dlgForm:
		title = formTitles[r.kind]
		if r.moved {
			for _, l := range wrap("⚠ the loop wrote the file: the correction will be planned on the new state", w-4) {
				lines = append(lines, s.Warn.Render(l))
			}
		}
		if r.refusal != "" {
			for _, l := range wrap("✗ "+r.refusal, w-4) {
				lines = append(lines, s.Danger.Render(l))
			}
		}
		lines = append(lines, collapseBlankRuns(strings.Split(r.form.View(), "\n"))...)
		lines = append(lines, s.Muted.Render("esc cancels · nothing is written before the preview"))
	case dlgPreview:
		title = "preview: " + formTitles[r.kind]
		p := r.preview
		note := ""
		switch {
		case p.replanned:
			note = "⚠ the loop wrote the file meanwhile: this is the correction re-planned on the new state"
		case r.moved:
			note = "⚠ the loop wrote the file since this preview: apply re-plans it on the new state first"
		}
		if note != "" {
			for _, l := range wrap(note, w-4) {
				lines = append(lines, s.Warn.Render(l))
			}
		}
		if c := p.plan.Correction; c != nil {
			lines = append(lines, s.Bold.Render("corrections[] entry"))
			for _, l := range wrap(fmt.Sprintf("%s · trail_cleared: %v · %s", c.Type, c.TrailCleared, c.Description), w-6) {
				lines = append(lines, "  "+l)
			}
		} else {
			lines = append(lines, s.Bold.Render(termtext.Line(p.plan.Summary))+s.Muted.Render(" (no corrections[] entry)"))
		}
		if r.flagOurs && bytes.Contains(p.after, []byte("redirect_requested: false")) && !bytes.Equal(p.base, p.after) {
			lines = append(lines, s.Muted.Render("  and redirect_requested back to false: the loop resumes"))
		}
		lines = append(lines, "")
		d := r.diff
		d.height = max(3, h-2-len(lines)-2)
		d.clamp()
		lines = append(lines, strings.Split(d.view(), "\n")...)
		hint := "enter apply · e edit · esc cancel"
		if sh := d.scrollHint(); sh != "" {
			hint += " · j/k scroll (" + sh + ")"
		}
		lines = append(lines, "", s.Key.Render(hint))
	case dlgBusy:
		title = "redirect"
		lines = append(lines, s.Muted.Render("working…"))
	case dlgStaleFlag:
		title = "redirect_requested is set"
		lines = append(lines, wrap("control.redirect_requested is true, but no redirect is open in this aot-tui. It may be left over from an earlier session that ended abruptly, or someone may be running /redirect right now. While it is true the loop's stop hook pauses the loop.", w-4)...)
		lines = append(lines, "", s.Key.Render("y clear it · n leave it (default)"))
	}
	return boxed(lines, title, w, h, s)
}

// collapseBlankRuns keeps one blank line of each run: huh pads a form to
// the height it is given (so that long pages scroll inside the body), which
// left short pages floating in an empty box.
func collapseBlankRuns(lines []string) []string {
	out := lines[:0:0]
	for i, l := range lines {
		if strings.TrimSpace(ansi.Strip(l)) == "" && i > 0 && strings.TrimSpace(ansi.Strip(lines[i-1])) == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// boxed frames lines in a rounded box of width w, at most h lines tall.
func boxed(lines []string, title string, w, h int, s Styles) []string {
	inner := w - 4
	top := "╭─ " + title + " "
	top = ansi.Truncate(top, w-1, "…")
	top += strings.Repeat("─", max0(w-1-ansi.StringWidth(top))) + "╮"
	out := []string{s.Border.Render(top)}
	maxBody := max0(h - 2)
	switch {
	case len(lines) > maxBody && maxBody > 1:
		// Keep the top (titles, warnings) and the last line (the key hint).
		lines = append(append([]string{}, lines[:maxBody-1]...), lines[len(lines)-1])
	case len(lines) > maxBody:
		lines = lines[len(lines)-maxBody:] // a tiny pane: the hint, or only the frame
	}
	for _, l := range lines {
		out = append(out, s.Border.Render("│ ")+padTo(ansi.Truncate(l, inner, "…"), inner)+s.Border.Render(" │"))
	}
	out = append(out, s.Border.Render("╰"+strings.Repeat("─", max0(w-2))+"╯"))
	return out
}

// matchWriteKey maps a write key to its form kind.
func (m *Model) matchWriteKey(msg tea.KeyPressMsg) (string, bool) {
	k := m.keys
	for _, x := range []struct {
		b    key.Binding
		kind string
	}{{k.AddAtom, formAddAtom}, {k.DeleteAtom, formDeleteAtom}, {k.ForceOR, formForceOR}, {k.Constraints, formConstraints},
		{k.Objective, formObjective}, {k.Binding, formBinding}, {k.Stop, formStop}} {
		if key.Matches(msg, x.b) {
			return x.kind, true
		}
	}
	return "", false
}
