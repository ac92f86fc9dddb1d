package redirect

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// The kinds of correction the flow has a form for, as the menu lists them
// (and as the session names them: correction.Session.BeginFor).
const (
	AddAtom     = "add-atom"
	DeleteAtom  = "delete-atom"
	ForceOR     = "force-or"
	Constraints = "constraints"
	Objective   = "objective"
	Binding     = "override-binding"
	Stop        = "stop"
)

// titles are the forms' titles.
var titles = map[string]string{
	AddAtom:     "Add an atom",
	DeleteAtom:  "Delete an atom",
	ForceOR:     "Force an OR choice",
	Constraints: "Change constraints",
	Objective:   "Change the objective",
	Binding:     "Override a binding",
	Stop:        "Stop the loop",
	UndoKind:    "Undo a correction",
}

// formValues are the fields every redirect form binds to. One struct keeps
// the values across "edit" round trips from the preview.
type formValues struct {
	ID, Description, ORGroup string
	DependsOn, RequiredBy    []string
	Detach, Confirm          bool
	Group, Choice, Reason    string
	MaxIter, MaxAgents       string
	MaxStall                 string
	Goal, Background         string
	Deliverables, DoD        string
	CheckOp, CheckPos        string
	// The position picked for each base_case edit (CheckPos is the one
	// of CheckOp when the request is made).
	CheckPosSet, CheckPosAdd, CheckPosRemove string
	CheckType, CheckValue                    string
	CheckItem                                string
	Mode, Summary, Artifacts                 string
	Note                                     string
}

// newFormValues fills defaults from the state and the selected atom: the
// next free id, the selection as a dependency, current values.
func newFormValues(kind string, st *model.State, f *model.Facts, sel string) *formValues {
	v := &formValues{Mode: "amend", CheckOp: "none", CheckType: string(model.CheckCommand)}
	c := st.Objective.Constraints
	v.MaxIter = strconv.Itoa(c.EffectiveMaxIterations())
	v.MaxAgents = strconv.Itoa(c.EffectiveMaxParallelAgents())
	v.MaxStall = strconv.Itoa(c.EffectiveMaxStallCount())
	o := st.Objective
	v.Goal, v.Background, v.Deliverables, v.DoD = o.Goal, o.BackgroundIntent, o.Deliverables, o.DefinitionOfDone
	if _, ok := f.Index[sel]; ok {
		v.ID = sel
		if kind == AddAtom {
			v.ID = ""
			v.DependsOn = []string{sel}
		}
		if g := f.ORGroupOf[sel]; g != "" {
			v.Group = g
		}
	}
	if kind == Binding {
		if b, ok := st.Binding(sel); ok {
			v.Summary, v.Artifacts = b.Summary, strings.Join(b.Artifacts, ", ")
		}
	}
	if v.Group == "" && len(st.ORGroups) > 0 {
		v.Group = st.ORGroups[0].Name
	}
	if g, ok := st.ORGroup(v.Group); ok {
		for _, ch := range g.Choices {
			if ch != g.Selected {
				v.Choice = joinChoice(g.Name, ch)
				break
			}
		}
	}
	return v
}

// request turns the form values into a model request. Corrections that
// can touch an in-progress atom are previewed with interrupting allowed
// (correction.Session): the preview then names the workers' atoms, and
// applying it asks a confirm that names them (the preview box), rather than
// the plan being refused.
func (v *formValues) request(kind string) (model.Request, error) {
	switch kind {
	case AddAtom:
		return model.AddAtom{ID: strings.TrimSpace(v.ID), Description: v.Description, DependsOn: v.DependsOn,
			ORGroup: v.ORGroup, RequiredBy: v.RequiredBy}, nil
	case DeleteAtom:
		return model.DeleteAtom{ID: v.ID, Detach: v.Detach}, nil
	case ForceOR:
		g, c := splitChoice(v.Choice)
		return model.ForceOR{Group: g, Choice: c, Reason: v.Reason}, nil
	case Constraints:
		var r model.ChangeConstraints
		for _, x := range []struct {
			text string
			dst  **int
		}{{v.MaxIter, &r.MaxIterations}, {v.MaxAgents, &r.MaxParallelAgents}, {v.MaxStall, &r.MaxStallCount}} {
			n, err := strconv.Atoi(strings.TrimSpace(x.text))
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", x.text)
			}
			*x.dst = &n
		}
		return r, nil
	case Objective:
		r := model.ChangeObjective{Goal: &v.Goal, BackgroundIntent: &v.Background, Deliverables: &v.Deliverables, DefinitionOfDone: &v.DoD}
		if v.CheckOp != "none" && v.CheckOp != "" {
			switch v.CheckOp {
			case "set":
				v.CheckPos = v.CheckPosSet
			case "add":
				v.CheckPos = v.CheckPosAdd
			case "remove":
				v.CheckPos = v.CheckPosRemove
			}
			var pos model.ChecklistPath
			if strings.TrimSpace(v.CheckPos) != "" {
				p, err := model.ParseChecklistPath(v.CheckPos)
				if err != nil {
					return nil, err
				}
				pos = p
			}
			r.Checks = []model.CheckEdit{{Op: v.CheckOp, Path: pos, Type: model.CheckType(v.CheckType), Value: v.CheckValue, Item: v.CheckItem}}
		}
		return r, nil
	case Binding:
		r := model.OverrideBinding{ID: v.ID, Redo: v.Mode == "redo"}
		if !r.Redo {
			s := v.Summary
			r.Summary = &s
			r.SetArtifacts = true
			r.Artifacts = splitList(v.Artifacts)
		}
		return r, nil
	case Stop:
		return model.Stop{Reason: v.Reason}, nil
	}
	return nil, fmt.Errorf("unknown form %q", kind)
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// atomOptions lists atoms as "A3 ● description" options.
func atomOptions(st *model.State, width int, keep func(model.Atom) bool) []huh.Option[string] {
	var opts []huh.Option[string]
	for _, a := range st.Atoms {
		if keep != nil && !keep(a) {
			continue
		}
		label := ansi.Truncate(termtext.Line(a.ID)+" "+loopword.AtomGlyph(a.Status)+" "+termtext.Line(a.Description), width, "…")
		opts = append(opts, huh.NewOption(label, a.ID))
	}
	return opts
}

// refusalFor plans req on st and returns the refusal, if any, when its rule
// is one of rules (so each field shows only the reasons it can fix). An
// in-progress atom is never a field's error: the preview names it and
// applying asks first.
func refusalFor(st *model.State, req model.Request, rules ...string) error {
	_, err := model.PlanCorrection(st, req, model.PlanContext{})
	var ref *model.Refusal
	if errors.As(err, &ref) && ref.Rule != model.RuleInProgress && (len(rules) == 0 || slices.Contains(rules, ref.Rule)) {
		return errors.New(ref.Reason)
	}
	return nil
}

// buildForm makes the huh form of a redirect kind, with inline validation
// from the model's rules. stateFn returns the state as it is now (it may
// move on while the form is open).
func buildForm(kind string, v *formValues, stateFn func() *model.State, width, height int, editor bool) *huh.Form {
	st := stateFn()
	b := &formBuilder{v: v, stateFn: stateFn, st: st, editor: editor,
		// Option labels must fit on one line (huh wraps them otherwise).
		optW: max(20, width-8),
		// Pickers show every atom the body has room for (their height
		// counts their title and description; the key hints and the frame
		// take the rest).
		listH: max(6, min(len(st.Atoms)+3, height-6)),
		note:  editorOrNot(editor, huh.NewText().Title("Note").Description("added to the correction's description").Value(&v.Note).Lines(2)),
	}
	var groups []*huh.Group
	switch kind {
	case AddAtom:
		groups = b.addAtom()
	case DeleteAtom:
		groups = b.deleteAtom()
	case ForceOR:
		groups = b.forceOR()
	case Constraints:
		groups = b.constraints()
	case Objective:
		groups = b.objective()
	case Binding:
		groups = b.binding()
	case Stop:
		groups = b.stop()
	}
	// The form's keys are drawn by the box (form.Draw), wrapped: huh cuts
	// its help line at the box's edge ("shift+tab bac…").
	return huh.NewForm(groups...).WithShowHelp(false).WithShowErrors(true)
}

// formBuilder holds what every form's pages are built from.
type formBuilder struct {
	v           *formValues
	stateFn     func() *model.State
	st          *model.State
	optW, listH int
	note        *huh.Text
	editor      bool
}

func (b *formBuilder) addAtom() []*huh.Group {
	var groups []*huh.Group
	groups = append(groups,
		huh.NewGroup(
			huh.NewInput().Title("Description").Description(endedWord(b.st)).Value(&b.v.Description).
				Validate(func(s string) error {
					if strings.TrimSpace(s) == "" {
						return errors.New("the new atom needs a description")
					}
					return nil
				}),
			huh.NewInput().Title("Id").Placeholder(model.NextAtomID(b.st)+" (next free id)").Value(&b.v.ID).
				Validate(func(s string) error {
					return refusalFor(b.stateFn(), model.AddAtom{ID: strings.TrimSpace(s), Description: "x"}, model.RuleDuplicateID, model.RuleBadID)
				}),
		),
		huh.NewGroup(
			huh.NewMultiSelect[string]().Title("Depends on").Description("x or space toggles · / filters"+b.scrolls(len(b.st.Atoms))).
				Options(atomOptions(b.st, b.optW, nil)...).Value(&b.v.DependsOn).Filterable(true).Height(b.listH),
		),
		huh.NewGroup(
			huh.NewMultiSelect[string]().Title("Required by").Description("unresolved atoms that will depend on the new one"+b.scrolls(unresolved(b.st))).
				Options(atomOptions(b.st, b.optW, func(a model.Atom) bool { return a.Status.Unresolved() })...).
				Value(&b.v.RequiredBy).Filterable(true).Height(b.listH).
				Validate(func(ids []string) error {
					return refusalFor(b.stateFn(), model.AddAtom{ID: b.v.ID, Description: "x", DependsOn: b.v.DependsOn, RequiredBy: ids},
						model.RuleCycle, model.RuleResolved)
				}),
		),
	)
	if len(b.st.ORGroups) > 0 {
		opts := []huh.Option[string]{huh.NewOption("(none)", "")}
		for _, g := range b.st.ORGroups {
			opts = append(opts, huh.NewOption(termtext.Line(g.Name), g.Name))
		}
		groups = append(groups, huh.NewGroup(huh.NewSelect[string]().Title("OR group").
			Description("join an OR group as one more choice").Options(opts...).Value(&b.v.ORGroup)))
	}
	groups = append(groups, huh.NewGroup(b.note))
	return groups
}

func (b *formBuilder) deleteAtom() []*huh.Group {
	var groups []*huh.Group
	// The form deletes one atom, fixed when it opens: dynamic titles in
	// huh are computed on other goroutines and would race the values.
	if needsDetach(b.st, b.v.ID) {
		groups = append(groups, huh.NewGroup(
			huh.NewConfirm().Title("Detach "+termtext.Line(b.v.ID)+"?").Description(detachDescription(b.st, b.v.ID)).
				Affirmative("Detach").Negative("No").Value(&b.v.Detach),
		))
	}
	// The question first, then the note about it.
	groups = append(groups, huh.NewGroup(
		huh.NewConfirm().Title("Delete "+termtext.Line(b.v.ID)+"?").Description(atomLabel(b.st, b.v.ID)).
			Affirmative("Delete").Negative("No").Value(&b.v.Confirm).
			Validate(func(ok bool) error {
				if !ok {
					return errors.New("choose Delete to go on, or press esc to cancel")
				}
				return refusalFor(b.stateFn(), model.DeleteAtom{ID: b.v.ID, Detach: b.v.Detach})
			}),
		b.note,
	))
	return groups
}

func (b *formBuilder) forceOR() []*huh.Group {
	var groups []*huh.Group
	// One list of every group's choices: no option list depends on
	// another field (see DeleteAtom).
	choices := allChoiceOptions(b.st, b.optW)
	groups = append(groups,
		huh.NewGroup(
			huh.NewSelect[string]().Title("Select which choice").
				Description("★ selected now · ✗ failed before").
				Options(choices...).Value(&b.v.Choice).Height(min(b.listH, len(choices)+2)).
				Validate(func(c string) error {
					g, ch := splitChoice(c)
					return refusalFor(b.stateFn(), model.ForceOR{Group: g, Choice: ch}, model.RuleORMember, model.RuleNoChange)
				}),
		),
		huh.NewGroup(
			huh.NewInput().Title("Reason").Description("recorded in the trail").Value(&b.v.Reason),
			b.note,
		),
	)
	return groups
}

func (b *formBuilder) constraints() []*huh.Group {
	var groups []*huh.Group
	positive := func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		switch {
		case errors.Is(err, strconv.ErrRange), err == nil && n > 1_000_000:
			return errors.New("too large: at most 1000000")
		case err != nil || n <= 0:
			return errors.New("a positive integer, please")
		}
		return nil
	}
	groups = append(groups,
		huh.NewGroup(
			huh.NewInput().Title("max_iterations").Value(&b.v.MaxIter).Validate(positive),
			huh.NewInput().Title("max_parallel_agents").Value(&b.v.MaxAgents).Validate(positive),
			huh.NewInput().Title("max_stall_count").Value(&b.v.MaxStall).Validate(positive),
		),
		huh.NewGroup(b.note),
	)
	return groups
}

func (b *formBuilder) binding() []*huh.Group {
	var groups []*huh.Group
	groups = append(groups,
		huh.NewGroup(
			huh.NewSelect[string]().Title("How").Description(atomLabel(b.st, b.v.ID)).Options(
				huh.NewOption("amend the summary and artifacts", "amend"),
				huh.NewOption("redo: drop the binding, send it and its dependents back to pending", "redo")).Value(&b.v.Mode),
		),
		huh.NewGroup(
			editorOrNot(b.editor, huh.NewText().Title("Summary").Value(&b.v.Summary).Lines(3)),
			huh.NewInput().Title("Artifacts").Description("comma-separated paths").Value(&b.v.Artifacts),
		).WithHideFunc(func() bool { return b.v.Mode == "redo" }),
		huh.NewGroup(b.note),
	)
	return groups
}

func (b *formBuilder) stop() []*huh.Group {
	var groups []*huh.Group
	groups = append(groups, huh.NewGroup(
		huh.NewInput().Title("Reason").Description("recorded as control.stop_reason").Value(&b.v.Reason),
		huh.NewConfirm().Title("Stop the loop?").Description("the stop hook stops it at its next decision").
			Affirmative("Stop").Negative("No").Value(&b.v.Confirm).
			Validate(func(ok bool) error {
				if !ok {
					return errors.New("choose Stop to go on, or press esc to cancel")
				}
				return nil
			}),
	))
	return groups
}

func needsDetach(st *model.State, id string) bool {
	f := model.Derive(st)
	if len(f.Dependents()[id]) > 0 {
		return true
	}
	for _, g := range st.ORGroups {
		if g.Selected == id {
			return true
		}
	}
	return false
}

func detachDescription(st *model.State, id string) string {
	f := model.Derive(st)
	var why []string
	selected := false
	for _, g := range st.ORGroups {
		if g.Selected == id {
			selected = true
			why = append(why, "it is the selected choice of "+termtext.Line(g.Name)+": detaching selects the next choice")
		}
	}
	if d := f.Dependents()[id]; len(d) > 0 {
		verb, what := " depend on it", ": detaching drops it from their depends_on"
		if len(d) == 1 {
			verb = " depends on it"
		}
		if selected {
			what = ": they move to that next choice (if there is one)"
		}
		why = append(why, termtext.Line(strings.Join(d, ", "))+verb+what)
	}
	return strings.Join(why, "; ") + ". Without detaching the delete is refused."
}

// allChoiceOptions lists every OR group's choices as one select.
func allChoiceOptions(st *model.State, width int) []huh.Option[string] {
	f := model.Derive(st)
	var opts []huh.Option[string]
	for _, g := range st.ORGroups {
		for _, c := range g.Choices {
			label := termtext.Line(g.Name) + " → " + termtext.Line(c)
			if i, ok := f.Index[c]; ok {
				a := st.Atoms[i]
				label += " " + loopword.AtomGlyph(a.Status) + " " + ansi.Truncate(termtext.Line(a.Description), 36, "…")
			} else {
				label += " (not an atom)"
			}
			switch {
			case c == g.Selected:
				label += " ★"
			case slices.Contains(g.Failed, c):
				label += " ✗"
			}
			opts = append(opts, huh.NewOption(ansi.Truncate(label, width, "…"), joinChoice(g.Name, c)))
		}
	}
	return opts
}

func joinChoice(group, choice string) string { return group + "\x1f" + choice }

func splitChoice(v string) (group, choice string) {
	group, choice, _ = strings.Cut(v, "\x1f")
	return group, choice
}

// atomLabel is "A3 ● description" for form descriptions.
func atomLabel(st *model.State, id string) string {
	a, ok := st.Atom(id)
	if !ok {
		return termtext.Line(id)
	}
	return termtext.Line(a.ID) + " " + loopword.AtomGlyph(a.Status) + " " + ansi.Truncate(termtext.Line(a.Description), 60, "…")
}

// editorOrNot offers huh's ctrl+e (edit in $EDITOR, else nano) only when
// that editor can be found (editorAvailable, looked up once): launching a
// missing one left the screen blank.
func editorOrNot(editor bool, t *huh.Text) *huh.Text {
	if !editor {
		return t.ExternalEditor(false)
	}
	return t
}

// scrolls is what a picker of n entries adds to its description when they
// do not all fit its height: how many there are and that it scrolls.
func (b *formBuilder) scrolls(n int) string {
	// The picker's height counts its title and description lines.
	if n <= b.listH-2 {
		return ""
	}
	return fmt.Sprintf(" · %d atoms, ↑↓ scroll", n)
}

// endedWord warns, on a form that adds work, that a loop that has ended
// will not run it ("" while the loop runs).
func endedWord(st *model.State) string {
	switch st.Control.Status {
	case model.LoopStopped, model.LoopCompleted:
		return "⚠ the loop has " + string(st.Control.Status) + ": it will not run the new atom until it is resumed"
	}
	return ""
}

// unresolved counts st's unresolved atoms.
func unresolved(st *model.State) int {
	n := 0
	for _, a := range st.Atoms {
		if a.Status.Unresolved() {
			n++
		}
	}
	return n
}
