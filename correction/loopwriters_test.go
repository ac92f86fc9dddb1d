package correction

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The loop's own writers, as text edits, written for these tests from how
// the plugin's hook and scripts behave (yodakeisuke/ralph-wiggum-aot:
// hooks/subagent-stop-hook.sh, skills/*/scripts/*.py): they work on lines,
// not on YAML, and each reads the whole file and writes it back.

var (
	iterationRE = regexp.MustCompile(`(?m)^  iteration: (\d+)$`)
	stallRE     = regexp.MustCompile(`(?m)^  stall_count: (\d+)$`)
)

// hookContinue is the stop hook's continue step: iteration + 1 and the
// stall and pending counters rewritten.
func hookContinue(text string) string {
	m := iterationRE.FindStringSubmatch(text)
	if m == nil {
		return text
	}
	n, _ := strconv.Atoi(m[1])
	text = iterationRE.ReplaceAllString(text, "  iteration: "+strconv.Itoa(n+1))
	unresolved := strings.Count(text, "\n    status: pending") + strings.Count(text, "\n    status: in_progress")
	text = stallRE.ReplaceAllString(text, "  stall_count: 0")
	return regexp.MustCompile(`(?m)^  prev_pending_count: .*$`).ReplaceAllString(text, "  prev_pending_count: "+strconv.Itoa(unresolved))
}

// hookStop is the stop hook ending the loop (a limit reached).
func hookStop(text string) string {
	text = regexp.MustCompile(`(?m)^  status: .*$`).ReplaceAllString(text, "  status: stopped")
	return regexp.MustCompile(`(?m)^  stop_reason: .*$`).ReplaceAllString(text, `  stop_reason: "Max iterations reached"`)
}

// setStatus is set_status.py: every line starting "  status:".
func setStatus(text, status string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  status:") {
			lines[i] = "  status: " + status
		}
	}
	return strings.Join(lines, "\n")
}

// updateAtom is update_atom.py: the first status line after "- id: ID".
// ok is false when there is no such atom (the script fails, writes
// nothing).
func updateAtom(text, id, status string) (string, bool) {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "- id:") {
			in = strings.Trim(strings.TrimSpace(strings.SplitN(s, ":", 2)[1]), `"'`) == id
		}
		if in && strings.HasPrefix(s, "status:") {
			lines[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + "status: " + status
			return strings.Join(lines, "\n"), true
		}
	}
	return text, false
}

// sectionEnd is the index of the first top-level key line after the line
// starting with key (len(lines) when none), as the scripts find it — or
// of the frontmatter's closing line (where the scripts would run on into
// the body; these tests' files never need that).
func sectionEnd(lines []string, key string) (start, end int) {
	start, end = -1, len(lines)
	for i, l := range lines {
		if start < 0 {
			if strings.HasPrefix(l, key+":") {
				start = i
			}
			continue
		}
		if l == "---" || l != "" && !strings.HasPrefix(l, " ") && strings.Contains(l, ":") {
			return start, i
		}
	}
	return start, end
}

// insertInSection puts block at the end of section key, turning an empty
// flow value ({} or []) into a block, as the scripts do.
func insertInSection(text, key string, block []string) string {
	lines := strings.Split(text, "\n")
	start, end := sectionEnd(lines, key)
	if start < 0 {
		return text
	}
	if strings.Contains(lines[start], "{}") || strings.Contains(lines[start], "[]") {
		lines[start] = key + ":"
	}
	// A blank line before the next section stays after the new entries.
	for end > start+1 && lines[end-1] == "" {
		end--
	}
	out := append(append(append([]string{}, lines[:end]...), block...), lines[end:]...)
	return strings.Join(out, "\n")
}

// addBinding is add_binding.py for an atom without a binding.
func addBinding(text, id, summary string) string {
	return insertInSection(text, "bindings", []string{"  " + id + ":", `    summary: "` + summary + `"`})
}

// addAtom is add_atom.py.
func addAtom(text, id, desc string, deps ...string) string {
	return insertInSection(text, "atoms", []string{"  - id: " + id, `    description: "` + desc + `"`,
		"    status: pending", "    depends_on: [" + strings.Join(deps, ", ") + "]"})
}

// decompose is decompose_atom.py: the children inherit the parent's
// dependencies (given here), and a decompositions entry records them.
func decompose(text, parent string, deps []string, children ...string) string {
	var atoms []string
	for _, c := range children {
		atoms = append(atoms, "  - id: "+c, `    description: "part of `+parent+`"`, "    status: pending",
			"    depends_on: ["+strings.Join(deps, ", ")+"]", "    decomposed_from: "+parent)
	}
	text = insertInSection(text, "atoms", atoms)
	return insertInSection(text, "decompositions", []string{"  - parent: " + parent, "    children: [" + strings.Join(children, ", ") + "]",
		`    reason: "split"`, `    timestamp: "2026-01-02T00:00:00"`})
}

// switchOR is switch_or_branch.py: the group's selected line and a trail
// entry.
func switchOR(text, group, choice string) string {
	lines := strings.Split(text, "\n")
	start, end := sectionEnd(lines, "or_groups")
	in := false
	for i := start + 1; start >= 0 && i < end; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			in = strings.TrimSpace(l) == group+":"
		}
		if in && strings.HasPrefix(l, "    selected:") {
			lines[i] = "    selected: " + choice
		}
	}
	text = strings.Join(lines, "\n")
	return insertInSection(text, "trail", []string{"  - or_group: " + group, "    selected: " + choice,
		`    reason: "switched"`, `    timestamp: "2026-01-02T00:00:00"`})
}

// appendCorrection is someone's /redirect (the loop's own, or another
// aot-tui) recording a corrections[] entry.
func appendCorrection(text string, n int, typ string) string {
	return insertInSection(text, "corrections", []string{fmt.Sprintf(`  - timestamp: "2026-01-03T00:00:%02dZ"`, n%60),
		"    type: " + typ, fmt.Sprintf(`    description: "someone else's correction %d"`, n), "    trail_cleared: false"})
}
