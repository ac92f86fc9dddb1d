package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/internal/textsafe"
)

var escapeSeed = flag.Uint64("escape-seed", 0, "replay one case of TestNoUnsafeCharacterInAnyOutput (the seed it logs on failure)")

// unsafeRunes are the characters no output may carry raw: a sample of each
// kind internal/textsafe names (C0, DEL, C1 with CSI/ST/OSC, the bidi
// controls, the separators).
var unsafeRunes = []rune{0x01, 0x07, 0x08, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9c, 0x9d, 0x9f,
	0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029}

// hostileText is text with n unsafe characters (and the start of an OSC
// and a CSI) at random places.
func hostileText(rng *rand.Rand, base string, n int, pathSafe bool) []rune {
	out := []rune(base)
	for range n {
		r := unsafeRunes[rng.IntN(len(unsafeRunes))]
		if pathSafe && runtime.GOOS == "windows" && r < 0x20 {
			r = 0x9b // Windows names take no C0 controls
		}
		i := rng.IntN(len(out) + 1)
		seq := []rune{r}
		if r == 0x1b {
			seq = []rune("\x1b]0;pwned\x07")
		}
		out = append(out[:i], append(seq, out[i:]...)...)
	}
	return out
}

// yamlEscaped writes runes inside a YAML double-quoted scalar, every
// character outside printable ASCII as \uXXXX (or \UXXXXXXXX).
func yamlEscaped(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

var quoted = regexp.MustCompile(`(?m)^(\s*-?\s*(?:goal|item|description|criterion|background_intent|deliverables|definition_of_done|reason|summary|owner|[0-9]+)): "((?:[^"\\]|\\.)*)"`)

// hostileState is rich.md with unsafe characters in its strings (the goal,
// items, descriptions, reasons, summaries, corrections) and its stop_reason.
func hostileState(t *testing.T, rng *rand.Rand) string {
	t.Helper()
	data, err := os.ReadFile(testdata("rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "redirect_requested: true", "redirect_requested: false", 1)
	s = quoted.ReplaceAllStringFunc(s, func(m string) string {
		sub := quoted.FindStringSubmatch(m)
		if rng.IntN(3) == 0 {
			return m
		}
		return sub[1] + `: "` + sub[2] + yamlEscaped(hostileText(rng, "", 1+rng.IntN(3), false)) + `"`
	})
	return strings.Replace(s, "stop_reason: null", `stop_reason: "`+yamlEscaped(hostileText(rng, "why", 3, false))+`"`, 1)
}

// The text and JSON outputs of every command, and every error line, carry
// no control or bidi character raw, whatever the state file's strings and
// the paths hold: text shows them escaped (\x1b, \u202e), JSON as \u
// escapes, Markdown and HTML as the escaped text. A property test over
// random files (-escape-seed replays one).
func TestNoUnsafeCharacterInAnyOutput(t *testing.T) {
	seeds := []uint64{*escapeSeed}
	if *escapeSeed == 0 {
		seeds = seeds[:0]
		for i := range 12 {
			seeds = append(seeds, uint64(i+1)*0x9e3779b97f4a7c15)
		}
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, seed^0xabad1dea))
		root := t.TempDir()
		project := filepath.Join(root, string(hostileText(rng, "project", 2, true)))
		state := writeFile(t, project, ".claude/aot-loop-state.md", hostileState(t, rng))
		if code, _, stderr := cli(t, "validate", "--json", state); code > 1 {
			t.Fatalf("seed %d: the hostile file does not parse: %s", seed, stderr)
		}
		// A value of the wrong type, quoted back in the error.
		broken := writeFile(t, root, "broken/.claude/aot-loop-state.md",
			strings.Replace(hostileState(t, rng), "max_iterations: 20", `max_iterations: "`+yamlEscaped(hostileText(rng, "ten", 2, false))+`"`, 1))
		missing := filepath.Join(root, string(hostileText(rng, "gone", 2, true)), "aot-loop-state.md")
		arg := string(hostileText(rng, "arg", 3, false))
		runs := [][]string{
			{"status", "-f", project}, {"status", "--json", "-f", project},
			{"validate", project}, {"validate", "--json", project},
			{"gate", project}, {"gate", "--json", project},
			{"report", "--no-journal", project}, {"report", "--no-journal", "--format", "json", project},
			{"report", "--no-journal", "--format", "html", project},
			{"status", "--scan", root}, {"status", "--scan", "--json", root},
			{"redirect", "add-atom", arg, "--dry-run", "-f", project},
			{"redirect", "add-atom", arg, "--note", arg, "-f", project},
			{"redirect", "add-atom", arg, "--note", arg, "--json", "-f", project},
			{"stop", "--reason", arg, "--json", "--dry-run", "-f", project},
			{"status", "--json", "-f", project}, {"status", "-f", project}, // after the writes
			{"validate", broken}, {"validate", "--json", broken}, {"status", "--json", broken},
			{"status", missing}, {"status", "--json", missing}, {"validate", "--json", missing},
			{"redirect", "constraints", "--max-iterations", "5", "-f", missing}, {"verify", "--json", missing},
			{"replay", missing + ".jsonl"}, {"report", "--journal", missing + ".jsonl"},
			{"status", "--" + arg}, {"redirect", arg},
		}
		// The file's own commands succeed (gate: 1, not ready); the
		// broken file is invalid (1); the rest are errors.
		for i, args := range runs {
			code, stdout, stderr := cli(t, args...)
			for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				for i, r := range out {
					if r != '\n' && textsafe.Unsafe(r) {
						t.Fatalf("seed %d: aot-tui %q (exit %d): %U raw in %s at %d:\n%s", seed, args, code, r, name, i, out)
					}
				}
			}
			if stdout+stderr == "" {
				t.Fatalf("seed %d: aot-tui %q printed nothing (exit %d)", seed, args, code)
			}
			if i < 17 && code > 1 || (i == 17 || i == 18) && code != 1 {
				t.Fatalf("seed %d: aot-tui %q: exit %d\n%s%s", seed, args, code, stdout, stderr)
			}
		}
	}
}

// The escaping, exactly: a path with an OSC, a C1 CSI and a right-to-left
// override, in the error line (text escapes) and the error object (JSON
// \u escapes, decoding to the path itself).
func TestErrorLineAndObjectEscapeExactly(t *testing.T) {
	dir := t.TempDir()
	name := "x\u009b31m\u202e"
	if runtime.GOOS != "windows" {
		name = "x\x1b]0;t\x07\u009b31m\u202e"
	}
	missing := filepath.Join(dir, name, "s.md")
	shown := filepath.Join(dir, `x\x1b]0;t\x07\u009b31m\u202e`, "s.md")
	// In JSON a backslash of the path is \\; the characters are \u escapes.
	sep := strings.ReplaceAll(string(filepath.Separator), `\`, `\\`)
	inJSON := strings.ReplaceAll(dir, `\`, `\\`) + sep + `x\u001b]0;t\u0007\u009b31m\u202e` + sep + "s.md"
	if runtime.GOOS == "windows" {
		shown = filepath.Join(dir, `x\u009b31m\u202e`, "s.md")
		inJSON = strings.ReplaceAll(dir, `\`, `\\`) + sep + `x\u009b31m\u202e` + sep + "s.md"
	}
	code, stdout, stderr := cli(t, "status", "--json", "-f", missing)
	wantLine := "aot-tui: state file not found: " + shown + " does not exist — point -f at a state file or a project directory\n"
	if code != exitUsage || stderr != wantLine {
		t.Fatalf("exit %d, stderr\n%q\nwant\n%q", code, stderr, wantLine)
	}
	wantJSON := "{\n  \"error\": \"state file not found: " + inJSON + " does not exist — point -f at a state file or a project directory\",\n  \"exit_code\": 2,\n  \"kind\": \"usage\"\n}\n"
	if stdout != wantJSON {
		t.Fatalf("stdout\n%s\nwant\n%s", stdout, wantJSON)
	}
	if m := decodeOnly(t, stdout); m["error"] != "state file not found: "+missing+" does not exist — point -f at a state file or a project directory" {
		t.Fatalf("the error object decodes to %q", m["error"])
	}
}
