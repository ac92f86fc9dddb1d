package redirect

import (
	"errors"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Undo is a correction of its own: the inverse of one this session wrote,
// planned on the file as it is now (correction.Session.PreviewUndo),
// previewed, written with its own corrections[] entry, refused with the
// reason where the loop's later work makes it impossible.

// UndoKind is the kind of an undo (its busy box and preview; it has no
// form: edit does not apply to it).
const UndoKind = "undo"

// Undoable is a correction of this session that can be undone.
type Undoable struct {
	// ID is the session's number of it (correction.Applied.ID).
	ID int
	// Summary names it ("added A9").
	Summary string
	// Redo is set when it is itself an undo: undoing it puts back what
	// it undid.
	Redo bool
}

// UndoPreviewJob plans the undo of the session's correction ID
// (correction.Session.PreviewUndo); its result goes back to Result with
// For.
type UndoPreviewJob struct {
	ID  int
	For Box
}

func (UndoPreviewJob) isJob() {}

// Undo plans the undo of the session's correction id (0: lp.LastUndo,
// the last correction written that is not an undo and is in effect) and
// previews it.
func Undo(lp Loop, id int) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	if id == 0 {
		if id = lp.LastUndo; id == 0 {
			return say(kit.Info, "nothing to undo: no correction written from this aot-tui is in effect")
		}
	}
	b := &busy{kind: UndoKind, what: "planning the undo…"}
	return Action{Kind: kit.Replace, Next: b, Pause: UndoKind, Job: UndoPreviewJob{ID: id, For: b}}
}

// PickUndo asks which of this session's corrections to undo (the message
// log's u, the menu's undo entry), newest first.
func PickUndo(ctx kit.Context, lp Loop) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	if len(lp.Undoable) == 0 {
		return say(kit.Info, "nothing to undo: no correction written from this aot-tui is in effect")
	}
	// The cursor starts on the last correction (a value no option has
	// would put it on the last option).
	d := &undoPicker{choice: lp.Undoable[0].ID}
	var opts []huh.Option[int]
	for _, u := range lp.Undoable {
		what := "undo"
		if u.Redo {
			what = "redo"
		}
		opts = append(opts, huh.NewOption(cells.Cut(fmt.Sprintf("#%d %s: %s", u.ID, what, termtext.Line(u.Summary)), kit.DialogWidth(lp.PaneW)-8), u.ID))
	}
	opts = append(opts, huh.NewOption("cancel", pickCancel))
	d.form = huh.NewForm(huh.NewGroup(huh.NewSelect[int]().Title("Undo a correction of this session").
		Description("planned on the file as it is now, then previewed").
		Options(opts...).Height(min(len(opts)+2, bodyRoom(lp.BodyH, false))).Value(&d.choice))).WithShowHelp(false).WithTheme(theme(ctx.NoColor))
	d.Resize(ctx, lp.PaneW, lp.BodyH)
	return Action{Kind: kit.Replace, Next: d, Cmd: d.form.Init()}
}

// pickCancel is the picker's cancel entry (IDs start at 1).
const pickCancel = -1

// undoPicker lists the corrections to undo.
type undoPicker struct {
	form   *huh.Form
	choice int
}

func (d *undoPicker) Title() string       { return "undo" }
func (d *undoPicker) Place() Place        { return InMenu }
func (d *undoPicker) Width(paneW int) int { return kit.DialogWidth(paneW) }

func (d *undoPicker) Resize(_ kit.Context, paneW, bodyH int) {
	d.form.WithWidth(d.Width(paneW) - 4).WithHeight(bodyRoom(bodyH, false))
}

func (d *undoPicker) Draw(ctx kit.Context, _, _ int) []string {
	return append(collapseBlankRuns(splitLines(d.form.View())), "", ctx.Styles.Muted.Render("enter choose · esc close"))
}

func (d *undoPicker) Update(ctx kit.Context, lp Loop, msg tea.Msg) Action {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, ctx.Keys.Key("back")) {
		return Action{Kind: kit.Close}
	}
	fm, cmd := d.form.Update(msg)
	d.form = fm.(*huh.Form)
	switch d.form.State {
	case huh.StateCompleted:
		if d.choice == pickCancel {
			return Action{Kind: kit.Close, Cmd: cmd}
		}
		return Undo(lp, d.choice).with(cmd)
	case huh.StateAborted:
		return Action{Kind: kit.Close, Cmd: cmd}
	}
	return Action{Cmd: cmd}
}

// undoRefusal words why an undo cannot be planned or written.
func undoRefusal(err error) string {
	var ref *model.Refusal
	switch {
	case errors.As(err, &ref) && ref.Rule == model.RuleNoChange:
		return "nothing to undo: " + ref.Reason
	case errors.As(err, &ref):
		return "cannot undo: " + ref.Reason
	}
	return refusalText(err, "cannot undo: ")
}
