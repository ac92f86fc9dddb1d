package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aot-loop/aot-tui/history"
)

// An in-progress atom deleted with --interrupt: the worker's script then
// fails "Atom A9 not found", and status — reading the journal a TUI keeps
// (here one an older aot-tui kept beside the file) — says so until the
// iteration moves on.
func TestStatusNamesAGoneWorker(t *testing.T) {
	py, bin := loopPython(t), binary(t)
	path, script := workerProject(t)
	// What a TUI watching the loop records: the version before.
	j, err := history.OpenJournal(history.JournalBeside(path), history.JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	record := func() {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(history.Version{At: time.Now(), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	record()
	if code, out, errs := runBin(t, bin, "redirect", "delete-atom", "A9", "--detach", "--interrupt", "-f", path, "--guard", "0"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	record()
	out, err := exec.Command(py, script, path, "A9", "resolved").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Atom A9 not found") {
		t.Fatalf("the worker's write on the deleted atom: %v\n%s", err, out)
	}
	// The loop writes on: another atom starts, in the same iteration.
	if out, err := exec.Command(py, script, path, "A9b", "in_progress").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	record()
	const note = "A9 was in progress and is gone: the worker's update_atom.py A9 … will fail 'Atom A9 not found'"
	code, stdout, errs := runBin(t, bin, "status", path)
	if code != 0 || !strings.Contains(stdout, "outlook   ⚠ "+note) {
		t.Fatalf("status: exit %d\n%s%s\nwant the outlook to say %q", code, stdout, errs, note)
	}
	_, stdout, _ = runBin(t, bin, "status", "--json", path)
	var st struct {
		Outlook struct {
			Text    string
			Warning bool
		}
		Gone []struct {
			ID        string
			Iteration int
		} `json:"gone_in_progress"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Outlook.Text, note) || !st.Outlook.Warning || len(st.Gone) != 1 || st.Gone[0].ID != "A9" || st.Gone[0].Iteration != 4 {
		t.Fatalf("status --json: outlook %+v, gone %+v", st.Outlook, st.Gone)
	}
	// The hook counts the next iteration: the coordinator has ended.
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte("iteration: 4"), []byte("iteration: 5"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := runBin(t, bin, "status", path); strings.Contains(stdout, "is gone") {
		t.Fatalf("the note outlived its iteration:\n%s", stdout)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}
