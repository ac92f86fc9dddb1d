package redirect

import (
	"errors"
	"fmt"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Result turns the result of a PreviewJob or an ApplyJob into what comes
// next. from is the box the job was run for; top is the loop's top box now
// (nil when it is not one of the flow's). When from is still on top, the
// flow goes on from it: to the preview, back to the form with the reason,
// or closed. When the person left meanwhile, only the footer says what
// became of the job.
func Result(ctx kit.Context, lp Loop, top, from Box, res correction.Result) Action {
	waiting, _ := from.(*busy)
	if waiting != nil && top != from {
		waiting = nil
	}
	switch r := res.(type) {
	case correction.PreviewResult:
		switch {
		case waiting == nil:
			return Action{} // the person left meanwhile
		case r.Err != nil && waiting.kind == UndoKind:
			return closing(kit.Error, undoRefusal(r.Err)) // no form to go back to
		case r.Err != nil:
			return toForm(ctx, lp, waiting.kind, waiting.values, refusalText(r.Err, ""))
		}
		return Action{Kind: kit.Replace, Next: newPreview(ctx, lp, waiting.kind, waiting.values, r.Preview)}
	case correction.ApplyResult:
		return applied(ctx, lp, waiting, r)
	}
	return Action{}
}

// applied follows an apply: closed on success, the new preview when the
// loop wrote meanwhile, back to the form with the reason on failure;
// without a box waiting, the footer says which.
func applied(ctx kit.Context, lp Loop, waiting *busy, r correction.ApplyResult) Action {
	switch {
	case r.Plan != nil:
		text := r.Plan.Summary + " — written"
		if c := r.Plan.Correction; c != nil {
			text = fmt.Sprintf("%s: %s — recorded in corrections", c.Type, r.Plan.Summary)
		}
		if r.Merged > 0 {
			text += " (a loop write that landed at the same moment was kept)"
		}
		if lp.Held != "" {
			text += " — " + lp.Held
		}
		a := Action{Status: kit.Status{Text: text, Level: kit.Success}}
		if r.Follow != nil {
			a.Job = FollowJob{Job: r.Follow}
		}
		if waiting != nil {
			a.Kind = kit.Close
		}
		return a
	case r.Replanned != nil && waiting != nil:
		return Action{Kind: kit.Replace, Next: newPreview(ctx, lp, waiting.kind, waiting.values, r.Replanned)}
	case r.Replanned != nil:
		return say(kit.Error, "not written: the loop wrote the file meanwhile")
	case waiting != nil && waiting.kind == UndoKind:
		return closing(kit.Error, "not written: "+undoRefusal(r.Err))
	case waiting != nil:
		return toForm(ctx, lp, waiting.kind, waiting.values, refusalText(r.Err, "not written: "))
	}
	return say(kit.Error, refusalText(r.Err, "not written: "))
}

// refusalText words why a plan or write failed, for the form or footer
// (both sanitise what they draw).
func refusalText(err error, prefix string) string {
	var ref *model.Refusal
	switch {
	case err == nil:
		return prefix + "failed"
	case errors.As(err, &ref) && (ref.Rule == model.RuleFileProblems || ref.Rule == statefile.RuleEditable):
		// The file itself is in the way, not a change since the form opened.
		return prefix + "refused: " + ref.Reason
	case errors.As(err, &ref):
		return prefix + "no longer possible: " + ref.Reason
	case errors.Is(err, statefile.ErrConflict):
		return prefix + "the loop kept writing the file; try again"
	}
	return prefix + err.Error()
}
