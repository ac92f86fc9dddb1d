// Package looptools reads an AoT state file the way the loop's own tools
// do, line by line (DESIGN.md §3.4): the stop hook slices the frontmatter
// with awk, counts atoms with grep and reads control fields by their
// indentation; the Python scripts parse atoms line by line and read
// depends_on only in flow style. Tests use it to check that what aot-tui
// writes stays readable to them.
package looptools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aot-loop/aot-tui/model"
)

// Frontmatter is awk '/^---$/{p=!p; if(!p) exit; next} p'.
func Frontmatter(data []byte) []string {
	var out []string
	p := false
	for _, line := range strings.Split(string(data), "\n") {
		if line == "---" {
			p = !p
			if !p {
				break
			}
			continue
		}
		if p {
			out = append(out, line)
		}
	}
	return out
}

// value is the text after the first ": " (or ":"), without a trailing
// comment or quotes, as the hook's extraction and the scripts take it.
func value(line string) string {
	_, v, ok := strings.Cut(line, ": ")
	if !ok {
		_, v, _ = strings.Cut(line, ":")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.Trim(strings.TrimSpace(v), `"'`)
}

// CountStatus is grep -c '^    status: STATUS' (the whole word).
func CountStatus(fm []string, status string) int {
	n := 0
	for _, l := range fm {
		if strings.HasPrefix(l, "    status: ") && value(l) == status {
			n++
		}
	}
	return n
}

// Field is the hook's read of a field by its indentation: the first line
// starting with PREFIX followed by ':' (PREFIX carries the indentation,
// "  iteration"), and its value.
func Field(fm []string, prefix string) (string, bool) {
	for _, l := range fm {
		if strings.HasPrefix(l, prefix+":") {
			return value(l), true
		}
	}
	return "", false
}

// Atom is an atom as the scripts read it.
type Atom struct {
	ID, Status string
	Deps       []string
	// FlowDeps is true when depends_on was written in flow style.
	FlowDeps bool
}

// Atoms is the scripts' parser of the atoms section: "- id:" starts an
// atom, status and depends_on belong to the last one, depends_on is read
// only when its value starts with '[' (split on commas, quotes stripped).
func Atoms(fm []string) []Atom {
	var atoms []Atom
	in := false
	for _, l := range fm {
		if strings.HasPrefix(l, "atoms:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		// The section ends at the next line that does not start with a
		// space and has a colon (so these tools cannot read sequences
		// written at column 0).
		if l != "" && !strings.HasPrefix(l, " ") && strings.Contains(l, ":") {
			break
		}
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "- id:"):
			atoms = append(atoms, Atom{ID: value(s[2:])})
		case len(atoms) == 0:
		case strings.HasPrefix(s, "status:"):
			atoms[len(atoms)-1].Status = value(s)
		case strings.HasPrefix(s, "depends_on:"):
			if v := value(s); strings.HasPrefix(v, "[") {
				a := &atoms[len(atoms)-1]
				a.FlowDeps = true
				for _, d := range strings.Split(strings.Trim(v, "[]"), ",") {
					if d = strings.Trim(strings.TrimSpace(d), `"'`); d != "" {
						a.Deps = append(a.Deps, d)
					}
				}
			}
		}
	}
	return atoms
}

// Agree checks the loop tools' reading of data against st, aot-tui's
// parse of the same bytes: the hook's status counts and control fields
// (and that only control.status matches its sed's ^  status:), and every
// atom's id, status and flow-style depends_on as the scripts read them.
func Agree(data []byte, st *model.State) error {
	fm := Frontmatter(data)
	f := model.Derive(st)
	for _, c := range []struct {
		status string
		want   int
	}{{"pending", f.Counts.Pending}, {"in_progress", f.Counts.InProgress}, {"resolved", f.Counts.Resolved}} {
		if got := CountStatus(fm, c.status); got != c.want {
			return fmt.Errorf("the hook counts %d %s atoms, aot-tui %d", got, c.status, c.want)
		}
	}
	null := func(s string) string {
		if s == "" {
			return "null"
		}
		return s
	}
	c, k := st.Control, st.Objective.Constraints
	fields := []struct {
		prefix, key, want string
		lines             model.Lines
	}{
		{"  status", "status", string(c.Status), c.Lines},
		{"  iteration", "iteration", strconv.Itoa(c.Iteration), c.Lines},
		{"  stall_count", "stall_count", strconv.Itoa(c.StallCount), c.Lines},
		{"  prev_pending_count", "prev_pending_count", strconv.Itoa(c.PrevPendingCount), c.Lines},
		{"  stop_requested", "stop_requested", strconv.FormatBool(c.StopRequested), c.Lines},
		{"  stop_reason", "stop_reason", null(c.StopReason), c.Lines},
		{"  redirect_requested", "redirect_requested", strconv.FormatBool(c.RedirectRequested), c.Lines},
		{"    max_iterations", "max_iterations", strconv.Itoa(k.MaxIterations), k.Lines},
		{"    max_parallel_agents", "max_parallel_agents", strconv.Itoa(k.MaxParallelAgents), k.Lines},
		{"    max_stall_count", "max_stall_count", strconv.Itoa(k.MaxStallCount), k.Lines},
	}
	for _, x := range fields {
		if !x.lines.Has(x.key) {
			continue
		}
		got, ok := Field(fm, x.prefix)
		if ok && x.want == "null" && (got == "" || got == "~") {
			continue // null, ~ and "" all read as no reason
		}
		if !ok || got != x.want {
			return fmt.Errorf("the hook reads %s as %q (found %v), aot-tui %q", x.key, got, ok, x.want)
		}
	}
	n := 0
	for _, l := range fm {
		if strings.HasPrefix(l, "  status: ") {
			n++
		}
	}
	if c.Lines.Has("status") && n != 1 {
		return fmt.Errorf("%d lines match the hook's ^  status: (its sed would rewrite them all)", n)
	}
	atoms := Atoms(fm)
	if len(atoms) != len(st.Atoms) {
		return fmt.Errorf("the scripts see %d atoms, aot-tui %d", len(atoms), len(st.Atoms))
	}
	for i, a := range st.Atoms {
		la := atoms[i]
		if la.ID != a.ID || la.Status != string(a.Status) {
			return fmt.Errorf("atom %d: the scripts read id %q status %q, aot-tui %q %q", i, la.ID, la.Status, a.ID, a.Status)
		}
		if a.Lines.Has("depends_on") && !la.FlowDeps {
			return fmt.Errorf("atom %s: depends_on is not in flow style", a.ID)
		}
		if (len(a.DependsOn) > 0 || len(la.Deps) > 0) && !slices.Equal(la.Deps, a.DependsOn) {
			return fmt.Errorf("atom %s: the scripts read depends_on %v, aot-tui %v", a.ID, la.Deps, a.DependsOn)
		}
	}
	return nil
}
