package redirect

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/ui/internal/cells"
	"github.com/aot-loop/aot-tui/ui/kit"
	"github.com/charmbracelet/x/ansi"
)

// preview shows the diff a correction would write and its corrections[]
// entry: apply, edit or cancel.
type preview struct {
	kind   string
	values *formValues
	p      *correction.Preview
	// diff is the coloured diff, wrapped for width; top is the first line
	// shown, height how many show.
	diff        []string
	width       int
	top, height int
	bodyH       int
	// moved is set when the loop wrote the file since this preview.
	moved bool
	// asking is set while the preview asks whether to interrupt the
	// workers of the in-progress atoms the correction touches.
	asking bool
}

func newPreview(ctx kit.Context, lp Loop, kind string, values *formValues, p *correction.Preview) *preview {
	d := &preview{kind: kind, values: values, p: p}
	d.Resize(ctx, lp.PaneW, lp.BodyH)
	return d
}

func (d *preview) Title() string       { return "preview: " + titles[d.kind] }
func (d *preview) Width(paneW int) int { return kit.DialogWidth(paneW) }

func (d *preview) Place() Place {
	if d.asking {
		return InAsk
	}
	return InPreview
}

func (d *preview) Resize(ctx kit.Context, paneW, bodyH int) {
	if w := d.Width(paneW) - 4; w != d.width || d.diff == nil {
		d.width = w
		d.diff = colorDiff(d.p.Diff, w, ctx.Styles) // wrapped for the width
	}
	d.bodyH = bodyH
	d.height = max(3, bodyH-8)
	d.clamp()
}

func (d *preview) clamp() { d.top = min(max(0, d.top), max(0, len(d.diff)-d.height)) }

// By, Page, Home and End scroll the diff (the move keys).
func (d *preview) By(n int)  { d.top += n; d.clamp() }
func (d *preview) Page() int { return max(1, d.height-1) }
func (d *preview) Home()     { d.top = 0 }
func (d *preview) End()      { d.top = len(d.diff); d.clamp() }

func (d *preview) Draw(ctx kit.Context, w, h int) []string {
	s := ctx.Styles
	p := d.p
	var lines []string
	note := ""
	switch {
	case p.Replanned:
		note = "⚠ the loop wrote the file meanwhile: this is the correction re-planned on the new state"
	case d.moved:
		note = "⚠ the loop wrote the file since this preview: apply re-plans it on the new state first"
	}
	if note != "" {
		for _, l := range cells.Wrap(note, w) {
			lines = append(lines, s.Warn.Render(l))
		}
	}
	if c := p.Plan.Correction; c != nil {
		lines = append(lines, s.Bold.Render("corrections[] entry"))
		for _, l := range cells.Wrap(fmt.Sprintf("%s · trail_cleared: %v · %s", c.Type, c.TrailCleared, c.Description), w-2) {
			lines = append(lines, "  "+l)
		}
	} else {
		lines = append(lines, s.Bold.Render(termtext.Line(p.Plan.Summary))+s.Muted.Render(" (no corrections[] entry)"))
	}
	for _, warn := range p.Plan.Warnings {
		for _, l := range cells.Wrap("⚠ "+termtext.Line(warn), w) {
			lines = append(lines, s.Warn.Render(l))
		}
	}
	if note := p.FlagNote(); note != "" {
		for _, l := range cells.Wrap(note, w-2) {
			lines = append(lines, s.Muted.Render("  "+l))
		}
	}
	for _, in := range p.Plan.Interrupts {
		text := fmt.Sprintf("⚠ %s is in progress (a worker is on it, which aot-tui cannot stop): this correction %s; %s",
			termtext.Line(in.Atom), termtext.Line(in.How), termtext.Line(in.Consequence()))
		for _, l := range cells.Wrap(text, w) {
			lines = append(lines, s.Danger.Render(l))
		}
	}
	k := ctx.Keys
	if d.asking {
		lines = append(lines, "")
		for _, l := range cells.Wrap(interruptQuestion(p.Plan.Interrupts, k.Key("interrupt").Help().Key), w) {
			lines = append(lines, s.Bold.Render(l))
		}
		return append(lines, "", s.Key.Render(k.Key("interrupt").Help().Key+" interrupt and apply · "+k.Key("cancel").Help().Key+" back to the preview"))
	}
	lines = append(lines, "")
	// The diff takes what the box has left: its own top stays.
	height := max(3, h-len(lines)-4)
	top := min(max(0, d.top), max(0, len(d.diff)-height))
	lines = append(lines, strings.Split(cells.Window(d.diff, top, d.width, height), "\n")...)
	hint := k.Key("apply").Help().Key + " apply · " + k.Key("edit").Help().Key + " edit · " + k.Key("cancel").Help().Key + " cancel"
	if d.kind == UndoKind {
		hint = k.Key("apply").Help().Key + " apply · " + k.Key("cancel").Help().Key + " cancel"
	}
	if sh := cells.WindowHint(len(d.diff), top, height); sh != "" {
		hint += " · j/k scroll (" + sh + ")"
	}
	return append(lines, "", s.Key.Render(hint))
}

func (d *preview) Update(ctx kit.Context, lp Loop, msg tea.Msg) Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Action{}
	}
	keys := ctx.Keys
	if d.asking {
		// Only the interrupt key (i) applies; the cancel keys go back to
		// the preview, and no other key reaches here (the holder's key
		// table), so no press of an apply key (enter, y, a) — twice by
		// reflex — can interrupt a worker.
		d.asking = false
		if key.Matches(k, keys.Key("interrupt")) {
			return d.apply()
		}
		return Action{}
	}
	switch {
	case key.Matches(k, keys.Key("apply")) && len(d.p.Plan.Interrupts) > 0:
		d.asking = true
	case key.Matches(k, keys.Key("apply")):
		return d.apply()
	case key.Matches(k, keys.Key("edit")) && d.kind != UndoKind: // an undo has no form
		return toForm(ctx, lp, d.kind, d.values, "")
	case key.Matches(k, keys.Key("cancel")):
		return cancel()
	}
	return Action{}
}

// apply writes the previewed correction, the busy box standing meanwhile.
func (d *preview) apply() Action {
	b := &busy{kind: d.kind, values: d.values, what: "writing the correction…"}
	return Action{Kind: kit.Replace, Next: b, Job: ApplyJob{Preview: d.p, For: b}}
}

// colorDiff colours a unified diff and wraps lines wider than width: a
// continuation starts with the line's own +/- and ↪, so nothing the
// correction writes is hidden past the box's edge.
func colorDiff(d string, width int, s kit.Styles) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		l = termtext.Line(l)
		st := s.Muted
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			st = s.Bold
		case strings.HasPrefix(l, "@@"):
			st = s.Accent
		case strings.HasPrefix(l, "+"):
			st = s.OK
		case strings.HasPrefix(l, "-"):
			st = s.Danger
		}
		if width < 8 || ansi.StringWidth(l) <= width {
			out = append(out, st.Render(l))
			continue
		}
		mark := " "
		if l != "" && (l[0] == '+' || l[0] == '-') {
			mark = l[:1]
		}
		for i, part := range strings.Split(ansi.Hardwrap(l, width-2, false), "\n") {
			if i > 0 {
				part = mark + "↪" + part
			}
			out = append(out, st.Render(part))
		}
	}
	return out
}
