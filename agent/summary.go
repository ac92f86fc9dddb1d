package agent

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aot-loop/aot-tui/internal/termtext"
)

// clean is s made safe to draw (one line, control and bidi characters
// escaped) and cut to at most n runes, "…" ending a cut one. Every string
// the package hands out goes through it.
func clean(s string, n int) string {
	s = termtext.Line(strings.TrimSpace(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-1 {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// Lengths of what is kept, in runes.
const (
	summaryRunes = 120
	nameRunes    = 60
	messageRunes = 200
)

// summarize is the short summary of a tool call's input: what the activity
// line shows after the tool's name. project is the loop's directory:
// paths inside it are shown relative to it.
func summarize(b *Block, project string) string {
	var s string
	switch b.Name {
	case "Bash", "PowerShell":
		s = shortCommand(b.field("command"))
	case "Read", "Write", "Edit", "MultiEdit":
		s = relPath(b.field("file_path"), project)
	case "NotebookEdit", "NotebookRead":
		s = relPath(b.field("notebook_path"), project)
	case "Glob", "Grep":
		s = b.field("pattern")
		if p := b.field("path"); p != "" {
			s += " in " + relPath(p, project)
		}
	case "Task", "Agent":
		s = roleOf(b.field("subagent_type"))
		if d := b.field("description"); d != "" {
			s += ": " + d
		}
	case "WebFetch":
		s = b.field("url")
	case "WebSearch":
		s = b.field("query")
	case "AskUserQuestion":
		s = b.field("questions")
		if s == "" {
			s = b.field("question")
		}
	case "ExitPlanMode":
		s = "plan ready for approval"
	case "Skill", "SlashCommand":
		s = firstOf(b, "skill", "command")
	default:
		for _, f := range b.Input {
			if f.Value != "" {
				s = f.Value
				break
			}
		}
	}
	return clean(firstLine(s), summaryRunes)
}

func firstOf(b *Block, keys ...string) string {
	for _, k := range keys {
		if v := b.field(k); v != "" {
			return v
		}
	}
	return ""
}

// firstLine is s's first non-empty line, with " …" when more follow.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// shortCommand is a shell command with its whitespace collapsed and long
// paths cut to their last element: "python3 …update_atom.py A3 resolved".
func shortCommand(cmd string) string {
	line := firstLine(cmd)
	words := strings.Fields(line)
	for i, w := range words {
		words[i] = shortPathWord(w)
	}
	return strings.Join(words, " ")
}

// shortPathWord is a long word (over 24 characters) that is a path of two
// directories or more, cut to "…" and its last element; any other word as
// it is (go test ./internal/auth/... stays whole).
func shortPathWord(w string) string {
	if len(w) <= 24 || strings.Count(w, "/")+strings.Count(w, `\`) < 2 || strings.Contains(w, "://") {
		return w
	}
	quote := ""
	if strings.HasPrefix(w, `"`) || strings.HasPrefix(w, `'`) {
		quote, w = w[:1], w[1:]
	}
	t := strings.TrimRight(w, `/\`)
	i := strings.LastIndexAny(t, `/\`)
	if i < 0 || i == len(t)-1 {
		return quote + w
	}
	return quote + "…" + w[i+1:]
}

// relPath is path relative to project when inside it.
func relPath(path, project string) string {
	if path == "" || project == "" {
		return path
	}
	if rel, err := filepath.Rel(project, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// roleOf is the role a subagent_type names: its part after the plugin's
// prefix, without "aot-" ("ralph-wiggum-aot:aot-worker" → "worker").
func roleOf(subagentType string) string {
	r := subagentType
	if i := strings.LastIndex(r, ":"); i >= 0 {
		r = r[i+1:]
	}
	r = strings.TrimPrefix(r, "aot-")
	if r == "" {
		return "agent"
	}
	return r
}

// The transcripts' marks, compiled when first used: a command that reads
// no transcript (status --no-activity, a correction) does not pay for them
// at start (0.16 ms of every run, GODEBUG=inittrace=1).
var (
	// updateMark is the loop's own mark of the atom it works on, in a
	// Bash call: update_atom.py A3 in_progress | resolved | pending.
	updateMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`update_atom\.py\s+(?:--state-file[= ]\S+\s+)?["']?([A-Za-z0-9_.-]+)["']?\s+["']?(in_progress|resolved|pending)\b`)
	})
	// iterationMark is an iteration's number in a coordinator's Task
	// description ("AoT Loop iteration 3") or the stop hook's message
	// ("AoT iteration 3 | Unresolved: …").
	iterationMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\biteration\s+#?(\d{1,6})\b`) })
	// atomWord is an atom id in a description when the atoms are not
	// known: A1, A4_jwt, B12.
	atomWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Z]\d+(?:_[A-Za-z0-9]+)*\b`) })
)

type mark struct {
	atom, status string
}

// marksIn are the update_atom.py marks of a command, in order.
func marksIn(cmd string) []mark {
	var out []mark
	for _, m := range updateMark().FindAllStringSubmatch(cmd, -1) {
		out = append(out, mark{atom: m[1], status: m[2]})
	}
	return out
}

// iterationIn is the iteration number s names (ok false: none).
func iterationIn(s string) (int, bool) {
	m := iterationMark().FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// atomIn is the atom s names: the first of known that s holds as a word,
// else (known empty) the first word shaped like an atom id.
func atomIn(s string, known map[string]bool) string {
	if len(known) > 0 {
		for _, w := range atomWord().FindAllString(s, -1) {
			if known[w] {
				return w
			}
		}
		// ids of other shapes (a3, setup-db): a known id as a whole word
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return !(r == '_' || r == '-' || r == '.' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
		}) {
			if known[w] {
				return w
			}
		}
		return ""
	}
	return atomWord().FindString(s)
}
