package verifyview

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/verify"
	"github.com/charmbracelet/x/ansi"
)

// Running shows a run's progress; cancel stops it.
type Running struct{ run *Run }

// Title is the box's title.
func (d *Running) Title() string { return "verifying the base_case" }

// Width is the box's width in a pane of the given size.
func (d *Running) Width(_ kit.Context, paneW, _ int) int { return kit.DialogWidth(paneW) }

// Stopping reports whether the run was asked to stop (cancel then has
// nothing more to do).
func (d *Running) Stopping() bool { return d.run.stopping }

// Draw is the box's content for an inner width w and at most h lines.
func (d *Running) Draw(ctx kit.Context, w, h int) []string {
	s := ctx.Styles
	run := d.run
	lines := []string{s.Muted.Render(ansi.Truncate(fmt.Sprintf("in %s · at most %s each · started %s",
		termtext.Line(run.dir), run.timeout, run.started.Format("15:04:05")), w, "…")), ""}
	pw := 0
	for _, p := range run.plan {
		pw = max(pw, len(verify.PosString(p.Position)))
	}
	var rows []string
	for i, p := range run.plan {
		mark, note := " ", ""
		switch {
		case i < len(run.done):
			r := run.done[i]
			mark = OutcomeMark(r.Outcome, s)
			note = resultNote(&r)
		case i == run.current:
			mark, note = s.Warn.Render("▸"), "running…"
		}
		row := "  " + mark + " " + cells.Pad(verify.PosString(p.Position), pw) + "  "
		if note != "" {
			row += s.Muted.Render(termtext.Line(note) + " — ")
		}
		rows = append(rows, ansi.Truncate(row+string(p.Type)+" "+termtext.Line(p.Value), w, "…"))
	}
	// A long plan: the rows around the check under way.
	if room := max(3, h-7); len(rows) > room {
		at := len(run.done)
		first := min(max(0, at-room/2), len(rows)-room)
		rows = rows[first : first+room]
	}
	lines = append(lines, rows...)
	lines = append(lines, "", s.Muted.Render(fmt.Sprintf("%d of %d checks done", len(run.done), len(run.plan))))
	hint := keysHint(ctx.Keys.Key("cancel")) + " stops the run (the command under way is killed)"
	if run.stopping {
		hint = "stopping…"
	}
	return append(lines, s.Key.Render(hint))
}

// Update handles a key: cancel stops the run (the box stays until its
// report comes).
func (d *Running) Update(ctx kit.Context, msg tea.Msg) kit.Action {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, ctx.Keys.Key("cancel")) && !d.run.stopping {
		d.run.stopping = true
		d.run.cancel()
		return kit.Action{Kind: kit.ShowStatus, Status: kit.Status{Text: "stopping the verification…", TTL: time.Hour}}
	}
	return kit.Action{}
}
