package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only state file is refused by the CLI as the TUI refuses it — it
// used to be replaced, since a rename only needs the directory —, even for
// root: exit 2 (an I/O error), one line naming the file, its mode and the
// fix; the file byte-identical.
func TestRedirectRefusesAReadOnlyFile(t *testing.T) {
	path := loopFixture(t)
	before, _ := os.ReadFile(path)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o644) })
	code, out, errOut := runCmd(t, exec.Command(binary(t), "redirect", "add-atom", "Write the runbook", "--depends-on", "A1", "--json", "-f", path))
	want := "aot-tui: " + path + " is read-only (mode 0444): nothing was written; chmod u+w " + path + " to allow corrections\n"
	if code != exitUsage || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant exit 2, %q", code, errOut, want)
	}
	var je jsonError
	if err := json.Unmarshal([]byte(out), &je); err != nil || je.ExitCode != exitUsage || !strings.Contains(je.Error, "is read-only (mode 0444)") {
		t.Fatalf("--json: %q (%v)", out, err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
}

// AOT_TUI_EXCHANGE takes on or off; anything else is a usage error, and
// nothing is written.
func TestExchangeEnvIsChecked(t *testing.T) {
	path := loopFixture(t)
	before, _ := os.ReadFile(path)
	t.Setenv("AOT_TUI_EXCHANGE", "no")
	code, _, errOut := runCLI(t, "redirect", "add-atom", "Write the runbook", "--depends-on", "A1", "-f", path)
	if code != exitUsage || !strings.Contains(errOut, `AOT_TUI_EXCHANGE="no": use on or off`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("the file changed")
	}
}
