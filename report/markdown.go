package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/jsonstream"
	"github.com/aot-loop/aot-tui/internal/termtext"
)

// JSON writes the report as one indented JSON object, as every JSON of
// the CLI is written (control and bidi characters as \u escapes).
func JSON(w io.Writer, r *Report) error {
	return jsonstream.Encode(w, r)
}

// md escapes text from the state file for Markdown: one line, control
// characters shown escaped, and the characters that would make markup
// (emphasis, links, HTML, table cells) taken literally.
func md(s string) string {
	s = termtext.Line(strings.TrimSpace(s))
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// code is text for inside a code span or block: one line, sanitised.
func code(s string) string { return termtext.Line(s) }

func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// when is a schema timestamp as written, or a dash.
func when(ts string) string {
	if strings.TrimSpace(ts) == "" {
		return "—"
	}
	return md(ts)
}

// fence is a code fence longer than any run of backticks in text.
func fence(text string) string {
	n, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", n)
}

// Markdown writes the report for a pull request: headings, tables and
// the drawings in code blocks.
func Markdown(w io.Writer, r *Report) error {
	var b strings.Builder
	o, out := r.Objective, r.Outcome
	fmt.Fprintf(&b, "# Post-mortem: %s\n\n", md(o.Goal))
	fmt.Fprintf(&b, "**Outcome:** %s", md(strings.ToUpper(out.Status)))
	if out.StopReason != "" {
		fmt.Fprintf(&b, " — %s", md(out.StopReason))
	}
	fmt.Fprintf(&b, " · %s\n\n", out.counts())
	fmt.Fprintf(&b, "%s\n\n", r.provenance(md))

	b.WriteString("## Objective\n\n")
	fmt.Fprintf(&b, "- **Goal:** %s\n", md(o.Goal))
	for _, f := range o.texts() {
		fmt.Fprintf(&b, "- **%s:** %s\n", f.name, md(f.v))
	}
	fmt.Fprintf(&b, "- **Constraints:** max_iterations %d, max_parallel_agents %d, max_stall_count %d\n", o.MaxIterations, o.MaxParallel, o.MaxStall)
	if o.Changed > 0 {
		fmt.Fprintf(&b, "- The objective was changed %d time%s by corrections (below); this is the final one.\n", o.Changed, plural(o.Changed))
	}
	b.WriteString("\n**Base case**\n\n")
	if len(o.BaseCase) == 0 {
		b.WriteString("_none defined_\n")
	}
	for _, l := range o.BaseCase {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		fmt.Fprintf(&b, "%s- %s\n", strings.Repeat(" ", indent), md(l))
	}
	b.WriteString("\n")

	markdownAtoms(&b, r)
	markdownDecisions(&b, r)
	markdownCorrections(&b, r)
	markdownIterations(&b, r)
	markdownCosts(&b, r)

	b.WriteString("## Final graph\n\n")
	if r.Graph != "" {
		f := fence(r.Graph)
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", f, r.Graph, f)
	} else {
		fmt.Fprintf(&b, "_%s_\n\n", md(r.GraphNote))
	}
	if len(r.Notes) > 0 {
		b.WriteString("## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", md(n))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownAtoms(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "## Resolved atoms (%d)\n\n", len(r.Resolved))
	if len(r.Resolved) == 0 {
		b.WriteString("_none_\n\n")
	} else {
		b.WriteString("| atom | description | binding | artifacts |\n|---|---|---|---|\n")
		for _, a := range r.Resolved {
			arts := make([]string, len(a.Artifacts))
			for i, x := range a.Artifacts {
				arts[i] = "`" + strings.ReplaceAll(code(x), "`", "'") + "`"
			}
			summary := md(a.Summary)
			if summary == "" {
				summary = "_no binding_"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", md(a.ID), md(a.Description), summary, strings.Join(arts, " "))
		}
		b.WriteString("\n")
	}
	if len(r.Unresolved) > 0 {
		fmt.Fprintf(b, "**Left unresolved (%d):** ", len(r.Unresolved))
		var parts []string
		for _, a := range r.Unresolved {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", md(a.ID), md(a.Description), md(a.Status)))
		}
		b.WriteString(strings.Join(parts, "; ") + "\n\n")
	}
}

func markdownDecisions(b *strings.Builder, r *Report) {
	b.WriteString("## OR decisions\n\n")
	if len(r.ORDecisions) == 0 {
		b.WriteString("_no OR groups_\n\n")
		return
	}
	for _, d := range r.ORDecisions {
		fmt.Fprintf(b, "**%s** — selected %s", md(d.Group), orDash(md(d.Selected)))
		if len(d.Choices) > 0 {
			fmt.Fprintf(b, " of %s", md(strings.Join(d.Choices, ", ")))
		}
		if len(d.Failed) > 0 {
			fmt.Fprintf(b, "; failed: %s", md(strings.Join(d.Failed, ", ")))
		}
		b.WriteString("\n\n")
		for _, t := range d.Trail {
			cleared := ""
			if t.Cleared {
				cleared = " _(cleared from the trail later)_"
			}
			fmt.Fprintf(b, "- %s → %s: %s%s\n", when(t.Time), orDash(md(t.Selected)), md(t.Reason), cleared)
		}
		if len(d.Trail) > 0 {
			b.WriteString("\n")
		}
	}
}

func markdownCorrections(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "## Corrections (%d)\n\n", len(r.Corrections))
	if len(r.Corrections) == 0 {
		b.WriteString("_none_\n\n")
		return
	}
	b.WriteString("| when | iteration | type | trail | description |\n|---|---|---|---|---|\n")
	for _, c := range r.Corrections {
		trail := "kept"
		if c.TrailCleared {
			trail = "cleared"
		}
		it := "—"
		if c.Iteration >= 0 {
			it = fmt.Sprint(c.Iteration)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", when(c.Time), it, md(c.Type), trail, md(c.Description))
	}
	b.WriteString("\n")
}

func markdownIterations(b *strings.Builder, r *Report) {
	b.WriteString("## Iterations\n\n")
	if len(r.Iterations) == 0 {
		b.WriteString("_no per-iteration history: see the notes_\n\n")
		return
	}
	b.WriteString("| iteration | started | took | unresolved at end | stall | resolved | reset to pending | added | backtracks | corrections |\n")
	b.WriteString("|---:|---|---:|---:|---:|---|---|---|---|---:|\n")
	for _, it := range r.Iterations {
		fmt.Fprintf(b, "| %d | %s | %s | %d | %d | %s | %s | %s | %s | %d |\n", it.N, it.Start.UTC().Format("15:04:05"),
			it.End.Sub(it.Start).Round(time.Second), it.Unresolved, it.Stall, ids(it.Resolved), ids(it.Reset), ids(it.Added),
			orDash(md(strings.Join(it.Backtracks, "; "))), it.Corrections)
	}
	b.WriteString("\n**Over time** (unresolved atoms █, stall ▮ of max):\n\n")
	chart := TextChart(r)
	f := fence(chart)
	fmt.Fprintf(b, "%s\n%s%s\n\n", f, chart, f)
}

// TextChart draws each iteration's unresolved atoms as a bar and its stall
// count as pips: progress reads as bars shrinking down the page.
func TextChart(r *Report) string {
	most := 1
	for _, it := range r.Iterations {
		most = max(most, it.Unresolved)
	}
	maxStall := max(1, r.Objective.MaxStall)
	var b strings.Builder
	const width = 40
	for _, it := range r.Iterations {
		n := it.Unresolved * width / most
		if it.Unresolved > 0 && n == 0 {
			n = 1
		}
		pips := strings.Repeat("▮", min(it.Stall, maxStall)) + strings.Repeat("▯", max0(maxStall-it.Stall))
		fmt.Fprintf(&b, "it %3d %s │ %-*s %3d │ stall %s %d\n", it.N, it.Start.UTC().Format("15:04:05"), width,
			strings.Repeat("█", n), it.Unresolved, pips, it.Stall)
	}
	return b.String()
}

func ids(s []string) string {
	if len(s) == 0 {
		return "—"
	}
	return md(strings.Join(s, " "))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func max0(n int) int { return max(n, 0) }

// markdownCosts writes the time, tokens and estimated cost per atom and
// per iteration, the totals and the tokens by model.
func markdownCosts(b *strings.Builder, r *Report) {
	c := &r.Costs
	b.WriteString("## Cost and time\n\n")
	fmt.Fprintf(b, "%s\n\n", c.explain(md))
	if !c.tokensRead() {
		fmt.Fprintf(b, "_%s._\n\n", md(c.Note))
	}
	fmt.Fprintf(b, "**Total:** %s\n\n", c.totalLine(md))
	row := func(cells []string, u *Usage) {
		if u != nil {
			cells = append(cells, u.cells()...)
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	head := func(first, second string) {
		heads := []string{first, second}
		align := []string{"---", "---:"}
		if c.tokensRead() {
			heads = append(heads, usageHeads...)
			for range usageHeads {
				align = append(align, "---:")
			}
		}
		fmt.Fprintf(b, "| %s |\n|%s|\n", strings.Join(heads, " | "), strings.Join(align, "|"))
	}
	b.WriteString("**Per atom**\n\n")
	if len(c.Atoms) == 0 {
		fmt.Fprintf(b, "_%s_\n\n", c.none("no atom was in progress in the versions read"))
	} else {
		head("atom", "worked")
		for _, a := range c.Atoms {
			row([]string{a.label(md), a.worked()}, a.Usage)
		}
		b.WriteString("\n")
	}
	b.WriteString("**Per iteration**\n\n")
	if len(c.Iterations) == 0 {
		fmt.Fprintf(b, "_%s_\n\n", c.none("no iterations in the versions read"))
	} else {
		head("iteration", "took")
		for _, it := range c.Iterations {
			row([]string{it.label(), took(it.Seconds)}, it.Usage)
		}
		b.WriteString("\n")
	}
	if len(c.Models) > 0 {
		b.WriteString("**By model**\n\n| model | input | output | cache write | cache read | cost (estimate) |\n|---|---:|---:|---:|---:|---:|\n")
		for _, m := range c.Models {
			fmt.Fprintf(b, "| %s | %s |\n", md(m.Model), strings.Join(m.cells(), " | "))
		}
		b.WriteString("\n")
	}
}
