package redirect

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// kinds are the correction kinds in the menu's order, with the name of
// the key that opens each (a keys file's name) and the menu's words.
var kinds = []struct{ kind, action, label string }{
	{AddAtom, "add_atom", "add an atom"},
	{DeleteAtom, "delete_atom", "delete an atom"},
	{ForceOR, "force_or", "force an OR choice"},
	{Constraints, "constraints", "change constraints"},
	{Objective, "objective", "change the objective"},
	{Binding, "override_binding", "override a binding"},
	{Stop, "stop", "stop the loop"},
}

// KindOfKey is the kind whose form the key press opens ("" for none).
func KindOfKey(ctx kit.Context, msg tea.KeyPressMsg) string {
	for _, k := range kinds {
		if key.Matches(msg, ctx.Keys.Key(k.action)) {
			return k.kind
		}
	}
	return ""
}

// Open is r: the menu, or a footer line saying why no correction can
// start.
func Open(ctx kit.Context, lp Loop) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	d := newMenu(ctx, lp)
	return Action{Kind: kit.Replace, Next: d, Cmd: d.form.Init()}
}

// OpenForm is a write key pressed in a view: the form of kind (the loop
// pauses for it), or a footer line saying why it cannot open.
func OpenForm(ctx kit.Context, lp Loop, kind string) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	d, why := newForm(ctx, lp, kind, nil, "")
	if d == nil {
		// Read, not glanced at: it says what to do first.
		return Action{Status: kit.Status{Text: why, Level: kit.Info, TTL: 6 * time.Second}}
	}
	return Action{Kind: kit.Replace, Next: d, Pause: kind, Cmd: d.form.Init()}
}

// Plan plans req, a correction of kind made without its form (values
// are not kept: edit and a refusal open its form afresh), and shows its
// preview when the plan comes back; the loop pauses meanwhile, as for a
// form.
func Plan(lp Loop, kind string, req model.Request, note string) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	b := &busy{kind: kind, what: "planning the correction…"}
	return Action{Kind: kit.Replace, Next: b, Pause: kind, Job: PreviewJob{Request: req, Note: note, For: b}}
}

// MoreIterations raises max_iterations by step: a change of constraints
// previewed at once (edit opens its form with the raised value), for a
// loop that is about to run out of iterations, or has.
func MoreIterations(lp Loop, step int) Action {
	if lp.Blocked != "" {
		return say(kit.Info, lp.Blocked)
	}
	n := lp.State.Objective.Constraints.EffectiveMaxIterations() + step
	v := newFormValues(Constraints, lp.State, lp.Facts, "")
	v.MaxIter = strconv.Itoa(n)
	b := &busy{kind: Constraints, values: v, what: "planning the correction…"}
	return Action{Kind: kit.Replace, Next: b, Pause: Constraints,
		Job: PreviewJob{Request: model.ChangeConstraints{MaxIterations: &n}, For: b}}
}

// toForm is the step into the form of kind from another box: the form
// (with refusal shown above it) takes the box's place and the loop pauses
// for it. When the form cannot open on the state as it is now, the
// redirect closes (clearing a flag this session set) and the footer says
// why.
func toForm(ctx kit.Context, lp Loop, kind string, values *formValues, refusal string) Action {
	if lp.Blocked != "" {
		return closing(kit.Error, lp.Blocked)
	}
	d, why := newForm(ctx, lp, kind, values, refusal)
	if d == nil {
		if refusal != "" {
			why = refusal + " — " + why
		}
		return closing(kit.Error, why)
	}
	return Action{Kind: kit.Replace, Next: d, Pause: kind, Cmd: d.form.Init()}
}

// newForm builds the form of kind on lp's state (fresh values from the
// state and the selection when values is nil), or says why it cannot open.
func newForm(ctx kit.Context, lp Loop, kind string, values *formValues, refusal string) (*form, string) {
	st, f := lp.State, lp.Facts
	switch {
	case titles[kind] == "" || kind == UndoKind:
		return nil, "no form for " + kind
	case kind == ForceOR && len(st.ORGroups) == 0:
		return nil, "this loop has no OR groups"
	case kind == Binding && f.Counts.Resolved == 0:
		return nil, "no resolved atom has a binding to override yet"
	case kind == DeleteAtom && f.Counts.Unresolved() == 0:
		return nil, "every atom is resolved; nothing can be deleted"
	case kind == Stop && (st.Control.Status == model.LoopStopped || st.Control.Status == model.LoopCompleted):
		return nil, "the loop has already ended (" + string(st.Control.Status) + ")"
	}
	if values == nil {
		sel := lp.Selected
		values = newFormValues(kind, st, f, sel)
		if kind == DeleteAtom || kind == Binding {
			// d and b act on the selected atom.
			a, ok := st.Atom(sel)
			switch {
			case !ok:
				return nil, "select an atom first"
			case kind == DeleteAtom && a.Status == model.StatusResolved:
				return nil, a.ID + " is resolved: resolved work is not deleted (b → redo undoes it)"
			case kind == Binding && a.Status != model.StatusResolved:
				return nil, a.ID + " is " + string(a.Status) + ": only a resolved atom's binding can be overridden"
			}
			values.ID = a.ID
		}
	}
	if _, ok := st.Atom(values.ID); !ok && (kind == DeleteAtom || kind == Binding) {
		return nil, "atom " + termtext.Line(values.ID) + " is gone"
	}
	d := &form{kind: kind, values: values, refusal: refusal, st: st}
	// A field checks its value on the state as it is then: the one the
	// form opened on, or the one the loop wrote since (Moved).
	d.form = buildForm(kind, values, func() *model.State { return d.st }, kit.DialogWidth(lp.PaneW)-4, lp.BodyH-5, lp.Editor).
		WithTheme(theme(ctx.NoColor))
	d.Resize(ctx, lp.PaneW, lp.BodyH)
	return d, ""
}

// theme is huh's theme for the boxes: without colours the base theme tells
// the chosen button only by its colours, so it is bracketed.
func theme(noColor bool) huh.Theme {
	if noColor {
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

// bodyRoom is what a form may use of the body: all but the box's frame,
// its closing hint and, with extra, room for a warning or a refusal, so
// that huh scrolls to the focused field rather than the box cutting it
// off.
func bodyRoom(bodyH int, extra bool) int {
	h := bodyH - 3
	if extra {
		h -= 2
	}
	return max(3, h)
}

// Kinds are the correction kinds, in the menu's order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.kind
	}
	return out
}

// KeyName is the name of the key that opens kind's form (a keys file's
// name), "" for no kind.
func KeyName(kind string) string {
	for _, k := range kinds {
		if k.kind == kind {
			return k.action
		}
	}
	return ""
}
