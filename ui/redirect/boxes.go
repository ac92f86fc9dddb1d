package redirect

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// menu is the redirect menu (r).
type menu struct {
	form   *huh.Form
	choice string
}

// menuCancel is the menu's cancel entry; an empty value would make huh
// start the cursor on it.
const menuCancel = "cancel"

// newMenu builds the menu of lp's redirect: the kinds lp offers (delete
// and override act on the graph's selection, so they are offered from
// the graph only).
func newMenu(ctx kit.Context, lp Loop) *menu {
	d := &menu{}
	var opts []huh.Option[string]
	for _, k := range kinds {
		if slices.Contains(lp.Offered, k.kind) {
			opts = append(opts, huh.NewOption(cells.Pad(ctx.Keys.Key(k.action).Help().Key, 3)+k.label, k.kind))
		}
	}
	if len(lp.Undoable) > 0 {
		opts = append(opts, huh.NewOption(cells.Pad(ctx.Keys.Key("undo").Help().Key, 3)+"undo a correction…", UndoKind))
	}
	opts = append(opts, huh.NewOption("   cancel", menuCancel))
	d.form = huh.NewForm(huh.NewGroup(huh.NewSelect[string]().Title("Redirect the loop").
		Description("the loop pauses while a form is open").
		Options(opts...).Height(len(opts) + 2).Value(&d.choice))).WithShowHelp(false).WithTheme(theme(ctx.NoColor)) // title, description, the entries
	d.Resize(ctx, lp.PaneW, lp.BodyH)
	return d
}

func (d *menu) Title() string       { return "redirect" }
func (d *menu) Place() Place        { return InMenu }
func (d *menu) Width(paneW int) int { return min(kit.DialogWidth(paneW), 48) }

func (d *menu) Resize(_ kit.Context, paneW, bodyH int) {
	d.form.WithWidth(d.Width(paneW) - 4).WithHeight(min(bodyRoom(bodyH, false), 10))
}

func (d *menu) Draw(ctx kit.Context, _, _ int) []string {
	lines := collapseBlankRuns(splitLines(d.form.View()))
	return append(lines, "", ctx.Styles.Muted.Render("enter choose · esc close"))
}

func (d *menu) Update(ctx kit.Context, lp Loop, msg tea.Msg) Action {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(k, ctx.Keys.Key("back")) {
			return Action{Kind: kit.Close}
		}
		// The letters beside the entries open their form at once, as they
		// do from the graph.
		if kind := KindOfKey(ctx, k); kind != "" {
			return toForm(ctx, lp, kind, nil, "")
		}
		if key.Matches(k, ctx.Keys.Key("undo")) && len(lp.Undoable) > 0 {
			return PickUndo(ctx, lp)
		}
	}
	fm, cmd := d.form.Update(msg)
	d.form = fm.(*huh.Form)
	switch d.form.State {
	case huh.StateCompleted:
		switch d.choice {
		case "", menuCancel:
			return Action{Kind: kit.Close, Cmd: cmd}
		case UndoKind:
			return PickUndo(ctx, lp).with(cmd)
		}
		return toForm(ctx, lp, d.choice, nil, "").with(cmd)
	case huh.StateAborted:
		return Action{Kind: kit.Close, Cmd: cmd}
	}
	return Action{Cmd: cmd}
}

// form is a correction's form.
type form struct {
	kind   string
	values *formValues
	form   *huh.Form
	// st is the state the fields check their values on.
	st *model.State
	// refusal is why the last attempt was refused (shown above the form).
	refusal string
	// moved is set when the loop wrote the file while the form was open.
	moved bool
}

func (d *form) Title() string       { return titles[d.kind] }
func (d *form) Place() Place        { return InForm }
func (d *form) Width(paneW int) int { return kit.DialogWidth(paneW) }

// Kind is the form's correction kind.
func (d *form) Kind() string { return d.kind }

func (d *form) Resize(_ kit.Context, paneW, bodyH int) {
	// Two lines of the room are the keys' (formKeys), wrapped.
	d.form.WithWidth(d.Width(paneW) - 4).WithHeight(max(3, bodyRoom(bodyH, d.refusal != "" || d.moved)-2))
}

// formKeys are the keys of the form's focused field, as huh's help line
// says them ("enter next • shift+tab back"), wrapped to w.
func formKeys(f *huh.Form, w int) []string {
	var parts []string
	for _, b := range f.KeyBinds() {
		if h := b.Help(); b.Enabled() && h.Key != "" {
			parts = append(parts, h.Key+" "+h.Desc)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return cells.Wrap(strings.Join(parts, " • "), w)
}

func (d *form) Draw(ctx kit.Context, w, _ int) []string {
	s := ctx.Styles
	var lines []string
	if d.moved {
		for _, l := range cells.Wrap("⚠ the loop wrote the file: the correction will be planned on the new state", w) {
			lines = append(lines, s.Warn.Render(l))
		}
	}
	if d.refusal != "" {
		for _, l := range cells.Wrap("✗ "+termtext.Line(d.refusal), w) {
			lines = append(lines, s.Danger.Render(l))
		}
	}
	lines = append(lines, collapseBlankRuns(strings.Split(d.form.View(), "\n"))...)
	for _, l := range formKeys(d.form, w) {
		lines = append(lines, s.Muted.Render(l))
	}
	return append(lines, s.Muted.Render("esc cancels · nothing is written before the preview"))
}

func (d *form) Update(ctx kit.Context, lp Loop, msg tea.Msg) Action {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, ctx.Keys.Key("back")) {
		return cancel()
	}
	fm, cmd := d.form.Update(msg)
	d.form = fm.(*huh.Form)
	switch d.form.State {
	case huh.StateAborted:
		return cancel().with(cmd)
	case huh.StateCompleted:
		req, err := d.values.request(d.kind)
		if err != nil {
			// A value the form let through but the request cannot use:
			// back to a fresh form, with the reason.
			return toForm(ctx, lp, d.kind, d.values, err.Error()).with(cmd)
		}
		b := &busy{kind: d.kind, values: d.values, what: "planning the correction…"}
		return Action{Kind: kit.Replace, Next: b, Job: PreviewJob{Request: req, Note: d.values.Note, For: b}, Cmd: cmd}
	}
	return Action{Cmd: cmd}
}

// busy stands while a job reads or writes the file. Every result leads
// out of it (Result); esc leaves at once — what is on its way still
// finishes, and says so in the footer.
type busy struct {
	kind   string
	values *formValues
	what   string
}

func (d *busy) Title() string                { return "redirect" }
func (d *busy) Place() Place                 { return InBusy }
func (d *busy) Width(paneW int) int          { return kit.DialogWidth(paneW) }
func (d *busy) Resize(kit.Context, int, int) {}
func (d *busy) Draw(ctx kit.Context, _, _ int) []string {
	return []string{ctx.Styles.Muted.Render(d.what), "", ctx.Styles.Muted.Render("esc closes this box; what is under way still finishes")}
}

func (d *busy) Update(ctx kit.Context, _ Loop, msg tea.Msg) Action {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, ctx.Keys.Key("back")) {
		return cancel()
	}
	return Action{}
}

// staleFlag asks about a redirect_requested no box of this session set.
type staleFlag struct {
	// gone and owner: set by an aot-tui no longer running (owner names it).
	gone  bool
	owner string
}

// AskStaleFlag is the question about a redirect_requested that no box
// here set, as lp knows its owner.
func AskStaleFlag(lp Loop) Box { return &staleFlag{gone: lp.FlagOwnerGone, owner: lp.FlagOwner} }

func (d *staleFlag) Title() string                { return "redirect_requested is set" }
func (d *staleFlag) Place() Place                 { return InStaleFlag }
func (d *staleFlag) Width(paneW int) int          { return kit.DialogWidth(paneW) }
func (d *staleFlag) Resize(kit.Context, int, int) {}

func (d *staleFlag) Draw(ctx kit.Context, w, _ int) []string {
	text := "control.redirect_requested is true, but no redirect is open in this aot-tui. It may be left over from an earlier session that ended abruptly, or someone may be running /redirect right now. While it is true the loop's stop hook pauses the loop."
	if d.gone {
		text = "control.redirect_requested is true, set by an aot-tui that is no longer running" + d.owner + ": its form was open when it ended. While it is true the loop's stop hook pauses the loop."
	}
	k := ctx.Keys
	return append(cells.Wrap(text, w), "", ctx.Styles.Key.Render(k.Key("yes").Help().Key+" clear it · "+k.Key("no").Help().Key+" leave it (default)"))
}

func (d *staleFlag) Update(ctx kit.Context, _ Loop, msg tea.Msg) Action {
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(k, ctx.Keys.Key("quit")):
		return Action{Kind: kit.Quit}
	case key.Matches(k, ctx.Keys.Key("yes")):
		return Action{Kind: kit.Close, Status: kit.Status{Text: "clearing redirect_requested", Level: kit.Info}, Job: ClearFlagJob{}}
	case key.Matches(k, ctx.Keys.Key("no")):
		return Action{Kind: kit.Close, Status: kit.Status{Text: "redirect_requested left as it is", Level: kit.Info}}
	}
	return Action{}
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

// interruptQuestion asks whether to interrupt the workers of in-progress
// atoms: "A9 is in progress: interrupt its worker? (i: yes)", key being
// the interrupt key.
func interruptQuestion(ins []model.Interrupt, key string) string {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = termtext.Line(in.Atom)
	}
	if len(ids) == 1 {
		return ids[0] + " is in progress: interrupt its worker? (" + key + ": yes)"
	}
	return strings.Join(ids, ", ") + " are in progress: interrupt their workers? (" + key + ": yes)"
}

func splitLines(s string) []string { return strings.Split(s, "\n") }
