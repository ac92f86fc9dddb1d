package ui

import (
	"github.com/aot-loop/aot-tui/internal/loopword"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/statefile"
)

// checks are what the views show about a state besides the state itself:
// validate's report (the header's badge, the problems panel, the graph's
// flags), the stop hook's outlook, the loop-tools warnings and how a
// stopped loop resumes.
type checks struct {
	// st is the state they are of.
	st     *model.State
	report model.Report
	// outlook is model.PredictOutlook's, before the atoms gone from this
	// iteration are added (model.WithGone: the loop's, in setShown).
	outlook   model.Outlook
	loopTools []model.Problem
	resume    string
}

// checksOf checks st, whose facts are f, with vr (the loop's, for its
// live versions: it keeps what the next version may reuse; nil: a
// validation on its own). It reads nothing but st and f, so the live
// versions are checked off the UI goroutine, as they arrive (eventMsg):
// each state reaches Update with its own findings, and no frame shows one
// version's findings against another. The versions of the timeline are
// checked as they are shown (setShown).
func checksOf(vr *model.Validator, st *model.State, f *model.Facts) *checks {
	c := &checks{st: st, loopTools: model.LoopToolsWarnings(st)}
	if vr != nil {
		c.report, c.outlook = vr.Validate(st, f), vr.PredictOutlook(st, f)
	} else {
		c.report, c.outlook = model.ValidateWith(st, f), model.PredictOutlook(st, f)
	}
	c.resume = loopword.ResumeWith(st, c.report)
	return c
}

// eventMsg is the message of a watch event: a loaded AoT state comes
// checked, with the loop's Validator vr (one goroutine at a time: listen
// waits for one event at a time).
func eventMsg(vr *model.Validator, ev statefile.Event) stateMsg {
	msg := stateMsg{ev: ev}
	if ev.Kind == statefile.EventLoaded && ev.Doc != nil && ev.Facts != nil {
		msg.checks = checksOf(vr, ev.Doc.State, ev.Facts)
	}
	return msg
}
