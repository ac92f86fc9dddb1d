package verifyview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/internal/textfmt"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/aot-loop/aot-tui/verify"
	"github.com/charmbracelet/x/ansi"
)

// Confirm lists what a verification would run and asks: apply runs it,
// cancel closes the box with nothing run.
type Confirm struct {
	v    *Verifier
	bc   model.BaseCase
	plan []verify.Planned
	list list
}

// Title is the box's title.
func (d *Confirm) Title() string { return "verify the base_case now?" }

// Width is the box's width in a pane of the given size.
func (d *Confirm) Width(_ kit.Context, paneW, _ int) int { return kit.DialogWidth(paneW) }

// Resize lays the command list out for a pane of the given size (paneH:
// the body's height).
func (d *Confirm) Resize(ctx kit.Context, paneW, paneH int) {
	w := d.Width(ctx, paneW, paneH) - 4
	var lines []string
	pw := 0
	for _, p := range d.plan {
		pw = max(pw, len(verify.PosString(p.Position)))
	}
	for _, p := range d.plan {
		if !p.Runs() {
			continue
		}
		line := "  " + cells.Pad(verify.PosString(p.Position), pw) + "  " + termtext.Line(p.Value)
		if p.Type == model.CheckNotCommand {
			line += ctx.Styles.Muted.Render("  (not_command: passes when it fails)")
		}
		lines = append(lines, ansi.Truncate(line, w, "…"))
	}
	d.list.width = w
	d.list.lines = lines
	d.list.height = min(len(lines), max(3, paneH-12))
	d.list.clamp()
}

// By scrolls the command list by n lines.
func (d *Confirm) By(n int) { d.list.top += n; d.list.clamp() }

// Page is the command list's page.
func (d *Confirm) Page() int { return max(1, d.list.height-1) }

// Home scrolls the command list to its top.
func (d *Confirm) Home() { d.list.top = 0 }

// End scrolls the command list to its end.
func (d *Confirm) End() { d.list.top = len(d.list.lines); d.list.clamp() }

// keysHint names the first two keys of b ("enter/y").
func keysHint(b key.Binding) string {
	k := b.Keys()
	return strings.Join(k[:min(2, len(k))], "/")
}

// Draw is the box's content for an inner width w and at most h lines.
func (d *Confirm) Draw(ctx kit.Context, w, h int) []string {
	s := ctx.Styles
	var cmds, files int
	for _, p := range d.plan {
		if p.Runs() {
			cmds++
		} else {
			files++
		}
	}
	judged := verify.Judged(d.bc)
	var lines []string
	if st := d.v.cfg.State(); st != nil && verify.ChecksKey(st.Objective.BaseCase) != verify.ChecksKey(d.bc) {
		for _, t := range cells.Wrap("⚠ the loop has changed the base_case since you pressed V: these are the checks that will run (V again shows the new ones)", w) {
			lines = append(lines, s.Warn.Render(t))
		}
	}
	dir := termtext.Line(d.v.cfg.Dir)
	if cmds == 0 {
		lines = append(lines, cells.Wrap(fmt.Sprintf("No command will run: the base_case has %s, which look for paths in %s.", textfmt.Plural(files, "file check"), dir), w)...)
	} else {
		lines = append(lines, cells.Wrap(fmt.Sprintf("These commands come from the state file, which the loop's agent wrote. Confirmed, they run one at a time through /bin/sh in %s, each for at most %s:", dir, d.v.cfg.Timeout), w)...)
		lines = append(lines, "")
		l := d.list
		l.height = max(min(3, len(l.lines)), min(l.height, h-len(lines)-7))
		l.clamp()
		lines = append(lines, strings.Split(l.view(), "\n")...)
		if sh := l.scrollHint(); sh != "" {
			lines = append(lines, s.Muted.Render("  ("+sh+")"))
		}
	}
	var notes []string
	if cmds > 0 && files > 0 {
		notes = append(notes, textfmt.Plural(files, "file check")+" (no command)")
	}
	if judged > 0 {
		notes = append(notes, textfmt.Plural(judged, "item")+" judged by a person, not checkable here")
	}
	if len(notes) > 0 {
		lines = append(lines, "")
		for _, t := range cells.Wrap("Also: "+strings.Join(notes, "; ")+".", w) {
			lines = append(lines, s.Muted.Render(t))
		}
	}
	verb := "run them"
	if cmds == 0 {
		verb = "check"
	}
	hint := keysHint(ctx.Keys.Key("apply")) + " " + verb + " · " + keysHint(ctx.Keys.Key("cancel")) + " cancel"
	if d.list.scrollHint() != "" {
		hint += " · j/k scroll"
	}
	return append(lines, "", s.Key.Render(hint))
}

// Update handles a key: apply starts the run (the box turns into the
// progress box), cancel closes the box.
func (d *Confirm) Update(ctx kit.Context, msg tea.Msg) kit.Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return kit.Action{}
	}
	switch {
	case key.Matches(k, ctx.Keys.Key("apply")):
		return d.v.start(ctx, d)
	case key.Matches(k, ctx.Keys.Key("cancel")):
		return kit.Action{Kind: kit.Close, Status: kit.Status{Text: "verify cancelled: nothing ran", Level: kit.Info}}
	}
	return kit.Action{}
}

// list is a scrollable block of drawn lines.
type list struct {
	lines         []string
	top           int
	width, height int
}

func (t *list) clamp() { t.top = min(max(0, t.top), max(0, len(t.lines)-t.height)) }

// view is the lines in sight, each padded to the width, height lines.
func (t list) view() string { return cells.Window(t.lines, t.top, t.width, t.height) }

// scrollHint says where in a long list the view is.
func (t list) scrollHint() string { return cells.WindowHint(len(t.lines), t.top, t.height) }
