package redirect

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/huh/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/charmbracelet/x/ansi"
)

// The objective form: the objective's four texts, and one edit of the
// base_case picked from its items as the objective view shows them.

func (b *formBuilder) objective() []*huh.Group {
	var groups []*huh.Group
	nonEmpty := func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("cannot be empty")
		}
		return nil
	}
	typeOpts := []huh.Option[string]{}
	for _, t := range model.CheckTypes {
		typeOpts = append(typeOpts, huh.NewOption(string(t), string(t)))
	}
	groups = append(groups,
		huh.NewGroup(
			huh.NewInput().Title("Goal").Value(&b.v.Goal).Validate(nonEmpty),
			huh.NewInput().Title("Background intent").Value(&b.v.Background).Validate(nonEmpty),
		),
		huh.NewGroup(
			huh.NewInput().Title("Deliverables").Value(&b.v.Deliverables).Validate(nonEmpty),
			huh.NewInput().Title("Definition of done").Value(&b.v.DoD).Validate(nonEmpty),
		),
		huh.NewGroup(
			huh.NewSelect[string]().Title("base_case").Description("keep it, or pick the item on the next page").
				Options(huh.NewOption("keep as is", "none"), huh.NewOption("set a check", "set"),
					huh.NewOption("add an item", "add"), huh.NewOption("remove an item", "remove")).Value(&b.v.CheckOp),
		),
	)
	// The base_case's items to pick from, one page per edit (shown for its
	// edit only): the tree as the objective view shows it, so that no
	// position is typed from memory.
	for _, x := range []struct {
		op, title string
		dst       *string
	}{{"set", "Set which check", &b.v.CheckPosSet}, {"add", "Add under", &b.v.CheckPosAdd}, {"remove", "Remove which item", &b.v.CheckPosRemove}} {
		opts := positionOptions(b.st, x.op, b.optW)
		sel := huh.NewSelect[string]().Title(x.title).Options(opts...).Value(x.dst).Height(min(len(opts)+2, b.listH)).
			Validate(func(s string) error { return checkPosition(b.stateFn(), x.op, s) })
		if len(opts) > b.listH-2 {
			sel.Description(fmt.Sprintf("%d places · ↑↓ scroll", len(opts)))
		}
		if len(opts) == 0 {
			sel = huh.NewSelect[string]().Title(x.title).Options(huh.NewOption("(nothing here can be "+x.op+")", "")).Value(x.dst).
				Validate(func(string) error { return checkPosition(b.stateFn(), x.op, "") })
		}
		op := x.op
		groups = append(groups, huh.NewGroup(sel).WithHideFunc(func() bool { return b.v.CheckOp != op }))
	}
	groups = append(groups,
		huh.NewGroup(
			huh.NewInput().Title("Item name").Description("for a new item, or to rename the one set").Value(&b.v.CheckItem),
			huh.NewSelect[string]().Title("Check type").Options(typeOpts...).Value(&b.v.CheckType),
			huh.NewInput().Title("Value").Description("command, path or condition; criteria for quality").Value(&b.v.CheckValue),
		).WithHideFunc(func() bool { return b.v.CheckOp == "none" || b.v.CheckOp == "remove" }),
		huh.NewGroup(b.note,
			huh.NewNote().Title("An objective change clears the trail").Description("it is essentially a restart of the alignment")),
	)
	return groups
}

// positionOptions are the places of the base_case where op can act, as
// "1.2  name · command: go test ./..." options whose value is the 1-based
// path ("" for the top level or a legacy base_case).
func positionOptions(st *model.State, op string, width int) []huh.Option[string] {
	var opts []huh.Option[string]
	try := func(pos model.ChecklistPath, label string) {
		if model.CheckEditTarget(st, op, pos) == nil {
			opts = append(opts, huh.NewOption(ansi.Truncate(termtext.Line(label), width, "…"), pos.String()))
		}
	}
	bc := st.Objective.BaseCase
	switch {
	case bc.IsChecklist:
		try(nil, "(the top level)")
	case bc.Legacy != nil:
		try(nil, "(the base_case) · "+checkLabel(bc.Legacy))
	}
	var walk func(items []model.ChecklistItem, at model.ChecklistPath, depth int)
	walk = func(items []model.ChecklistItem, at model.ChecklistPath, depth int) {
		for i, it := range items {
			pos := append(slices.Clone(at), i)
			label := strings.Repeat("  ", depth) + pos.String() + "  " + it.Item
			switch {
			case it.Check != nil:
				label += " · " + checkLabel(it.Check)
			case it.IsAnyOf:
				label += " · any of"
			case it.IsGroup:
				label += " · group"
			}
			try(pos, label)
			walk(it.Group, pos, depth+1)
			walk(it.AnyOf, pos, depth+1)
		}
	}
	walk(bc.Checklist, nil, 0)
	return opts
}

// checkLabel is "command: go test ./...".
func checkLabel(c *model.Check) string {
	if c.Value == "" {
		return string(c.Type)
	}
	return string(c.Type) + ": " + c.Value
}

// checkPosition refuses a base_case position the edit cannot act at, on
// the page where it is typed rather than after the last one.
func checkPosition(st *model.State, op, pos string) error {
	if op == "none" || op == "" || st == nil {
		return nil
	}
	var cp model.ChecklistPath
	if strings.TrimSpace(pos) != "" {
		p, err := model.ParseChecklistPath(pos)
		if err != nil {
			return err
		}
		cp = p
	}
	if err := model.CheckEditTarget(st, op, cp); err != nil {
		var ref *model.Refusal
		if errors.As(err, &ref) {
			return errors.New(ref.Reason)
		}
		return err
	}
	return nil
}
