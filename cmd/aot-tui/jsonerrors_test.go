package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aot-loop/aot-tui/correction"
	"github.com/aot-loop/aot-tui/internal/termtext"
	"github.com/aot-loop/aot-tui/statefile"
	"github.com/spf13/cobra"
)

// decodeOnly decodes stdout as exactly one JSON object: nothing before or
// after it.
func decodeOnly(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value:\n%s", stdout)
	}
	return m
}

// checkJSONError: an error under --json is one line on stderr and the same
// message as one JSON object on stdout, with the exit code and its kind.
func checkJSONError(t *testing.T, code int, stdout, stderr string, wantCode int, wantKind, wantMsg string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, wantCode, stdout, stderr)
	}
	line, ok := strings.CutPrefix(stderr, "aot-tui: ")
	if !ok || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Fatalf("stderr should be one line starting with aot-tui:, got %q", stderr)
	}
	line = strings.TrimSuffix(line, "\n")
	if !strings.Contains(line, wantMsg) {
		t.Errorf("stderr %q lacks %q", stderr, wantMsg)
	}
	m := decodeOnly(t, stdout)
	sameKeys(t, "error object", m, "error", "exit_code", "kind")
	if m["error"] != line || m["exit_code"] != float64(wantCode) || m["kind"] != wantKind {
		t.Errorf("error object = %v, want error %q, exit_code %d, kind %q", m, line, wantCode, wantKind)
	}
}

func TestJSONErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.md")
	empty := t.TempDir()
	valid, phase := testdata("seed-complete.md"), testdata("seed-phase-loop.json")
	loop := loopFixture(t)
	stopped := loopFixture(t)
	if code, _, stderr := cli(t, "stop", "-f", stopped); code != 0 {
		t.Fatalf("stop: exit %d %s", code, stderr)
	}
	notFound := "point -f at a state file or a project directory"
	tests := []struct {
		name string
		args []string
		code int
		kind string
		msg  string
	}{
		{"status missing path", []string{"status", "--json", "-f", missing}, 2, "usage", missing + " does not exist — " + notFound},
		{"validate missing path", []string{"validate", missing, "--json"}, 2, "usage", notFound},
		{"gate missing path", []string{"gate", "--json", missing}, 2, "usage", notFound},
		{"redirect missing path", []string{"redirect", "add-atom", "x", "--json", "-f", missing}, 2, "usage", notFound},
		{"stop missing path", []string{"stop", "--json", "-f", missing}, 2, "usage", notFound},

		{"status dir without a state file", []string{"status", "--json", "-f", empty}, 2, "usage", "no .claude/aot-loop-state.md or .claude/autonomous-loop.json in " + empty},
		{"validate dir without a state file", []string{"validate", "--json", empty}, 2, "usage", empty},
		{"gate dir without a state file", []string{"gate", "--json", "-f", empty}, 2, "usage", empty},
		{"redirect dir without a state file", []string{"redirect", "constraints", "--max-iterations", "5", "--json", "-f", empty}, 2, "usage", empty},
		{"stop dir without a state file", []string{"stop", empty, "--json"}, 2, "usage", empty},

		{"redirect refused", []string{"redirect", "add-atom", "x", "--depends-on", "A99", "--json", "-f", loop}, 1, "invalid", "no atom A99 (atoms: "},
		{"redirect refused, --json=true", []string{"redirect", "delete-atom", "A1", "--json=true", "-f", loop}, 1, "invalid", "resolved"},
		{"stop refused", []string{"stop", "--json", "-f", stopped}, 1, "invalid", "already requested"},

		{"status unknown flag after --json", []string{"status", "--json", "--bogus", valid}, 2, "usage", "status: unknown flag: --bogus"},
		{"status unknown flag before --json", []string{"status", "--bogus", "--json", valid}, 2, "usage", "status: unknown flag: --bogus"},
		{"validate unknown shorthand", []string{"validate", "-x", "--json", valid}, 2, "usage", "validate: unknown shorthand flag: 'x' in -x"},
		{"gate unknown flag", []string{"gate", "--ready", "--json"}, 2, "usage", "gate: unknown flag: --ready"},
		{"redirect unknown flag", []string{"redirect", "force-or", "g", "A1", "--force", "--json", "-f", loop}, 2, "usage", "redirect force-or: unknown flag: --force"},
		{"stop unknown flag", []string{"stop", "--why", "x", "--json", "-f", loop}, 2, "usage", "stop: unknown flag: --why"},

		{"status two paths", []string{"status", "--json", valid, phase}, 2, "usage", "status: accepts at most 1 arg"},
		{"gate on a phase loop", []string{"gate", "--json", phase}, 2, "usage", "is a phase loop"},
		{"validate -f and another path", []string{"validate", "--json", "-f", valid, phase}, 2, "usage", "not both"},
		{"redirect without a description", []string{"redirect", "add-atom", "--json", "-f", loop}, 2, "usage", "redirect add-atom: requires at least 1 arg"},
		{"redirect constraints without a limit", []string{"redirect", "constraints", "--json", "-f", loop}, 1, "invalid", "nothing to change: give at least one of"},
		{"redirect bad number", []string{"redirect", "constraints", "--json", "--max-iterations", "abc", "-f", loop}, 2, "usage", `--max-iterations takes a whole number, not "abc"`},
		{"status bad --max-size before --json", []string{"status", "--max-size", "big", "--json", valid}, 2, "usage", `--max-size takes a whole number, not "big"`},
		{"validate over --max-size", []string{"validate", "--json", "--max-size", "100", valid}, 2, "usage", valid},

		{"status --scan missing dir", []string{"status", "--scan", missing, "--json"}, 2, "usage", "--scan " + missing},
		{"status --scan a file", []string{"status", "--json", "--scan", valid}, 2, "usage", "not a directory"},
		{"status --scan with -f", []string{"status", "--scan", "-f", empty, "--json"}, 2, "usage", "-f names one loop"},
		{"status --scan negative depth", []string{"status", "--scan", "--depth", "-1", "--json", empty}, 2, "usage", "--depth must not be negative"},
		{"status --scan bad depth", []string{"status", "--json", "--scan", "--depth", "x", empty}, 2, "usage", `--depth takes a whole number, not "x"`},
		{"status --depth without --scan", []string{"status", "--json", "--depth", "2", valid}, 2, "usage", "--depth goes with --scan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tt.args...)
			checkJSONError(t, code, stdout, stderr, tt.code, tt.kind, tt.msg)
		})
	}

	// Without --json (or with --json=false, or -f taking "--json" as its
	// value) an error stays on stderr only.
	for _, args := range [][]string{
		{"status", "-f", missing},
		{"status", "--json=false", "-f", missing},
		{"status", "--bogus"},
		{"status", "-f", "--json"},
		{"redirect", "add-atom", "x", "--note", "--json", "-f", missing},
		{"redirect", "constraints", "--max-iterations", "abc"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}

	// A result is not an error: validate, gate and status print their one
	// object and exit 1, with nothing added.
	for _, args := range [][]string{
		{"validate", "--json", testdata("invalid/cycle.md")},
		{"validate", "--json", testdata("invalid/syntax-error.md")},
		{"gate", "--json", valid},
		{"status", "--json", testdata("invalid/syntax-error.md")},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitInvalid || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if m := decodeOnly(t, stdout); m["exit_code"] != nil || m["kind"] == "invalid" {
			t.Errorf("%v: the result has an error object's keys: %v", args, m)
		}
	}
}

// TestJSONErrorOnce: a command that has printed its JSON result and then
// fails gets no second object; a conflict's kind is "conflict".
func TestJSONErrorOnce(t *testing.T) {
	for _, tt := range []struct {
		name    string
		printed bool
		code    int
		kind    string
	}{
		{"failed after its result", true, exitInvalid, ""},
		{"conflict", false, exitConflict, "conflict"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := newRootCmd(&stdout, &stderr)
			var asJSON bool
			probe := &cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, _ []string) error {
				if tt.printed {
					writeJSON(cmd.OutOrStdout(), map[string]any{"ok": false})
				}
				return fail(tt.code, "it went wrong")
			}}
			probe.Flags().BoolVar(&asJSON, "json", false, "")
			root.AddCommand(probe)
			code := execute(root, []string{"probe", "--json"}, &stdout, &stderr)
			if tt.printed {
				if m := decodeOnly(t, stdout.String()); m["ok"] != false || len(m) != 1 {
					t.Errorf("stdout = %s", stdout.String())
				}
				if code != tt.code || stderr.String() != "aot-tui: it went wrong\n" {
					t.Errorf("exit %d, stderr %q", code, stderr.String())
				}
				return
			}
			checkJSONError(t, code, stdout.String(), stderr.String(), tt.code, tt.kind, "it went wrong")
		})
	}
}

// A correction's error carries the path and the file's text as they are,
// and the one error printer escapes them: \x1b in the line, \u001b in the
// --json object, which decodes to the path itself — not to a text escape
// of it, as when the message was escaped before it reached the printer.
func TestCorrectionErrorIsEscapedOnce(t *testing.T) {
	path := filepath.Join("x\x1b]0;t\x07\u202e", ".claude", "aot-loop-state.md")
	for _, written := range []bool{false, true} {
		sd := &correction.StandDownError{Summary: "add atom \x1b[31mA9", Kind: correction.StandDownNewLoop, Reason: "the goal differs", Written: written}
		var stdout, stderr bytes.Buffer
		root := newRootCmd(&stdout, &stderr)
		w := &writeFlags{}
		probe := &cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, _ []string) error {
			return correctionFailed(cmd, w, statefile.Target{Path: path, Kind: statefile.KindAoT}, nil, sd)
		}}
		probe.Flags().BoolVar(&w.json, "json", false, "")
		root.AddCommand(probe)
		code := execute(root, []string{"probe", "--json"}, &stdout, &stderr)
		want := sd.Error() + " (" + path + ")"
		if written {
			want = sd.Error() + " — " + path + " holds something else now; run the correction again if it is meant for it"
		}
		if line := "aot-tui: " + termtext.Line(want) + "\n"; code != exitConflict || stderr.String() != line {
			t.Errorf("written %v: exit %d, stderr\n%q\nwant 3 and\n%q", written, code, stderr.String(), line)
		}
		m := decodeOnly(t, stdout.String())
		if m["error"] != want || m["exit_code"] != float64(exitConflict) || m["kind"] != "conflict" || !strings.Contains(stdout.String(), `x\u001b]0;t\u0007\u202e`) {
			t.Errorf("written %v: the error object\n%s\ndecodes to %q, want %q", written, stdout.String(), m["error"], want)
		}
	}
}
