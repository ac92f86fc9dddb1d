package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/model"
	"github.com/aot-loop/aot-tui/ui/verifyview"
	"github.com/charmbracelet/x/ansi"
)

// renderObjective lays out the objective: the loop-tools warnings (lt,
// model.LoopToolsWarnings of st) first when there are any, then goal, background, deliverables,
// definition of done, constraints, and the base_case as a tree with check
// types and values and AND/OR groups. With vv (the last verification, nil
// when there was none), each item the run checked is marked ✓ ✗ ? or ·,
// its checks say how they came out and when, and the output of the
// failed ones follows.
func renderObjective(st *model.State, lt []model.Problem, vv *verifyview.Results, width int, s Styles) []string {
	o := st.Objective
	w := max(width, 20)
	var out []string
	if len(lt) > 0 {
		// First: what the loop's own hook and scripts will do with values
		// they read otherwise than aot-tui.
		out = append(out, s.Warn.Render("⚠ the loop's own tools read this file otherwise")+s.Muted.Render(" (aot-tui validate lists them too)"))
		for _, p := range lt {
			for i, l := range wrap(termtext.Line(p.String()), w-4) {
				lead := "  • "
				if i > 0 {
					lead = "    "
				}
				out = append(out, lead+l)
			}
		}
		out = append(out, "")
	}
	field := func(title, text string) {
		out = append(out, s.Title.Render(title))
		if strings.TrimSpace(text) == "" {
			out = append(out, "  "+s.Muted.Render("(not set)"))
		} else {
			for _, l := range wrap(text, w-2) {
				out = append(out, "  "+l)
			}
		}
		out = append(out, "")
	}
	field("goal", o.Goal)
	field("background intent", o.BackgroundIntent)
	field("deliverables", o.Deliverables)
	field("definition of done", o.DefinitionOfDone)

	c := o.Constraints
	out = append(out, s.Title.Render("constraints"))
	cons := func(name string, v int, has bool, def int) string {
		if !has {
			return fmt.Sprintf("%s %d %s", name, def, s.Muted.Render("(default)"))
		}
		return fmt.Sprintf("%s %d", name, v)
	}
	out = append(out,
		"  "+cons("max_iterations", c.MaxIterations, c.Lines.Has("max_iterations"), model.DefaultMaxIterations),
		"  "+cons("max_parallel_agents", c.MaxParallelAgents, c.Lines.Has("max_parallel_agents"), model.DefaultMaxParallelAgents),
		"  "+cons("max_stall_count", c.MaxStallCount, c.Lines.Has("max_stall_count"), model.DefaultMaxStallCount), "")

	bc := o.BaseCase
	var verified []string
	if vv != nil {
		verified = vv.Header(w, s)
	}
	switch {
	case bc.IsChecklist:
		out = append(out, s.Title.Render("base_case")+s.Muted.Render(" checklist — every top-level item must pass"))
		out = append(out, verified...)
		out = append(out, checklistTree(bc.Checklist, "", nil, vv, w, s)...)
	case bc.Legacy != nil:
		out = append(out, s.Title.Render("base_case")+s.Muted.Render(" (legacy format)"))
		out = append(out, verified...)
		out = append(out, checkLines(bc.Legacy, "  ", w, s)...)
		if r := vv.LegacyResult(bc.Legacy); r != nil {
			out = append(out, vv.ResultLine(r, "  ", w, s))
		}
	default:
		out = append(out, s.Title.Render("base_case"), "  "+s.Danger.Render("(none: the loop cannot verify completion)"))
	}
	out = append(out, vv.OutputSection(w, s)...)
	if len(o.Extra) > 0 {
		out = append(out, "", s.Title.Render("other fields"))
		for _, x := range o.Extra {
			out = append(out, "  "+termtext.Line(fmt.Sprintf("%s: %s", x.Key, showValue(x.Value))))
		}
	}
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out
}

// checklistTree draws checklist items with box-drawing branches. pos is
// the 1-based position path shown before each item (as the redirect forms
// and CLI address items: 1, 1.2, …); vv marks the items a verification
// checked.
func checklistTree(items []model.ChecklistItem, prefix string, pos []int, vv *verifyview.Results, w int, s Styles) []string {
	var out []string
	for i, it := range items {
		last := i == len(items)-1
		branch, cont := "├─ ", "│  "
		if last {
			branch, cont = "└─ ", "   "
		}
		p := append(append([]int{}, pos...), i+1)
		res := vv.Result(posString(p), it)
		label := s.Muted.Render(posString(p)+" ") + s.Bold.Render(termtext.Line(nonEmpty(it.Item, "(unnamed)")))
		if res != nil {
			label = verifyview.OutcomeMark(res.Outcome, s) + " " + label
		}
		switch it.Kind() {
		case "group":
			label += " " + s.Accent.Render("[ALL of]")
		case "any_of":
			label += " " + s.Accent.Render("[ANY of]")
		case "":
			label += " " + s.Danger.Render("(no check)")
		}
		out = append(out, "  "+prefix+branch+label)
		if it.Check != nil {
			out = append(out, checkLines(it.Check, "  "+prefix+cont+"   ", w, s)...)
			if res != nil && res.Kind == "check" {
				out = append(out, vv.ResultLine(res, "  "+prefix+cont+"   ", w, s))
			}
		}
		if it.IsGroup {
			out = append(out, checklistTree(it.Group, prefix+cont, p, vv, w, s)...)
		}
		if it.IsAnyOf {
			out = append(out, checklistTree(it.AnyOf, prefix+cont, p, vv, w, s)...)
		}
	}
	return out
}

func posString(p []int) string {
	parts := make([]string, len(p))
	for i, n := range p {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}

func nonEmpty(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

// checkLines renders one check: its type and value, or a quality rubric.
func checkLines(c *model.Check, indent string, w int, s Styles) []string {
	typ := s.Accent.Render(termtext.Line(nonEmpty(string(c.Type), "?")))
	if c.Type != model.CheckQuality {
		return hanging(indent+typ+" ", termtext.Line(c.Value), w)
	}
	out := []string{}
	head := indent + typ
	if c.HasThreshold {
		head += fmt.Sprintf(" pass ≥ %g", c.PassThreshold)
	}
	if c.Scope != "" {
		head += " " + s.Muted.Render("scope "+termtext.Line(c.Scope))
	}
	out = append(out, head)
	if c.Criteria != "" {
		for _, l := range wrap(c.Criteria, max(10, w-len(indent)-2)) {
			out = append(out, indent+"  "+l)
		}
	}
	for _, r := range c.Rubric {
		out = append(out, indent+"  "+s.Bold.Render(termtext.Line(r.Criterion))+s.Muted.Render(fmt.Sprintf(" weight %g", r.Weight)))
		if r.Description != "" {
			for _, l := range wrap(r.Description, max(10, w-len(indent)-4)) {
				out = append(out, indent+"    "+s.Muted.Render(l))
			}
		}
		for _, lv := range r.Levels {
			out = append(out, hanging(indent+"    "+fmt.Sprintf("%d ", lv.Score), termtext.Line(lv.Text), w)...)
		}
	}
	return out
}

// renderPrompt renders the Markdown body readably: headings, lists, quotes
// and code blocks styled, paragraphs fitted to the pane. A paragraph (a
// list item with its continuation lines, a quote) whose lines all fit is
// shown with its own line breaks; one with a line wider than the pane was
// hard-wrapped for a wider screen, and wrapping each of its lines alone
// would leave a short stub after each: it is joined and wrapped as one.
func renderPrompt(body string, width int, s Styles) []string {
	w := max(width, 20)
	var out []string
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	// Drop leading and trailing blank lines.
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return []string{s.Muted.Render("(the state file has no prompt body)")}
	}
	for i := range lines {
		lines[i] = termtext.Block(strings.ReplaceAll(lines[i], "\t", "    "))
	}
	inCode := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		// more gathers the lines after line i that go on its paragraph:
		// not blank, not the start of another block, and (for a list
		// item) indented.
		more := func(indented bool) []string {
			var cont []string
			for i+1 < len(lines) {
				next := lines[i+1]
				if t := strings.TrimSpace(next); t == "" || blockStart(t) || indented && !strings.HasPrefix(next, " ") {
					break
				}
				cont = append(cont, next)
				i++
			}
			return cont
		}
		switch {
		case strings.HasPrefix(trim, "```"):
			inCode = !inCode
			lang := strings.TrimPrefix(trim, "```")
			if inCode && lang != "" {
				out = append(out, s.Muted.Render("  ┌ "+lang))
			} else {
				out = append(out, s.Muted.Render("  ┌"))
			}
			if !inCode {
				out[len(out)-1] = s.Muted.Render("  └")
			}
		case inCode:
			out = append(out, s.Muted.Render("  │ ")+s.Accent.Render(ansi.Truncate(line, w-4, "…")))
		case strings.HasPrefix(trim, "#"):
			level := len(trim) - len(strings.TrimLeft(trim, "#"))
			text := strings.TrimSpace(trim[level:])
			if level == 1 {
				out = append(out, s.Title.Render(strings.ToUpper(text)))
			} else {
				out = append(out, s.Title.Render(text))
			}
		case listMarker(trim) != "":
			marker := listMarker(trim)
			indent := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " ")))
			bullet := marker
			if marker == "- " || marker == "* " || marker == "+ " {
				bullet = "• "
			}
			hang := strings.Repeat(" ", ansi.StringWidth(bullet))
			text := append([]string{trim[len(marker):]}, trimAll(more(true))...)
			for k, l := range fitParagraph(text, w-len(indent)-ansi.StringWidth(bullet)) {
				if k == 0 {
					out = append(out, indent+bullet+l)
				} else {
					out = append(out, indent+hang+l)
				}
			}
		case strings.HasPrefix(trim, ">"):
			text := []string{trim}
			for i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), ">") {
				i++
				text = append(text, strings.TrimSpace(lines[i]))
			}
			for k := range text {
				text[k] = strings.TrimSpace(strings.TrimPrefix(text[k], ">"))
			}
			for _, l := range fitParagraph(text, w-2) {
				out = append(out, s.Muted.Render("▌ "+l))
			}
		case trim == "---" || trim == "***":
			out = append(out, s.Border.Render(strings.Repeat("─", min(w, 40))))
		case trim == "":
			out = append(out, "")
		case strings.HasPrefix(trim, "|"): // a table row: one line each
			out = append(out, wrap(inlineMarkdown(line), w)...)
		default:
			out = append(out, fitParagraph(append([]string{line}, more(false)...), w)...)
		}
	}
	for i := range out {
		out[i] = ansi.Truncate(out[i], w, "…")
	}
	return out
}

// blockStart reports whether a trimmed line begins a block of its own
// rather than going on a paragraph: a heading, a fence, a list item, a
// quote, a rule, a table row.
func blockStart(trim string) bool {
	return strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, ">") ||
		strings.HasPrefix(trim, "|") || trim == "---" || trim == "***" || listMarker(trim) != ""
}

// listMarker is the marker a trimmed line starts a list item with ("- ",
// "* ", "+ ", "1. ", "2) "), or "".
func listMarker(trim string) string {
	if len(trim) >= 2 && strings.ContainsRune("-*+", rune(trim[0])) && trim[1] == ' ' {
		return trim[:2]
	}
	n := 0
	for n < len(trim) && n < 9 && trim[n] >= '0' && trim[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(trim) && (trim[n] == '.' || trim[n] == ')') && trim[n+1] == ' ' {
		return trim[:n+2]
	}
	return ""
}

// fitParagraph fits the lines of one paragraph into width cells: as they
// are when each fits (the writer's line breaks are kept), else joined and
// wrapped as one text, so that a paragraph hard-wrapped wider than the pane
// reads as evenly filled lines instead of a long line and a stub by turns.
func fitParagraph(lines []string, width int) []string {
	fits := true
	for i, l := range lines {
		lines[i] = inlineMarkdown(strings.TrimRight(l, " "))
		fits = fits && ansi.StringWidth(lines[i]) <= width
	}
	if fits {
		return lines
	}
	return wrap(strings.Join(trimAll(lines), " "), width)
}

// trimAll trims the spaces around each line.
func trimAll(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// inlineMarkdown drops emphasis markers that only add noise in a terminal.
func inlineMarkdown(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "__", "")
	return s
}
