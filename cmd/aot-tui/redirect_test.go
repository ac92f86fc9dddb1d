package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/sim/gen"
)

var updateCorrections = flag.Bool("update-corrections", false, "rewrite testdata/corrections/*.golden")

// correctionCases are shared with the TUI's flow tests (ui/redirect_test.go):
// the same correction typed in a form must write the same bytes.
var correctionCases = []struct {
	name string
	args []string
}{
	{"add-atom", []string{"redirect", "add-atom", "Write the runbook", "--depends-on", "A2"}},
	{"delete-atom", []string{"redirect", "delete-atom", "A8"}},
	{"force-or", []string{"redirect", "force-or", "audit_store", "A6", "--reason", "S3 has object lock now"}},
	{"constraints", []string{"redirect", "constraints", "--max-iterations", "30"}},
	{"objective", []string{"redirect", "objective", "--goal", "Ship billing with retries"}},
	{"objective-check", []string{"redirect", "objective", "--check", "1.2", "--value", "go test -race -count=1 ./billing/..."}},
	{"override-binding", []string{"redirect", "override-binding", "A3", "--summary", "Backoff 50ms doubling to 10s", "--artifacts", "internal/billing/retry.go"}},
	{"stop", []string{"stop", "--reason", "enough for today"}},
}

// loopFixture writes the shared correction fixture (rich.md with the
// handshake flag clear) into a temp project and returns the state path.
func loopFixture(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rich.md"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("redirect_requested: true"), []byte("redirect_requested: false"), 1)
	path := filepath.Join(t.TempDir(), "aot-loop-state.md")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCorrectionGoldens(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	for _, c := range correctionCases {
		t.Run(c.name, func(t *testing.T) {
			path := loopFixture(t)
			// Flags after positionals, -f last: both orders are accepted.
			code, out, errs := runCLI(t, append(c.args, "-f", path)...)
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, errs)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("..", "..", "testdata", "corrections", c.name+".golden")
			if *updateCorrections {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-corrections to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s wrote different bytes than %s", c.name, golden)
			}
			code, out, _ = runCLI(t, "validate", path)
			if code != 0 {
				t.Fatalf("the corrected file does not validate:\n%s", out)
			}
		})
	}
}

func TestCorrectionRefusalsLeaveBytes(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"redirect", "add-atom", "x", "--depends-on", "A99"}, "no atom A99 (atoms: A1, A2, A3, A4, A5, A6, A7, A8)"},
		{[]string{"redirect", "add-atom", "x", "--id", "A1"}, "already exists"},
		{[]string{"redirect", "add-atom", "x", "--depends-on", "A7", "--required-by", "A2"}, "cycle"},
		{[]string{"redirect", "delete-atom", "A1"}, "resolved"},
		{[]string{"redirect", "delete-atom", "A2"}, "--detach"},
		{[]string{"redirect", "force-or", "audit_store", "A1"}, "not one of"},
		{[]string{"redirect", "force-or", "audit_store", "A5"}, "already selects"},
		{[]string{"redirect", "constraints", "--max-iterations", "0"}, "positive"},
		{[]string{"redirect", "override-binding", "A2", "--summary", "x"}, "only a resolved atom"},
		{[]string{"redirect", "objective", "--goal", " "}, "cannot be empty"},
		{[]string{"redirect", "objective", "--check", "9", "--value", "x"}, "no checklist item 9"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			path := loopFixture(t)
			before, _ := os.ReadFile(path)
			code, _, errs := runCLI(t, append(c.args, "-f", path)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (refused); stderr %q", code, errs)
			}
			if !strings.Contains(errs, c.want) || !strings.Contains(errs, "rule:") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Fatalf("stderr should be one line naming the rule and %q, got %q", c.want, errs)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Fatal("a refused correction changed the file")
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Fatalf("temp files left behind: %v", entries)
			}
		})
	}
}

func TestCorrectionDryRunAndJSON(t *testing.T) {
	t.Setenv("AOT_TUI_NOW", "2026-01-01T12:00:00Z")
	path := loopFixture(t)
	before, _ := os.ReadFile(path)
	code, out, errs := runCLI(t, "redirect", "add-atom", "--dry-run", "Write the runbook", "-f", path, "--depends-on", "A2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "+  - id: A9") || !strings.Contains(out, "@@") {
		t.Fatalf("dry run should print a unified diff:\n%s", out)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("--dry-run wrote the file")
	}
	code, out, errs = runCLI(t, "redirect", "add-atom", "Write the runbook", "--json", "-f", path, "--note", "from a script")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	corr, _ := got["correction"].(map[string]any)
	if corr["type"] != "dag_adjustment" || corr["trail_cleared"] != false || corr["timestamp"] != "2026-01-01T12:00:00Z" ||
		!strings.Contains(corr["description"].(string), "note: from a script") {
		t.Fatalf("correction entry: %v", corr)
	}
	sum, _ := got["summary"].(map[string]any)
	if s, _ := sum["summary"].(map[string]any); s["total"] != float64(9) {
		t.Fatalf("summary after the correction: %v", sum["summary"])
	}
}

func TestStopRecordsNoCorrection(t *testing.T) {
	path := loopFixture(t)
	code, out, errs := runCLI(t, "stop", "-f", path, "--reason", "enough")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "stop_requested: true") || !strings.Contains(string(data), `stop_reason: "enough"`) && !strings.Contains(string(data), "stop_reason: enough") {
		t.Fatalf("stop did not set the flags:\n%s", data)
	}
	if strings.Count(string(data), "type: dag_adjustment")+strings.Count(string(data), "type: constraint_change") != 2 {
		t.Fatal("stop should record no correction entry")
	}
	if !strings.Contains(out, "stop requested") {
		t.Fatalf("output: %q", out)
	}
	if code, _, errs = runCLI(t, "stop", "-f", path); code != 1 || !strings.Contains(errs, "already requested") {
		t.Fatalf("a second stop: exit %d %q", code, errs)
	}
}

// The trail entry --json reports is the one written: the schema's four
// fields (seed 000 §4.7), no type.
func TestJSONTrailEntryHasTheSchemaFields(t *testing.T) {
	path := loopFixture(t)
	code, out, errs := runCLI(t, "redirect", "force-or", "audit_store", "A6", "--json", "--guard", "0", "-f", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		TrailEntry map[string]any `json:"trail_entry"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range res.TrailEntry {
		keys = append(keys, k)
	}
	if len(keys) != 4 || res.TrailEntry["or_group"] != "audit_store" || res.TrailEntry["selected"] != "A6" ||
		res.TrailEntry["reason"] == "" || res.TrailEntry["timestamp"] == "" {
		t.Fatalf("trail_entry %v", res.TrailEntry)
	}
}

// --dry-run shows the change itself at any size: a correction on a
// 1,000-atom file is a few dozen diff lines, not a whole-file rewrite.
func TestDryRunDiffStaysSmallOnLargeFiles(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		path := filepath.Join(t.TempDir(), "aot-loop-state.md")
		if err := os.WriteFile(path, gen.Generate(gen.Options{Atoms: n, Seed: 3, Resolved: 0.4, ORGroups: 3}), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "redirect", "add-atom", "Write the runbook", "--depends-on", "A1", "--dry-run", "-f", path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		lines := strings.Count(out, "\n")
		if lines > 40 || !strings.Contains(out, `+    description: "Write the runbook"`) {
			t.Errorf("%d atoms: the dry run printed %d lines:\n%s", n, lines, out[:min(len(out), 2000)])
		}
	}
}

// A file that is rewritten in place over and over, never whole when read,
// is exit 3 (it kept changing), never exit 1 (invalid state).
func TestFileKeptMidRewriteIsExit3(t *testing.T) {
	path := loopFixture(t)
	data, _ := os.ReadFile(path)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(path, data[:len(data)/2+i%101], 0o644) // write_text caught half way, again and again
			time.Sleep(time.Millisecond)
		}
	}()
	code, _, errs := runCLI(t, "redirect", "add-atom", "x", "-f", path)
	close(stop)
	<-done
	if code != exitConflict || !strings.Contains(errs, "kept changing") {
		t.Fatalf("exit %d: %s; want 3", code, errs)
	}
}

// A bad AOT_TUI_GUARD is a usage error naming the variable, not a silent
// fall back to the default; --guard given on the line wins over it.
func TestBadGuardEnvironmentIsNamed(t *testing.T) {
	path := loopFixture(t)
	before, _ := os.ReadFile(path)
	t.Setenv("AOT_TUI_GUARD", "soon")
	code, _, errs := runCLI(t, "redirect", "constraints", "--max-iterations", "30", "-f", path)
	if code != 2 || !strings.Contains(errs, "AOT_TUI_GUARD") {
		t.Fatalf("exit %d, stderr %q; want 2 naming AOT_TUI_GUARD", code, errs)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("the file changed")
	}
	if code, out, errs := runCLI(t, "redirect", "constraints", "--max-iterations", "30", "--guard", "0", "-f", path); code != 0 {
		t.Fatalf("with --guard: exit %d: %s%s", code, out, errs)
	}
}

// A bad AOT_TUI_NOW is a usage error naming the variable, not a silent
// fall back to the clock (a scripted demo would stamp the wrong time).
func TestBadNowEnvironmentIsNamed(t *testing.T) {
	path := loopFixture(t)
	before, _ := os.ReadFile(path)
	t.Setenv("AOT_TUI_NOW", "yesterday")
	code, _, errs := runCLI(t, "redirect", "constraints", "--max-iterations", "30", "-f", path)
	if code != 2 || !strings.Contains(errs, "AOT_TUI_NOW") {
		t.Fatalf("exit %d, stderr %q; want 2 naming AOT_TUI_NOW", code, errs)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("the file changed")
	}
	t.Setenv("AOT_TUI_NOW", "2026-01-02T15:04:05Z")
	if code, out, errs := runCLI(t, "redirect", "constraints", "--max-iterations", "30", "-f", path); code != 0 {
		t.Fatalf("with a good AOT_TUI_NOW: exit %d: %s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(path); !strings.Contains(string(after), "2026-01-02T15:04:05Z") {
		t.Fatal("the correction is not stamped with AOT_TUI_NOW")
	}
}
