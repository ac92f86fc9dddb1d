package report

import (
	"fmt"
	"html"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/termtext"
)

// h escapes text from the state file for HTML (control characters shown
// escaped, as in the terminal).
func h(s string) string { return html.EscapeString(termtext.Line(s)) }

const css = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right}pre{background:#f6f8fa;padding:.75rem;overflow:auto;font:13px/1.25 ui-monospace,SFMono-Regular,Menlo,monospace}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;padding:0 .2rem}
.outcome{font-size:1.05rem;padding:.5rem .75rem;border-radius:6px;background:#f6f8fa;border-left:6px solid #6e7781}
.completed{border-color:#1a7f37}.stopped{border-color:#cf222e}.running{border-color:#0969da}
h3{font-size:1rem;margin-top:1.2rem}.muted{color:#6e7781}.cleared{color:#9a6700}svg text{font:12px system-ui,sans-serif}`

// HTML writes the report as one self-contained page: inline CSS, the
// chart as inline SVG, no script and nothing fetched.
func HTML(w io.Writer, r *Report) error {
	var b strings.Builder
	o, out := r.Objective, r.Outcome
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
	fmt.Fprintf(&b, "<title>Post-mortem: %s</title>\n<style>%s</style></head><body>\n", h(o.Goal), css)
	fmt.Fprintf(&b, "<h1>Post-mortem: %s</h1>\n", h(o.Goal))
	fmt.Fprintf(&b, "<p id=\"outcome\" class=\"outcome %s\"><strong>%s</strong>", h(out.Status), h(strings.ToUpper(out.Status)))
	if out.StopReason != "" {
		fmt.Fprintf(&b, " — %s", h(out.StopReason))
	}
	fmt.Fprintf(&b, " · %s</p>\n", out.counts())
	fmt.Fprintf(&b, "<p class=\"muted\">%s</p>\n", r.provenance(h))

	b.WriteString("<h2>Objective</h2>\n<ul>\n")
	fmt.Fprintf(&b, "<li><strong>Goal:</strong> %s</li>\n", h(o.Goal))
	for _, f := range o.texts() {
		fmt.Fprintf(&b, "<li><strong>%s:</strong> %s</li>\n", f.name, h(f.v))
	}
	fmt.Fprintf(&b, "<li><strong>Constraints:</strong> max_iterations %d, max_parallel_agents %d, max_stall_count %d</li>\n</ul>\n",
		o.MaxIterations, o.MaxParallel, o.MaxStall)
	b.WriteString("<p><strong>Base case</strong></p>\n<pre id=\"base-case\">")
	for _, l := range o.BaseCase {
		b.WriteString(h(l) + "\n")
	}
	b.WriteString("</pre>\n")

	htmlAtoms(&b, r)
	htmlDecisions(&b, r)
	htmlCorrections(&b, r)
	htmlIterations(&b, r)
	htmlCosts(&b, r)

	b.WriteString("<h2>Final graph</h2>\n")
	if r.Graph != "" {
		fmt.Fprintf(&b, "<pre id=\"graph\">%s</pre>\n", html.EscapeString(r.Graph))
	} else {
		fmt.Fprintf(&b, "<p class=\"muted\">%s</p>\n", h(r.GraphNote))
	}
	if len(r.Notes) > 0 {
		b.WriteString("<h2>Notes</h2>\n<ul>\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", h(n))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func htmlAtoms(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "<h2>Resolved atoms (%d)</h2>\n", len(r.Resolved))
	if len(r.Resolved) > 0 {
		b.WriteString("<table id=\"resolved\"><tr><th>atom</th><th>description</th><th>binding</th><th>artifacts</th></tr>\n")
		for _, a := range r.Resolved {
			var arts []string
			for _, x := range a.Artifacts {
				arts = append(arts, "<code>"+h(x)+"</code>")
			}
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", h(a.ID), h(a.Description), h(a.Summary), strings.Join(arts, " "))
		}
		b.WriteString("</table>\n")
	}
	if len(r.Unresolved) > 0 {
		var parts []string
		for _, a := range r.Unresolved {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", h(a.ID), h(a.Description), h(a.Status)))
		}
		fmt.Fprintf(b, "<p><strong>Left unresolved (%d):</strong> %s</p>\n", len(r.Unresolved), strings.Join(parts, "; "))
	}
}

func htmlDecisions(b *strings.Builder, r *Report) {
	b.WriteString("<h2>OR decisions</h2>\n")
	if len(r.ORDecisions) == 0 {
		b.WriteString("<p class=\"muted\">no OR groups</p>\n")
	}
	for _, d := range r.ORDecisions {
		fmt.Fprintf(b, "<p><strong>%s</strong> — selected %s", h(d.Group), orDash(h(d.Selected)))
		if len(d.Choices) > 0 {
			fmt.Fprintf(b, " of %s", h(strings.Join(d.Choices, ", ")))
		}
		if len(d.Failed) > 0 {
			fmt.Fprintf(b, "; failed: %s", h(strings.Join(d.Failed, ", ")))
		}
		b.WriteString("</p>\n<ul>\n")
		for _, t := range d.Trail {
			cleared := ""
			if t.Cleared {
				cleared = " <span class=\"cleared\">(cleared from the trail later)</span>"
			}
			fmt.Fprintf(b, "<li>%s → %s: %s%s</li>\n", orDash(h(t.Time)), orDash(h(t.Selected)), h(t.Reason), cleared)
		}
		b.WriteString("</ul>\n")
	}
}

func htmlCorrections(b *strings.Builder, r *Report) {
	fmt.Fprintf(b, "<h2>Corrections (%d)</h2>\n", len(r.Corrections))
	if len(r.Corrections) == 0 {
		b.WriteString("<p class=\"muted\">none</p>\n")
		return
	}
	b.WriteString("<table id=\"corrections\"><tr><th>when</th><th>iteration</th><th>type</th><th>trail</th><th>description</th></tr>\n")
	for _, c := range r.Corrections {
		trail, it := "kept", "—"
		if c.TrailCleared {
			trail = "cleared"
		}
		if c.Iteration >= 0 {
			it = fmt.Sprint(c.Iteration)
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td class=\"n\">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			orDash(h(c.Time)), it, h(c.Type), trail, h(c.Description))
	}
	b.WriteString("</table>\n")
}

func htmlIterations(b *strings.Builder, r *Report) {
	b.WriteString("<h2>Iterations</h2>\n")
	if len(r.Iterations) == 0 {
		b.WriteString("<p class=\"muted\">no per-iteration history: see the notes</p>\n")
		return
	}
	b.WriteString(svgChart(r))
	b.WriteString("<table id=\"iterations\"><tr><th>iteration</th><th>started</th><th>took</th><th>unresolved at end</th><th>stall</th>" +
		"<th>resolved</th><th>reset to pending</th><th>added</th><th>backtracks</th><th>corrections</th></tr>\n")
	for _, it := range r.Iterations {
		fmt.Fprintf(b, "<tr><td class=\"n\">%d</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%d</td><td class=\"n\">%d</td>"+
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"n\">%d</td></tr>\n",
			it.N, it.Start.UTC().Format("15:04:05"), it.End.Sub(it.Start).Round(time.Second), it.Unresolved, it.Stall,
			hids(it.Resolved), hids(it.Reset), hids(it.Added), orDash(h(strings.Join(it.Backtracks, "; "))), it.Corrections)
	}
	b.WriteString("</table>\n")
}

func hids(s []string) string {
	if len(s) == 0 {
		return "—"
	}
	return h(strings.Join(s, " "))
}

// svgChart draws the run over time: unresolved and resolved atoms as
// lines, the stall count as a step line on its own scale, a dashed line
// where each iteration began.
func svgChart(r *Report) string {
	pts := r.Points
	const W, H, left, right, top, bottom = 860, 260, 48, 48, 16, 40
	pw, ph := float64(W-left-right), float64(H-top-bottom)
	t0, t1 := pts[0].At, pts[len(pts)-1].At
	span := max(t1.Sub(t0).Seconds(), 1)
	most := 1
	for _, p := range pts {
		most = max(most, p.Unresolved, p.Resolved)
	}
	maxStall := max(1, r.Objective.MaxStall)
	x := func(t time.Time) float64 { return left + pw*t.Sub(t0).Seconds()/span }
	y := func(v int) float64 { return top + ph - ph*float64(v)/float64(most) }
	ys := func(v int) float64 { return top + ph - ph*float64(min(v, maxStall))/float64(maxStall) }
	var b strings.Builder
	fmt.Fprintf(&b, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"unresolved atoms and stall count over time\">\n", W, H, W, H)
	fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" stroke=\"#d0d7de\"/>\n", left, top, pw, ph)
	for _, it := range r.Iterations {
		xi := x(it.Start)
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#d0d7de\" stroke-dasharray=\"3 3\"/>", xi, top, xi, top+ph)
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#6e7781\">%d</text>\n", xi, top+ph+14, it.N)
	}
	line := func(color string, step bool, val func(Point) float64) {
		var d strings.Builder
		for i, p := range pts {
			switch {
			case i == 0:
				fmt.Fprintf(&d, "M%.1f %.1f", x(p.At), val(p))
			case step:
				fmt.Fprintf(&d, " H%.1f V%.1f", x(p.At), val(p))
			default:
				fmt.Fprintf(&d, " L%.1f %.1f", x(p.At), val(p))
			}
		}
		fmt.Fprintf(&b, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", d.String(), color)
	}
	line("#cf222e", false, func(p Point) float64 { return y(p.Unresolved) })
	line("#1a7f37", false, func(p Point) float64 { return y(p.Resolved) })
	line("#9a6700", true, func(p Point) float64 { return ys(p.Stall) })
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#6e7781\">%d</text>", left-6, top+10, most)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" fill=\"#6e7781\">0</text>", left-6, top+ph)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#9a6700\">stall %d</text>", W-right+4, top+10, maxStall)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#6e7781\">iteration</text>", left, H-4)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#cf222e\">■ unresolved atoms</text>", left+90, H-4)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#1a7f37\">■ resolved atoms</text>", left+240, H-4)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#9a6700\">■ stall count (right scale)</text>\n", left+380, H-4)
	b.WriteString("</svg>\n")
	return b.String()
}

// htmlCosts writes the time, tokens and estimated cost per atom and per
// iteration as bars and tables, the totals and the tokens by model.
func htmlCosts(b *strings.Builder, r *Report) {
	c := &r.Costs
	b.WriteString("<h2>Cost and time</h2>\n")
	fmt.Fprintf(b, "<p class=\"muted\">%s</p>\n", c.explain(h))
	if !c.tokensRead() {
		fmt.Fprintf(b, "<p id=\"no-tokens\"><em>%s.</em></p>\n", h(c.Note))
	}
	fmt.Fprintf(b, "<p id=\"cost-total\"><strong>Total:</strong> %s</p>\n", c.totalLine(h))
	head := func(id, first, second string) {
		fmt.Fprintf(b, "<table id=\"%s\"><tr><th>%s</th><th>%s</th>", id, first, second)
		if c.tokensRead() {
			for _, x := range usageHeads {
				fmt.Fprintf(b, "<th>%s</th>", x)
			}
		}
		b.WriteString("</tr>\n")
	}
	row := func(first, second string, u *Usage) {
		fmt.Fprintf(b, "<tr><td>%s</td><td class=\"n\">%s</td>", first, h(second))
		if u != nil {
			for _, x := range u.cells() {
				fmt.Fprintf(b, "<td class=\"n\">%s</td>", h(x))
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("<h3>Per atom</h3>\n")
	if len(c.Atoms) == 0 {
		fmt.Fprintf(b, "<p class=\"muted\">%s</p>\n", c.none("no atom was in progress in the versions read"))
	} else {
		var bars []bar
		for _, a := range c.Atoms {
			name := a.Atom
			if name == "" {
				name = "no atom"
			}
			bars = append(bars, barOf(name, a.Seconds, a.InProgress, a.Usage))
		}
		b.WriteString(svgBars("atom-bars", "per atom", "time worked", bars, c.tokensRead()))
		head("atom-costs", "atom", "worked")
		for _, a := range c.Atoms {
			row(a.label(h), a.worked(), a.Usage)
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("<h3>Per iteration</h3>\n")
	if len(c.Iterations) == 0 {
		fmt.Fprintf(b, "<p class=\"muted\">%s</p>\n", c.none("no iterations in the versions read"))
	} else {
		var bars []bar
		for _, it := range c.Iterations {
			bars = append(bars, barOf(fmt.Sprintf("iteration %d", it.N), it.Seconds, false, it.Usage))
		}
		b.WriteString(svgBars("iteration-bars", "per iteration", "time", bars, c.tokensRead()))
		head("iteration-costs", "iteration", "took")
		for _, it := range c.Iterations {
			row(h(it.label()), took(it.Seconds), it.Usage)
		}
		b.WriteString("</table>\n")
	}
	if len(c.Models) > 0 {
		b.WriteString("<h3>By model</h3>\n<table id=\"model-costs\"><tr><th>model</th><th>input</th><th>output</th><th>cache write</th><th>cache read</th><th>cost (estimate)</th></tr>\n")
		for _, m := range c.Models {
			fmt.Fprintf(b, "<tr><td>%s</td>", h(m.Model))
			for _, x := range m.cells() {
				fmt.Fprintf(b, "<td class=\"n\">%s</td>", h(x))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
}

// bar is one row of svgBars: a name, a time in seconds (-1: not known)
// and, with tokens, an estimated cost (-1: none).
type bar struct {
	name    string
	seconds float64
	open    bool
	cost    float64
}

func barOf(name string, seconds float64, open bool, u *Usage) bar {
	x := bar{name: name, seconds: seconds, open: open, cost: -1}
	if u != nil {
		x.cost = u.CostUSD
	}
	return x
}

// svgBars draws each row's time as a horizontal bar and, with costs, its
// estimated cost as another beside it, each scaled to its column's
// largest; per says of what ("per atom").
func svgBars(id, per, timeHead string, rows []bar, costs bool) string {
	const W, rowH, top, nameW, barW, textW = 860, 22, 26, 150, 230, 130
	most, mostCost := 1.0, 0.0
	for _, r := range rows {
		most = max(most, r.seconds)
		mostCost = max(mostCost, r.cost)
	}
	H := top + rowH*len(rows) + 6
	label := timeHead + " " + per
	if costs {
		label = timeHead + " and estimated cost " + per
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">\n", id, W, H, W, H, label)
	tx, cx := nameW, nameW+barW+textW+20
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"16\" fill=\"#0969da\">■ %s</text>", tx, timeHead)
	if costs {
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"16\" fill=\"#1a7f37\">■ estimated cost</text>", cx)
	}
	b.WriteString("\n")
	for i, r := range rows {
		y := top + rowH*i
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", nameW-8, y+15, h(cut(r.name, 20)))
		if r.seconds >= 0 {
			w := float64(barW) * r.seconds / most
			color := "#0969da"
			if r.open {
				color = "#54aeff"
			}
			fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", tx, y+3, w, color)
			text := took(r.seconds)
			if r.open {
				text += " (in progress)"
			}
			fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%d\" fill=\"#6e7781\">%s</text>", float64(tx)+w+4, y+15, text)
		} else {
			fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" fill=\"#6e7781\">—</text>", tx, y+15)
		}
		if costs && r.cost >= 0 {
			w := 0.0
			if mostCost > 0 {
				w = float64(barW) * r.cost / mostCost
			}
			fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#1a7f37\"/>", cx, y+3, w)
			fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%d\" fill=\"#6e7781\">≈ %s</text>", float64(cx)+w+4, y+15, usd(r.cost))
		}
		b.WriteString("\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// cut shortens s to n runes, with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
