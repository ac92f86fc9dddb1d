// Package redirect is one loop's redirect flow: the menu (r), a
// correction's form, its preview, the busy box while the correction
// session reads or writes the file, and the question about a
// redirect_requested that no box here set.
//
// It is a state machine. Its state is the open box (a Box, kept on the
// loop's dialog stack by whoever holds it); what goes in is a key or one
// of huh's messages (Box.Update) or a session job's result (Result),
// together with a snapshot of the loop (Loop); what comes out is an
// Action: the next box, the redirect closed, a footer line, session work
// to run (a Job: the holder runs it on the loop's correction.Session and
// brings its result back), a pause to begin. The flow never reads the
// root model, the clock or the disk, so every transition is a table test.
package redirect

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/kit"
)

// Loop is the snapshot of a loop that the flow decides with, taken by the
// holder for every message.
type Loop struct {
	// State and Facts are the state on screen (nil State: none yet).
	State *model.State
	Facts *model.Facts
	// Selected is the graph's selected atom when the graph is on screen
	// ("" otherwise: a form then starts from nothing selected).
	Selected string
	// Blocked says why no correction can start now ("" when one can):
	// read-only, a phase loop, no state yet, the file unreadable.
	Blocked string
	// Offered are the kinds the menu lists: those whose key can act where
	// the menu opens.
	Offered []string
	// Held says who else keeps the loop paused ("" nobody), added to the
	// line that says a correction was written.
	Held string
	// FlagOwnerGone is set when the redirect_requested no box here set was
	// set by an aot-tui that is no longer running; FlagOwner names it.
	FlagOwnerGone bool
	FlagOwner     string
	// Undoable are this session's corrections that can be undone, the
	// last written first; LastUndo is the one u undoes (0: none).
	Undoable []Undoable
	LastUndo int
	// Editor is set when the text fields can open $EDITOR.
	Editor bool
	// PaneW and BodyH are the pane's width and the height of its body,
	// where the boxes are drawn.
	PaneW, BodyH int
}

// Box is one box of the flow, the top of its loop's dialog stack.
type Box interface {
	// Title is the box's title.
	Title() string
	// Width is the box's width (its frame included) in a pane paneW wide.
	Width(paneW int) int
	// Draw is the box's content for an inner width w and at most h lines.
	Draw(ctx kit.Context, w, h int) []string
	// Resize adapts the box to a new pane size.
	Resize(ctx kit.Context, paneW, bodyH int)
	// Update handles a key press or one of huh's messages.
	Update(ctx kit.Context, lp Loop, msg tea.Msg) Action
	// Place says which box it is (which keys act in it).
	Place() Place
}

// Place is which box is open: the keys that act depend on it.
type Place int

const (
	// InMenu is the redirect menu.
	InMenu Place = iota + 1
	// InForm is a correction's form.
	InForm
	// InPreview is a correction's preview.
	InPreview
	// InAsk is the preview asking whether to interrupt workers.
	InAsk
	// InBusy is the box that stands while the file is read or written.
	InBusy
	// InStaleFlag asks about a redirect_requested nobody here set.
	InStaleFlag
)

// Action is the flow's answer: what the holder carries out. The zero value
// is "stay, nothing to do".
type Action struct {
	// Kind is kit.None (the box stays), kit.Replace (Next takes the box's
	// place, or opens when no box of the flow was open), kit.Close (the
	// redirect closes: every box of the loop) or kit.Quit.
	Kind kit.ActionKind
	Next Box
	// Status is a line for the loop's footer (none when its Text is "").
	Status kit.Status
	// Job is session work to run for the loop (nil: none).
	Job Job
	// Pause is set when a form of this kind opened: the loop pauses for
	// it, and the footer's earlier line, not about this form, goes.
	Pause string
	// Cmd is a command to run (huh's).
	Cmd tea.Cmd
}

// Job is work for the loop's correction.Session.
type Job interface{ isJob() }

// PreviewJob plans Request on the file as it is now
// (correction.Session.Preview); its result goes back to Result with For,
// the busy box that waits for it.
type PreviewJob struct {
	Request model.Request
	Note    string
	For     Box
}

// ApplyJob writes a previewed correction (correction.Session.Apply); its
// result goes back to Result with For.
type ApplyJob struct {
	Preview *correction.Preview
	For     Box
}

// EndJob ends the redirect (correction.Session.End): a redirect_requested
// this session set is cleared, the pause released.
type EndJob struct{}

// ClearFlagJob clears a redirect_requested nobody here set
// (correction.Session.ClearForeignFlag).
type ClearFlagJob struct{}

// FollowJob is the session's own work after a write (the guard that
// watches for the loop undoing it): run it as it is.
type FollowJob struct{ Job correction.Job }

func (PreviewJob) isJob()   {}
func (ApplyJob) isJob()     {}
func (EndJob) isJob()       {}
func (ClearFlagJob) isJob() {}
func (FollowJob) isJob()    {}

// Redirecting reports whether b is a step of a redirect (the menu, a form,
// its preview, the busy box): the loop is paused while one is open.
func Redirecting(b Box) bool {
	if b == nil {
		return false
	}
	switch b.Place() {
	case InMenu, InForm, InPreview, InAsk, InBusy:
		return true
	}
	return false
}

// Busy reports whether b is the busy box (a write may be under way).
func Busy(b Box) bool { return b != nil && b.Place() == InBusy }

// Moved notes on an open form or preview that the loop wrote the file,
// st being the state it wrote (a form checks its fields on it from now).
func Moved(b Box, st *model.State) {
	switch b := b.(type) {
	case *form:
		b.moved = true
		if st != nil {
			b.st = st
		}
	case *preview:
		b.moved = true
	}
}

// say is an Action that only shows a footer line.
func say(lv kit.Level, text string) Action {
	return Action{Status: kit.Status{Text: text, Level: lv}}
}

// closing is the Action that closes the redirect with a footer line and
// ends it, clearing a flag this session set.
func closing(lv kit.Level, text string) Action {
	return Action{Kind: kit.Close, Status: kit.Status{Text: text, Level: lv}, Job: EndJob{}}
}

// cancel closes the redirect without writing.
func cancel() Action { return closing(kit.Info, "correction cancelled; nothing was written") }

// with adds cmd to a's command.
func (a Action) with(cmd tea.Cmd) Action {
	if cmd != nil {
		a.Cmd = tea.Batch(cmd, a.Cmd)
	}
	return a
}
