package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Apply only what was previewed, on the built binary: the preview is
// planned on a version (its sha256 the dry run's before_sha256, as cat
// --json says it); the apply with --expect-sha256 lands exactly the
// preview's bytes when nothing wrote in between, and is refused (exit 4,
// nothing written) when the loop wrote.

// updateAtomPy does what the plugin's update_atom.py does to the file
// (written for this test): read it whole, set the first status line after
// "- id: ATOM", write it back in place.
const updateAtomPy = `import sys, pathlib
p, atom, status = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
lines, inside = p.read_text().split("\n"), False
for i, l in enumerate(lines):
    s = l.strip()
    if s.startswith("- id:"):
        inside = s.split(":", 1)[1].strip().strip("\"'") == atom
    elif inside and s.startswith("status:"):
        lines[i] = l[: len(l) - len(l.lstrip())] + "status: " + status
        break
p.write_text("\n".join(lines))
`

type expectOut struct {
	Written      bool   `json:"written"`
	BeforeSHA256 string `json:"before_sha256"`
	AfterSHA256  string `json:"after_sha256"`
	// The error object of a refusal.
	Error          string `json:"error"`
	ExitCode       int    `json:"exit_code"`
	Kind           string `json:"kind"`
	Path           string `json:"path"`
	ExpectedSHA256 string `json:"expected_sha256"`
	SHA256         string `json:"sha256"`
}

// runAt runs the built aot-tui with the corrections stamped at one time
// (as a preview and its apply are, with --timestamp), its JSON decoded.
func runAt(t *testing.T, bin string, args ...string) (int, expectOut, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AOT_TUI_NOW=2026-03-04T05:06:07Z")
	code, stdout, stderr := runCmd(t, cmd)
	var out expectOut
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: exit %d, stdout %q is not one JSON object: %v; stderr %s", args, code, stdout, err, stderr)
	}
	return code, out, stderr
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

var addAtomArgs = []string{"redirect", "add-atom", "Write the runbook", "--depends-on", "A2", "--json", "--guard", "0"}

func TestExpectSHA256LandsExactlyThePreview(t *testing.T) {
	bin := binary(t)
	path := loopFixture(t)
	version := fileSHA256(t, path)
	code, preview, stderr := runAt(t, bin, append(addAtomArgs, "-f", path, "--dry-run")...)
	if code != 0 || preview.BeforeSHA256 != version || preview.AfterSHA256 == version {
		t.Fatalf("preview: exit %d, before %s after %s, the file's %s: %s", code, preview.BeforeSHA256, preview.AfterSHA256, version, stderr)
	}
	code, applied, stderr := runAt(t, bin, append(addAtomArgs, "-f", path, "--expect-sha256", strings.ToUpper(version))...)
	if code != 0 || !applied.Written || stderr != "" {
		t.Fatalf("apply: exit %d, written %v: %s", code, applied.Written, stderr)
	}
	if got := fileSHA256(t, path); got != preview.AfterSHA256 || applied.AfterSHA256 != got {
		t.Fatalf("the file's sha256 is %s, the apply said %s; the preview's was %s", got, applied.AfterSHA256, preview.AfterSHA256)
	}
}

// The loop (update_atom.py, a second process) writes between the
// preview and the apply: the apply is refused, exit 4, with the JSON
// error naming both versions, and the file is the loop's.
func TestExpectSHA256RefusesWhatTheLoopWroteSinceThePreview(t *testing.T) {
	bin := binary(t)
	python := loopPython(t)
	path := loopFixture(t)
	code, preview, stderr := runAt(t, bin, append(addAtomArgs, "-f", path, "--dry-run")...)
	if code != 0 {
		t.Fatalf("preview: exit %d: %s", code, stderr)
	}
	if out, err := exec.Command(python, "-c", updateAtomPy, path, "A8", "in_progress").CombinedOutput(); err != nil {
		t.Fatalf("the loop's write: %v: %s", err, out)
	}
	loop, _ := os.ReadFile(path)
	code, refused, stderr := runAt(t, bin, append(addAtomArgs, "-f", path, "--expect-sha256", preview.BeforeSHA256)...)
	if code != exitStale || refused.ExitCode != exitStale || refused.Kind != "stale" || refused.Path != path ||
		refused.ExpectedSHA256 != preview.BeforeSHA256 || refused.SHA256 != fmt.Sprintf("%x", sha256.Sum256(loop)) {
		t.Fatalf("exit %d, %+v; want 4 and the stale error naming both versions", code, refused)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "no longer the version previewed") || !strings.Contains(stderr, path) {
		t.Fatalf("stderr %q: want one line naming the file", stderr)
	}
	if now, _ := os.ReadFile(path); string(now) != string(loop) {
		t.Fatal("the file is not the loop's write")
	}
}

// Every command that writes a correction takes --expect-sha256: redirect
// undo too (the table of exit codes covers the others), and --timestamp
// stamps the correction as the preview was.
func TestExpectSHA256OnUndoAndTimestamp(t *testing.T) {
	bin := binary(t)
	path := loopFixture(t)
	code, _, stderr := runAt(t, bin, append(addAtomArgs, "-f", path, "--timestamp", "2027-01-02T03:04:05Z")...)
	if code != 0 || !strings.Contains(readFile(t, path), `timestamp: "2027-01-02T03:04:05Z"`) {
		t.Fatalf("add-atom --timestamp: exit %d: %s\n%s", code, stderr, readFile(t, path))
	}
	before := readFile(t, path)
	zeros := strings.Repeat("0", 64)
	if code, out, _ := runAt(t, bin, "redirect", "undo", "-f", path, "--json", "--expect-sha256", zeros); code != exitStale || out.Kind != "stale" {
		t.Fatalf("undo --expect-sha256 of another version: exit %d, %+v", code, out)
	}
	if readFile(t, path) != before {
		t.Fatal("a refused undo wrote")
	}
	if code, out, stderr := runAt(t, bin, "redirect", "undo", "-f", path, "--json", "--expect-sha256", fileSHA256(t, path)); code != 0 || !out.Written {
		t.Fatalf("undo --expect-sha256 of the version: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{{"--expect-sha256", "abc"}, {"--expect-sha256", zeros + "00"}, {"--timestamp", "yesterday"}} {
		code, _, stderr := cli(t, append([]string{"stop", "-f", path}, bad...)...)
		if code != exitUsage || !strings.Contains(stderr, bad[0]) {
			t.Errorf("stop %v: exit %d, %q; want 2 naming the flag", bad, code, stderr)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
